// A sweep file (docs/sweeps.md): a base scenario (a path relative to the sweep file, or inline) and parameters, each
// a JSON pointer into the scenario with a list of values or a range, combined as a cartesian product or zipped.
// Parsing checks the file's keys and every pointer against the base; points are expanded by sweep_points.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace podsim {

// Points a sweep may have (docs/sweeps.md, "Limits"): a product beyond it is refused before anything runs. The
// final rewrite of results.jsonl holds one run's records in memory (about 1 KB per point with 3 plans).
inline constexpr std::size_t kSweepMaxPoints = 1'000'000;

enum class SweepCombine { product, zip };

struct SweepParameter {
  std::string pointer;                         // RFC 6901, resolves in the base scenario
  std::vector<nlohmann::ordered_json> values;  // a range already expanded, in order
};

// One condition of the sweep's filter: the field at `pointer` of a point's resolved scenario compared with a
// literal `value` or with the field at `other_pointer`.
struct SweepCondition {
  enum class Op { eq, ne, lt, le, gt, ge, divisible_by };
  std::string pointer;
  Op op = Op::eq;
  std::string op_text;  // as written, for messages
  std::optional<nlohmann::ordered_json> value;
  std::optional<std::string> other_pointer;
};

struct SweepSpec {
  std::string file;             // the sweep file as given (messages, point names `FILE#point N`)
  nlohmann::ordered_json base;  // the base scenario document, keys in its file's order
  // Where relative paths in a point's scenario (a hardware preset file, a model's config.json) are read from: the
  // base scenario file's folder, or the sweep file's for an inline base (values a parameter sets included).
  std::string base_folder;
  std::vector<SweepParameter> parameters;
  SweepCombine combine = SweepCombine::product;
  std::vector<SweepCondition> filter;  // a point runs when every condition holds
};

// Reads the sweep file at `path` and its base scenario. Throws InputError located in the sweep file
// (`sweep.json: /parameters/1/range: ...`) or in the base scenario file (JSON syntax).
SweepSpec load_sweep(const std::string& path);

// The same from the sweep file's text; `file` names it in messages and anchors a relative `base` path.
SweepSpec load_sweep_text(const std::string& text, const std::string& file);

}  // namespace podsim
