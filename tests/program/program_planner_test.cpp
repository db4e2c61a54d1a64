// The planned program (sim/plan): one place for every decision of a plan. Buffers, their creators and last
// readers, temporaries of matmuls and reshards, explicit collectives over several dims, and closed forms, each
// checked against numbers worked by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/plan/book_evaluation.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

struct Planned {
  ScenarioSpec spec;
  std::shared_ptr<Slice> slice;
  std::shared_ptr<MeshMapping> mapping;
  PlannedProgram program;
};

Planned plan_text(const std::string& json, const std::string& plan = "") {
  Planned out;
  out.spec = load_scenario_text(json, "test.json");
  out.slice = std::make_shared<Slice>(out.spec.slice_shape, out.spec.wraparound);
  out.mapping = std::make_shared<MeshMapping>(out.spec.mesh.mesh, *out.slice, out.spec.mesh.axis_dims);
  out.program = plan_program(out.spec, {*out.slice, *out.mapping}, plan.empty() ? nullptr : out.spec.find_plan(plan));
  return out;
}

// A 4x4 v5e (no wraparound), mesh X=4,Y=4: the README's MLP at 1/4 scale in D and F.
const char* kMlp = R"({
  "name": "mlp", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
  "tensors": {
    "x": {"shape": [2048, 8192], "sharding": "x[B_XY, D]"},
    "W1": {"shape": [8192, 16384], "sharding": "W1[D_XY, F]"},
    "W2": {"shape": [16384, 8192], "sharding": "W2[F_XY, D]"}
  },
  "program": [
    {"op": "matmul", "name": "up", "lhs": "x", "rhs": "W1", "einsum": "BD,DF->BF", "out": "h",
     "out_sharding": "h[B_XY, F]"},
    {"op": "elementwise", "name": "gelu", "tensor": "h"},
    {"op": "matmul", "name": "down", "lhs": "h", "rhs": "W2", "einsum": "BF,FD->BD", "out": "y",
     "out_sharding": "y[B_XY, D]"}
  ],
  "plans": [
    {"name": "fsdp"},
    {"name": "megatron", "shardings": {"x": "x[B_X, D]", "W1": "W1[D, F_Y]", "W2": "W2[F_Y, D]"},
     "ops": {"up": "h[B_X, F_Y]", "down": "y[B_X, D]"}}
  ]
})";

TEST(ProgramPlanner, FsdpGathersEachWeightIntoATemporaryReadOnlyByTheMatmul) {
  const Planned p = plan_text(kMlp, "fsdp");
  const PlannedProgram& program = p.program;
  ASSERT_EQ(program.ops.size(), 3u);
  const PlannedOp& up = program.ops[0];
  // Steps: the all-gather of W1 (the rhs operand), then the local matmul.
  ASSERT_EQ(up.steps.size(), 2u);
  EXPECT_EQ(up.steps[0].kind, StepKind::collective);
  EXPECT_EQ(up.steps[0].collective.operand, PlannedCollective::Operand::rhs);
  EXPECT_EQ(up.steps[0].collective.kind, CollectiveKind::all_gather);
  EXPECT_EQ(up.steps[0].axis_names, (std::vector<std::string>{"X", "Y"}));
  // V: W1 gathered, 8192 x 16384 x 2 bytes = 256 MiB.
  EXPECT_EQ(up.steps[0].collective.array_bytes, 256 * MiB);
  const PlannedBuffer& gathered = program.buffers[static_cast<std::size_t>(up.steps[0].writes)];
  EXPECT_EQ(gathered.role, PlannedBuffer::Role::temporary);
  EXPECT_EQ(gathered.what, "W1 gathered over X,Y");
  EXPECT_EQ(gathered.bytes_per_chip, 256 * MiB);
  // Created by step 0 of up, freed when the matmul (step 1 of up) ends.
  EXPECT_EQ(gathered.op, 0);
  EXPECT_EQ(gathered.step, 0);
  EXPECT_EQ(gathered.last_op, 0);
  EXPECT_EQ(gathered.last_step, 1);
  // The matmul reads x as declared and the gathered W1, and writes h (128 x 16384 x 2 = 4 MiB per chip).
  EXPECT_EQ(up.steps[1].kind, StepKind::compute);
  EXPECT_EQ(up.steps[1].reads[1], up.steps[0].writes);
  const PlannedBuffer& h = program.buffers[static_cast<std::size_t>(up.output)];
  EXPECT_EQ(h.role, PlannedBuffer::Role::result);
  EXPECT_EQ(h.bytes_per_chip, 4 * MiB);
  // h (up's version) is last read by gelu's compute; gelu's h by down's matmul (step 1 after the gather).
  EXPECT_EQ(h.last_op, 1);
  EXPECT_EQ(h.last_step, 0);
  const PlannedBuffer& h2 = program.buffers[static_cast<std::size_t>(program.ops[1].output)];
  EXPECT_EQ(h2.last_op, 2);
  EXPECT_EQ(h2.last_step, 1);
  // y is read by nobody: kept to the end.
  EXPECT_EQ(program.buffers[static_cast<std::size_t>(program.ops[2].output)].last_op, -1);
  // Book time of up: all-gather over two 4-long lines, V / W_bidi per axis-phase as the book counts it, plus the
  // matmul roofline; the op's book time is their sum.
  EXPECT_DOUBLE_EQ(up.book_time_s, up.steps[0].book.time_s + up.steps[1].book.time_s);
  EXPECT_EQ(up.bound, Bound::bandwidth);
}

