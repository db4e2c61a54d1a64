// The plan search's memory gate: grants add up to the budget, a request that does not fit waits for a release, and
// one larger than the budget runs alone instead of waiting forever.
#include "sim/capacity/des_memory_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace podsim {
namespace {

TEST(DesMemoryGate, GrantsAddUpAndAreReleasedWithTheirGrant) {
  DesMemoryGate gate(100);
  {
    const DesMemoryGate::Grant a = gate.acquire(60);
    const DesMemoryGate::Grant b = gate.acquire(40);
    EXPECT_EQ(gate.granted_bytes(), 100u);
  }
  EXPECT_EQ(gate.granted_bytes(), 0u);
  // Larger than the budget: granted when nothing else is.
  const DesMemoryGate::Grant big = gate.acquire(250);
  EXPECT_EQ(gate.granted_bytes(), 250u);
}

TEST(DesMemoryGate, ARequestThatDoesNotFitWaitsForARelease) {
  DesMemoryGate gate(100);
  std::atomic<bool> granted{false};
  std::thread waiter;
  {
    const DesMemoryGate::Grant first = gate.acquire(70);
    waiter = std::thread([&] {
      const DesMemoryGate::Grant second = gate.acquire(50);
      granted = true;
    });
    // No timing is asserted: the waiter cannot be granted while `first` holds 70 of 100.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(granted);
  }
  waiter.join();
  EXPECT_TRUE(granted);
  EXPECT_EQ(gate.granted_bytes(), 0u);
}

TEST(DesMemoryGate, ReadsTheAvailableMemory) {
#if defined(__linux__)
  const auto available = available_memory_bytes();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0u);
#endif
}

}  // namespace
}  // namespace podsim
