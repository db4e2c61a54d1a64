// The seeded generator and samplers of models/serving/random.hpp against values fixed elsewhere: the C++ standard's
// 10000th output of mt19937_64, splitmix64's published first outputs, first draws worked from them by hand, and the
// moments of each law over 200,000 draws within five standard errors worked from the law.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "models/serving/random.hpp"

namespace podsim {
namespace {

constexpr int kRandomTestDraws = 200000;

struct RandomTestMoments {
  double mean = 0;
  double variance = 0;
};

template <typename Draw>
RandomTestMoments random_test_moments(Draw&& draw) {
  std::vector<double> x(kRandomTestDraws);
  double sum = 0;
  for (double& v : x) {
    v = draw();
    sum += v;
  }
  const double mean = sum / kRandomTestDraws;
  double squares = 0;
  for (const double v : x)
    squares += (v - mean) * (v - mean);
  return {mean, squares / (kRandomTestDraws - 1)};
}

// Five standard errors of a sample mean (sd / sqrt(n)) and of a sample variance (sqrt((mu4 - sigma^4) / n)).
double random_test_mean_tolerance(double variance) {
  return 5 * std::sqrt(variance / kRandomTestDraws);
}
double random_test_variance_tolerance(double variance, double kurtosis) {
  return 5 * variance * std::sqrt((kurtosis - 1) / kRandomTestDraws);
}

TEST(Random, Mt19937_64TenThousandthOutputIsTheStandards) {
  Rng rng(5489);  // the default seed; [rand.predef] fixes the 10000th output
  std::uint64_t x = 0;
  for (int i = 0; i < 10000; ++i)
    x = rng.next_u64();
  EXPECT_EQ(x, 9981545732273789042ULL);
}

TEST(Random, SplitMix64FirstOutputsFromZero) {
  // The reference implementation's outputs from state 0 (Vigna's splitmix64.c).
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(splitmix64(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(splitmix64(state), 0x06C45D188009454FULL);
  EXPECT_EQ(stream_seed(0, 0), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(stream_seed(0, 2), 0x06C45D188009454FULL);
}

TEST(Random, FirstDrawsWorkedFromTheFirstOutput) {
  // mt19937_64(5489)'s first output is 14514284786278117030; its top 53 bits times 2^-53 = 0.7868209548678019.
  EXPECT_EQ(Rng(5489).next_u64(), 14514284786278117030ULL);
  EXPECT_EQ(Rng(5489).uniform01(), 0.7868209548678019);
  // 14514284786278117030 mod 6 = 4 (it is below the rejection limit 2^64 - 1 - (2^64 - 1) mod 6): 1 + 4.
  EXPECT_EQ(Rng(5489).uniform_int(1, 6), 5);
  // -ln(1 - 0.7868209548678019) / 4.
  EXPECT_DOUBLE_EQ(Rng(5489).exponential(4.0), 0.38640571972334925);
}

TEST(Random, SameSeedSameSequenceOtherSeedOther) {
  auto sequence = [](std::uint64_t seed) {
    Rng rng(seed);
    std::vector<double> out;
    for (int i = 0; i < 50; ++i) {
      out.push_back(rng.uniform01());
      out.push_back(static_cast<double>(rng.uniform_int(-5, 5)));
      out.push_back(rng.exponential(2.0));
      out.push_back(rng.normal());
      out.push_back(rng.gamma(0.3, 2.0));
      out.push_back(rng.gamma(4.0, 0.5));
      out.push_back(rng.lognormal(1.0, 0.7));
    }
    return out;
  };
  EXPECT_EQ(sequence(7), sequence(7));
  EXPECT_NE(sequence(7), sequence(8));
}

TEST(Random, UniformIntCoversItsBoundsWithTheLawsMoments) {
  Rng rng(11);
  std::vector<int> seen(7, 0);
  const RandomTestMoments m = random_test_moments([&] {
    const std::int64_t v = rng.uniform_int(1, 6);
    EXPECT_GE(v, 1);
    EXPECT_LE(v, 6);
    seen[static_cast<std::size_t>(v)] += 1;
    return static_cast<double>(v);
  });
  for (int face = 1; face <= 6; ++face)
    EXPECT_GT(seen[static_cast<std::size_t>(face)], 0);
  // Mean 3.5, variance (6^2 - 1) / 12 = 35/12; fourth central moment (0.5^4 + 1.5^4 + 2.5^4) / 3 = 14.7292.
  const double variance = 35.0 / 12.0;
  EXPECT_NEAR(m.mean, 3.5, random_test_mean_tolerance(variance));
  EXPECT_NEAR(m.variance, variance,
              random_test_variance_tolerance(variance, 14.729166666666666 / (variance * variance)));
  EXPECT_EQ(rng.uniform_int(9, 9), 9);
  const std::int64_t any =
      rng.uniform_int(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  (void)any;  // the whole 64-bit range is a valid range (its size, 2^64, wraps to 0)
}

TEST(Random, ExponentialHasMeanOneOverRate) {
  Rng rng(12);
  const RandomTestMoments m = random_test_moments([&] { return rng.exponential(4.0); });
  // Mean 1/4, variance 1/16, kurtosis 9.
  EXPECT_NEAR(m.mean, 0.25, random_test_mean_tolerance(1.0 / 16));
  EXPECT_NEAR(m.variance, 1.0 / 16, random_test_variance_tolerance(1.0 / 16, 9));
}

TEST(Random, NormalIsStandard) {
  Rng rng(13);
  int within_one = 0;
  const RandomTestMoments m = random_test_moments([&] {
    const double z = rng.normal();
    if (std::fabs(z) < 1) ++within_one;
    return z;
  });
  EXPECT_NEAR(m.mean, 0.0, random_test_mean_tolerance(1));
  EXPECT_NEAR(m.variance, 1.0, random_test_variance_tolerance(1, 3));
  // P(|Z| < 1) = erf(1 / sqrt 2) = 0.682689; a binomial proportion's standard error sqrt(p (1 - p) / n).
  EXPECT_NEAR(within_one / double(kRandomTestDraws), 0.6826894921370859,
              5 * std::sqrt(0.6827 * 0.3173 / kRandomTestDraws));
}

TEST(Random, GammaHasMeanShapeTimesScaleForEveryShape) {
  // Mean k theta, variance k theta^2, kurtosis 3 + 6 / k; below 1 the boost, at and above 1 Marsaglia-Tsang.
  const double shapes[] = {0.1, 0.25, 1.0, 2.5, 9.0};
  std::uint64_t seed = 20;
  for (const double k : shapes) {
    Rng rng(seed++);
    const double theta = 0.5;
    const RandomTestMoments m = random_test_moments([&] { return rng.gamma(k, theta); });
    const double variance = k * theta * theta;
    EXPECT_NEAR(m.mean, k * theta, random_test_mean_tolerance(variance)) << "shape " << k;
    EXPECT_NEAR(m.variance, variance, random_test_variance_tolerance(variance, 3 + 6 / k)) << "shape " << k;
  }
}

TEST(Random, LognormalHasItsMeanAndMedian) {
  Rng rng(30);
  const double mu = 2.0, sigma = 0.5;
  std::vector<double> draws;
  const RandomTestMoments m = random_test_moments([&] {
    draws.push_back(rng.lognormal(mu, sigma));
    return draws.back();
  });
  // Mean e^(mu + sigma^2/2) = e^2.125 = 8.372897; variance (e^(sigma^2) - 1) e^(2 mu + sigma^2) = 19.9069.
  const double mean = std::exp(2.125);
  const double variance = (std::exp(0.25) - 1) * std::exp(4.25);
  EXPECT_NEAR(m.mean, mean, random_test_mean_tolerance(variance));
  // Median e^mu: the share of draws below it is 1/2 within five binomial standard errors.
  const auto below = std::count_if(draws.begin(), draws.end(), [&](double x) { return x < std::exp(mu); });
  EXPECT_NEAR(below / double(kRandomTestDraws), 0.5, 5 * std::sqrt(0.25 / kRandomTestDraws));
}

}  // namespace
}  // namespace podsim
