// The building block of ring and line schedules: data moving one way along an ordered list of chips,
// step by step, each send waiting for what the sender received (and reduced) in the step before.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"

namespace podsim {

enum class PassPattern {
  ring,         // every position sends to the next (the last to the first) at every step
  line_gather,  // no wraparound, all-gather: position i sends at steps s <= i (i < N-1): the shard of i-s
  line_reduce,  // no wraparound, reduce-scatter: position i sends at steps s >= i (i < N-1): partial sums
};

struct Pass {
  std::vector<ChipId> chips;  // in the direction of travel
  PassPattern pattern = PassPattern::ring;
  std::int32_t steps = 0;
  std::uint64_t bytes_per_step = 0;
  double reduce_flops_per_step = 0;  // a compute task after each receive when > 0
};

// Appends the pass to `graph`. A chip's first task waits for `in.per_chip[chip]`; every later send waits for
// the sender's previous send and its last receive (or the reduction of it). The chip's last send and last
// receive (or reduction) are appended to `out.per_chip[chip]`.
void append_pass(EventGraph& graph, const Frontier& in, Frontier& out, const Pass& pass, std::int32_t op_id,
                 std::int32_t first_step);

// Chips that `out` left without tasks (they took no part) keep their dependencies from `in`.
void carry_untouched(const Frontier& in, Frontier& out);

// `chips` reversed: the other direction around a ring or along a line.
std::vector<ChipId> reversed(const std::vector<ChipId>& chips);

}  // namespace podsim
