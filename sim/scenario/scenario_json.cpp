// Scenario loader, first half: the file's text to JSON (syntax errors with line and column, duplicate keys),
// then the top-level object and the sections before the program read into a ScenarioSpec: hardware (the preset
// loaded), slice, mesh, dtype, tensors and options. The program, plans and expectations are read in
// scenario_json_ops.cpp and scenario_json_expect.cpp; the spec's rules are then checked by verified()
// (scenario_verify.hpp), the same verifier a spec built in code goes through.
#include "sim/scenario/scenario_json.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "models/common/nearest_name.hpp"
#include "models/common/units.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/scenario/scenario_json_detail.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim {
namespace scenario_detail {
namespace {

// A preset by name or path (relative to the scenario's folder), with optional overrides, named at `pointer`.
HardwarePreset read_hardware_preset_with(const Ctx& ctx, std::string preset, const std::string& pointer,
                                         const nlohmann::json* overrides) {
  if (is_preset_path(preset)) preset = ctx.beside(preset);
  try {
    if (overrides == nullptr) return load_hardware_preset_full(preset);
    return load_hardware_preset_full(preset, overrides, ctx.at("/hardware/overrides"));
  } catch (const PresetNotFoundError& e) {
    if (e.is_name()) ctx.fail(pointer, e.message() + did_you_mean(preset, list_hardware_presets()));
    ctx.fail(pointer, "cannot open the preset file, got: " + quote(preset));
  }
}

}  // namespace

HardwarePreset read_hardware_preset(const Ctx& ctx, std::string preset, const std::string& pointer) {
  return read_hardware_preset_with(ctx, std::move(preset), pointer, nullptr);
}

namespace {

// Records the first duplicate key (nlohmann keeps the last silently) with its JSON pointer: a SAX pass over text
// that parses, building nothing. (nlohmann's parser with a callback would do it in the same pass, but it scans the
// parent container after every element it ends, which makes a program of N ops take N^2 steps.)
class DuplicateKeyFinder : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return element_done(); }
  bool boolean(bool /*value*/) override { return element_done(); }
  bool number_integer(number_integer_t /*value*/) override { return element_done(); }
  bool number_unsigned(number_unsigned_t /*value*/) override { return element_done(); }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return element_done(); }
  bool string(string_t& /*value*/) override { return element_done(); }
  bool binary(binary_t& /*value*/) override { return element_done(); }
  bool start_object(std::size_t /*elements*/) override {
    frames_.push_back({true, {}, 0, {}});
    return true;
  }
  bool key(string_t& key) override {
    auto& top = frames_.back();
    top.key = key;
    if (!duplicate_ && !top.seen.insert(top.key).second) duplicate_ = pointer() + "/" + escape_key(top.key);
    return true;
  }
  bool end_object() override { return end_container(); }
  bool start_array(std::size_t /*elements*/) override {
    frames_.push_back({false, {}, 0, {}});
    return true;
  }
  bool end_array() override { return end_container(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool object;
    std::string key;
    std::size_t index;
    std::set<std::string> seen;
  };
  bool element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }
  bool end_container() {
    frames_.pop_back();
    return element_done();
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
  check_json_text(text, ctx.file);
  DuplicateKeyFinder finder;
  Json doc;
  try {
    doc = Json::parse(text);
    Json::sax_parse(text, &finder);
  } catch (const Json::parse_error& e) {
    // e.byte is the 1-based offset of the character that failed; turn it into line and column.
    std::string detail = json_exception_message(e.what());
    if (detail.rfind("parse error at line", 0) == 0)
      if (const auto p = detail.find(": "); p != std::string::npos) detail = detail.substr(p + 2);
    throw InputError(ctx.file, text_position(text, e.byte == 0 ? 0 : e.byte - 1) + ": invalid JSON: " + detail,
                     InputError::Stage::parse);
  }
  if (finder.duplicate()) {
    const auto& p = *finder.duplicate();
    ctx.fail(p, "duplicate key, got: \"" + p.substr(p.rfind('/') + 1) + "\"");
  }
  return doc;
}

