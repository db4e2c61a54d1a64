// The question `podsim collective` answers: how long one collective takes over some mesh axes of a slice,
// by the book's closed form and by the hop-by-hop simulation, and how much each link carries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"
#include "models/common/eval_model.hpp"
#include "models/common/field_error.hpp"
#include "models/common/shape.hpp"
#include "models/cost/cost_breakdown.hpp"
#include "models/hardware/hardware.hpp"
#include "models/sharding/mesh.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/simulation_result.hpp"

namespace podsim {

// The question as typed values. Errors name the field (CollectiveError).
struct CollectiveQuery {
  enum class Field {
    hardware,
    slice,
    wrap,
    twist,
    failed_links,
    failed_chips,
    spare_cubes,
    mesh,
    op,
    axes,
    array_bytes,  // V given directly
    shape,        // V from the tensor
    sharding,
    link_bandwidth,
    hop_latency,
    algorithm,
    slices,         // the number of slices joined by the DCN
    dcn_bandwidth,  // overrides the preset's DCN egress per chip
    dcn_latency,    // overrides the preset's DCN latency
  };

  // A sharded tensor the collective moves: its size gives the book's V.
  struct Tensor {
    Shape shape;
    std::string sharding;  // any notation, bound to the query's mesh
  };

  HardwareSpec hardware;                   // a loaded preset
  Shape slice;                             // chips per dim
  WrapChoice wrap;                         // auto: the preset's rule
  bool twist = false;                      // a twisted torus (docs/topology.md, "Twisted tori")
  std::vector<std::string> failed_links;   // failed cables by link name (docs/topology.md, "Failed links")
  std::vector<std::int64_t> failed_chips;  // failed chips by id ("Failed chips"): refused unless a spare replaces them
  std::int64_t spare_cubes = 0;            // spare 4x4x4 cubes that replace failed ones ("Spare cubes")
  std::optional<Mesh> mesh;                // default: default_mesh(slice), one axis per slice dim named X, Y, Z
  CollectiveKind op = CollectiveKind::all_gather;
  std::vector<std::string> axes;             // mesh axes, in order
  DType dtype = DType::bf16;                 // element type of the tensor and of the reduction
  std::variant<std::uint64_t, Tensor> size;  // the book's V directly, or a sharded tensor the collective moves
  std::optional<double> link_bandwidth_Bps;  // overrides the preset's W_uni
  std::optional<double> hop_latency_s;       // overrides the preset's alpha
  std::optional<EvalModel> model;            // nullopt: both
  Algorithm algorithm = Algorithm::automatic;
  MultiAxis multi_axis = MultiAxis::concurrent;
  // How the des routes a transfer between chips that differ in several dims (models/topology/route_policy.hpp): an
  // all-to-all's sends split over link-disjoint minimal routes under split_minimal.
  RoutePolicy routing = RoutePolicy::dimension_order;
  // Several slices joined by the DCN (docs/overlap-pipeline-dcn.md): chips s * M + c, and a mesh axis named kSliceAxis
  // of size `slices` over the slice index next to the mesh's own axes. Only with `size` given as bytes.
  std::int32_t slices = 1;
  std::optional<double> dcn_bandwidth_Bps;  // overrides the preset's DCN egress per chip
  std::optional<double> dcn_latency_s;      // overrides the preset's DCN latency (none: 0)
};

// The name of the mesh axis over the slice index in a query with several slices.
inline constexpr const char* kSliceAxis = "DCN";

using CollectiveError = FieldError<CollectiveQuery::Field>;

struct DesAnswer {
  double time_s = 0;
  std::vector<std::string> algorithms;  // per axis, as resolved
  SimulationResult result;
  bool symmetric = false;  // a symmetry gave the (identical) result: one slice, one chip or one group per phase
  // What was simulated (simulate_exact's path): "full", "one slice" (the slice quotient: slice 0's tasks for every
  // slice), "one chip" (the translation quotient of a wrapped torus, one chip's tasks for all) or "one group per
  // phase" (docs/performance.md).
  std::string simulated = "full";
  // The hardware's calibration was applied (HardwareSpec::calibration; docs/hardware-model.md, "Calibration"), and
  // its source.
  bool calibrated = false;
  std::string calibration_source;
  // Under a link-efficiency curve: the ICI message sizes (bytes) of the schedule that lie outside the sizes the
  // curve was fitted on (outside_curve: the curve is held flat there, an extrapolation), distinct and increasing,
  // and the fitted range [curve_from, curve_to]. Empty without a curve or when every message lies inside.
  std::vector<std::uint64_t> extrapolated_message_bytes;
  double curve_from = 0;
  double curve_to = 0;
};

struct CollectiveAnswer {
  std::string hardware;
  std::optional<Slice> slice;  // always set by answer_collective
  CollectiveKind kind = CollectiveKind::all_gather;
  std::vector<std::string> axes;
  std::int64_t group_size = 1;
  std::uint64_t shard_bytes = 0;    // array_bytes / group_size (ceil)
  std::uint64_t array_bytes = 0;    // the book's V
  IciModel ici;                     // the preset's, with the query's bandwidth and latency overrides
  std::int32_t slices = 1;          // slices joined by the DCN
  double dcn_bandwidth_Bps = 0;     // per chip, with the override (slices > 1)
  double dcn_latency_s = 0;         // with the override (slices > 1)
  std::int64_t chips_per_host = 0;  // chips sharing a NIC: the preset's, or the whole slice without a figure
  RoutePolicy routing = RoutePolicy::dimension_order;  // the query's (docs/topology.md, "Routes")
  std::optional<CostBreakdown> book;
  std::optional<DesAnswer> des;
};

// Verifies and evaluates. Throws CollectiveError in the field at fault.
CollectiveAnswer answer_collective(const CollectiveQuery& query);

}  // namespace podsim
