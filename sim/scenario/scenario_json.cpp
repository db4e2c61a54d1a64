// Scenario loader, first half: the file's text to JSON (syntax errors with line and column, duplicate keys),
// then the top-level object and the sections before the program: hardware, slice, mesh, dtype, tensors and
// options. The program, plans and expectations follow in scenario_json_ops.cpp and scenario_json_expect.cpp.
#include "sim/scenario/scenario_json.hpp"

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "models/sharding/mesh_spec.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim {
namespace scenario_detail {
namespace {

// More chips than any pod has, and still a slice whose links fit easily in memory.
constexpr std::int64_t kMaxChips = kMaxSliceChips;

// Records the first duplicate key (nlohmann keeps the last silently) with its JSON pointer.
class DuplicateKeyFinder {
 public:
  bool on_event(int /*depth*/, nlohmann::json::parse_event_t event, Json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
        frames_.push_back({true, {}, 0, {}});
        break;
      case Event::array_start:
        frames_.push_back({false, {}, 0, {}});
        break;
      case Event::key: {
        auto& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!duplicate_ && !top.seen.insert(top.key).second) duplicate_ = pointer() + "/" + escape_key(top.key);
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Event::value:
        element_done();
        break;
    }
    return true;
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool object;
    std::string key;
    std::size_t index;
    std::set<std::string> seen;
  };
  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  std::string pointer() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i)
      out += "/" + (frames_[i].object ? escape_key(frames_[i].key) : std::to_string(frames_[i].index));
    return out;
  }
  std::vector<Frame> frames_;
  std::optional<std::string> duplicate_;
};

Json parse_text(const std::string& text, const Ctx& ctx) {
  DuplicateKeyFinder finder;
  Json doc;
  try {
    doc = Json::parse(text, [&](int depth, nlohmann::json::parse_event_t event, Json& parsed) {
      return finder.on_event(depth, event, parsed);
    });
  } catch (const Json::parse_error& e) {
    // e.byte is the 1-based offset of the character that failed; turn it into line and column.
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < end; ++i)
      if (text[i] == '\n') ++line, line_start = i + 1;
    std::string detail = e.what();
    if (const auto p = detail.find("] "); p != std::string::npos) detail = detail.substr(p + 2);
    if (detail.rfind("parse error at line", 0) == 0)
      if (const auto p = detail.find(": "); p != std::string::npos) detail = detail.substr(p + 2);
    throw InputError(ctx.file,
                     "line " + std::to_string(line) + ", column " + std::to_string(end - line_start + 1) +
                         ": invalid JSON: " + detail,
                     InputError::Stage::parse);
  }
  if (finder.duplicate()) {
    const auto& p = *finder.duplicate();
    ctx.fail(p, "duplicate key, got: \"" + p.substr(p.rfind('/') + 1) + "\"");
  }
  return doc;
}

bool is_path(const std::string& name) {
  return name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".json");
}

void verify_hardware(State& state, const Json& j) {
  const Ctx& ctx = state.ctx;
  std::string preset;
  std::string preset_pointer = "/hardware";
  const Json* overrides = nullptr;
  if (j.is_string()) {
    preset = get_string(ctx, j, "/hardware");
  } else if (j.is_object()) {
    require_known_keys(ctx, j, "/hardware", {"preset", "overrides"});
    require_key(ctx, j, "/hardware", "preset");
    preset_pointer = "/hardware/preset";
    preset = get_string(ctx, j.at("preset"), preset_pointer);
    if (j.contains("overrides")) {
      overrides = &j.at("overrides");
      require_object(ctx, *overrides, "/hardware/overrides");
    }
  } else {
    ctx.fail("/hardware", "must be a preset name or an object {\"preset\", \"overrides\"}, got: " + show(j));
  }
  // A preset path is relative to the scenario's folder.
  if (is_path(preset) && std::filesystem::path(preset).is_relative()) {
    const auto folder = std::filesystem::path(ctx.file).parent_path();
    if (!folder.empty()) preset = (folder / preset).string();
  }
  try {
    if (overrides != nullptr) {
      const nlohmann::json plain = nlohmann::json::parse(overrides->dump());
      state.spec.hardware = load_hardware_preset_full(preset, &plain, ctx.at("/hardware/overrides"));
    } else {
      state.spec.hardware = load_hardware_preset_full(preset);
    }
  } catch (const InputError& e) {
    if (e.where() == "hardware") ctx.fail(preset_pointer, e.message());  // unknown preset name
    if (e.where() == preset && e.message() == "cannot open file")
      ctx.fail(preset_pointer, "cannot open the preset file, got: \"" + preset + "\"");
    throw;
  }
}

