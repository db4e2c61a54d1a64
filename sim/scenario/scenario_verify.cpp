// The scenario verifier, first half: the shared helpers, then the sections before the program (name, slice,
// mesh, tensors) and the entry points. The model-level sections, the program, plans and expectations follow in
// scenario_verify_capacity.cpp, scenario_verify_ops.cpp and scenario_verify_expect.cpp.
#include "sim/scenario/scenario_verify.hpp"

#include <cmath>
#include <set>

#include <cstdio>
#include <filesystem>
#include <set>

#include "models/common/shown_text.hpp"
#include "models/common/units.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/slice_failures.hpp"
#include "models/topology/twist.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim {
namespace scenario_detail {

std::string escape_key(const std::string& key) {
  std::string out;
  for (const char c : key)
    out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

std::string child(const std::string& pointer, const std::string& key) {
  return pointer + "/" + escape_key(key);
}

std::string child(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return cut_shown(out + "\"");
}

std::string shown(double value) {
  return exact_number(value);
}

std::string shown(const std::vector<std::int64_t>& values) {
  std::string out;
  for (const auto v : values)
    out += (out.empty() ? "[" : ",") + std::to_string(v);
  return cut_shown(out.empty() ? "[]" : out + "]");
}

std::string shown(const std::vector<bool>& values) {
  std::string out;
  for (const bool v : values)
    out += (out.empty() ? "[" : ",") + std::string(v ? "true" : "false");
  return cut_shown(out.empty() ? "[]" : out + "]");
}

std::string quote_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + quote(n);
  return out;
}

namespace {

bool is_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

bool is_tensor_name(const std::string& text) {
  if (text.empty() || !is_letter(text[0])) return false;
  for (const char c : text)
    if (!is_letter(c) && !is_digit(c)) return false;
  return true;
}

bool is_op_name(const std::string& text) {
  if (text.empty() || !is_letter(text[0])) return false;
  for (const char c : text)
    if (!is_letter(c) && !is_digit(c) && c != '-' && c != '.') return false;
  return true;
}

std::string Where::beside(const std::string& path) const {
  const std::filesystem::path base =
      folder.empty() ? std::filesystem::path(file).parent_path() : std::filesystem::path(folder);
  if (base.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (base / path).string();
}

std::string Where::at(const std::string& pointer) const {
  const std::string located = pointer.empty() ? "/" : pointer;
  return file.empty() ? located : file + ": " + located;
}

void Where::fail(const std::string& pointer, const std::string& message) const {
  throw InputError(at(pointer), message);
}

void Where::fail(const std::string& pointer, const Error& error) const {
  throw InputError::at(at(pointer), error);
}

void Where::require_at_least(const std::string& pointer, std::int64_t value, std::int64_t min) const {
  if (value < min) fail(pointer, "must be at least " + std::to_string(min) + ", got: " + std::to_string(value));
}

void verify_sharding_text(const State& state, ScenarioSharding& sharding, const std::string& pointer,
                          const std::string& tensor, std::size_t rank, const std::string& other_name) {
  const Where& where = state.where;
  sharding.pointer = pointer;
  try {
    sharding.parsed = parse_sharding(sharding.text, state.spec.mesh.name, rank);
  } catch (const Error& e) {
    where.fail(pointer, e);
  }
  const std::string& named = sharding.parsed.tensor_name;
  if (sharding.parsed.notation == Notation::book && !named.empty() && named != tensor &&
      (other_name.empty() || named != other_name))
    where.fail(pointer, "the sharding names another tensor, got: " + quote(named) + " (expected " + quote(tensor) +
                            (other_name.empty() ? "" : " or " + quote(other_name)) + ")");
  try {
    verify_sharding(sharding.parsed.sharding, state.meshes, rank);
  } catch (const Error& e) {
    where.fail(pointer, e);
  }
  if (sharding.parsed.sharding.inline_mesh && !(*sharding.parsed.sharding.inline_mesh == state.spec.mesh.mesh))
    where.fail(pointer, "an inline mesh must be the scenario's mesh @" + state.spec.mesh.name +
                            ", got: " + cut_shown(sharding.text));
}

namespace {

// The default sharding: replicated, one empty closed dim per tensor dim.
void replicate(const State& state, ScenarioSharding& sharding, std::size_t rank, const std::string& pointer) {
  sharding.pointer = pointer;
  sharding.parsed = ParsedSharding{};
  sharding.parsed.notation = Notation::shardy;
  sharding.parsed.sharding.mesh_name = state.spec.mesh.name;
  sharding.parsed.sharding.dims.resize(rank);
}

// `slice.failed_links`, `slice.failed_chips` and `slice.spare_cubes` (docs/topology.md, "Failed links", "Failed
// chips", "Spare cubes"), resolved by resolve_slice_failures: a program runs on every chip, so a failed chip must be
// replaced by a spare; and no capacity planning (its candidates are other slices, whose links and chips these are not).
void verify_slice_failures(State& state) {
  const Where& where = state.where;
  ScenarioSpec& spec = state.spec;
  spec.failures = SliceFailures{};
  const FailureRequest request = spec.failure_request();
  if (!request.any()) return;
  using Field = FailureIssue::Field;
  const auto pointer = [](Field field) {
    return field == Field::failed_links   ? std::string("/slice/failed_links")
           : field == Field::failed_chips ? std::string("/slice/failed_chips")
                                          : std::string("/slice/spare_cubes");
  };
  if (spec.model) {
    const Field field = !spec.failed_links.empty()   ? Field::failed_links
                        : !spec.failed_chips.empty() ? Field::failed_chips
                                                     : Field::spare_cubes;
    where.fail(pointer(field),
               "failures and spares are simulated on a scenario's own program; capacity planning (a model) plans "
               "other slices, got: " +
                   failure_count_text(request) + " with a model");
  }
  const HardwareSpec& hw = spec.hardware.spec;
  const CubePod pod = cube_pod(hw.wrap_rule, hw.pod_shape, hw.pod_chips, hw.name);
  if (const auto issue = resolve_slice_failures(Slice(spec.slice_shape, spec.wraparound, spec.twist), request, pod,
                                                true, spec.failures))
    where.fail(issue->index ? child(pointer(issue->field), *issue->index) : pointer(issue->field), issue->message);
}

// The slice's shape within the limits (slice.hpp), and its wraparound resolved.
void verify_slice(State& state) {
  const Where& where = state.where;
  ScenarioSpec& spec = state.spec;
  const Shape& dims = spec.slice_shape;
  if (const auto issue = slice_shape_issue(dims)) {
    switch (issue->rule) {
      case SliceShapeIssue::Rule::rank:
        where.fail("/slice/shape", "must be an array of 1 to 3 chip counts, got: " + shown(dims));
      case SliceShapeIssue::Rule::dim_size:
        where.require_at_least(child("/slice/shape", issue->dim), dims[issue->dim], 1);
        break;
      case SliceShapeIssue::Rule::chips:
        where.fail("/slice/shape",
                   "a slice has at most " + std::to_string(kMaxSliceChips) + " chips, got: " + shown(dims));
    }
  }
  const std::string p = "/slice/wraparound";
  const WrapChoice choice = spec.wrap.value_or(WrapChoice{});
  if (choice.mode == WrapMode::listed && choice.dims.size() != dims.size())
    where.fail(p,
               "must have one entry per slice dim (" + std::to_string(dims.size()) + "), got: " + shown(choice.dims));
  const HardwareSpec& hw = spec.hardware.spec;
  std::vector<bool> wrap;
  try {
    wrap = resolve_wraparound(choice, dims, hw.wrap_rule, hw.pod_shape);
  } catch (const Error& e) {
    if (choice.mode != WrapMode::automatic) where.fail(p, e);
    where.fail(spec.wrap ? p : "/slice",
               std::string(e.what()) + " (give \"wraparound\" as \"none\", \"all\" or one boolean per dim)");
  }
  try {
    const Slice slice(dims, wrap);
    spec.wraparound = slice.wraparound();
  } catch (const Error& e) {
    where.fail("/slice", e);
  }
  if (spec.twist)
    if (const auto issue = preset_twist_issue(hw.twist, hw.name, dims, spec.wraparound))
      where.fail("/slice/twist", *issue);
  verify_slice_failures(state);
  if (const auto issue = route_policy_issue(spec.options.routing, spec.twist, spec.one_slice().has_failures()))
    where.fail("/options/routing", *issue);
}

// Several slices over the DCN (docs/overlap-pipeline-dcn.md): the count within the limits, and a DCN bandwidth in
// force.
void verify_slice_count(State& state) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  where.require_at_least("/slice/count", spec.slice_count, 1);
  if (spec.slice_count == 1) {
    if (spec.dcn_bandwidth_Bps || spec.dcn_latency_s)
      where.fail("/slice/dcn", "DCN figures need several slices (\"count\" > 1), got: 1 slice");
    return;
  }
  const std::int64_t chips = element_count(spec.slice_shape) * spec.slice_count;
  if (chips > kMaxSliceChips)
    where.fail("/slice/count", "slices x chips per slice must be at most " + std::to_string(kMaxSliceChips) +
                                   ", got: " + std::to_string(chips));
  if (spec.hardware.spec.ici.links_per_chip == 0)
    where.fail("/slice/count", "several slices need a chip with ICI links, got: " + spec.hardware.spec.name);
  if (spec.dcn_bandwidth_Bps && !(*spec.dcn_bandwidth_Bps > 0 && std::isfinite(*spec.dcn_bandwidth_Bps)))
    where.fail("/slice/dcn/bandwidth_per_chip",
               "must be finite and > 0 B/s, got: " + exact_number(*spec.dcn_bandwidth_Bps));
  if (!(spec.dcn_bandwidth_or_preset() > 0))
    where.fail("/slice", "several slices need a DCN bandwidth per chip: the preset " + spec.hardware.spec.name +
                             " has none, give \"dcn\": {\"bandwidth_per_chip\": ...}, got: none");
  if (spec.dcn_latency_s && !(*spec.dcn_latency_s >= 0 && std::isfinite(*spec.dcn_latency_s)))
    where.fail("/slice/dcn/latency", "must be finite and >= 0 s, got: " + exact_number(*spec.dcn_latency_s));
}

// With several slices the mesh's first axis is the slice axis (kSliceAxisName) of size slice_count, over no slice
// dim, so that mesh position s * M + c is chip c of slice s; the other axes lie on one slice. No device_ids.
void verify_slice_axis(const State& state) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  const ScenarioMesh& mesh = spec.mesh;
  const auto& axes = mesh.mesh.axes;
  std::size_t found = axes.size();
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == kSliceAxisName) found = i;
  if (spec.slice_count == 1) {
    return;
  }
  const std::string expected = std::string("the mesh's first axis must be ") + kSliceAxisName + "=" +
                               std::to_string(spec.slice_count) + " (the slice index) with " +
                               std::to_string(spec.slice_count) + " slices";
  if (found != 0)
    where.fail("/mesh", expected + ", got: " +
                            (found == axes.size() ? "no such axis" : "it at position " + std::to_string(found)));
  if (axes[0].size != spec.slice_count)
    where.fail("/mesh", expected + ", got: " + kSliceAxisName + "=" + std::to_string(axes[0].size));
  if (!mesh.mesh.device_ids.empty())
    where.fail("/mesh/device_ids", "a mesh over several slices places its devices in order, got: device_ids");
  if (!mesh.axis_dims.empty() && !mesh.axis_dims[0].empty())
    where.fail("/mesh/axes/0/dims",
               std::string("the slice axis covers no dim of a slice, got: dims for ") + kSliceAxisName);
}

// The mesh from its spec text, as written, or the slice's default; then its place on the slice.
void verify_mesh_section(State& state) {
  const Where& where = state.where;
  ScenarioSpec& spec = state.spec;
  ScenarioMesh& mesh = spec.mesh;
  const Slice slice(spec.slice_shape, spec.wraparound);
  if (!mesh.text.empty()) {
    try {
      NamedMesh named = parse_mesh_spec(mesh.text);
      mesh.name = named.name;
      mesh.mesh = std::move(named.mesh);
    } catch (const Error& e) {
      where.fail("/mesh", e);
    }
  } else {
    if (mesh.name.empty())
      mesh.name = std::string(kDefaultMeshName);
    else if (!is_op_name(mesh.name))
      where.fail("/mesh/name", "must be an identifier [A-Za-z_][A-Za-z0-9_.-]*, got: " + quote(mesh.name));
    if (mesh.mesh.is_empty()) {
      mesh.mesh = default_mesh(slice);
    } else {
      for (std::size_t i = 0; i < mesh.mesh.axes.size(); ++i) {
        const std::string p = child("/mesh/axes", i);
        if (mesh.mesh.axes[i].name.empty()) where.fail(p + "/name", "must not be empty, got: \"\"");
        where.require_at_least(p + "/size", mesh.mesh.axes[i].size, 1);
      }
      try {
        verify_mesh(mesh.mesh);
      } catch (const Error& e) {
        where.fail("/mesh", e);
      }
    }
  }
  verify_slice_axis(state);
  if (mesh.axis_dims.empty()) {
    // In order over the slice's dims; the slice axis of several slices covers none.
    const std::size_t skip = spec.slice_count > 1 ? 1 : 0;
    mesh.axis_dims = in_order_axis_dims(mesh.mesh.axes.size() - skip, slice.rank());
    if (skip == 1) mesh.axis_dims.insert(mesh.axis_dims.begin(), std::vector<int>{});
  }
  try {
    const auto [in_slice, dims] = spec.in_slice_mesh();
    const MeshMapping mapping(in_slice, slice, dims);
    state.meshes.add(mesh.name, mesh.mesh);
  } catch (const Error& e) {
    where.fail("/mesh", e);
  }
}

void verify_tensors(State& state) {
  const Where& where = state.where;
  for (auto& tensor : state.spec.tensors) {
    const std::string p = child("/tensors", tensor.name);
    tensor.pointer = p;
    if (!is_tensor_name(tensor.name))
      where.fail(p, "tensor names are identifiers [A-Za-z_][A-Za-z0-9_]*, got: " + quote(tensor.name));
    if (state.tensors.count(tensor.name) != 0) where.fail(p, "tensor is declared twice, got: " + quote(tensor.name));
    for (std::size_t i = 0; i < tensor.shape.size(); ++i)
      where.require_at_least(child(p + "/shape", i), tensor.shape[i], 1);
    try {
      dtype_bytes(tensor.dtype, element_count(tensor.shape));
    } catch (const Error& e) {
      where.fail(p + "/shape", e);
    }
    if (tensor.sharding.text.empty())
      replicate(state, tensor.sharding, tensor.shape.size(), p + "/sharding");
    else
      verify_sharding_text(state, tensor.sharding, p + "/sharding", tensor.name, tensor.shape.size());
    if (!tensor.view_of.empty()) {
      if (!is_tensor_name(tensor.view_of))
        where.fail(p + "/view_of",
                   "tensor names are identifiers [A-Za-z_][A-Za-z0-9_]*, got: " + quote(tensor.view_of));
      if (tensor.view_of == tensor.name)
        where.fail(p + "/view_of", "a tensor is not a view of itself, got: " + quote(tensor.view_of));
      if (tensor.transient)
        where.fail(p + "/transient",
                   "a view takes no memory of its own, so \"transient\" does not apply, got: true beside \"view_of\"");
    }
    state.tensors[tensor.name] = {tensor.shape, tensor.dtype, true, tensor.view_of};
  }
  // A view's tensor is declared (and not a view itself) or written by an op; the op check below makes sure it is
  // written before a step reads the view.
  std::set<std::string> written;
  for (const ScenarioOp& op : state.spec.program)
    written.insert(op.out);
  for (const auto& tensor : state.spec.tensors) {
    if (tensor.view_of.empty()) continue;
    const auto it = state.tensors.find(tensor.view_of);
    if (it != state.tensors.end() && !it->second.view_of.empty())
      where.fail(tensor.pointer + "/view_of", "names a tensor that is a view itself, got: " + quote(tensor.view_of) +
                                                  " (a view of " + quote(it->second.view_of) + "); name that one");
    if (it == state.tensors.end() && written.count(tensor.view_of) == 0)
      where.fail(tensor.pointer + "/view_of",
                 "names no tensor declared in \"tensors\" or written by an op, got: " + quote(tensor.view_of));
  }
}

// Checks `spec` section by section, filling its derived fields.
void verify_in_place(ScenarioSpec& spec) {
  State state{Where{spec.source_file, {}}, spec, {}, {}};
  if (spec.name.empty()) state.where.fail("/name", "must not be empty, got: \"\"");
  // A disaggregated serving scenario's slices are its pools' (serving_pools.hpp verifies each as a scenario).
  const bool pools_only = spec.serve && spec.serve->disaggregated && spec.slice_shape.empty();
  if (pools_only) {
  } else if (!slices_in_search_only(spec)) {
    verify_slice(state);
    verify_slice_count(state);
    verify_mesh_section(state);
  } else if (!spec.mesh.text.empty() || !spec.mesh.mesh.is_empty()) {
    state.where.fail("/mesh", "a mesh lies on the scenario's \"slice\", got: no slice (the slices are searched)");
  }
  verify_capacity(state);
  verify_tensors(state);
  verify_program(state);
  verify_plans(state);
  verify_expect(state);
}

}  // namespace
}  // namespace scenario_detail

void verify(const ScenarioSpec& spec) {
  ScenarioSpec copy = spec;
  scenario_detail::verify_in_place(copy);
}

ScenarioSpec verified(ScenarioSpec spec) {
  scenario_detail::verify_in_place(spec);
  return spec;
}

}  // namespace podsim
