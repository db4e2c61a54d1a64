// A plan's decisions, made once (docs/architecture.md): for every op the shardings in force, the collectives
// chosen (kind, axes, V, algorithm, reason), the roofline terms, and the buffers each step reads, creates and
// frees. Event-graph lowering, the closed-form evaluation, memory over time, functional mode, checks and reports
// all read it; none of them plans again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/ids.hpp"
#include "models/cost/cost_breakdown.hpp"
#include "models/hardware/calibration.hpp"
#include "models/plan/matmul_plan.hpp"
#include "models/sharding/sharding.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One buffer per chip: a declared tensor, an op's result (a tensor version), or a temporary an op creates on the
// way (a gathered operand, partial sums before their reduction, a reshard's intermediate layout).
struct PlannedBuffer {
  enum class Role { declared, result, temporary };
  Role role = Role::declared;
  std::string tensor;  // the tensor whose data it holds
  std::string what;    // for reports: "W1 gathered over X,Y", "y partial sums over Y"; the tensor name otherwise
  Shape shape;         // global shape
  DType dtype = DType::bf16;
  TensorSharding sharding;
  std::vector<std::string> labels;  // dim labels for printing (`B`, `D`)
  std::vector<std::int64_t> local_shape;
  std::uint64_t bytes_per_chip = 0;
  std::uint64_t total_bytes = 0;
  // The op and step that create it (-1, -1: declared, alive for the whole program).
  int op = -1;
  int step = -1;
  // The last step that reads it: it is freed when that step ends. -1, -1: kept to the end of the program (a
  // declared tensor, or a result nothing reads).
  int last_op = -1;
  int last_step = -1;
  // A declared tensor's memory (ScenarioTensor): a view of another tensor takes no memory of its own (the steps
  // reading it keep that tensor's version alive instead); a transient one lives from the start of its first reader
  // (op, step) to the end of its last (last_op, last_step), and takes none when nothing reads it.
  std::string view_of;
  bool transient = false;
};

// permute: every chip of each group sends one block to its neighbour at once (a collective matmul's hop).
enum class StepKind { collective, compute, transfer, permute };

struct PlannedStep {
  // A step runs when the steps that created what it reads have ended (and, for an op's first steps, when the op may
  // start): a matmul's collectives on lhs and on rhs run at once, its compute after both.
  StepKind kind = StepKind::compute;
  std::vector<int> reads;  // buffer ids
  int writes = -1;         // buffer id created (-1: none, e.g. a load or a send)
  CostBreakdown book;      // collective and transfer: closed form; compute: time_s and its parts
  Bound bound{};           // what dominates this step's book time (compute until the planner sets it)

  // kind == collective: what it does to the values and its V (collective.array_bytes), the mesh axes it runs over
  // (in the order it runs them), the algorithm resolved per axis, and the request the event graph is built from
  // (verified: groups per axis, V, algorithm, multi-axis mode).
  PlannedCollective collective;
  // An explicit collective whose axes shard several dims (an all-gather over X, Y of `A[I_X, J_Y]`) runs as one
  // collective over all its axes, as the book counts it; on values it is these per-dim moves (empty otherwise).
  std::vector<PlannedCollective> value_moves;
  std::vector<std::string> axis_names;
  std::vector<Algorithm> algorithms;
  CollectiveRequest request;
  double reduce_s_per_byte = 0;  // reduction time on the chip per byte received (ChipModel::reduction_s_per_byte)
  std::string tensor;            // the tensor it moves
  DType dtype = DType::bf16;

  // kind == compute: the local work on every chip.
  double flops = 0;  // per chip
  // The roofline's two terms when the step has them (book.time_s = max of them): FLOPs at the chip's peak, bytes at
  // its HBM bandwidth. A calibrated des divides each by its efficiency (models/hardware/calibration.hpp).
  double compute_s = 0;
  double memory_s = 0;
  double hbm_bytes = 0;  // the bytes behind memory_s (read and written in HBM): the HBM efficiency curve's size
  // A causal attention kernel's pass and its keys per query (ElementwiseOp::attention): a calibrated des times it
  // by the attention curves (calibrated_attention_s).
  AttentionPass attention = AttentionPass::none;
  double attention_context = 0;

