// Conditions compare JSON values: == and != any values (numbers by value, 4096 == 4096.0), the orders numbers,
// divisible_by integers.
#include "sim/sweep/sweep_filter.hpp"

#include "models/common/error.hpp"
#include "sim/scenario/json_text.hpp"

namespace podsim {
namespace {

using Json = nlohmann::ordered_json;

bool holds(const SweepSpec& spec, const SweepCondition& c, std::size_t index, const Json& resolved) {
  const std::string where = spec.file + ": /filter/" + std::to_string(index);
  const auto field = [&](const std::string& pointer) -> const Json& {
    const Json::json_pointer ptr(pointer);
    if (!resolved.contains(ptr)) throw InputError(where, "a point's scenario has no field at " + pointer);
    return resolved.at(ptr);
  };
  const Json& left = field(c.pointer);
  const Json& right = c.value ? *c.value : field(*c.other_pointer);
  if (c.op == SweepCondition::Op::eq) return left == right;
  if (c.op == SweepCondition::Op::ne) return left != right;
  for (const Json* side : {&left, &right})
    if (!side->is_number()) throw InputError(where, "\"" + c.op_text + "\" compares numbers, got: " + shown(*side));
  if (c.op == SweepCondition::Op::divisible_by) {
    if (!left.is_number_integer() || !right.is_number_integer())
      throw InputError(where, "divisible_by needs integers, got: " + shown(left) + " and " + shown(right));
    // On magnitudes, in 64 unsigned bits: exact for every JSON integer (-2^63 .. 2^64-1), where a signed remainder
    // reads 2^64-1 as -1 and traps on -2^63 % -1.
    const auto magnitude = [](const Json& v) -> std::uint64_t {
      if (v.is_number_unsigned()) return v.get<std::uint64_t>();
      const auto x = v.get<std::int64_t>();
      return x < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(x);
    };
    const std::uint64_t divisor = magnitude(right);
    if (divisor == 0) throw InputError(where, "divisible_by 0, got: " + shown(right));
    return magnitude(left) % divisor == 0;
  }
  const double a = left.get<double>(), b = right.get<double>();
  switch (c.op) {
    case SweepCondition::Op::lt:
      return a < b;
    case SweepCondition::Op::le:
      return a <= b;
    case SweepCondition::Op::gt:
      return a > b;
    default:
      return a >= b;
  }
}

}  // namespace

bool point_selected(const SweepSpec& spec, const Json& resolved) {
  for (std::size_t i = 0; i < spec.filter.size(); ++i)
    if (!holds(spec, spec.filter[i], i, resolved)) return false;
  return true;
}

}  // namespace podsim
