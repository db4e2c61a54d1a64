// `podsim plan` on a serving scenario (docs/serving.md, "Search"): every deployment its `search` allows (hardware x
// slice x tensor and expert parallelism x max_num_seqs), each run through `podsim serve`'s simulation at the
// scenario's traffic with as few of the listed replica counts as a bisection needs, ranked by chips among those that
// meet the SLO.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/capacity/serving_run.hpp"
#include "sim/capacity/serving_step.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct ServingSearchOptions {
  StepEvaluator evaluator = StepEvaluator::book;
  // Simulations at once, on threads (0: one per core); one in an AddressSanitizer build (children_from_threads,
  // fork_runner.hpp). The results and their order do not depend on it.
  std::size_t parallel = 0;
};

// One deployment at one replica count: simulated (`outcome`, its request records dropped), or rejected with the
// reason it could not be built or run.
struct ServingCandidate {
  Candidate candidate;  // one replica: hardware, slice, parallelism
  std::int64_t replicas = 0;
  std::int64_t max_num_seqs = 0;
  std::optional<ServingOutcome> outcome;  // its run's metrics, SLO checks and deployment (run.completed emptied)
  std::optional<std::string> rejected;    // why it has no outcome

  std::int64_t chips() const { return candidate.chips() * replicas; }
  bool meets_slo() const;  // simulated, and every SLO check met
};

struct ServingSearchResult {
  // The simulated: those that meet the SLO first, by chips (then goodput, then the worst SLO percentile's margin),
  // then those that miss, the nearest (the smallest largest relative miss) first.
  std::vector<ServingCandidate> ranked;
  std::vector<ServingCandidate> rejected;  // in enumeration order
  std::size_t deployments = 0;             // replica models built (candidate x max_num_seqs)
  std::size_t simulations = 0;
  // Replica counts of a built deployment that were not simulated: above the least that meets the SLO, or below one
  // that misses (a deployment's latencies fall as replicas are added, so the bisection decides them unsimulated).
  std::size_t decided_unsimulated = 0;
  double build_seconds = 0;     // wall time of the replica models
  double simulate_seconds = 0;  // wall time of the runs
};

// The replica counts and max_num_seqs searched: the search section's lists, or the serving section's values.
std::vector<std::int64_t> searched_replicas(const ScenarioSpec& spec);
std::vector<std::int64_t> searched_max_num_seqs(const ScenarioSpec& spec);

// Throws InputError for a scenario that is not a serving one, or whose search allows no candidate; never for one
// candidate (its reason goes to `rejected`).
ServingSearchResult search_serving(const ScenarioSpec& spec, const ServingSearchOptions& options);

}  // namespace podsim
