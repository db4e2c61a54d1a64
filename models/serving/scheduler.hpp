// One replica's continuous-batching scheduler, step by step as vLLM V1's Scheduler.schedule() runs it
// (docs/serving-model.md, "The scheduler step"; vllm/v1/core/sched/scheduler.py): a token budget per step, running
// requests first, preemption by recompute when the paged KV cache is full, then FCFS admission. Pure state: the
// driver calls schedule(), times the batch, then finish_step() and stamps the tokens it returns.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/serving/kv_blocks.hpp"
#include "models/serving/request.hpp"

namespace podsim {

inline constexpr std::int64_t kMaxNumSeqs = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxNumBatchedTokens = std::int64_t{1} << 24;
inline constexpr std::int64_t kMaxKvBlockTokens = std::int64_t{1} << 16;
inline constexpr std::int64_t kMaxKvCacheBlocks = std::int64_t{1} << 40;

struct SchedulerConfig {
  std::int64_t max_num_seqs = 128;             // requests in the running set at most
  std::int64_t max_num_batched_tokens = 2048;  // tokens computed in one step at most (the budget)
  bool chunked_prefill = true;                 // a prompt may be split over steps and share them with decodes
  std::int64_t kv_block_tokens = 16;           // tokens per KV block
  std::int64_t kv_capacity_blocks = 0;         // blocks in the replica's cache (the driver's, from HBM)
};

// Throws InputError at /serving/<field> for every rule of docs/serving-model.md "Constraints"
// (e.g. `/serving/max_num_seqs: must be at least 1, got: 0`); the capacity's rules at /serving.
void verify_scheduler_config(const SchedulerConfig& config);

// A request the replica can never serve, whatever else it runs: its KV does not fit in the whole cache, or (without
// chunked prefill) its longest possible prefill does not fit in one step's budget. Thrown by add_request, so that a
// run never waits forever on it.
class UnservableRequestError : public VerifyError {
 public:
  enum class Limit { kv_cache, token_budget };
  UnservableRequestError(const std::string& message, std::int64_t request_id, Limit limit, std::int64_t needed,
                         std::int64_t available)
      : VerifyError(message), request_id_(request_id), limit_(limit), needed_(needed), available_(available) {}
  std::int64_t request_id() const { return request_id_; }
  Limit limit() const { return limit_; }
  std::int64_t needed() const { return needed_; }        // blocks (kv_cache) or tokens (token_budget)
  std::int64_t available() const { return available_; }  // the cache's blocks or max_num_batched_tokens

 private:
  std::int64_t request_id_;
  Limit limit_;
  std::int64_t needed_;
  std::int64_t available_;
};

struct ScheduledRequest {
  std::int64_t id = 0;
  std::int64_t new_tokens = 0;      // tokens computed for it this step
  std::int64_t context_tokens = 0;  // tokens already computed (in its KV cache) before this step
  bool decode = false;              // it computes exactly its newest output token; else a prefill chunk
  bool emits_token = false;         // its prompt (or recompute) is complete after this step: it samples a token
};

struct StepBatch {
  std::vector<ScheduledRequest> requests;  // in the running set's order (admission order)
  std::vector<std::int64_t> preempted;     // ids preempted this step, in the order they were
  std::int64_t total_tokens = 0;           // sum of new_tokens, <= max_num_batched_tokens

  bool empty() const { return requests.empty(); }
};

struct StepResult {
  std::vector<std::int64_t> emitted;   // ids that produced a token at the end of the step
  std::vector<std::int64_t> finished;  // ids that produced their last token (their blocks are free again)
};

// What a step-time model needs of a batch.
struct PrefillChunk {
  std::int64_t tokens = 0;          // the chunk's new tokens
  std::int64_t context_tokens = 0;  // tokens of the same request already in the cache
};
struct BatchSignature {
  std::int64_t prefill_tokens = 0;  // sum of the chunks' tokens
  std::vector<PrefillChunk> prefill_chunks;
  std::int64_t decode_seqs = 0;
  std::int64_t decode_context_sum = 0;  // sum over decodes of their context_tokens (the KV they read)
  std::int64_t decode_context_max = 0;

