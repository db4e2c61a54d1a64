// The sweep file's reader: keys checked (unknown ones named with the nearest), the base scenario read (a path
// relative to the sweep file, or inline), every pointer resolved in the base, ranges expanded and counted.
#include "sim/sweep/sweep_spec.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>

#include "models/common/error.hpp"
#include "models/common/nearest_name.hpp"
#include "sim/scenario/json_text.hpp"

namespace podsim {
namespace {

using Json = nlohmann::ordered_json;

struct Where {
  std::string file;
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw InputError(file + ": " + (pointer.empty() ? "/" : pointer), message);
  }
};

Json parse_json(const std::string& text, const std::string& file) {
  check_json_text(text, file);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(file, text_position(text, e.byte == 0 ? 0 : e.byte - 1) + ": invalid JSON",
                     InputError::Stage::parse);
  }
}

void require_keys(const Where& where, const Json& j, const std::string& pointer,
                  const std::vector<std::string>& known) {
  if (!j.is_object()) where.fail(pointer, "must be an object, got: " + shown(j));
  for (const auto& [key, value] : j.items()) {
    bool found = false;
    for (const auto& k : known)
      found = found || k == key;
    if (!found) where.fail(pointer + "/" + key, "unknown key, got: \"" + key + "\"" + did_you_mean(key, known));
  }
}

double number_at(const Where& where, const Json& j, const std::string& pointer) {
  if (!j.is_number()) where.fail(pointer, "must be a number, got: " + shown(j));
  return j.get<double>();
}

// The values of a range, in order: `step` adds, `times` multiplies; integers stay integers when every figure is one.
std::vector<Json> expand_range(const Where& where, const Json& range, const std::string& pointer) {
  require_keys(where, range, pointer, {"start", "stop", "step", "times"});
  for (const char* key : {"start", "stop"})
    if (!range.contains(key)) where.fail(pointer, std::string("missing key \"") + key + "\"");
  if (range.contains("step") == range.contains("times"))
    where.fail(pointer, "a range has exactly one of \"step\" and \"times\", got: " + shown(range));
  const double start = number_at(where, range.at("start"), pointer + "/start");
  const double stop = number_at(where, range.at("stop"), pointer + "/stop");
  const bool by_step = range.contains("step");
  const std::string by_key = by_step ? "step" : "times";
  const double by = number_at(where, range.at(by_key), pointer + "/" + by_key);
  const bool integers = range.at("start").is_number_integer() && range.at("stop").is_number_integer() &&
                        range.at(by_key).is_number_integer();
  if (by_step && !(by > 0)) where.fail(pointer + "/step", "a step must be positive, got: " + shown(range.at("step")));
  if (!by_step && !(by > 1)) where.fail(pointer + "/times", "times must exceed 1, got: " + shown(range.at("times")));
  if (!by_step && !(start > 0))
    where.fail(pointer + "/start", "a range by times starts above 0, got: " + shown(range.at("start")));
  if (stop < start) where.fail(pointer, "the range is empty (stop below start), got: " + shown(range));
  std::vector<Json> values;
  if (integers) {
    // Exact in 64-bit integers (a double holds integers exactly only up to 2^53): the values up to stop, the next
    // one past it or past the 64-bit integers ending the range.
    for (const char* key : {"start", "stop", by_key.c_str()})
      if (range.at(key).is_number_unsigned() && range.at(key).get<std::uint64_t>() > INT64_MAX)
        where.fail(pointer + "/" + key, "an integer of a range is at most 2^63 - 1, got: " + shown(range.at(key)));
    const auto first = range.at("start").get<std::int64_t>(), last = range.at("stop").get<std::int64_t>();
    const auto factor = range.at(by_key).get<std::int64_t>();
    if (by_step) {
      const std::uint64_t span = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first);
      if (span / static_cast<std::uint64_t>(factor) >= kSweepMaxPoints)
        where.fail(pointer, "a range has at most " + std::to_string(kSweepMaxPoints) + " values, got: " + shown(range));
    }
    for (std::int64_t value = first; value <= last;) {
      values.emplace_back(value);
      const bool past =
          by_step ? __builtin_add_overflow(value, factor, &value) : __builtin_mul_overflow(value, factor, &value);
      if (past) break;
    }
    return values;
  }
  const double slack = 1e-9 * std::max(std::abs(start), std::abs(stop));
  for (std::size_t k = 0;; ++k) {
    const double value = by_step ? start + static_cast<double>(k) * by : start * std::pow(by, static_cast<double>(k));
    if (value > stop + slack) break;
    if (values.size() >= kSweepMaxPoints)
      where.fail(pointer, "a range has at most " + std::to_string(kSweepMaxPoints) + " values, got: " + shown(range));
    values.emplace_back(value);
  }
  return values;
}

