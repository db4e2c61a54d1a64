// `podsim collective` end to end, against the seed notes' worked answers and hand-worked schedules.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::json_of;
using podsim::test::run_podsim;

TEST(CollectiveCli, PopQuizTwoBookAndSimulation) {
  // v5e 8x4 (no wraparound: v5e wraps only axes of 16), AllGather_Y of bf16[2048, 8192] as [E_Y, F]:
  // shard 512 x 8192 x 2 = 8,388,608 B; book (N-1) shard / W_uni = 3 x 8388608 / 4.5e10 = 559.24 us;
  // the line schedule adds one alpha per step: 3 x (1 us + 186.41 us) = 562.24 us (the preset's figures: the des
  // without the preset's calibration).
  const CliRun run = run_podsim(
      "collective --hardware tpu-v5e --slice 8x4 --op all-gather --axes Y --shape 2048x8192 --dtype bf16 "
      "--sharding 'A[E_Y, F]' --json --uncalibrated");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_EQ(j["schema"], "podsim/1");
  EXPECT_FALSE(j["des"].contains("calibrated"));
  EXPECT_EQ(j["op"], "all-gather");
  EXPECT_EQ(j["group_size"], 4);
  EXPECT_EQ(j["shard_bytes"], 8388608);
  EXPECT_EQ(j["array_bytes"], 33554432);
  EXPECT_EQ(j["wraparound"], nlohmann::json({false, false}));
  const double book = 3 * 8388608 / 4.5e10;
  EXPECT_NEAR(j["book"]["time_s"].get<double>(), book, 1e-15);
  EXPECT_EQ(j["book"]["bound"], "bandwidth");
  EXPECT_NEAR(j["des"]["time_s"].get<double>(), book + 3e-6, 1e-12);
  EXPECT_EQ(j["des"]["algorithm"], "line");
  EXPECT_EQ(j["des"]["max_link_bytes"], 3 * 8388608);
  EXPECT_NEAR(j["ratio_des_over_book"].get<double>(), (book + 3e-6) / book, 1e-12);
}

TEST(CollectiveCli, PopQuizTwoLatencyBound) {
  // E = F = 256: a Y shard holds 256/4 = 64 rows -> 64 x 256 x 2 = 32,768 B (the notes' 32 kB). Bandwidth
  // 3 x 32768 / 4.5e10 = 2.18 us < 3 hops x 1 us: latency-bound at 3 us.
  const CliRun run = run_podsim(
      "collective --hardware tpu-v5e --slice 8x4 --op all-gather --axes Y --shape 256x256 --sharding 'A[E_Y, F]' "
      "--json --model book");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_EQ(j["shard_bytes"], 32768);
  EXPECT_EQ(j["book"]["bound"], "latency");
  EXPECT_NEAR(j["book"]["time_s"].get<double>(), 3e-6, 1e-18);
  EXPECT_FALSE(j.contains("des"));
}

