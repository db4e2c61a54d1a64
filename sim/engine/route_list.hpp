// Distinct routes stored flat and numbered in the order they were added, each with its summed latency. The engine's
// route table indexes one, and a simulation result publishes it so that reports read the routes the engine used.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/common/ids.hpp"

namespace podsim {

class RouteList {
 public:
  // Appends a route (directed link ids in order) and its summed latency in seconds; returns its index.
  std::int32_t add(std::span<const LinkId> links, double latency_s);
  std::size_t size() const { return latency_s_.size(); }
  // The links of route `route` (in [0, size())), in the order a transfer crosses them.
  std::span<const LinkId> links(std::int32_t route) const {
    const auto at = static_cast<std::size_t>(route);
    return {links_.data() + offsets_[at], static_cast<std::size_t>(offsets_[at + 1] - offsets_[at])};
  }
  // The sum of the latencies of route `route`'s links, seconds.
  double latency_s(std::int32_t route) const { return latency_s_[static_cast<std::size_t>(route)]; }

  bool operator==(const RouteList&) const = default;

 private:
  std::vector<std::uint32_t> offsets_{0};  // route r: links_[offsets_[r] .. offsets_[r + 1])
  std::vector<LinkId> links_;
  std::vector<double> latency_s_;
};

}  // namespace podsim
