// Young's and Daly's checkpoint intervals against Daly's own published examples, the expected wall time against its
// first-order expansion and against the Monte Carlo of the same process, and a goal's figures for a known step.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "models/goal/goal_figures.hpp"
#include "models/goal/goodput.hpp"

namespace podsim {
namespace {

TEST(Goodput, YoungsIntervalIsTheSquareRootOfTwiceTheCheckpointTimesTheMtbf) {
  // A 5-minute checkpoint and a failure a day: sqrt(2 x 300 x 86,400) = 7,200 s.
  EXPECT_DOUBLE_EQ(young_interval_s(300, 86400), 7200);
}

TEST(Goodput, DalysIntervalMatchesHisPublishedExamples) {
  // Daly 2006, figures 3-5: a 5-minute checkpoint with M = 24 h gives 117 min, 6 h gives 57 min, 15 min gives 9.1 min.
  EXPECT_NEAR(daly_interval_s(300, 24 * 3600) / 60, 117, 0.5);
  EXPECT_NEAR(daly_interval_s(300, 6 * 3600) / 60, 57, 0.5);
  EXPECT_NEAR(daly_interval_s(300, 15 * 60) / 60, 9.1, 0.05);
  // A checkpoint of twice the MTBF or more: checkpoint every MTBF.
  EXPECT_DOUBLE_EQ(daly_interval_s(2000, 1000), 1000);
}

TEST(Goodput, TheExpectedWallTimeExpandsToTheFirstOrderWaste) {
  // With delta, R and tau small against M, T_w / T_s = (1 + delta / tau)(1 + (tau + delta) / (2M) + R / M) to
  // first order in 1 / M (Young's waste, delta / tau + (tau + delta) / (2M) + R / M, with its cross term):
  // delta = 60 s, R = 120 s, tau = 1,200 s, M = 10 days: 1.05 x (1 + 0.000729 + 0.000139); the next terms,
  // (tau + delta)^2 / (6 M^2) and the like, are below 1e-6.
  const double m = 10 * 86400.0;
  const double ratio = expected_wall_s(1e6, 1200, 60, 120, m) / 1e6;
  const double first_order = (1 + 60.0 / 1200) * (1 + (1200.0 + 60) / (2 * m) + 120 / m);
  EXPECT_NEAR(ratio, first_order, 1e-6);
}

TEST(Goodput, AJobFailsAtTheSumOfItsPartsRates) {
  ReliabilitySpec r;
  r.chip_failures_per_day = 1e-3;
  r.slice_failures_per_day = 2e-4;
  r.host_failures_per_day = 4e-3;
  // 1,024 chips in 256 hosts: 1,024 x 1.2e-3 + 256 x 4e-3 = 1.2288 + 1.024.
  EXPECT_NEAR(job_failures_per_day(r, JobScale{1024, 256}), 2.2528, 1e-12);
}

TEST(Goodput, WithoutFailuresTheRunIsItsWork) {
  const Goodput g = goodput(5e6, 120, 600, 0);
  EXPECT_EQ(g.expected_s, 5e6);
  EXPECT_EQ(g.fraction, 1.0);
  EXPECT_EQ(g.lost_to_checkpoints_s, 0.0);
  EXPECT_TRUE(sample_wall_times(g, 100, 1).empty());
}

TEST(Goodput, TheMonteCarloMeanIsTheClosedForm) {
  // Four failures a day (M = 21,600 s), checkpoints of 300 s, restarts of 900 s; 40 segments of Daly's interval.
  Goodput g = goodput(1.0, 300, 900, 4);
  const double interval = g.interval_s;
  g = goodput(40 * interval, 300, 900, 4);
  ASSERT_NEAR(g.interval_s, interval, 1e-6);
  const std::vector<double> walls = sample_wall_times(g, 20000, 7);
  ASSERT_EQ(walls.size(), 20000u);
  const double mean = std::accumulate(walls.begin(), walls.end(), 0.0) / static_cast<double>(walls.size());
  double variance = 0;
  for (const double w : walls)
    variance += (w - mean) * (w - mean);
  variance /= static_cast<double>(walls.size() - 1);
  const double standard_error = std::sqrt(variance / static_cast<double>(walls.size()));
  EXPECT_NEAR(mean, g.expected_s, 4 * standard_error) << "closed form " << g.expected_s;
  // The same seed draws the same runs.
  EXPECT_EQ(sample_wall_times(g, 50, 7), std::vector<double>(walls.begin(), walls.begin() + 50));
  // Goodput: the work over the expected wall time; the losses add up to the difference.
  EXPECT_NEAR(g.fraction, g.ideal_s / g.expected_s, 1e-15);
  EXPECT_NEAR(g.ideal_s + g.lost_to_checkpoints_s + g.lost_to_failures_s, g.expected_s, 1e-6 * g.expected_s);
}

TEST(GoalFigures, AKnownStepGivesKnownDaysCostAndEnergy) {
  // 1e12 tokens at 2^20 a step: ceil(953,674.3) = 953,675 steps of 2 s = 1,907,350 s = 22.0758 days; no failures.
  GoalSpec goal;
  goal.train_tokens = 1e12;
  goal.deadline_days = 20;
  goal.max_chips = 300;
  ReliabilitySpec r;  // every rate 0
  r.checkpoint_write_Bps_per_host = 1e9;
  r.checkpoint_read_Bps_per_host = 1e9;
  r.spare_slices = 1;
  GoalInputs in;
  in.step_s = 2;
  in.batch_tokens = 1 << 20;
  in.scale = JobScale{256, 64};
  in.chips_per_slice = 256;
  in.checkpoint_bytes = 1e12;
  in.power_W = 200;
  in.price_per_chip_hour = 2;
  const GoalFigures f = goal_figures(goal, r, in, true);
  EXPECT_EQ(f.steps, 953675);
  EXPECT_NEAR(f.ideal_days, 1907350.0 / 86400, 1e-9);
  EXPECT_NEAR(f.expected_days, f.ideal_days, 1e-12);
  // 512 chips held (a spare slice of 256) for 529.819 h: 271,267.6 chip-hours, $542,535; the 256 running chips at
  // 200 W: 27,126.8 kWh; 1e12 tokens / 9.7656e10 J = 10.24 tokens per joule.
  const double hours = 1907350.0 / 3600;
  EXPECT_EQ(f.chips_held, 512);
  EXPECT_NEAR(f.chip_hours, 512 * hours, 1e-6);
  EXPECT_NEAR(*f.cost_usd, 2 * 512 * hours, 1e-6);
  EXPECT_NEAR(*f.energy_kwh, 256 * 0.2 * hours, 1e-6);
  EXPECT_NEAR(*f.tokens_per_joule, 1e12 / (256 * 200 * 1907350.0), 1e-9);
  EXPECT_FALSE(f.p90_days.has_value());  // no failures: nothing to draw
  ASSERT_EQ(f.misses.size(), 2u);
  EXPECT_EQ(f.misses[0], "deadline: 22.08 days expected > 20 days (+2.076 days)");
  EXPECT_EQ(f.misses[1], "chips: 512 > 300 (+212)");
  EXPECT_NEAR(f.worst_miss, 512.0 / 300 - 1, 1e-12);
  EXPECT_NEAR(objective_value(f, GoalObjective::cost), 2 * 512 * hours, 1e-6);
}

TEST(GoalFigures, TheCheckpointAndRestartComeFromTheHostsBandwidth) {
  // 1 TB over 64 hosts at 1 GB/s each: a 15.625 s checkpoint, and 600 s + 15.625 s to restart.
  GoalSpec goal;
  goal.train_tokens = 1e12;
  ReliabilitySpec r = default_reliability();
  r.checkpoint_write_Bps_per_host = 1e9;
  r.checkpoint_read_Bps_per_host = 1e9;
  r.restart_s = 600;
  r.monte_carlo_runs = 200;
  GoalInputs in;
  in.step_s = 2;
  in.batch_tokens = 1 << 20;
  in.scale = JobScale{256, 64};
  in.checkpoint_bytes = 1e12;
  const GoalFigures f = goal_figures(goal, r, in, true);
  EXPECT_DOUBLE_EQ(f.goodput.checkpoint_s, 15.625);
  EXPECT_DOUBLE_EQ(f.goodput.restart_s, 615.625);
  EXPECT_LT(f.goodput.fraction, 1.0);
  ASSERT_TRUE(f.p90_days.has_value());
  EXPECT_EQ(f.runs, 200);
  EXPECT_GE(*f.p90_days, *f.p50_days);
  EXPECT_GE(*f.p50_days, f.ideal_days);
}

}  // namespace
}  // namespace podsim
