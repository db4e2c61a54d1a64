// `podsim topology`: the JSON keys scripts rely on, with a v5p slice's figures worked by hand
// (topology_figures_test.cpp works the same 4x4x8), the shapes a generation forms, and located refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

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

// The JSON of `podsim run` says `"twisted": true` on a twisted torus and nothing on a plain one, as `podsim
// collective`.
TEST(TopologyCli, RunJsonSaysTwistedOnlyOnATwistedTorus) {
  const std::string dir = std::string(PODSIM_SOURCE_DIR) + "/scenarios/";
  const auto twisted = test::run_podsim("run " + dir + "problem-sets/twisted-all-to-all-v5p.json --format json");
  ASSERT_EQ(twisted.code, 0) << twisted.err;
  EXPECT_EQ(nlohmann::json::parse(twisted.out)["scenario"]["twisted"], true);
  const auto plain = test::run_podsim("run " + dir + "examples/mlp-v5e-4x4.json --format json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out)["scenario"].contains("twisted"));
}

// `podsim collective --routing split_minimal` says so in the text and the JSON. An all-gather over X on a 4x4 torus
// sends only between neighbours one dim apart, so its des is that of one route: 3 steps of V/8 each way,
// 3 (1 us + 16,777,216 B / (8 x 45e9 B/s)) = 3 x 47.6035 us = 142.81 us (uncalibrated v5e links).
TEST(TopologyCli, CollectiveSaysItsRoutesAreSplit) {
  const std::string args =
      "collective --hardware tpu-v5e --slice 4x4 --wrap all --op all-gather --axes X --array-bytes 16MiB --model des "
      "--uncalibrated";
  const auto split = test::run_podsim(args + " --routing split_minimal --json");
  ASSERT_EQ(split.code, 0) << split.err;
  const auto j = nlohmann::json::parse(split.out);
  EXPECT_EQ(j["routing"], "split_minimal");
  EXPECT_NEAR(j["des"]["time_s"].get<double>(), 3 * (1e-6 + 16777216.0 / (8 * 45e9)), 1e-12);
  const auto text = test::run_podsim(args + " --routing split_minimal");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("1 us per hop; a transfer between chips that differ in several dims split over their minimal "
                          "routes\n"),
            std::string::npos)
      << text.out;
  const auto plain = test::run_podsim(args + " --json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("routing"));
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

// A 4x4 torus without chip 5 (1,1) (docs/topology.md, "Failed chips"; worked by hand in
// tests/topology/failed_chips_test.cpp): 15 working chips, no pair of them gets longer (a ring of 4 has two ways
// between coordinates 2 apart), so the distance sum is 512 - 2 x 32 = 448 over 15 x 14 ordered pairs; diameter 4;
// 8 - 1 links across the middle of x. The chip's own links are implied by it, not listed as failed links.
TEST(TopologyCli, FailedChipAsJson) {
  const auto run = test::run_podsim("topology --hardware tpu-v5e --slice 4x4 --wrap all --failed-chips 5 --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["chips"], 15);
  EXPECT_EQ(j["links"], 64);
  EXPECT_EQ(j["diameter_hops"], 4);
  EXPECT_DOUBLE_EQ(j["mean_hops"].get<double>(), 448.0 / 210.0);
  EXPECT_EQ(j["bisection_links"], 7);
  EXPECT_EQ(j["failed_chips"], nlohmann::json({5}));
  EXPECT_FALSE(j.contains("failed_links"));
  EXPECT_FALSE(j.contains("replaced_cubes"));
  const auto text = test::run_podsim("topology --hardware tpu-v5e --slice 4x4 --wrap all --failed-chips 5");
  EXPECT_NE(text.out.find("slice 4x4 of tpu-v5e: 15 working chips of 16 (1 failed), 64 directed links"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("    chip 5 (1,1)\n"), std::string::npos) << text.out;
}

// A spare replaces the cube of chip 70 (2,0,6) of a v5p 4x4x8: cube 1 (z 4-7); the slice is then whole (the figures
// of SliceFiguresAsJson) and names the cube.
TEST(TopologyCli, SpareCubeReplacesTheFailedChipsCube) {
  const auto run =
      test::run_podsim("topology --hardware tpu-v5p --slice 4x4x8 --failed-chips 70 --spare-cubes 1 --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["chips"], 128);
  EXPECT_EQ(j["diameter_hops"], 8);
  EXPECT_DOUBLE_EQ(j["mean_hops"].get<double>(), 65536.0 / (128 * 127));
  EXPECT_EQ(j["replaced_cubes"], nlohmann::json({1}));
  EXPECT_FALSE(j.contains("failed_chips"));
  const auto text = test::run_podsim("topology --hardware tpu-v5p --slice 4x4x8 --failed-chips 70 --spare-cubes 1");
  EXPECT_NE(text.out.find("cube 1 (x 0-3, y 0-3, z 4-7): replaced by a spare cube"), std::string::npos) << text.out;
}

// Each refusal exits 2 with "error: --FLAG: <rule>, got: <value>".
TEST(TopologyCli, FailedChipAndSpareRefusalsNameTheRule) {
  const std::string no_spare =
      "a sharded program runs on every chip of its slice, so a failed chip must be replaced by a spare cube "
      "(spare_cubes: one replaces each 4x4x4 cube holding a failed chip) or the work planned on a smaller slice "
      "without it, got: 1 failed chip(s) not replaced: chip 70 (2,0,6)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"topology --hardware tpu-v5e --slice 4x4 --failed-chips 16",
       "error: --failed-chips: a failed chip must be a chip id of the slice 4x4 (0 to 15), got: 16"},
      {"topology --hardware tpu-v5e --slice 4x4 --failed-chips 5,5",
       "error: --failed-chips: a failed chip is listed once, got: chip 5 (1,1) again"},
      {"topology --hardware tpu-v5e --slice 4x4 --failed-chips 1,4",
       "error: --failed-chips: failed chips and links must leave every working chip reachable from every other over "
       "the working links, got: 1 chip(s) cut off from the other 13 working chips: chip 0 (0,0)"},
      {"topology --hardware tpu-v5e --slice 4x4 --failed-chips a",
       "error: --failed-chips: a failed chip must be a chip id of the slice, as a comma-separated list of chip ids "
       "such "
       "as 5,70, got: \"a\""},
      {"topology --hardware tpu-v5e --slice 4x4 --spare-cubes 1",
       "error: --spare-cubes: spare cubes replace failed 4x4x4 cubes through the optical circuit switches of a "
       "generation built of them (v4, v5p, tpu7x), got: 1 spare cube(s) on tpu-v5e"},
      {"topology --hardware tpu-v5p --slice 2x2x4 --spare-cubes 1",
       "error: --spare-cubes: spare cubes replace whole 4x4x4 cubes, so the slice must be of whole cubes (3 dims, each "
       "a multiple of 4), got: 1 spare cube(s) for slice 2x2x4"},
      {"topology --hardware tpu-v5p --slice 16x16x24 --spare-cubes 45",
       "error: --spare-cubes: a slice and its spare cubes must fit in one pod (tpu-v5p: 140 cubes), got: 96 cube(s) "
       "of slice 16x16x24 + 45 spare cube(s) = 141"},
      {"topology --hardware tpu-v5p --slice 4x4x8 --spare-cubes 1.5",
       "error: --spare-cubes: a spare cube count must be an integer >= 0, got: \"1.5\""},
      {"collective --hardware tpu-v5p --slice 4x4x8 --failed-chips 70 --op all-gather --axes Z --array-bytes 64MiB",
       "error: --failed-chips: " + no_spare},
  };
  for (const auto& [args, expected] : cases) {
    const auto run = test::run_podsim(args);
    EXPECT_EQ(run.code, 2) << args;
    EXPECT_NE(run.err.find(expected), std::string::npos) << args << ": " << run.err;
  }
}

// A scenario file in the test's temporary folder.
std::string scenario_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << text;
  return path.string();
}

// The ring of 8 of AllGatherOnARingWithAFailedCableTakesTwiceAsLong as a scenario: bf16[8192, 4096] = 64 MiB
// gathered over X, hop latency 0, uncalibrated v5e links of 45 GB/s. On the whole ring 29,360,128 B cross a link
// (652.4 us); without the wrap cable twice that (1.305 ms): +100%.
TEST(TopologyCli, RunWithAFailedLinkPrintsWhatItCostsTheStep) {
  const std::string file = scenario_file("ring8", R"({"name": "ring8",
      "hardware": {"preset": "tpu-v5e", "calibrated": false, "overrides": {"ici": {"hop_latency_s": 0}}},
      "slice": {"shape": [8], "wraparound": "all"}, "mesh": "X=8",
      "tensors": {"A": {"shape": [8192, 4096], "sharding": "A[E_X, F]"}},
      "program": [{"op": "all_gather", "name": "gather", "tensor": "A", "axes": ["X"], "out": "A_full"}],
      "plans": [{"name": "ring"}]})");
  const auto whole = test::run_podsim("run " + file + " --format json");
  const auto run = test::run_podsim("run " + file + " --failed-links ici.x+.7 --format json");
  const auto text = test::run_podsim("run " + file + " --failed-links ici.x+.7");
  const std::string page = file + ".html";
  const auto html = test::run_podsim("run " + file + " --failed-links ici.x+.7 --report " + page);
  std::ifstream page_in(page);
  const std::string page_text((std::istreambuf_iterator<char>(page_in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(page);
  std::filesystem::remove(file);
  ASSERT_EQ(html.code, 0) << html.err;
  // The page says it too, under the scenario's facts.
  EXPECT_NE(page_text.find("<h3>What the failures cost</h3>"), std::string::npos);
  EXPECT_NE(page_text.find("1.305 ms"), std::string::npos);
  EXPECT_NE(page_text.find("652.4 us"), std::string::npos);
  EXPECT_NE(page_text.find("+100%"), std::string::npos);
  ASSERT_EQ(run.code, 0) << run.err;
  ASSERT_EQ(whole.code, 0) << whole.err;
  const auto j = nlohmann::json::parse(run.out);
  auto keys = nlohmann::json::parse(whole.out);
  keys["failures"] = j["failures"];
  EXPECT_EQ(keys.size(), j.size());  // the run's keys as without failures, and "failures"
  const auto& f = j["failures"];
  EXPECT_EQ(f["failed_links"], nlohmann::json({"ici.x+.7"}));
  EXPECT_EQ(f["failed_chips"], nlohmann::json::array());
  EXPECT_EQ(f["replaced_cubes"], nlohmann::json::array());
  ASSERT_EQ(f["plans"].size(), 1u);
  EXPECT_EQ(f["plans"][0]["name"], "ring");
  EXPECT_NEAR(f["plans"][0]["step_s"].get<double>(), 58720256.0 / 45e9, 1e-12);
  EXPECT_NEAR(f["plans"][0]["whole_step_s"].get<double>(), 29360128.0 / 45e9, 1e-12);
  EXPECT_NEAR(f["plans"][0]["cost_fraction"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(j["plans"][0]["des_time_s"].get<double>(), 58720256.0 / 45e9, 1e-12);
  EXPECT_NE(text.out.find("failures: 1 failed link: ici.x+.7\n"
                          "  plan ring: step 1.305 ms against 652.4 us on the whole slice (+100%)\n"),
            std::string::npos)
      << text.out;
}

// A v5p 4x4x8 gathering 64 MiB over its z ring of 8 (hop latency 1 us, 90 GB/s links): 7 steps of V / 16 each way,
// 7 x (1 us + 4,194,304 / 9e10) = 333.2 us. Chip 70 (2,0,6) failed: with one spare its cube 1 is replaced and the step
// is exactly the whole slice's; without one the run is refused.
TEST(TopologyCli, RunWithAFailedChipAndASpareCubeIsWhole) {
  const std::string file = scenario_file("v5p448", R"({"name": "v5p448",
      "hardware": {"preset": "tpu-v5p", "calibrated": false}, "slice": {"shape": [4, 4, 8]}, "mesh": "X=4,Y=4,Z=8",
      "tensors": {"A": {"shape": [8192, 4096], "sharding": "A[E_Z, F]"}},
      "program": [{"op": "all_gather", "name": "gather", "tensor": "A", "axes": ["Z"], "out": "A_full"}],
      "plans": [{"name": "ring"}]})");
  const auto spared = test::run_podsim("run " + file + " --failed-chips 70 --spare-cubes 1 --format json");
  const auto text = test::run_podsim("run " + file + " --failed-chips 70 --spare-cubes 1");
  const auto refused = test::run_podsim("run " + file + " --failed-chips 70");
  std::filesystem::remove(file);
  ASSERT_EQ(spared.code, 0) << spared.err;
  const auto j = nlohmann::json::parse(spared.out);
  const auto& f = j["failures"];
  EXPECT_EQ(f["failed_chips"], nlohmann::json({70}));
  EXPECT_EQ(f["spare_cubes"], 1);
  EXPECT_EQ(f["replaced_cubes"], nlohmann::json({1}));
  const double step = f["plans"][0]["step_s"].get<double>();
  EXPECT_EQ(step, f["plans"][0]["whole_step_s"].get<double>());
  EXPECT_NEAR(step, 7 * (1e-6 + 4194304.0 / 9e10), 1e-12);
  EXPECT_EQ(f["plans"][0]["cost_fraction"], 0.0);
  EXPECT_NE(text.out.find("failures: 1 failed chip: chip 70 (2,0,6); cube 1 (x 0-3, y 0-3, z 4-7) replaced by a spare"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("error: --failed-chips: a sharded program runs on every chip of its slice, so a failed "
                             "chip must be replaced by a spare cube"),
            std::string::npos)
      << refused.err;
  // The shipped scenario gives the chip and the spare; --spare-cubes 0 takes the spare away, and the rule the
  // scenario's own field breaks is located there, not at a flag.
  const std::string shipped = std::string(PODSIM_SOURCE_DIR) + "/scenarios/examples/failed-chip-spare-cube-v5p.json";
  const auto no_spare = test::run_podsim("run " + shipped + " --spare-cubes 0");
  EXPECT_EQ(no_spare.code, 2);
  EXPECT_NE(no_spare.err.find("failed-chip-spare-cube-v5p.json: /slice/failed_chips: a sharded program runs on every "
                              "chip of its slice"),
            std::string::npos)
      << no_spare.err;
}

}  // namespace
}  // namespace podsim
