// `podsim hardware` end to end: runs the built program and checks its output, JSON and exit codes.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::run_podsim;

TEST(HardwareCli, ListsPresetsWithDescriptions) {
  const CliRun run = run_podsim("hardware");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("tpu-v5e  TPU v5e: 1 TensorCore"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("h100"), std::string::npos);
  EXPECT_NE(run.out.find("tpu7x"), std::string::npos);
}

// --list, as the docs give it, lists the same presets; with a name it is refused, and so is --override without one
// (it used to be ignored).
TEST(HardwareCli, ListFlagListsAndRefusesAName) {
  const CliRun plain = run_podsim("hardware");
  const CliRun list = run_podsim("hardware --list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, plain.out);
  const CliRun named = run_podsim("hardware tpu-v5e --list");
  EXPECT_EQ(named.code, 2);
  EXPECT_EQ(named.err, "error: --list: lists every preset: give it without a preset's name, got: tpu-v5e\n");
  const CliRun unnamed = run_podsim("hardware --override '{\"ici\": {\"bandwidth_Bps\": \"50GB/s\"}}'");
  EXPECT_EQ(unnamed.code, 2);
  EXPECT_EQ(unnamed.out, "");
  EXPECT_EQ(unnamed.err,
            "error: --override: changes one preset's figures: name the preset (podsim hardware NAME --override JSON), "
            "got: none\n");
}

// A presets folder that is not there is an error naming it, not an empty list.
TEST(HardwareCli, AMissingPresetsFolderIsNamed) {
  const CliRun run = run_podsim("hardware", "PODSIM_CONFIG_DIR=/nonexistent/podsim-configs ");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("error: hardware: the presets folder is not there"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("got: /nonexistent/podsim-configs\n"), std::string::npos) << run.err;
}

TEST(HardwareCli, ShowsEveryFigureWithUnitSourceAndAlternatives) {
  const CliRun run = run_podsim("hardware tpu-v5e");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("ici.bandwidth_Bps"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("45 GB/s"), std::string::npos);
  EXPECT_NE(run.out.find("SB tpus.md"), std::string::npos);
  EXPECT_NE(run.out.find("alternative"), std::string::npos);
  EXPECT_NE(run.out.find("50 GB/s"), std::string::npos);
  EXPECT_NE(run.out.find("196.6 TFLOP/s"), std::string::npos);  // MXU peak 4 x 128 x 128 x 2 x 1.5 GHz
  EXPECT_NE(run.out.find("240.2 FLOP/B"), std::string::npos);   // 1.97e14 / 8.2e11
}

TEST(HardwareCli, JsonOutputIsVersioned) {
  const CliRun run = run_podsim("hardware tpu-v5e --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc.at("schema"), "podsim/1");
  EXPECT_EQ(doc.at("preset").at("name"), "tpu-v5e");
  bool found = false;
  for (const auto& f : doc.at("preset").at("figures")) {
    if (f.at("key") != "ici.bandwidth_Bps") continue;
    found = true;
    EXPECT_DOUBLE_EQ(f.at("value").get<double>(), 4.5e10);
    EXPECT_EQ(f.at("unit"), "B/s");
    EXPECT_DOUBLE_EQ(f.at("alternatives").at(0).at("value").get<double>(), 5e10);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(doc.at("preset").at("slice").at("wraparound_rule"), "full_pod_axis");
  EXPECT_NEAR(doc.at("preset").at("derived").at("hbm_critical_intensity_bf16").get<double>(), 240.2439, 1e-4);

  const CliRun list = run_podsim("hardware --json");
  ASSERT_EQ(list.code, 0) << list.err;
  const auto presets = nlohmann::json::parse(list.out);
  EXPECT_EQ(presets.at("schema"), "podsim/1");
  EXPECT_EQ(presets.at("presets").size(), 9u);
}

// The host link (docs/hardware-model.md, "Host link"): the figure with its unit and source, in text and JSON.
TEST(HardwareCli, ShowsTheHostLinkWithItsSource) {
  const CliRun run = run_podsim("hardware tpu-v6e");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto line = run.out.find("host.offload_Bps");
  ASSERT_NE(line, std::string::npos) << run.out;
  const std::string text = run.out.substr(line, run.out.find('\n', line) - line);
  EXPECT_NE(text.find("32 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("SB tpus.md"), std::string::npos) << text;
  EXPECT_NE(text.find("PCIe Gen5"), std::string::npos) << text;

  const CliRun json_run = run_podsim("hardware tpu-v6e --json");
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  bool found = false;
  for (const auto& f : doc.at("preset").at("figures")) {
    if (f.at("key") != "host.offload_Bps") continue;
    found = true;
    EXPECT_DOUBLE_EQ(f.at("value").get<double>(), 3.2e10);
    EXPECT_EQ(f.at("unit"), "B/s");
    EXPECT_EQ(f.at("source"), "SB tpus.md");
  }
  EXPECT_TRUE(found);
}

// The preset's calibration section as the file states it (read here, not from the program).
nlohmann::json v5e_calibration() {
  std::ifstream in(std::string(PODSIM_SOURCE_DIR) + "/configs/tpu-v5e.json");
  return nlohmann::json::parse(in).at("calibration");
}

TEST(HardwareCli, ShowsTheCalibrationWithSourcesAndCurveRanges) {
  const auto file = v5e_calibration();
  const CliRun run = run_podsim("hardware tpu-v5e");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto section = run.out.find("\ncalibration");
  ASSERT_NE(section, std::string::npos) << run.out;
  const std::string text = run.out.substr(section);
  int seen = 0;
  for (const auto& [key, figure] : file.items()) {
    if (!figure.is_object()) continue;
    ++seen;
    const auto line = text.find("\n" + key + " ");
    ASSERT_NE(line, std::string::npos) << key << "\n" << text;
    const std::string row = text.substr(line + 1, text.find('\n', line + 1) - line - 1);
    EXPECT_NE(row.find(figure.at("source").get<std::string>()), std::string::npos) << row;
    if (figure.contains("points")) EXPECT_NE(text.find("holds over", line), std::string::npos) << text;
  }
  EXPECT_GE(seen, 2);

  const CliRun json_run = run_podsim("hardware tpu-v5e --json");
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  const auto& preset = doc.at("preset");
  EXPECT_TRUE(preset.contains("figures") && preset.contains("derived") && preset.contains("sources"));
  const auto& calibration = preset.at("calibration");
  for (const auto& [key, figure] : file.items()) {
    if (!figure.is_object()) continue;
    bool found = false;
    if (figure.contains("points")) {
      const auto& points = figure.at("points");
      for (const auto& curve : calibration.at("curves")) {
        if (curve.at("key") != key) continue;
        found = true;
        EXPECT_EQ(curve.at("source"), figure.at("source"));
        EXPECT_DOUBLE_EQ(curve.at("range").at("from").get<double>(), points.front().at("at").get<double>());
        EXPECT_DOUBLE_EQ(curve.at("range").at("to").get<double>(), points.back().at("at").get<double>());
        ASSERT_EQ(curve.at("points").size(), points.size());
        for (std::size_t i = 0; i < points.size(); ++i)
          EXPECT_DOUBLE_EQ(curve.at("points")[i].at("efficiency").get<double>(),
                           points[i].at("efficiency").get<double>());
      }
    } else {
      for (const auto& f : calibration.at("figures")) {
        if (f.at("key") != key) continue;
        found = true;
        EXPECT_EQ(f.at("source"), figure.at("source"));
        EXPECT_DOUBLE_EQ(f.at("value").get<double>(), figure.at("value").get<double>());
      }
    }
    EXPECT_TRUE(found) << key;
  }
}

TEST(HardwareCli, PresetWithoutCalibrationShowsNone) {
  const CliRun run = run_podsim("hardware h100 --json");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(nlohmann::json::parse(run.out).at("preset").at("calibration").is_null());
}

TEST(HardwareCli, UnknownPresetExitsTwo) {
  const CliRun run = run_podsim("hardware tpu-v9");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "error: hardware: unknown preset \"tpu-v9\" (known: h100, h200, tpu-v2, tpu-v3, tpu-v4, tpu-v5e, "
            "tpu-v5p, tpu-v6e, tpu7x)\n");
}

TEST(HardwareCli, OverrideIsAppliedAndChecked) {
  const CliRun ok = run_podsim("hardware tpu-v5e --json --override '{\"ici\": {\"bandwidth_Bps\": \"50GB/s\"}}'");
  ASSERT_EQ(ok.code, 0) << ok.err;
  const auto doc = nlohmann::json::parse(ok.out);
  for (const auto& f : doc.at("preset").at("figures"))
    if (f.at("key") == "ici.bandwidth_Bps") EXPECT_DOUBLE_EQ(f.at("value").get<double>(), 5e10);

  const CliRun bad = run_podsim("hardware tpu-v5e --override '{\"ici\": {\"bandwidth_Bps\": -1}}'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "error: --override: /ici/bandwidth_Bps: must be positive, got: -1\n");
  const CliRun deep = run_podsim("hardware tpu-v5e --override '" + std::string(1000, '[') + "'");
  EXPECT_EQ(deep.code, 2);
  EXPECT_EQ(deep.err, "error: --override: line 1, column 65: nesting deeper than 64 levels\n");
}

}  // namespace
