// Spare cubes: the rules of a count, cube ids and labels, and the cubes a count of spares replaces.
#include "models/topology/spare_cubes.hpp"

#include <algorithm>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {

CubePod cube_pod(WrapRule rule, const Shape& pod_shape, std::int64_t pod_chips, const std::string& generation) {
  std::int64_t chips = pod_chips;
  if (chips <= 0) {
    chips = pod_shape.empty() ? 0 : 1;
    for (const auto n : pod_shape)
      chips = n > 0 && chips <= (std::int64_t{1} << 40) / n ? chips * n : 0;
  }
  return CubePod{rule == WrapRule::whole_cubes, chips / 64, generation};
}

std::int64_t parse_spare_cubes(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 9 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw VerifyError(std::string(kSpareCubesCountRule) + ", got: \"" + text + "\"");
  return std::stoll(text);
}

bool of_whole_cubes(const Shape& shape) {
  return shape.size() == 3 && std::all_of(shape.begin(), shape.end(), [](auto n) { return n >= 4 && n % 4 == 0; });
}

std::optional<std::string> spare_cubes_issue(const Shape& shape, std::int64_t spares, const CubePod& pod) {
  if (spares < 0) return std::string(kSpareCubesCountRule) + ", got: " + std::to_string(spares);
  if (spares == 0) return std::nullopt;
  const std::string given = std::to_string(spares) + " spare cube(s)";
  if (!pod.built_of_cubes) return std::string(kSpareCubesGenerationRule) + ", got: " + given + " on " + pod.generation;
  if (!of_whole_cubes(shape))
    return std::string(kSpareCubesShapeRule) + ", got: " + given + " for slice " + format_dims(shape);
  const std::int64_t cubes = shape[0] / 4 * (shape[1] / 4) * (shape[2] / 4);
  if (spares > pod.cubes - cubes)
    return std::string(kSpareCubesPodRule) + " (" + pod.generation + ": " + std::to_string(pod.cubes) +
           " cubes), got: " + std::to_string(cubes) + " cube(s) of slice " + format_dims(shape) + " + " + given +
           " = " + std::to_string(cubes + spares);
  return std::nullopt;
}

std::int64_t cube_of(const Slice& slice, ChipId chip) {
  std::int64_t cube = 0;
  for (int d = 0; d < slice.rank(); ++d)
    cube = cube * (slice.size(d) / 4) + slice.coord(chip, d) / 4;
  return cube;
}

std::string cube_label(const Slice& slice, std::int64_t cube) {
  std::vector<std::int64_t> at(static_cast<std::size_t>(slice.rank()));
  std::int64_t rest = cube;
  for (int d = slice.rank() - 1; d >= 0; --d) {
    at[static_cast<std::size_t>(d)] = rest % (slice.size(d) / 4) * 4;
    rest /= slice.size(d) / 4;
  }
  std::string out;
  for (int d = 0; d < slice.rank(); ++d) {
    const std::int64_t from = at[static_cast<std::size_t>(d)];
    out += std::string(d ? ", " : "") + dim_letter(d) + " " + std::to_string(from) + "-" + std::to_string(from + 3);
  }
  return "cube " + std::to_string(cube) + " (" + out + ")";
}

SliceFailures spare_failed_cubes(const Slice& slice, const std::vector<LinkId>& links, const std::vector<ChipId>& chips,
                                 std::int64_t spares) {
  SliceFailures out;
  if (spares <= 0) {
    out.links = links;
    out.chips = chips;
    return out;
  }
  const std::int64_t cubes = slice.size(0) / 4 * (slice.size(1) / 4) * (slice.size(2) / 4);
  std::vector<bool> replaced(static_cast<std::size_t>(cubes), false);
  const auto replace = [&](std::int64_t cube) {
    if (spares <= 0 || replaced[static_cast<std::size_t>(cube)]) return;
    replaced[static_cast<std::size_t>(cube)] = true;
    --spares;
  };
  std::vector<std::int64_t> chip_cubes;
  for (const ChipId chip : chips)
    chip_cubes.push_back(cube_of(slice, chip));
  std::sort(chip_cubes.begin(), chip_cubes.end());
  for (const std::int64_t cube : chip_cubes)
    replace(cube);
  // The cubes at the two ends of each failed link; walking the cubes in order, one holding an end of a link that no
  // replaced cube has cleared yet takes the next spare.
  std::vector<std::pair<std::int64_t, std::int64_t>> ends;
  std::vector<std::pair<std::int64_t, std::size_t>> by_cube;  // (cube, link index), for the walk
  for (std::size_t i = 0; i < links.size(); ++i) {
    const Link& link = slice.link(links[i]);
    ends.emplace_back(cube_of(slice, link.src), cube_of(slice, link.dst));
    by_cube.emplace_back(ends.back().first, i);
    by_cube.emplace_back(ends.back().second, i);
  }
  const auto cleared = [&](std::size_t i) {
    return replaced[static_cast<std::size_t>(ends[i].first)] || replaced[static_cast<std::size_t>(ends[i].second)];
  };
  std::sort(by_cube.begin(), by_cube.end());
  for (const auto& [cube, i] : by_cube)
    if (!cleared(i)) replace(cube);
  for (std::int64_t cube = 0; cube < cubes; ++cube)
    if (replaced[static_cast<std::size_t>(cube)]) out.replaced_cubes.push_back(cube);
  for (const ChipId chip : chips)
    if (!replaced[static_cast<std::size_t>(cube_of(slice, chip))]) out.chips.push_back(chip);
  for (std::size_t i = 0; i < links.size(); ++i)
    if (!cleared(i)) out.links.push_back(links[i]);
  return out;
}

}  // namespace podsim
