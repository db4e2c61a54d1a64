// Wraparound per slice dimension from a chip generation's rule (TPU_HARDWARE.md §3): v4/v5p/7x wrap only
// slices made of whole 4x4x4 cubes, v5e/v6e wrap only an axis that spans the pod, and no dim of size <= 2
// ever gets a wrap link.
#include "models/topology/wraparound.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"

namespace podsim {
namespace {

constexpr EnumNames<WrapRule, 4> kRules{"wraparound rule",
                                        {{
                                            {"whole_cubes", WrapRule::whole_cubes},
                                            {"full_pod_axis", WrapRule::full_pod_axis},
                                            {"always", WrapRule::always},
                                            {"never", WrapRule::never},
                                        }}};

}  // namespace

std::vector<bool> wraparound_for(WrapRule rule, const std::vector<std::int64_t>& shape,
                                 const std::vector<std::int64_t>& pod_shape) {
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 1)
      throw VerifyError("wraparound: dim " + std::to_string(d) + " size must be >= 1, got: " + format_dims(shape));
  std::vector<bool> wraps(shape.size(), false);
  switch (rule) {
    case WrapRule::never:
      break;
    case WrapRule::always:
      for (std::size_t d = 0; d < shape.size(); ++d)
        wraps[d] = true;
      break;
    case WrapRule::whole_cubes: {
      bool whole = !shape.empty();
      for (std::int64_t size : shape)
        whole = whole && size % 4 == 0;
      for (std::size_t d = 0; d < shape.size(); ++d)
        wraps[d] = whole;
      break;
    }
    case WrapRule::full_pod_axis:
      // A slice of fewer dims than the pod lies along its leading dims (a one-chip [1] on a 16x16 pod is 1x1).
      if (shape.size() > pod_shape.size())
        throw VerifyError("wraparound: full_pod_axis: a slice has at most the pod's " +
                          std::to_string(pod_shape.size()) + " dims, got: pod " + format_dims(pod_shape) +
                          " for slice " + format_dims(shape));
      for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] > pod_shape[d])
          throw VerifyError("wraparound: slice dim " + std::to_string(d) + " exceeds the pod, got: slice " +
                            format_dims(shape) + " in pod " + format_dims(pod_shape));
        wraps[d] = shape[d] == pod_shape[d];
      }
      break;
  }
  // A dim of 1 has no neighbour; a dim of 2 has one neighbour, already joined by the direct link.
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] <= 2) wraps[d] = false;
  return wraps;
}

std::string_view wrap_rule_name(WrapRule rule) {
  return kRules.name(rule);
}

WrapRule parse_wrap_rule(std::string_view text) {
  return kRules.parse(text);
}

WrapChoice parse_wrap_choice(std::string_view text, const std::vector<std::int64_t>& shape) {
  if (const auto mode = kWrapModeNames.find(text)) return {*mode, {}};
  WrapChoice choice{WrapMode::listed, std::vector<bool>(shape.size(), false)};
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item(text.substr(pos, comma - pos));
    std::size_t used = 0;
    long dim = -1;
    try {
      dim = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw VerifyError("wraparound must be " + kWrapModeNames.choices() +
                        " or a list of dims such as 0,1, got: " + std::string(text));
    if (dim < 0 || static_cast<std::size_t>(dim) >= shape.size())
      throw VerifyError("wraparound dim out of range [0, " + std::to_string(shape.size()) + "), got: " + item);
    const auto d = static_cast<std::size_t>(dim);
    if (choice.dims[d]) throw VerifyError("wraparound dim listed twice, got: " + item);
    if (shape[d] <= 2)
      throw VerifyError("wraparound dim " + item + " has size " + std::to_string(shape[d]) +
                        ": it has no wrap link (its neighbours are one chip)");
    choice.dims[d] = true;
    pos = comma + 1;
  }
  return choice;
}

std::vector<bool> resolve_wraparound(const WrapChoice& choice, const std::vector<std::int64_t>& shape, WrapRule rule,
                                     const std::vector<std::int64_t>& pod_shape) {
  switch (choice.mode) {
    case WrapMode::automatic:
      return wraparound_for(rule, shape, pod_shape);
    case WrapMode::none:
      return wraparound_for(WrapRule::never, shape, pod_shape);
    case WrapMode::all:
      return wraparound_for(WrapRule::always, shape, pod_shape);
    case WrapMode::listed:
      break;
  }
  if (choice.dims.size() != shape.size())
    throw VerifyError("wraparound needs one entry per slice dim (" + std::to_string(shape.size()) +
                      "), got: " + std::to_string(choice.dims.size()));
  std::vector<bool> wraps = wraparound_for(WrapRule::never, shape, pod_shape);
  for (std::size_t d = 0; d < shape.size(); ++d)
    wraps[d] = choice.dims[d] && shape[d] > 2;
  return wraps;
}

std::vector<bool> resolve_wraparound(std::string_view spec, const std::vector<std::int64_t>& shape, WrapRule rule,
                                     const std::vector<std::int64_t>& pod_shape) {
  return resolve_wraparound(parse_wrap_choice(spec, shape), shape, rule, pod_shape);
}

}  // namespace podsim