TEST(CollectiveCli, QuestionTwoAllReduceOverZ) {
  // v4 4x4x4 torus, AllReduce_Z([B_X, D_Y]{U_Z}) with B = 1024, D = 4096 bf16: V = 2BD/(|X||Y|) = 524,288 B;
  // book 2 V / W_bidi = 2 x 524288 / 9e10 = 11.65 us. The split ring on 4 chips: reduce-scatter then all-gather,
  // each 3 steps of half a quarter: 6 (alpha + 65536/W) = 6 us + 8.738 us. Each reduce-scatter step also adds
  // the two chunks received (one per direction) on the chip's one compute resource: 2 x 32768 adds at 2.75e14.
  const CliRun run = run_podsim(
      "collective --hardware tpu-v4 --slice 4x4x4 --op all-reduce --axes Z --shape 1024x4096 "
      "--sharding 'A[B_X, D_Y]{U_Z}' --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_EQ(j["array_bytes"], 524288);
  EXPECT_NEAR(j["book"]["time_s"].get<double>(), 2 * 524288 / 9e10, 1e-15);
  const double chunk = 524288.0 / 4 / 2;      // a quarter of the array, half each way
  const double reduce = chunk / 2 / 2.75e14;  // one add per bf16 element at the v4 peak
  EXPECT_NEAR(j["des"]["time_s"].get<double>(), 6 * (1e-6 + chunk / 4.5e10) + 3 * 2 * reduce, 1e-15);
}

TEST(CollectiveCli, LinkLedgerCsv) {
  const auto path = std::filesystem::temp_directory_path() / ("podsim_links_" + std::to_string(getpid()) + ".csv");
  const CliRun run =
      run_podsim("collective --slice 4 --wrap none --op all-gather --axes X --array-bytes 4000 --links " +
                 path.string() + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "link,name,src,dst,dim,direction,bytes,messages,busy_s,utilisation");
  // A line of 4 chips with 1000-byte shards: link i -> i+1 carries shards 0..i, link i -> i-1 shards i..3.
  std::map<std::string, long> bytes;
  for (std::string line; std::getline(in, line);) {
    std::stringstream row(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');)
      cells.push_back(cell);
    bytes[cells[1]] = std::stol(cells[6]);
  }
  EXPECT_EQ(bytes.size(), 6u);
  EXPECT_EQ(bytes["ici.x+.0"], 1000);
  EXPECT_EQ(bytes["ici.x+.2"], 3000);
  EXPECT_EQ(bytes["ici.x-.1"], 3000);
  EXPECT_EQ(bytes["ici.x-.3"], 1000);
  std::filesystem::remove(path);
}

TEST(CollectiveCli, BadInputNamesTheFlag) {
  CliRun run = run_podsim("collective --slice 8x4 --op all-gather --axes W --array-bytes 1MiB");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --axes: mesh mapping: unknown axis \"W\" (axes: \"X\", \"Y\")\n");
  run = run_podsim("collective --slice 8x4 --op all-reduce --axes Y --shape 64x64 --sharding 'A[E_Y, F]'");
  EXPECT_EQ(run.err,
            "error: --axes: an all-reduce over Y needs the tensor unreduced over it ({U_Y}), got: A[E_Y, F]\n");
  run = run_podsim("collective --slice 8x4 --op all-gather --axes X --shape 64x64 --sharding 'A[E_Y, F]'");
  EXPECT_EQ(
      run.err,
      "error: --axes: axis X does not shard the tensor, so an all-gather over it moves nothing, got: A[E_Y, F]\n");
  run = run_podsim("collective --slice 8x4 --wrap 5 --op all-gather --axes X --array-bytes 1000");
  EXPECT_EQ(run.err, "error: --wrap: wraparound dim out of range [0, 2), got: 5\n");
  run = run_podsim("collective --hardware h100 --slice 8 --op all-gather --axes X --array-bytes 1000");
  EXPECT_EQ(run.err, "error: --hardware: the preset has no ICI links, so collectives cannot run on it, got: h100\n");
  run = run_podsim("collective --slice 8x4 --op broadcast --axes X --array-bytes 1000 --json");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(json_of(run)["error"]["where"], "--op");
}

}  // namespace

