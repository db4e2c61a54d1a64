// The calibration section of a hardware preset, its overrides, an overlay naming its base preset (what
// `podsim calibrate -o` writes), and a scenario's "calibrated": false; errors name the file, the pointer and the
// value.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

#include "models/common/error.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

using nlohmann::json;

// A folder of its own under the system's temporary folder, removed at the end of the test.
class TempFolder {
 public:
  TempFolder()
      : path_(std::filesystem::temp_directory_path() /
              ("podsim-calibration-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::ofstream(file) << text;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

const std::string kOverlay = R"({
  "name": "my-v5e", "description": "v5e as measured", "base": "tpu-v5e",
  "sources": {"CAL": "my measurements"},
  "ici": {"hop_latency_s": "2us"},
  "calibration": {
    "collective_step_s": {"value": "0.5us", "source": "CAL rows a"},
    "hbm_efficiency": {"value": 0.9, "source": "CAL rows b"},
    "link_efficiency": {"points": [{"at": 1000, "efficiency": 0.5}, {"at": 1e6, "efficiency": 0.8}],
                        "source": "CAL rows c"}
  }
})";

TEST(CalibrationJson, AnOverlayIsItsBasePresetWithItsCalibration) {
  const TempFolder folder;
  const std::string path = folder.write("my-v5e.json", kOverlay);
  const HardwarePreset preset = load_hardware_preset_full(path);
  const HardwareSpec base = load_hardware_preset("tpu-v5e");
  EXPECT_EQ(preset.spec.name, "my-v5e");
  EXPECT_EQ(preset.spec.chip.peak_flops(DType::bf16), base.chip.peak_flops(DType::bf16));
  EXPECT_EQ(preset.spec.ici.bandwidth_Bps, base.ici.bandwidth_Bps);
  EXPECT_DOUBLE_EQ(preset.spec.ici.hop_latency_s, 2e-6);  // the overlay's ici section, merged as an override
  ASSERT_TRUE(preset.spec.calibration.has_value());
  const Calibration& c = *preset.spec.calibration;
  EXPECT_DOUBLE_EQ(c.collective_step_s, 0.5e-6);
  ASSERT_EQ(c.hbm_efficiency.size(), 1u);  // a single number: one point, flat over every size
  EXPECT_DOUBLE_EQ(efficiency_at(c.hbm_efficiency, 1), 0.9);
  EXPECT_DOUBLE_EQ(efficiency_at(c.hbm_efficiency, 1e12), 0.9);
  ASSERT_EQ(c.link_efficiency.size(), 2u);
  EXPECT_DOUBLE_EQ(c.link_efficiency[1].at, 1e6);
  EXPECT_DOUBLE_EQ(c.link_efficiency[1].efficiency, 0.8);
  EXPECT_FALSE(c.hop_latency_s.has_value());
  EXPECT_EQ(c.source, "CAL rows a, CAL rows b, CAL rows c");
  // Halfway in log(size) between the points: halfway in efficiency.
  EXPECT_NEAR(efficiency_at(c.link_efficiency, std::sqrt(1000.0 * 1e6)), 0.65, 1e-12);
  EXPECT_DOUBLE_EQ(efficiency_at(c.link_efficiency, 10), 0.5);  // flat beyond the ends
  EXPECT_TRUE(outside_curve(c.link_efficiency, 10));
}

TEST(CalibrationJson, AScenarioUsesAnOverlayBesideItAndMayTurnTheCalibrationOff) {
  const TempFolder folder;
  folder.write("my-v5e.json", kOverlay);
  const std::string body = R"(, "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
    "tensors": {"A": {"shape": [1024, 1024], "sharding": "A[I_X, J]"}},
    "program": [{"op": "all_gather", "name": "g", "tensor": "A", "axes": ["X"], "out": "B"}]})";
  const ScenarioSpec on = load_scenario(folder.write("on.json", R"({"name": "on", "hardware": "my-v5e.json")" + body));
  ASSERT_TRUE(on.hardware.spec.calibration.has_value());
  const ScenarioSpec off = load_scenario(
      folder.write("off.json", R"({"name": "off", "hardware": {"preset": "my-v5e.json", "calibrated": false})" + body));
  EXPECT_FALSE(off.hardware.spec.calibration.has_value());
  // Set aside (podsim validate's calibrated des runs with it), with the scenario's overrides of it.
  ASSERT_TRUE(off.hardware.calibration_set_aside.has_value());
  EXPECT_EQ(off.hardware.calibration_set_aside->link_efficiency.size(),
            on.hardware.spec.calibration->link_efficiency.size());
  const ScenarioSpec own =
      load_scenario(folder.write("own.json", R"({"name": "own", "hardware": {"preset": "my-v5e.json",
    "calibrated": false, "overrides": {"calibration": {"mxu_efficiency": {"points": [{"at": 1e9, "efficiency": 0.5}],
    "source": "mine"}}}})" + body));
  EXPECT_FALSE(own.hardware.spec.calibration.has_value());
  ASSERT_TRUE(own.hardware.calibration_set_aside.has_value());
  ASSERT_EQ(own.hardware.calibration_set_aside->mxu_efficiency.size(), 1u);
  EXPECT_EQ(own.hardware.calibration_set_aside->mxu_efficiency[0].efficiency, 0.5);
  EXPECT_FALSE(on.hardware.calibration_set_aside.has_value());
  try {
    load_scenario(
        folder.write("bad.json", R"({"name": "bad", "hardware": {"preset": "tpu-v5e", "calibrated": "no"})" + body));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "must be true or false, got: \"no\"");
    EXPECT_NE(e.where().find("/hardware/calibrated"), std::string::npos) << e.where();
  }
}

