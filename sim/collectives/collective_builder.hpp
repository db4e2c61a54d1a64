// Lowers a collective request into event-graph tasks: chooses the algorithm per axis (resolve_algorithm, from the
// table in algorithm_table.hpp), composes axes (one after another or concurrently), and builds all-reduce as
// reduce-scatter then all-gather.
#pragma once

#include <cstdint>
#include <string>

#include "sim/collectives/algorithm_table.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/graph/graph_symmetry.hpp"

namespace podsim {

// The largest array a collective moves: 1 PiB keeps every byte count far from 64-bit overflow.
inline constexpr std::uint64_t kMaxArrayBytes = std::uint64_t{1} << 50;

// An upper bound on the transfers the builder makes for `request`, found without building them: per axis and
// group of n chips, n (n - 1) sends per pass, times the directions of the axis's algorithm (its row), twice for
// all-reduce (reduce-scatter then all-gather), times the number of axes within the slice when they run concurrently
// (each part visits every axis). Within a factor of 2 of the built count.
std::uint64_t estimate_transfers(const CollectiveRequest& request);

// The most transfers one run may build. Each costs about 172 bytes of event graph and simulation state (measured:
// a 2048-chip ring all-gather, 4.2 million transfers, peaked at 758 MB), so the limit keeps a run under about
// 9 GB; at the rates measured (4.2 million transfers in 23 s) it also keeps it to minutes, not hours.
inline constexpr std::uint64_t kMaxTransfers = 50'000'000;

// "about 4294836225 transfers (about 688.9 GiB of event graph), above the limit of 50000000", for the messages
// of the run limits.
std::string transfers_over_limit(std::uint64_t transfers);

// Checks the request against a graph of `num_chips` chips; throws VerifyError naming the problem
// (no axes, an array over kMaxArrayBytes, a chip out of range or twice in one axis, groups of unequal size, an
// algorithm that does not implement the op, more than kMaxTransfers transfers by estimate_transfers, an all-to-all
// over an axis across slices).
void verify_collective(const CollectiveRequest& request, std::int32_t num_chips);

// Appends the collective's tasks to `graph`, each chip starting after its tasks in `frontier`, and moves
// `frontier` to the collective's last tasks. Axes across slices (AxisGroups::dcn) run hierarchically
// (hierarchical_axis_order); under MultiAxis::concurrent the parts rotate over the axes within the slice only,
// each crossing the DCN axes in that order. Verifies first. With `symmetry`, appends one PhaseGroups per axis
// phase (its groups and the task range of each) for simulate_symmetric().
void append_collective(EventGraph& graph, Frontier& frontier, const CollectiveRequest& request,
                       GraphSymmetry* symmetry = nullptr);

// The tasks append_collective adds for `request` on `num_chips` chips (its transfers and their reductions), counted
// on each axis's first group without building the others. Verifies first (verify_collective).
std::size_t count_collective_tasks(const CollectiveRequest& request, std::int32_t num_chips);

// A graph holding just this collective.
EventGraph build_collective(std::int32_t num_chips, const CollectiveRequest& request);

}  // namespace podsim
