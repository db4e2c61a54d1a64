// Failed chips (docs/topology.md, "Failed chips"): chips named by their ids as podsim prints them (`chip 5 (1,1)`),
// each failing every link that touches it; the id rules, the text of a list of chips, and why a program cannot run
// on a slice that keeps one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/ids.hpp"

namespace podsim {

class Slice;

// The rules a list of failed chips must meet, as error text names them.
inline constexpr const char* kFailedChipIdRule = "a failed chip must be a chip id of the slice";
inline constexpr const char* kFailedChipOnceRule = "a failed chip is listed once";
inline constexpr const char* kFailedChipLeavesOneRule = "failed chips must leave a working chip";
inline constexpr const char* kFailedChipRunsRule =
    "a sharded program runs on every chip of its slice, so a failed chip must be replaced";

// `5,6` -> {5, 6} (spaces dropped): the text of --failed-chips. Throws VerifyError (kFailedChipIdRule) for an empty
// entry or one that is not a whole number.
std::vector<std::int64_t> split_chip_ids(const std::string& text);

// `chip 5 (1,1)`: a chip as the errors and reports name it, its id and coordinates (dim 0 first).
std::string chip_label(const Slice& slice, ChipId chip);
// `chip 5 (1,1), chip 6 (1,2)`: the first `shown` of `chips` labelled, then `, ...` when there are more.
std::string chips_text(const Slice& slice, const std::vector<ChipId>& chips, std::size_t shown = 8);

// An entry of a list of failed chips that breaks a rule: its index and the whole message ("rule, got: value").
struct FailedChipIssue {
  std::size_t index = 0;
  std::string message;
};

// The first of `chips` outside the slice's ids (kFailedChipIdRule) or listed before (kFailedChipOnceRule).
// The ids are taken as given (64 bits), so that an id past ChipId is refused, not wrapped.
std::optional<FailedChipIssue> failed_chips_issue(const Slice& slice, const std::vector<std::int64_t>& chips);

// kFailedChipRunsRule with what to do (a spare cube when `cubes` says the slice is of whole cubes of a generation
// built of them, else a smaller slice) and the chips still failed, or nullopt when none is.
std::optional<std::string> unreplaced_chips_issue(const Slice& slice, bool cubes);

}  // namespace podsim
