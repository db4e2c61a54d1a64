// Shared pieces of the scenario loader (scenario_json*.cpp): typed field readers that name the JSON rule and
// the value at the field's pointer. The loader only reads JSON into a ScenarioSpec; the rules of the format are
// the verifier's (scenario_verify_detail.hpp). Internal to sim/scenario; not a public header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/enum_names.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/scenario/scenario_spec.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim::scenario_detail {

// Object keys keep their file order, so the spec's lists follow the file.
using Json = nlohmann::ordered_json;

// Where errors go: `FILE: /pointer: message`.
using Ctx = Where;

// A JSON value for "got: VALUE", cut to a readable length (json_text.hpp); next to the verifier's shown().
using podsim::shown;

void require_object(const Ctx& ctx, const Json& j, const std::string& pointer);
void require_array(const Ctx& ctx, const Json& j, const std::string& pointer);
// Every key of `j` is in `known`; else `unknown key, got: "k" (expected one of ...)` at the key.
void require_known_keys(const Ctx& ctx, const Json& j, const std::string& pointer,
                        const std::vector<std::string>& known);
// `missing key "k"` at the object.
void require_key(const Ctx& ctx, const Json& j, const std::string& pointer, const std::string& key);

std::string get_string(const Ctx& ctx, const Json& j, const std::string& pointer, bool non_empty = true);
// An integer in [min, max] (the verifier checks the ranges the format sets; these guard conversions).
std::int64_t get_int(const Ctx& ctx, const Json& j, const std::string& pointer, std::int64_t min = INT64_MIN,
                     std::int64_t max = INT64_MAX);
double get_number(const Ctx& ctx, const Json& j, const std::string& pointer);
// A name of `names` (any case, `-` for `_`); else `unknown WHAT, got: "text" (expected one of "a", "b")`.
template <typename Enum, std::size_t N>
Enum get_enum(const Ctx& ctx, const Json& j, const std::string& pointer, const EnumNames<Enum, N>& names) {
  const auto value = names.find(get_string(ctx, j, pointer));
  if (!value)
    ctx.fail(pointer, "unknown " + std::string(names.what()) + ", got: " + shown(j) + " (expected one of " +
                          names.choices("\"") + ")");
  return *value;
}
bool get_bool(const Ctx& ctx, const Json& j, const std::string& pointer);
// An array of strings (each non-empty).
std::vector<std::string> get_string_array(const Ctx& ctx, const Json& j, const std::string& pointer);
// Every key of `j` is in `known`; else `unknown key, got: "k" (did you mean "x"?)` at the key, or with
// `(expected one of ...)` when no known key is near.
void require_known_keys_near(const Ctx& ctx, const Json& j, const std::string& pointer,
                             const std::vector<std::string>& known);

// A figure as a JSON number in SI or a string with a unit (`parse` reads the string: parse_bandwidth, ...).
double get_figure(const Ctx& ctx, const Json& j, const std::string& pointer, double (*parse)(std::string_view));

// A hardware preset by name, or a preset file by path (relative to the scenario's folder), named at `pointer`.
HardwarePreset read_hardware_preset(const Ctx& ctx, std::string preset, const std::string& pointer);

// Capacity planning (capacity_json.cpp): the model, its workload, the search section and a plan's parallelism.
void read_model(const Ctx& ctx, const Json& model, ScenarioSpec& spec);
void read_workload(const Ctx& ctx, const Json& workload, ScenarioSpec& spec);
void read_search(const Ctx& ctx, const Json& search, ScenarioSpec& spec);
// `price_per_chip_hour`: a number, or an object of numbers keyed by preset name (docs/capacity.md).
void read_price(const Ctx& ctx, const Json& price, ScenarioSpec& spec);
Parallelism read_parallelism(const Ctx& ctx, const Json& j, const std::string& pointer);

// Serving (serving_json.cpp): a workload in mode "serve" (its traffic, a trace's rows read), the `serving` and `slo`
// sections, into spec.serve (the last two need the first).
void read_serve_workload(const Ctx& ctx, const Json& workload, ScenarioSpec& spec);
void read_serving(const Ctx& ctx, const Json& serving, ScenarioSpec& spec);
void read_slo(const Ctx& ctx, const Json& slo, ScenarioSpec& spec);
void read_goal(const Ctx& ctx, const Json& goal, ScenarioSpec& spec);
void read_reliability(const Ctx& ctx, const Json& reliability, ScenarioSpec& spec);

// The sections after the tensors, read into `spec` (each in its own source file).
void read_program(const Ctx& ctx, const Json& program, ScenarioSpec& spec);
void read_plans(const Ctx& ctx, const Json& plans, ScenarioSpec& spec);
void read_expect(const Ctx& ctx, const Json& expect, ScenarioSpec& spec);

}  // namespace podsim::scenario_detail
