// Hardware preset builder: verified figures -> HardwareSpec, the typed models the simulation reads.
#include <cstdint>
#include <string>

#include "models/common/dtype.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim {
namespace {

const NamedFigure* find_figure(const HardwarePreset& preset, const std::string& key) {
  for (const auto& f : preset.figures)
    if (f.key == key) return &f;
  return nullptr;
}

double figure_or(const HardwarePreset& preset, const std::string& key, double fallback) {
  const auto* f = find_figure(preset, key);
  return f ? f->figure.value : fallback;
}

}  // namespace

void build_hardware_spec(HardwarePreset& preset) {
  HardwareSpec& spec = preset.spec;
  spec.name = preset.name;
  ChipModel& chip = spec.chip;
  chip.name = preset.name;
  chip.tensorcores = static_cast<int>(figure_or(preset, "chip.tensorcores", 0));
  chip.mxu_rows = static_cast<int>(figure_or(preset, "chip.mxu_rows", 0));
  chip.mxu_cols = static_cast<int>(figure_or(preset, "chip.mxu_cols", 0));
  chip.mxus_per_core = static_cast<int>(figure_or(preset, "chip.mxus_per_core", 0));
  chip.mxu_clock_Hz = figure_or(preset, "chip.mxu_clock_Hz", 0);
  chip.vmem_bytes_per_core = static_cast<std::uint64_t>(figure_or(preset, "chip.vmem_bytes_per_core", 0));
  chip.hbm_bytes = static_cast<std::uint64_t>(figure_or(preset, "chip.hbm_bytes", 0));
  chip.hbm_bandwidth_Bps = figure_or(preset, "chip.hbm_bandwidth_Bps", 0);
  chip.power_W = figure_or(preset, "chip.power_W", 0);
  chip.peak_flops_by_dtype.clear();
  const std::string peak_prefix = "chip.peak_flops.";
  for (const auto& f : preset.figures)
    if (f.key.rfind(peak_prefix, 0) == 0)
      chip.peak_flops_by_dtype[parse_dtype(f.key.substr(peak_prefix.size()))] = f.figure.value;
  IciModel& ici = spec.ici;
  ici.links_per_chip = static_cast<int>(figure_or(preset, "ici.links_per_chip", 0));
  ici.bandwidth_Bps = figure_or(preset, "ici.bandwidth_Bps", 0);
  ici.bandwidth_raw_Bps = figure_or(preset, "ici.bandwidth_raw_Bps", ici.bandwidth_Bps);
  ici.bandwidth_effective_Bps = figure_or(preset, "ici.bandwidth_effective_Bps", ici.bandwidth_Bps);
  ici.hop_latency_s = figure_or(preset, "ici.hop_latency_s", 0);
  spec.wrap_rule = parse_wrap_rule(preset.wrap_rule_name);
  spec.dcn_bandwidth_Bps = figure_or(preset, "dcn.bandwidth_Bps", 0);
  spec.dcn_latency_s = figure_or(preset, "dcn.latency_s", 0);
  spec.chips_per_host = static_cast<std::int64_t>(figure_or(preset, "dcn.chips_per_host", 0));
  spec.host_offload_Bps = figure_or(preset, "host.offload_Bps", 0);
}

}  // namespace podsim
