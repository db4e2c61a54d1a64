// Contention explained by hand: three ops' transfers on two links, with overlapping and disjoint bandwidth phases.
#include <gtest/gtest.h>

#include <algorithm>

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

// Builds a plan of `ops` ops, each ten times its closed form (all explained) unless listed in `quick`, and one
// transfer per (op, link, start, end) on a route of that one link with no latency.
struct Phases {
  struct Entry {
    std::int32_t op;
    LinkId link;
    double start, end;
  };
  std::vector<Entry> entries;
  std::int32_t ops = 0;
  std::vector<std::int32_t> quick;

  PlanRun explain() const {
    EventGraph graph;
    graph.num_chips = 2;
    SimulationResult sim;
    for (const Entry& e : entries) {
      Task t;
      t.kind = TaskKind::transfer;
      t.src_chip = 0;
      t.dst_chip = 1;
      t.bytes = 10;
      t.op = e.op;
      graph.add(t);
      const std::vector<LinkId> route = {e.link};
      sim.task_route.push_back(sim.routes.add(route, 0.0));
      sim.tasks.push_back({e.start, e.end});
    }
    PlanRun plan;
    for (std::int32_t i = 0; i < ops; ++i) {
      OpRun op;
      op.name = "op" + std::to_string(i);
      op.book_time_s = 1;
      op.des_time_s = std::find(quick.begin(), quick.end(), i) == quick.end() ? 10 : 1;
      plan.ops.push_back(op);
    }
    for (int link = 0; link < 3; ++link)
      plan.links.push_back({"l" + std::to_string(link), 0, 0, 0});
    explain_contention(plan, graph, sim);
    return plan;
  }
};

TEST(Contention, PhasesThatOnlyTouchDoNotOverlapButAnOpSpanningTheTouchingPointDoes) {
  // op0 on link 0 over [0, 5] and [5, 10]; op1 over [10, 20] (touches op0's end: no overlap); op2 over [4.5, 5.5]
  // (inside op0's two touching phases); on link 1, op1 over [0, 1] and op2 over [1, 2] (touching only).
  Phases p{{{0, 0, 0, 5}, {0, 0, 5, 10}, {1, 0, 10, 20}, {2, 0, 4.5, 5.5}, {1, 1, 0, 1}, {2, 1, 1, 2}}, 3, {}};
  const PlanRun plan = p.explain();
  EXPECT_EQ(plan.ops[0].contention->shared_with, (std::vector<std::string>{"op2"}));
  EXPECT_TRUE(plan.ops[1].contention->shared_with.empty());
  EXPECT_TRUE(plan.ops[1].contention->busiest_shared_link.empty());
  EXPECT_EQ(plan.ops[2].contention->shared_with, (std::vector<std::string>{"op0"}));
  EXPECT_EQ(plan.ops[2].contention->busiest_shared_link, "l0");
}

TEST(Contention, AnExplainedOpSharesWithOpsThatStartWhileItRunsExplainedOrNot) {
  // op0 (explained) over [0, 10] on link 2; op1 (within its closed form) starts at 3, op2 (explained) at 9, both on
  // link 2; op3 starts at 10 (after op0). op1 is not explained, but op0 and op2 name it.
  Phases p{{{0, 2, 0, 10}, {1, 2, 3, 12}, {2, 2, 9, 11}, {3, 2, 12, 13}}, 4, {1}};
  const PlanRun plan = p.explain();
  EXPECT_EQ(plan.ops[0].contention->shared_with, (std::vector<std::string>{"op1", "op2"}));
  EXPECT_EQ(plan.ops[0].contention->busiest_shared_link, "l2");
  EXPECT_FALSE(plan.ops[1].contention);
  EXPECT_EQ(plan.ops[2].contention->shared_with, (std::vector<std::string>{"op0", "op1"}));
  EXPECT_TRUE(plan.ops[3].contention->shared_with.empty());
}

TEST(Contention, ThousandsOfConcurrentOpsEachShareWithAllTheOthers) {
  // 5,000 ops, op i over [i, 10,000 + i] on link 0: every pair overlaps. More explained ops than one sweep holds
  // (4,096), so the last ops are found by a second sweep; op 4,999 started last, op 0 first.
  Phases p;
  p.ops = 5000;
  for (std::int32_t i = 0; i < p.ops; ++i)
    p.entries.push_back({i, 0, static_cast<double>(i), 10000.0 + i});
  const PlanRun plan = p.explain();
  for (const std::size_t i : {0, 4095, 4096, 4999}) {
    const auto& shared = plan.ops[i].contention->shared_with;
    ASSERT_EQ(shared.size(), 4999u) << i;
    EXPECT_EQ(shared.front(), i == 0 ? "op1" : "op0");
    EXPECT_EQ(shared.back(), i == 4999 ? "op4998" : "op4999");
  }
}

}  // namespace
}  // namespace podsim
