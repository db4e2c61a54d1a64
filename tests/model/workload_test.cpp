// A workload's tokens per step and per pass (models/model/workload.hpp), worked by hand.
#include "models/model/workload.hpp"

#include <gtest/gtest.h>

namespace podsim {
namespace {

TEST(Workload, TrainingPassesAreMicrobatches) {
  Workload w;
  w.mode = WorkloadMode::train;
  w.batch_tokens = 1 << 20;
  w.microbatches = 4;
  EXPECT_EQ(w.tokens_per_step(), 1u << 20);
  EXPECT_EQ(w.tokens_per_pass(), 1u << 18);  // 1,048,576 / 4
  w.microbatches = 0;                        // unset: one pass
  EXPECT_EQ(w.tokens_per_pass(), 1u << 20);
}

TEST(Workload, AServingStepIsOnePass) {
  Workload w;
  w.mode = WorkloadMode::prefill;
  w.batch = 8;
  w.context = 2048;
  w.microbatches = 4;  // not a serving figure: ignored
  EXPECT_EQ(w.tokens_per_pass(), 16384u);
  w.mode = WorkloadMode::decode;
  EXPECT_EQ(w.tokens_per_pass(), 8u);  // one new token per sequence
}

}  // namespace
}  // namespace podsim
