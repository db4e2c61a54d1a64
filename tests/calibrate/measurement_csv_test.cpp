// The measurement CSV (sim/calibrate/measurement.hpp): RFC 4180 records, columns by header name, typed rows, and
// errors located at FILE:LINE: column NAME with the value.
#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "sim/calibrate/measurement.hpp"

namespace podsim {
namespace {

std::string csv_error_of(const std::string& text) {
  try {
    read_measurements(text, "data/m.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError for:\n" << text;
  return "";
}

TEST(MeasurementCsv, ReadsEachKindByHeaderNameInAnyOrder) {
  const std::string text =
      "measured,id,kind,op,slice,axes,bytes,wrap,m,k,n,scenario,plan,quantity,fit,source,quote\n"
      "680us,ag,collective,all-gather,4x4,X,34MB,none,,,,,,,yes,scaling book,\"about 680us, measured\"\n"
      "1.5e-3,mm,matmul,,,,,,1024,2048,4096,,,,no,,\n"
      "2ms,cp,copy,,,,1GiB,,,,,,,,,,\n"
      "46.2%,palm,scenario,,,,,,,,,runs/palm.json,p1,mfu,,PaLM,\"say \"\"46.2%\"\"\"\n";
  const auto rows = read_measurements(text, "data/m.csv");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].id, "ag");
  EXPECT_EQ(rows[0].line, 2);
  EXPECT_EQ(rows[0].kind, MeasurementKind::collective);
  EXPECT_DOUBLE_EQ(rows[0].measured, 680e-6);
  EXPECT_EQ(rows[0].op, CollectiveKind::all_gather);
  EXPECT_EQ(rows[0].slice, (Shape{4, 4}));
  EXPECT_EQ(rows[0].axes, (std::vector<std::string>{"X"}));
  EXPECT_EQ(rows[0].bytes, 34000000u);
  EXPECT_EQ(rows[0].wrap.mode, WrapMode::none);
  EXPECT_TRUE(rows[0].fit);
  EXPECT_EQ(rows[0].quote, "about 680us, measured");
  EXPECT_EQ(rows[1].kind, MeasurementKind::matmul);
  EXPECT_EQ(rows[1].m, 1024);
  EXPECT_EQ(rows[1].k, 2048);
  EXPECT_EQ(rows[1].n, 4096);
  EXPECT_FALSE(rows[1].fit);
  EXPECT_EQ(rows[2].bytes, std::uint64_t{1} << 30);
  EXPECT_DOUBLE_EQ(rows[2].measured, 2e-3);
  EXPECT_EQ(rows[3].quantity, MeasuredQuantity::mfu);
  EXPECT_DOUBLE_EQ(rows[3].measured, 0.462);
  EXPECT_EQ(rows[3].scenario, "data/runs/palm.json");
  EXPECT_EQ(rows[3].plan, "p1");
  EXPECT_EQ(rows[3].quote, "say \"46.2%\"");
}

// Issue 33, class 6: Excel writes a UTF-8 byte order mark first; it was read as part of the first column's name.
TEST(MeasurementCsv, AByteOrderMarkFirstIsSkipped) {
  const std::vector<Measurement> rows =
      read_measurements("\xEF\xBB\xBFid,kind,measured,bytes\na,copy,1ms,1000\n", "m.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, "a");
  EXPECT_DOUBLE_EQ(rows[0].measured, 1e-3);
}

TEST(MeasurementCsv, AQuotedFieldMayHoldALineBreakAndLinesCountFromIt) {
  const std::string text =
      "id,kind,measured,bytes,quote\r\n"
      "a,copy,1ms,1000,\"two\nlines\"\r\n"
      "\n"
      "b,copy,bad,1000,\n";
  EXPECT_EQ(csv_error_of(text),
            "data/m.csv:5: column measured: duration: expected a number with an optional unit, got: \"bad\"");
}

TEST(MeasurementCsv, ErrorsNameFileLineColumnAndValue) {
  const std::string head = "id,kind,measured,op,slice,axes,bytes,m,k,n\n";
  EXPECT_EQ(csv_error_of(head + "a,collective,680us,all-gather,4x4,X,,,,\n"),
            "data/m.csv:2: column bytes: a collective row needs it, got: an empty cell");
  EXPECT_EQ(csv_error_of(head + "a,matmul,1ms,all-gather,,,,1,2,3\n"),
            "data/m.csv:2: column op: a matmul row does not use it, got: \"all-gather\"");
  EXPECT_EQ(csv_error_of(head + "a,matmul,1ms,,,,,1,-2,3\n"),
            "data/m.csv:2: column k: must be a positive integer, got: \"-2\"");
  EXPECT_EQ(csv_error_of(head + "a,gemm,1ms,,,,,1,2,3\n"),
            "data/m.csv:2: column kind: must be one of collective, matmul, copy, scenario, serving, got: \"gemm\"");
  EXPECT_EQ(csv_error_of(head + "a,matmul,1ms,,,,,1,2,3\na,matmul,1ms,,,,,1,2,3\n"),
            "data/m.csv:3: column id: ids must be unique in the file, got: \"a\"");
  EXPECT_EQ(csv_error_of(head + "a,matmul,0,,,,,1,2,3\n"),
            "data/m.csv:2: column measured: a measured time must be > 0 s, got: \"0\"");
  EXPECT_EQ(csv_error_of(head + "a,collective,1ms,all-gather,4x4,X++Y,1000,,,\n"),
            "data/m.csv:2: column axes: mesh axes are names joined by '+' (e.g. X or X+Y), got: \"X++Y\"");
  EXPECT_EQ(csv_error_of(head + "a,matmul,1ms,,,,,1,2\n"),
            "data/m.csv:2: a row has as many fields as the header (10), got: 9");
  EXPECT_EQ(csv_error_of("id,kind,measured,colour\n"),
            "data/m.csv:1: column 4: unknown column (known: id, kind, quantity, measured, hardware, op, slice, axes, "
            "bytes, wrap, dtype, m, k, n, scenario, plan, metric, fit, source, quote), got: colour");
  EXPECT_EQ(csv_error_of("id,measured\n"), "data/m.csv:1: column kind: the header must name it, got: 2 columns");
  EXPECT_EQ(csv_error_of("id,kind,measured,quote\na,copy,1ms,\"open\n"),
            "data/m.csv:2: a quoted field must be closed, got: end of file");
  EXPECT_EQ(csv_error_of(""), "data/m.csv: a measurement CSV needs a header line, got: an empty file");
}

// A serving row (issue 30 item 6): a serving scenario and the figure of `podsim serve --json` it measured, whose kind
// of value (a throughput per second or a latency) decides how `measured` is read.
TEST(MeasurementCsv, ServingRowsNameTheirScenarioAndFigure) {
  const std::string text =
      "id,kind,scenario,metric,measured,plan\n"
      "tok,serving,runs/serve.json,throughput.output_tokens_per_s,2494.80,\n"
      "req,serving,runs/serve.json,throughput.requests_per_s,2.49,tp8\n"
      "ttft,serving,runs/serve.json,ttft_s.p50,198.81ms,\n"
      "tpot,serving,runs/serve.json,tpot_s.mean,0.02535,\n"
      "itl,serving,runs/serve.json,itl_s.p99,40.75ms,\n"
      "e2e,serving,runs/serve.json,e2e_s.p90,30s,\n";
  const auto rows = read_measurements(text, "data/m.csv");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].kind, MeasurementKind::serving);
  EXPECT_EQ(rows[0].scenario, "data/runs/serve.json");
  EXPECT_EQ(rows[0].figure.family, ServingFigure::Family::output_tokens_per_s);
  EXPECT_EQ(rows[0].quantity, MeasuredQuantity::per_s);
  EXPECT_DOUBLE_EQ(rows[0].measured, 2494.8);
  EXPECT_EQ(rows[1].figure.family, ServingFigure::Family::requests_per_s);
  EXPECT_EQ(rows[1].plan, "tp8");
  EXPECT_DOUBLE_EQ(rows[1].measured, 2.49);
  EXPECT_EQ(rows[2].figure.family, ServingFigure::Family::ttft);
  EXPECT_EQ(rows[2].figure.statistic, ServingFigure::Statistic::p50);
  EXPECT_EQ(rows[2].quantity, MeasuredQuantity::time_s);
  EXPECT_DOUBLE_EQ(rows[2].measured, 0.19881);
  EXPECT_EQ(rows[3].figure.family, ServingFigure::Family::tpot);
  EXPECT_EQ(rows[3].figure.statistic, ServingFigure::Statistic::mean);
  EXPECT_DOUBLE_EQ(rows[3].measured, 0.02535);
  EXPECT_EQ(rows[4].figure.family, ServingFigure::Family::itl);
  EXPECT_EQ(rows[4].figure.statistic, ServingFigure::Statistic::p99);
  EXPECT_EQ(rows[5].figure.family, ServingFigure::Family::e2e);
  EXPECT_EQ(rows[5].figure.statistic, ServingFigure::Statistic::p90);
  EXPECT_DOUBLE_EQ(rows[5].measured, 30.0);
  EXPECT_TRUE(predicted_by_validate(MeasurementKind::serving));
  EXPECT_TRUE(predicted_by_validate(MeasurementKind::scenario));
  EXPECT_FALSE(predicted_by_validate(MeasurementKind::copy));
}

TEST(MeasurementCsv, ServingFigureNamesAreTheServeJsonPaths) {
  for (const char* name : {"throughput.requests_per_s", "throughput.output_tokens_per_s", "ttft_s.mean", "ttft_s.p90",
                           "tpot_s.p50", "itl_s.mean", "e2e_s.p99"}) {
    const std::optional<ServingFigure> figure = parse_serving_figure(name);
    ASSERT_TRUE(figure.has_value()) << name;
    EXPECT_EQ(serving_figure_name(*figure), name);
  }
  for (const char* name :
       {"", "ttft_s", "ttft_s.p95", "requests_per_s", "throughput.requests_per_s.mean", "TTFT_S.p50"})
    EXPECT_FALSE(parse_serving_figure(name).has_value()) << name;
}

TEST(MeasurementCsv, BadServingRowsAreLocated) {
  const std::string head = "id,kind,scenario,metric,measured,quantity,op\n";
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,,2.5,,\n"),
            "data/m.csv:2: column metric: a serving row needs it, got: an empty cell");
  EXPECT_EQ(csv_error_of(head + "a,serving,,ttft_s.p50,1s,,\n"),
            "data/m.csv:2: column scenario: a serving row needs it, got: an empty cell");
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,ttft_s.p95,1s,,\n"),
            "data/m.csv:2: column metric: must be a figure of podsim serve --json: throughput.requests_per_s, "
            "throughput.output_tokens_per_s, or ttft_s, tpot_s, itl_s, e2e_s with .mean, .p50, .p90 or .p99, got: "
            "\"ttft_s.p95\"");
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,ttft_s.p50,1s,time_s,\n"),
            "data/m.csv:2: column quantity: a serving row does not use it, got: \"time_s\"");
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,ttft_s.p50,1s,,all-gather\n"),
            "data/m.csv:2: column op: a serving row does not use it, got: \"all-gather\"");
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,throughput.requests_per_s,2.5/s,,\n"),
            "data/m.csv:2: column measured: a measured throughput is a number per second > 0 (e.g. 2494.8), got: "
            "\"2.5/s\"");
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,throughput.output_tokens_per_s,0,,\n"),
            "data/m.csv:2: column measured: a measured throughput is a number per second > 0 (e.g. 2494.8), got: "
            "\"0\"");
  EXPECT_EQ(csv_error_of(head + "a,serving,s.json,tpot_s.mean,-25ms,,\n"),
            "data/m.csv:2: column measured: a measured time must be > 0 s, got: \"-25ms\"");
  EXPECT_EQ(csv_error_of("id,kind,bytes,metric,measured\na,copy,1000,ttft_s.p50,1ms\n"),
            "data/m.csv:2: column metric: a copy row does not use it, got: \"ttft_s.p50\"");
}

TEST(MeasurementCsv, ALongValueIsCutInTheMessage) {
  const std::string id(200, 'x');
  const std::string message = csv_error_of("id,kind,measured\n" + id + ",copy,1ms\n");
  EXPECT_NE(message.find("column bytes: a copy row needs it"), std::string::npos) << message;
  const std::string kind(200, 'k');
  const std::string cut = csv_error_of("id,kind,measured\na," + kind + ",1ms\n");
  EXPECT_LT(cut.size(), 200u) << cut;
  EXPECT_NE(cut.find("..."), std::string::npos) << cut;
}

}  // namespace
}  // namespace podsim
