// A scenario as typed values (docs/scenario-format.md): hardware, slice, mesh and its mapping onto the slice,
// sharded tensors, the program of ops, alternative plans, options and expectations. A spec is written (by the
// JSON loader, scenario_json.hpp, or in code), then checked and completed by verify / verified
// (scenario_verify.hpp); lowering and simulation read it and never see JSON.
//
// Fields marked "derived" are filled by verified() from the written ones: a spec built in code leaves them as
// they are and lets the verifier fill them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"
#include "models/common/enum_names.hpp"
#include "models/common/eval_model.hpp"
#include "models/common/shape.hpp"
#include "models/goal/goal.hpp"
#include "models/hardware/calibration.hpp"
#include "models/model/parallelism.hpp"
#include "models/model/workload.hpp"
#include "models/plan/einsum.hpp"
#include "models/plan/schedule_policy.hpp"
#include "models/serving/routing.hpp"
#include "models/serving/scheduler.hpp"
#include "models/serving/slo.hpp"
#include "models/serving/traffic.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/notation.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/slice_failures.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/scenario/expect_metrics.hpp"
#include "sim/scenario/hardware_preset.hpp"
#include "sim/scenario/model_preset.hpp"

namespace podsim {

// A sharding bound to the scenario's mesh, written in any notation. A tensor's `text` may be empty: the
// sharding is then replicated (one empty closed dim per tensor dim).
struct ScenarioSharding {
  std::string text;
  ParsedSharding parsed;  // derived from text; parsed.sharding is the value to use
  std::string pointer;    // derived: where the text is, e.g. "/tensors/x/sharding"

  const TensorSharding& sharding() const { return parsed.sharding; }
};

// A tensor declared in "tensors" (an input of the program).
struct ScenarioTensor {
  std::string name;
  Shape shape;
  DType dtype = DType::bf16;
  ScenarioSharding sharding;
  // Memory (docs/scenario-format.md#tensors): by default the tensor is the program's state, alive from start to end.
  // `view_of` names another tensor whose bytes this one holds in another layout or type (an imported module's value
  // read through a stand-in): it takes no memory of its own, and the steps that read it keep the other tensor's
  // current version alive. `transient`: allocated when the first step that reads it starts, freed when the last one
  // ends (a stand-in for a value nothing else holds).
  std::string view_of;
  bool transient = false;
  std::string pointer;  // derived: "/tensors/<name>"
};

// The logical mesh and where each of its axes lies on the slice (MeshMapping's explicit form). Written as a
// mesh spec `text` (`X=4,Y=4`, name and mesh derived from it), or as `name` and `mesh`; with neither, the
// default mesh of the slice (one axis per slice dim, X, Y, Z).
struct ScenarioMesh {
  std::string name;  // the mesh name shardings bind to ("mesh" unless the spec names it)
  Mesh mesh;
  // Per mesh axis, the slice dims it covers (traversal order). Empty: axis i covers dim i (derived).
  std::vector<std::vector<int>> axis_dims;
  std::string text;  // a mesh spec (`X=4,Y=4`, the grammar of mesh_spec.hpp) when "mesh" is a string, else empty
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
  Einsum einsum;  // derived from einsum_text
  std::string einsum_text;
  std::optional<ScenarioSharding> out_sharding;  // nullopt: the planner chooses
  // Lower the all-gather of an operand over one mesh axis as a collective matmul (docs/overlap-pipeline-dcn.md):
  // N steps, each computing on the block it holds while the next block moves one hop.
  bool collective_matmul = false;
  // The element type the MXUs run in when not the lhs's (int8, fp8: quantized on the way to the MXU, the operands
  // read at their stored types): the roofline runs at the chip's peak for it (docs/scenario-format.md, "matmul").
  std::optional<DType> compute_dtype;
};

// all_gather, reduce_scatter, all_reduce, all_to_all over `axes` (mesh axis names, in the listed order).
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::all_gather;  // derived from the op's kind
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
  // Set by model-level programs on their attention ops: a causal flash attention's forward or backward over
  // `attention_context` keys per query (models/hardware/calibration.hpp); not a scenario file's field.
  AttentionPass attention = AttentionPass::none;
  std::int64_t attention_context = 0;
  // The HBM traffic of the op, in arrays of `tensor`'s size: 2 reads and writes it once. Model-level programs set
  // more on their fused ops, which read and write several such arrays (docs/parallelism.md, "Elementwise ops");
  // not a scenario file's field.
  double tensor_passes = 2;
};