HardwarePreset read_hardware(const Ctx& ctx, const Json& j) {
  if (j.is_string()) return read_hardware_preset(ctx, get_string(ctx, j, "/hardware"), "/hardware");
  if (!j.is_object())
    ctx.fail("/hardware", "must be a preset name or an object {\"preset\", \"overrides\"}, got: " + shown(j));
  require_known_keys(ctx, j, "/hardware", {"preset", "overrides", "calibrated"});
  require_key(ctx, j, "/hardware", "preset");
  const std::string preset = get_string(ctx, j.at("preset"), "/hardware/preset");
  // "calibrated": false runs the des without the preset's calibration (docs/hardware-model.md, "Calibration").
  bool calibrated = true;
  if (j.contains("calibrated")) {
    if (!j.at("calibrated").is_boolean())
      ctx.fail("/hardware/calibrated", "must be true or false, got: " + shown(j.at("calibrated")));
    calibrated = j.at("calibrated").get<bool>();
  }
  HardwarePreset loaded;
  if (!j.contains("overrides")) {
    loaded = read_hardware_preset(ctx, preset, "/hardware/preset");
  } else {
    const Json& overrides = j.at("overrides");
    require_object(ctx, overrides, "/hardware/overrides");
    const nlohmann::json plain = nlohmann::json::parse(overrides.dump());
    loaded = read_hardware_preset_with(ctx, preset, "/hardware/preset", &plain);
  }
  if (!calibrated) {
    loaded.calibration_set_aside = std::move(loaded.spec.calibration);
    loaded.spec.calibration.reset();
  }
  return loaded;
}

}  // namespace

// A figure as a JSON number in SI or a string with a unit (`parse` reads the string: parse_bandwidth, ...).
double get_figure(const Ctx& ctx, const Json& j, const std::string& pointer, double (*parse)(std::string_view)) {
  if (j.is_number()) return j.get<double>();
  if (!j.is_string()) ctx.fail(pointer, "must be a number or a string with a unit, got: " + shown(j));
  const auto text = j.get<std::string>();
  return located(ctx.at(pointer), [&] { return parse(text); });
}

