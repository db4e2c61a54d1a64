// The link of the collective tests, with round figures to work expectations out by hand: 1 us per hop (alpha) and
// 4.5e10 B/s per link and direction (W, the scaling book's v5e ICI figure).
#pragma once

namespace podsim::test {

inline constexpr double kAlpha = 1e-6;  // ICI latency per hop, s
inline constexpr double kW = 4.5e10;    // ICI bandwidth per link and direction, B/s

}  // namespace podsim::test
