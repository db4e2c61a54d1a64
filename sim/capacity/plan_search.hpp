// `podsim plan` (docs/capacity.md): the candidates a model-level scenario allows, screened by the closed form,
// the best simulated, ranked.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/capacity/candidate.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// Every candidate of the scenario's `search` section (each hardware preset x slice shape x assignment of the
// listed kinds to the mesh axes x microbatches x remat), or, without one, its `plans` on its own slice.
std::vector<Candidate> enumerate_candidates(const ScenarioSpec& spec);

struct PlanSearchOptions {
  std::size_t top_k = 10;  // candidates simulated by the des (0: none)
  bool simulate = true;    // --model book: false
};

struct PlanSearchResult {
  std::vector<CandidateResult> ranked;    // fits HBM, best first (des step time for the simulated, then book)
  std::vector<CandidateResult> rejected;  // cannot run or do not fit, in enumeration order
  std::size_t screened = 0;               // candidates evaluated by the closed form
  double screen_seconds = 0;              // wall time of the screening
  double simulate_seconds = 0;            // wall time of the simulations
};

PlanSearchResult search_plans(const ScenarioSpec& spec, const PlanSearchOptions& options);

}  // namespace podsim
