// Text and JSON for `podsim hardware`. Derived figures come from models/hardware, never recomputed here.
#include "sim/report/hardware_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "models/hardware/roofline.hpp"
#include "sim/report/run_report.hpp"

namespace podsim {
namespace {

using nlohmann::json;

struct Derived {
  std::string key;
  std::string label;
  double value;
  std::string unit;    // "FLOP/s", "FLOP/B", "B/s", "B"
  std::string beside;  // shown after the value in the table
};

std::vector<Derived> derived_figures(const HardwarePreset& preset) {
  const auto& spec = preset.spec;
  const auto& chip = spec.chip;
  std::vector<Derived> out;
  if (chip.has_mxu() && chip.tensorcores > 0 && chip.mxus_per_core > 0 && chip.mxu_clock_Hz > 0)
    out.push_back({"mxu_peak_flops",
                   fmt::format("MXU peak ({} TensorCores x {} MXUs x {}x{} x 2 x {})", chip.tensorcores,
                               chip.mxus_per_core, chip.mxu_rows, chip.mxu_cols, format_frequency(chip.mxu_clock_Hz)),
                   chip.mxu_peak_flops(), "FLOP/s", ""});
  if (!out.empty() && chip.peak_flops_by_dtype.count(DType::bf16) != 0) {
    const double preset_peak = chip.peak_flops(DType::bf16);
    out.back().beside = fmt::format("(preset bf16 peak {}, ratio {})", format_rate(preset_peak),
                                    format_number(out.back().value / preset_peak));
  }
  if (chip.peak_flops_by_dtype.count(DType::bf16) != 0 && chip.hbm_bandwidth_Bps > 0)
    out.push_back({"hbm_critical_intensity_bf16", "HBM critical intensity (bf16 peak / HBM bandwidth)",
                   chip.hbm_critical_intensity(DType::bf16), "FLOP/B", ""});
  if (spec.ici.present()) {
    if (chip.peak_flops_by_dtype.count(DType::bf16) != 0)
      out.push_back({"ici_critical_intensity_bf16", "ICI critical intensity C / W_ici (one axis, W_ici = 2 W)",
                     ici_critical_intensity(chip, spec.ici, 1), "FLOP/B", ""});
    out.push_back({"ici_bandwidth_per_chip_Bps", "ICI out of one chip, one direction (links x W)",
                   spec.ici.links_per_chip * spec.ici.bandwidth_Bps, "B/s", ""});
    out.push_back({"latency_bound_bytes", "latency-bound below W x hop latency",
                   spec.ici.bandwidth_Bps * spec.ici.hop_latency_s, "B", ""});
  }
  return out;
}

std::string derived_value(const Derived& d) {
  if (d.unit == "FLOP/B") return format_number(d.value) + " FLOP/B";

  return format_figure_value(d.value, d.unit);
}

json figure_json(const NamedFigure& f) {
  json alts = json::array();
  for (const auto& a : f.figure.alternatives) {
    json alt = {{"value", a.value}, {"source", a.source}};
    if (!a.note.empty()) alt["note"] = a.note;
    alts.push_back(alt);
  }
  json out = {{"key", f.key}, {"value", f.figure.value}, {"unit", f.figure.unit}, {"source", f.figure.source}};
  if (!f.figure.note.empty()) out["note"] = f.figure.note;
  out["alternatives"] = alts;
  return out;
}

// A curve's `at` in its own unit: bytes of one message (link), FLOPs of one matmul (MXU), bytes one step moves in
// HBM (HBM) or keys per query (attention).
bool curve_in_bytes(const std::string& key) {
  return key == "link_efficiency" || key == "hbm_efficiency";
}

bool curve_in_tokens(const std::string& key) {
  return key.rfind("attention_", 0) == 0;
}

std::string curve_at_unit(const std::string& key) {
  return curve_in_bytes(key) ? "B" : curve_in_tokens(key) ? "tokens" : "FLOP";
}

std::string curve_at_text(const std::string& key, double at) {
  return curve_in_bytes(key) ? format_bytes(at) : format_number(at) + " " + curve_at_unit(key);
}

const std::vector<EfficiencyPoint>& curve_points(const Calibration& calibration, const std::string& key) {
  return calibration_curve(calibration, key);
}

// The widths of a figure table's first three columns (key, value, source).
struct FigureColumns {
  std::size_t key, value, source;
};

// One row of a figure table: key, value and source padded to their columns, then the note; no trailing blanks.
std::string figure_row(const FigureColumns& width, const std::string& key, const std::string& value,
                       const std::string& source, const std::string& note) {
  std::string line =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {}", key, width.key, value, width.value, source, width.source, note);
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  return line + "\n";
}

// The calibration section: each figure with its source, each curve with its points and the range it was fitted
// over (held flat beyond it). Empty when the preset has no calibration.
std::string calibration_text(const HardwarePreset& preset) {
  if (!preset.spec.calibration) return "";
  const Calibration& calibration = *preset.spec.calibration;
  std::string out = "\ncalibration (the des applies it; --uncalibrated drops it)\n";
  std::size_t key_width = 6, value_width = 5, source_width = 6;
  for (const auto& f : preset.calibration_figures) {
    key_width = std::max(key_width, f.key.size());
    value_width = std::max(value_width, format_figure_value(f.figure.value, f.figure.unit).size());
    source_width = std::max(source_width, f.figure.source.size());
  }
  for (const auto& c : preset.calibration_curves) {
    key_width = std::max(key_width, c.key.size());
    source_width = std::max(source_width, c.source.size());
  }
  const auto row = [&](const std::string& key, const std::string& value, const std::string& source,
                       const std::string& note) {
    return figure_row({key_width, value_width, source_width}, key, value, source, note);
  };
  out += row("figure", "value", "source", "note");
  for (const auto& f : preset.calibration_figures)
    out += row(f.key, format_figure_value(f.figure.value, f.figure.unit), f.figure.source, f.figure.note);
  for (const auto& c : preset.calibration_curves) {
    const auto& points = curve_points(calibration, c.key);
    out += row(c.key, "curve", c.source, c.note);
    out += fmt::format("  holds over {}..{} ({} point{}; flat beyond)\n", curve_at_text(c.key, points.front().at),
                       curve_at_text(c.key, points.back().at), points.size(), points.size() == 1 ? "" : "s");
    for (const auto& p : points)
      out += fmt::format("  at {}  efficiency {}\n", curve_at_text(c.key, p.at), format_number(p.efficiency));
  }
  return out;
}

json calibration_json(const HardwarePreset& preset) {
  if (!preset.spec.calibration) return nullptr;
  const Calibration& calibration = *preset.spec.calibration;
  json figures = json::array();
  for (const auto& f : preset.calibration_figures)
    figures.push_back(figure_json(f));
  json curves = json::array();
  for (const auto& c : preset.calibration_curves) {
    const auto& points = curve_points(calibration, c.key);
    json list = json::array();
    for (const auto& p : points)
      list.push_back({{"at", p.at}, {"efficiency", p.efficiency}});
    json curve = {{"key", c.key},
                  {"at_unit", curve_at_unit(c.key)},
                  {"points", list},
                  {"range", {{"from", points.front().at}, {"to", points.back().at}}},
                  {"source", c.source}};
    if (!c.note.empty()) curve["note"] = c.note;
    curves.push_back(curve);
  }
  return {{"source", calibration.source}, {"figures", figures}, {"curves", curves}};
}

}  // namespace

std::vector<PresetSummary> summarize_hardware_presets(const std::string& config_dir) {
  std::vector<PresetSummary> out;
  for (const auto& name : list_hardware_presets(config_dir)) {
    try {
      out.push_back({name, load_hardware_preset_full(name, nullptr, "", config_dir).description});
    } catch (const Error& e) {
      out.push_back({name, std::string("invalid: ") + e.what()});
    }
  }
  return out;
}

std::string format_hardware_list(const std::vector<PresetSummary>& presets) {
  std::size_t width = 4;
  for (const auto& p : presets)
    width = std::max(width, p.name.size());
  std::string out = fmt::format("{:<{}}  {}\n", "name", width, "description");
  for (const auto& p : presets)
    out += fmt::format("{:<{}}  {}\n", p.name, width, p.description);
  return out;
}

json hardware_list_json(const std::vector<PresetSummary>& presets) {
  json list = json::array();
  for (const auto& p : presets)
    list.push_back({{"name", p.name}, {"description", p.description}});
  return {{"schema", "podsim/1"}, {"command", "hardware"}, {"presets", list}};
}

std::string format_figure_value(double value, const std::string& unit) {
  if (unit == "B") {
    // Binary units; a capacity the vendor gives in decimal units also shows that way ("14.9 GiB (16 GB)").
    const std::string binary = format_bytes(value);
    if (value < 1024 || binary.find('.') == std::string::npos) return binary;
    std::string decimal = format_bandwidth(value);
    return binary + " (" + decimal.substr(0, decimal.size() - 2) + ")";
  }
  if (unit == "B/s") return format_bandwidth(value);
  if (unit == "s") return format_seconds(value);
  if (unit == "FLOP/s") return format_rate(value);
  if (unit == "Hz") return format_frequency(value);
  return format_number(value);
}

std::string format_hardware_preset(const HardwarePreset& preset) {
  std::string out = fmt::format("{}: {}\nfile: {}\n\n", preset.name, preset.description, preset.path);
  std::size_t key_width = 16, value_width = 5, source_width = 6;
  for (const auto& f : preset.figures) {
    key_width = std::max(key_width, f.key.size());
    value_width = std::max(value_width, format_figure_value(f.figure.value, f.figure.unit).size());
    source_width = std::max(source_width, f.figure.source.size());
    for (const auto& a : f.figure.alternatives) {
      value_width = std::max(value_width, format_figure_value(a.value, f.figure.unit).size());
      source_width = std::max(source_width, a.source.size());
    }
  }
  const auto row = [&](const std::string& key, const std::string& value, const std::string& source,
                       const std::string& note) {
    return figure_row({key_width, value_width, source_width}, key, value, source, note);
  };
  out += row("figure", "value", "source", "note");
  for (const auto& f : preset.figures) {
    out += row(f.key, format_figure_value(f.figure.value, f.figure.unit), f.figure.source, f.figure.note);
    for (const auto& a : f.figure.alternatives)
      out += row("  alternative", format_figure_value(a.value, f.figure.unit), a.source, a.note);
  }
  if (preset.spec.ici.present() || !preset.spec.pod_shape.empty()) {
    out += row("slice.wraparound_rule", preset.wrap_rule_name, "", preset.slice_note);
    out += row("slice.pod_shape", report::shape_text(preset.spec.pod_shape), "", "");
  }
  const auto derived = derived_figures(preset);
  if (!derived.empty()) {
    out += "\nderived\n";
    std::size_t label_width = 0;
    for (const auto& d : derived)
      label_width = std::max(label_width, d.label.size());
    for (const auto& d : derived) {
      std::string line = fmt::format("{:<{}}  {}  {}", d.label, label_width, derived_value(d), d.beside);
      while (!line.empty() && line.back() == ' ')
        line.pop_back();
      out += line + "\n";
    }
  }
  out += calibration_text(preset);
  if (!preset.sources.empty()) {
    out += "\nsources\n";
    std::size_t tag_width = 0;
    for (const auto& [tag, text] : preset.sources)
      tag_width = std::max(tag_width, tag.size());
    for (const auto& [tag, text] : preset.sources)
      out += fmt::format("{:<{}}  {}\n", tag, tag_width, text);
  }
  return out;
}

json hardware_preset_json(const HardwarePreset& preset) {
  json figures = json::array();
  for (const auto& f : preset.figures)
    figures.push_back(figure_json(f));
  json derived = json::object();
  for (const auto& d : derived_figures(preset))
    derived[d.key] = d.value;
  json sources = json::object();
  for (const auto& [tag, text] : preset.sources)
    sources[tag] = text;
  json preset_json = {{"name", preset.name},
                      {"description", preset.description},
                      {"path", preset.path},
                      {"figures", figures},
                      {"slice", {{"wraparound_rule", preset.wrap_rule_name}, {"pod_shape", preset.spec.pod_shape}}},
                      {"derived", derived},
                      {"sources", sources},
                      {"calibration", calibration_json(preset)}};
  return {{"schema", "podsim/1"}, {"command", "hardware"}, {"preset", preset_json}};
}

}  // namespace podsim