TEST(ProgramPlanner, AnOpsBoundCountsAllItsCollectivesNotItsLargestStep) {
  // x[B, D_X] @ W[D_Y, F] -> h[B, F] on a v5e 4x4 (no wraparound): the contracting dim is sharded on different axes,
  // so the planner gathers x over X and W over Y (W's FSDP gather), then every chip multiplies the whole product.
  const Planned p = plan_text(R"({
    "name": "bound", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
    "tensors": {
      "x": {"shape": [4096, 4096], "sharding": "x[B, D_X]"},
      "W": {"shape": [4096, 4096], "sharding": "W[D_Y, F]"}
    },
    "program": [
      {"op": "matmul", "name": "up", "lhs": "x", "rhs": "W", "einsum": "BD,DF->BF", "out": "h", "out_sharding": "h[B, F]"}
    ]
  })");
  const PlannedOp& up = p.program.ops[0];
  ASSERT_EQ(up.steps.size(), 3u);
  // Each gather on a 4-long line: V = 4096 x 4096 x 2 = 33,554,432 bytes, (N - 1) (V / N) / W_uni =
  // 3 x 8,388,608 / 4.5e10 = 559.24 us (the latency term, 3 x 1 us, is smaller).
  EXPECT_NEAR(up.steps[0].book.time_s, 559.24e-6, 1e-8);
  EXPECT_NEAR(up.steps[1].book.time_s, 559.24e-6, 1e-8);
  // The matmul: 2 x 4096^3 = 137,438,953,472 FLOPs / 1.97e14 = 697.66 us, longer than either gather alone (its
  // 96 MiB at 8.2e11 B/s take 122.8 us).
  EXPECT_EQ(up.steps[2].kind, StepKind::compute);
  EXPECT_NEAR(up.steps[2].book.time_s, 697.66e-6, 1e-8);
  // Together the gathers take 1118.48 us of the op's 1816.14 us: the op is bandwidth-bound, though its largest
  // single step is the compute-bound matmul.
  EXPECT_NEAR(up.book_time_s, 1816.14e-6, 1e-8);
  EXPECT_EQ(up.steps[2].bound, Bound::compute);
  EXPECT_EQ(up.bound, Bound::bandwidth);
}