namespace {

TEST(CollectiveCli, LimitsAreInputErrors) {
  CliRun run = run_podsim("collective --slice 4x4 --op all-gather --axes X --array-bytes 18446744073709551615");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err,
            "error: --array-bytes: the array must hold 1 byte to 2^50 bytes (1 PiB), got: 18446744073709551615\n");
  run = run_podsim("collective --slice 4x4 --op all-gather --axes X --array-bytes 0");
  EXPECT_EQ(run.code, 2);
  run = run_podsim("collective --slice 1000x1000x1000 --wrap none --op all-gather --axes X --array-bytes 100");
  EXPECT_EQ(run.err, "error: --slice: a slice has at most 65536 chips, got: 1000x1000x1000\n");
  run = run_podsim("collective --slice 4x4 --op all-gather --axes X --array-bytes 1000 --hop-latency -1us");
  EXPECT_EQ(run.err, "error: --hop-latency: per-hop latency must be >= 0 s, got: -1e-06\n");
  // v5e's pod is 2D: a 3D slice has no place in it (a 1D one lies along its first axis).
  run = run_podsim("collective --slice 4x4x4 --op all-gather --axes X --array-bytes 1000");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("choose --wrap none, all or dims"), std::string::npos) << run.err;
  // A direct all-to-all over 65536 chips: 65536 x 65535 transfers, refused before anything is built; the book
  // model alone still answers.
  run = run_podsim("collective --slice 65536 --wrap none --op all-to-all --axes X --array-bytes 1GiB");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err,
            "error: --slice: the simulation would build about 4294901760 transfers (about 688 GiB of event graph), "
            "above the limit of 50000000 (docs/reliability.md): use fewer chips per axis, or the book model\n");
  run = run_podsim("collective --slice 65536 --wrap none --op all-to-all --axes X --array-bytes 1GiB --model book");
  EXPECT_EQ(run.code, 0) << run.err;
}

// A calibration overlay whose link-efficiency curve holds over 1 MiB..4 MiB (efficiency 0.5 and 0.8).
std::string write_curve_overlay() {
  const auto dir = std::filesystem::temp_directory_path() / ("podsim-curve-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "curve-v5e.json";
  std::ofstream(path) << R"({"name": "curve-v5e", "description": "v5e with a short curve", "base": "tpu-v5e",
    "calibration": {"link_efficiency": {"points": [{"at": 1048576, "efficiency": 0.5},
                                                   {"at": 4194304, "efficiency": 0.8}], "source": "test"}}})";
  return path.string();
}

TEST(CollectiveCli, MessagesOutsideTheFittedCurveAreFlagged) {
  // The unidirectional ring on 4 chips sends whole shards: V = 32 MiB gives 8 MiB messages, beyond the curve's
  // 4 MiB end (the efficiency there is the end's, held flat: an extrapolation the report says).
  const std::string overlay = write_curve_overlay();
  const std::string query = "collective --hardware " + overlay +
                            " --slice 4 --wrap all --op all-gather --axes X --algorithm unidirectional --model des";
  const CliRun text = run_podsim(query + " --array-bytes 33554432");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("link efficiency extrapolated: messages of 8 MiB outside the fitted range 1 MiB..4 MiB"),
            std::string::npos)
      << text.out;
  const CliRun json = run_podsim(query + " --array-bytes 33554432 --json");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = json_of(json);
  EXPECT_EQ(j["des"]["calibration_extrapolated"], true);
  EXPECT_EQ(j["des"]["extrapolated_message_bytes"], nlohmann::json({8388608}));
  EXPECT_EQ(j["des"]["link_efficiency_range_bytes"], nlohmann::json({1048576.0, 4194304.0}));

  // V = 8 MiB: 2 MiB messages, inside the range: nothing flagged.
  const CliRun inside = run_podsim(query + " --array-bytes 8388608 --json");
  ASSERT_EQ(inside.code, 0) << inside.err;
  const auto k = json_of(inside);
  EXPECT_EQ(k["des"]["calibrated"], true);
  EXPECT_EQ(k["des"]["calibration_extrapolated"], false);
  EXPECT_FALSE(k["des"].contains("extrapolated_message_bytes"));
  const CliRun inside_text = run_podsim(query + " --array-bytes 8388608");
  EXPECT_EQ(inside_text.out.find("extrapolated"), std::string::npos) << inside_text.out;

  // V = 1 MiB: 256 KiB messages, below the curve's first point.
  const CliRun below = run_podsim(query + " --array-bytes 1048576 --json");
  ASSERT_EQ(below.code, 0) << below.err;
  EXPECT_EQ(json_of(below)["des"]["extrapolated_message_bytes"], nlohmann::json({262144}));
  std::filesystem::remove_all(std::filesystem::path(overlay).parent_path());
}

}  // namespace
