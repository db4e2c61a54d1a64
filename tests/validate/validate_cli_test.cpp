// `podsim validate` end to end: rows predicted from hand-made CSV files (a copy by the book's HBM roofline, a
// scenario's step time, a model-level scenario's step time and MFU), the located errors of bad files (exit 2), and
// docs/validation.md kept equal to what the command generates.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/cli_run.hpp"

namespace podsim::test {
namespace {

std::string data(const std::string& name) {
  return std::string(PODSIM_TEST_DATA_DIR) + "/data/" + name;
}

const nlohmann::json& row_of(const nlohmann::json& json, const std::string& id) {
  for (const auto& row : json.at("rows"))
    if (row.at("id") == id) return row;
  throw std::runtime_error("no row " + id + " in " + json.dump());
}

TEST(ValidateCli, CopyRowIsTheHbmRooflineAndScenarioRowsRunTheirPlan) {
  const CliRun run = run_podsim("validate " + data("good") + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json json = json_of(run);
  EXPECT_EQ(json.at("schema"), "podsim/1");
  ASSERT_EQ(json.at("rows").size(), 3u);
  // copy: 820,000,000 bytes read and written once from v5e's 8.2e11 B/s HBM: 2 x 8.2e8 / 8.2e11 = 2 ms, against
  // the 2.5 ms of the row: -20%.
  const nlohmann::json& copy = row_of(json, "copy-v5e");
  EXPECT_NEAR(copy.at("measured").get<double>(), 2.5e-3, 1e-15);
  EXPECT_NEAR(copy.at("book").get<double>(), 2.0e-3, 2.0e-3 * 1e-12);
  EXPECT_NEAR(copy.at("error_book").get<double>(), -0.2, 1e-9);
  EXPECT_EQ(copy.at("fitted"), true);
  EXPECT_NEAR(copy.at("error_calibrated").get<double>(),
              copy.at("des_calibrated").get<double>() / copy.at("measured").get<double>() - 1, 1e-12);
  // The scenario's unsharded plan: each chip multiplies [512, 2048] by [2048, 2048] in f32 at the scenario's
  // 1.9174e13 FLOP/s, 2 x 512 x 2048 x 2048 / 1.9174e13 = 223.9995 us, book and des alike (no communication).
  const double matmul = 2.0 * 512 * 2048 * 2048 / 1.9174e13;
  const nlohmann::json& scenario = row_of(json, "unsharded-matmul");
  EXPECT_NEAR(scenario.at("book").get<double>(), matmul, matmul * 1e-9);
  EXPECT_NEAR(scenario.at("des_uncalibrated").get<double>(), matmul, matmul * 1e-6);
  EXPECT_NEAR(scenario.at("error_book").get<double>(), matmul / 224e-6 - 1, 1e-9);
  EXPECT_EQ(scenario.at("fitted"), false);
  EXPECT_EQ(scenario.at("kind"), "scenario");
  EXPECT_EQ(scenario.at("hardware"), "tpu-v5e");
  EXPECT_EQ(scenario.at("note"), "the scenario's f32 rate is calibrated on this figure");
  // The scenario runs uncalibrated ("calibrated": false, for its hand-worked expectations); validation's calibrated
  // des applies v5e's calibration all the same. Its uncalibrated des is the hand-worked one: the matmul plus three
  // hops of a 1 MiB block, 3 x (1 us + 1048576 / 4.5e10); the calibration (slower links, a cost per step) only
  // lengthens the gather.
  const nlohmann::json& gathered = row_of(json, "default-matmul");
  const double uncalibrated = matmul + 3 * (1e-6 + 1048576 / 4.5e10);
  EXPECT_NEAR(gathered.at("des_uncalibrated").get<double>(), uncalibrated, uncalibrated * 1e-6);
  EXPECT_EQ(gathered.at("calibrated"), true);
  EXPECT_GT(gathered.at("des_calibrated").get<double>(), uncalibrated * 1.001);
  // fits_hbm: a scenario row's plan against the chip's HBM (a few MiB of a v5e's 16 GiB); null for the copy row.
  EXPECT_EQ(scenario.at("fits_hbm"), true);
  EXPECT_TRUE(copy.at("fits_hbm").is_null());
}

TEST(ValidateCli, ModelScenarioMfuIsModelFlopsOverChipsPeakAndStep) {
  const CliRun run = run_podsim("validate " + data("model") + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json json = json_of(run);
  const nlohmann::json& step = row_of(json, "tiny-step");
  const nlohmann::json& mfu = row_of(json, "tiny-mfu");
  EXPECT_EQ(mfu.at("quantity"), "mfu");
  // Matmul parameters (docs/capacity.md, "MFU"): attention 4 x 256 x (4 x 64) = 262,144 and the plain MLP 2 x 256 x
  // 512 = 262,144 per layer, twice; the unembedding 1024 x 256 = 262,144 (the input embedding is a lookup, the norms
  // elementwise): N = 1,310,720. Training FLOPs per token 6 N = 7,864,320 plus attention 12 x 128 x (4 x 64) x 2
  // layers = 786,432; 4096 tokens per step: 35,433,480,192 model FLOPs. MFU = FLOPs / (4 chips x 1.97e14 x step
  // time), by the book and by the des.
  const double flops = (6.0 * 1310720 + 12.0 * 128 * 256 * 2) * 4096;
  ASSERT_DOUBLE_EQ(flops, 35433480192.0);
  const double peak = 4 * 1.97e14;
  EXPECT_NEAR(mfu.at("book").get<double>() * peak * step.at("book").get<double>(), flops, flops * 1e-9);
  EXPECT_NEAR(mfu.at("des_uncalibrated").get<double>() * peak * step.at("des_uncalibrated").get<double>(), flops,
              flops * 1e-9);
  EXPECT_GT(step.at("book").get<double>(), 0);
  EXPECT_GT(step.at("des_uncalibrated").get<double>(), 0);
  EXPECT_NEAR(mfu.at("error_uncalibrated").get<double>(), mfu.at("des_uncalibrated").get<double>() / 0.5 - 1, 1e-12);
  EXPECT_EQ(mfu.at("fits_hbm"), true);  // a 2-layer model of d_model 256 on 4 chips
}

TEST(ValidateCli, RowsFlagKeepsTheNamedRows) {
  const CliRun run = run_podsim("validate " + data("good") + " --json --rows unsharded-matmul");
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json json = json_of(run);
  ASSERT_EQ(json.at("rows").size(), 1u);
  EXPECT_EQ(json.at("rows").at(0).at("id"), "unsharded-matmul");
}

TEST(ValidateCli, TextAndMarkdownNameTheFile) {
  const CliRun text = run_podsim("validate " + data("good") + " --rows unsharded-matmul");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find(data("good") + "/rows.csv"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("unsharded-matmul"), std::string::npos) << text.out;
  const CliRun md = run_podsim("validate " + data("good") + " --markdown --rows unsharded-matmul");
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("## " + data("good") + "/rows.csv"), std::string::npos) << md.out;
  // A page of other folders than the default names the command that regenerates it (docs/validation.md's names
  // its own, and the test that compares it).
  EXPECT_NE(md.out.find("<!-- Generated by `./build/podsim validate " + data("good") +
                        " --markdown` (run from the repository root);\n     do not edit by hand: regenerate it with "
                        "the same command. -->"),
            std::string::npos)
      << md.out;
  EXPECT_EQ(md.out.find("ValidateDoc"), std::string::npos) << md.out;
}

// Runs `podsim validate ARGS`, expects exit 2 and returns stderr.
std::string bad(const std::string& args) {
  const CliRun run = run_podsim("validate " + args);
  EXPECT_EQ(run.code, 2) << args << "\n" << run.out << run.err;
  return run.err;
}

TEST(ValidateCli, DuplicateIdsAcrossFilesAreLocated) {
  const std::string err = bad(data("dup"));
  EXPECT_NE(err.find(data("dup") + "/b.csv:3: column id: ids are unique across the files, got: same (also at " +
                     data("dup") + "/a.csv:2)"),
            std::string::npos)
      << err;
}

TEST(ValidateCli, RowWithoutHardwareIsLocated) {
  const std::string err = bad(data("no-hardware"));
  EXPECT_NE(err.find(data("no-hardware") + "/rows.csv:2: column hardware:"), std::string::npos) << err;
}

TEST(ValidateCli, UnknownPlanIsLocated) {
  const std::string err = bad(data("bad-plan"));
  EXPECT_NE(err.find(data("bad-plan") + "/rows.csv:2: column plan: the scenario has no such plan, got: no-such-plan"),
            std::string::npos)
      << err;
}

TEST(ValidateCli, MfuOfAProgramScenarioIsLocated) {
  const std::string err = bad(data("mfu-program"));
  EXPECT_NE(err.find(data("mfu-program") + "/rows.csv:2: column quantity: mfu needs a model-level scenario"),
            std::string::npos)
      << err;
}

TEST(ValidateCli, NoteForNoRowIsLocated) {
  const std::string err = bad(data("bad-notes"));
  EXPECT_NE(err.find(data("bad-notes") + "/notes.json: /ghost: no row has this id, got: ghost"), std::string::npos)
      << err;
}

TEST(ValidateCli, AFileNamedAloneLeavesItsFoldersOtherNotesAlone) {
  // bad-notes/notes.json has a note for a row no file has: stale when the folder is read whole, not when one file of
  // it is named (the note may be for a sibling file left out).
  const std::string file = data("bad-notes") + "/rows.csv";
  const CliRun run = run_podsim("validate " + file + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("\"rows\""), std::string::npos) << run.out;
}

TEST(ValidateCli, UnknownColumnIsLocatedAtTheFile) {
  const std::string err = bad(data("bad-column"));
  EXPECT_NE(err.find(data("bad-column") + "/rows.csv"), std::string::npos) << err;
  EXPECT_NE(err.find("colour"), std::string::npos) << err;
}

TEST(ValidateCli, FlagErrorsAreLocated) {
  EXPECT_NE(bad(data("good") + " --rows nobody").find("error: --rows: no row has this id, got: nobody"),
            std::string::npos);
  EXPECT_NE(bad(data("good") + " --json --markdown").find("error: --markdown: give --json or --markdown, not both"),
            std::string::npos);
  EXPECT_NE(bad(data("no-such-folder")).find("error: " + data("no-such-folder") + ": cannot read the folder"),
            std::string::npos);
  EXPECT_NE(bad(data("model/tiny-model.json")).find("tiny-model.json"), std::string::npos);  // not a CSV
}

// docs/validation.md is what `podsim validate --markdown` prints from the repository root: regenerate it with
//   ./build/podsim validate --markdown > docs/validation.md
TEST(ValidateDoc, CommittedPageMatchesTheCommand) {
  const std::string command =
      std::string("cd ") + PODSIM_SOURCE_DIR + " && " + PODSIM_BINARY + " validate --markdown 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string generated;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    generated.append(buffer, n);
  ASSERT_EQ(pclose(pipe), 0) << "podsim validate --markdown failed";
  std::ifstream file(std::string(PODSIM_SOURCE_DIR) + "/docs/validation.md");
  ASSERT_TRUE(file) << "docs/validation.md is missing";
  std::stringstream committed;
  committed << file.rdbuf();
  EXPECT_EQ(committed.str(), generated)
      << "docs/validation.md differs from `podsim validate --markdown`: regenerate it from the repository root with\n"
         "  ./build/podsim validate --markdown > docs/validation.md";
}

}  // namespace
}  // namespace podsim::test
