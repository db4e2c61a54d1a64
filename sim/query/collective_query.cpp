// verify -> evaluate for `podsim collective`: the slice, the mesh on it, the array V (given, or from a sharded
// tensor), then the book's closed form and the SimGrid simulation of the chosen schedule. Every failure names the
// query's field.
#include "sim/query/collective_query.hpp"

#include "models/topology/route_policy.hpp"
#include "models/topology/slice_failures.hpp"
#include "models/topology/twist.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "models/common/integer.hpp"
#include "models/common/units.hpp"
#include "models/cost/collective_cost.hpp"
#include "models/cost/dcn_cost.hpp"
#include "models/hardware/calibration.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/notation.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/sharding/shardy_print.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collective_sim/exact_simulation.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/hierarchical.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {
namespace {

// DesAnswer::simulated's words for a path.
const char* simulated_name(ExactPath path) {
  switch (path) {
    case ExactPath::slice_quotient:
      return "one slice";
    case ExactPath::translation_quotient:
      return "one chip";
    case ExactPath::one_group_per_phase:
      return "one group per phase";
    case ExactPath::full:
      break;
  }
  return "full";
}

using Field = CollectiveQuery::Field;

// "an " before all-gather, all-reduce and all-to-all, "a " before reduce-scatter.
std::string article(CollectiveKind kind) {
  return kind == CollectiveKind::reduce_scatter ? "a " : "an ";
}

// The distinct bytes of the ICI messages (between two chips of one slice of `per_slice` chips) of `request`, read
// from the graph of one group of all its axes: the chips that chip 0 reaches through its groups. Every such group
// runs the same schedule (groups of one axis are equal in size), so it has every size the whole collective sends.
std::set<std::uint64_t> ici_message_bytes(const CollectiveRequest& request, std::int32_t chips,
                                          std::int64_t per_slice) {
  std::vector<char> reached(static_cast<std::size_t>(chips), 0);
  reached[0] = 1;
  for (bool grew = true; grew;) {
    grew = false;
    for (const AxisGroups& axis : request.axes)
      for (const auto& group : axis.groups) {
        const bool touches = std::any_of(group.begin(), group.end(),
                                         [&](ChipId chip) { return reached[static_cast<std::size_t>(chip)] != 0; });
        if (!touches) continue;
        for (const ChipId chip : group) {
          if (reached[static_cast<std::size_t>(chip)] != 0) continue;
          reached[static_cast<std::size_t>(chip)] = 1;
          grew = true;
        }
      }
  }
  CollectiveRequest one = request;
  for (AxisGroups& axis : one.axes)
    std::erase_if(axis.groups, [&](const std::vector<ChipId>& group) {
      return group.empty() || reached[static_cast<std::size_t>(group.front())] == 0;
    });
  std::set<std::uint64_t> sizes;
  for (const Task& task : build_collective(chips, one).tasks)
    if (task.kind == TaskKind::transfer && task.bytes > 0 && task.src_chip != task.dst_chip &&
        task.src_chip / per_slice == task.dst_chip / per_slice)
      sizes.insert(task.bytes);
  return sizes;
}

bool uses_axis(const std::vector<AxisRef>& refs, const std::string& axis) {
  return std::any_of(refs.begin(), refs.end(), [&](const AxisRef& ref) { return ref.name == axis; });
}

// V from a sharded tensor: an all-gather or all-to-all over A moves the array as one device sees it once A is
// gathered (bytes per device x |A|); a reduce-scatter or all-reduce over A reduces the local array, which must
// be unreduced over A (`{U_A}`).
std::uint64_t array_bytes_of_tensor(const CollectiveQuery::Tensor& tensor, DType dtype, CollectiveKind kind,
                                    const std::vector<std::string>& axes, const Mesh& mesh, std::int64_t group) {
  MeshTable meshes;
  meshes.add("mesh", mesh);
  const ParsedSharding parsed =
      in_field(Field::sharding, [&] { return parse_sharding(tensor.sharding, "mesh", tensor.shape.size()); });
  const TensorSharding& sharding = parsed.sharding;
  in_field(Field::sharding, [&] {
    verify_sharding(sharding, meshes, tensor.shape.size());
    return 0;
  });
  // The collective runs on `mesh`: a sharding may inline it, but not another one.
  if (sharding.inline_mesh && !(*sharding.inline_mesh == mesh))
    throw CollectiveError(Field::sharding, "an inline mesh must be the collective's mesh " + print_shardy_mesh(mesh) +
                                               ", got: " + print_shardy_mesh(*sharding.inline_mesh));
  const Mesh* bound = resolve_mesh(sharding, meshes);
  const Layout layout =
      in_field(Field::sharding, [&] { return compute_layout(tensor.shape, dtype, sharding, *bound); });
  const bool reduces = kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::all_reduce;
  for (const auto& axis : axes) {
    if (reduces && !uses_axis(sharding.unreduced, axis))
      throw CollectiveError(Field::axes, article(kind) + std::string(collective_kind_name(kind)) + " over " + axis +
                                             " needs the tensor unreduced over it ({U_" + axis +
                                             "}), got: " + tensor.sharding);
    if (!reduces) {
      const bool shards = std::any_of(sharding.dims.begin(), sharding.dims.end(),
                                      [&](const DimSharding& dim) { return uses_axis(dim.axes, axis); });
      if (!shards)
        throw CollectiveError(Field::axes, "axis " + axis + " does not shard the tensor, so " + article(kind) +
                                               std::string(collective_kind_name(kind)) +
                                               " over it moves nothing, got: " + tensor.sharding);
    }
  }
  return reduces ? layout.bytes_per_device : layout.bytes_per_device * static_cast<std::uint64_t>(group);
}

// The slice's shape within the limits, and its wraparound.
Slice query_slice(const CollectiveQuery& query) {
  const Shape& shape = query.slice;
  if (const auto issue = slice_shape_issue(shape)) {
    const std::string got = ", got: " + format_shape(shape);
    switch (issue->rule) {
      case SliceShapeIssue::Rule::rank:
        throw CollectiveError(Field::slice, "a slice has 1 to 3 dims" + got);
      case SliceShapeIssue::Rule::dim_size:
        throw CollectiveError(Field::slice, "every slice dim must be >= 1" + got);
      case SliceShapeIssue::Rule::chips:
        throw CollectiveError(Field::slice, "a slice has at most " + std::to_string(kMaxSliceChips) + " chips" + got);
    }
  }
  const HardwareSpec& hardware = query.hardware;
  const auto wraps = in_field(
      Field::wrap, [&] { return resolve_wraparound(query.wrap, shape, hardware.wrap_rule, hardware.pod_shape); });
  if (query.twist)
    if (const auto issue = preset_twist_issue(hardware.twist, hardware.name, shape, wraps))
      throw CollectiveError(Field::twist, *issue);
  const FailureRequest request{query.failed_links, query.failed_chips, query.spare_cubes};
  SliceFailures failed;
  if (request.any()) {
    const CubePod pod = cube_pod(hardware.wrap_rule, hardware.pod_shape, hardware.pod_chips, hardware.name);
    if (const auto issue = resolve_slice_failures(Slice(shape, wraps, query.twist), request, pod, true, failed)) {
      using Failed = FailureIssue::Field;
      throw CollectiveError(issue->field == Failed::failed_links   ? Field::failed_links
                            : issue->field == Failed::failed_chips ? Field::failed_chips
                                                                   : Field::spare_cubes,
                            issue->message);
    }
  }
  Slice slice(shape, wraps, query.twist, failed);
  if (const auto issue = route_policy_issue(query.routing, query.twist, slice.has_failures()))
    throw CollectiveError(slice.has_failures() ? Field::failed_links : Field::twist, *issue);
  return slice;
}

std::string join_axes(const std::vector<std::string>& axes) {
  std::string out;
  for (const auto& axis : axes)
    out += (out.empty() ? "" : ",") + axis;
  return out;
}

// The DCN settings of a query with several slices into `answer` (slices, bandwidth, latency, chips per host);
// returns whether the query has several slices. The slice axis's name must not be a mesh axis, the size must be
// given in bytes, the chip count must stay within kMaxSliceChips.
bool query_dcn(const CollectiveQuery& query, const Mesh& mesh, const Slice& slice, CollectiveAnswer& answer) {
  if (query.slices < 1)
    throw CollectiveError(Field::slices, "the slice count must be >= 1, got: " + std::to_string(query.slices));
  answer.slices = query.slices;
  answer.routing = query.routing;
  if (query.slices == 1) {
    if (query.dcn_bandwidth_Bps || query.dcn_latency_s)
      throw CollectiveError(query.dcn_bandwidth_Bps ? Field::dcn_bandwidth : Field::dcn_latency,
                            "a DCN override needs several slices, got: 1 slice");
    return false;
  }
  const HardwareSpec& hardware = query.hardware;
  if (slice.num_chips() * query.slices > kMaxSliceChips)
    throw CollectiveError(Field::slices, "slices x chips per slice must be at most " + std::to_string(kMaxSliceChips) +
                                             ", got: " + std::to_string(slice.num_chips() * query.slices));
  if (mesh.axis_index(kSliceAxis))
    throw CollectiveError(Field::mesh, std::string("the axis name ") + kSliceAxis +
                                           " is the slice axis with several slices, got: a mesh axis " + kSliceAxis);
  if (std::holds_alternative<CollectiveQuery::Tensor>(query.size))
    throw CollectiveError(Field::shape, "several slices take the size as bytes (--array-bytes), got: a tensor");
  const DcnFigures book_dcn = dcn_figures(hardware, query.dcn_bandwidth_Bps, query.dcn_latency_s, false);
  answer.dcn_bandwidth_Bps = book_dcn.bandwidth_per_chip_Bps;
  if (!query.dcn_bandwidth_Bps && !(answer.dcn_bandwidth_Bps > 0))
    throw CollectiveError(Field::dcn_bandwidth,
                          "the preset has no DCN bandwidth per chip: give one, got: none for " + hardware.name);
  if (!(answer.dcn_bandwidth_Bps > 0) || !std::isfinite(answer.dcn_bandwidth_Bps))
    throw CollectiveError(Field::dcn_bandwidth,
                          "DCN bandwidth per chip must be > 0 B/s, got: " + format_number(answer.dcn_bandwidth_Bps));
  answer.dcn_latency_s = book_dcn.latency_s;
  if (!(answer.dcn_latency_s >= 0) || !std::isfinite(answer.dcn_latency_s))
    throw CollectiveError(Field::dcn_latency, "DCN latency must be >= 0 s, got: " + exact_number(answer.dcn_latency_s));
  answer.chips_per_host = hardware.chips_per_host > 0 ? hardware.chips_per_host : slice.num_chips();
  return true;
}

}  // namespace