TEST(ProgramPlanner, MegatronKeepsPartialSumsAsATemporaryUntilTheAllReduceEnds) {
  const Planned p = plan_text(kMlp, "megatron");
  const PlannedOp& down = p.program.ops[2];
  // down: the local matmul gives y unreduced over Y (partial sums), then an all-reduce over Y.
  ASSERT_EQ(down.steps.size(), 2u);
  EXPECT_EQ(down.steps[0].kind, StepKind::compute);
  EXPECT_EQ(down.steps[1].collective.kind, CollectiveKind::all_reduce);
  const PlannedBuffer& partial = p.program.buffers[static_cast<std::size_t>(down.steps[0].writes)];
  EXPECT_EQ(partial.what, "y partial sums");
  // 2048 / 4 x 8192 x 2 bytes = 8 MiB, freed when the all-reduce ends.
  EXPECT_EQ(partial.bytes_per_chip, 8 * MiB);
  EXPECT_EQ(partial.last_op, 2);
  EXPECT_EQ(partial.last_step, 1);
  EXPECT_EQ(down.steps[1].writes, down.output);
  EXPECT_EQ(down.steps[1].collective.array_bytes, 8 * MiB);
}

TEST(BookEvaluation, OpsOneAfterAnotherHoldOneGatheredWeightAtATime) {
  const Planned p = plan_text(kMlp, "fsdp");
  const BookEvaluation book = evaluate_book(p.program);
  // Declared per chip: x 2 MiB, W1 16 MiB, W2 16 MiB. up: + W1 gathered 256 + h 4 = 294. gelu: + h 4 + h 4 = 42.
  // down: + h 4 + W2 gathered 256 + y 2 = 296.
  EXPECT_EQ(book.memory.peak_bytes, 296 * MiB);
  EXPECT_TRUE(book.fits_hbm);
  EXPECT_DOUBLE_EQ(book.time_s, p.program.book_time_s);
  // The peak is during down's matmul, after its gather: the moment up, gelu and down's gather have taken.
  const auto& up = p.program.ops[0];
  const auto& gelu = p.program.ops[1];
  const auto& down = p.program.ops[2];
  EXPECT_DOUBLE_EQ(book.memory.peak_time_s, up.book_time_s + gelu.book_time_s + down.steps[0].book.time_s);
  ASSERT_EQ(book.memory.alive_at_peak.size(), 6u);
  EXPECT_EQ(p.program.buffers[static_cast<std::size_t>(book.memory.alive_at_peak[0])].what, "W2 gathered over X,Y");
}

TEST(ProgramPlanner, AReshardCountsTheBufferItGathersIntoBeforeItsAllToAll) {
  // A[I_X, J_Y] -> A[I_Y, J_X] on 4x4: all-gather X (256 MiB shard -> 1 GiB), then all-to-all Y.
  const Planned p = plan_text(R"({
    "name": "reshard", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
    "tensors": {"A": {"shape": [65536, 32768], "sharding": "A[I_X, J_Y]"}},
    "program": [{"op": "reshard", "name": "swap", "tensor": "A", "to": "A[I_Y, J_X]", "out": "B"}]
  })");
  const PlannedOp& swap = p.program.ops[0];
  ASSERT_EQ(swap.steps.size(), 2u);
  EXPECT_EQ(swap.steps[0].collective.kind, CollectiveKind::all_gather);
  EXPECT_EQ(swap.steps[1].collective.kind, CollectiveKind::all_to_all);
  const PlannedBuffer& middle = p.program.buffers[static_cast<std::size_t>(swap.steps[0].writes)];
  EXPECT_EQ(middle.bytes_per_chip, 1024 * MiB);
  // 16384 x 8192 x 2 = 256 MiB each for A and B; the gathered 1 GiB lives until the all-to-all ends.
  const BookEvaluation book = evaluate_book(p.program);
  EXPECT_EQ(book.memory.peak_bytes, (256 + 1024 + 256) * MiB);
}

TEST(ProgramPlanner, AnExplicitCollectiveOverTwoDimsIsOneCollectiveWithPerDimValueMoves) {
  // all-gather over X, Y of A[B_X, D_Y] on a 4x4x4 v4: the book's AllGather_XY of the whole 8 MiB array.
  const Planned p = plan_text(R"({
    "name": "gather-xy", "hardware": "tpu-v4", "slice": {"shape": [4, 4, 4]}, "mesh": "X=4,Y=4,Z=4",
    "tensors": {"A": {"shape": [1024, 4096], "sharding": "A[B_X, D_Y]"}},
    "program": [{"op": "all_gather", "name": "g", "tensor": "A", "axes": ["X", "Y"], "out": "A2"}]
  })");
  const PlannedOp& g = p.program.ops[0];
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_EQ(g.steps[0].axis_names, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(g.steps[0].collective.array_bytes, 1024u * 4096u * 2u);
  // On values it gathers X on dim 0 and Y on dim 1.
  ASSERT_EQ(g.steps[0].value_moves.size(), 2u);
  EXPECT_NE(g.steps[0].value_moves[0].dim, g.steps[0].value_moves[1].dim);
}

