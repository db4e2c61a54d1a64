// The sweep file: parameters expanded (values, ranges by step and by times), combined by product and zip, and every
// rule of docs/sweeps.md's "Constraints" list on its exact message. Counts and values are worked by hand.
#include "sim/sweep/sweep_spec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/common/error.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/sweep/sweep_evaluation.hpp"
#include "sim/sweep/sweep_points.hpp"

namespace podsim {
namespace {

const std::string kSpecBase =
    R"({"name": "t", "tensors": {"x": {"shape": [8, 16]}}, "hardware": "tpu-v5e", "dtype": "bf16"})";

SweepSpec sweep_of(const std::string& parameters, const std::string& extra = "") {
  return load_sweep_text(R"({"base": )" + kSpecBase + R"(, "parameters": )" + parameters + extra + "}", "s.json");
}

std::string error_of(const std::string& text) {
  try {
    load_sweep_text(text, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string sweep_error(const std::string& parameters, const std::string& extra = "") {
  return error_of(R"({"base": )" + kSpecBase + R"(, "parameters": )" + parameters + extra + "}");
}

TEST(SweepSpec, ProductCountsEveryCombinationLastParameterFastest) {
  const SweepSpec spec = sweep_of(R"([{"pointer": "/tensors/x/shape/0", "values": [1, 2, 3]},
                                      {"pointer": "/hardware", "values": ["a", "b"]},
                                      {"pointer": "/dtype", "values": ["f32", "bf16", "int8", "fp8"]}])");
  EXPECT_EQ(point_count(spec), 3u * 2u * 4u);
  const auto first = point_params(spec, 0);
  EXPECT_EQ(first[0].second, 1);
  EXPECT_EQ(first[1].second, "a");
  EXPECT_EQ(first[2].second, "f32");
  const auto fifth = point_params(spec, 5);  // 5 = 0 * 8 + 1 * 4 + 1: values 1, "b", "bf16"
  EXPECT_EQ(fifth[0].second, 1);
  EXPECT_EQ(fifth[1].second, "b");
  EXPECT_EQ(fifth[2].second, "bf16");
  const auto last = point_params(spec, 23);
  EXPECT_EQ(last[0].second, 3);
  EXPECT_EQ(last[1].second, "b");
  EXPECT_EQ(last[2].second, "fp8");
  EXPECT_EQ(last[2].first, "/dtype");
}

TEST(SweepSpec, ZipTakesTheKthValueOfEveryParameter) {
  const SweepSpec spec = sweep_of(R"([{"pointer": "/tensors/x/shape/0", "values": [1, 2, 3]},
                                      {"pointer": "/hardware", "values": ["a", "b", "c"]}])",
                                  R"(, "combine": "zip")");
  EXPECT_EQ(point_count(spec), 3u);
  const auto second = point_params(spec, 1);
  EXPECT_EQ(second[0].second, 2);
  EXPECT_EQ(second[1].second, "b");
}

TEST(SweepSpec, RangeByStepIncludesAReachedStop) {
  const SweepSpec spec =
      sweep_of(R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 1, "stop": 10, "step": 3}}])");
  ASSERT_EQ(spec.parameters[0].values.size(), 4u);  // 1, 4, 7, 10
  EXPECT_EQ(spec.parameters[0].values[3], 10);
  EXPECT_TRUE(spec.parameters[0].values[3].is_number_integer());
  const SweepSpec open =
      sweep_of(R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 1, "stop": 9, "step": 3}}])");
  EXPECT_EQ(open.parameters[0].values.size(), 3u);  // 1, 4, 7
}

TEST(SweepSpec, RangeByStepOfFractions) {
  const SweepSpec spec =
      sweep_of(R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 0.5, "stop": 1.5, "step": 0.25}}])");
  ASSERT_EQ(spec.parameters[0].values.size(), 5u);  // 0.5, 0.75, 1, 1.25, 1.5
  EXPECT_DOUBLE_EQ(spec.parameters[0].values[2].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(spec.parameters[0].values[4].get<double>(), 1.5);
}

