// `podsim validate`'s reports on hand-made rows: the JSON contract keys and the error arithmetic, the held-out
// summary, the text table and the Markdown page (sim/report/validation_report.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/report/validation.hpp"
#include "sim/report/validation_report.hpp"

namespace podsim {
namespace {

// A time_s row of `file` measured at `measured` seconds with the given predictions.
ValidationRow time_row(const std::string& id, double measured, double book, double des_uncalibrated,
                       double des_calibrated, bool fit, const std::string& file = "data/a.csv") {
  ValidationRow row;
  row.measurement.file = file;
  row.measurement.line = 2;
  row.measurement.id = id;
  row.measurement.kind = MeasurementKind::copy;
  row.measurement.measured = measured;
  row.measurement.fit = fit;
  row.measurement.source = "a profile";
  row.measurement.quote = "it took 2.5 ms";
  row.hardware = "tpu-v5e";
  row.book = book;
  row.des_uncalibrated = des_uncalibrated;
  row.des_calibrated = des_calibrated;
  row.has_calibration = des_calibrated != des_uncalibrated;
  return row;
}

TEST(ValidationReport, RelativeErrorIsPredictedOverMeasuredMinusOne) {
  EXPECT_DOUBLE_EQ(relative_error(2.0e-3, 2.5e-3), -0.2);  // 2 / 2.5 - 1
  EXPECT_DOUBLE_EQ(relative_error(0.5, 0.4), 0.25);        // 0.5 / 0.4 - 1
  EXPECT_DOUBLE_EQ(relative_error(7.0, 7.0), 0.0);
}

TEST(ValidationReport, JsonHasTheContractKeysAndTheErrors) {
  // A copy of 8.2e8 bytes on a v5e (8.2e11 B/s): the book reads and writes them, 2 x 8.2e8 / 8.2e11 = 2 ms,
  // against a measured 2.5 ms: -20%. The des figures are set by hand: 2.2 ms uncalibrated (-12%), 2.5 ms
  // calibrated (0%).
  const std::vector<ValidationRow> rows = {time_row("copy-a", 2.5e-3, 2.0e-3, 2.2e-3, 2.5e-3, true)};
  const nlohmann::json json = report::validation_json(rows);
  EXPECT_EQ(json.at("schema"), "podsim/1");
  ASSERT_EQ(json.at("rows").size(), 1u);
  const nlohmann::json& row = json.at("rows").at(0);
  for (const char* key : {"id", "source", "quantity", "measured", "book", "des_uncalibrated", "des_calibrated",
                          "error_calibrated", "fitted"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row.at("id"), "copy-a");
  EXPECT_EQ(row.at("source"), "a profile");
  EXPECT_EQ(row.at("quantity"), "time_s");
  EXPECT_DOUBLE_EQ(row.at("measured").get<double>(), 2.5e-3);
  EXPECT_DOUBLE_EQ(row.at("book").get<double>(), 2.0e-3);
  EXPECT_NEAR(row.at("error_book").get<double>(), -0.2, 1e-12);
  EXPECT_NEAR(row.at("error_uncalibrated").get<double>(), -0.12, 1e-12);
  EXPECT_NEAR(row.at("error_calibrated").get<double>(), 0.0, 1e-12);
  EXPECT_EQ(row.at("fitted"), true);
  EXPECT_EQ(row.at("kind"), "copy");
  EXPECT_EQ(row.at("calibrated"), true);
  EXPECT_EQ(row.at("quote"), "it took 2.5 ms");
  EXPECT_TRUE(row.at("note").is_null());
  EXPECT_TRUE(row.at("fits_hbm").is_null());  // not a scenario row
}

TEST(ValidationReport, ScenarioRowsSayWhetherTheyFitHbm) {
  std::vector<ValidationRow> rows = {time_row("fits", 1.0, 1.0, 1.0, 1.0, false),
                                     time_row("does-not-fit", 1.0, 1.0, 1.0, 1.0, false)};
  rows[0].fits_hbm = true;
  rows[1].fits_hbm = false;
  const nlohmann::json json = report::validation_json(rows);
  EXPECT_EQ(json.at("rows").at(0).at("fits_hbm"), true);
  EXPECT_EQ(json.at("rows").at(1).at("fits_hbm"), false);
  const std::string markdown = report::validation_markdown(rows);
  EXPECT_NE(markdown.find("| fit | fits HBM |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| held out | NO |"), std::string::npos) << markdown;
}

TEST(ValidationReport, MfuRowsSayTheirQuantity) {
  ValidationRow row = time_row("mfu-a", 0.462, 0.444, 0.406, 0.406, false);
  row.measurement.kind = MeasurementKind::scenario;
  row.measurement.quantity = MeasuredQuantity::mfu;
  const nlohmann::json json = report::validation_json({row}).at("rows").at(0);
  EXPECT_EQ(json.at("quantity"), "mfu");
  EXPECT_EQ(json.at("fitted"), false);
  EXPECT_NEAR(json.at("error_calibrated").get<double>(), 0.406 / 0.462 - 1, 1e-12);
  EXPECT_EQ(json.at("calibrated"), false);
  // MFU prints as a percentage with one decimal.
  const std::string text = report::validation_text({row});
  EXPECT_NE(text.find("46.2%"), std::string::npos) << text;
  EXPECT_NE(text.find("40.6%"), std::string::npos) << text;
  EXPECT_NE(text.find("-12.1%"), std::string::npos) << text;  // 0.406 / 0.462 - 1 = -12.12%
}

TEST(ValidationReport, SummarySeparatesFittedFromHeldOutRows) {
  // Fitted: errors +10% and -30% (mean 20%, max 30%). Held out: +5% (mean = max = 5%).
  const std::vector<ValidationRow> rows = {time_row("f1", 1.0, 1.0, 1.0, 1.1, true),
                                           time_row("f2", 1.0, 1.0, 1.0, 0.7, true),
                                           time_row("h1", 2.0, 2.0, 2.0, 2.1, false)};
  const report::ErrorSummary fitted = report::summarise_errors(rows, true, true);
  EXPECT_EQ(fitted.count, 2u);
  EXPECT_NEAR(fitted.mean_abs, 0.2, 1e-12);
  EXPECT_NEAR(fitted.max_abs, 0.3, 1e-12);
  const report::ErrorSummary held_out = report::summarise_errors(rows, false, true);
  EXPECT_EQ(held_out.count, 1u);
  EXPECT_NEAR(held_out.mean_abs, 0.05, 1e-12);
  EXPECT_NEAR(held_out.max_abs, 0.05, 1e-12);
  // Uncalibrated: every des equals the measurement.
  EXPECT_NEAR(report::summarise_errors(rows, true, false).max_abs, 0.0, 1e-12);
  const nlohmann::json summary = report::validation_json(rows).at("summary");
  EXPECT_EQ(summary.at("held_out").at("calibrated").at("rows"), 1);
  EXPECT_NEAR(summary.at("fitted").at("calibrated").at("mean_abs_error").get<double>(), 0.2, 1e-12);
}

TEST(ValidationReport, TextGroupsByFileAndListsRowsBeyondTenPercent) {
  ValidationRow missed = time_row("far", 1e-3, 1e-3, 1.5e-3, 1.5e-3, false, "data/b.csv");
  missed.note = "the model has no launch cost";
  const std::vector<ValidationRow> rows = {time_row("near", 1e-3, 1e-3, 1.05e-3, 1.05e-3, true), missed};
  const std::string text = report::validation_text(rows);
  const auto a = text.find("data/a.csv"), b = text.find("data/b.csv");
  ASSERT_NE(a, std::string::npos) << text;
  ASSERT_NE(b, std::string::npos) << text;
  EXPECT_LT(a, b);
  EXPECT_NE(text.find("1.5 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("+50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("far (+50.0%): the model has no launch cost"), std::string::npos) << text;
  EXPECT_EQ(text.find("near (+5.0%)"), std::string::npos) << text;  // within 10%: no note line
  EXPECT_NE(text.find("= uncal"), std::string::npos) << text;       // no calibration on these rows
}

TEST(ValidationReport, MarkdownHasTheTablesTheSummaryAndTheNotes) {
  ValidationRow missed = time_row("far", 1e-3, 1e-3, 1.5e-3, 1.5e-3, false, "data/b.csv");
  missed.note = "the model has no launch cost";
  const std::vector<ValidationRow> rows = {time_row("near", 1e-3, 0.9e-3, 1.05e-3, 1.05e-3, true), missed};
  const std::string md = report::validation_markdown(rows);
  EXPECT_EQ(md.rfind("# Validation", 0), 0u) << md;
  EXPECT_NE(md.find("## data/a.csv"), std::string::npos) << md;
  EXPECT_NE(md.find("## data/b.csv"), std::string::npos) << md;
  // near: measured 1 ms, book 900 us (-10.0%), des 1.05 ms (+5.0%), fitted, no calibration.
  EXPECT_NE(md.find("| `near` | tpu-v5e | 1 ms | 900 us | 1.05 ms | = uncal. | -10.0% | +5.0% | +5.0% | fit |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `far` | tpu-v5e | 1 ms | 1 ms | 1.5 ms | = uncal. | +0.0% | +50.0% | +50.0% | held out |"),
            std::string::npos)
      << md;
  // The held-out summary: one fitted row at 5%, one held-out row at 50%.
  EXPECT_NE(md.find("| fit | 1 | 5.0% / 5.0% | 5.0% / 5.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| held out | 1 | 50.0% / 50.0% | 50.0% / 50.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("- `far` (+50.0%): the model has no launch cost"), std::string::npos) << md;
  EXPECT_NE(md.find("- `near`: a profile: \"it took 2.5 ms\"\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- `far`: a profile: \"it took 2.5 ms\" *the model has no launch cost*\n"), std::string::npos)
      << md;
  // Regenerates byte for byte.
  EXPECT_EQ(md, report::validation_markdown(rows));
}

TEST(ValidationReport, MarkdownEscapesTableBars) {
  ValidationRow row = time_row("bar", 1.0, 1.0, 1.0, 1.0, true);
  row.measurement.quote = "| 32B | v5p-128 |";
  const std::string md = report::validation_markdown({row});
  EXPECT_NE(md.find("\"\\| 32B \\| v5p-128 \\|\""), std::string::npos) << md;
}

}  // namespace
}  // namespace podsim