std::string calibration_error_of(const std::string& calibration) {
  const TempFolder folder;
  const std::string path = folder.write(
      "cal.json", R"({"name": "cal", "description": "d", "base": "tpu-v5e", "calibration": )" + calibration + "}");
  try {
    load_hardware_preset_full(path);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(path.size());
  }
  return "(no error)";
}

TEST(CalibrationJson, ErrorsNameThePointerTheRuleAndTheValue) {
  EXPECT_EQ(calibration_error_of(R"({"hbm_efficiency": {"value": 1.5, "source": "s"}})"),
            ": /calibration/hbm_efficiency/value: an efficiency must be in (0, 1], got: 1.5");
  EXPECT_EQ(calibration_error_of(R"({"hbm_efficiency": {"points": [{"at": 1e6, "efficiency": 1.5}], "source": "s"}})"),
            ": /calibration/hbm_efficiency/points/0/efficiency: an efficiency must be in (0, 1], got: 1.5");
  EXPECT_EQ(calibration_error_of(R"({"hbm_efficiency": {"source": "s"}})"),
            ": /calibration/hbm_efficiency: must be a figure {\"value\", \"source\"} or a curve {\"points\", "
            "\"source\"}, got: {\"source\":\"s\"}");
  EXPECT_EQ(calibration_error_of(R"({"hbm_efficiency": {"points": [{"at": 1e6, "efficiency": 0.5}]}})"),
            ": /calibration/hbm_efficiency: missing key \"source\" (every figure names its source)");
  EXPECT_EQ(calibration_error_of(R"({"collective_step_s": {"value": "1us"}})"),
            ": /calibration/collective_step_s: missing key \"source\" (every figure names its source)");
  EXPECT_EQ(calibration_error_of(
                R"({"link_efficiency": {"points": [{"at": 10, "efficiency": 0.5}, {"at": 5, "efficiency": 0.6}],
                         "source": "s"}})"),
            ": /calibration/link_efficiency/points/1/at: points must be in increasing order of at, got: 5 after 10");
  EXPECT_EQ(calibration_error_of(R"({"link_efficiency": {"points": [], "source": "s"}})"),
            ": /calibration/link_efficiency/points: must be a non-empty array of {\"at\", \"efficiency\"}, got: []");
  EXPECT_EQ(calibration_error_of(R"({"hop_latency": {"value": 1, "source": "s"}})"),
            ": /calibration/hop_latency: unknown key, got: \"hop_latency\" (expected one of hop_latency_s, "
            "collective_step_s, hbm_efficiency, dcn_bandwidth_Bps, dcn_latency_s, link_efficiency, mxu_efficiency, "
            "attention_forward_efficiency, attention_backward_efficiency, note)");
  EXPECT_EQ(
      calibration_error_of(R"({"attention_forward_efficiency": {"points": [{"at": 2048, "efficiency": 1.5}],
                         "source": "s"}})"),
      ": /calibration/attention_forward_efficiency/points/0/efficiency: an efficiency must be in (0, 1], got: 1.5");
  const TempFolder folder;
  const std::string path = folder.write("nobase.json", R"({"name": "nobase", "description": "d", "base": "tpu-v9"})");
  try {
    load_hardware_preset_full(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), path + ": /base");
    EXPECT_EQ(e.message().rfind("unknown preset (known: ", 0), 0u) << e.message();
  }
}

