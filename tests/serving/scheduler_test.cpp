// The vLLM V1 scheduler step of models/serving/scheduler.hpp on batches worked by hand step by step (each test's
// comment is the working), the KV block pool, the batch signature, and the configuration's rules.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/serving/scheduler.hpp"

namespace podsim {
namespace {

SchedulerConfig scheduler_test_config(std::int64_t max_num_seqs, std::int64_t budget, bool chunked,
                                      std::int64_t block_tokens, std::int64_t capacity_blocks) {
  SchedulerConfig config;
  config.max_num_seqs = max_num_seqs;
  config.max_num_batched_tokens = budget;
  config.chunked_prefill = chunked;
  config.kv_block_tokens = block_tokens;
  config.kv_capacity_blocks = capacity_blocks;
  return config;
}

Request scheduler_test_request(std::int64_t id, std::int64_t prompt, std::int64_t output) {
  return Request{id, 0.0, prompt, output};
}

// A scheduled request as (id, new tokens, context, decode, emits).
void expect_scheduled(const ScheduledRequest& r, std::int64_t id, std::int64_t new_tokens, std::int64_t context,
                      bool decode, bool emits) {
  EXPECT_EQ(r.id, id);
  EXPECT_EQ(r.new_tokens, new_tokens) << "request " << id;
  EXPECT_EQ(r.context_tokens, context) << "request " << id;
  EXPECT_EQ(r.decode, decode) << "request " << id;
  EXPECT_EQ(r.emits_token, emits) << "request " << id;
}

// Runs to the end, numbering the next step `first_step`; the step at which each request finished.
std::map<std::int64_t, int> scheduler_test_finish_steps(Scheduler& scheduler, int first_step) {
  std::map<std::int64_t, int> finished_at;
  for (int step = first_step; scheduler.has_work(); ++step) {
    const StepBatch batch = scheduler.schedule();
    EXPECT_FALSE(batch.empty());
    for (const std::int64_t id : scheduler.finish_step().finished)
      finished_at[id] = step;
    if (step > 100000) {
      ADD_FAILURE() << "no end";
      break;
    }
  }
  return finished_at;
}

TEST(KvBlocks, RequestsHoldCeilOfTokensOverBlock) {
  KvBlockPool pool(16, 10);
  EXPECT_EQ(pool.blocks_for(0), 0);
  EXPECT_EQ(pool.blocks_for(1), 1);
  EXPECT_EQ(pool.blocks_for(16), 1);
  EXPECT_EQ(pool.blocks_for(17), 2);
  EXPECT_TRUE(pool.try_allocate(7));
  EXPECT_FALSE(pool.try_allocate(4));  // 3 free: takes none
  EXPECT_EQ(pool.used_blocks(), 7);
  EXPECT_TRUE(pool.try_allocate(3));
  EXPECT_EQ(pool.free_blocks(), 0);
  pool.release(10);
  EXPECT_EQ(pool.used_blocks(), 0);
  EXPECT_THROW(pool.release(1), InternalError);
}

TEST(Scheduler, SingleRequestPrefillsInOneStepThenDecodesOneTokenPerStep) {
  Scheduler s(scheduler_test_config(4, 512, true, 16, 100));
  s.add_request(scheduler_test_request(0, 112, 5));
  // Step 1: the whole prompt (112 <= 512) in 7 blocks of 16; its first token at the end of the step.
  StepBatch batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 1u);
  expect_scheduled(batch.requests[0], 0, 112, 0, false, true);
  EXPECT_EQ(batch.total_tokens, 112);
  EXPECT_EQ(s.kv_used_blocks(), 7);
  StepResult result = s.finish_step();
  EXPECT_EQ(result.emitted, std::vector<std::int64_t>{0});
  EXPECT_TRUE(result.finished.empty());
  // Steps 2..5: one decode token each at contexts 112..115; the 113th token needs an 8th block.
  for (std::int64_t step = 2; step <= 5; ++step) {
    batch = s.schedule();
    ASSERT_EQ(batch.requests.size(), 1u);
    expect_scheduled(batch.requests[0], 0, 1, 112 + (step - 2), true, true);
    EXPECT_EQ(s.kv_used_blocks(), 8);
    result = s.finish_step();
    EXPECT_EQ(result.emitted, std::vector<std::int64_t>{0});
    EXPECT_EQ(result.finished.empty(), step < 5);
  }
  // 1 + (5 - 1) steps; its blocks are free again.
  EXPECT_FALSE(s.has_work());
  EXPECT_EQ(s.kv_used_blocks(), 0);
  EXPECT_TRUE(s.schedule().empty());
}

TEST(Scheduler, ChunkedPrefillSplitsALongPromptByTheBudget) {
  Scheduler s(scheduler_test_config(8, 1024, true, 16, 1000));
  s.add_request(scheduler_test_request(0, 3000, 2));
  // 3000 = 1024 + 1024 + 952; only the last chunk completes the prompt and emits the first token.
  const std::int64_t chunks[] = {1024, 1024, 952};
  std::int64_t context = 0;
  for (const std::int64_t chunk : chunks) {
    const StepBatch batch = s.schedule();
    ASSERT_EQ(batch.requests.size(), 1u);
    expect_scheduled(batch.requests[0], 0, chunk, context, false, chunk == 952);
    EXPECT_EQ(s.finish_step().emitted.size(), chunk == 952 ? 1u : 0u);
    context += chunk;
  }
  const StepBatch decode = s.schedule();
  expect_scheduled(decode.requests[0], 0, 1, 3000, true, true);
  EXPECT_EQ(s.finish_step().finished, std::vector<std::int64_t>{0});
}

TEST(Scheduler, WithoutChunkingAPromptThatDoesNotFitStopsAdmission) {
  Scheduler s(scheduler_test_config(8, 1024, false, 16, 1000));
  s.add_request(scheduler_test_request(0, 600, 3));
  s.add_request(scheduler_test_request(1, 600, 3));
  s.add_request(scheduler_test_request(2, 10, 1));
  // Step 1: A takes 600 of 1024; B's 600 > 424 left stops admission, so C waits too although it would fit.
  StepBatch batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 1u);
  expect_scheduled(batch.requests[0], 0, 600, 0, false, true);
  EXPECT_EQ(s.waiting_count(), 2);
  s.finish_step();
  // Step 2: A's decode (1), then B (600) and C (10): 611 tokens. C's one token finishes it.
  batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 3u);
  expect_scheduled(batch.requests[0], 0, 1, 600, true, true);
  expect_scheduled(batch.requests[1], 1, 600, 0, false, true);
  expect_scheduled(batch.requests[2], 2, 10, 0, false, true);
  EXPECT_EQ(batch.total_tokens, 611);
  EXPECT_EQ(s.finish_step().finished, std::vector<std::int64_t>{2});
}

