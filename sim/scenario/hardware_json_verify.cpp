// Hardware preset verifier (docs/hardware-model.md): JSON -> figures with sources, every rule checked and every error
// located by file and JSON pointer; overrides verified on their own (so their errors point into the overrides), and
// an overlay's sections verified and merged over its base preset.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/join.hpp"
#include "models/common/units.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim {
namespace {

using nlohmann::json;

enum class FigureKind { count, bytes, bandwidth, duration, rate, frequency, fraction, power };

struct FieldSpec {
  const char* name;
  FigureKind kind;
  bool required;
};

// The schema, section by section. Figures in `chip.peak_flops` are keyed by dtype name (FigureKind::rate).
constexpr FieldSpec kChipFields[] = {
    {"tensorcores", FigureKind::count, false},
    {"mxu_rows", FigureKind::count, false},
    {"mxu_cols", FigureKind::count, false},
    {"mxus_per_core", FigureKind::count, false},
    {"mxu_clock_Hz", FigureKind::frequency, false},
    {"peak_flops", FigureKind::rate, true},
    {"vmem_bytes_per_core", FigureKind::bytes, false},
    {"hbm_bytes", FigureKind::bytes, true},
    {"hbm_bandwidth_Bps", FigureKind::bandwidth, true},
    // Watts a chip draws (docs/capacity.md, "Energy": each preset's source says whether a TDP or a measured mean,
    // and whether its host is in it).
    {"power_W", FigureKind::power, false},
};
constexpr FieldSpec kIciFields[] = {
    {"links_per_chip", FigureKind::count, true},         {"bandwidth_Bps", FigureKind::bandwidth, true},
    {"bandwidth_raw_Bps", FigureKind::bandwidth, false}, {"bandwidth_effective_Bps", FigureKind::bandwidth, false},
    {"hop_latency_s", FigureKind::duration, true},
};
constexpr FieldSpec kDcnFields[] = {
    {"bandwidth_Bps", FigureKind::bandwidth, true},
    {"latency_s", FigureKind::duration, false},
    {"chips_per_host", FigureKind::count, false},
};
// The host link (docs/hardware-model.md, "Host link"): what one chip moves to or from its host's memory per second,
// each direction.
constexpr FieldSpec kHostFields[] = {
    {"offload_Bps", FigureKind::bandwidth, true},
};

const char* unit_of(FigureKind kind) {
  switch (kind) {
    case FigureKind::count:
      return "";
    case FigureKind::bytes:
      return "B";
    case FigureKind::bandwidth:
      return "B/s";
    case FigureKind::duration:
      return "s";
    case FigureKind::rate:
      return "FLOP/s";
    case FigureKind::frequency:
      return "Hz";
    case FigureKind::fraction:
      return "";
    case FigureKind::power:
      return "W";
  }
  return "";
}

using scenario_detail::escape_key;

// Collects the location prefix: "FILE: /pointer" (or "WHERE/pointer" when WHERE already holds a pointer).
struct Locator {
  std::string where;
  std::string at(const std::string& pointer) const {
    if (where.empty()) return pointer.empty() ? "/" : pointer;
    if (where.find(": /") != std::string::npos) return where + pointer;
    return where + ": " + (pointer.empty() ? "/" : pointer);
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw InputError(at(pointer), message);
  }
};

void require_object(const Locator& loc, const json& j, const std::string& pointer) {
  if (!j.is_object()) loc.fail(pointer, "must be an object, got: " + shown(j));
}

void require_known_keys(const Locator& loc, const json& j, const std::string& pointer,
                        const std::vector<std::string>& known) {
  for (const auto& [key, value] : j.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      loc.fail(pointer + "/" + escape_key(key),
               "unknown key, got: \"" + key + "\" (expected one of " + join(known, ", ") + ")");
}

std::string require_string(const Locator& loc, const json& j, const std::string& pointer, bool non_empty) {
  if (!j.is_string()) loc.fail(pointer, "must be a string, got: " + shown(j));
  const auto text = j.get<std::string>();
  if (non_empty && text.empty()) loc.fail(pointer, "must not be empty, got: \"\"");
  return text;
}

// A figure's value in SI: a JSON number, or a string with a unit parsed by models/common/units.
double figure_value(const Locator& loc, const json& j, const std::string& pointer, FigureKind kind) {
  double value = 0;
  if (j.is_number()) {
    value = j.get<double>();
  } else if (j.is_string()) {
    const auto text = j.get<std::string>();
    try {
      switch (kind) {
        case FigureKind::count:
        case FigureKind::fraction: {
          char* end = nullptr;
          value = std::strtod(text.c_str(), &end);
          if (text.empty() || *end != '\0') loc.fail(pointer, "must be a whole number, got: " + shown(j));
          break;
        }
        case FigureKind::bytes:
          value = static_cast<double>(parse_bytes(text));
          break;
        case FigureKind::bandwidth:
          value = parse_bandwidth(text);
          break;
        case FigureKind::duration:
          value = parse_duration(text);
          break;
        case FigureKind::rate:
          value = parse_rate(text);
          break;
        case FigureKind::frequency:
          value = parse_frequency(text);
          break;
        case FigureKind::power:
          loc.fail(pointer, "must be a number of watts, got: " + shown(j));
      }
    } catch (const VerifyError& e) {
      loc.fail(pointer, e.what());
    }
  } else {
    loc.fail(pointer, std::string("must be a number or a string with a unit, got: ") + shown(j));
  }
  if (kind == FigureKind::duration) {
    if (value < 0) loc.fail(pointer, "must not be negative, got: " + shown(j));
  } else if (!(value > 0)) {
    loc.fail(pointer, "must be positive, got: " + shown(j));
  }
  if (!std::isfinite(value)) loc.fail(pointer, "must be finite, got: " + shown(j));
  if (kind == FigureKind::fraction && !(value <= 1))
    loc.fail(pointer, "an efficiency must be in (0, 1], got: " + shown(j));
  if ((kind == FigureKind::count || kind == FigureKind::bytes) && value != std::floor(value))
    loc.fail(pointer, "must be a whole number, got: " + shown(j));
  if (kind == FigureKind::count && value > 1e9) loc.fail(pointer, "must be at most 1e9, got: " + shown(j));
  if (kind == FigureKind::power && value > 1e5) loc.fail(pointer, "must be at most 1e5 W a chip, got: " + shown(j));
  if (kind == FigureKind::bytes && value >= 18446744073709551616.0)
    loc.fail(pointer, "does not fit in 64 bits, got: " + shown(j));
  return value;
}

// A figure: {"value", "source", "note"?, "alternatives"?}. With `bare_ok` (overrides) a plain value stands
// for {"value": v, "source": "override"}; the source may then be omitted too.
Figure verify_figure(const Locator& loc, const json& j, const std::string& pointer, FigureKind kind, bool bare_ok) {
  Figure figure;
  figure.unit = unit_of(kind);
  if (bare_ok && !j.is_object()) {
    figure.value = figure_value(loc, j, pointer, kind);
    figure.source = "override";
    return figure;
  }
  if (!j.is_object()) loc.fail(pointer, "must be a figure object {\"value\", \"source\", ...}, got: " + shown(j));
  require_known_keys(loc, j, pointer, {"value", "source", "note", "alternatives"});
  if (!j.contains("value")) loc.fail(pointer, "missing key \"value\"");
  figure.value = figure_value(loc, j.at("value"), pointer + "/value", kind);
  if (j.contains("source"))
    figure.source = require_string(loc, j.at("source"), pointer + "/source", true);
  else if (bare_ok)
    figure.source = "override";
  else
    loc.fail(pointer, "missing key \"source\" (every figure names its source)");
  if (j.contains("note")) figure.note = require_string(loc, j.at("note"), pointer + "/note", false);
  if (j.contains("alternatives")) {
    const auto& alts = j.at("alternatives");
    const std::string alts_pointer = pointer + "/alternatives";
    if (!alts.is_array()) loc.fail(alts_pointer, "must be an array, got: " + shown(alts));
    for (std::size_t i = 0; i < alts.size(); ++i) {
      const std::string p = alts_pointer + "/" + std::to_string(i);
      const auto& alt = alts[i];
      require_object(loc, alt, p);
      require_known_keys(loc, alt, p, {"value", "source", "note"});
      if (!alt.contains("value")) loc.fail(p, "missing key \"value\"");
      if (!alt.contains("source")) loc.fail(p, "missing key \"source\"");
      Alternative a;
      a.value = figure_value(loc, alt.at("value"), p + "/value", kind);
      a.source = require_string(loc, alt.at("source"), p + "/source", true);
      if (alt.contains("note")) a.note = require_string(loc, alt.at("note"), p + "/note", false);
      figure.alternatives.push_back(a);
    }
  }
  return figure;
}

std::vector<std::string> names_of(const FieldSpec* begin, const FieldSpec* end) {
  std::vector<std::string> names;
  for (auto* f = begin; f != end; ++f)
    names.emplace_back(f->name);
  return names;
}

// Verifies one section of figures; `partial` (overrides) skips required keys and accepts bare values.
template <std::size_t N>
void verify_section(const Locator& loc, const json& j, const std::string& section, const FieldSpec (&fields)[N],
                    bool partial, std::vector<NamedFigure>& out) {
  const std::string pointer = "/" + section;
  require_object(loc, j, pointer);
  require_known_keys(loc, j, pointer, names_of(fields, fields + N));
  for (const auto& field : fields) {
    const std::string name = field.name;
    if (!j.contains(name)) {
      if (field.required && !partial) loc.fail(pointer, "missing key \"" + name + "\"");
      continue;
    }
    const std::string p = pointer + "/" + name;
    if (section == "chip" && name == "peak_flops") {
      const auto& peaks = j.at(name);
      require_object(loc, peaks, p);
      if (peaks.empty() && !partial) loc.fail(p, "must list at least one dtype, got: {}");
      for (const auto& [key, value] : peaks.items()) {
        try {
          const DType dtype = parse_dtype(key);
          if (dtype_name(dtype) != key)
            loc.fail(p + "/" + escape_key(key), "dtype keys must be canonical names, got: \"" + key + "\" (use \"" +
                                                    std::string(dtype_name(dtype)) + "\")");
        } catch (const VerifyError& e) {
          loc.fail(p + "/" + escape_key(key), e.what());
        }
        out.push_back(
            {section + ".peak_flops." + key, verify_figure(loc, value, p + "/" + key, FigureKind::rate, partial)});
      }
      continue;
    }
    out.push_back({section + "." + name, verify_figure(loc, j.at(name), p, field.kind, partial)});
  }
}

// A slice fact with its source: {"value": V, "source": "KEY ...", "note"?: "..."}; returns V.
const json& sourced_value(const Locator& loc, const json& j, const std::string& pointer) {
  require_object(loc, j, pointer);
  require_known_keys(loc, j, pointer, {"value", "source", "note"});
  if (!j.contains("value")) loc.fail(pointer, "missing key \"value\"");
  if (!j.contains("source")) loc.fail(pointer, "missing key \"source\"");
  require_string(loc, j.at("source"), pointer + "/source", true);
  if (j.contains("note")) require_string(loc, j.at("note"), pointer + "/note", false);
  return j.at("value");
}

// `slice.twist`: {"value": bool, "source", "note"?}: whether a slice of the generation may be a twisted torus
// (docs/topology.md, "Twisted tori").
void verify_twist(const Locator& loc, const json& j, HardwarePreset& preset) {
  const json& value = sourced_value(loc, j, "/slice/twist");
  if (!value.is_boolean()) loc.fail("/slice/twist/value", "must be true or false, got: " + shown(value));
  preset.spec.twist = value.get<bool>();
}

void verify_slice(const Locator& loc, const json& j, bool partial, HardwarePreset& preset) {
  require_object(loc, j, "/slice");
  require_known_keys(loc, j, "/slice", {"wraparound_rule", "pod_shape", "pod_chips", "largest_slice", "twist", "note"});
  if (j.contains("twist")) verify_twist(loc, j.at("twist"), preset);
  if (j.contains("wraparound_rule")) {
    const auto rule = require_string(loc, j.at("wraparound_rule"), "/slice/wraparound_rule", true);
    try {
      parse_wrap_rule(rule);
    } catch (const VerifyError& e) {
      loc.fail("/slice/wraparound_rule", e.what());
    }
    preset.wrap_rule_name = rule;
  } else if (!partial) {
    loc.fail("/slice", "missing key \"wraparound_rule\"");
  }
  if (j.contains("pod_shape")) {
    const auto& shape = j.at("pod_shape");
    if (!shape.is_array() || shape.empty() || shape.size() > 3)
      loc.fail("/slice/pod_shape", "must be an array of 1 to 3 chip counts, got: " + shown(shape));
    preset.spec.pod_shape.clear();
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const auto& d = shape[i];
      if (!d.is_number_integer() || d.get<std::int64_t>() <= 0)
        loc.fail("/slice/pod_shape/" + std::to_string(i), "must be a positive integer, got: " + shown(d));
      preset.spec.pod_shape.push_back(d.get<std::int64_t>());
    }
  } else if (!partial) {
    loc.fail("/slice", "missing key \"pod_shape\"");
  }
  if (j.contains("pod_chips")) {
    const json& value = sourced_value(loc, j.at("pod_chips"), "/slice/pod_chips");
    if (!value.is_number_integer() || value.get<std::int64_t>() <= 0)
      loc.fail("/slice/pod_chips/value", "must be a positive integer, got: " + shown(value));
    preset.spec.pod_chips = value.get<std::int64_t>();
  }
  if (j.contains("largest_slice")) {
    const json& value = sourced_value(loc, j.at("largest_slice"), "/slice/largest_slice");
    if (!value.is_array() || value.size() != 3)
      loc.fail("/slice/largest_slice/value", "must be an array of 3 chip counts, got: " + shown(value));
    preset.spec.largest_slice.clear();
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!value[i].is_number_integer() || value[i].get<std::int64_t>() <= 0)
        loc.fail("/slice/largest_slice/value/" + std::to_string(i),
                 "must be a positive integer, got: " + shown(value[i]));
      preset.spec.largest_slice.push_back(value[i].get<std::int64_t>());
    }
  }
  if (j.contains("note")) preset.slice_note = require_string(loc, j.at("note"), "/slice/note", false);
}