using OpDetail = std::variant<MatmulOp, CollectiveOp, ReshardOp, LoadOp, SendOp, ElementwiseOp>;

struct ScenarioOp {
  std::string name;     // as given; derived "op<index>" when empty
  std::string pointer;  // derived: "/program/<index>"
  OpKind kind = OpKind::matmul;
  std::vector<std::string> after;   // explicit dependencies: names of earlier ops
  std::vector<std::string> inputs;  // derived: tensor names read, in operand order
  // Tensor written (empty for load and send); may equal an input (in place). A matmul names a new tensor; the
  // other ops write their input in place when it is empty (derived).
  std::string out;
  Shape out_shape;                // derived: global shape of `out`
  DType out_dtype = DType::bf16;  // derived
  OpDetail detail;                // the alternative of `kind`
};

// An alternative plan: some input tensors' shardings and some matmuls' out_shardings replaced.
struct ScenarioPlan {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, ScenarioSharding>> shardings;      // input tensor name -> sharding
  std::vector<std::pair<std::string, ScenarioSharding>> out_shardings;  // matmul op name -> out sharding
  // A model-level scenario's plan: the mesh axes of each parallelism kind (docs/parallelism.md). The tensors'
  // shardings follow from it; `shardings` and `out_shardings` are then empty.
  std::optional<Parallelism> parallelism;
  // Every matmul of the plan that all-gathers an operand runs as a collective matmul (as MatmulOp's option).
  bool collective_matmul = false;
  std::string pointer;  // derived: "/plans/<index>"
};

// A model-level scenario's search space (docs/capacity.md): the candidates `podsim plan` enumerates. A list left
// empty means the scenario's own value (its slice, hardware, the workload's microbatches and remat).
struct SearchSpec {
  std::vector<Shape> slices;  // slice shapes to try, each with one mesh axis per dim
  // `slices` as an object keyed by preset name (docs/capacity.md, "Generations in one search"): each preset's own
  // shapes, in the file's order; empty when `slices` is a list or absent.
  std::vector<std::pair<std::string, std::vector<Shape>>> slices_by_preset;
  // Slice counts to try (docs/overlap-pipeline-dcn.md): N > 1 identical slices over the DCN, the mesh's first axis
  // kSliceAxisName = N, which carries data, fsdp or pipeline parallelism.
  std::vector<std::int32_t> slice_counts;
  // `search.twist`: plain and/or twisted tori to try (docs/topology.md, "Twisted tori"); empty: the slice's own twist.
  std::vector<bool> twist;
  std::vector<ParallelKind> kinds;         // the kinds assigned to mesh axes, every assignment tried
  std::vector<HardwarePreset> hardware;    // presets to try
  std::vector<std::int64_t> microbatches;  // microbatch counts to try (train)
  std::vector<Remat> remat;                // remat policies to try (train)
  std::vector<std::int64_t> replicas;      // replica counts to try (serve; docs/serving.md, "Search")
  std::vector<std::int64_t> max_num_seqs;  // scheduler limits to try (serve)
  std::string pointer;                     // derived: "/search"
};

struct ScenarioOptions {
  Algorithm algorithm = Algorithm::automatic;
  MultiAxis multi_axis = MultiAxis::concurrent;
  SchedulePolicy schedule = kDefaultSchedule;
  bool verify_values = false;
  // How a point-to-point transfer crosses the slice (models/topology/route_policy.hpp; docs/scenario-format.md,
  // "Options"): one dimension-ordered route, or split over link-disjoint minimal routes.
  RoutePolicy routing = RoutePolicy::dimension_order;
};

