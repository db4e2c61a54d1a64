// A two-plan scenario built by hand for the report tests. Every number is chosen so that the expected outputs can
// be worked out on paper (see the comments); nothing here comes from running podsim.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/run_result.hpp"

namespace podsim::test {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

inline OpRun make_op(std::string name, std::string kind, std::int32_t op_id, double start_s, double end_s,
                     double book_s, Bound bound) {
  OpRun op;
  op.name = std::move(name);
  op.kind = std::move(kind);
  op.pointer = "/program/" + std::to_string(op_id);
  op.op_id = op_id;
  op.des_start_s = start_s;
  op.des_end_s = end_s;
  op.des_time_s = end_s - start_s;
  op.book_time_s = book_s;
  op.bound = bound;
  return op;
}

// Plan "fsdp" on a 4-ring (chips 0..3, wraparound), event graph of 5 tasks:
//   t0 compute chip 0, op h (0)       [0, 2] us
//   t1 compute chip 1, op h (0)       [0, 2] us
//   t2 send 0 -> 1, 1 MiB, gather (1) [2, 5] us, step 0; route ici.x+.0
//   t3 send 0 -> 2, 1 MiB, gather (1) [2, 6] us, step 1; route ici.x+.0, ici.x+.1 (tie at distance 2 goes +)
//   t4 compute chip 2, op out (2)     [6, 7.5] us
// The simulation publishes those routes with 1 us per hop: the bandwidth phases are t2 [3, 5] and t3 [4, 6] us.
// Plan "tp<x>": one compute on chip 3 of op `out,"final"` (id 5), [1, 4] us.
// kind, src, dst, bytes, flops, deps, op, step
inline Task make_task(TaskKind kind, ChipId src, ChipId dst, std::uint64_t bytes, double flops,
                      std::vector<TaskId> deps, std::int32_t op, std::int32_t step) {
  Task t;
  t.kind = kind;
  t.src_chip = src;
  t.dst_chip = dst;
  t.bytes = bytes;
  t.flops = flops;
  t.deps = deps;
  t.op = op;
  t.step = step;
  return t;
}

inline ScenarioRun sample_run() {
  ScenarioRun run;
  run.name = "mlp";
  run.description = "two plans for a 2-layer MLP";
  run.file = "scenarios/mlp.json";
  run.hardware = "tpu-v5e";
  run.slice_shape = {4};
  run.wraparound = {true};
  run.slice = std::make_shared<Slice>(std::vector<std::int64_t>{4}, std::vector<bool>{true});

  PlanRun fsdp;
  fsdp.name = "fsdp";
  fsdp.description = "weights sharded, gathered per layer";
  OpRun h = make_op("h", "matmul", 0, 0, 2e-6, 2.5e-6, Bound::compute);
  h.flops = 2e9;
  h.matmul_case = 1;
  OpRun gather = make_op("gather", "all_gather", 1, 2e-6, 6e-6, 2e-6, Bound::bandwidth);
  gather.bytes_sent = 2 * kMiB;
  CollectiveRun ag;
  ag.kind = CollectiveKind::all_gather;
  ag.tensor = "W";
  ag.axes = {"X"};
  ag.array_bytes = 32 * kMiB;
  ag.group_size = 4;
  ag.algorithm = "ring_bidirectional";
  ag.book_time_s = 2e-6;
  gather.collectives = {ag};
  gather.contention = Contention{{"h"}, "ici.x+.0", 2 * kMiB};
  gather.exposed_communication_s = 4e-6;  // t3 reaches chip 2 over [2, 6] us while chip 2 computes nothing
  OpRun out = make_op("out", "matmul", 2, 6e-6, 7.5e-6, 1.5e-6, Bound::compute);
  out.flops = 1e9;
  out.matmul_case = 2;
  fsdp.ops = {h, gather, out};
  fsdp.des_time_s = 7.5e-6;
  fsdp.book_time_s = 6e-6;  // 2.5 + 2 + 1.5 us
  fsdp.critical_path = {"h", "gather", "out"};
  // The step breakdown, worked from the graph below: chip 2's last task ends last (7.5 us); it computes over
  // [6, 7.5] us and receives t3 over [2, 6]: compute 1.5 us, exposed communication 4 us, bubble 2 us ([0, 2]).
  fsdp.critical_chip = 2;
  fsdp.step_breakdown = {1.5e-6, 4e-6, 2e-6, 0};
  fsdp.memory = {{"W", {128, 512}, 8 * kGiB, 32 * kGiB, "W[D_X, F]"}, {"x", {64, 128}, 4 * kGiB, 16 * kGiB, "x[B, D]"}};
  fsdp.memory_per_chip_bytes = 12 * kGiB;
  fsdp.peak_time_s = 3e-6;
  fsdp.peak_chip = 2;
  fsdp.alive_at_peak = {{"W", "", 8 * kGiB}, {"x", "", 4 * kGiB}};
  fsdp.book_memory_per_chip_bytes = 12 * kGiB;
  fsdp.schedule = "dataflow-hbm";
  fsdp.waits = {{"out", "gather", 4e-6, kGiB}};
  fsdp.simulations = 2;
  fsdp.hbm_bytes = 16 * kGiB;
  fsdp.fits_hbm = true;
  fsdp.vmem_working_set_bytes = 64 * kMiB;
  fsdp.vmem_bytes = 128 * kMiB;
  fsdp.max_link_bytes = 2 * kMiB;
  fsdp.total_link_bytes = 3 * kMiB;
  fsdp.busiest_link = "ici.x+.0";
  fsdp.max_link_utilisation = 0.4;  // busy [3, 6] us of 7.5 us
  fsdp.messages = 2;
  fsdp.links = {{"ici.x+.0", 2 * kMiB, 3e-6, 0.4}, {"ici.x-.0", 0, 0, 0}, {"ici.x+.1", kMiB, 2e-6, 2.0 / 7.5}};

  auto graph = std::make_shared<EventGraph>();
  graph->num_chips = 4;
  graph->add(make_task(TaskKind::compute, 0, 0, 0, 2e9, {}, 0, 0));
  graph->add(make_task(TaskKind::compute, 1, 1, 0, 2e9, {}, 0, 0));
  graph->add(make_task(TaskKind::transfer, 0, 1, kMiB, 0, {0}, 1, 0));
  graph->add(make_task(TaskKind::transfer, 0, 2, kMiB, 0, {0}, 1, 1));
  graph->add(make_task(TaskKind::compute, 2, 2, 0, 1e9, {3}, 2, 0));
  auto sim = std::make_shared<SimulationResult>();
  sim->makespan_s = 7.5e-6;
  sim->tasks = {{0, 2e-6}, {0, 2e-6}, {2e-6, 5e-6}, {2e-6, 6e-6}, {6e-6, 7.5e-6}};
  sim->messages = 2;
  sim->routes.add(std::vector<LinkId>{0}, 1e-6);     // route 0: ici.x+.0
  sim->routes.add(std::vector<LinkId>{0, 2}, 2e-6);  // route 1: ici.x+.0, ici.x+.1
  sim->task_route = {-1, -1, 0, 1, -1};
  fsdp.graph = graph;
  fsdp.simulation = sim;

  PlanRun tp;
  tp.name = "tp<x>";
  tp.description = "tensor parallel & \"sequence\" parallel";
  OpRun final_op = make_op("out,\"final\"", "matmul", 5, 1e-6, 4e-6, 5e-6, Bound::compute);
  final_op.flops = 4e9;
  final_op.bytes_sent = 0;
  CollectiveRun ar;
  ar.kind = CollectiveKind::all_reduce;
  ar.tensor = "y";
  ar.axes = {"X", "Y"};
  ar.array_bytes = kGiB;
  CollectiveRun ag2;
  ag2.kind = CollectiveKind::all_gather;
  ag2.tensor = "z";
  ag2.axes = {"Y"};
  ag2.array_bytes = 512 * 1024;
  final_op.collectives = {ar, ag2};
  tp.ops = {final_op};
  tp.des_time_s = 5e-6;
  tp.book_time_s = 5e-6;
  tp.memory = {{"W", {512, 512}, 16 * kGiB, 64 * kGiB, "W[D, F_X]"},
               {"y", {1024}, 3 * kGiB + 256 * kMiB, 13 * kGiB, "y[B_X]"}};
  tp.memory_per_chip_bytes = 19 * kGiB + 256 * kMiB;  // 3.25 GiB over 16 GiB
  tp.peak_time_s = 1e-6;
  tp.alive_at_peak = {{"W", "", 16 * kGiB}, {"y partial sums", "final", 3 * kGiB + 256 * kMiB}};
  tp.book_memory_per_chip_bytes = 19 * kGiB + 256 * kMiB;
  tp.schedule = "dataflow";
  tp.simulations = 1;
  tp.hbm_bytes = 16 * kGiB;
  tp.fits_hbm = false;
  tp.vmem_working_set_bytes = 256 * kMiB;
  tp.vmem_bytes = 128 * kMiB;
  tp.fits_vmem = false;
  tp.values_match = false;
  tp.values_note = "max abs error 0.5";
  auto graph2 = std::make_shared<EventGraph>();
  graph2->num_chips = 4;
  graph2->add(make_task(TaskKind::compute, 3, 3, 0, 4e9, {}, 5, 2));
  auto sim2 = std::make_shared<SimulationResult>();
  sim2->makespan_s = 4e-6;
  sim2->tasks = {{1e-6, 4e-6}};
  tp.graph = graph2;
  tp.simulation = sim2;

  run.plans = {fsdp, tp};

  CheckResult c0;
  c0.description = "fsdp: op h time_s (des)";
  c0.pointer = "/expect/0";
  c0.value = 2e-6;
  c0.target = 2e-6;
  c0.rel_tol = 0.05;
  c0.passed = true;
  c0.source = "hand-worked";
  CheckResult c1;
  c1.description = "tp<x>: fits_hbm";
  c1.pointer = "/expect/1";
  c1.value = false;
  c1.target = true;
  c1.passed = false;
  c1.source = "capacity plan";
  CheckResult c2;
  c2.description = "fsdp: local shape of W";
  c2.pointer = "/expect/2";
  c2.value = std::vector<std::int64_t>{128, 512};
  c2.target = std::vector<std::int64_t>{128, 512};
  c2.passed = true;
  run.checks = {c0, c1, c2};
  return run;
}

}  // namespace podsim::test