void verify_slice(State& state, const Json& j) {
  const Ctx& ctx = state.ctx;
  require_object(ctx, j, "/slice");
  require_known_keys(ctx, j, "/slice", {"shape", "wraparound"});
  require_key(ctx, j, "/slice", "shape");
  const Json& shape = j.at("shape");
  if (!shape.is_array() || shape.empty() || shape.size() > 3)
    ctx.fail("/slice/shape", "must be an array of 1 to 3 chip counts, got: " + show(shape));
  Shape dims;
  std::int64_t chips = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dims.push_back(get_int(ctx, shape[i], child("/slice/shape", i), 1, kMaxChips));
    chips *= dims.back();
    if (chips > kMaxChips)
      ctx.fail("/slice/shape", "a slice has at most " + std::to_string(kMaxChips) + " chips, got: " + show(shape));
  }
  const HardwareSpec& hw = state.spec.hardware.spec;
  std::string rule = "auto";
  std::vector<bool> wrap;
  const std::string p = "/slice/wraparound";
  if (j.contains("wraparound")) {
    const Json& w = j.at("wraparound");
    if (w.is_string()) {
      rule = kWrapModeNames.name(get_enum(ctx, w, p, kWrapModeNames));
    } else if (w.is_array()) {
      if (w.size() != dims.size())
        ctx.fail(p, "must have one entry per slice dim (" + std::to_string(dims.size()) + "), got: " + show(w));
      rule.clear();
      for (std::size_t i = 0; i < w.size(); ++i)
        wrap.push_back(get_bool(ctx, w[i], child(p, i)));
    } else {
      ctx.fail(p, "must be \"auto\", \"none\", \"all\" or an array of booleans, got: " + show(w));
    }
  }
  if (rule == "none") wrap.assign(dims.size(), false);
  if (rule == "all") wrap = wraparound_for(WrapRule::always, dims, hw.pod_shape);
  if (rule == "auto") {
    try {
      wrap = wraparound_for(hw.wrap_rule, dims, hw.pod_shape);
    } catch (const Error& e) {
      ctx.fail(j.contains("wraparound") ? p : "/slice",
               std::string(e.what()) + " (give \"wraparound\" as \"none\", \"all\" or one boolean per dim)");
    }
  }
  try {
    const Slice slice(dims, wrap);
    state.spec.slice_shape = slice.shape();
    state.spec.wraparound = slice.wraparound();
  } catch (const Error& e) {
    ctx.fail("/slice", e);
  }
}

