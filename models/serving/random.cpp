// The samplers of random.hpp. Each is written from its published algorithm with IEEE basic operations, sqrt
// (correctly rounded by IEEE-754) and the C library's log and exp, so a seed gives the same values with one build.
#include "models/serving/random.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {
namespace {

void require_rng_positive(const char* what, double value) {
  if (!(value > 0) || std::isinf(value))
    throw InternalError(std::string("rng: ") + what + " must be a finite number > 0, got: " + exact_number(value));
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t state = seed;
  std::uint64_t out = 0;
  for (std::uint64_t i = 0; i <= stream; ++i)
    out = splitmix64(state);
  return out;
}

double Rng::uniform01() {
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double Rng::uniform_open01() {
  return 1.0 - uniform01();
}

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  if (lo > hi)
    throw InternalError("rng: uniform_int needs lo <= hi, got: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                        "]");
  // The range's size in unsigned arithmetic: 0 stands for 2^64, the whole 64-bit range.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  std::uint64_t draw = engine_();
  if (span != 0) {
    // Accept draws below the largest multiple of span that fits in 2^64; the rest would favour small values.
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % span;
    while (draw >= limit)
      draw = engine_();
    draw %= span;
  }
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + draw);
}

double Rng::exponential(double rate) {
  require_rng_positive("exponential rate", rate);
  return -std::log(uniform_open01()) / rate;
}

double Rng::normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u = 0.0;
  double v = 0.0;
  double s = 0.0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

double Rng::gamma(double shape, double scale) {
  require_rng_positive("gamma shape", shape);
  require_rng_positive("gamma scale", scale);
  if (shape < 1.0) {
    // Stuart's boost: if G ~ Gamma(k + 1) and U uniform, G U^(1/k) ~ Gamma(k).
    const double boosted = gamma(shape + 1.0, scale);
    return boosted * std::exp(std::log(uniform_open01()) / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0;
    double v = 0.0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v * scale;  // the squeeze: no logarithm needed
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

double Rng::lognormal(double mu, double sigma) {
  return std::exp(mu + sigma * normal());
}

}  // namespace podsim