namespace {

// Several slices over the DCN: `count` and the `dcn` overrides (docs/overlap-pipeline-dcn.md).
void read_slice_count(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  if (j.contains("count"))
    spec.slice_count = static_cast<std::int32_t>(get_int(ctx, j.at("count"), "/slice/count", 1, 65536));
  if (!j.contains("dcn")) return;
  const Json& dcn = j.at("dcn");
  require_object(ctx, dcn, "/slice/dcn");
  require_known_keys(ctx, dcn, "/slice/dcn", {"bandwidth_per_chip", "latency"});
  if (dcn.contains("bandwidth_per_chip"))
    spec.dcn_bandwidth_Bps =
        get_figure(ctx, dcn.at("bandwidth_per_chip"), "/slice/dcn/bandwidth_per_chip", &parse_bandwidth);
  if (dcn.contains("latency"))
    spec.dcn_latency_s = get_figure(ctx, dcn.at("latency"), "/slice/dcn/latency", &parse_duration);
}

// The slice's shape and its wraparound choice: a word, or one boolean per dim; its twist, failed links and chips and
// spare cubes; the slice count and DCN overrides.
void read_slice(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  require_object(ctx, j, "/slice");
  require_known_keys(ctx, j, "/slice",
                     {"shape", "wraparound", "twist", "failed_links", "failed_chips", "spare_cubes", "count", "dcn"});
  read_slice_count(ctx, j, spec);
  if (j.contains("twist")) spec.twist = get_bool(ctx, j.at("twist"), "/slice/twist");
  if (j.contains("failed_links"))
    spec.failed_links = get_string_array(ctx, j.at("failed_links"), "/slice/failed_links");
  if (j.contains("failed_chips")) {
    const std::string p = "/slice/failed_chips";
    require_array(ctx, j.at("failed_chips"), p);
    for (std::size_t i = 0; i < j.at("failed_chips").size(); ++i)
      spec.failed_chips.push_back(get_int(ctx, j.at("failed_chips")[i], child(p, i)));
  }
  if (j.contains("spare_cubes")) spec.spare_cubes = get_int(ctx, j.at("spare_cubes"), "/slice/spare_cubes");
  require_key(ctx, j, "/slice", "shape");
  const Json& shape = j.at("shape");
  require_array(ctx, shape, "/slice/shape");
  for (std::size_t i = 0; i < shape.size(); ++i)
    spec.slice_shape.push_back(get_int(ctx, shape[i], child("/slice/shape", i)));
  if (!j.contains("wraparound")) return;
  const std::string p = "/slice/wraparound";
  const Json& w = j.at("wraparound");
  if (w.is_string()) {
    spec.wrap = WrapChoice{get_enum(ctx, w, p, kWrapModeNames), {}};
  } else if (w.is_array()) {
    WrapChoice choice{WrapMode::listed, {}};
    for (std::size_t i = 0; i < w.size(); ++i)
      choice.dims.push_back(get_bool(ctx, w[i], child(p, i)));
    spec.wrap = std::move(choice);
  } else {
    ctx.fail(p, "must be " + kWrapModeNames.choices("\"") + " or an array of booleans, got: " + shown(w));
  }
}

// The mesh as a spec string (`X=4,Y=4`) or an object with axes and optional dims and device_ids.
void read_mesh(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  ScenarioMesh& mesh = spec.mesh;
  if (j.is_string()) {
    mesh.text = get_string(ctx, j, "/mesh");
    return;
  }
  if (!j.is_object()) ctx.fail("/mesh", "must be a mesh spec string or an object {\"axes\", ...}, got: " + shown(j));
  require_known_keys(ctx, j, "/mesh", {"name", "axes", "device_ids"});
  require_key(ctx, j, "/mesh", "axes");
  if (j.contains("name")) mesh.name = get_string(ctx, j.at("name"), "/mesh/name");
  const Json& axes_j = j.at("axes");
  if (!axes_j.is_array() || axes_j.empty()) ctx.fail("/mesh/axes", "must be a non-empty array, got: " + shown(axes_j));
  std::vector<MeshAxis> axes;
  std::vector<std::optional<std::vector<int>>> dims;
  for (std::size_t i = 0; i < axes_j.size(); ++i) {
    const std::string p = child("/mesh/axes", i);
    const Json& a = axes_j[i];
    require_object(ctx, a, p);
    require_known_keys(ctx, a, p, {"name", "size", "dims"});
    require_key(ctx, a, p, "name");
    require_key(ctx, a, p, "size");
    axes.push_back({get_string(ctx, a.at("name"), p + "/name"), get_int(ctx, a.at("size"), p + "/size")});
    dims.emplace_back();
    if (a.contains("dims")) {
      const Json& d = a.at("dims");
      require_array(ctx, d, p + "/dims");
      dims.back().emplace();
      for (std::size_t k = 0; k < d.size(); ++k)
        dims.back()->push_back(static_cast<int>(get_int(ctx, d[k], child(p + "/dims", k), 0, 1000)));
    }
  }
  std::vector<std::int64_t> ids;
  if (j.contains("device_ids")) {
    const Json& d = j.at("device_ids");
    require_array(ctx, d, "/mesh/device_ids");
    for (std::size_t k = 0; k < d.size(); ++k)
      ids.push_back(get_int(ctx, d[k], child("/mesh/device_ids", k), 0));
  }
  // Axes without dims take the in-order default: axis i covers slice dim i, not counting the slice axis of a
  // scenario with several slices (it covers no dim of a slice).
  const auto in_order = in_order_axis_dims(axes.size(), static_cast<int>(spec.slice_shape.size()));
  std::size_t next = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (spec.slice_count > 1 && axes[i].name == kSliceAxisName && !dims[i]) {
      mesh.axis_dims.emplace_back();
      continue;
    }
    mesh.axis_dims.push_back(dims[i] ? *dims[i] : in_order[next]);
    ++next;
  }
  mesh.mesh = make_mesh(std::move(axes), std::move(ids));
}