TEST(Scheduler, WithChunkingTheSamePromptTakesWhatIsLeft) {
  Scheduler s(scheduler_test_config(8, 1024, true, 16, 1000));
  s.add_request(scheduler_test_request(0, 600, 3));
  s.add_request(scheduler_test_request(1, 600, 3));
  s.add_request(scheduler_test_request(2, 10, 1));
  // Step 1: A 600, B a chunk of the 424 left; C waits (no budget left).
  StepBatch batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 2u);
  expect_scheduled(batch.requests[0], 0, 600, 0, false, true);
  expect_scheduled(batch.requests[1], 1, 424, 0, false, false);
  EXPECT_EQ(s.finish_step().emitted, std::vector<std::int64_t>{0});
  // Step 2: A decodes (1), B's last 176 at context 424 emit its first token, C's 10.
  batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 3u);
  expect_scheduled(batch.requests[0], 0, 1, 600, true, true);
  expect_scheduled(batch.requests[1], 1, 176, 424, false, true);
  expect_scheduled(batch.requests[2], 2, 10, 0, false, true);
  const BatchSignature sig = batch_signature(batch);
  EXPECT_EQ(sig.prefill_tokens, 186);
  ASSERT_EQ(sig.prefill_chunks.size(), 2u);
  EXPECT_EQ(sig.prefill_chunks[0].tokens, 176);
  EXPECT_EQ(sig.prefill_chunks[0].context_tokens, 424);
  EXPECT_EQ(sig.prefill_chunks[1].tokens, 10);
  EXPECT_EQ(sig.prefill_chunks[1].context_tokens, 0);
  EXPECT_EQ(sig.decode_seqs, 1);
  EXPECT_EQ(sig.decode_context_sum, 600);
  EXPECT_EQ(sig.decode_context_max, 600);
  EXPECT_EQ(sig.total_tokens(), 187);
  s.finish_step();
}

