// The hardware preset loader: every shipped preset loads with the book's defaults, unit strings parse,
// overrides merge, and every rule's error names the file, the JSON pointer, the rule and the value.
#include "sim/scenario/hardware_json.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

#include "models/common/error.hpp"
#include "models/hardware/roofline.hpp"
#include "sim/report/hardware_report.hpp"

namespace podsim {
namespace {

using nlohmann::json;

const std::string kHardwareData = std::string(PODSIM_TEST_DATA_DIR) + "/data";

std::string hardware_load_error(const std::string& name_or_path, const json* overrides = nullptr,
                                const std::string& where = "") {
  try {
    load_hardware_preset_full(name_or_path, overrides, where);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const NamedFigure& figure(const HardwarePreset& preset, const std::string& key) {
  for (const auto& f : preset.figures)
    if (f.key == key) return f;
  throw std::runtime_error("no figure " + key);
}

TEST(HardwarePresets, ListsEveryGeneration) {
  EXPECT_EQ(list_hardware_presets(), (std::vector<std::string>{"h100", "h200", "tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5e",
                                                               "tpu-v5p", "tpu-v6e", "tpu7x"}));
}

TEST(HardwarePresets, EveryPresetLoadsAndEveryFigureHasASource) {
  for (const auto& name : list_hardware_presets()) {
    const auto preset = load_hardware_preset_full(name);
    EXPECT_EQ(preset.name, name);
    EXPECT_FALSE(preset.description.empty()) << name;
    EXPECT_GT(preset.spec.chip.hbm_bandwidth_Bps, 0) << name;
    EXPECT_GT(preset.spec.chip.hbm_bytes, 0u) << name;
    EXPECT_GT(preset.spec.chip.peak_flops(DType::bf16), 0) << name;
    for (const auto& f : preset.figures) {
      EXPECT_FALSE(f.figure.source.empty()) << name << " " << f.key;
      for (const auto& a : f.figure.alternatives)
        EXPECT_FALSE(a.source.empty()) << name << " " << f.key;
    }
  }
}

TEST(HardwarePresets, V5eDefaultsAreTheBooks) {
  // SCALING_BOOK_MODELS.md (a): HBM 8.2e11, bf16 1.97e14, ICI 4.5e10 one way, ~1 us per hop; 16x16 torus.
  const auto preset = load_hardware_preset_full("tpu-v5e");
  const auto& spec = preset.spec;
  EXPECT_DOUBLE_EQ(spec.chip.hbm_bandwidth_Bps, 8.2e11);
  EXPECT_DOUBLE_EQ(spec.chip.peak_flops(DType::bf16), 1.97e14);
  EXPECT_DOUBLE_EQ(spec.ici.bandwidth_Bps, 4.5e10);
  EXPECT_DOUBLE_EQ(spec.ici.bandwidth_raw_Bps, 5e10);
  EXPECT_DOUBLE_EQ(spec.ici.bandwidth_effective_Bps, 4.5e10);
  EXPECT_DOUBLE_EQ(spec.ici.hop_latency_s, 1e-6);
  EXPECT_EQ(spec.ici.links_per_chip, 4);
  EXPECT_EQ(spec.wrap_rule, WrapRule::full_pod_axis);
  EXPECT_EQ(spec.pod_shape, (std::vector<std::int64_t>{16, 16}));
  EXPECT_DOUBLE_EQ(spec.dcn_bandwidth_Bps, 3.125e9);
  EXPECT_EQ(spec.chip.hbm_bytes, 17179869184u);
  EXPECT_EQ(spec.chip.vmem_bytes_per_core, 134217728u);
  EXPECT_NEAR(spec.chip.hbm_critical_intensity(), 240.2439, 1e-4);  // 1.97e14 / 8.2e11
  // The raw vendor figure is kept as a named alternative of the figure in use.
  const auto& w = figure(preset, "ici.bandwidth_Bps");
  EXPECT_EQ(w.figure.source, "SB tpus.md");
  EXPECT_EQ(w.figure.unit, "B/s");
  ASSERT_FALSE(w.figure.alternatives.empty());
  EXPECT_DOUBLE_EQ(w.figure.alternatives[0].value, 5e10);
  EXPECT_EQ(w.figure.alternatives[0].source, "GC-v5e");
}

TEST(HardwarePresets, OtherGenerationsFollowTheBook) {
  const auto v5p = load_hardware_preset("tpu-v5p");
  EXPECT_DOUBLE_EQ(v5p.ici.bandwidth_Bps, 9e10);
  EXPECT_DOUBLE_EQ(v5p.chip.hbm_bandwidth_Bps, 2.8e12);
  EXPECT_EQ(v5p.wrap_rule, WrapRule::whole_cubes);
  EXPECT_EQ(v5p.pod_shape, (std::vector<std::int64_t>{16, 20, 28}));
  const auto v4 = load_hardware_preset("tpu-v4");
  EXPECT_EQ(v4.ici.links_per_chip, 6);
  EXPECT_DOUBLE_EQ(v4.ici.bandwidth_Bps, 4.5e10);
  const auto v6e = load_hardware_preset("tpu-v6e");
  EXPECT_EQ(v6e.chip.mxu_rows, 256);
  EXPECT_DOUBLE_EQ(v6e.dcn_bandwidth_Bps, 1.25e10);
  const auto h100 = load_hardware_preset("h100");
  EXPECT_FALSE(h100.ici.present());
  EXPECT_EQ(h100.wrap_rule, WrapRule::never);
  EXPECT_FALSE(h100.chip.has_mxu());
}

TEST(HardwarePresets, UnknownPresetListsTheKnownOnes) {
  EXPECT_EQ(hardware_load_error("tpu-v9"),
            "hardware: unknown preset \"tpu-v9\" (known: h100, h200, tpu-v2, tpu-v3, tpu-v4, tpu-v5e, tpu-v5p, "
            "tpu-v6e, tpu7x)");
}

TEST(HardwareJson, UnitStringsParseToSi) {
  const auto spec = load_hardware_preset(kHardwareData + "/good_units.json");
  EXPECT_DOUBLE_EQ(spec.chip.mxu_clock_Hz, 1.5e9);
  EXPECT_DOUBLE_EQ(spec.chip.peak_flops(DType::bf16), 1.97e14);
  EXPECT_EQ(spec.chip.vmem_bytes_per_core, 134217728u);
  EXPECT_EQ(spec.chip.hbm_bytes, 17179869184u);
  EXPECT_DOUBLE_EQ(spec.chip.hbm_bandwidth_Bps, 8.2e11);
  EXPECT_DOUBLE_EQ(spec.ici.bandwidth_Bps, 4.5e10);
  // Without raw/effective figures both default to the one in use.
  EXPECT_DOUBLE_EQ(spec.ici.bandwidth_raw_Bps, 4.5e10);
  EXPECT_DOUBLE_EQ(spec.ici.hop_latency_s, 1e-6);
  EXPECT_DOUBLE_EQ(spec.dcn_bandwidth_Bps, 0);
}

struct BadCase {
  const char* file;
  const char* error;  // after "<path>: "
};

class BadPreset : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadPreset, ErrorNamesFilePointerRuleAndValue) {
  const std::string path = kHardwareData + "/" + GetParam().file;
  EXPECT_EQ(hardware_load_error(path), path + ": " + GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    HardwareJson, BadPreset,
    ::testing::Values(
        BadCase{"bad_negative_bandwidth.json", "/ici/bandwidth_Bps/value: must be positive, got: -1"},
        BadCase{"bad_unknown_key.json",
                "/chip/hbm_size: unknown key, got: \"hbm_size\" (expected one of tensorcores, mxu_rows, mxu_cols, "
                "mxus_per_core, mxu_clock_Hz, peak_flops, vmem_bytes_per_core, hbm_bytes, hbm_bandwidth_Bps, power_W)"},
        BadCase{"bad_missing_source.json", "/chip/hbm_bytes: missing key \"source\" (every figure names its source)"},
        BadCase{"bad_unit.json",
                "/ici/bandwidth_Bps/value: bandwidth: unknown unit \"GX/s\" (expected B/s, kB/s, MB/s, GB/s, TB/s, "
                "KiB/s, MiB/s, GiB/s, TiB/s, Gbps, Gbit/s), got: 45GX/s"},
        BadCase{"bad_type.json", "/chip/tensorcores/value: must be a number or a string with a unit, got: true"},
        BadCase{"bad_wrap_rule.json",
                "/slice/wraparound_rule: unknown wraparound rule, got: torus (expected one of whole_cubes, "
                "full_pod_axis, always, never)"},
        BadCase{"bad_dtype.json",
                "/chip/peak_flops/bf17: unknown dtype, got: bf17 (expected one of f32, bf16, f16, int8, int4, "
                "fp8_e4m3, fp8_e5m2)"},
        BadCase{"bad_alternative.json", "/chip/hbm_bandwidth_Bps/alternatives/1/value: must be positive, got: 0"},
        BadCase{"bad_missing_hbm.json", "/chip: missing key \"hbm_bytes\""},
        BadCase{"bad_pod_shape.json", "/slice/pod_shape/1: must be a positive integer, got: 0"},
        BadCase{"bad_pod_chips.json", "/slice/pod_chips/value: must be a positive integer, got: -64"},
        BadCase{"bad_largest_slice.json",
                "/slice/largest_slice/value: must be an array of 3 chip counts, got: [16,16]"},
        BadCase{"bad_twist.json", "/slice/twist/value: must be true or false, got: \"yes\""},
        BadCase{"bad_name.json", "/name: must match the file name \"bad_name\", got: \"tpu-v5e\""}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      const std::string file = info.param.file;
      return file.substr(0, file.find('.'));
    });

TEST(HardwareJson, SyntaxErrorNamesFileLineAndColumn) {
  const std::string path = kHardwareData + "/bad_syntax.json";
  const std::string error = hardware_load_error(path);
  EXPECT_EQ(error.rfind(path + ": invalid JSON: parse error at line 3, column 12: syntax error", 0), 0u) << error;
}

TEST(HardwareJson, InputLimitsAreCheckedBeforeParsing) {
  const std::string path = std::filesystem::temp_directory_path() / ("podsim_hw_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << std::string(200000, '[');
  EXPECT_EQ(hardware_load_error(path), path + ": line 1, column 65: nesting deeper than 64 levels");
  std::ofstream(path) << "{\"name\": \"x\",\n \"chip\": 1e400}";
  EXPECT_EQ(hardware_load_error(path), path + ": line 2, column 10: number out of range, got: 1e400");
  std::filesystem::remove(path);
}

TEST(HardwareOverrides, TextOverridesAreCheckedBeforeParsing) {
  std::string error = "(no error)";
  try {
    load_hardware_preset_full("tpu-v5e", std::string(1000, '['), "--override");
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "--override: line 1, column 65: nesting deeper than 64 levels");
}

TEST(HardwareJson, MissingFile) {
  const std::string path = kHardwareData + "/no_such_file.json";
  EXPECT_EQ(hardware_load_error(path), path + ": cannot open file");
}

TEST(HardwareOverrides, BareValueReplacesTheFigureAndKeepsThePresetAsAlternative) {
  const json overrides = {{"ici", {{"bandwidth_Bps", 5e10}, {"hop_latency_s", "0.5us"}}}};
  const auto preset = load_hardware_preset_full("tpu-v5e", &overrides, "scenarios/a.json: /hardware/overrides");
  EXPECT_DOUBLE_EQ(preset.spec.ici.bandwidth_Bps, 5e10);
  EXPECT_DOUBLE_EQ(preset.spec.ici.hop_latency_s, 5e-7);
  const auto& w = figure(preset, "ici.bandwidth_Bps");
  EXPECT_EQ(w.figure.source, "override");
  ASSERT_FALSE(w.figure.alternatives.empty());
  EXPECT_DOUBLE_EQ(w.figure.alternatives[0].value, 4.5e10);
  EXPECT_EQ(w.figure.alternatives[0].note, "preset default");
  // Untouched figures keep the preset's values.
  EXPECT_DOUBLE_EQ(preset.spec.chip.hbm_bandwidth_Bps, 8.2e11);
}

TEST(HardwareOverrides, FigureObjectAndSliceAndNewDtype) {
  const json overrides = json::parse(R"({
    "ici": {"bandwidth_Bps": {"value": "50GB/s", "source": "vendor raw"}},
    "slice": {"wraparound_rule": "never"},
    "chip": {"peak_flops": {"f32": "65TFLOP/s"}}
  })");
  const auto preset = load_hardware_preset_full("tpu-v5e", &overrides);
  EXPECT_DOUBLE_EQ(preset.spec.ici.bandwidth_Bps, 5e10);
  EXPECT_EQ(figure(preset, "ici.bandwidth_Bps").figure.source, "vendor raw");
  EXPECT_EQ(preset.spec.wrap_rule, WrapRule::never);
  EXPECT_EQ(preset.spec.pod_shape, (std::vector<std::int64_t>{16, 16}));
  EXPECT_DOUBLE_EQ(preset.spec.chip.peak_flops(DType::f32), 6.5e13);
  EXPECT_DOUBLE_EQ(preset.spec.chip.peak_flops(DType::bf16), 1.97e14);
}

TEST(HardwareOverrides, SeedPopQuizUsesTheQuizBandwidth) {
  // The H100 preset's default is roofline.md's 3.35e12; the pop quiz uses 3.4e12, kept as an alternative.
  const auto preset = load_hardware_preset_full("h100");
  const auto& hbm = figure(preset, "chip.hbm_bandwidth_Bps");
  EXPECT_DOUBLE_EQ(hbm.figure.value, 3.35e12);
  ASSERT_EQ(hbm.figure.alternatives.size(), 1u);
  const double quiz_Bps = hbm.figure.alternatives[0].value;
  EXPECT_DOUBLE_EQ(quiz_Bps, 3.4e12);
  // Select it by override: 1,048,576 B / 3.4e12 B/s = 308.4 ns.
  const json overrides = {{"chip", {{"hbm_bandwidth_Bps", quiz_Bps}}}};
  const auto quiz = load_hardware_preset("h100", &overrides, "quiz");
  EXPECT_NEAR(hbm_load_time(1048576, quiz.chip), 308.4047e-9, 1e-13);
}

TEST(HardwareOverrides, ErrorsPointIntoTheOverrides) {
  const json negative = {{"ici", {{"bandwidth_Bps", -1}}}};
  EXPECT_EQ(hardware_load_error("tpu-v5e", &negative, "scenarios/a.json: /hardware/overrides"),
            "scenarios/a.json: /hardware/overrides/ici/bandwidth_Bps: must be positive, got: -1");
  const json typo = {{"ici", {{"bandwith_Bps", 1}}}};
  EXPECT_EQ(hardware_load_error("tpu-v5e", &typo, "scenarios/a.json"),
            "scenarios/a.json: /ici/bandwith_Bps: unknown key, got: \"bandwith_Bps\" (expected one of "
            "links_per_chip, bandwidth_Bps, bandwidth_raw_Bps, bandwidth_effective_Bps, hop_latency_s)");
  const json name = {{"name", "x"}};
  EXPECT_EQ(hardware_load_error("tpu-v5e", &name, "cli"),
            "cli: /name: unknown key, got: \"name\" (expected one of chip, ici, slice, dcn, host, calibration)");
  const json unit = {{"ici", {{"hop_latency_s", "1 hour"}}}};
  EXPECT_EQ(hardware_load_error("tpu-v5e", &unit, "cli"),
            "cli: /ici/hop_latency_s: duration: unknown unit \"hour\" (expected s, ms, us, ns, ps), got: 1 hour");
}

// The host link (docs/hardware-model.md, "Host link"): each multi-slice generation's preset carries the bytes per
// second one chip moves to or from host memory, each direction, from the scaling book (v4 "16GB / second each way",
// v6e "3.2e10", the others its generic "1.6e10 ... per TPU"); a GPU preset has none (0).
TEST(HostLink, PresetsCarryTheBooksFigureEachDirection) {
  EXPECT_DOUBLE_EQ(load_hardware_preset("tpu-v4").host_offload_Bps, 16e9);
  EXPECT_DOUBLE_EQ(load_hardware_preset("tpu-v5e").host_offload_Bps, 1.6e10);
  EXPECT_DOUBLE_EQ(load_hardware_preset("tpu-v5p").host_offload_Bps, 1.6e10);
  EXPECT_DOUBLE_EQ(load_hardware_preset("tpu-v6e").host_offload_Bps, 32e9);
  EXPECT_DOUBLE_EQ(load_hardware_preset("tpu7x").host_offload_Bps, 1.6e10);
  EXPECT_DOUBLE_EQ(load_hardware_preset("h100").host_offload_Bps, 0);
  const auto v6e = load_hardware_preset_full("tpu-v6e");
  const auto& host = figure(v6e, "host.offload_Bps");
  EXPECT_EQ(host.figure.source, "SB tpus.md");
  EXPECT_EQ(host.figure.unit, "B/s");
}

TEST(HostLink, AnOverrideReplacesTheFigureAndKeepsThePresetAsAlternative) {
  const json overrides = {{"host", {{"offload_Bps", "20GB/s"}}}};
  const auto preset = load_hardware_preset_full("tpu-v6e", &overrides, "scenarios/a.json: /hardware/overrides");
  EXPECT_DOUBLE_EQ(preset.spec.host_offload_Bps, 2e10);
  const auto& host = figure(preset, "host.offload_Bps");
  EXPECT_EQ(host.figure.source, "override");
  ASSERT_FALSE(host.figure.alternatives.empty());
  EXPECT_DOUBLE_EQ(host.figure.alternatives[0].value, 3.2e10);
  // A preset without a host section gains one.
  const auto h100 = load_hardware_preset("h100", &overrides, "cli");
  EXPECT_DOUBLE_EQ(h100.host_offload_Bps, 2e10);
}

TEST(HostLink, AnOverlayMayCarryIt) {
  const auto dir = std::filesystem::temp_directory_path() / ("podsim_host_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "my-v6e.json").string();
  std::ofstream(path) << R"({"name": "my-v6e", "description": "d", "base": "tpu-v6e",
                             "host": {"offload_Bps": {"value": "25GB/s", "source": "my measurement"}}})";
  const auto preset = load_hardware_preset_full(path);
  EXPECT_DOUBLE_EQ(preset.spec.host_offload_Bps, 2.5e10);
  EXPECT_EQ(figure(preset, "host.offload_Bps").figure.source, "my measurement");
  EXPECT_DOUBLE_EQ(preset.spec.dcn_bandwidth_Bps, 1.25e10);  // the base's other sections stay
  std::filesystem::remove_all(dir);
}

TEST(HostLink, EveryRefusalNamesPointerRuleAndValue) {
  const auto override_error = [](const json& overrides) {
    return hardware_load_error("tpu-v6e", &overrides, "scenarios/a.json: /hardware/overrides");
  };
  EXPECT_EQ(override_error({{"host", {{"offload_Bps", -1}}}}),
            "scenarios/a.json: /hardware/overrides/host/offload_Bps: must be positive, got: -1");
  EXPECT_EQ(override_error({{"host", {{"offload_Bps", 0}}}}),
            "scenarios/a.json: /hardware/overrides/host/offload_Bps: must be positive, got: 0");
  EXPECT_EQ(override_error({{"host", {{"offload_Bps", "1e308TB/s"}}}}),
            "scenarios/a.json: /hardware/overrides/host/offload_Bps: must be finite, got: \"1e308TB/s\"");
  EXPECT_EQ(override_error({{"host", {{"pcie_Bps", 1e10}}}}),
            "scenarios/a.json: /hardware/overrides/host/pcie_Bps: unknown key, got: \"pcie_Bps\" (expected one of "
            "offload_Bps)");
  EXPECT_EQ(override_error({{"host", 5}}), "scenarios/a.json: /hardware/overrides/host: must be an object, got: 5");
  // In a preset, the section needs its figure, and the figure its source.
  const auto preset_error = [](const json& host) {
    json doc = {{"name", "x"},
                {"description", "d"},
                {"chip",
                 {{"peak_flops", {{"bf16", {{"value", 1e14}, {"source", "s"}}}}},
                  {"hbm_bytes", {{"value", 1024}, {"source", "s"}}},
                  {"hbm_bandwidth_Bps", {{"value", 1e12}, {"source", "s"}}}}},
                {"host", host}};
    try {
      verify_hardware_json(doc, "configs/x.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(preset_error(json::object()), "configs/x.json: /host: missing key \"offload_Bps\"");
  EXPECT_EQ(preset_error({{"offload_Bps", {{"value", 1.6e10}}}}),
            "configs/x.json: /host/offload_Bps: missing key \"source\" (every figure names its source)");
  EXPECT_EQ(preset_error({{"offload_Bps", {{"value", -1}, {"source", "s"}}}}),
            "configs/x.json: /host/offload_Bps/value: must be positive, got: -1");
  EXPECT_EQ(preset_error({{"offload_Bps", {{"value", 1.6e10}, {"source", "s"}}}}), "(no error)");
}

TEST(HardwareJson, NlohmannTypeErrorsBecomeLocatedErrors) {
  // JSON_DIAGNOSTICS puts the pointer into nlohmann's message; the loader moves it into the location.
  const json doc = json::parse(R"({"chip": {"tensorcores": "two"}})");
  try {
    (void)doc.at("chip").at("tensorcores").get<int>();
    FAIL() << "expected a type error";
  } catch (const json::exception& e) {
    EXPECT_STREQ(input_error_from_json("configs/x.json", e.what()).what(),
                 "configs/x.json: /chip/tensorcores: type must be number, but is string");
  }
}

TEST(HardwareReport, ListKeepsGoingPastABrokenPreset) {
  const auto presets = summarize_hardware_presets(kHardwareData);
  ASSERT_FALSE(presets.empty());
  bool saw_good = false, saw_bad = false;
  for (const auto& p : presets) {
    if (p.name == "good_units") saw_good = p.description == "a small valid chip for loader tests";
    if (p.name == "bad_negative_bandwidth") saw_bad = p.description.rfind("invalid: ", 0) == 0;
  }
  EXPECT_TRUE(saw_good);
  EXPECT_TRUE(saw_bad);
}

}  // namespace
}  // namespace podsim