// The mesh as a spec string (`X=4,Y=4`) or an object with axes and optional dims and device_ids.
void verify_mesh_section(State& state, const Json* j) {
  const Ctx& ctx = state.ctx;
  ScenarioMesh& mesh = state.spec.mesh;
  const Shape& slice_shape = state.spec.slice_shape;
  std::vector<std::optional<std::vector<int>>> dims;
  if (j == nullptr) {
    // Default: one axis per slice dim, X, Y, Z.
    std::vector<MeshAxis> axes;
    for (std::size_t d = 0; d < slice_shape.size(); ++d)
      axes.push_back({std::string(1, static_cast<char>('X' + d)), slice_shape[d]});
    mesh.name = std::string(kDefaultMeshName);
    mesh.mesh = make_mesh(axes);
    dims.resize(axes.size());
  } else if (j->is_string()) {
    mesh.text = get_string(ctx, *j, "/mesh");
    try {
      NamedMesh named = parse_mesh_spec(mesh.text);
      mesh.name = named.name;
      mesh.mesh = std::move(named.mesh);
    } catch (const Error& e) {
      ctx.fail("/mesh", e);
    }
    dims.resize(mesh.mesh.axes.size());
  } else if (j->is_object()) {
    require_known_keys(ctx, *j, "/mesh", {"name", "axes", "device_ids"});
    require_key(ctx, *j, "/mesh", "axes");
    mesh.name = std::string(kDefaultMeshName);
    if (j->contains("name")) {
      mesh.name = get_string(ctx, j->at("name"), "/mesh/name");
      if (!is_op_name(mesh.name))
        ctx.fail("/mesh/name", "must be an identifier [A-Za-z_][A-Za-z0-9_.-]*, got: " + show(j->at("name")));
    }
    const Json& axes_j = j->at("axes");
    if (!axes_j.is_array() || axes_j.empty()) ctx.fail("/mesh/axes", "must be a non-empty array, got: " + show(axes_j));
    std::vector<MeshAxis> axes;
    for (std::size_t i = 0; i < axes_j.size(); ++i) {
      const std::string p = child("/mesh/axes", i);
      const Json& a = axes_j[i];
      require_object(ctx, a, p);
      require_known_keys(ctx, a, p, {"name", "size", "dims"});
      require_key(ctx, a, p, "name");
      require_key(ctx, a, p, "size");
      axes.push_back({get_string(ctx, a.at("name"), p + "/name"), get_int(ctx, a.at("size"), p + "/size", 1)});
      std::optional<std::vector<int>> axis_dims;
      if (a.contains("dims")) {
        const Json& d = a.at("dims");
        require_array(ctx, d, p + "/dims");
        axis_dims.emplace();
        for (std::size_t k = 0; k < d.size(); ++k)
          axis_dims->push_back(static_cast<int>(get_int(ctx, d[k], child(p + "/dims", k), 0, 1000)));
      }
      dims.push_back(axis_dims);
    }
    std::vector<std::int64_t> ids;
    if (j->contains("device_ids")) {
      const Json& d = j->at("device_ids");
      require_array(ctx, d, "/mesh/device_ids");
      for (std::size_t k = 0; k < d.size(); ++k)
        ids.push_back(get_int(ctx, d[k], child("/mesh/device_ids", k), 0));
    }
    mesh.mesh = make_mesh(std::move(axes), std::move(ids));
    try {
      verify_mesh(mesh.mesh);
    } catch (const Error& e) {
      ctx.fail("/mesh", e);
    }
  } else {
    ctx.fail("/mesh", "must be a mesh spec string or an object {\"axes\", ...}, got: " + show(*j));
  }
  // Axes without dims take the default: axis i covers slice dim i (none past the slice's rank).
  mesh.axis_dims.clear();
  for (std::size_t i = 0; i < dims.size(); ++i)
    mesh.axis_dims.push_back(dims[i]                  ? *dims[i]
                             : i < slice_shape.size() ? std::vector<int>{static_cast<int>(i)}
                                                      : std::vector<int>{});
  try {
    const Slice slice(state.spec.slice_shape, state.spec.wraparound);
    const MeshMapping mapping(mesh.mesh, slice, mesh.axis_dims);
    state.meshes.add(mesh.name, mesh.mesh);
  } catch (const Error& e) {
    ctx.fail("/mesh", e);
  }
}