TEST(Scheduler, MaxNumSeqsCapsTheRunningSet) {
  Scheduler s(scheduler_test_config(2, 100, true, 16, 100));
  for (std::int64_t id = 0; id < 3; ++id)
    s.add_request(scheduler_test_request(id, 10, 3));
  // A and B run from step 1 and finish at step 3 (1 + 2); C is admitted at step 4 and finishes at step 6.
  const StepBatch first = s.schedule();
  EXPECT_EQ(first.requests.size(), 2u);
  EXPECT_EQ(s.running_count(), 2);
  EXPECT_EQ(s.waiting_count(), 1);
  s.finish_step();
  const std::map<std::int64_t, int> finished = scheduler_test_finish_steps(s, 2);
  EXPECT_EQ(finished.at(0), 3);
  EXPECT_EQ(finished.at(1), 3);
  EXPECT_EQ(finished.at(2), 6);
}

TEST(Scheduler, AFullCachePreemptsTheLastRunningRequestWhichRecomputesLater) {
  // Blocks of 4 tokens, 5 in all. A and B: prompt 8, output 4, at most 8 + 3 = 11 tokens = 3 blocks each.
  Scheduler s(scheduler_test_config(8, 100, true, 4, 5));
  s.add_request(scheduler_test_request(0, 8, 4));
  s.add_request(scheduler_test_request(1, 8, 4));
  // Step 1: both prompts, 2 blocks each (4 used).
  StepBatch batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 2u);
  EXPECT_EQ(s.kv_used_blocks(), 4);
  s.finish_step();
  // Step 2: A's 9th token takes the last free block; B's needs one more, none is free: B, the last running request,
  // is preempted (it is B itself, so the running pass stops), loses its 2 blocks and goes back to waiting.
  batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 1u);
  expect_scheduled(batch.requests[0], 0, 1, 8, true, true);
  EXPECT_EQ(batch.preempted, std::vector<std::int64_t>{1});
  EXPECT_EQ(s.preemptions(), 1);
  EXPECT_EQ(s.kv_used_blocks(), 3);
  EXPECT_EQ(s.waiting_count(), 1);
  s.finish_step();
  // Steps 3 and 4: A decodes at contexts 9 and 10 in its 3 blocks; B would recompute 8 + 1 = 9 tokens in 3 blocks
  // but only 2 are free, and nothing is preempted to admit it. A finishes at step 4.
  for (std::int64_t context = 9; context <= 10; ++context) {
    batch = s.schedule();
    ASSERT_EQ(batch.requests.size(), 1u);
    expect_scheduled(batch.requests[0], 0, 1, context, true, true);
    EXPECT_TRUE(batch.preempted.empty());
    const StepResult result = s.finish_step();
    EXPECT_EQ(result.finished.size(), context == 10 ? 1u : 0u);
  }
  EXPECT_EQ(s.kv_used_blocks(), 0);
  // Step 5: B resumes with one prefill of its prompt and its generated token (9 tokens from context 0) and emits its
  // second token; steps 6 and 7 decode its third and fourth.
  batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 1u);
  expect_scheduled(batch.requests[0], 1, 9, 0, false, true);
  s.finish_step();
  batch = s.schedule();
  expect_scheduled(batch.requests[0], 1, 1, 9, true, true);
  s.finish_step();
  batch = s.schedule();
  expect_scheduled(batch.requests[0], 1, 1, 10, true, true);
  EXPECT_EQ(s.finish_step().finished, std::vector<std::int64_t>{1});
  EXPECT_EQ(s.preemptions(), 1);
}

