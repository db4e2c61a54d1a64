// The routes of the (src, dst) chip pairs an event graph uses, resolved once from NetworkSpec::route and stored
// flat: the routing zone reads them during the simulation and the link ledger after it.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace podsim::engine {

class RouteTable {
 public:
  explicit RouteTable(std::int32_t num_chips = 0) : num_chips_(num_chips) {}

  // Stores the route of (src, dst) and its summed latency (seconds); replaces nothing if already present.
  void add(std::int32_t src, std::int32_t dst, std::vector<std::int32_t> links, double latency_s);
  bool contains(std::int32_t src, std::int32_t dst) const { return index_.contains(key(src, dst)); }

  // The link ids of a stored route; throws std::out_of_range if the pair was never added.
  std::span<const std::int32_t> links(std::int32_t src, std::int32_t dst) const;
  double latency_s(std::int32_t src, std::int32_t dst) const;

 private:
  struct Entry {
    std::uint32_t offset;
    std::uint32_t size;
    double latency_s;
  };
  std::uint64_t key(std::int32_t src, std::int32_t dst) const {
    return static_cast<std::uint64_t>(src) * static_cast<std::uint64_t>(num_chips_) + static_cast<std::uint64_t>(dst);
  }
  const Entry& entry(std::int32_t src, std::int32_t dst) const;

  std::int32_t num_chips_;
  std::unordered_map<std::uint64_t, Entry> index_;
  std::vector<std::int32_t> links_;
};

}  // namespace podsim::engine
