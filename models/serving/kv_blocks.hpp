// The paged KV cache of one replica, counted in blocks as vLLM's BlockPool counts them: a request holds
// ceil(tokens / kv_block_tokens) blocks for the tokens whose keys and values it has computed or is computing.
// Only counts: which physical block holds what does not change any time podsim simulates (no prefix caching).
#pragma once

#include <cstdint>
#include <string>

#include "models/common/error.hpp"
#include "models/common/integer.hpp"

namespace podsim {

class KvBlockPool {
 public:
  // `block_tokens` >= 1 tokens per block, `capacity_blocks` >= 1 blocks in all (verify_scheduler_config's rules).
  KvBlockPool(std::int64_t block_tokens, std::int64_t capacity_blocks)
      : block_tokens_(block_tokens), capacity_blocks_(capacity_blocks) {
    if (block_tokens < 1 || capacity_blocks < 1)
      throw InternalError("KvBlockPool needs block_tokens >= 1 and capacity_blocks >= 1, got: " +
                          std::to_string(block_tokens) + " and " + std::to_string(capacity_blocks));
  }

  std::int64_t block_tokens() const { return block_tokens_; }
  std::int64_t capacity_blocks() const { return capacity_blocks_; }
  std::int64_t used_blocks() const { return used_blocks_; }
  std::int64_t free_blocks() const { return capacity_blocks_ - used_blocks_; }

  // Blocks that hold `tokens` >= 0 tokens: ceil(tokens / block_tokens).
  std::int64_t blocks_for(std::int64_t tokens) const {
    return static_cast<std::int64_t>(
        ceil_div(static_cast<std::uint64_t>(tokens), static_cast<std::uint64_t>(block_tokens_)));
  }

  // Takes `blocks` >= 0 blocks if that many are free (true); else takes none (false).
  bool try_allocate(std::int64_t blocks) {
    if (blocks > free_blocks()) return false;
    used_blocks_ += blocks;
    return true;
  }

  // Gives back `blocks` blocks taken earlier.
  void release(std::int64_t blocks) {
    if (blocks < 0 || blocks > used_blocks_)
      throw InternalError("KvBlockPool: releasing " + std::to_string(blocks) +
                          " blocks, got: " + std::to_string(used_blocks_) + " in use");
    used_blocks_ -= blocks;
  }

 private:
  std::int64_t block_tokens_;
  std::int64_t capacity_blocks_;
  std::int64_t used_blocks_ = 0;
};

}  // namespace podsim