TEST(Scheduler, TheVictimIsTheLastRunningRequestNotTheOneBeingScheduled) {
  // Blocks of 4, 4 in all; A, B, C: prompt 4, output 3 (at most 6 tokens, 2 blocks each).
  Scheduler s(scheduler_test_config(8, 100, true, 4, 4));
  for (std::int64_t id = 0; id < 3; ++id)
    s.add_request(scheduler_test_request(id, 4, 3));
  // Step 1: three prompts of 4 tokens, one block each.
  EXPECT_EQ(s.schedule().requests.size(), 3u);
  s.finish_step();
  // Step 2: A's 5th token takes the last free block; B's finds none, so C (last) is preempted and B gets C's block.
  StepBatch batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 2u);
  expect_scheduled(batch.requests[0], 0, 1, 4, true, true);
  expect_scheduled(batch.requests[1], 1, 1, 4, true, true);
  EXPECT_EQ(batch.preempted, std::vector<std::int64_t>{2});
  s.finish_step();
  // Step 3: A and B decode at context 5 and finish; C (5 tokens, 2 blocks) finds no free block.
  batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 2u);
  EXPECT_EQ(s.finish_step().finished, (std::vector<std::int64_t>{0, 1}));
  // Step 4: C recomputes its prompt and first token (5 tokens); step 5 decodes its last.
  batch = s.schedule();
  ASSERT_EQ(batch.requests.size(), 1u);
  expect_scheduled(batch.requests[0], 2, 5, 0, false, true);
  s.finish_step();
  batch = s.schedule();
  expect_scheduled(batch.requests[0], 2, 1, 5, true, true);
  EXPECT_EQ(s.finish_step().finished, std::vector<std::int64_t>{2});
  EXPECT_EQ(s.preemptions(), 1);
}

TEST(Scheduler, AStaticBatchFinishesAtItsOutputLengths) {
  Scheduler s(scheduler_test_config(8, 1000, true, 16, 100));
  const std::int64_t prompts[] = {10, 20, 30, 40};
  for (std::int64_t id = 0; id < 4; ++id)
    s.add_request(scheduler_test_request(id, prompts[id], id + 1));
  // Step 1: four prompts, 100 tokens; each request then needs output - 1 decode steps: finishes at step = output.
  const StepBatch first = s.schedule();
  const BatchSignature prefill = batch_signature(first);
  EXPECT_EQ(prefill.prefill_tokens, 100);
  EXPECT_EQ(prefill.prefill_chunks.size(), 4u);
  EXPECT_EQ(prefill.decode_seqs, 0);
  EXPECT_EQ(s.finish_step().finished, std::vector<std::int64_t>{0});
  // Step 2: B, C and D decode at contexts 20, 30, 40.
  const BatchSignature decode = batch_signature(s.schedule());
  EXPECT_EQ(decode.prefill_tokens, 0);
  EXPECT_EQ(decode.decode_seqs, 3);
  EXPECT_EQ(decode.decode_context_sum, 90);
  EXPECT_EQ(decode.decode_context_max, 40);
  EXPECT_EQ(s.finish_step().finished, std::vector<std::int64_t>{1});
  const std::map<std::int64_t, int> rest = scheduler_test_finish_steps(s, 3);
  EXPECT_EQ(rest.at(2), 3);
  EXPECT_EQ(rest.at(3), 4);
}

