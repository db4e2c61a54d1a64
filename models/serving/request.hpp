// One serving request as the traffic makes it and the scheduler serves it, and the bounds every count derived from
// user numbers is checked against before anything is sized by it (docs/serving-model.md, "Constraints").
#pragma once

#include <cstdint>

namespace podsim {

// At most this many requests in one run: `requests`, rows of a trace, rate_per_s x duration_s.
inline constexpr std::int64_t kMaxRequests = 10'000'000;
// A random law may draw more arrivals within duration_s than rate_per_s x duration_s; past this many the run stops
// with an error instead of growing without bound (a burstiness near 0 draws gaps of 0).
inline constexpr std::int64_t kMaxDrawnRequests = 2 * kMaxRequests;
// At most this many prompt or output tokens in one request (2^24).
inline constexpr std::int64_t kMaxRequestTokens = std::int64_t{1} << 24;

struct Request {
  std::int64_t id = 0;     // 0, 1, 2, ... in order of arrival (open loop) or submission (closed loop)
  double arrival_s = 0.0;  // when the request reaches the server, seconds from the start of the run
  std::int64_t prompt_tokens = 1;
  std::int64_t output_tokens = 1;  // generated exactly (vllm bench serve --ignore-eos)

  bool operator==(const Request&) const = default;
};

}  // namespace podsim