// The calibration section (docs/hardware-model.md, "Calibration"): figures with sources, and three curves
// {"points": [{"at", "efficiency"}, ...], "source", "note"?}; hbm_efficiency may be either a figure (one number, flat
// over every size) or a curve. Fills preset.spec.calibration; its source names the figures' sources. `partial`
// (overrides) accepts bare values.
constexpr FieldSpec kCalibrationFields[] = {
    {"hop_latency_s", FigureKind::duration, false},  {"collective_step_s", FigureKind::duration, false},
    {"hbm_efficiency", FigureKind::fraction, false}, {"dcn_bandwidth_Bps", FigureKind::bandwidth, false},
    {"dcn_latency_s", FigureKind::duration, false},
};

std::vector<EfficiencyPoint> verify_curve(const Locator& loc, const json& j, const std::string& pointer,
                                          std::vector<std::string>& sources) {
  require_object(loc, j, pointer);
  require_known_keys(loc, j, pointer, {"points", "source", "note"});
  if (!j.contains("points")) loc.fail(pointer, "missing key \"points\"");
  if (!j.contains("source")) loc.fail(pointer, "missing key \"source\" (every figure names its source)");
  sources.push_back(require_string(loc, j.at("source"), pointer + "/source", true));
  if (j.contains("note")) require_string(loc, j.at("note"), pointer + "/note", false);
  const json& points = j.at("points");
  if (!points.is_array() || points.empty())
    loc.fail(pointer + "/points", "must be a non-empty array of {\"at\", \"efficiency\"}, got: " + shown(points));
  std::vector<EfficiencyPoint> curve;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string p = pointer + "/points/" + std::to_string(i);
    const json& point = points[i];
    require_object(loc, point, p);
    require_known_keys(loc, point, p, {"at", "efficiency"});
    if (!point.contains("at")) loc.fail(p, "missing key \"at\"");
    if (!point.contains("efficiency")) loc.fail(p, "missing key \"efficiency\"");
    if (!point.at("at").is_number() || !(point.at("at").get<double>() > 0))
      loc.fail(p + "/at",
               "must be a number > 0 (bytes of a message, FLOPs of a matmul), got: " + shown(point.at("at")));
    EfficiencyPoint e{point.at("at").get<double>(),
                      figure_value(loc, point.at("efficiency"), p + "/efficiency", FigureKind::fraction)};
    if (!curve.empty() && !(e.at > curve.back().at))
      loc.fail(p + "/at", "points must be in increasing order of at, got: " + shown(point.at("at")) + " after " +
                              exact_number(curve.back().at));
    curve.push_back(e);
  }
  return curve;
}

