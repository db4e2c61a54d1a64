// A training goal applied to a plan search (docs/capacity.md, "Goals"): each candidate's time to train, cost,
// energy and goodput from its step time, and the order the goal ranks them in.
#pragma once

#include <cstddef>
#include <vector>

#include "models/common/enum_names.hpp"
#include "models/common/field_error.hpp"
#include "models/goal/goal_figures.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/run/candidate_result.hpp"

namespace podsim {

// The candidates at the head of a goal's ranking whose time to train is also drawn by the Monte Carlo (each draws
// reliability.monte_carlo_runs whole runs; the rest show the closed form only).
inline constexpr std::size_t kGoalMonteCarloCandidates = 10;

// The candidate as the goal sees it: its step time (des when simulated, else book), the workload's tokens a step,
// its chips and hosts (chips_per_host; one host per slice without the figure), the chips of one of its slices, its
// checkpoint (parameters and optimizer state of the whole model), its chips' power and the price.
GoalInputs goal_inputs(const CapacityProblem& problem, const CandidateResult& result);

// Sets `goal` on each of `results` from its current step time (the closed form only; a Monte Carlo with
// `monte_carlo`). Expects problem.goal and problem.reliability.
void attach_goal(const CapacityProblem& problem, std::vector<CandidateResult>& results, bool monte_carlo);

// The goal's order: those that meet it first, then (with `simulated_first`) those simulated, then by the objective
// (those that miss: the smallest worst relative miss first). Both must carry their goal figures.
bool goal_ranks_before(const CapacityProblem& problem, const CandidateResult& a, const CandidateResult& b,
                       bool simulated_first);

// The search's final ranking under the goal: every ranked candidate's figures from its final step time, sorted by
// goal_ranks_before (simulated first), then the Monte Carlo for the first `monte_carlo_top` of them.
void rank_by_goal(const CapacityProblem& problem, std::vector<CandidateResult>& ranked, std::size_t monte_carlo_top);

// `podsim plan --sort` (docs/capacity.md, "The table"): by cost (the goal's cost_usd, else the cost per million
// tokens), chips (held, then the step), time (the goal's expected days, else the step) or step time. With a goal,
// those that meet it stay first; the simulated stay ahead of the rest, as in the search's own ranking.
enum class PlanSort { cost, chips, time, step };
inline constexpr EnumNames<PlanSort, 4> kPlanSortNames{
    "sort",
    {{{"cost", PlanSort::cost}, {"chips", PlanSort::chips}, {"time", PlanSort::time}, {"step", PlanSort::step}}}};

// The arguments of sort_ranked that a SortError can be about; front ends name them in their terms (the CLI's --sort).
enum class SortField { sort };
using SortError = FieldError<SortField>;

// Throws SortError in `sort` for `cost` without a price.
void sort_ranked(const CapacityProblem& problem, std::vector<CandidateResult>& ranked, PlanSort sort);

}  // namespace podsim
