// Flat storage of the routes an event graph uses.
#include "sim/engine/route_table.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace podsim::engine {

void RouteTable::add(std::int32_t src, std::int32_t dst, std::vector<std::int32_t> links, double latency_s) {
  if (contains(src, dst)) return;
  if (2 * (count_ + 1) > slots_.size()) grow();
  const Entry entry{static_cast<std::uint32_t>(links_.size()), static_cast<std::uint32_t>(links.size()), latency_s};
  links_.insert(links_.end(), links.begin(), links.end());
  const std::uint64_t k = key(src, dst);
  std::size_t at = home(k);
  while (slots_[at].key != kEmpty)
    at = (at + 1) & (slots_.size() - 1);
  slots_[at] = {k, entry};
  ++count_;
}

void RouteTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{kEmpty, {}});
  shift_ = 64 - std::countr_zero(slots_.size());
  for (const Slot& slot : old) {
    if (slot.key == kEmpty) continue;
    std::size_t at = home(slot.key);
    while (slots_[at].key != kEmpty)
      at = (at + 1) & (slots_.size() - 1);
    slots_[at] = slot;
  }
}

const RouteTable::Entry* RouteTable::find(std::uint64_t k) const {
  if (slots_.empty()) return nullptr;
  for (std::size_t at = home(k);; at = (at + 1) & (slots_.size() - 1)) {
    if (slots_[at].key == k) return &slots_[at].entry;
    if (slots_[at].key == kEmpty) return nullptr;
  }
}

const RouteTable::Entry& RouteTable::entry(std::int32_t src, std::int32_t dst) const {
  const Entry* found = find(key(src, dst));
  if (found == nullptr)
    throw std::out_of_range("route table: no route stored from chip " + std::to_string(src) + " to chip " +
                            std::to_string(dst));
  return *found;
}

std::span<const std::int32_t> RouteTable::links(std::int32_t src, std::int32_t dst) const {
  const Entry& found = entry(src, dst);
  return {links_.data() + found.offset, found.size};
}

double RouteTable::latency_s(std::int32_t src, std::int32_t dst) const {
  return entry(src, dst).latency_s;
}

}  // namespace podsim::engine