TEST(ProgramPlanner, RulesNameThePlanAndTheOp) {
  try {
    plan_text(R"({
      "name": "bad", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
      "tensors": {"A": {"shape": [64, 64], "sharding": "A[I_X, J]"}},
      "program": [{"op": "all_gather", "name": "g", "tensor": "A", "axes": ["Y"], "out": "B"}],
      "plans": [{"name": "p"}]
    })",
              "p");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "test.json: /program/0");
    EXPECT_EQ(e.message(), "plan p: all-gather over Y: the axis does not shard A in this plan, got: A[I_X, J]");
  }
}

// An imported program's stand-ins (docs/import.md): `h_in` is a view of `h` in the layout the all-reduce reads, `t`
// a transient input. x, h, r, t, u are 1024 x 1024 bf16 replicated: 2 MiB per chip each.
const char* kStandIns = R"({
  "name": "standins", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
  "tensors": {
    "x": {"shape": [1024, 1024]},
    "h_in": {"shape": [1024, 1024], "sharding": "<@mesh, [{}, {}], unreduced={\"X\"}>", "view_of": "h"},
    "t": {"shape": [1024, 1024], "transient": true},
    "unread": {"shape": [1024, 1024], "transient": true}
  },
  "program": [
    {"op": "elementwise", "name": "sq", "tensor": "x", "out": "h"},
    {"op": "all_reduce", "name": "ar", "tensor": "h_in", "axes": ["X"], "out": "r", "after": ["sq"]},
    {"op": "elementwise", "name": "tw", "tensor": "t", "out": "u", "after": ["ar"]}
  ]
})";

TEST(ProgramPlanner, AViewKeepsItsTensorAliveAndATransientInputLivesWhileItsReadersRun) {
  const Planned p = plan_text(kStandIns);
  const PlannedProgram& program = p.program;
  auto find = [&](const std::string& what) -> const PlannedBuffer& {
    for (const auto& b : program.buffers)
      if (b.what == what) return b;
    throw std::runtime_error("no buffer " + what);
  };
  // h is written by sq (op 0); ar (op 1) reads it through the view, so h is freed when ar's all-reduce ends.
  const PlannedBuffer& h = find("h");
  EXPECT_EQ(h.op, 0);
  EXPECT_EQ(h.last_op, 1);
  EXPECT_EQ(h.last_step, 0);
  EXPECT_EQ(find("h_in").view_of, "h");
  // t lives from tw's step to its end; a transient nothing reads has no creator.
  const PlannedBuffer& t = find("t");
  EXPECT_EQ(t.role, PlannedBuffer::Role::declared);
  EXPECT_EQ(t.op, 2);
  EXPECT_EQ(t.step, 0);
  EXPECT_EQ(t.last_op, 2);
  EXPECT_EQ(find("unread").op, -1);
  // Ops one after another, per chip: sq: x + h = 4 MiB; ar: x + h + r = 6 MiB (the view adds nothing); tw: h freed,
  // x + r + t + u = 8 MiB (r and u read by nobody, kept). Declaring them all as state would give 2 MiB x 7 = 14.
  const BookEvaluation book = evaluate_book(program);
  EXPECT_EQ(book.memory.peak_bytes, 8 * MiB);
  EXPECT_DOUBLE_EQ(book.memory.peak_time_s, program.ops[0].book_time_s + program.ops[1].book_time_s);
  std::vector<std::string> alive;
  for (const int b : book.memory.alive_at_peak)
    alive.push_back(program.buffers[static_cast<std::size_t>(b)].what);
  std::sort(alive.begin(), alive.end());
  EXPECT_EQ(alive, (std::vector<std::string>{"r", "t", "u", "x"}));
}

}  // namespace
}  // namespace podsim
