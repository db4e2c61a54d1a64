// A deterministic share of a sweep's points (docs/sweeps.md, "Sharding"): shard i of N holds the points whose index
// mod N is i, so N shards cover every point once and each shard's points are in point order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace podsim {

struct SweepShard {
  std::size_t index = 0;  // i, 0-based
  std::size_t count = 1;  // N
};

// `i/N` with 0 <= i < N. Throws VerifyError: `a shard is i/N with 0 <= i < N, got: "3/2"`.
SweepShard parse_shard(const std::string& text);

// The points of `count` that belong to `shard`, ascending.
std::vector<std::size_t> shard_points(std::size_t count, SweepShard shard);

}  // namespace podsim
