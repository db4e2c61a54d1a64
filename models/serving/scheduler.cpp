// vLLM V1's Scheduler.schedule() for one replica without prefix caching, speculative decoding or priorities
// (docs/serving-model.md, "The scheduler step", lists each rule with the line of vLLM it follows).
#include "models/serving/scheduler.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace podsim {
namespace {

void verify_config_count(const char* field, std::int64_t value, std::int64_t max) {
  const std::string where = std::string("/serving/") + field;
  if (value < 1) throw InputError(where, "must be at least 1, got: " + std::to_string(value));
  if (value > max)
    throw InputError(where, "must be at most " + std::to_string(max) + ", got: " + std::to_string(value));
}

const SchedulerConfig& verified_config(const SchedulerConfig& config) {
  verify_scheduler_config(config);
  return config;
}

}  // namespace

void verify_scheduler_config(const SchedulerConfig& config) {
  verify_config_count("max_num_seqs", config.max_num_seqs, kMaxNumSeqs);
  verify_config_count("max_num_batched_tokens", config.max_num_batched_tokens, kMaxNumBatchedTokens);
  if (config.max_num_batched_tokens < config.max_num_seqs)
    throw InputError("/serving/max_num_batched_tokens", "must be at least max_num_seqs (" +
                                                            std::to_string(config.max_num_seqs) +
                                                            "), got: " + std::to_string(config.max_num_batched_tokens));
  verify_config_count("kv_block_tokens", config.kv_block_tokens, kMaxKvBlockTokens);
  if (config.kv_capacity_blocks < 1)
    throw InputError("/serving", "the kv cache must hold at least one block, got: " +
                                     std::to_string(config.kv_capacity_blocks) + " blocks");
  if (config.kv_capacity_blocks > kMaxKvCacheBlocks)
    throw InputError("/serving", "the kv cache must hold at most 2^40 blocks, got: " +
                                     std::to_string(config.kv_capacity_blocks) + " blocks");
}

BatchSignature batch_signature(const StepBatch& batch) {
  BatchSignature signature;
  for (const ScheduledRequest& r : batch.requests) {
    if (r.decode) {
      signature.decode_seqs += 1;
      signature.decode_context_sum += r.context_tokens;
      signature.decode_context_max = std::max(signature.decode_context_max, r.context_tokens);
    } else {
      signature.prefill_tokens += r.new_tokens;
      signature.prefill_chunks.push_back(PrefillChunk{r.new_tokens, r.context_tokens});
    }
  }
  return signature;
}

Scheduler::Scheduler(const SchedulerConfig& config)
    : config_(verified_config(config)), pool_(config.kv_block_tokens, config.kv_capacity_blocks) {}

void Scheduler::add_request(const Request& request) {
  const auto in_range = [](std::int64_t tokens) { return tokens >= 1 && tokens <= kMaxRequestTokens; };
  if (!in_range(request.prompt_tokens) || !in_range(request.output_tokens))
    throw InternalError("scheduler: request " + std::to_string(request.id) + " has prompt " +
                        std::to_string(request.prompt_tokens) + " and output " + std::to_string(request.output_tokens) +
                        " tokens, outside [1, 2^24]");
  // The last output token is sampled, never fed back: at most prompt + output - 1 tokens are ever in the cache,
  // and that is also the longest prefill (a recompute after a preemption that came after output - 1 tokens).
  const std::int64_t most_tokens = request.prompt_tokens + request.output_tokens - 1;
  const std::string sizes = "prompt " + std::to_string(request.prompt_tokens) + " + output " +
                            std::to_string(request.output_tokens) + " - 1 tokens";
  const std::int64_t blocks = pool_.blocks_for(most_tokens);
  if (blocks > pool_.capacity_blocks())
    throw UnservableRequestError("request " + std::to_string(request.id) +
                                     " does not fit in the kv cache even alone: " + sizes + " need " +
                                     std::to_string(blocks) + " blocks of " + std::to_string(pool_.block_tokens()) +
                                     " tokens, got: a cache of " + std::to_string(pool_.capacity_blocks()) + " blocks",
                                 request.id, UnservableRequestError::Limit::kv_cache, blocks, pool_.capacity_blocks());
  if (!config_.chunked_prefill && most_tokens > config_.max_num_batched_tokens)
    throw UnservableRequestError(
        "request " + std::to_string(request.id) + " does not fit in one step without chunked prefill: " + sizes +
            " (its prefill after a preemption) must be at most max_num_batched_tokens, got: " +
            std::to_string(config_.max_num_batched_tokens),
        request.id, UnservableRequestError::Limit::token_budget, most_tokens, config_.max_num_batched_tokens);
  waiting_.push_back(Entry{request});
}

void Scheduler::add_prefilled_request(const Request& request, std::int64_t computed_tokens) {
  if (computed_tokens < 0 || computed_tokens >= request.prompt_tokens)
    throw InternalError("scheduler: request " + std::to_string(request.id) + " arrives with " +
                        std::to_string(computed_tokens) + " computed tokens, outside [0, prompt " +
                        std::to_string(request.prompt_tokens) + " - 1]");
  add_request(request);
  waiting_.back().computed = computed_tokens;  // its blocks: allocate() counts them on admission
}