SweepParameter read_parameter(const Where& where, const Json& j, const std::string& pointer, const Json& base) {
  require_keys(where, j, pointer, {"pointer", "values", "range"});
  if (!j.contains("pointer")) where.fail(pointer, "missing key \"pointer\"");
  if (!j.at("pointer").is_string())
    where.fail(pointer + "/pointer", "must be a string, got: " + shown(j.at("pointer")));
  SweepParameter parameter;
  parameter.pointer = j.at("pointer").get<std::string>();
  Json::json_pointer ptr;
  try {
    ptr = Json::json_pointer(parameter.pointer);
  } catch (const Json::exception&) {
    where.fail(pointer + "/pointer", "not a JSON pointer (RFC 6901), got: " + shown(j.at("pointer")));
  }
  if (parameter.pointer.empty() || !base.contains(ptr))
    where.fail(pointer + "/pointer",
               "the pointer does not resolve in the base scenario, got: " + shown(j.at("pointer")));
  if (j.contains("values") == j.contains("range"))
    where.fail(pointer, "a parameter has exactly one of \"values\" and \"range\", got: " + shown(j));
  if (j.contains("values")) {
    const Json& values = j.at("values");
    if (!values.is_array() || values.empty())
      where.fail(pointer + "/values", "must be a non-empty array, got: " + shown(values));
    for (const auto& value : values)
      parameter.values.push_back(value);
  } else {
    parameter.values = expand_range(where, j.at("range"), pointer + "/range");
  }
  return parameter;
}

// A pointer that must name a field of the base scenario.
std::string base_pointer(const Where& where, const Json& j, const std::string& pointer, const Json& base) {
  if (!j.is_string()) where.fail(pointer, "must be a string, got: " + shown(j));
  const std::string text = j.get<std::string>();
  Json::json_pointer ptr;
  try {
    ptr = Json::json_pointer(text);
  } catch (const Json::exception&) {
    where.fail(pointer, "not a JSON pointer (RFC 6901), got: " + shown(j));
  }
  if (text.empty() || !base.contains(ptr))
    where.fail(pointer, "the pointer does not resolve in the base scenario, got: " + shown(j));
  return text;
}

SweepCondition read_condition(const Where& where, const Json& j, const std::string& pointer, const Json& base) {
  require_keys(where, j, pointer, {"pointer", "op", "value", "pointer_value"});
  for (const char* key : {"pointer", "op"})
    if (!j.contains(key)) where.fail(pointer, std::string("missing key \"") + key + "\"");
  SweepCondition condition;
  condition.pointer = base_pointer(where, j.at("pointer"), pointer + "/pointer", base);
  static const std::vector<std::pair<std::string, SweepCondition::Op>> kOps = {
      {"==", SweepCondition::Op::eq},
      {"!=", SweepCondition::Op::ne},
      {"<", SweepCondition::Op::lt},
      {"<=", SweepCondition::Op::le},
      {">", SweepCondition::Op::gt},
      {">=", SweepCondition::Op::ge},
      {"divisible_by", SweepCondition::Op::divisible_by}};
  const Json& op = j.at("op");
  bool known = false;
  for (const auto& [name, value] : kOps)
    if (op == name) {
      condition.op = value;
      condition.op_text = name;
      known = true;
    }
  if (!known)
    where.fail(pointer + "/op",
               "unknown op, got: " + shown(op) +
                   " (expected one of \"==\", \"!=\", \"<\", \"<=\", \">\", \">=\", \"divisible_by\")");
  if (j.contains("value") == j.contains("pointer_value"))
    where.fail(pointer, "a condition has exactly one of \"value\" and \"pointer_value\", got: " + shown(j));
  if (j.contains("value"))
    condition.value = j.at("value");
  else
    condition.other_pointer = base_pointer(where, j.at("pointer_value"), pointer + "/pointer_value", base);
  return condition;
}

}  // namespace

