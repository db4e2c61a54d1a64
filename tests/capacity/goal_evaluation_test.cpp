// The ranking of a plan search's candidates after the search (sim/capacity/goal_evaluation.hpp): a sort the problem
// cannot honour is refused by its field, never by a flag's name (the CLI's --sort says so, PlanCli).
#include "sim/capacity/goal_evaluation.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace podsim {
namespace {

TEST(GoalEvaluation, SortingByCostWithoutAPriceIsRefusedInTheSortField) {
  const CapacityProblem no_price;  // neither price_per_chip_hour nor price_per_preset
  std::vector<CandidateResult> ranked;
  try {
    sort_ranked(no_price, ranked, PlanSort::cost);
    FAIL() << "no error";
  } catch (const SortError& e) {
    EXPECT_EQ(e.field(), SortField::sort);
    EXPECT_EQ(e.message(), "sorting by cost needs a price: give the scenario \"price_per_chip_hour\", got: cost");
  }
  EXPECT_NO_THROW(sort_ranked(no_price, ranked, PlanSort::step));  // the other keys need no price
}

}  // namespace
}  // namespace podsim
