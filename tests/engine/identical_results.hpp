// The comparison the symmetry paths' tests make: bit for bit, the same doubles (compared as bytes), routes and counts
// as simulate() gives.
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include "sim/engine/simulation_result.hpp"

namespace podsim::engine::testing {

inline void expect_identical(const SimulationResult& a, const SimulationResult& b) {
  EXPECT_EQ(std::memcmp(&a.makespan_s, &b.makespan_s, sizeof(double)), 0) << a.makespan_s << " " << b.makespan_s;
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t t = 0; t < a.tasks.size(); ++t) {
    EXPECT_EQ(std::memcmp(&a.tasks[t].start_s, &b.tasks[t].start_s, sizeof(double)), 0) << "task " << t;
    EXPECT_EQ(std::memcmp(&a.tasks[t].end_s, &b.tasks[t].end_s, sizeof(double)), 0) << "task " << t;
  }
  EXPECT_EQ(a.task_route, b.task_route);
  ASSERT_EQ(a.links.size(), b.links.size());
  for (std::size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_EQ(a.links[l].bytes, b.links[l].bytes) << "link " << l;
    EXPECT_EQ(a.links[l].messages, b.links[l].messages) << "link " << l;
    EXPECT_EQ(a.links[l].dcn, b.links[l].dcn) << "link " << l;
    EXPECT_EQ(std::memcmp(&a.links[l].busy_s, &b.links[l].busy_s, sizeof(double)), 0) << "link " << l;
  }
  EXPECT_EQ(a.chip_bytes_sent, b.chip_bytes_sent);
  EXPECT_EQ(a.chip_bytes_received, b.chip_bytes_received);
  EXPECT_EQ(a.messages, b.messages);
}

}  // namespace podsim::engine::testing
