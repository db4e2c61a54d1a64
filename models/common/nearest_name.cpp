// Levenshtein distance over lower-cased names.
#include "models/common/nearest_name.hpp"

#include <algorithm>
#include <cctype>

namespace podsim {
namespace {

std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view text, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    const std::size_t d = distance(text, candidate);
    const std::size_t limit = std::max<std::size_t>(2, std::max(text.size(), candidate.size()) / 3);
    if (d <= limit && (!best || d < best_distance)) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view text, const std::vector<std::string>& candidates) {
  const auto nearest = nearest_name(text, candidates);
  return nearest ? " (did you mean \"" + *nearest + "\"?)" : "";
}

}  // namespace podsim
