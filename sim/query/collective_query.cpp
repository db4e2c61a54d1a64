// parse -> verify -> evaluate for `podsim collective`: the slice, the mesh on it, the array V (given, or from
// a sharded tensor), then the book's closed form and the SimGrid simulation of the chosen schedule.
#include "sim/query/collective_query.hpp"

#include <algorithm>
#include <cmath>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/integer.hpp"
#include "models/common/shape.hpp"
#include "models/common/units.hpp"
#include "models/cost/collective_cost.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/sharding/notation.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/collective_simulation.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/slice_network.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim {
namespace {

std::vector<std::string> split_axes(const std::string& text) {
  std::vector<std::string> axes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::string axis = text.substr(pos, comma - pos);
    axis.erase(std::remove(axis.begin(), axis.end(), ' '), axis.end());
    if (axis.empty()) throw VerifyError("expected a comma-separated list of mesh axes such as X,Y, got: " + text);
    if (std::find(axes.begin(), axes.end(), axis) != axes.end()) throw VerifyError("axis listed twice, got: " + axis);
    axes.push_back(axis);
    pos = comma + 1;
  }
  return axes;
}

// "an " before all-gather, all-reduce and all-to-all, "a " before reduce-scatter.
std::string article(CollectiveKind kind) {
  return kind == CollectiveKind::reduce_scatter ? "a " : "an ";
}

bool uses_axis(const std::vector<AxisRef>& refs, const std::string& axis) {
  return std::any_of(refs.begin(), refs.end(), [&](const AxisRef& ref) { return ref.name == axis; });
}

// V from a sharded tensor: an all-gather or all-to-all over A moves the array as one device sees it once A is
// gathered (bytes per device x |A|); a reduce-scatter or all-reduce over A reduces the local array, which must
// be unreduced over A (`{U_A}`).
std::uint64_t array_bytes_of_tensor(const CollectiveQuery& query, CollectiveKind kind,
                                    const std::vector<std::string>& axes, const Mesh& mesh, std::int64_t group) {
  if (!query.shape) throw InputError("--shape", "a shape is required with --sharding, got: none");
  const Shape shape = located("--shape", [&] { return parse_shape(*query.shape); });
  const DType dtype = located("--dtype", [&] { return parse_dtype(query.dtype); });
  MeshTable meshes;
  meshes.add("mesh", mesh);
  const ParsedSharding parsed =
      located("--sharding", [&] { return parse_sharding(*query.sharding, "mesh", shape.size()); });
  const TensorSharding& sharding = parsed.sharding;
  located("--sharding", [&] {
    verify_sharding(sharding, meshes, shape.size());
    return 0;
  });
  const Mesh* bound = resolve_mesh(sharding, meshes);
  const Layout layout = located("--sharding", [&] { return compute_layout(shape, dtype, sharding, *bound); });
  const bool reduces = kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::all_reduce;
  for (const auto& axis : axes) {
    if (reduces && !uses_axis(sharding.unreduced, axis))
      throw InputError("--axes", article(kind) + std::string(collective_kind_name(kind)) + " over " + axis +
                                     " needs the tensor unreduced over it ({U_" + axis + "}), got: " + *query.sharding);
    if (!reduces) {
      const bool shards = std::any_of(sharding.dims.begin(), sharding.dims.end(),
                                      [&](const DimSharding& dim) { return uses_axis(dim.axes, axis); });
      if (!shards)
        throw InputError("--axes", "axis " + axis + " does not shard the tensor, so " + article(kind) +
                                       std::string(collective_kind_name(kind)) +
                                       " over it moves nothing, got: " + *query.sharding);
    }
  }
  return reduces ? layout.bytes_per_device : layout.bytes_per_device * static_cast<std::uint64_t>(group);
}

}  // namespace

