// The routes of the (src, dst) chip pairs an event graph uses, resolved once from NetworkSpec::route: a RouteList
// (flat, numbered) and a hash index from chip pair to route number. The routing zone reads them during the
// simulation; the parent publishes the list in the simulation result.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine/route_list.hpp"

namespace podsim::engine {

class RouteTable {
 public:
  explicit RouteTable(std::int32_t num_chips = 0) : num_chips_(num_chips) {}

  // Stores the route of (src, dst) and its summed latency (seconds); replaces nothing if already present.
  void add(std::int32_t src, std::int32_t dst, std::span<const std::int32_t> links, double latency_s);
  bool contains(std::int32_t src, std::int32_t dst) const { return find(key(src, dst)) != nullptr; }

  // The number of the route of (src, dst) in list(); throws std::out_of_range if the pair was never added.
  std::int32_t index(std::int32_t src, std::int32_t dst) const;
  // The link ids of a stored route; throws std::out_of_range if the pair was never added.
  std::span<const std::int32_t> links(std::int32_t src, std::int32_t dst) const { return list_.links(index(src, dst)); }
  double latency_s(std::int32_t src, std::int32_t dst) const { return list_.latency_s(index(src, dst)); }
  // Every stored route, numbered in the order the pairs were added.
  const RouteList& list() const { return list_; }

  // Splits the transfers of (src, dst), already added with route parts[0], over `parts` (>= 2 link-disjoint routes,
  // NetworkSpec::split_routes): parts 1.. join the list with the pair's latency.
  void add_parts(std::int32_t src, std::int32_t dst, const std::vector<std::vector<std::int32_t>>& parts);
  // The route numbers a transfer along route `route` splits over (`route` first), or none when it does not split.
  std::span<const std::int32_t> parts(std::int32_t route) const {
    const auto at = static_cast<std::size_t>(route);
    return at < parts_.size() ? std::span<const std::int32_t>(parts_[at]) : std::span<const std::int32_t>();
  }
  // Per route number, its parts (empty: not split); empty when no route splits.
  const std::vector<std::vector<std::int32_t>>& all_parts() const { return parts_; }
  // The most parts any route splits over (1 when none splits).
  std::int32_t max_parts() const { return max_parts_; }

 private:
  std::uint64_t key(std::int32_t src, std::int32_t dst) const {
    return static_cast<std::uint64_t>(src) * static_cast<std::uint64_t>(num_chips_) + static_cast<std::uint64_t>(dst);
  }
  // Open addressing with linear probing (lookups dominate the validation and the ledger of large graphs).
  struct Slot {
    std::uint64_t key;  // kEmpty when free
    std::int32_t route;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  const Slot* find(std::uint64_t key) const;
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void grow();

  std::int32_t num_chips_;
  std::vector<Slot> slots_;
  int shift_ = 64;
  RouteList list_;
  std::vector<std::vector<std::int32_t>> parts_;
  std::int32_t max_parts_ = 1;
};

}  // namespace podsim::engine
