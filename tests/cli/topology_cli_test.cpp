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

// A ring of 8 without its wrap cable (7-0) is a line of 8 (docs/topology.md, "Failed links"; worked by hand in
// tests/topology/failed_links_test.cpp): diameter 7, mean 3 hops, 1 link each way across the middle; the cable's two
// links are listed.
TEST(TopologyCli, FailedLinksAsJson) {
  const auto run = test::run_podsim("topology --hardware tpu-v5e --slice 8 --wrap all --failed-links ici.x+.7 --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["links"], 16);
  EXPECT_EQ(j["diameter_hops"], 7);
  EXPECT_DOUBLE_EQ(j["mean_hops"].get<double>(), 3.0);
  EXPECT_EQ(j["bisection_links"], 1);
  EXPECT_EQ(j["failed_links"], nlohmann::json({"ici.x-.0", "ici.x+.7"}));
}

// Each refusal exits 2 with "error: --failed-links: <rule>, got: <value>".
TEST(TopologyCli, FailedLinkRefusalsNameTheRule) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"topology --hardware tpu-v5e --slice 4x4 --failed-links ici.z+.0.0",
       "error: --failed-links: a failed link must be a link of the slice 4x4 (podsim topology --links lists them), "
       "got: ici.z+.0.0"},
      {"topology --hardware tpu-v5e --slice 4x4 --wrap all --failed-links "
       "ici.x+.1.1,ici.x-.1.1,ici.y+.1.1,ici.y-.1.1",
       "error: --failed-links: failed links must leave every chip reachable from every other over the working links, "
       "got: 1 chip(s) cut off from the other 15: chip 5 (1,1)"},
      {"collective --hardware tpu-v5e --slice 8 --wrap all --failed-links ici.x+.9 --op all-gather --axes X "
       "--array-bytes 1MiB",
       "error: --failed-links: a failed link must be a link of the slice 8 (podsim topology --links lists them), got: "
       "ici.x+.9"},
      {"collective --hardware tpu-v5e --slice 4x4 --wrap all --failed-links ici.x+.0.0 --routing split_minimal --op "
       "all-to-all --axes X,Y --array-bytes 1MiB",
       "error: --failed-links: split_minimal splits a transfer over the rotations of the dim order, which may cross a "
       "failed link"},
  };
  for (const auto& [args, expected] : cases) {
    const auto run = test::run_podsim(args);
    EXPECT_EQ(run.code, 2) << args;
    EXPECT_NE(run.err.find(expected), std::string::npos) << args << ": " << run.err;
  }
}

// An all-gather over a ring of 8 (bidirectional split, V = 64 MiB, W = 45 GB/s, no hop latency, uncalibrated): each
// of the 7 steps sends V / 16 = 4 MiB each way round, so a link carries 28 MiB: 29360128 / 45e9 s. Without the wrap
// cable (7-0), the + ring's send from chip 7 to chip 0 goes the long way over the 7 minus links, each of which also
// carries its own - ring send: 8 MiB a step, 56 MiB in all, exactly twice as long.
TEST(TopologyCli, AllGatherOnARingWithAFailedCableTakesTwiceAsLong) {
  const std::string base =
      "collective --hardware tpu-v5e --slice 8 --wrap all --op all-gather --axes X --array-bytes 64MiB --uncalibrated "
      "--hop-latency 0s --model des --json";
  const auto whole = test::run_podsim(base);
  const auto failed = test::run_podsim(base + " --failed-links ici.x+.7");
  ASSERT_EQ(whole.code, 0) << whole.err;
  ASSERT_EQ(failed.code, 0) << failed.err;
  const double ring = nlohmann::json::parse(whole.out)["des"]["time_s"].get<double>();
  const double line = nlohmann::json::parse(failed.out)["des"]["time_s"].get<double>();
  EXPECT_NEAR(ring, 29360128.0 / 45e9, 1e-12);
  EXPECT_NEAR(line, 58720256.0 / 45e9, 1e-12);
}

}  // namespace
}  // namespace podsim