// One expected figure, checked by `podsim check`.
struct Expectation {
  std::string metric;  // e.g. "total_time_s", "time_s", "local_shape" (docs/scenario-format.md, "Metrics")
  ExpectScope scope = ExpectScope::plan;  // derived from the metric
  std::string plan;                       // empty when the scenario has no plans
  std::string op;                         // op name (scope op)
  std::string tensor;                     // tensor name (scope tensor)
  EvalModel model = EvalModel::des;
  using Value = std::variant<double, bool, std::vector<std::int64_t>>;
  Value value;
  bool relative = true;             // tolerance is relative (|got - value| <= tol * |value|) or absolute
  std::optional<double> tolerance;  // for number metrics only; nullopt: relative kDefaultTolerance
  std::string source;
  std::string pointer;  // derived: "/expect/<index>"

  static constexpr double kDefaultTolerance = 1e-9;
  // The tolerance in force: the given one, or kDefaultTolerance (relative).
  double tolerance_or_default() const { return tolerance.value_or(kDefaultTolerance); }
};

// A serving scenario (workload mode "serve", docs/serving.md): requests arrive, a router spreads them over replicas
// of the scenario's plan, each replica batches them continuously; its step is the model-level step of spec.workload
// (mode decode: weight and KV dtypes, quantization, MoE routing) at each batch's tokens and contexts.
// One pool of a disaggregated deployment (serving.disaggregated.prefill or .decode; docs/serving.md, "Disaggregated
// serving"): its replicas' slice, mesh and parallelism, on the scenario's hardware unless it names its own preset,
// and its scheduler limits (serving's when not given).
struct ServingPoolSpec {
  std::optional<HardwarePreset> hardware;   // nullopt: the scenario's
  Shape slice_shape;                        // one replica's slice
  std::optional<double> dcn_bandwidth_Bps;  // slice.dcn.bandwidth_per_chip: overrides the preset's DCN egress per chip
  std::optional<double> dcn_latency_s;      // slice.dcn.latency: overrides the preset's DCN latency
  std::string mesh;                         // a mesh spec (`X=2,Y=2`); empty: the slice's default mesh
  Parallelism parallelism;
  std::int64_t replicas = 1;
  std::optional<std::int64_t> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::string pointer;  // derived: "/serving/disaggregated/prefill" or ".../decode"
};

// Which network a request's KV crosses from its prefill replica to its decode replica.
enum class KvLink { dcn, ici };
inline constexpr EnumNames<KvLink, 2> kKvLinkNames{"kv_link", {{{"dcn", KvLink::dcn}, {"ici", KvLink::ici}}}};

struct DisaggregatedSpec {
  ServingPoolSpec prefill;
  ServingPoolSpec decode;
  KvLink kv_link = KvLink::dcn;
};

struct ServeSpec {
  TrafficSpec traffic;        // workload.traffic; a trace's rows already read
  std::string trace_file;     // workload.traffic.trace resolved beside the scenario ("" without a trace)
  SchedulerConfig scheduler;  // serving.*; kv_capacity_blocks 0: from the replica's HBM when the run is built
  std::int64_t replicas = 1;  // serving.replicas
  Routing routing = Routing::round_robin;
  Slo slo;                                         // slo.*; empty when not given
  std::optional<DisaggregatedSpec> disaggregated;  // serving.disaggregated: then `replicas` is not given
};
inline constexpr std::int64_t kMaxServingReplicas = 4096;

// The name of the mesh axis over the slice index when a scenario has several slices.
inline constexpr const char* kSliceAxisName = "DCN";

