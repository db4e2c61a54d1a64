// The known name closest to a misspelt one, for "did you mean" hints (edit distance, case-insensitive).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podsim {

// The candidate with the smallest edit distance to `text` if that distance is at most a third of the longer
// name (at least 2); nullopt otherwise. Ties go to the earlier candidate.
std::optional<std::string> nearest_name(std::string_view text, const std::vector<std::string>& candidates);

// " (did you mean \"NAME\"?)" when there is a nearest name, else "".
std::string did_you_mean(std::string_view text, const std::vector<std::string>& candidates);

}  // namespace podsim