  // kind == transfer: one point-to-point send.
  ChipId from = 0;
  ChipId to = 0;
  std::uint64_t bytes = 0;  // transfer: the send; permute: what each chip sends

  // kind == permute: the sends (from, to) per group of the axis, all at once; each chip receives one block. Empty
  // when planned for the closed form only (PlanTopology::book_only).
  std::vector<std::vector<std::pair<ChipId, ChipId>>> sends;

  // A step of the op's collective matmul loop (PlannedOp::collective_matmul): its book time is counted through the
  // loop's formula, not added to the op's.
  bool in_loop = false;
};

// A matmul run as a collective matmul (docs/overlap-pipeline-dcn.md) over one mesh axis of size N, in place of
// the collective it replaces. An all-gather of an operand: N compute steps, the i-th on the block of the operand
// the chip holds then, while N - 1 permute steps pass the blocks one hop around the axis's ring (step i's compute
// reads the block the (i-1)-th permute brought, so the hop of block i+1 runs under the compute of block i). A
// reduce-scatter of the result: N compute steps, each the matmul of one block of the result, and after each but the
// first an add of the partial sum received; N - 1 permute steps pass the sums on, so the last sum is the chip's own
// block of the result.
struct CollectiveMatmulLoop {
  PlannedCollective replaces;     // the all-gather or reduce-scatter it replaces (functional mode applies it)
  std::string axis;               // the mesh axis
  std::string tensor;             // the tensor whose blocks move: the gathered operand, or the result
  int operand_buffer = -1;        // all-gather: the operand's buffer before the gather (-1 for a reduce-scatter)
  int product_buffer = -1;        // what the last step writes
  int steps = 0;                  // N
  std::uint64_t block_bytes = 0;  // per chip per hop: the operand's shard, or the result's
  int hops = 1;                   // the longest hop between ring neighbours (a line's wrap pair crosses N - 1)
  double step_compute_s = 0;      // c: roofline of one block's matmul
  double step_transfer_s = 0;     // t: hops x alpha + block_bytes / W
  double step_add_s = 0;          // a: reduce-scatter only, adding a received block (reduction time per byte)
  // all-gather: max(N c, c + (N - 1) t); reduce-scatter: max(N c + a, c + (N - 1) (t + a)).
  double book_time_s = 0;
};

struct PlannedOp {
  int index = 0;     // in the program
  std::string name;  // `up`, `op3`
  OpKind kind = OpKind::matmul;
  std::string pointer;      // `/program/2`
  std::vector<int> after;   // ops it must follow (its `after` list), by index
  std::vector<int> inputs;  // buffers it reads (tensor versions), in operand order
  int output = -1;          // buffer of the tensor version it writes (-1: none)
  std::vector<PlannedStep> steps;
  int matmul_case = 0;                                    // 1..4 for matmuls
  double flops = 0;                                       // per chip
  double compute_time_s = 0;                              // roofline time of its compute step (0 without one)
  double book_time_s = 0;                                 // sum of its steps' book times
  std::optional<Bound> bound;                             // what dominates its book time, steps summed per bound
  std::optional<CollectiveMatmulLoop> collective_matmul;  // set when the matmul runs as a collective matmul

  // The buffers the op creates (its temporaries and its result), in creation order.
  std::vector<int> created(const std::vector<PlannedBuffer>& buffers) const;
};

struct PlannedProgram {
  std::string name;  // the plan's name, "default" when the scenario has no plans
  std::string description;
  std::vector<PlannedBuffer> buffers;  // declared tensors first, in declaration order
  std::vector<PlannedOp> ops;          // in program order
  double book_time_s = 0;              // sum of the ops' book times (no overlap assumed)
  std::uint64_t hbm_bytes = 0;         // capacity per chip (0: no figure)
  std::uint64_t vmem_bytes = 0;        // VMEM per chip, all cores
  // The largest single compute op's operands and result per chip (matmul, elementwise, load), against VMEM.
  std::uint64_t vmem_working_set_bytes = 0;

  // The buffers that are tensor versions (declared or results), in the order the program creates them.
  std::vector<int> tensor_versions() const;
};

}  // namespace podsim