TEST(Scheduler, InvariantsHoldUnderLoadAndEveryTokenIsEmittedOnce) {
  // A mixed load through a small cache: the budget, max_num_seqs and the cache are never exceeded, and each request
  // emits exactly its output tokens.
  Scheduler s(scheduler_test_config(6, 64, true, 8, 40));
  std::map<std::int64_t, std::int64_t> outputs, emitted;
  for (std::int64_t id = 0; id < 40; ++id) {
    const std::int64_t prompt = 1 + (id * 37) % 150, output = 1 + (id * 11) % 60;
    outputs[id] = output;
    s.add_request(scheduler_test_request(id, prompt, output));
  }
  std::int64_t finished = 0;
  for (int step = 0; s.has_work() && step < 100000; ++step) {
    const StepBatch batch = s.schedule();
    EXPECT_LE(batch.total_tokens, 64);
    EXPECT_LE(s.running_count(), 6);
    EXPECT_LE(s.kv_used_blocks(), 40);
    const StepResult result = s.finish_step();
    for (const std::int64_t id : result.emitted)
      emitted[id] += 1;
    finished += static_cast<std::int64_t>(result.finished.size());
  }
  EXPECT_EQ(finished, 40);
  EXPECT_EQ(emitted, outputs);
  EXPECT_GT(s.preemptions(), 0);  // 40 blocks of 8 tokens are too few for six long requests
  EXPECT_EQ(s.kv_used_blocks(), 0);
}

TEST(Scheduler, ARequestThatCannotFitTheWholeCacheIsReported) {
  Scheduler s(scheduler_test_config(4, 512, true, 16, 10));
  // 150 + 11 - 1 = 160 tokens = 10 blocks: fits exactly.
  EXPECT_NO_THROW(s.add_request(scheduler_test_request(0, 150, 11)));
  try {
    s.add_request(scheduler_test_request(7, 150, 12));  // 161 tokens: 11 blocks
    FAIL() << "expected UnservableRequestError";
  } catch (const UnservableRequestError& e) {
    EXPECT_EQ(e.request_id(), 7);
    EXPECT_EQ(e.limit(), UnservableRequestError::Limit::kv_cache);
    EXPECT_EQ(e.needed(), 11);
    EXPECT_EQ(e.available(), 10);
    EXPECT_EQ(std::string(e.what()),
              "request 7 does not fit in the kv cache even alone: prompt 150 + output 12 - 1 tokens need 11 blocks "
              "of 16 tokens, got: a cache of 10 blocks");
  }
  EXPECT_EQ(s.waiting_count(), 1);
}

TEST(Scheduler, WithoutChunkingALongestPrefillOverTheBudgetIsReported) {
  Scheduler s(scheduler_test_config(4, 1024, false, 16, 1000));
  EXPECT_NO_THROW(s.add_request(scheduler_test_request(0, 1000, 25)));  // 1024 tokens after 24 outputs
  try {
    s.add_request(scheduler_test_request(3, 3000, 1));
    FAIL() << "expected UnservableRequestError";
  } catch (const UnservableRequestError& e) {
    EXPECT_EQ(e.limit(), UnservableRequestError::Limit::token_budget);
    EXPECT_EQ(e.needed(), 3000);
    EXPECT_EQ(e.available(), 1024);
    EXPECT_EQ(std::string(e.what()),
              "request 3 does not fit in one step without chunked prefill: prompt 3000 + output 1 - 1 tokens (its "
              "prefill after a preemption) must be at most max_num_batched_tokens, got: 1024");
  }
}

TEST(Scheduler, StepsMustAlternate) {
  Scheduler s(scheduler_test_config(4, 512, true, 16, 100));
  EXPECT_THROW(s.finish_step(), InternalError);
  s.add_request(scheduler_test_request(0, 10, 2));
  s.schedule();
  EXPECT_THROW(s.schedule(), InternalError);
  s.finish_step();
  EXPECT_THROW(s.add_request(scheduler_test_request(1, 0, 2)), InternalError);
}

