// Typed field readers of the scenario loader. Each reader fails with the JSON rule and the value at the field's
// pointer.
#include <algorithm>
#include <cmath>

#include "models/common/nearest_name.hpp"
#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim::scenario_detail {

void require_object(const Ctx& ctx, const Json& j, const std::string& pointer) {
  if (!j.is_object()) ctx.fail(pointer, "must be an object, got: " + shown(j));
}

void require_array(const Ctx& ctx, const Json& j, const std::string& pointer) {
  if (!j.is_array()) ctx.fail(pointer, "must be an array, got: " + shown(j));
}

void require_known_keys(const Ctx& ctx, const Json& j, const std::string& pointer,
                        const std::vector<std::string>& known) {
  for (const auto& [key, value] : j.items()) {
    bool found = false;
    for (const auto& k : known)
      found = found || k == key;
    if (!found)
      ctx.fail(child(pointer, key), "unknown key, got: \"" + key + "\" (expected one of " + quote_list(known) + ")");
  }
}

void require_known_keys_near(const Ctx& ctx, const Json& j, const std::string& pointer,
                             const std::vector<std::string>& known) {
  for (const auto& [key, value] : j.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string hint = did_you_mean(key, known);
    ctx.fail(child(pointer, key), "unknown key, got: " + quote(key) +
                                      (hint.empty() ? " (expected one of " + quote_list(known) + ")" : hint));
  }
}

void require_key(const Ctx& ctx, const Json& j, const std::string& pointer, const std::string& key) {
  if (!j.contains(key)) ctx.fail(pointer, "missing key \"" + key + "\"");
}

std::string get_string(const Ctx& ctx, const Json& j, const std::string& pointer, bool non_empty) {
  if (!j.is_string()) ctx.fail(pointer, "must be a string, got: " + shown(j));
  auto text = j.get<std::string>();
  if (non_empty && text.empty()) ctx.fail(pointer, "must not be empty, got: \"\"");
  return text;
}

std::int64_t get_int(const Ctx& ctx, const Json& j, const std::string& pointer, std::int64_t min, std::int64_t max) {
  // 4.0 is accepted as 4: JSON does not distinguish them and editors may write either.
  bool whole = j.is_number_integer();
  if (j.is_number_float()) {
    const double v = j.get<double>();
    whole = std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e18;
  }
  if (!whole) ctx.fail(pointer, "must be an integer, got: " + shown(j));
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    ctx.fail(pointer, "must be at most " + std::to_string(max) + ", got: " + shown(j));
  const std::int64_t v = j.is_number_float() ? static_cast<std::int64_t>(j.get<double>()) : j.get<std::int64_t>();
  if (v < min) ctx.fail(pointer, "must be at least " + std::to_string(min) + ", got: " + shown(j));
  if (v > max) ctx.fail(pointer, "must be at most " + std::to_string(max) + ", got: " + shown(j));
  return v;
}

double get_number(const Ctx& ctx, const Json& j, const std::string& pointer) {
  if (!j.is_number()) ctx.fail(pointer, "must be a number, got: " + shown(j));
  return j.get<double>();
}

bool get_bool(const Ctx& ctx, const Json& j, const std::string& pointer) {
  if (!j.is_boolean()) ctx.fail(pointer, "must be true or false, got: " + shown(j));
  return j.get<bool>();
}

std::vector<std::string> get_string_array(const Ctx& ctx, const Json& j, const std::string& pointer) {
  if (!j.is_array()) ctx.fail(pointer, "must be an array of strings, got: " + shown(j));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < j.size(); ++i)
    out.push_back(get_string(ctx, j[i], child(pointer, i)));
  return out;
}

}  // namespace podsim::scenario_detail
