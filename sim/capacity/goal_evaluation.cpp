// A training goal applied to a plan search (goal_evaluation.hpp).
#include "sim/capacity/goal_evaluation.hpp"

#include <algorithm>

#include "models/common/error.hpp"
#include "models/model/transformer.hpp"

namespace podsim {

GoalInputs goal_inputs(const CapacityProblem& problem, const CandidateResult& result) {
  const Candidate& c = result.candidate;
  GoalInputs in;
  in.step_s = result.step_s();
  in.batch_tokens = problem.workload.batch_tokens;
  in.scale.chips = c.chips();
  const std::int64_t per_host = c.hardware.spec.chips_per_host;
  in.scale.hosts = per_host > 0 ? (in.scale.chips + per_host - 1) / per_host : c.slices;
  in.chips_per_slice = in.scale.chips / std::max<std::int32_t>(c.slices, 1);
  const TrainingState state = training_state_bytes(problem.model.dims, problem.workload.training_setup());
  in.checkpoint_bytes = static_cast<double>(state.params) + static_cast<double>(state.optimizer);
  in.power_W = c.hardware.spec.chip.power_W;
  in.price_per_chip_hour = candidate_price(problem, result.candidate);
  return in;
}

void attach_goal(const CapacityProblem& problem, std::vector<CandidateResult>& results, bool monte_carlo) {
  if (!problem.goal || !problem.reliability) throw InternalError("attach_goal: the problem has no goal");
  for (CandidateResult& r : results)
    r.goal = goal_figures(*problem.goal, *problem.reliability, goal_inputs(problem, r), monte_carlo);
}

bool goal_ranks_before(const CapacityProblem& problem, const CandidateResult& a, const CandidateResult& b,
                       bool simulated_first) {
  const GoalFigures& fa = *a.goal;
  const GoalFigures& fb = *b.goal;
  if (fa.meets != fb.meets) return fa.meets;
  if (simulated_first && a.des_step_s.has_value() != b.des_step_s.has_value()) return a.des_step_s.has_value();
  if (!fa.meets && fa.worst_miss != fb.worst_miss) return fa.worst_miss < fb.worst_miss;
  const GoalObjective objective =
      objective_of(*problem.goal, problem.price_per_chip_hour.has_value() || !problem.price_per_preset.empty());
  return objective_value(fa, objective) < objective_value(fb, objective);
}

void rank_by_goal(const CapacityProblem& problem, std::vector<CandidateResult>& ranked, std::size_t monte_carlo_top) {
  attach_goal(problem, ranked, false);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const CandidateResult& a, const CandidateResult& b) {
    return goal_ranks_before(problem, a, b, true);
  });
  for (std::size_t i = 0; i < std::min(monte_carlo_top, ranked.size()); ++i)
    ranked[i].goal = goal_figures(*problem.goal, *problem.reliability, goal_inputs(problem, ranked[i]), true);
}

void sort_ranked(const CapacityProblem& problem, std::vector<CandidateResult>& ranked, PlanSort sort) {
  if (sort == PlanSort::cost && !problem.price_per_chip_hour && problem.price_per_preset.empty())
    throw SortError(SortField::sort,
                    "sorting by cost needs a price: give the scenario \"price_per_chip_hour\", got: cost");
  const auto key = [&](const CandidateResult& r) -> double {
    const bool goal = r.goal.has_value();
    switch (sort) {
      case PlanSort::cost:
        return goal ? r.goal->cost_usd.value_or(0) : r.cost_per_million_tokens.value_or(0);
      case PlanSort::chips:
        return static_cast<double>(goal ? r.goal->chips_held : r.candidate.chips());
      case PlanSort::time:
        return goal ? r.goal->expected_days : r.step_s();
      case PlanSort::step:
        return r.step_s();
    }
    return 0;
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](const CandidateResult& a, const CandidateResult& b) {
    if (a.goal && b.goal && a.goal->meets != b.goal->meets) return a.goal->meets;
    if (a.des_step_s.has_value() != b.des_step_s.has_value()) return a.des_step_s.has_value();
    const double ka = key(a), kb = key(b);
    if (ka != kb) return ka < kb;
    return a.step_s() < b.step_s();
  });
}

}  // namespace podsim