struct SchedulerVerifyCase {
  std::string name;
  std::function<void(SchedulerConfig&)> break_it;
  std::string where;
  std::string message;
};

TEST(SchedulerVerify, EveryRuleHasItsLocatedMessage) {
  const std::vector<SchedulerVerifyCase> cases = {
      {"seqs zero", [](SchedulerConfig& c) { c.max_num_seqs = 0; }, "/serving/max_num_seqs",
       "must be at least 1, got: 0"},
      {"seqs huge", [](SchedulerConfig& c) { c.max_num_seqs = (1 << 20) + 1; }, "/serving/max_num_seqs",
       "must be at most 1048576, got: 1048577"},
      {"budget zero", [](SchedulerConfig& c) { c.max_num_batched_tokens = 0; }, "/serving/max_num_batched_tokens",
       "must be at least 1, got: 0"},
      {"budget huge", [](SchedulerConfig& c) { c.max_num_batched_tokens = (1 << 24) + 1; },
       "/serving/max_num_batched_tokens", "must be at most 16777216, got: 16777217"},
      {"budget below seqs", [](SchedulerConfig& c) { c.max_num_batched_tokens = 64; },
       "/serving/max_num_batched_tokens", "must be at least max_num_seqs (128), got: 64"},
      {"block zero", [](SchedulerConfig& c) { c.kv_block_tokens = 0; }, "/serving/kv_block_tokens",
       "must be at least 1, got: 0"},
      {"block huge", [](SchedulerConfig& c) { c.kv_block_tokens = 65537; }, "/serving/kv_block_tokens",
       "must be at most 65536, got: 65537"},
      {"no cache", [](SchedulerConfig& c) { c.kv_capacity_blocks = 0; }, "/serving",
       "the kv cache must hold at least one block, got: 0 blocks"},
      {"cache huge", [](SchedulerConfig& c) { c.kv_capacity_blocks = (std::int64_t{1} << 40) + 1; }, "/serving",
       "the kv cache must hold at most 2^40 blocks, got: 1099511627777 blocks"},
  };
  SchedulerConfig good = scheduler_test_config(128, 2048, true, 16, 1000);
  EXPECT_NO_THROW(verify_scheduler_config(good));
  for (const SchedulerVerifyCase& c : cases) {
    SchedulerConfig config = good;
    c.break_it(config);
    try {
      Scheduler s(config);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), c.where) << c.name;
      EXPECT_EQ(e.message(), c.message) << c.name;
    }
  }
}

TEST(Scheduler, APrefilledRequestComputesItsLastPromptTokenThenDecodes) {
  // A decode replica receives prompt 100 with 99 tokens computed (blocks of 16, a cache of 10 blocks). Admission
  // allocates ceil(100 / 16) = 7 blocks; the step is a one-token chunk at context 99 that samples the first token;
  // then a decode at context 100 (101 tokens: still 7 blocks) samples the second and last.
  Scheduler scheduler(scheduler_test_config(4, 64, true, 16, 10));
  scheduler.add_prefilled_request(scheduler_test_request(0, 100, 2), 99);
  StepBatch first = scheduler.schedule();
  ASSERT_EQ(first.requests.size(), 1u);
  expect_scheduled(first.requests[0], 0, 1, 99, false, true);
  EXPECT_EQ(scheduler.kv_used_blocks(), 7);
  EXPECT_EQ(scheduler.finish_step().emitted, std::vector<std::int64_t>{0});
  StepBatch second = scheduler.schedule();
  ASSERT_EQ(second.requests.size(), 1u);
  expect_scheduled(second.requests[0], 0, 1, 100, true, true);
  EXPECT_EQ(scheduler.finish_step().finished, std::vector<std::int64_t>{0});
  EXPECT_EQ(scheduler.kv_used_blocks(), 0);
}

