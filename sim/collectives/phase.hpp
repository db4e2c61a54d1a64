// One phase of a collective on one group of chips: the all-gather or reduce-scatter that every
// algorithm file implements as a pure schedule generator.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/directional_pass.hpp"

namespace podsim {

struct PhaseSpec {
  CollectiveKind op = CollectiveKind::all_gather;  // all_gather or reduce_scatter
  // The shard: what each chip holds before an all-gather, and ends with after a reduce-scatter (which then
  // starts from group size x shard bytes per chip).
  std::uint64_t shard_bytes = 0;
  double reduce_flops_per_byte = 0;
  std::int32_t op_id = 0;
  std::int32_t first_step = 0;
};

// The signature every ring or line algorithm has: append the phase on `group` (chips in axis order),
// waiting on `in` and recording each chip's final tasks in `out`.
using PhaseAlgorithm = void (*)(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                                const PhaseSpec& phase);

// Steps the algorithm takes on a group of n chips (for step numbering of later phases).
std::int32_t phase_steps(Algorithm algorithm, std::int32_t n);

// `chips` reversed: the other direction around a ring or along a line.
std::vector<ChipId> reversed(const std::vector<ChipId>& chips);

// Reduction flops of one chunk of `bytes`.
inline double reduce_flops(const PhaseSpec& phase, std::uint64_t bytes) {
  return phase.op == CollectiveKind::reduce_scatter ? phase.reduce_flops_per_byte * static_cast<double>(bytes) : 0.0;
}

void ring_unidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                         const PhaseSpec& phase);
void ring_bidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                        const PhaseSpec& phase);
void ring_bidirectional_split(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                              const PhaseSpec& phase);
void line_bidirectional(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                        const PhaseSpec& phase);

// All-to-all on one group: every chip sends `chunk_bytes` to every other chip at once; the engine routes each
// transfer over the slice's shortest (dimension-order) route, so link sharing sets the time.
void all_to_all_direct(EventGraph& graph, const Frontier& in, Frontier& out, const std::vector<ChipId>& group,
                       std::uint64_t chunk_bytes, std::int32_t op_id, std::int32_t step);

}  // namespace podsim
