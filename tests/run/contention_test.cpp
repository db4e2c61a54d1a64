// Contention explained by hand: three ops' transfers on two links, with overlapping and disjoint bandwidth phases.
#include <gtest/gtest.h>

#include "sim/run/contention.hpp"

namespace podsim {
namespace {

TEST(Contention, NamesTheOpsSharingALinkAtOverlappingTimesAndTheBusiestSharedLink) {
  // Tasks: 0 = op a on links 1 then 2 over [0, 10]; 1 = op b on link 2 over [5, 15]; 2 = op c on link 3 over
  // [0, 10]; 3 = op c on link 2 over [20, 30] (after b has ended: no overlap). Route latency 1 s each, so bandwidth
  // phases start 1 s after the tasks.
  EventGraph graph;
  graph.num_chips = 4;
  auto transfer = [&](std::int32_t op, std::uint64_t bytes) {
    Task t;
    t.kind = TaskKind::transfer;
    t.src_chip = 0;
    t.dst_chip = 1;
    t.bytes = bytes;
    t.op = op;
    graph.add(t);
  };
  transfer(0, 100);
  transfer(1, 50);
  transfer(2, 70);
  transfer(2, 70);
  SimulationResult sim;
  const std::vector<LinkId> r12 = {1, 2}, r2 = {2}, r3 = {3};
  const auto a = sim.routes.add(r12, 1.0), b = sim.routes.add(r2, 1.0), c = sim.routes.add(r3, 1.0);
  sim.task_route = {a, b, c, b};
  sim.tasks = {{0, 10}, {5, 15}, {0, 10}, {20, 30}};
  PlanRun plan;
  for (const char* name : {"a", "b", "c"}) {
    OpRun op;
    op.name = name;
    op.book_time_s = 1;
    op.des_time_s = 10;  // all ten times their closed form
    plan.ops.push_back(op);
  }
  plan.ops[1].des_time_s = 1.05;  // within 10% of its book time: not explained
  for (int link = 0; link < 4; ++link)
    plan.links.push_back({"l" + std::to_string(link), 0, 0, 0});
  explain_contention(plan, graph, sim);
  // a's phase [1, 10] on link 2 overlaps b's [6, 15]: a shared link 2 with b; its busiest shared link is l2 with
  // its 100 bytes.
  ASSERT_TRUE(plan.ops[0].contention);
  EXPECT_EQ(plan.ops[0].contention->shared_with, (std::vector<std::string>{"b"}));
  EXPECT_EQ(plan.ops[0].contention->busiest_shared_link, "l2");
  EXPECT_EQ(plan.ops[0].contention->busiest_shared_bytes, 100u);
  EXPECT_FALSE(plan.ops[1].contention);
  // c ran alone on link 3 and on link 2 after b and a had ended: explained, but nobody shared.
  ASSERT_TRUE(plan.ops[2].contention);
  EXPECT_TRUE(plan.ops[2].contention->shared_with.empty());
  EXPECT_TRUE(plan.ops[2].contention->busiest_shared_link.empty());
}

}  // namespace
}  // namespace podsim