void verify_calibration_section(const Locator& loc, const json& j, bool partial, HardwarePreset& preset) {
  const std::string pointer = "/calibration";
  require_object(loc, j, pointer);
  std::vector<std::string> known = names_of(kCalibrationFields, kCalibrationFields + 5);
  known.insert(known.end(), {"link_efficiency", "mxu_efficiency", "attention_forward_efficiency",
                             "attention_backward_efficiency", "note"});
  require_known_keys(loc, j, pointer, known);
  Calibration calibration;
  std::vector<std::string> sources;
  preset.calibration_figures.clear();
  for (const auto& field : kCalibrationFields) {
    if (!j.contains(field.name)) continue;
    const std::string name = field.name;
    if (name == "hbm_efficiency" && j.at(name).is_object()) {
      if (j.at(name).contains("points")) continue;  // a curve, read below
      if (!j.at(name).contains("value"))
        loc.fail(
            pointer + "/" + name,
            "must be a figure {\"value\", \"source\"} or a curve {\"points\", \"source\"}, got: " + shown(j.at(name)));
    }
    const Figure figure = verify_figure(loc, j.at(name), pointer + "/" + name, field.kind, partial);
    sources.push_back(figure.source);
    preset.calibration_figures.push_back({name, figure});
    if (name == "hop_latency_s") calibration.hop_latency_s = figure.value;
    if (name == "collective_step_s") calibration.collective_step_s = figure.value;
    if (name == "hbm_efficiency") calibration.hbm_efficiency = {{1, figure.value}};  // one point: flat everywhere
    if (name == "dcn_bandwidth_Bps") calibration.dcn_bandwidth_Bps = figure.value;
    if (name == "dcn_latency_s") calibration.dcn_latency_s = figure.value;
  }
  preset.calibration_curves.clear();
  for (const char* key : {"link_efficiency", "mxu_efficiency", "hbm_efficiency", "attention_forward_efficiency",
                          "attention_backward_efficiency"}) {
    if (!j.contains(key)) continue;
    const json& c = j.at(key);
    const std::string name = key;
    if (name == "hbm_efficiency" && !(c.is_object() && c.contains("points"))) continue;  // a figure, read above
    auto curve = verify_curve(loc, c, pointer + "/" + name, sources);
    preset.calibration_curves.push_back(
        {name, c.at("source").get<std::string>(), c.contains("note") ? c.at("note").get<std::string>() : ""});
    calibration_curve(calibration, name) = std::move(curve);
  }
  if (j.contains("note")) require_string(loc, j.at("note"), pointer + "/note", false);
  std::vector<std::string> distinct;
  for (const auto& source : sources)
    if (std::find(distinct.begin(), distinct.end(), source) == distinct.end()) distinct.push_back(source);
  calibration.source = join(distinct, ", ");
  preset.spec.calibration = std::move(calibration);
}

