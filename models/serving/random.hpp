// Seeded random numbers that are the same bit for bit with every standard library: the engine is std::mt19937_64,
// whose output sequence the C++ standard specifies, and every sampler is podsim's own (the std:: distributions are
// implementation-defined), built on the C library's log and exp (docs/serving-model.md, "Random numbers").
#pragma once

#include <cstdint>
#include <random>

namespace podsim {

// One step of splitmix64 (Steele, Lea, Flood 2014): advances `state` by the golden-ratio increment and returns the
// mixed value. Used to derive independent seeds, never as a stream of its own.
std::uint64_t splitmix64(std::uint64_t& state);

// The seed of stream `stream` of a run seeded `seed`: the (stream + 1)-th output of splitmix64 started at `seed`.
// Traffic draws arrivals, prompt lengths and output lengths from streams 0, 1 and 2, so changing one law leaves
// the others' draws as they were.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream);

class Rng {
 public:
  // std::mt19937_64 seeded with `seed` as the standard specifies (mt19937_64(5489) is the default engine).
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  // The engine's next 64-bit output.
  std::uint64_t next_u64() { return engine_(); }

  // Uniform on [0, 1): the top 53 bits of one output times 2^-53, so every value is a multiple of 2^-53.
  double uniform01();

  // Uniform integer in [lo, hi] (lo <= hi), unbiased: outputs in the incomplete top copy of the range are redrawn.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);

  // Exponential with rate `rate` > 0 (mean 1 / rate), by inversion: -ln(1 - U) / rate.
  double exponential(double rate);

  // Standard normal by Marsaglia's polar method; each accepted pair gives two values, the second kept for the
  // next call.
  double normal();

  // Gamma with shape `shape` > 0 and scale `scale` > 0 (mean shape * scale, variance shape * scale^2): Marsaglia and
  // Tsang (2000); for shape < 1, Gamma(shape + 1) * U^(1 / shape).
  double gamma(double shape, double scale);

  // e^(mu + sigma Z), Z standard normal: median e^mu, mean e^(mu + sigma^2 / 2).
  double lognormal(double mu, double sigma);

 private:
  double uniform_open01();  // uniform on (0, 1]: 1 - uniform01()

  std::mt19937_64 engine_;
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

}  // namespace podsim