void read_tensors(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  require_object(ctx, j, "/tensors");
  for (const auto& [name, t] : j.items()) {
    const std::string p = child("/tensors", name);
    require_object(ctx, t, p);
    require_known_keys(ctx, t, p, {"shape", "dtype", "sharding", "view_of", "transient"});
    require_key(ctx, t, p, "shape");
    ScenarioTensor tensor;
    tensor.name = name;
    const Json& shape = t.at("shape");
    require_array(ctx, shape, p + "/shape");
    for (std::size_t i = 0; i < shape.size(); ++i)
      tensor.shape.push_back(get_int(ctx, shape[i], child(p + "/shape", i)));
    tensor.dtype = spec.dtype;
    if (t.contains("dtype")) {
      const auto text = get_string(ctx, t.at("dtype"), p + "/dtype");
      tensor.dtype = located(ctx.at(p + "/dtype"), [&] { return parse_dtype(text); });
    }
    if (t.contains("sharding")) tensor.sharding.text = get_string(ctx, t.at("sharding"), p + "/sharding");
    if (t.contains("view_of")) tensor.view_of = get_string(ctx, t.at("view_of"), p + "/view_of");
    if (t.contains("transient")) tensor.transient = get_bool(ctx, t.at("transient"), p + "/transient");
    spec.tensors.push_back(std::move(tensor));
  }
}

void read_options(const Ctx& ctx, const Json& j, ScenarioOptions& options) {
  require_object(ctx, j, "/options");
  require_known_keys(ctx, j, "/options", {"algorithm", "multi_axis", "routing", "schedule", "verify_values"});
  if (j.contains("algorithm")) {
    const auto text = get_string(ctx, j.at("algorithm"), "/options/algorithm");
    options.algorithm = located(ctx.at("/options/algorithm"), [&] { return parse_algorithm(text); });
  }
  if (j.contains("multi_axis"))
    options.multi_axis = get_enum(ctx, j.at("multi_axis"), "/options/multi_axis", kMultiAxisNames);
  if (j.contains("schedule")) {
    const auto text = get_string(ctx, j.at("schedule"), "/options/schedule");
    options.schedule = located(ctx.at("/options/schedule"), [&] { return parse_schedule_policy(text); });
  }
  if (j.contains("verify_values"))
    options.verify_values = get_bool(ctx, j.at("verify_values"), "/options/verify_values");
  if (j.contains("routing")) options.routing = get_enum(ctx, j.at("routing"), "/options/routing", kRoutePolicyNames);
}

// The document read into a spec, section by section; then the verifier.
// `source` (docs/scenario-format.md): where an imported scenario came from. Checked for shape, not simulated:
// {"file": string, "format": string, "approximations": [{"op": string, "line": int >= 0, "how": string}, ...]}.
void check_source(const Ctx& ctx, const Json& j) {
  require_object(ctx, j, "/source");
  require_known_keys(ctx, j, "/source", {"file", "format", "approximations"});
  if (j.contains("file")) get_string(ctx, j.at("file"), "/source/file", false);
  if (j.contains("format")) get_string(ctx, j.at("format"), "/source/format", false);
  if (!j.contains("approximations")) return;
  const Json& list = j.at("approximations");
  if (!list.is_array()) ctx.fail("/source/approximations", "expected an array, got: " + list.dump());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/source/approximations/" + std::to_string(i);
    require_object(ctx, list[i], p);
    require_known_keys(ctx, list[i], p, {"op", "line", "how"});
    for (const char* key : {"op", "line", "how"})
      require_key(ctx, list[i], p, key);
    get_string(ctx, list[i].at("op"), p + "/op");
    get_int(ctx, list[i].at("line"), p + "/line", 0);
    get_string(ctx, list[i].at("how"), p + "/how");
  }
}

