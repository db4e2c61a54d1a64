// `podsim plan` (docs/capacity.md): the candidates a model-level scenario allows, screened by the closed form,
// the best simulated, ranked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// The most candidates a search may allow (docs/reliability.md, "Limits that protect the machine"): each is screened
// by the closed form, which holds its result (about 10 KB) until the ranking; a few lists of a small scenario file
// multiply to millions. Counted before any candidate is made.
inline constexpr std::uint64_t kMaxSearchCandidates = 100'000;

// Every candidate of the scenario's `search` section (each hardware preset x slice shape x assignment of the
// listed kinds to the mesh axes x microbatches x remat), or, without one, its `plans` on its own slice.
// `spec` as verified() returns it (its mesh and wraparound derived). Throws InputError when it allows no candidate.
std::vector<Candidate> enumerate_candidates(const ScenarioSpec& spec);

// The enumeration and the (hardware, slice) pairs of the search that cannot be formed (a v5e slice larger than its
// 16x16 pod; a listed wraparound of another rank): one rejected result per pair, with the reason.
struct Enumeration {
  std::vector<Candidate> candidates;
  std::vector<CandidateResult> unformable;
};
Enumeration enumerate_search(const ScenarioSpec& spec);

struct PlanSearchOptions {
  std::size_t top_k = 10;               // candidates simulated by the des (0: none)
  bool simulate = true;                 // --model book: false
  ProgramSimulationOptions simulation;  // the symmetry paths the simulations may take (all, by default)
  // Candidates simulated at once, on threads (0: one per core), as the machine's available memory allows (each
  // event graph waits for its memory, des_memory_gate.hpp); one in an AddressSanitizer build (children_from_threads,
  // fork_runner.hpp). The results and their order do not depend on it.
  std::size_t parallel = 0;
};

struct PlanSearchResult {
  std::vector<CandidateResult> ranked;    // fits HBM, best first (des step time for the simulated, then book)
  std::vector<CandidateResult> rejected;  // cannot run or do not fit, in enumeration order
  std::size_t screened = 0;               // candidates evaluated by the closed form
  double screen_seconds = 0;              // wall time of the screening
  double simulate_seconds = 0;            // wall time of the simulations
  std::size_t simulations = 0;            // simulations run (the top K; some may have failed)
};

// Screens every candidate by the closed form (one that throws is listed as rejected with the message), ranks those
// that fit by book step time (with a goal, by the goal's order), folds mirror images into the first of their class
// (CandidateResult::mirrors; the rejected too), simulates the top K (a failed simulation keeps its book rank, with
// des_failed set) and ranks the simulated by des ahead of the rest. Throws InputError when the scenario has no model or
// no candidate; never for one candidate.
PlanSearchResult search_plans(const ScenarioSpec& spec, const PlanSearchOptions& options);

}  // namespace podsim
