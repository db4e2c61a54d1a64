// Shards by point index modulo the shard count: cheap, deterministic and balanced when neighbouring points cost alike.
#include "sim/sweep/sweep_shard.hpp"

#include <charconv>

#include "models/common/error.hpp"

namespace podsim {
namespace {

bool parse_size(std::string_view text, std::size_t& value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

SweepShard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  SweepShard shard;
  const std::string_view view(text);
  if (slash == std::string::npos || !parse_size(view.substr(0, slash), shard.index) ||
      !parse_size(view.substr(slash + 1), shard.count) || shard.count == 0 || shard.index >= shard.count)
    throw VerifyError("a shard is i/N with 0 <= i < N, got: \"" + text + "\"");
  return shard;
}

std::vector<std::size_t> shard_points(std::size_t count, SweepShard shard) {
  std::vector<std::size_t> points;
  for (std::size_t p = shard.index; p < count; p += shard.count)
    points.push_back(p);
  return points;
}

}  // namespace podsim