CollectiveAnswer answer_collective(const CollectiveQuery& query) {
  CollectiveAnswer answer;
  const HardwareSpec& hardware = query.hardware;
  answer.hardware = hardware.name;
  if (hardware.ici.links_per_chip == 0)
    throw CollectiveError(Field::hardware,
                          "the preset has no ICI links, so collectives cannot run on it, got: " + hardware.name);
  answer.ici = hardware.ici;
  answer.ici.bandwidth_Bps = query.link_bandwidth_Bps.value_or(hardware.ici.bandwidth_Bps);
  answer.ici.hop_latency_s = query.hop_latency_s.value_or(hardware.ici.hop_latency_s);
  if (!(answer.ici.hop_latency_s >= 0))
    throw CollectiveError(Field::hop_latency,
                          "per-hop latency must be >= 0 s, got: " + exact_number(answer.ici.hop_latency_s));
  if (!(answer.ici.bandwidth_Bps > 0))
    throw CollectiveError(Field::link_bandwidth,
                          "link bandwidth must be > 0 B/s, got: " + format_number(answer.ici.bandwidth_Bps));

  answer.slice.emplace(query_slice(query));
  const Slice& slice = *answer.slice;
  const Mesh mesh = query.mesh ? *query.mesh : default_mesh(slice);
  const MeshMapping mapping = in_field(Field::mesh, [&] { return MeshMapping(mesh, slice); });
  const bool multi_slice = query_dcn(query, mesh, slice, answer);

  answer.kind = query.op;
  answer.axes = query.axes;
  if (answer.axes.empty()) throw CollectiveError(Field::axes, "at least one mesh axis is required, got: none");
  for (std::size_t i = 0; i < answer.axes.size(); ++i) {
    const std::string& axis = answer.axes[i];
    if (std::find(answer.axes.begin(), answer.axes.begin() + static_cast<std::ptrdiff_t>(i), axis) !=
        answer.axes.begin() + static_cast<std::ptrdiff_t>(i))
      throw CollectiveError(Field::axes, "axis listed twice, got: " + axis);
    if (multi_slice && axis == kSliceAxis) {
      answer.group_size *= answer.slices;
      continue;
    }
    in_field(Field::axes, [&] { return mapping.axis_index(axis); });
    answer.group_size *= mesh.axis_size(axis);
  }
  const bool across = multi_slice && std::find(answer.axes.begin(), answer.axes.end(), kSliceAxis) != answer.axes.end();
  if (across && answer.kind == CollectiveKind::all_to_all)
    throw CollectiveError(Field::axes, std::string("an all-to-all across slices (over the ") + kSliceAxis +
                                           " axis) is not supported, got: " + join_axes(answer.axes));
  std::vector<std::string> ici_axes;
  for (const std::string& axis : answer.axes)
    if (!(multi_slice && axis == kSliceAxis)) ici_axes.push_back(axis);

  const auto* tensor = std::get_if<CollectiveQuery::Tensor>(&query.size);
  answer.array_bytes =
      tensor ? array_bytes_of_tensor(*tensor, query.dtype, answer.kind, answer.axes, mesh, answer.group_size)
             : std::get<std::uint64_t>(query.size);
  if (answer.array_bytes == 0 || answer.array_bytes > kMaxArrayBytes)
    throw CollectiveError(
        tensor ? Field::shape : Field::array_bytes,
        "the array must hold 1 byte to 2^50 bytes (1 PiB), got: " + std::to_string(answer.array_bytes));
  answer.shard_bytes = ceil_div(answer.array_bytes, static_cast<std::uint64_t>(answer.group_size));

  if (query.model != EvalModel::des) {
    answer.book = in_field(Field::op, [&] {
      const auto physical = collective_axes(slice, mapping, ici_axes);
      if (across)
        return book_hierarchical_cost(answer.kind, physical, answer.slices, answer.array_bytes,
                                      answer.ici.bandwidth_Bps, answer.ici.hop_latency_s, answer.dcn_bandwidth_Bps,
                                      answer.dcn_latency_s);
      return book_collective_cost(answer.kind, physical, answer.array_bytes, answer.ici.bandwidth_Bps,
                                  answer.ici.hop_latency_s);
    });
  }
  if (query.model != EvalModel::book) {
    CollectiveRequest request;
    request.op = answer.kind;
    const std::int64_t per_slice = slice.num_chips();
    for (const std::string& axis : answer.axes)
      request.axes.push_back(multi_slice && axis == kSliceAxis
                                 ? slice_axis_groups(per_slice, answer.slices)
                                 : repeat_over_slices(axis_groups(mapping, slice, axis), per_slice, answer.slices));
    request.array_bytes = answer.array_bytes;
    request.algorithm = query.algorithm;
    request.multi_axis = query.multi_axis;
    // The reduction adds one element per element received, at the chip's peak (ChipModel::reduction_s_per_byte, the
    // figure `podsim run` uses too); compute tasks carry time x the engine's host speed, so any speed will do.
    const double chip_flops = 1e15;
    request.reduce_flops_per_byte = hardware.chip.reduction_s_per_byte(query.dtype) * chip_flops;
    const auto chips = static_cast<std::int32_t>(per_slice * answer.slices);
    if (const auto transfers = estimate_transfers(request); transfers > kMaxTransfers)
      throw CollectiveError(Field::slice, "the simulation would build " + transfers_over_limit(transfers) +
                                              " (docs/reliability.md): use fewer chips per axis, or the book model");
    in_field(Field::algorithm, [&] {
      verify_collective(request, chips);
      return 0;
    });
    DesAnswer des;
    // The calibration's figures replace the preset's in the des, never a figure the query gives itself.
    IciModel des_ici = answer.ici;
    const DcnFigures simulated_dcn = dcn_figures(hardware, query.dcn_bandwidth_Bps, query.dcn_latency_s, true);
    const DcnLinks dcn{simulated_dcn.bandwidth_per_chip_Bps, simulated_dcn.latency_s, answer.chips_per_host};
    TransferCalibration transfer;
    if (const auto& calibration = hardware.calibration) {
      des.calibrated = true;
      des.calibration_source = calibration->source;
      if (calibration->hop_latency_s && !query.hop_latency_s) des_ici.hop_latency_s = *calibration->hop_latency_s;
      transfer = {calibration->collective_step_s, calibration->link_efficiency};
      if (const auto& curve = calibration->link_efficiency; !curve.empty()) {
        des.curve_from = curve.front().at;
        des.curve_to = curve.back().at;
        for (const std::uint64_t bytes : ici_message_bytes(request, chips, per_slice))
          if (outside_curve(curve, static_cast<double>(bytes))) des.extrapolated_message_bytes.push_back(bytes);
      }
    }
    for (const auto& axis : request.axes)
      des.algorithms.emplace_back(algorithm_name(resolve_algorithm(query.algorithm, answer.kind, axis)));
    // simulate_exact's rule (docs/performance.md): across slices the slice quotient; on one slice one chip for all
    // (the translation quotient, from the request alone), else one group per axis phase, where each is proved exact;
    // the full simulation otherwise.
    NetworkSpec network = multi_slice
                              ? multi_slice_network(slice, answer.slices, des_ici, dcn, chip_flops, query.routing)
                              : slice_network(slice, des_ici, chip_flops, query.routing);
    network.transfer = transfer;
    ExactSimulation exact = simulate_exact(network, slice, answer.slices, request);
    des.result = std::move(exact.result);
    des.symmetric = exact.path != ExactPath::full;
    des.simulated = simulated_name(exact.path);
    des.time_s = des.result.makespan_s;
    answer.des = std::move(des);
  }
  return answer;
}

}  // namespace podsim
