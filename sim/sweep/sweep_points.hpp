// The points of a sweep, by index: product (the first parameter varies slowest, the last fastest, as nested loops
// in the file's order) or zip (the k-th value of every parameter), and a point's resolved scenario.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/sweep/sweep_spec.hpp"

namespace podsim {

// How many points the sweep has.
std::size_t point_count(const SweepSpec& spec);

// The point's values, one per parameter in the file's order: (pointer, value).
std::vector<std::pair<std::string, nlohmann::ordered_json>> point_params(const SweepSpec& spec, std::size_t point);

// `sweep.json#point 17`: the name a point's scenario carries in messages.
std::string point_name(const SweepSpec& spec, std::size_t point);

// The base scenario with the point's values applied, in parameter order. Throws InputError located at the point
// when a pointer no longer resolves (an earlier parameter replaced its parent).
nlohmann::ordered_json resolve_point(const SweepSpec& spec, std::size_t point);

// 16 lower-case hex digits of the 64-bit FNV-1a hash of `text` (offset basis 0xcbf29ce484222325, prime
// 0x100000001b3): the same on every machine and run.
std::string content_hash(std::string_view text);

}  // namespace podsim
