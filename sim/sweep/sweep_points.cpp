// Point indices to parameter values, the resolved scenario of a point and its content hash.
#include "sim/sweep/sweep_points.hpp"

#include <cstdint>

#include "models/common/error.hpp"
#include "sim/scenario/json_text.hpp"

namespace podsim {

std::size_t point_count(const SweepSpec& spec) {
  if (spec.combine == SweepCombine::zip) return spec.parameters.front().values.size();
  std::size_t count = 1;
  for (const auto& parameter : spec.parameters)
    count *= parameter.values.size();
  return count;
}

std::vector<std::pair<std::string, nlohmann::ordered_json>> point_params(const SweepSpec& spec, std::size_t point) {
  std::vector<std::pair<std::string, nlohmann::ordered_json>> params(spec.parameters.size());
  std::size_t rest = point;
  for (std::size_t i = spec.parameters.size(); i-- > 0;) {
    const auto& values = spec.parameters[i].values;
    std::size_t k = point;
    if (spec.combine == SweepCombine::product) {
      k = rest % values.size();
      rest /= values.size();
    }
    params[i] = {spec.parameters[i].pointer, values.at(k)};
  }
  return params;
}

std::string point_name(const SweepSpec& spec, std::size_t point) {
  return spec.file + "#point " + std::to_string(point);
}

nlohmann::ordered_json resolve_point(const SweepSpec& spec, std::size_t point) {
  nlohmann::ordered_json doc = spec.base;
  for (const auto& [pointer, value] : point_params(spec, point)) {
    const nlohmann::ordered_json::json_pointer ptr(pointer);
    if (!doc.contains(ptr))
      throw InputError(point_name(spec, point) + ": " + pointer,
                       "the pointer does not resolve once the earlier parameters are applied, got: " + shown(value));
    doc[ptr] = value;
  }
  return doc;
}

std::string content_hash(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4)
    out[static_cast<std::size_t>(i)] = kDigits[hash & 0xf];
  return out;
}

}  // namespace podsim