SweepSpec load_sweep_text(const std::string& text, const std::string& file) {
  const Where where{file};
  const Json doc = parse_json(text, file);
  require_keys(where, doc, "", {"base", "parameters", "combine", "filter", "description"});
  SweepSpec spec;
  spec.file = file;
  if (!doc.contains("base")) where.fail("", "missing key \"base\"");
  const Json& base = doc.at("base");
  if (base.is_string()) {
    std::filesystem::path path = base.get<std::string>();
    if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
    const auto base_text = read_json_file(path.string());
    if (!base_text) where.fail("/base", "cannot open the base scenario, got: " + shown(base));
    spec.base = parse_json(*base_text, path.string());
    spec.base_folder = path.parent_path().string();
  } else {
    spec.base = base;
    spec.base_folder = std::filesystem::path(file).parent_path().string();
  }
  if (!spec.base.is_object()) where.fail("/base", "must be a scenario path or a scenario object, got: " + shown(base));
  if (doc.contains("combine")) {
    const Json& combine = doc.at("combine");
    if (combine == "product")
      spec.combine = SweepCombine::product;
    else if (combine == "zip")
      spec.combine = SweepCombine::zip;
    else
      where.fail("/combine", "unknown combine, got: " + shown(combine) + " (expected one of \"product\", \"zip\")");
  }
  if (!doc.contains("parameters")) where.fail("", "missing key \"parameters\"");
  const Json& parameters = doc.at("parameters");
  if (!parameters.is_array() || parameters.empty())
    where.fail("/parameters", "must be a non-empty array, got: " + shown(parameters));
  double points = 1;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const std::string pointer = "/parameters/" + std::to_string(i);
    spec.parameters.push_back(read_parameter(where, parameters.at(i), pointer, spec.base));
    for (std::size_t k = 0; k + 1 < spec.parameters.size(); ++k)
      if (spec.parameters[k].pointer == spec.parameters.back().pointer)
        where.fail(pointer + "/pointer", "the pointer is swept twice, got: " + shown(parameters.at(i).at("pointer")));
    const std::size_t n = spec.parameters.back().values.size();
    if (spec.combine == SweepCombine::zip && n != spec.parameters.front().values.size())
      where.fail(pointer,
                 "zip needs parameters of equal lengths: " + std::to_string(spec.parameters.front().values.size()) +
                     " values at /parameters/0, got: " + std::to_string(n));
    points *= static_cast<double>(n);
    if (spec.combine == SweepCombine::product && points > static_cast<double>(kSweepMaxPoints))
      where.fail("/parameters", "a sweep has at most " + std::to_string(kSweepMaxPoints) +
                                    " points, got a product of more at " + pointer);
  }
  if (doc.contains("filter")) {
    const Json& filter = doc.at("filter");
    if (!filter.is_array()) where.fail("/filter", "must be an array of conditions, got: " + shown(filter));
    for (std::size_t i = 0; i < filter.size(); ++i)
      spec.filter.push_back(read_condition(where, filter.at(i), "/filter/" + std::to_string(i), spec.base));
  }
  return spec;
}

SweepSpec load_sweep(const std::string& path) {
  const auto text = read_json_file(path);
  if (!text) throw InputError(path, "cannot open the sweep file");
  return load_sweep_text(*text, path);
}

}  // namespace podsim