void verify_tensors(State& state, const Json& j) {
  const Ctx& ctx = state.ctx;
  require_object(ctx, j, "/tensors");
  for (const auto& [name, t] : j.items()) {
    const std::string p = child("/tensors", name);
    if (!is_tensor_name(name))
      ctx.fail(p, "tensor names are identifiers [A-Za-z_][A-Za-z0-9_]*, got: \"" + name + "\"");
    require_object(ctx, t, p);
    require_known_keys(ctx, t, p, {"shape", "dtype", "sharding"});
    require_key(ctx, t, p, "shape");
    ScenarioTensor tensor;
    tensor.name = name;
    tensor.pointer = p;
    const Json& shape = t.at("shape");
    require_array(ctx, shape, p + "/shape");
    for (std::size_t i = 0; i < shape.size(); ++i)
      tensor.shape.push_back(get_int(ctx, shape[i], child(p + "/shape", i), 1));
    tensor.dtype = state.spec.dtype;
    if (t.contains("dtype")) {
      const auto text = get_string(ctx, t.at("dtype"), p + "/dtype");
      try {
        tensor.dtype = parse_dtype(text);
      } catch (const Error& e) {
        ctx.fail(p + "/dtype", e);
      }
    }
    try {
      dtype_bytes(tensor.dtype, element_count(tensor.shape));
    } catch (const Error& e) {
      ctx.fail(p + "/shape", e);
    }
    tensor.sharding = t.contains("sharding")
                          ? verify_sharding_text(state, t.at("sharding"), p + "/sharding", name, tensor.shape.size())
                          : replicated_sharding(state, tensor.shape.size(), p + "/sharding");
    state.tensors[name] = {tensor.shape, tensor.dtype, true};
    state.spec.tensors.push_back(std::move(tensor));
  }
}

void verify_options(State& state, const Json& j) {
  const Ctx& ctx = state.ctx;
  require_object(ctx, j, "/options");
  require_known_keys(ctx, j, "/options", {"algorithm", "multi_axis", "schedule", "verify_values"});
  ScenarioOptions& options = state.spec.options;
  if (j.contains("algorithm")) {
    const auto text = get_string(ctx, j.at("algorithm"), "/options/algorithm");
    try {
      options.algorithm = parse_algorithm(text);
    } catch (const Error& e) {
      ctx.fail("/options/algorithm", e);
    }
  }
  if (j.contains("multi_axis")) {
    options.multi_axis = get_enum(ctx, j.at("multi_axis"), "/options/multi_axis", kMultiAxisNames);
  }
  if (j.contains("schedule")) {
    const auto text = get_string(ctx, j.at("schedule"), "/options/schedule");
    try {
      options.schedule = parse_schedule_policy(text);
    } catch (const Error& e) {
      ctx.fail("/options/schedule", e);
    }
  }
  if (j.contains("verify_values"))
    options.verify_values = get_bool(ctx, j.at("verify_values"), "/options/verify_values");
}

ScenarioSpec load_document(const Json& doc, const std::string& where) {
  State state{Ctx{where}, {}, {}, {}};
  const Ctx& ctx = state.ctx;
  ScenarioSpec& spec = state.spec;
  spec.source_file = where;
  require_object(ctx, doc, "");
  require_known_keys(ctx, doc, "",
                     {"name", "description", "hardware", "slice", "mesh", "dtype", "tensors", "program", "plans",
                      "options", "expect"});
  for (const char* key : {"name", "hardware", "slice"})
    require_key(ctx, doc, "", key);
  spec.name = get_string(ctx, doc.at("name"), "/name");
  if (doc.contains("description")) spec.description = get_string(ctx, doc.at("description"), "/description", false);
  verify_hardware(state, doc.at("hardware"));
  verify_slice(state, doc.at("slice"));
  verify_mesh_section(state, doc.contains("mesh") ? &doc.at("mesh") : nullptr);
  if (doc.contains("dtype")) {
    const auto text = get_string(ctx, doc.at("dtype"), "/dtype");
    try {
      spec.dtype = parse_dtype(text);
    } catch (const Error& e) {
      ctx.fail("/dtype", e);
    }
  }
  if (doc.contains("tensors")) verify_tensors(state, doc.at("tensors"));
  if (doc.contains("program")) verify_program(state, doc.at("program"));
  if (doc.contains("plans")) verify_plans(state, doc.at("plans"));
  if (doc.contains("options")) verify_options(state, doc.at("options"));
  if (doc.contains("expect")) verify_expect(state, doc.at("expect"));
  return std::move(state.spec);
}

}  // namespace
}  // namespace scenario_detail

ScenarioSpec load_scenario_text(const std::string& text, const std::string& where) {
  const scenario_detail::Ctx ctx{where};
  const auto doc = scenario_detail::parse_text(text, ctx);
  return scenario_detail::load_document(doc, where);
}

ScenarioSpec load_scenario(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw InputError(path, "is a folder, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return load_scenario_text(text.str(), path);
}

}  // namespace podsim