TEST(SweepSpec, RangeByTimesIsPowers) {
  const SweepSpec spec =
      sweep_of(R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 1048576, "stop": 16777216, "times": 2}}])");
  ASSERT_EQ(spec.parameters[0].values.size(), 5u);  // 2^20 .. 2^24
  EXPECT_EQ(spec.parameters[0].values[0], 1048576);
  EXPECT_EQ(spec.parameters[0].values[4], 16777216);
}

// Issue 33, class 4: integer ranges were stepped in doubles, exact only to 2^53: a start of 2^63 - 2 gave -2^63, and
// a range of three values above 2^53 was refused as too long. Integers now step in 64-bit integers, the range ending
// where the next value would pass the integers.
TEST(SweepSpec, IntegerRangesAreExactUpTo2To63) {
  const SweepSpec top = sweep_of(
      R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 9223372036854775806, "stop": 9223372036854775807, "step": 1}}])");
  ASSERT_EQ(top.parameters[0].values.size(), 2u);
  EXPECT_EQ(top.parameters[0].values[0].get<std::int64_t>(), INT64_MAX - 1);
  EXPECT_EQ(top.parameters[0].values[1].get<std::int64_t>(), INT64_MAX);
  // 2^60, 2^60 + 1, 2^60 + 2: three values, each exact.
  const SweepSpec high = sweep_of(
      R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 1152921504606846976, "stop": 1152921504606846978, "step": 1}}])");
  ASSERT_EQ(high.parameters[0].values.size(), 3u);
  EXPECT_EQ(high.parameters[0].values[1].get<std::int64_t>(), 1152921504606846977);
  // By times, the powers that stay below 2^63: 2^61, 2^62 (2^63 would overflow).
  const SweepSpec powers = sweep_of(
      R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 2305843009213693952, "stop": 9223372036854775807, "times": 2}}])");
  ASSERT_EQ(powers.parameters[0].values.size(), 2u);
  EXPECT_EQ(powers.parameters[0].values[1].get<std::int64_t>(), 4611686018427387904);
  // The whole span of the integers is counted without overflow, and refused as too long.
  EXPECT_EQ(
      sweep_error(
          R"([{"pointer": "/hardware", "range": {"start": -9223372036854775808, "stop": 9223372036854775807, "step": 1}}])"),
      "s.json: /parameters/0/range: a range has at most 1000000 values, got: "
      "{\"start\":-9223372036854775808,\"stop\":9223372036854775807,\"step\":1}");
  EXPECT_EQ(
      sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 18446744073709551615, "step": 1}}])"),
      "s.json: /parameters/0/range/stop: an integer of a range is at most 2^63 - 1, got: 18446744073709551615");
}

TEST(SweepSpec, ResolvedPointHasTheValuesApplied) {
  const SweepSpec spec = sweep_of(R"([{"pointer": "/tensors/x/shape/1", "values": [32, 64]},
                                      {"pointer": "/hardware", "values": ["tpu-v6e"]}])");
  const auto doc = resolve_point(spec, 1);
  EXPECT_EQ(doc["tensors"]["x"]["shape"][1], 64);
  EXPECT_EQ(doc["tensors"]["x"]["shape"][0], 8);
  EXPECT_EQ(doc["hardware"], "tpu-v6e");
  EXPECT_EQ(point_name(spec, 1), "s.json#point 1");
}

TEST(SweepSpec, PointerThatDoesNotResolveIsLocated) {
  EXPECT_EQ(sweep_error(R"([{"pointer": "/tensors/y/shape/0", "values": [1]}])"),
            "s.json: /parameters/0/pointer: the pointer does not resolve in the base scenario, got: "
            "\"/tensors/y/shape/0\"");
  EXPECT_EQ(sweep_error(R"([{"pointer": "tensors", "values": [1]}])"),
            "s.json: /parameters/0/pointer: not a JSON pointer (RFC 6901), got: \"tensors\"");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/tensors/x/shape/2", "values": [1]}])"),
            "s.json: /parameters/0/pointer: the pointer does not resolve in the base scenario, got: "
            "\"/tensors/x/shape/2\"");
}

