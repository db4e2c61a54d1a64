// `podsim validate` on serving rows (issue 30 item 6): a serving row runs its serving scenario and reads the figure it
// names. One request alone is worked by hand: its TTFT is the prefill step of its prompt and its TPOT the decode step
// that reads its prompt, each predicted by a scenario row on a model-level scenario (the step programs themselves,
// not the serving grid); its E2E, requests/s and output tokens/s follow from those. Bad serving rows are located.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_run.hpp"

namespace podsim::test {
namespace {

std::string serving_data(const std::string& name) {
  return std::string(PODSIM_TEST_DATA_DIR) + "/data/" + name;
}

const nlohmann::json& serving_row(const nlohmann::json& json, const std::string& id) {
  for (const auto& row : json.at("rows"))
    if (row.at("id") == id) return row;
  throw std::runtime_error("no row " + id + " in " + json.dump());
}

TEST(ValidateServingCli, OneRequestAloneIsItsPrefillThenItsDecodeStep) {
  const CliRun run = run_podsim("validate " + serving_data("serving") + " --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json json = json_of(run);
  ASSERT_EQ(json.at("rows").size(), 7u);
  const nlohmann::json& ttft = serving_row(json, "ttft");
  EXPECT_EQ(ttft.at("kind"), "serving");
  EXPECT_EQ(ttft.at("metric"), "ttft_s.mean");
  EXPECT_EQ(ttft.at("quantity"), "time_s");
  EXPECT_EQ(ttft.at("hardware"), "tpu-v5e");
  EXPECT_EQ(serving_row(json, "tokens").at("quantity"), "per_s");
  EXPECT_TRUE(serving_row(json, "prefill").at("metric").is_null());
  // The prompt's 1024 tokens are a grid point of every table the step model keeps (tokens, keys), and so is a decode
  // reading 1024 tokens, where the step model is the model-level step exactly (docs/serving-step-model.md).
  for (const char* model : {"book", "des_uncalibrated", "des_calibrated"}) {
    SCOPED_TRACE(model);
    const double prefill = serving_row(json, "prefill").at(model).get<double>();
    const double decode = serving_row(json, "decode").at(model).get<double>();
    ASSERT_GT(prefill, 0);
    ASSERT_GT(decode, 0);
    // The request arrives at 0 and is prefilled at once: its first token at the end of that step.
    EXPECT_NEAR(ttft.at(model).get<double>(), prefill, prefill * 1e-9);
    // Its second and last token: one decode step reading the prompt's 1024 tokens.
    EXPECT_NEAR(serving_row(json, "tpot").at(model).get<double>(), decode, decode * 1e-9);
    const double e2e = prefill + decode;
    EXPECT_NEAR(serving_row(json, "e2e").at(model).get<double>(), e2e, e2e * 1e-9);
    // The run lasts from 0 to its last token: one request and two output tokens in e2e seconds.
    EXPECT_NEAR(serving_row(json, "requests").at(model).get<double>(), 1 / e2e, 1e-9 / e2e);
    EXPECT_NEAR(serving_row(json, "tokens").at(model).get<double>(), 2 / e2e, 2e-9 / e2e);
  }
  // v5e carries a calibration (slower MXU and HBM than nominal): the calibrated des is a slower prefill.
  EXPECT_GT(ttft.at("des_calibrated").get<double>(), ttft.at("des_uncalibrated").get<double>());
  EXPECT_EQ(ttft.at("calibrated"), true);
  EXPECT_NEAR(ttft.at("error_book").get<double>(), ttft.at("book").get<double>() / 1e-3 - 1, 1e-9);
}

TEST(ValidateServingCli, TextAndMarkdownShowThroughputsWithTheirUnitAndTheFigure) {
  const CliRun text = run_podsim("validate " + serving_data("serving") + " --rows requests,tokens,ttft");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("900 req/s"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1800 tok/s"), std::string::npos) << text.out;
  const CliRun markdown = run_podsim("validate " + serving_data("serving") + " --rows tokens --markdown");
  ASSERT_EQ(markdown.code, 0) << markdown.err;
  EXPECT_NE(markdown.out.find("- `tokens` (`throughput.output_tokens_per_s`): hand-made: \"1800 tok/s\""),
            std::string::npos)
      << markdown.out;
  EXPECT_NE(markdown.out.find("Serving rows run a serving scenario as `podsim serve` does"), std::string::npos);
  // A page without serving rows keeps its text (docs/validation.md): the paragraph is for pages that have some.
  const CliRun other = run_podsim("validate " + serving_data("serving") + " --rows prefill --markdown");
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_EQ(other.out.find("Serving rows run"), std::string::npos);
}

TEST(ValidateServingCli, AServingRowNeedsAServingScenarioAndAScenarioRowAStepOne) {
  const std::string dir = serving_data("serving-bad");
  const CliRun on_step = run_podsim("validate " + dir + "/serving-on-step.csv");
  EXPECT_EQ(on_step.code, 2);
  EXPECT_NE(on_step.err.find(dir +
                             "/serving-on-step.csv:2: column scenario: a serving row runs a serving scenario "
                             "(workload mode \"serve\"), got: " +
                             dir + "/prefill.json"),
            std::string::npos)
      << on_step.err;
  const CliRun on_serving = run_podsim("validate " + dir + "/step-on-serving.csv");
  EXPECT_EQ(on_serving.code, 2);
  EXPECT_NE(on_serving.err.find(dir + "/step-on-serving.csv:2: column kind: a serving scenario is validated by serving "
                                      "rows (kind serving, a metric), got: scenario"),
            std::string::npos)
      << on_serving.err;
}

// A disaggregated scenario's pools give their parallelism: a plan named by the row is refused at its plan column (the
// serving run refuses the option by its field; `podsim serve --plan` says --plan, ServeDisaggregatedCli).
TEST(ValidateServingCli, APlanOnADisaggregatedScenarioIsLocatedAtThePlanColumn) {
  const std::string file = serving_data("serving-bad") + "/plan-on-disaggregated.csv";
  const CliRun run = run_podsim("validate " + file);
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find(file + ":2: column plan: a disaggregated scenario's pools give their parallelism, got: tp4"),
            std::string::npos)
      << run.err;
}

// A file may mix rows: `podsim calibrate` fits the copy row and skips the serving one, saying why.
TEST(ValidateServingCli, CalibrateSkipsServingRows) {
  const CliRun run = run_podsim("calibrate " + serving_data("serving-calibrate") + "/rows.csv --hardware tpu-v5e");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("1 fit rows"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("skipped ttft (a serving row: podsim validate predicts it)"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace podsim::test
