// `podsim plan` on a serving scenario (serving_search.hpp). A deployment (candidate x max_num_seqs) is built once;
// its replica counts are bisected in their sorted order, each probe a run of the scenario's traffic. Deployments are
// searched on threads, each run in its own child process.
#include "sim/capacity/serving_search.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>

#include "models/common/error.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/engine/fork_runner.hpp"

namespace podsim {
namespace {

double serving_seconds_since(std::chrono::steady_clock::time_point began) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

// The largest miss relative to its target (0 when every check is met): how far a missing candidate is.
double worst_relative_miss(const ServingOutcome& outcome) {
  double worst = 0.0;
  for (const SloCheck& check : outcome.checks)
    if (!check.met && check.target_s > 0) worst = std::max(worst, check.miss_s / check.target_s);
  return worst;
}

// The smallest margin under the targets, relative (1 without an SLO): how comfortably a meeting candidate meets.
double least_relative_margin(const ServingOutcome& outcome) {
  double least = 1.0;
  for (const SloCheck& check : outcome.checks)
    if (check.target_s > 0) least = std::min(least, (check.target_s - check.actual_s) / check.target_s);
  return least;
}

// A deployment being searched: its model (null when it could not be built) and the replica counts probed.
struct ServingGroup {
  Candidate candidate;
  std::int64_t max_num_seqs = 0;
  std::unique_ptr<ServingReplicaModel> model;
  std::optional<std::string> rejected;  // why the model could not be built
  std::vector<ServingCandidate> probed;
  std::size_t decided = 0;
};

ServingCandidate probe(const ServingGroup& group, const TrafficSpec& traffic, std::int64_t replicas) {
  ServingCandidate out;
  out.candidate = group.candidate;
  out.replicas = replicas;
  out.max_num_seqs = group.max_num_seqs;
  try {
    out.outcome = group.model->run(traffic, replicas);
    out.outcome->run.completed.clear();  // the metrics are taken; a search keeps many outcomes
    out.outcome->run.completed.shrink_to_fit();
    out.outcome->run.steps.clear();
    out.outcome->run.steps.shrink_to_fit();
    out.outcome->run.itl = WeightedSamples{};
  } catch (const std::bad_alloc&) {
    throw;  // the machine's memory, not the candidate's answer (issue 33, class 2)
  } catch (const std::exception& e) {
    out.rejected = e.what();
  }
  return out;
}

// The least of `replicas` (ascending) that meets the SLO, by bisection: the largest first (if it misses, so do all),
// then halving. Every probe is kept; the counts never probed are counted as decided.
void bisect_replicas(ServingGroup& group, const TrafficSpec& traffic, const std::vector<std::int64_t>& replicas) {
  std::size_t lo = 0, hi = replicas.size() - 1;  // the answer, if any, is in [lo, hi]
  const auto meets = [&](std::size_t index) {
    group.probed.push_back(probe(group, traffic, replicas[index]));
    return group.probed.back().meets_slo();
  };
  if (meets(hi)) {
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (meets(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
  }
  group.decided = replicas.size() - group.probed.size();
}

}  // namespace

bool ServingCandidate::meets_slo() const {
  return outcome &&
         std::all_of(outcome->checks.begin(), outcome->checks.end(), [](const SloCheck& c) { return c.met; });
}

std::vector<std::int64_t> searched_replicas(const ScenarioSpec& spec) {
  std::vector<std::int64_t> out;
  if (spec.search) out = spec.search->replicas;
  if (out.empty() && spec.serve) out.push_back(spec.serve->replicas);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::int64_t> searched_max_num_seqs(const ScenarioSpec& spec) {
  std::vector<std::int64_t> out;
  if (spec.search) out = spec.search->max_num_seqs;
  if (out.empty() && spec.serve) out.push_back(spec.serve->scheduler.max_num_seqs);
  return out;
}

ServingSearchResult search_serving(const ScenarioSpec& spec, const ServingSearchOptions& options) {
  if (!spec.serve)
    throw InputError(spec.source_file + ": /workload/mode",
                     "a serving search needs a serving scenario (workload mode \"serve\"), got: none");
  if (spec.serve->disaggregated)
    throw InputError(spec.source_file + ": /serving/disaggregated",
                     "the serving search covers co-located replicas; a disaggregated deployment is run by `podsim "
                     "serve` (its pools as written), got: a disaggregated deployment");
  const Enumeration enumeration = enumerate_search(spec);
  ServingSearchResult result;
  for (const CandidateResult& unformable : enumeration.unformable) {
    ServingCandidate rejected;
    rejected.candidate = unformable.candidate;
    rejected.rejected = unformable.rejected;
    result.rejected.push_back(std::move(rejected));
  }
  const std::vector<std::int64_t> replicas = searched_replicas(spec);
  const std::vector<std::int64_t> seqs = searched_max_num_seqs(spec);

  // Built on this thread (a book model takes milliseconds; a des one runs its own children).
  const auto build_began = std::chrono::steady_clock::now();
  std::vector<ServingGroup> groups;
  for (const Candidate& candidate : enumeration.candidates) {
    for (const std::int64_t max_num_seqs : seqs) {
      ServingGroup group;
      group.candidate = candidate;
      group.max_num_seqs = max_num_seqs;
      try {
        group.model = std::make_unique<ServingReplicaModel>(spec, candidate, max_num_seqs, options.evaluator);
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& e) {
        group.rejected = e.what();
      }
      groups.push_back(std::move(group));
    }
  }
  result.deployments = groups.size();
  result.build_seconds = serving_seconds_since(build_began);

  const auto simulate_began = std::chrono::steady_clock::now();
  std::vector<std::size_t> built;
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (groups[g].model) built.push_back(g);
  engine::for_each_on_threads(built.size(), engine::simulation_threads(options.parallel),
                              [&](std::size_t k) { bisect_replicas(groups[built[k]], spec.serve->traffic, replicas); });
  result.simulate_seconds = serving_seconds_since(simulate_began);

  for (ServingGroup& group : groups) {
    if (group.rejected) {
      ServingCandidate rejected;
      rejected.candidate = group.candidate;
      rejected.max_num_seqs = group.max_num_seqs;
      rejected.rejected = group.rejected;
      result.rejected.push_back(std::move(rejected));
      continue;
    }
    result.simulations += group.probed.size();
    result.decided_unsimulated += group.decided;
    std::sort(group.probed.begin(), group.probed.end(),
              [](const ServingCandidate& a, const ServingCandidate& b) { return a.replicas < b.replicas; });
    for (ServingCandidate& probed : group.probed)
      (probed.outcome ? result.ranked : result.rejected).push_back(std::move(probed));
  }
  std::stable_sort(
      result.ranked.begin(), result.ranked.end(), [](const ServingCandidate& a, const ServingCandidate& b) {
        if (a.meets_slo() != b.meets_slo()) return a.meets_slo();
        if (!a.meets_slo()) return worst_relative_miss(*a.outcome) < worst_relative_miss(*b.outcome);
        if (a.chips() != b.chips()) return a.chips() < b.chips();
        const double ga = a.outcome->metrics.goodput_requests_per_s, gb = b.outcome->metrics.goodput_requests_per_s;
        if (ga != gb) return ga > gb;
        return least_relative_margin(*a.outcome) > least_relative_margin(*b.outcome);
      });
  return result;
}

}  // namespace podsim
