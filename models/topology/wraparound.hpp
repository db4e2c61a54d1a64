// Which slice dimensions have wraparound links, from a chip generation's rule (DESIGN.md: v4/v5p a torus
// only for whole 4x4x4 cubes; v5e/v6e wrap only on an axis that spans the pod) or a user's choice.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/common/enum_names.hpp"

namespace podsim {

enum class WrapRule {
  whole_cubes,    // every dim wraps iff every dim is a multiple of 4 (whole 4x4x4 cubes): v4, v5p, 7x
  full_pod_axis,  // a dim wraps iff its size equals the pod's extent in that dim: v5e/v6e (16), v2, v3
  always,         // every dim of size > 2 wraps
  never,          // a mesh: no dim wraps
};

// Wraparound per dim of `shape` under `rule` (`pod_shape` is used by full_pod_axis: a slice of fewer dims than the pod
// lies along its leading dims; one of more dims is refused). A dim of size 1 or 2 never wraps: its +/- neighbours are
// one chip, already joined by a direct link.
std::vector<bool> wraparound_for(WrapRule rule, const std::vector<std::int64_t>& shape,
                                 const std::vector<std::int64_t>& pod_shape);

// "whole_cubes", "full_pod_axis", "always", "never".
std::string_view wrap_rule_name(WrapRule rule);
// Inverse of wrap_rule_name (any case, `-` for `_`); throws VerifyError `unknown wraparound rule, got: <text>
// (expected one of ...)`.
WrapRule parse_wrap_rule(std::string_view text);

// A user's wraparound choice for a slice (scenario "wraparound", `podsim collective --wrap`).
enum class WrapMode {
  automatic,  // "auto": the chip generation's rule
  none,       // "none": no dim wraps
  all,        // "all": every dim of size > 2 wraps
  listed,     // the dims that wrap, given one by one
};

struct WrapChoice {
  WrapMode mode = WrapMode::automatic;
  std::vector<bool> dims;  // listed: whether each slice dim wraps, one entry per dim
};

// The words of the modes that have one (a list of dims is not a word).
inline constexpr EnumNames<WrapMode, 3> kWrapModeNames{"wraparound",
                                                       {{
                                                           {"auto", WrapMode::automatic},
                                                           {"none", WrapMode::none},
                                                           {"all", WrapMode::all},
                                                       }}};

// The command line's form: a word, or the dims that wrap as a comma list ("0,2") of a slice of `shape`.
// Throws VerifyError for an unknown word, a dim out of range or listed twice, or a listed dim of size <= 2
// (it has no wrap link).
WrapChoice parse_wrap_choice(std::string_view text, const std::vector<std::int64_t>& shape);

// Wraparound per dim of `shape` under `choice`: auto is wraparound_for(rule, shape, pod_shape); a listed dim
// of size <= 2 never wraps. Throws VerifyError when the rule does not apply or a list has the wrong length.
std::vector<bool> resolve_wraparound(const WrapChoice& choice, const std::vector<std::int64_t>& shape, WrapRule rule,
                                     const std::vector<std::int64_t>& pod_shape);

// parse_wrap_choice, then resolve_wraparound.
std::vector<bool> resolve_wraparound(std::string_view spec, const std::vector<std::int64_t>& shape, WrapRule rule,
                                     const std::vector<std::int64_t>& pod_shape);

}  // namespace podsim