// hbm_efficiency as a curve over the bytes a step moves (docs/hardware-model.md, "Calibration"): points at 1 MiB
// (0.5) and 1 GiB (0.9) give 0.7 at 32 MiB, halfway between them in log(size), and hold flat beyond.
TEST(CalibrationJson, HbmEfficiencyMayBeACurveOverBytes) {
  const TempFolder folder;
  const std::string overlay = folder.write("curve.json", R"({
    "name": "curve", "description": "d", "base": "tpu-v5e",
    "calibration": {"hbm_efficiency": {"points": [{"at": 1048576, "efficiency": 0.5},
                                                  {"at": 1073741824, "efficiency": 0.9}],
                                       "source": "CAL rows h", "note": "bytes one step moves"}}
  })");
  const HardwarePreset preset = load_hardware_preset_full(overlay);
  ASSERT_TRUE(preset.spec.calibration.has_value());
  const Calibration& c = *preset.spec.calibration;
  ASSERT_EQ(c.hbm_efficiency.size(), 2u);
  EXPECT_NEAR(efficiency_at(c.hbm_efficiency, 33554432), 0.7, 1e-12);
  EXPECT_DOUBLE_EQ(efficiency_at(c.hbm_efficiency, 1024), 0.5);
  EXPECT_DOUBLE_EQ(efficiency_at(c.hbm_efficiency, 1e12), 0.9);
  EXPECT_EQ(c.source, "CAL rows h");
  ASSERT_EQ(preset.calibration_curves.size(), 1u);
  EXPECT_EQ(preset.calibration_curves[0].key, "hbm_efficiency");
  EXPECT_TRUE(preset.calibration_figures.empty());
  // A bare number overrides the curve with one flat figure.
  const json overrides = {{"calibration", {{"hbm_efficiency", 0.8}}}};
  const HardwareSpec flat = load_hardware_preset(overlay, &overrides, "cli");
  ASSERT_TRUE(flat.calibration.has_value());
  EXPECT_DOUBLE_EQ(efficiency_at(flat.calibration->hbm_efficiency, 33554432), 0.8);
}

TEST(CalibrationJson, AnOverrideChangesOneFigureOfTheCalibration) {
  const TempFolder folder;
  const std::string path = folder.write("my-v5e.json", kOverlay);
  const json overrides = {{"calibration", {{"collective_step_s", 2e-6}}}};
  const HardwareSpec spec = load_hardware_preset(path, &overrides, "cli");
  ASSERT_TRUE(spec.calibration.has_value());
  EXPECT_DOUBLE_EQ(spec.calibration->collective_step_s, 2e-6);
  EXPECT_DOUBLE_EQ(efficiency_at(spec.calibration->hbm_efficiency, 1e9), 0.9);
  EXPECT_EQ(spec.calibration->link_efficiency.size(), 2u);
}

}  // namespace
}  // namespace podsim
