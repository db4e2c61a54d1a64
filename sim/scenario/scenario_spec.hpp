// A verified scenario as typed values (docs/scenario-format.md): hardware, slice, mesh and its mapping onto
// the slice, sharded tensors, the program of ops, alternative plans, options and expectations. Produced by
// load_scenario (scenario_json.hpp); lowering and simulation read it and never see JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"
#include "models/common/enum_names.hpp"
#include "models/common/eval_model.hpp"
#include "models/common/shape.hpp"
#include "models/plan/einsum.hpp"
#include "models/plan/schedule_policy.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/notation.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/scenario/hardware_preset.hpp"

namespace podsim {

// A verified sharding bound to the scenario's mesh. `text` is empty when the sharding was defaulted
// (replicated: one empty closed dim per tensor dim).
struct ScenarioSharding {
  std::string text;
  ParsedSharding parsed;  // parsed.sharding is the value to use
  std::string pointer;    // JSON pointer of the text, e.g. "/tensors/x/sharding"

  const TensorSharding& sharding() const { return parsed.sharding; }
};

// A tensor declared in "tensors" (an input of the program).
struct ScenarioTensor {
  std::string name;
  Shape shape;
  DType dtype = DType::bf16;
  ScenarioSharding sharding;
  std::string pointer;  // "/tensors/<name>"
};

// The logical mesh and where each of its axes lies on the slice (MeshMapping's explicit form).
struct ScenarioMesh {
  std::string name;  // the mesh name shardings bind to ("mesh" unless the spec names it)
  Mesh mesh;
  std::vector<std::vector<int>> axis_dims;  // per mesh axis, the slice dims it covers (traversal order)
  std::string text;                         // the --mesh spec text when "mesh" is a string, else empty
};

enum class OpKind { matmul, all_gather, reduce_scatter, all_reduce, all_to_all, reshard, load, send, elementwise };

// The canonical spellings of the format; input may use any case and `-` for `_` (AllGather, all-gather).
inline constexpr EnumNames<OpKind, 9> kOpKindNames{"op",
                                                   {{
                                                       {"matmul", OpKind::matmul},
                                                       {"all_gather", OpKind::all_gather},
                                                       {"reduce_scatter", OpKind::reduce_scatter},
                                                       {"all_reduce", OpKind::all_reduce},
                                                       {"all_to_all", OpKind::all_to_all},
                                                       {"reshard", OpKind::reshard},
                                                       {"load", OpKind::load},
                                                       {"send", OpKind::send},
                                                       {"elementwise", OpKind::elementwise},
                                                   }}};

// "matmul", "all_gather", "reduce_scatter", "all_reduce", "all_to_all", "reshard", "load", "send",
// "elementwise".
std::string_view op_kind_name(OpKind kind);

struct MatmulOp {
  std::string lhs, rhs;
  Einsum einsum;
  std::string einsum_text;
  std::optional<ScenarioSharding> out_sharding;  // nullopt: the planner chooses
};

// all_gather, reduce_scatter, all_reduce, all_to_all over `axes` (mesh axis names, in the listed order).
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::all_gather;
  std::string tensor;
  std::vector<std::string> axes;
  int dim = -1;       // reduce_scatter: the dim the result is scattered along; else -1
  int from_dim = -1;  // all_to_all: the dim that is sharded before ...
  int to_dim = -1;    // ... and the dim that is sharded after; else -1
};

struct ReshardOp {
  std::string tensor;
  ScenarioSharding to;
};

// Reads each chip's shard of `tensor` from HBM into VMEM.
struct LoadOp {
  std::string tensor;
};

// One point-to-point transfer of `bytes` (or of one device's shard of `tensor`) between two chips.
struct SendOp {
  std::int64_t from = 0;  // chip ids of the slice
  std::int64_t to = 0;
  std::optional<std::uint64_t> bytes;
  std::optional<std::string> tensor;
};

struct ElementwiseOp {
  std::string tensor;
  double flops_per_element = 1;
};

using OpDetail = std::variant<MatmulOp, CollectiveOp, ReshardOp, LoadOp, SendOp, ElementwiseOp>;

struct ScenarioOp {
  std::string name;     // as given, or "op<index>"
  std::string pointer;  // "/program/<index>"
  OpKind kind = OpKind::matmul;
  std::vector<std::string> after;   // explicit dependencies: names of earlier ops
  std::vector<std::string> inputs;  // tensor names read, in operand order
  std::string out;                  // tensor written (empty for load and send); may equal an input (in place)
  Shape out_shape;                  // global shape of `out`
  DType out_dtype = DType::bf16;
  OpDetail detail;
};

// An alternative plan: some input tensors' shardings and some matmuls' out_shardings replaced.
struct ScenarioPlan {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, ScenarioSharding>> shardings;      // input tensor name -> sharding
  std::vector<std::pair<std::string, ScenarioSharding>> out_shardings;  // matmul op name -> out sharding
  std::string pointer;                                                  // "/plans/<index>"
};

struct ScenarioOptions {
  Algorithm algorithm = Algorithm::automatic;
  MultiAxis multi_axis = MultiAxis::sequential;
  SchedulePolicy schedule = kDefaultSchedule;
  bool verify_values = false;
};

enum class ExpectScope { plan, op, tensor };
// One expected figure, checked by `podsim check`.
struct Expectation {
  std::string metric;  // e.g. "total_time_s", "time_s", "local_shape" (docs/scenario-format.md, "Metrics")
  ExpectScope scope = ExpectScope::plan;
  std::string plan;    // empty when the scenario has no plans
  std::string op;      // op name (scope op)
  std::string tensor;  // tensor name (scope tensor)
  EvalModel model = EvalModel::des;
  std::variant<double, bool, std::vector<std::int64_t>> value;
  bool relative = true;     // tolerance is relative (|got - value| <= tol * |value|) or absolute
  double tolerance = 1e-9;  // for number metrics only
  std::string source;
  std::string pointer;  // "/expect/<index>"
};

struct ScenarioSpec {
  std::string name;
  std::string description;
  std::string source_file;  // the path as given to load_scenario (or `where`)
  HardwarePreset hardware;  // hardware.spec holds the model values
  Shape slice_shape;
  std::vector<bool> wraparound;  // per slice dim, resolved (a dim of size <= 2 never wraps)
  ScenarioMesh mesh;
  DType dtype = DType::bf16;  // default element type of tensors
  std::vector<ScenarioTensor> tensors;
  std::vector<ScenarioOp> program;
  std::vector<ScenarioPlan> plans;
  ScenarioOptions options;
  std::vector<Expectation> expect;

  // nullptr when absent.
  const ScenarioTensor* find_tensor(std::string_view wanted) const;
  const ScenarioOp* find_op(std::string_view wanted) const;
  const ScenarioPlan* find_plan(std::string_view wanted) const;
};

}  // namespace podsim