void Scheduler::release_held(std::int64_t id) {
  const auto found = std::find_if(held_.begin(), held_.end(), [id](const auto& held) { return held.first == id; });
  if (found == held_.end())
    throw InternalError("scheduler: request " + std::to_string(id) + " holds no blocks after finishing");
  pool_.release(found->second);
  held_.erase(found);
}

bool Scheduler::allocate(Entry& entry, std::int64_t new_tokens) {
  // vLLM's allocate_slots: blocks for every computed token and every token of this step, without lookahead.
  const std::int64_t tokens = entry.computed + new_tokens;
  if (tokens <= entry.blocks * pool_.block_tokens()) return true;  // most decodes: no division
  const std::int64_t needed = pool_.blocks_for(tokens) - entry.blocks;
  if (needed <= 0) return true;
  if (!pool_.try_allocate(needed)) return false;
  entry.blocks += needed;
  return true;
}

void Scheduler::preempt_last(StepBatch& batch) {
  // _preempt_request: recompute only; the victim loses its KV and goes to the head of the waiting queue.
  Entry victim = std::move(running_.back());
  running_.pop_back();
  pool_.release(victim.blocks);
  victim.blocks = 0;
  victim.computed = 0;
  victim.scheduled = 0;
  batch.preempted.push_back(victim.request.id);
  waiting_.push_front(std::move(victim));
  ++preemptions_;
}

std::int64_t Scheduler::schedule_running(StepBatch& batch) {
  std::int64_t budget = config_.max_num_batched_tokens;
  std::size_t index = 0;
  while (index < running_.size() && budget > 0) {
    const std::int64_t new_tokens = std::min(running_[index].known_tokens() - running_[index].computed, budget);
    bool preempted_itself = false;
    while (!allocate(running_[index], new_tokens)) {
      preempted_itself = index + 1 == running_.size();
      preempt_last(batch);
      if (preempted_itself) break;
    }
    if (preempted_itself) break;
    running_[index].scheduled = new_tokens;
    budget -= new_tokens;
    ++index;
  }
  return budget;
}

void Scheduler::admit_waiting(std::int64_t budget) {
  const auto max_running = static_cast<std::size_t>(config_.max_num_seqs);
  while (!waiting_.empty() && budget > 0 && running_.size() < max_running) {
    Entry& head = waiting_.front();
    std::int64_t new_tokens = head.known_tokens() - head.computed;
    if (!config_.chunked_prefill && new_tokens > budget) break;  // the prompt must fit whole: stop admitting
    new_tokens = std::min(new_tokens, budget);
    if (!allocate(head, new_tokens)) break;  // no preemption to admit: head-of-line blocking
    head.scheduled = new_tokens;
    budget -= new_tokens;
    running_.push_back(std::move(head));
    waiting_.pop_front();
  }
}

StepBatch Scheduler::schedule() {
  if (step_planned_) throw InternalError("scheduler: schedule() called again before finish_step()");
  StepBatch batch;
  batch.requests.reserve(running_.size() + waiting_.size() < static_cast<std::size_t>(config_.max_num_seqs)
                             ? running_.size() + waiting_.size()
                             : static_cast<std::size_t>(config_.max_num_seqs));
  const std::int64_t budget = schedule_running(batch);
  if (batch.preempted.empty()) admit_waiting(budget);
  for (const Entry& entry : running_) {
    if (entry.scheduled == 0) continue;
    const std::int64_t known = entry.known_tokens();
    ScheduledRequest r;
    r.id = entry.request.id;
    r.new_tokens = entry.scheduled;
    r.context_tokens = entry.computed;
    r.decode = entry.generated > 0 && entry.computed == known - 1;
    r.emits_token = entry.computed + entry.scheduled == known;
    batch.total_tokens += r.new_tokens;
    batch.requests.push_back(r);
  }
  // Every step makes progress (add_request refused what could not): an empty batch with work left is a bug, unless
  // finished requests hold blocks (hold_finished_kv) that their release will free.
  if (batch.empty() && has_work() && held_.empty())
    throw InternalError("scheduler: no request could be scheduled with " + std::to_string(waiting_.size()) +
                        " waiting and " + std::to_string(running_.size()) + " running");
  step_planned_ = !batch.empty();
  return batch;
}

StepResult Scheduler::finish_step() {
  if (!step_planned_) throw InternalError("scheduler: finish_step() without a planned step");
  step_planned_ = false;
  StepResult result;
  for (Entry& entry : running_) {
    if (entry.scheduled == 0) continue;
    entry.computed += entry.scheduled;
    entry.scheduled = 0;
    if (entry.computed < entry.known_tokens()) continue;  // a partial prefill emits nothing
    entry.generated += 1;
    result.emitted.push_back(entry.request.id);
    if (entry.generated == entry.request.output_tokens) {
      result.finished.push_back(entry.request.id);
      if (hold_finished_)
        held_.emplace_back(entry.request.id, entry.blocks);
      else
        pool_.release(entry.blocks);
      entry.blocks = 0;
    }
  }
  if (!result.finished.empty())
    std::erase_if(running_, [](const Entry& entry) { return entry.generated == entry.request.output_tokens; });
  return result;
}

}  // namespace podsim