// Runs `body`, turning nlohmann's own exceptions (type errors carry a JSON pointer with JSON_DIAGNOSTICS)
// into InputError located at `where`.
template <typename Body>
auto with_json_errors(const std::string& where, Body body) {
  try {
    return body();
  } catch (const json::exception& e) {
    throw input_error_from_json(where, e.what());
  }
}

HardwarePreset verify_document(const json& doc, const std::string& where, bool partial) {
  const Locator loc{where};
  HardwarePreset preset;
  require_object(loc, doc, "");
  if (partial)
    require_known_keys(loc, doc, "", {"chip", "ici", "slice", "dcn", "host", "calibration"});
  else
    require_known_keys(loc, doc, "",
                       {"name", "description", "sources", "chip", "ici", "slice", "dcn", "host", "calibration"});
  if (!partial) {
    if (!doc.contains("name")) loc.fail("", "missing key \"name\"");
    if (!doc.contains("description")) loc.fail("", "missing key \"description\"");
    if (!doc.contains("chip")) loc.fail("", "missing key \"chip\"");
    preset.name = require_string(loc, doc.at("name"), "/name", true);
    preset.description = require_string(loc, doc.at("description"), "/description", true);
    if (doc.contains("sources")) {
      require_object(loc, doc.at("sources"), "/sources");
      for (const auto& [tag, text] : doc.at("sources").items())
        preset.sources.emplace_back(tag, require_string(loc, text, "/sources/" + escape_key(tag), true));
    }
  }
  if (doc.contains("chip")) verify_section(loc, doc.at("chip"), "chip", kChipFields, partial, preset.figures);
  if (doc.contains("ici")) verify_section(loc, doc.at("ici"), "ici", kIciFields, partial, preset.figures);
  if (doc.contains("slice")) verify_slice(loc, doc.at("slice"), partial, preset);
  if (doc.contains("dcn")) verify_section(loc, doc.at("dcn"), "dcn", kDcnFields, partial, preset.figures);
  if (doc.contains("host")) verify_section(loc, doc.at("host"), "host", kHostFields, partial, preset.figures);
  if (doc.contains("calibration")) verify_calibration_section(loc, doc.at("calibration"), partial, preset);
  if (!partial) {
    if (doc.contains("ici") && !doc.contains("slice"))
      loc.fail("", "missing key \"slice\" (a chip with ICI needs one)");
    const auto& chip = doc.at("chip");
    const bool rows = chip.contains("mxu_rows"), cols = chip.contains("mxu_cols");
    if (rows != cols)
      loc.fail("/chip", "mxu_rows and mxu_cols go together, got: only " + std::string(rows ? "mxu_rows" : "mxu_cols"));
    if (preset.wrap_rule_name.empty()) preset.wrap_rule_name = "never";
  }
  return preset;
}

}  // namespace

