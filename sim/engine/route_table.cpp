// The hash index of the route table over its flat route list.
#include "sim/engine/route_table.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace podsim::engine {

void RouteTable::add(std::int32_t src, std::int32_t dst, std::span<const std::int32_t> links, double latency_s) {
  if (contains(src, dst)) return;
  if (2 * (list_.size() + 1) > slots_.size()) grow();
  const std::uint64_t k = key(src, dst);
  std::size_t at = home(k);
  while (slots_[at].key != kEmpty)
    at = (at + 1) & (slots_.size() - 1);
  slots_[at] = {k, list_.add(links, latency_s)};
}

void RouteTable::add_parts(std::int32_t src, std::int32_t dst, const std::vector<std::vector<std::int32_t>>& parts) {
  const std::int32_t main = index(src, dst);
  if (parts_.size() <= static_cast<std::size_t>(main)) parts_.resize(static_cast<std::size_t>(main) + 1);
  std::vector<std::int32_t>& numbers = parts_[static_cast<std::size_t>(main)];
  numbers = {main};
  for (std::size_t k = 1; k < parts.size(); ++k)
    numbers.push_back(list_.add(parts[k], list_.latency_s(main)));
  max_parts_ = std::max(max_parts_, static_cast<std::int32_t>(parts.size()));
}

void RouteTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{kEmpty, -1});
  shift_ = 64 - std::countr_zero(slots_.size());
  for (const Slot& slot : old) {
    if (slot.key == kEmpty) continue;
    std::size_t at = home(slot.key);
    while (slots_[at].key != kEmpty)
      at = (at + 1) & (slots_.size() - 1);
    slots_[at] = slot;
  }
}

const RouteTable::Slot* RouteTable::find(std::uint64_t k) const {
  if (slots_.empty()) return nullptr;
  for (std::size_t at = home(k);; at = (at + 1) & (slots_.size() - 1)) {
    if (slots_[at].key == k) return &slots_[at];
    if (slots_[at].key == kEmpty) return nullptr;
  }
}

std::int32_t RouteTable::index(std::int32_t src, std::int32_t dst) const {
  const Slot* found = find(key(src, dst));
  if (found == nullptr)
    throw std::out_of_range("route table: no route stored from chip " + std::to_string(src) + " to chip " +
                            std::to_string(dst));
  return found->route;
}

}  // namespace podsim::engine
