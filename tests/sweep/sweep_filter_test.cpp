// The sweep's filter: each op on hand-picked points, fields compared with fields, and the rules on their messages.
#include "sim/sweep/sweep_filter.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "sim/sweep/sweep_points.hpp"

namespace podsim {
namespace {

const std::string kBase = R"({"tensors": {"x": {"shape": [8, 16]}}, "hardware": "tpu-v5e"})";

SweepSpec filtered(const std::string& filter) {
  return load_sweep_text(R"({"base": )" + kBase +
                             R"(, "parameters": [{"pointer": "/tensors/x/shape/0", "values": [4, 8, 12, 16, 32]}],
                             "filter": )" +
                             filter + "}",
                         "s.json");
}

// The points (values 4, 8, 12, 16, 32) the filter keeps.
std::vector<int> kept(const SweepSpec& spec) {
  std::vector<int> out;
  for (std::size_t p = 0; p < point_count(spec); ++p) {
    const auto doc = resolve_point(spec, p);
    if (point_selected(spec, doc)) out.push_back(doc["tensors"]["x"]["shape"][0].get<int>());
  }
  return out;
}

std::string load_error(const std::string& filter) {
  try {
    filtered(filter);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Issue 33, class 1: divisible_by on the ends of JSON's integers is exact and never traps (-2^63 % -1 was SIGFPE;
// 2^64-1 was read as -1).
TEST(SweepFilter, DivisibleByTheEndsOfTheIntegers) {
  const auto keeps = [](const std::string& values, const std::string& divisor) {
    const SweepSpec spec = load_sweep_text(
        R"({"base": )" + kBase + R"(, "parameters": [{"pointer": "/tensors/x/shape/0", "values": )" + values +
            R"(}], "filter": [{"pointer": "/tensors/x/shape/0", "op": "divisible_by", "value": )" + divisor + "}]}",
        "s.json");
    std::vector<bool> out;
    for (std::size_t p = 0; p < point_count(spec); ++p)
      out.push_back(point_selected(spec, resolve_point(spec, p)));
    return out;
  };
  EXPECT_EQ(keeps("[-9223372036854775808, -9223372036854775807]", "-1"), (std::vector<bool>{true, true}));
  EXPECT_EQ(keeps("[-9223372036854775808, 6]", "-9223372036854775808"), (std::vector<bool>{true, false}));
  EXPECT_EQ(keeps("[18446744073709551615, 6, 5]", "18446744073709551615"), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(keeps("[18446744073709551615, 9223372036854775808]", "-1"), (std::vector<bool>{true, true}));
  EXPECT_EQ(keeps("[-12, 12, 10]", "-4"), (std::vector<bool>{true, true, false}));
}

TEST(SweepFilter, EachOpKeepsTheRightPoints) {
  EXPECT_EQ(kept(filtered(R"([{"pointer": "/tensors/x/shape/0", "op": ">=", "value": 12}])")),
            (std::vector<int>{12, 16, 32}));
  EXPECT_EQ(kept(filtered(R"([{"pointer": "/tensors/x/shape/0", "op": "<", "value": 12}])")), (std::vector<int>{4, 8}));
  EXPECT_EQ(kept(filtered(R"([{"pointer": "/tensors/x/shape/0", "op": "divisible_by", "value": 8}])")),
            (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(kept(filtered(R"([{"pointer": "/tensors/x/shape/0", "op": "!=", "value": 16.0}])")),
            (std::vector<int>{4, 8, 12, 32}));
  // Against another field (16), and two conditions together.
  EXPECT_EQ(kept(filtered(R"([{"pointer": "/tensors/x/shape/0", "op": "<=", "pointer_value": "/tensors/x/shape/1"},
                              {"pointer": "/tensors/x/shape/0", "op": ">", "value": 4}])")),
            (std::vector<int>{8, 12, 16}));
  EXPECT_EQ(kept(filtered(R"([{"pointer": "/hardware", "op": "==", "value": "tpu-v6e"}])")), (std::vector<int>{}));
}

TEST(SweepFilter, RulesNameTheCondition) {
  EXPECT_EQ(load_error(R"([{"pointer": "/tensors/x/shape/0", "op": "=<", "value": 1}])"),
            "s.json: /filter/0/op: unknown op, got: \"=<\" (expected one of \"==\", \"!=\", \"<\", \"<=\", \">\", "
            "\">=\", \"divisible_by\")");
  EXPECT_EQ(load_error(R"([{"pointer": "/tensors/x/shape/0", "op": "<"}])"),
            "s.json: /filter/0: a condition has exactly one of \"value\" and \"pointer_value\", got: "
            "{\"pointer\":\"/tensors/x/shape/0\",\"op\":\"<\"}");
  EXPECT_EQ(load_error(R"([{"pointer": "/tensors/y", "op": "<", "value": 1}])"),
            "s.json: /filter/0/pointer: the pointer does not resolve in the base scenario, got: \"/tensors/y\"");
  EXPECT_EQ(load_error(R"({"pointer": "/hardware"})"),
            "s.json: /filter: must be an array of conditions, got: {\"pointer\":\"/hardware\"}");
  EXPECT_EQ(load_error(R"([{"pointer": "/hardware", "value": 1}])"), "s.json: /filter/0: missing key \"op\"");
  EXPECT_EQ(load_error(R"([{"pointer": "/hardware", "op": "==", "pointer_value": "/model"}])"),
            "s.json: /filter/0/pointer_value: the pointer does not resolve in the base scenario, got: \"/model\"");
  const auto evaluation_error = [](const std::string& filter) {
    const SweepSpec spec = filtered(filter);
    try {
      point_selected(spec, resolve_point(spec, 0));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(evaluation_error(R"([{"pointer": "/tensors/x/shape/0", "op": "divisible_by", "value": 2.5}])"),
            "s.json: /filter/0: divisible_by needs integers, got: 4 and 2.5");
  EXPECT_EQ(evaluation_error(R"([{"pointer": "/tensors/x/shape/0", "op": "divisible_by", "value": 0}])"),
            "s.json: /filter/0: divisible_by 0, got: 0");
  // The field is in the base, but the point's own scenario lost it: /tensors/x replaced by a number.
  const SweepSpec replaced =
      load_sweep_text(R"({"base": )" + kBase + R"(, "parameters": [{"pointer": "/tensors/x", "values": [3]}],
          "filter": [{"pointer": "/tensors/x/shape/0", "op": ">", "value": 1}]})",
                      "s.json");
  try {
    point_selected(replaced, resolve_point(replaced, 0));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "s.json: /filter/0: a point's scenario has no field at /tensors/x/shape/0");
  }
  const SweepSpec spec = filtered(R"([{"pointer": "/hardware", "op": "<", "value": 1}])");
  try {
    point_selected(spec, resolve_point(spec, 0));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "s.json: /filter/0: \"<\" compares numbers, got: \"tpu-v5e\"");
  }
}

}  // namespace
}  // namespace podsim
