// `podsim topology`: the JSON keys scripts rely on, with a v5p slice's figures worked by hand
// (topology_figures_test.cpp works the same 4x4x8), the shapes a generation forms, and located refusals.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace podsim {
namespace {

TEST(TopologyCli, SliceFiguresAsJson) {
  const auto run = test::run_podsim("topology --hardware tpu-v5p --slice 4x4x8 --json --links");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["schema"], "podsim/1");
  EXPECT_EQ(j["chips"], 128);
  EXPECT_EQ(j["links"], 768);
  EXPECT_EQ(j["wraparound"], (nlohmann::json{true, true, true}));  // whole cubes: the OCS closes every dim
  EXPECT_EQ(j["twisted"], false);
  EXPECT_EQ(j["diameter_hops"], 8);
  EXPECT_DOUBLE_EQ(j["mean_hops"].get<double>(), 65536.0 / (128 * 127));
  EXPECT_EQ(j["bisection_links"], 32);
  EXPECT_EQ(j["cubes"], 2);
  ASSERT_EQ(j["link_names"].size(), 768u);
  EXPECT_EQ(j["link_names"][0], "ici.x+.0.0.0");
}

// v5e's 4x4 is a mesh (its dims wrap only at the pod's 16), no cubes.
TEST(TopologyCli, MeshOfAGenerationWithoutCubes) {
  const auto run = test::run_podsim("topology --hardware tpu-v5e --slice 4x4 --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["wraparound"], (nlohmann::json{false, false}));
  EXPECT_EQ(j["diameter_hops"], 6);
  EXPECT_TRUE(j["cubes"].is_null());
  EXPECT_FALSE(j.contains("link_names"));
}

// A twisted 4x4x8 (docs/topology.md, "Twisted tori"; figures worked by hand in tests/topology/twist_test.cpp): the
// same links and names, diameter 6 and mean 440 / 127 hops, bisection 64.
TEST(TopologyCli, TwistedSliceAsJson) {
  const auto run = test::run_podsim("topology --hardware tpu-v5p --slice 4x4x8 --twist --json --links");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["twisted"], true);
  EXPECT_EQ(j["links"], 768);
  EXPECT_EQ(j["diameter_hops"], 6);
  EXPECT_DOUBLE_EQ(j["mean_hops"].get<double>(), 440.0 / 127);
  EXPECT_EQ(j["bisection_links"], 64);
  EXPECT_EQ(j["link_names"][0], "ici.x+.0.0.0");
}

// Each refusal exits 2 with "error: --twist: <rule>, got: <value>".
TEST(TopologyCli, TwistRefusalsNameTheRule) {
  const std::string shape_rule =
      "error: --twist: a twisted torus needs a slice of shape k x k x 2k or k x 2k x 2k, short dims first and k a "
      "multiple of 4 (4x4x8, 4x8x8, 8x8x16, 8x16x16, ...), got: ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"topology --hardware tpu-v5p --slice 4x4x4 --twist", shape_rule + "4x4x4"},
      {"topology --hardware tpu-v5p --slice 8x4x4 --twist", shape_rule + "8x4x4"},
      {"topology --hardware tpu-v5e --slice 16x16 --twist",
       "error: --twist: a twisted torus needs a preset whose slices twist (its slice.twist), got: tpu-v5e"},
      {"topology --hardware tpu-v5p --slice 4x4x8 --wrap none --twist",
       "error: --twist: a twisted torus needs wraparound on every dim, got: 4x4x8"},
      {"collective --hardware tpu-v5p --slice 4x4x4 --twist --op all-to-all --axes X --array-bytes 1MiB",
       shape_rule + "4x4x4"},
  };
  for (const auto& [args, expected] : cases) {
    const auto run = test::run_podsim(args);
    EXPECT_EQ(run.code, 2) << args;
    EXPECT_NE(run.err.find(expected), std::string::npos) << args << ": " << run.err;
  }
}

TEST(TopologyCli, Shapes) {
  const auto run = test::run_podsim("topology --hardware tpu-v5e --shapes --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["schema"], "podsim/1");
  EXPECT_EQ(j["shapes"], (nlohmann::json{{1, 1}, {2, 2}, {2, 4}, {4, 4}, {4, 8}, {8, 8}, {8, 16}, {16, 16}}));
}

TEST(TopologyCli, RefusalsNameTheFlag) {
  auto err = [](const std::string& args) { return test::run_podsim("topology " + args); };
  const auto none = err("--hardware tpu-v5p");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("error: --slice: a slice shape such as 4x4x8 is required (or --shapes), got: none"),
            std::string::npos)
      << none.err;
  const auto both = err("--shapes --slice 4x4x4");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("error: --shapes: lists the shapes a generation forms"), std::string::npos) << both.err;
  const auto wrap = err("--hardware tpu-v5e --slice 4x4 --wrap 0,5");
  EXPECT_EQ(wrap.code, 2);
  EXPECT_NE(wrap.err.find("error: --wrap: "), std::string::npos) << wrap.err;
  const auto preset = err("--hardware nope --slice 4x4");
  EXPECT_EQ(preset.code, 2);
  EXPECT_NE(preset.err.find("error: --hardware: "), std::string::npos) << preset.err;
}

}  // namespace
}  // namespace podsim