InputError input_error_from_json(const std::string& where, const std::string& json_what) {
  std::string message = json_exception_message(json_what);
  std::string pointer;
  if (message.size() > 1 && message[0] == '(') {
    if (const auto end = message.find(") "); end != std::string::npos) {
      pointer = message.substr(1, end - 1);
      message = message.substr(end + 2);
    }
  }
  return InputError(Locator{where}.at(pointer), message);
}

HardwarePreset verify_hardware_json(const json& doc, const std::string& where) {
  return with_json_errors(where, [&] { return verify_document(doc, where, false); });
}

void verify_hardware_overrides(const json& overrides, const std::string& where) {
  with_json_errors(where.empty() ? "overrides" : where, [&] {
    verify_document(overrides, where.empty() ? "overrides" : where, true);
    return 0;
  });
}

json resolve_hardware_overlay(const json& doc, const std::string& path, const std::string& config_dir) {
  if (!doc.is_object() || !doc.contains("base")) return doc;
  const Locator loc{path};
  require_known_keys(loc, doc, "",
                     {"name", "description", "base", "sources", "chip", "ici", "slice", "dcn", "host", "calibration"});
  const std::string base = require_string(loc, doc.at("base"), "/base", true);
  std::string base_path = base;
  if (is_preset_path(base)) {
    base_path = (std::filesystem::path(path).parent_path() / base).string();
  } else {
    const auto known = list_hardware_presets(config_dir);
    if (std::find(known.begin(), known.end(), base) == known.end())
      loc.fail("/base", "unknown preset (known: " + join(known, ", ") + "), got: \"" + base + "\"");
    base_path = (std::filesystem::path(config_dir) / (base + ".json")).string();
  }
  json base_doc;
  try {
    base_doc = parse_hardware_file(base_path);
  } catch (const PresetNotFoundError&) {
    loc.fail("/base", "cannot open the base preset, got: \"" + base + "\"");
  }
  if (base_doc.is_object() && base_doc.contains("base"))
    loc.fail("/base", "a base must be a preset, not another overlay, got: \"" + base + "\"");
  verify_hardware_json(base_doc, base_path);
  json overrides = json::object();
  for (const char* section : {"chip", "ici", "slice", "dcn", "host"})
    if (doc.contains(section)) overrides[section] = doc.at(section);
  verify_hardware_overrides(overrides, path);
  json merged = merge_hardware_overrides(base_doc, overrides);
  for (const char* key : {"name", "description", "calibration"})
    if (doc.contains(key)) merged[key] = doc.at(key);
  if (doc.contains("sources")) {
    require_object(loc, doc.at("sources"), "/sources");
    for (const auto& [tag, text] : doc.at("sources").items())
      merged["sources"][tag] = text;
  }
  return merged;
}

}  // namespace podsim