TEST(Scheduler, APreemptedPrefilledRequestRecomputesItsWholePrompt) {
  // Cache of 4 blocks of 16. Request 0 (prompt 30, 20 tokens) runs first and holds 2 blocks; request 1 arrives
  // prefilled (prompt 32, 31 computed) and takes 2 blocks (32 tokens) for its one-token chunk. At the next step
  // request 1 decodes at context 32 (33 tokens): it needs a third block, none is free, so the last running request,
  // itself, is preempted: it loses its received KV and, when it runs again, recomputes its prompt and its one
  // generated token from 0 (33 tokens, once request 0 has finished and freed its blocks).
  Scheduler scheduler(scheduler_test_config(4, 64, true, 16, 4));
  scheduler.add_request(scheduler_test_request(0, 30, 20));
  scheduler.schedule();
  scheduler.finish_step();  // request 0's prompt: 30 tokens, 2 blocks, token 1
  scheduler.add_prefilled_request(scheduler_test_request(1, 32, 5), 31);
  StepBatch both = scheduler.schedule();  // request 0 decodes at 30; request 1's one-token chunk at 31
  ASSERT_EQ(both.requests.size(), 2u);
  expect_scheduled(both.requests[1], 1, 1, 31, false, true);
  EXPECT_EQ(scheduler.kv_used_blocks(), 4);
  scheduler.finish_step();
  scheduler.schedule();  // request 0 at context 31 (32 tokens: its 2 blocks); request 1 preempted
  EXPECT_EQ(scheduler.preemptions(), 1);
  scheduler.finish_step();
  bool recomputed = false;
  while (scheduler.has_work()) {
    const StepBatch batch = scheduler.schedule();
    for (const ScheduledRequest& r : batch.requests)
      if (r.id == 1 && r.context_tokens == 0) {
        EXPECT_EQ(r.new_tokens, 33);
        recomputed = true;
      }
    scheduler.finish_step();
  }
  EXPECT_TRUE(recomputed);
}

TEST(Scheduler, HeldBlocksOfFinishedRequestsStayUntilReleased) {
  // A prefill replica (holding): prompt 20 and output 1 in blocks of 16 takes 2 blocks and keeps them after it
  // finishes; a second request of 40 tokens (3 blocks) does not fit beside them in 4 blocks: the step is empty
  // until the first's blocks are released.
  Scheduler scheduler(scheduler_test_config(4, 64, true, 16, 4));
  scheduler.hold_finished_kv(true);
  scheduler.add_request(scheduler_test_request(0, 20, 1));
  scheduler.schedule();
  EXPECT_EQ(scheduler.finish_step().finished, std::vector<std::int64_t>{0});
  EXPECT_EQ(scheduler.kv_used_blocks(), 2);
  EXPECT_EQ(scheduler.held_count(), 1);
  scheduler.add_request(scheduler_test_request(1, 40, 1));
  EXPECT_TRUE(scheduler.schedule().empty());
  scheduler.release_held(0);
  EXPECT_EQ(scheduler.kv_used_blocks(), 0);
  const StepBatch batch = scheduler.schedule();
  ASSERT_EQ(batch.requests.size(), 1u);
  expect_scheduled(batch.requests[0], 1, 40, 0, false, true);
  EXPECT_THROW(scheduler.release_held(0), InternalError);
}

TEST(Scheduler, APrefilledRequestNeedsAComputedCountInsideItsPrompt) {
  Scheduler scheduler(scheduler_test_config(4, 64, true, 16, 4));
  EXPECT_THROW(scheduler.add_prefilled_request(scheduler_test_request(0, 10, 2), 10), InternalError);
  EXPECT_THROW(scheduler.add_prefilled_request(scheduler_test_request(0, 10, 2), -1), InternalError);
}

}  // namespace
}  // namespace podsim
