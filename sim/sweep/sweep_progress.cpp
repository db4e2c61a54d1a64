// Progress text: points done of total, rate, time left at that rate, failures.
#include "sim/sweep/sweep_progress.hpp"

#include <cmath>

#include <fmt/format.h>

namespace podsim {
namespace {

std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string figures(const SweepProgress& progress) {
  const double rate = progress.elapsed_s > 0 ? static_cast<double>(progress.done) / progress.elapsed_s : 0.0;
  std::string text = fmt::format("{}/{} points, {:.1f}/s", progress.done, progress.total, rate);
  if (rate > 0 && progress.done < progress.total)
    text += ", " + duration_text(static_cast<double>(progress.total - progress.done) / rate) + " left";
  text += fmt::format(", {} failed", progress.failed);
  return text;
}

}  // namespace

std::string progress_bar(const SweepProgress& progress, int width) {
  const int filled = progress.total == 0
                         ? width
                         : static_cast<int>(static_cast<double>(width) * static_cast<double>(progress.done) /
                                            static_cast<double>(progress.total));
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), ' ') + "] " + figures(progress);
}

std::string progress_line(const SweepProgress& progress) {
  std::string text = "sweep: " + figures(progress);
  if (progress.skipped > 0) text += fmt::format(", {} skipped (already in results.jsonl)", progress.skipped);
  if (progress.filtered > 0) text += fmt::format(", {} filtered out", progress.filtered);
  return text;
}

}  // namespace podsim
