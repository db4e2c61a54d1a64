// The collective algorithms, one row each. Every fact about an algorithm is stated in its row and nowhere else: its
// name as users write it, the collectives it runs, its steps and directions, the messages it sends, whether the
// translation quotient may stand one chip for all, when `auto` picks it, and its generator. The builder and its
// verifier (collective_builder.cpp), the planner's per-axis choice (resolve_algorithm), the translation quotient
// (sim/collective_sim/torus_quotient.cpp), the calibration fit and the docs (docs/collectives.md, "Schedules"; a test
// holds them to the table) all read it.
// A new algorithm: its value in `Algorithm` (collective.hpp), one generator file declared in phase.hpp, its row
// below, and its line in the docs (docs/collectives.md, docs/scenario-format.md, docs/scenario.schema.json).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/collectives/phase.hpp"

namespace podsim {

// How many steps a phase of the algorithm takes on a group of n chips (the step numbers of later phases count on).
enum class StepCount {
  n_minus_1,  // n - 1, none on one chip
  half_n,     // n / 2 = ceil((n - 1) / 2), none on one chip
  one,        // one step, all at once (counted on one chip too)
};

// Which axes `auto` (Algorithm::automatic) gives the algorithm.
enum class AutoChoice {
  never,
  wrapped_axis,  // an all-gather or reduce-scatter phase over an axis whose groups are rings of links
  open_axis,     // an all-gather or reduce-scatter phase over an axis without wraparound
  all_to_all,    // an all-to-all over any axis
};

// The collectives an algorithm runs, as a set of bits over CollectiveKind.
constexpr std::uint8_t kind_bit(CollectiveKind kind) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(kind));
}
// All-gather and reduce-scatter phases, and all-reduce as a reduce-scatter then an all-gather.
inline constexpr std::uint8_t kPhaseKinds = kind_bit(CollectiveKind::all_gather) |
                                            kind_bit(CollectiveKind::reduce_scatter) |
                                            kind_bit(CollectiveKind::all_reduce);

struct AlgorithmTraits {
  Algorithm algorithm = Algorithm::automatic;
  std::string_view name;   // as users write it: a scenario's options.algorithm, `--algorithm` (any case, `_` for `-`)
  std::uint8_t kinds = 0;  // the collectives it runs (kind_bit); the verifier refuses the others
  // 1: every chip sends to each position once per pass, one way; 2: data moves both ways at once (the estimate of
  // the transfers a request builds, estimate_transfers).
  std::int32_t directions = 1;
  StepCount steps = StepCount::n_minus_1;
  bool half_shard_messages = false;  // each message carries half a shard (a half each way), not a whole one
  // On a wrapped ring every position runs the same schedule rotated, so one chip stands for all (the translation
  // quotient, sim/collective_sim/torus_quotient.hpp). Not so on a line: its end chips send less.
  bool translation_invariant = false;
  AutoChoice automatic = AutoChoice::never;
  PhaseGenerator generator = nullptr;

  bool runs(CollectiveKind kind) const { return (kinds & kind_bit(kind)) != 0; }
  // Steps of one phase on a group of n chips.
  std::int32_t phase_steps(std::int32_t n) const;
};

// The table. docs/collectives.md ("Schedules") gives each row's schedule and its time without contention.
// Columns: algorithm, name, kinds, directions, steps, half_shard_messages, translation_invariant, automatic,
// generator (the members of AlgorithmTraits, in order).
inline constexpr std::array<AlgorithmTraits, 5> kAlgorithms{{
    // ring, one way: N-1 steps of a whole shard
    {Algorithm::unidirectional, "unidirectional", kPhaseKinds, 1, StepCount::n_minus_1, false, true, AutoChoice::never,
     &ring_unidirectional},
    // ring, the whole shard both ways as the book counts it: ceil((N-1)/2) steps one way, floor((N-1)/2) the other
    {Algorithm::bidirectional, "bidirectional", kPhaseKinds, 2, StepCount::half_n, false, true, AutoChoice::never,
     &ring_bidirectional},
    // ring, half of every shard each way: N-1 steps of half a shard
    {Algorithm::bidirectional_split, "bidirectional-split", kPhaseKinds, 2, StepCount::n_minus_1, true, true,
     AutoChoice::wrapped_axis, &ring_bidirectional_split},
    // an axis without wraparound: both ways along the line, N-1 steps; the end chips send less than the others
    {Algorithm::line, "line", kPhaseKinds, 2, StepCount::n_minus_1, false, false, AutoChoice::open_axis,
     &line_bidirectional},
    // all-to-all: every chip sends to every other at once over its shortest route
    {Algorithm::direct, "direct", kind_bit(CollectiveKind::all_to_all), 1, StepCount::one, false, true,
     AutoChoice::all_to_all, &all_to_all_direct},
}};

namespace detail {
constexpr EnumNames<Algorithm, kAlgorithms.size() + 1> algorithm_names() {
  std::array<std::pair<std::string_view, Algorithm>, kAlgorithms.size() + 1> entries{};
  entries[0] = {"auto", Algorithm::automatic};
  for (std::size_t i = 0; i < kAlgorithms.size(); ++i)
    entries[i + 1] = {kAlgorithms[i].name, kAlgorithms[i].algorithm};
  return {"algorithm", entries};
}
}  // namespace detail

// Names as users write them (any case, `_` or `-`): `auto`, then the rows'.
inline constexpr EnumNames<Algorithm, kAlgorithms.size() + 1> kAlgorithmNames = detail::algorithm_names();

// The row of `algorithm`; throws InternalError for Algorithm::automatic (resolve it first) or a value with no row.
const AlgorithmTraits& algorithm_traits(Algorithm algorithm);

// The algorithm used on `axis` for `op`: `requested` unless it is automatic, else the row whose AutoChoice matches
// (all-to-all; else an axis with or without wraparound).
Algorithm resolve_algorithm(Algorithm requested, CollectiveKind op, const AxisGroups& axis);

}  // namespace podsim
