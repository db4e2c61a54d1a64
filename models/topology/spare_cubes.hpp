// Spare cubes (docs/topology.md, "Spare cubes"): on a generation whose slices are built of 4x4x4 cubes joined by
// optical circuit switches (v4, v5p, tpu7x), a slice of whole cubes takes a spare cube of its pod in place of a failed
// one, and then runs as if whole. The cubes of a slice, the spare rules, and which cubes the spares replace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/ids.hpp"
#include "models/common/shape.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/wraparound.hpp"

namespace podsim {

// The pod spares come from: whether the generation builds slices of 4x4x4 cubes (the whole_cubes rule), the cubes
// its pod holds (the preset's pod chips / 64), and its name for messages.
struct CubePod {
  bool built_of_cubes = false;
  std::int64_t cubes = 0;
  std::string generation;
};

// The pod of a generation with wraparound rule `rule` (whole_cubes: built of cubes), `pod_chips` (0: the product of
// `pod_shape`) and name `generation`.
CubePod cube_pod(WrapRule rule, const Shape& pod_shape, std::int64_t pod_chips, const std::string& generation);

// The rules of a spare cube count, as error text names them.
inline constexpr const char* kSpareCubesCountRule = "a spare cube count must be an integer >= 0";
inline constexpr const char* kSpareCubesGenerationRule =
    "spare cubes replace failed 4x4x4 cubes through the optical circuit switches of a generation built of them (v4, "
    "v5p, tpu7x)";
inline constexpr const char* kSpareCubesShapeRule =
    "spare cubes replace whole 4x4x4 cubes, so the slice must be of whole cubes (3 dims, each a multiple of 4)";
inline constexpr const char* kSpareCubesPodRule = "a slice and its spare cubes must fit in one pod";

// The text of --spare-cubes: a whole number (digits only). Throws VerifyError (kSpareCubesCountRule) otherwise.
std::int64_t parse_spare_cubes(const std::string& text);

// True for 3 dims, each a multiple of 4 (at least 4): a slice of whole 4x4x4 cubes.
bool of_whole_cubes(const Shape& shape);

// The first rule `spares` breaks for a slice of `shape` on `pod` ("rule, got: value"), or nullopt. No spare (0) is
// always allowed.
std::optional<std::string> spare_cubes_issue(const Shape& shape, std::int64_t spares, const CubePod& pod);

// The cube of `chip` in a slice of whole cubes: row-major over the cube coordinates (each chip coordinate / 4), dim 0
// slowest, as chip ids are; a 4x4x8 has cube 0 (z 0-3) and cube 1 (z 4-7).
std::int64_t cube_of(const Slice& slice, ChipId chip);
// `cube 1 (x 0-3, y 0-3, z 4-7)`: a cube as the reports name it.
std::string cube_label(const Slice& slice, std::int64_t cube);

// Which cubes `spares` replace, and the failures left (docs/topology.md, "Spare cubes"): a cube fails when it holds a
// failed chip or an end of a failed link; spares go first to the cubes holding failed chips, in cube order, then, in
// cube order, to each cube that still holds an end of a failed link not yet cleared, while spares last. A replaced
// cube takes its failed chips and every failed link with an end in it away; the rest stay. `links` are link ids of
// `slice` (one direction of each cable), `chips` valid chip ids; `slice` is of whole cubes when `spares` > 0.
SliceFailures spare_failed_cubes(const Slice& slice, const std::vector<LinkId>& links, const std::vector<ChipId>& chips,
                                 std::int64_t spares);

}  // namespace podsim