  std::int64_t total_tokens() const { return prefill_tokens + decode_seqs; }
};

BatchSignature batch_signature(const StepBatch& batch);

class Scheduler {
 public:
  // `config` is verified here (InputError).
  explicit Scheduler(const SchedulerConfig& config);

  // Appends `request` to the waiting queue. Throws UnservableRequestError when it can never run (see there), and
  // InternalError for token counts outside [1, kMaxRequestTokens].
  void add_request(const Request& request);

  // Appends `request` with its first `computed_tokens` (in [0, prompt_tokens - 1]) already in the cache, as a
  // disaggregated decode replica receives it from a prefill replica (docs/serving-model.md, "Disaggregated serving"):
  // it waits like any request, and its blocks for those tokens are allocated when it is admitted; a preemption loses
  // them and recomputes the prompt, as for any request. Throws what add_request throws, and InternalError for
  // `computed_tokens` outside that range.
  void add_prefilled_request(const Request& request, std::int64_t computed_tokens);

  // While holding (a disaggregated prefill replica: its KV stays until the decode replica has it), a finished request
  // keeps its blocks until release_held(id). Off by default.
  void hold_finished_kv(bool hold) { hold_finished_ = hold; }
  // Frees the blocks a finished request kept; InternalError for an id that holds none.
  void release_held(std::int64_t id);
  std::int64_t held_count() const { return static_cast<std::int64_t>(held_.size()); }

  // Plans one step (vLLM's schedule()): running requests in order, each a decode token or a prefill chunk of
  // min(remaining, budget left), preempting the last running request while blocks are short; then, if nothing was
  // preempted, waiting requests in FCFS order. Returns an empty batch only when no request is waiting or running,
  // or when the blocks finished requests hold (hold_finished_kv) leave too few for any waiting request.
  // Every non-empty batch must be followed by finish_step() before the next schedule().
  StepBatch schedule();

  // Applies the planned step: advances computed tokens, appends a token to each request whose prompt is complete,
  // frees the blocks of the requests that generated their last token.
  StepResult finish_step();

  bool has_work() const { return !waiting_.empty() || !running_.empty(); }
  std::int64_t waiting_count() const { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t running_count() const { return static_cast<std::int64_t>(running_.size()); }
  std::int64_t kv_used_blocks() const { return pool_.used_blocks(); }
  std::int64_t kv_capacity_blocks() const { return pool_.capacity_blocks(); }
  std::int64_t preemptions() const { return preemptions_; }  // since construction
  const SchedulerConfig& config() const { return config_; }

 private:
  struct Entry {
    Request request;
    std::int64_t computed = 0;   // tokens in its KV cache (vLLM's num_computed_tokens)
    std::int64_t generated = 0;  // output tokens so far
    std::int64_t blocks = 0;     // KV blocks it holds
    std::int64_t scheduled = 0;  // new tokens in the planned step

    std::int64_t known_tokens() const { return request.prompt_tokens + generated; }  // vLLM's num_tokens
  };

  bool allocate(Entry& entry, std::int64_t new_tokens);
  void preempt_last(StepBatch& batch);
  std::int64_t schedule_running(StepBatch& batch);
  void admit_waiting(std::int64_t budget);

  SchedulerConfig config_;
  KvBlockPool pool_;
  std::deque<Entry> waiting_;
  std::vector<Entry> running_;
  std::int64_t preemptions_ = 0;
  bool step_planned_ = false;
  bool hold_finished_ = false;
  std::vector<std::pair<std::int64_t, std::int64_t>> held_;  // (request id, blocks) kept after finishing
};

}  // namespace podsim