TEST(SweepSpec, UnknownKeysNameTheNearest) {
  EXPECT_EQ(error_of(R"({"base": {}, "parameter": []})"),
            "s.json: /parameter: unknown key, got: \"parameter\" (did you mean \"parameters\"?)");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "value": [1]}])"),
            "s.json: /parameters/0/value: unknown key, got: \"value\" (did you mean \"values\"?)");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 2, "tims": 2}}])"),
            "s.json: /parameters/0/range/tims: unknown key, got: \"tims\" (did you mean \"times\"?)");
}

TEST(SweepSpec, EmptyRangesAreRefused) {
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 4, "stop": 2, "step": 1}}])"),
            "s.json: /parameters/0/range: the range is empty (stop below start), got: "
            "{\"start\":4,\"stop\":2,\"step\":1}");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 2, "step": 0}}])"),
            "s.json: /parameters/0/range/step: a step must be positive, got: 0");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 2, "times": 1}}])"),
            "s.json: /parameters/0/range/times: times must exceed 1, got: 1");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 8}}])"),
            "s.json: /parameters/0/range: a range has exactly one of \"step\" and \"times\", got: "
            "{\"start\":1,\"stop\":8}");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "values": []}])"),
            "s.json: /parameters/0/values: must be a non-empty array, got: []");
}

TEST(SweepSpec, ZipOfUnequalLengthsIsRefused) {
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "values": [1, 2, 3]}, {"pointer": "/dtype", "values": [1, 2]}])",
                        R"(, "combine": "zip")"),
            "s.json: /parameters/1: zip needs parameters of equal lengths: 3 values at /parameters/0, got: 2");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "values": [1]}])", R"(, "combine": "cross")"),
            "s.json: /combine: unknown combine, got: \"cross\" (expected one of \"product\", \"zip\")");
}

TEST(SweepSpec, ProductsOverThePointLimitAreRefused) {
  // 10,000 x 10,000 = 1e8 points, over kSweepMaxPoints (1e6).
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 10000, "step": 1}},
                            {"pointer": "/dtype", "range": {"start": 1, "stop": 10000, "step": 1}}])"),
            "s.json: /parameters: a sweep has at most 1000000 points, got a product of more at /parameters/1");
}

TEST(SweepSpec, RangesOverThePointLimitAreRefused) {
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 1, "stop": 2000000, "step": 1}}])"),
            "s.json: /parameters/0/range: a range has at most 1000000 values, got: "
            "{\"start\":1,\"stop\":2000000,\"step\":1}");
  EXPECT_EQ(sweep_error(R"([{"pointer": 3, "values": [1]}])"),
            "s.json: /parameters/0/pointer: must be a string, got: 3");
  EXPECT_EQ(error_of(R"({"base": {}, "parameters": [}")"), "s.json: line 1, column 29: invalid JSON");
}

TEST(SweepSpec, SweptTwiceIsRefused) {
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "values": [1]}, {"pointer": "/hardware", "values": [2]}])"),
            "s.json: /parameters/1/pointer: the pointer is swept twice, got: \"/hardware\"");
}

TEST(SweepSpec, ShapeRulesNameTheKey) {
  EXPECT_EQ(error_of(R"({"parameters": []})"), "s.json: /: missing key \"base\"");
  EXPECT_EQ(error_of(R"({"base": {}})"), "s.json: /: missing key \"parameters\"");
  EXPECT_EQ(error_of(R"({"base": 3, "parameters": []})"),
            "s.json: /base: must be a scenario path or a scenario object, got: 3");
  EXPECT_EQ(error_of(R"({"base": {}, "parameters": []})"), "s.json: /parameters: must be a non-empty array, got: []");
  EXPECT_EQ(sweep_error(R"([{"values": [1]}])"), "s.json: /parameters/0: missing key \"pointer\"");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "values": [1], "range": {"start": 1, "stop": 2, "step": 1}}])"),
            "s.json: /parameters/0: a parameter has exactly one of \"values\" and \"range\", got: "
            "{\"pointer\":\"/hardware\",\"values\":[1],\"range\":{\"start\":1,\"stop\":2,\"step\":1}}");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"start": 0, "stop": 8, "times": 2}}])"),
            "s.json: /parameters/0/range/start: a range by times starts above 0, got: 0");
  EXPECT_EQ(sweep_error(R"([{"pointer": "/hardware", "range": {"stop": 8, "times": 2}}])"),
            "s.json: /parameters/0/range: missing key \"start\"");
}

