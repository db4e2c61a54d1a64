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
    const auto divisor = right.get<std::int64_t>();
    if (divisor == 0) throw InputError(where, "divisible_by 0, got: " + shown(right));
    return left.get<std::int64_t>() % divisor == 0;
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