ScenarioSpec load_document(const Json& doc, const std::string& where, const std::string& folder) {
  const Ctx ctx{where, folder};
  ScenarioSpec spec;
  spec.source_file = where;
  require_object(ctx, doc, "");
  require_known_keys(ctx, doc, "", {"name",    "description", "hardware", "slice",   "mesh",
                                    "dtype",   "model",       "workload", "search",  "price_per_chip_hour",
                                    "tensors", "program",     "plans",    "options", "expect",
                                    "source",  "serving",     "slo",      "goal",    "reliability"});
  require_key(ctx, doc, "", "name");
  require_key(ctx, doc, "", "hardware");
  // A model-level scenario may name its slices in its search section instead, or, with a goal, leave them to the
  // search (each searched preset's offered shapes, docs/capacity.md "Slices chosen for a goal"); a disaggregated
  // serving one names them in its pools (serving.disaggregated), which then stand instead of the scenario's slice,
  // mesh and plans.
  const bool searched = doc.contains("model") && doc.contains("search") && doc.at("search").is_object();
  const bool searched_slices = searched && (doc.at("search").contains("slices") || doc.contains("goal"));
  const bool pools =
      doc.contains("serving") && doc.at("serving").is_object() && doc.at("serving").contains("disaggregated");
  if (pools)
    for (const char* key : {"slice", "mesh", "plans"})
      if (doc.contains(key))
        ctx.fail(std::string("/") + key,
                 "a disaggregated deployment's slices, meshes and parallelism are its pools' "
                 "(serving.disaggregated.prefill and .decode), got: " +
                     quote(key));
  if (!doc.contains("slice") && !searched_slices && !pools)
    ctx.fail("", doc.contains("model") ? "missing key \"slice\" (a model-level scenario needs \"slice\", "
                                         "\"search\": {\"slices\": [...]} or a \"goal\" with a \"search\")"
                                       : "missing key \"slice\"");
  spec.name = get_string(ctx, doc.at("name"), "/name");
  if (doc.contains("description")) spec.description = get_string(ctx, doc.at("description"), "/description", false);
  if (doc.contains("source")) check_source(ctx, doc.at("source"));
  spec.hardware = read_hardware(ctx, doc.at("hardware"));
  if (doc.contains("slice")) read_slice(ctx, doc.at("slice"), spec);
  if (doc.contains("mesh")) read_mesh(ctx, doc.at("mesh"), spec);
  if (doc.contains("dtype")) {
    const auto text = get_string(ctx, doc.at("dtype"), "/dtype");
    spec.dtype = located(ctx.at("/dtype"), [&] { return parse_dtype(text); });
  }
  if (doc.contains("model")) {
    // A model stands instead of tensors and a program, even empty ones.
    for (const char* key : {"tensors", "program"})
      if (doc.contains(key)) ctx.fail(std::string("/") + key, model_or_program_message(key));
    read_model(ctx, doc.at("model"), spec);
  }
  if (doc.contains("workload")) read_workload(ctx, doc.at("workload"), spec);
  if (doc.contains("serving")) read_serving(ctx, doc.at("serving"), spec);
  if (doc.contains("slo")) read_slo(ctx, doc.at("slo"), spec);
  if (doc.contains("search")) read_search(ctx, doc.at("search"), spec);
  if (doc.contains("price_per_chip_hour")) read_price(ctx, doc.at("price_per_chip_hour"), spec);
  if (doc.contains("goal")) read_goal(ctx, doc.at("goal"), spec);
  if (doc.contains("reliability") && !doc.contains("goal"))
    ctx.fail("/reliability", "applies to a goal's time to train: give \"goal\": {\"train_tokens\": ...}, got: no goal");
  if (doc.contains("reliability")) read_reliability(ctx, doc.at("reliability"), spec);
  if (spec.goal && !spec.reliability) spec.reliability = default_reliability();
  if (doc.contains("tensors")) read_tensors(ctx, doc.at("tensors"), spec);
  if (doc.contains("program")) read_program(ctx, doc.at("program"), spec);
  if (doc.contains("plans")) read_plans(ctx, doc.at("plans"), spec);
  if (doc.contains("options")) read_options(ctx, doc.at("options"), spec.options);
  if (doc.contains("expect")) read_expect(ctx, doc.at("expect"), spec);
  return verified(std::move(spec));
}

}  // namespace
}  // namespace scenario_detail

ScenarioSpec load_scenario_text(const std::string& text, const std::string& where, const std::string& folder) {
  const scenario_detail::Ctx ctx{where, folder};
  const auto doc = scenario_detail::parse_text(text, ctx);
  return scenario_detail::load_document(doc, where, folder);
}

ScenarioSpec load_scenario(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw InputError(path, "is a folder, not a scenario file");
  const auto text = read_json_file(path);
  if (!text) throw InputError(path, "cannot open file");
  return load_scenario_text(*text, path);
}

}  // namespace podsim
