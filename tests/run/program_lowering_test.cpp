// The lowering of a planned program: its graph's tasks are reserved once, at the count the program lowers to (a
// vector of tens of millions of tasks that grew by doubling would be moved and first-touched several times).
#include "sim/run/program_lowering.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/plan/program_planner.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

// A matmul, then a point-to-point send: a compute step per chip, a collective, a transfer.
const char* kSend = R"({
  "name": "send", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
  "tensors": {"x": {"shape": [64, 128], "sharding": "x[B_X, D]"}, "W": {"shape": [128, 32], "sharding": "W[D, F_Y]"}},
  "program": [{"op": "matmul", "name": "mm", "lhs": "x", "rhs": "W", "einsum": "BD,DF->BF", "out": "h"},
              {"op": "send", "from": 0, "to": 1, "bytes": "1MiB"}]
})";

// Every plan of op-level scenarios (collectives over one and several axes, with reductions, across slices; computes;
// a collective matmul's permutes; a send), under both policies: the graph's capacity is its size, so the count was
// exact and the vector never grew.
TEST(ProgramLowering, ReservesExactlyTheTasksItBuilds) {
  std::vector<ScenarioSpec> specs{load_scenario_text(kSend, "send.json")};
  for (const char* name : {"examples/mlp-v5e-4x4.json", "examples/jax-sharded-matmul.json",
                           "examples/two-rank-matmul.json", "problem-sets/jax-stuff-collective-matmul.json",
                           "dcn/fsdp-matmul-v5e-2-slices.json", "dcn/all-reduce-v5p-2-slices.json"})
    specs.push_back(load_scenario(std::string(PODSIM_SOURCE_DIR) + "/scenarios/" + name));
  std::size_t built = 0;
  for (const ScenarioSpec& spec : specs) {
    const ScenarioPlatform platform = build_platform(spec);
    std::vector<const ScenarioPlan*> plans;
    for (const auto& plan : spec.plans)
      plans.push_back(&plan);
    if (plans.empty()) plans.push_back(nullptr);
    for (const ScenarioPlan* plan : plans) {
      const PlannedProgram program = plan_program(spec, platform.topology(), plan);
      for (const SchedulePolicy policy : {SchedulePolicy::dataflow, SchedulePolicy::program_order}) {
        const LoweredProgram lowered = lower_program(program, platform, OpOrder{policy, {}});
        SCOPED_TRACE(spec.name + ", plan " + program.name);
        EXPECT_EQ(lowered.graph->tasks.capacity(), lowered.graph->tasks.size());
        built += lowered.graph->tasks.size();
      }
    }
  }
  EXPECT_GT(built, 0u);
}

}  // namespace
}  // namespace podsim