CollectiveAnswer answer_collective(const CollectiveQuery& query) {
  CollectiveAnswer answer;
  const HardwareSpec hardware = located("--hardware", [&] { return load_hardware_preset(query.hardware); });
  answer.hardware = hardware.name;
  if (hardware.ici.links_per_chip == 0)
    throw InputError("--hardware",
                     "the preset has no ICI links, so collectives cannot run on it, got: " + query.hardware);
  answer.link_bandwidth_Bps = hardware.ici.bandwidth_Bps;
  answer.hop_latency_s = hardware.ici.hop_latency_s;
  if (query.link_bandwidth)
    answer.link_bandwidth_Bps = located("--link-bw", [&] { return parse_bandwidth(*query.link_bandwidth); });
  if (query.hop_latency)
    answer.hop_latency_s = located("--hop-latency", [&] { return parse_duration(*query.hop_latency); });
  if (!(answer.hop_latency_s >= 0))
    throw InputError("--hop-latency", "per-hop latency must be >= 0 s, got: " + exact_number(answer.hop_latency_s));
  if (!(answer.link_bandwidth_Bps > 0))
    throw InputError("--link-bw", "link bandwidth must be > 0 B/s, got: " + format_number(answer.link_bandwidth_Bps));

  if (query.slice.empty()) throw InputError("--slice", "a slice shape such as 8x4 is required, got: none");
  const Shape shape = located("--slice", [&] { return parse_shape(query.slice); });
  if (shape.empty() || shape.size() > 3) throw InputError("--slice", "a slice has 1 to 3 dims, got: " + query.slice);
  std::int64_t slice_chips = 1;
  for (const auto size : shape) {
    if (size < 1) throw InputError("--slice", "every slice dim must be >= 1, got: " + query.slice);
    slice_chips *= std::min<std::int64_t>(size, kMaxSliceChips + 1);
    slice_chips = std::min<std::int64_t>(slice_chips, kMaxSliceChips + 1);
  }
  if (slice_chips > kMaxSliceChips)
    throw InputError("--slice",
                     "a slice has at most " + std::to_string(kMaxSliceChips) + " chips, got: " + query.slice);
  std::vector<bool> wraps;
  try {
    wraps = resolve_wraparound(query.wrap, shape, hardware.wrap_rule, hardware.pod_shape);
  } catch (const Error& e) {
    const std::string hint =
        query.wrap == "auto" ? " (the preset's rule does not apply: choose --wrap none, all or dims)" : "";
    throw InputError("--wrap", e.what() + hint);
  }
  answer.slice.emplace(shape, wraps);
  const Slice& slice = *answer.slice;

  const Mesh mesh =
      query.mesh ? located("--mesh", [&] { return parse_mesh_spec(*query.mesh).mesh; }) : default_mesh(slice);
  const MeshMapping mapping = located("--mesh", [&] { return MeshMapping(mesh, slice); });

  answer.kind = located("--op", [&] { return parse_collective_kind(query.op); });
  answer.axes = located("--axes", [&] { return split_axes(query.axes); });
  for (const auto& axis : answer.axes) {
    located("--axes", [&] { return mapping.axis_index(axis); });
    answer.group_size *= mesh.axis_size(axis);
  }

  if (query.sharding && query.array_bytes)
    throw InputError("--array-bytes", "give either --array-bytes or a tensor (--shape, --sharding), got: both");
  if (query.array_bytes) {
    answer.array_bytes = located("--array-bytes", [&] { return parse_bytes(*query.array_bytes); });
  } else if (query.sharding) {
    answer.array_bytes = array_bytes_of_tensor(query, answer.kind, answer.axes, mesh, answer.group_size);
  } else {
    throw InputError("--array-bytes", "the collective's size is required: --array-bytes V or --shape and --sharding");
  }
  if (answer.array_bytes == 0 || answer.array_bytes > kMaxArrayBytes)
    throw InputError(query.array_bytes ? "--array-bytes" : "--shape",
                     "the array must hold 1 byte to 2^50 bytes (1 PiB), got: " + std::to_string(answer.array_bytes));
  answer.shard_bytes = ceil_div(answer.array_bytes, static_cast<std::uint64_t>(answer.group_size));

  if (query.model != "book" && query.model != "des" && query.model != "both")
    throw InputError("--model", "model must be des, book or both, got: " + query.model);
  const Algorithm algorithm = located("--algorithm", [&] { return parse_algorithm(query.algorithm); });
  MultiAxis multi_axis = MultiAxis::sequential;
  if (query.multi_axis == "concurrent") {
    multi_axis = MultiAxis::concurrent;
  } else if (query.multi_axis != "sequential") {
    throw InputError("--multi-axis", "must be sequential or concurrent, got: " + query.multi_axis);
  }

  if (query.model != "des") {
    answer.book = located("--op", [&] {
      return book_collective_cost(answer.kind, collective_axes(slice, mapping, answer.axes), answer.array_bytes,
                                  answer.link_bandwidth_Bps, answer.hop_latency_s);
    });
  }
  if (query.model != "book") {
    CollectiveRequest request;
    request.op = answer.kind;
    request.axes = axes_groups(mapping, slice, answer.axes);
    request.array_bytes = answer.array_bytes;
    request.algorithm = algorithm;
    request.multi_axis = multi_axis;
    // The reduction adds one element per element received, at the chip's peak for the dtype.
    const DType dtype = located("--dtype", [&] { return parse_dtype(query.dtype); });
    request.reduce_flops_per_byte = 8.0 / dtype_bits(dtype);
    double chip_flops = 1e12;
    const auto peak = hardware.chip.peak_flops_by_dtype.find(dtype);
    if (peak != hardware.chip.peak_flops_by_dtype.end()) chip_flops = peak->second;
    const auto chips = static_cast<std::int32_t>(slice.num_chips());
    located("--algorithm", [&] {
      verify_collective(request, chips);
      return 0;
    });
    DesAnswer des;
    for (const auto& axis : request.axes)
      des.algorithms.emplace_back(algorithm_name(resolve_algorithm(algorithm, answer.kind, axis)));
    // One representative group per axis phase where the engine proves that exact (docs/performance.md).
    SimulatedCollective run = simulate_collective(
        slice_network(slice, answer.link_bandwidth_Bps, answer.hop_latency_s, chip_flops), chips, request);
    des.result = std::move(run.result);
    des.symmetric = run.symmetric;
    des.time_s = des.result.makespan_s;
    answer.des = std::move(des);
  }
  return answer;
}

}  // namespace podsim