TEST(SweepSpec, APointerAnEarlierParameterRemovedFailsThatPointOnly) {
  // Point 0 replaces /tensors/x by a number, so /tensors/x/shape/0 no longer resolves; point 1 keeps the tensor.
  const SweepSpec spec = sweep_of(R"([{"pointer": "/tensors/x", "values": [5, {"shape": [1, 2]}]},
                                      {"pointer": "/tensors/x/shape/0", "values": [7]}])");
  try {
    resolve_point(spec, 0);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.json#point 0: /tensors/x/shape/0: the pointer does not resolve once the earlier parameters are "
              "applied, got: 7");
  }
  EXPECT_EQ(resolve_point(spec, 1)["tensors"]["x"]["shape"][0], 7);
}

TEST(SweepSpec, BaseFileIsReadRelativeToTheSweepFile) {
  const SweepSpec spec = load_sweep(std::string(PODSIM_SOURCE_DIR) + "/sweeps/examples/mlp-batch-hardware.json");
  EXPECT_EQ(spec.base["name"], "mlp-v5e-4x4");
  EXPECT_EQ(point_count(spec), 6u);  // 3 batch sizes x 2 chips
  const SweepSpec llama = load_sweep(std::string(PODSIM_SOURCE_DIR) + "/sweeps/examples/llama3-8b-batch-seq.json");
  EXPECT_EQ(point_count(llama), 16u);  // 2^18 .. 2^21 tokens (4) x 4 sequence lengths
  EXPECT_EQ(llama.filter.size(), 1u);
  EXPECT_EQ(error_of(R"({"base": "missing.json", "parameters": []})"),
            "s.json: /base: cannot open the base scenario, got: \"missing.json\"");
}

TEST(SweepSpec, PathsInTheBaseScenarioAreReadFromItsFolder) {
  // sweeps/s.json names ../scenarios/base.json, which names the preset file "chips/tpu-v5e.json" beside itself: a
  // point must find it there (not next to the sweep file), as `podsim run scenarios/base.json` does.
  const auto dir = std::filesystem::temp_directory_path() / ("podsim-sweep-base-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sweeps");
  std::filesystem::create_directories(dir / "scenarios" / "chips");
  std::filesystem::copy_file(std::string(PODSIM_SOURCE_DIR) + "/configs/tpu-v5e.json",
                             dir / "scenarios" / "chips" / "tpu-v5e.json");
  std::ofstream(dir / "scenarios" / "base.json")
      << R"({"name": "b", "hardware": "chips/tpu-v5e.json", "slice": {"shape": [2, 2]}, "tensors": {"x": {"shape": [8, 16]}}})";
  std::ofstream(dir / "sweeps" / "s.json")
      << R"({"base": "../scenarios/base.json", "parameters": [{"pointer": "/slice/shape/0", "values": [2, 4]}]})";
  const SweepSpec spec = load_sweep((dir / "sweeps" / "s.json").string());
  EXPECT_EQ(std::filesystem::path(spec.base_folder), dir / "sweeps" / ".." / "scenarios");
  for (std::size_t point = 0; point < 2; ++point)
    EXPECT_NE(evaluate_point(spec, point, SweepModel::book).find(R"("error":null)"), std::string::npos)
        << evaluate_point(spec, point, SweepModel::book);
  // An inline base reads from the sweep file's folder.
  const SweepSpec inline_base =
      load_sweep_text(R"({"base": )" + kSpecBase + R"(, "parameters": [{"pointer": "/name", "values": ["a"]}]})",
                      (dir / "sweeps" / "t.json").string());
  EXPECT_EQ(std::filesystem::path(inline_base.base_folder), dir / "sweeps");
  std::filesystem::remove_all(dir);
}

TEST(SweepHash, IsFnv1a64) {
  // The published FNV-1a 64 test vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c,
  // "foobar" -> 85944171f73967e8.
  EXPECT_EQ(content_hash(""), "cbf29ce484222325");
  EXPECT_EQ(content_hash("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(content_hash("foobar"), "85944171f73967e8");
}

}  // namespace
}  // namespace podsim
