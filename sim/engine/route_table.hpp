// The routes of the (src, dst) chip pairs an event graph uses, resolved once from NetworkSpec::route and stored
// flat: the routing zone reads them during the simulation and the link ledger after it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace podsim::engine {

class RouteTable {
 public:
  explicit RouteTable(std::int32_t num_chips = 0) : num_chips_(num_chips) {}

  // Stores the route of (src, dst) and its summed latency (seconds); replaces nothing if already present.
  void add(std::int32_t src, std::int32_t dst, std::vector<std::int32_t> links, double latency_s);
  bool contains(std::int32_t src, std::int32_t dst) const { return find(key(src, dst)) != nullptr; }

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
  // Open addressing with linear probing (lookups dominate the validation and the ledger of large graphs).
  struct Slot {
    std::uint64_t key;  // kEmpty when free
    Entry entry;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  const Entry& entry(std::int32_t src, std::int32_t dst) const;
  const Entry* find(std::uint64_t key) const;
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void grow();

  std::int32_t num_chips_;
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
  int shift_ = 64;
  std::vector<std::int32_t> links_;
};

}  // namespace podsim::engine
