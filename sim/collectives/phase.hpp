// One phase of a collective on one group of chips: an all-gather, a reduce-scatter or an all-to-all, which every
// algorithm's file implements as a pure schedule generator (its row in algorithm_table.hpp names it).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/directional_pass.hpp"

namespace podsim {

struct PhaseSpec {
  CollectiveKind op = CollectiveKind::all_gather;  // all_gather, reduce_scatter or all_to_all
  // The shard: what each chip holds before an all-gather, and ends with after a reduce-scatter (which then
  // starts from group size x shard bytes per chip); in an all-to-all, what each chip holds before and after.
  std::uint64_t shard_bytes = 0;
  double reduce_flops_per_byte = 0;
  std::int32_t op_id = 0;
  std::int32_t first_step = 0;
};

// The signature every generator has: append the phase on `group` (chips in axis order, more than one; a shard of
// at least one byte), waiting on `in` and recording each chip's final tasks in `out`.
using PhaseGenerator = void (*)(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                                const PhaseSpec& phase);

// Reduction flops of one chunk of `bytes`.
inline double reduce_flops(const PhaseSpec& phase, std::uint64_t bytes) {
  return phase.op == CollectiveKind::reduce_scatter ? phase.reduce_flops_per_byte * static_cast<double>(bytes) : 0.0;
}

// The generators, one file each (ring_unidirectional.cpp, ...).
void ring_unidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                         const PhaseSpec& phase);
void ring_bidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                        const PhaseSpec& phase);
void ring_bidirectional_split(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                              const PhaseSpec& phase);
void line_bidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                        const PhaseSpec& phase);
// All-to-all on one group: every chip sends its shard's share for every other chip (shard / group size, rounded
// up) at once; the engine routes each transfer over the slice's shortest (dimension-order) route, so link sharing
// sets the time.
void all_to_all_direct(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                       const PhaseSpec& phase);

}  // namespace podsim