struct ScenarioSpec {
  std::string name;
  std::string description;
  std::string source_file;  // the path as given to load_scenario (or `where`); errors start with it
  HardwarePreset hardware;  // hardware.spec holds the model values
  Shape slice_shape;
  std::optional<WrapChoice> wrap;  // the scenario's wraparound; nullopt: the preset's rule ("auto"), not given
  std::vector<bool> wraparound;    // derived: per slice dim, resolved (a dim of size <= 2 never wraps)
  bool twist = false;              // `slice.twist`: a twisted torus (docs/topology.md, "Twisted tori")
  // `slice.failed_links`: failed cables by link name (docs/topology.md, "Failed links"); `slice.failed_chips`: failed
  // chips by id ("Failed chips"); `slice.spare_cubes`: spare 4x4x4 cubes that replace failed ones ("Spare cubes").
  std::vector<std::string> failed_links;
  std::vector<std::int64_t> failed_chips;
  std::int64_t spare_cubes = 0;
  SliceFailures failures;  // derived: what the slice is built with once the spares replaced their cubes
  FailureRequest failure_request() const { return FailureRequest{failed_links, failed_chips, spare_cubes}; }
  // Several slices joined by the DCN (docs/overlap-pipeline-dcn.md): `slice.count` identical slices, chip s * M + c
  // being chip c of slice s; the mesh then has the axis kSliceAxisName of size slice_count first, over the slice index.
  std::int32_t slice_count = 1;
  std::optional<double> dcn_bandwidth_Bps;  // `slice.dcn.bandwidth_per_chip`: overrides the preset's egress per chip
  std::optional<double> dcn_latency_s;      // `slice.dcn.latency`: overrides the preset's DCN latency
  ScenarioMesh mesh;
  DType dtype = DType::bf16;  // default element type of tensors
  std::vector<ScenarioTensor> tensors;
  std::vector<ScenarioOp> program;
  std::vector<ScenarioPlan> plans;
  // Capacity planning (docs/capacity.md): a model and its workload stand instead of `tensors` and `program`; the
  // plans are parallelism assignments, or the search section's candidates.
  std::optional<ModelPreset> model;
  std::optional<Workload> workload;
  std::optional<ServeSpec> serve;  // workload mode "serve" (then workload is its step's, in mode decode)
  std::optional<SearchSpec> search;
  std::optional<double> price_per_chip_hour;  // USD per chip-hour, for the cost per million tokens
  // `price_per_chip_hour` as an object keyed by preset name (docs/capacity.md, "Prices per preset"), in the file's
  // order; empty when it is a number. Read a candidate's price through chip_hour_price.
  std::vector<std::pair<std::string, double>> price_per_preset;
  std::optional<GoalSpec> goal;                // a training goal (docs/capacity.md, "Goals")
  std::optional<ReliabilitySpec> reliability;  // with a goal: given keys over default_reliability(); else unset
  ScenarioOptions options;
  std::vector<Expectation> expect;

  // The mesh without its slice axis and the dims of the others (the mesh as it lies on one slice): the whole mesh
  // when slice_count == 1. Call after verification.
  std::pair<Mesh, std::vector<std::vector<int>>> in_slice_mesh() const;
  // One slice as the scenario wires it: its shape, resolved wraparound, twist and failures (after the spares). Call
  // after verification.
  Slice one_slice() const { return Slice(slice_shape, wraparound, twist, failures); }
  // The DCN figures in force: the scenario's override, else the preset's (0 when neither gives one).
  double dcn_bandwidth_or_preset() const {
    return dcn_figures(hardware.spec, dcn_bandwidth_Bps, dcn_latency_s, false).bandwidth_per_chip_Bps;
  }
  double dcn_latency_or_preset() const {
    return dcn_figures(hardware.spec, dcn_bandwidth_Bps, dcn_latency_s, false).latency_s;
  }

  // nullptr when absent.
  const ScenarioTensor* find_tensor(std::string_view wanted) const;
  const ScenarioOp* find_op(std::string_view wanted) const;
  const ScenarioPlan* find_plan(std::string_view wanted) const;
};

// USD per chip-hour of `preset` (a preset's name): the object's entry for it, else the plain number; nullopt when the
// scenario gives neither (or an object without it).
std::optional<double> chip_hour_price(const std::optional<double>& every,
                                      const std::vector<std::pair<std::string, double>>& per_preset,
                                      std::string_view preset);
std::optional<double> chip_hour_price(const ScenarioSpec& spec, std::string_view preset);
// Whether the scenario gives a price (a number or an object).
bool priced(const ScenarioSpec& spec);

}  // namespace podsim
