// Memory over time from step times: allocation at the creating step's start, free at the last reader's end,
// frees before allocations at one moment, declared buffers always alive. Hand-built programs, hand-worked sums.
#include <gtest/gtest.h>

#include "sim/plan/memory_profile.hpp"

namespace podsim {
namespace {

PlannedBuffer buffer(std::uint64_t bytes, int op, int step, int last_op, int last_step, std::string what) {
  PlannedBuffer b;
  b.role = op < 0 ? PlannedBuffer::Role::declared : PlannedBuffer::Role::temporary;
  b.bytes_per_chip = bytes;
  b.op = op;
  b.step = step;
  b.last_op = last_op;
  b.last_step = last_step;
  b.what = std::move(what);
  return b;
}

// Two ops of two steps each. Buffers: a declared 10; t0 created by (0,0), read last by (0,1), 100; r0 created by
// (0,1), read last by (1,1), 5; t1 created by (1,0), read by (1,1), 200; r1 created by (1,1), read by nobody, 7.
PlannedProgram two_ops() {
  PlannedProgram p;
  p.ops.resize(2);
  for (int i = 0; i < 2; ++i) {
    p.ops[static_cast<std::size_t>(i)].index = i;
    p.ops[static_cast<std::size_t>(i)].steps.resize(2);
  }
  p.buffers = {buffer(10, -1, -1, -1, -1, "a"), buffer(100, 0, 0, 0, 1, "t0"), buffer(5, 0, 1, 1, 1, "r0"),
               buffer(200, 1, 0, 1, 1, "t1"), buffer(7, 1, 1, -1, -1, "r1")};
  return p;
}

TEST(MemoryProfile, OpsOneAfterAnother) {
  const PlannedProgram p = two_ops();
  // op 0: [0,1] [1,2]; op 1: [2,3] [3,4].
  const StepTimes times = {{{0, 1}, {1, 2}}, {{2, 3}, {3, 4}}};
  const MemoryProfile m = memory_profile(p, times);
  // 0: a + t0 = 110; 1: + r0 = 115; 2: t0 freed, t1 allocated: 10 + 5 + 200 = 215; 3: + r1 = 222;
  // 4: r0, t1 freed: 17.
  ASSERT_EQ(m.points.size(), 5u);
  EXPECT_EQ(m.points[0].bytes, 110u);
  EXPECT_EQ(m.points[1].bytes, 115u);
  EXPECT_EQ(m.points[2].bytes, 215u);
  EXPECT_EQ(m.points[3].bytes, 222u);
  EXPECT_EQ(m.points[4].bytes, 17u);
  EXPECT_EQ(m.peak_bytes, 222u);
  EXPECT_DOUBLE_EQ(m.peak_time_s, 3);
  // Alive at 3, largest first: t1, a, r1, r0.
  EXPECT_EQ(m.alive_at_peak, (std::vector<int>{3, 0, 4, 2}));
}

TEST(MemoryProfile, AnOpThatStartsEarlyHoldsItsTemporaryBesideTheOthers) {
  const PlannedProgram p = two_ops();
  // op 1's first step (t1) starts at 0, beside op 0: a + t0 + t1 = 310 at 0.
  const StepTimes times = {{{0, 1}, {1, 2}}, {{0, 3}, {3, 4}}};
  const MemoryProfile m = memory_profile(p, times);
  EXPECT_EQ(m.points[0].bytes, 310u);
  EXPECT_EQ(m.peak_bytes, 315u);  // at 1: + r0
  EXPECT_DOUBLE_EQ(m.peak_time_s, 1);
}

TEST(MemoryProfile, ABufferFreedAsItIsCreatedTakesNoMemory) {
  PlannedProgram p = two_ops();
  const StepTimes times = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
  const MemoryProfile m = memory_profile(p, times);
  // Everything is created at 0; t0, t1, r0 are freed at 0 too. Only a and r1 (kept to the end) hold memory.
  EXPECT_EQ(m.peak_bytes, 17u);
}

}  // namespace
}  // namespace podsim
