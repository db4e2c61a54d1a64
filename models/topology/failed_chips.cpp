// Failed chips: ids from text, their labels, the id rules and the rule that a program needs every chip.
#include "models/topology/failed_chips.hpp"

#include "models/common/error.hpp"
#include "models/topology/slice.hpp"

namespace podsim {

std::vector<std::int64_t> split_chip_ids(const std::string& text) {
  std::vector<std::int64_t> chips;
  std::string id;
  const auto refuse = [&] {
    throw VerifyError(std::string(kFailedChipIdRule) + ", as a comma-separated list of chip ids such as 5,70, got: \"" +
                      text + "\"");
  };
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') {
      if (text[i] == ' ') continue;
      if (text[i] < '0' || text[i] > '9' || id.size() >= 18) refuse();
      id += text[i];
      continue;
    }
    if (id.empty()) refuse();
    chips.push_back(std::stoll(id));
    id.clear();
  }
  return chips;
}

std::string chip_label(const Slice& slice, ChipId chip) {
  std::string coords;
  for (const std::int64_t c : slice.coords_of(chip))
    coords += (coords.empty() ? "" : ",") + std::to_string(c);
  return "chip " + std::to_string(chip) + " (" + coords + ")";
}

std::string chips_text(const Slice& slice, const std::vector<ChipId>& chips, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < chips.size() && i < shown; ++i)
    out += (i > 0 ? ", " : "") + chip_label(slice, chips[i]);
  if (chips.size() > shown) out += ", ...";
  return out;
}

std::optional<FailedChipIssue> failed_chips_issue(const Slice& slice, const std::vector<std::int64_t>& chips) {
  std::vector<bool> seen(static_cast<std::size_t>(slice.num_chips()), false);
  for (std::size_t i = 0; i < chips.size(); ++i) {
    if (chips[i] < 0 || chips[i] >= slice.num_chips())
      return FailedChipIssue{i, std::string(kFailedChipIdRule) + " " + slice.shape_string() + " (0 to " +
                                    std::to_string(slice.num_chips() - 1) + "), got: " + std::to_string(chips[i])};
    const auto chip = static_cast<ChipId>(chips[i]);
    if (seen[static_cast<std::size_t>(chip)])
      return FailedChipIssue{i, std::string(kFailedChipOnceRule) + ", got: " + chip_label(slice, chip) + " again"};
    seen[static_cast<std::size_t>(chip)] = true;
  }
  // Every id in range and none twice: as many as the slice's chips are all of them.
  if (!chips.empty() && static_cast<std::int64_t>(chips.size()) == slice.num_chips())
    return FailedChipIssue{chips.size() - 1, std::string(kFailedChipLeavesOneRule) + ", got: all " +
                                                 std::to_string(slice.num_chips()) + " chips of " +
                                                 slice.shape_string() + " failed"};
  return std::nullopt;
}

std::optional<std::string> unreplaced_chips_issue(const Slice& slice, bool cubes) {
  const std::vector<ChipId>& chips = slice.failed_chips();
  if (chips.empty()) return std::nullopt;
  const std::string what = cubes ? " by a spare cube (spare_cubes: one replaces each 4x4x4 cube holding a failed chip)"
                                   " or the work planned on a smaller slice without it"
                                 : ": plan the work on a smaller slice without it (a slice that is not of whole "
                                   "4x4x4 cubes of a generation built of them has no spare cubes)";
  return std::string(kFailedChipRunsRule) + what + ", got: " + std::to_string(chips.size()) +
         " failed chip(s) not replaced: " + chips_text(slice, chips);
}

}  // namespace podsim
