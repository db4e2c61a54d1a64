// Failed links: names to ids, the connectivity rule, and routes by descent on the hops to the destination.
#include "models/topology/failed_links.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "models/common/error.hpp"
#include "models/topology/failed_chips.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/twist.hpp"

namespace podsim {
namespace {

// The chip at the end of each working link: 2 * rank slots per chip, (dim, + before -), -1 where there is no working
// link. Built once for breadth-first searches from many chips.
struct WorkingNeighbours {
  std::size_t slots = 0;
  std::vector<ChipId> next;
};

WorkingNeighbours working_neighbours(const Slice& slice) {
  WorkingNeighbours out;
  out.slots = static_cast<std::size_t>(slice.rank()) * 2;
  out.next.assign(static_cast<std::size_t>(slice.num_chips()) * out.slots, -1);
  for (ChipId at = 0; at < slice.num_chips(); ++at)
    for (int dim = 0; dim < slice.rank(); ++dim)
      for (Direction dir : {Direction::plus, Direction::minus}) {
        const std::optional<LinkId> id = slice.find_link(at, dim, dir);
        if (!id || slice.link_failed(*id)) continue;
        out.next[static_cast<std::size_t>(at) * out.slots + static_cast<std::size_t>(dim) * 2 +
                 (dir == Direction::plus ? 0 : 1)] = slice.link(*id).dst;
      }
  return out;
}

// Fewest working links from `src` to every chip into `hops` (-1 when cut off), `queue` a buffer: the figures visit
// every chip once, so nothing goes into the slice's cache.
void working_hops_from(const WorkingNeighbours& neighbours, ChipId src, std::vector<std::int32_t>& hops,
                       std::vector<ChipId>& queue) {
  std::fill(hops.begin(), hops.end(), -1);
  queue.clear();
  queue.push_back(src);
  hops[static_cast<std::size_t>(src)] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const ChipId at = queue[head];
    const ChipId* next = neighbours.next.data() + static_cast<std::size_t>(at) * neighbours.slots;
    for (std::size_t k = 0; k < neighbours.slots; ++k) {
      if (next[k] < 0 || hops[static_cast<std::size_t>(next[k])] >= 0) continue;
      hops[static_cast<std::size_t>(next[k])] = hops[static_cast<std::size_t>(at)] + 1;
      queue.push_back(next[k]);
    }
  }
}

std::vector<std::int32_t> working_hops_from(const Slice& slice, ChipId src) {
  std::vector<std::int32_t> hops(static_cast<std::size_t>(slice.num_chips()), -1);
  std::vector<ChipId> queue;
  working_hops_from(working_neighbours(slice), src, hops, queue);
  return hops;
}

}  // namespace

std::vector<std::string> split_link_names(const std::string& text) {
  std::vector<std::string> names;
  std::string name;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') {
      if (text[i] != ' ') name += text[i];
      continue;
    }
    if (name.empty())
      throw VerifyError(std::string(kFailedLinkNameRule) +
                        ", as a comma-separated list such as ici.x+.0.1,ici.y-.2.3, "
                        "got: \"" +
                        text + "\"");
    names.push_back(name);
    name.clear();
  }
  return names;
}

std::optional<LinkId> link_named(const Slice& slice, const std::string& name) {
  for (const Link& link : slice.links())
    if (link.name == name) return link.id;
  return std::nullopt;
}

std::optional<FailedLinkIssue> resolve_failed_links(const Slice& slice, const std::vector<std::string>& names,
                                                    std::vector<LinkId>& ids) {
  ids.clear();
  // A cable by its two chips (the lower id first) and its dim: a link and the link back along it are one cable.
  std::map<std::tuple<ChipId, ChipId, int>, std::size_t> cables;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::optional<LinkId> id = link_named(slice, names[i]);
    if (!id)
      return FailedLinkIssue{i, std::string(kFailedLinkNameRule) + " " + slice.shape_string() +
                                    " (podsim topology --links lists them), got: " + names[i]};
    const Link& link = slice.links()[static_cast<std::size_t>(*id)];
    const auto [at, added] =
        cables.emplace(std::tuple{std::min(link.src, link.dst), std::max(link.src, link.dst), link.dim}, i);
    if (!added)
      return FailedLinkIssue{i, std::string(kFailedLinkOnceRule) + ", got: " + names[i] + ", the cable of " +
                                    names[at->second] + " (entry " + std::to_string(at->second) + ")"};
    ids.push_back(*id);
  }
  return std::nullopt;
}

std::vector<ChipId> cut_off_chips(const Slice& slice) {
  std::vector<ChipId> cut;
  if (!slice.has_failures() || slice.working_chips() == 0) return cut;
  ChipId first = 0;
  while (slice.chip_failed(first))
    ++first;
  const std::vector<std::int32_t> hops = working_hops_from(slice, first);
  std::int64_t reached = 0;
  for (ChipId chip = 0; chip < slice.num_chips(); ++chip)
    reached += hops[static_cast<std::size_t>(chip)] >= 0 ? 1 : 0;
  const bool smaller_side_holds_first = reached < slice.working_chips() - reached;
  for (ChipId chip = 0; chip < slice.num_chips(); ++chip)
    if (!slice.chip_failed(chip) && (hops[static_cast<std::size_t>(chip)] < 0) != smaller_side_holds_first)
      cut.push_back(chip);
  return cut;
}

std::optional<std::string> failed_links_issue(const Slice& slice) {
  const std::vector<ChipId> cut = cut_off_chips(slice);
  if (cut.empty()) return std::nullopt;
  const bool chips = !slice.failed_chips().empty();
  return std::string(chips ? kFailedChipsConnectedRule : kFailedLinksConnectedRule) +
         ", got: " + std::to_string(cut.size()) + " chip(s) cut off from the other " +
         std::to_string(slice.working_chips() - static_cast<std::int64_t>(cut.size())) +
         (chips ? " working chips" : "") + ": " + chips_text(slice, cut);
}

std::int64_t failed_hops(const Slice& slice, ChipId from, ChipId to) {
  const std::int32_t hops = slice.hops_to(to).at(static_cast<std::size_t>(from));
  if (hops < 0)
    throw InternalError("slice " + slice.shape_string() + ": chip " + std::to_string(from) + " is cut off from chip " +
                        std::to_string(to) + " by its failed links");
  return hops;
}

std::vector<LinkId> failed_route(const Slice& slice, ChipId from, ChipId to) {
  failed_hops(slice, from, to);  // throws when cut off
  const std::vector<std::int32_t>& hops = slice.hops_to(to);
  return descend_route(
      slice, from, to, [&](ChipId chip) { return hops[static_cast<std::size_t>(chip)]; }, "failed-link");
}

FailedHopFigures failed_hop_figures(const Slice& slice) {
  FailedHopFigures f;
  const WorkingNeighbours neighbours = working_neighbours(slice);
  std::vector<std::int32_t> from(static_cast<std::size_t>(slice.num_chips()), -1);
  std::vector<ChipId> queue;
  for (ChipId dst = 0; dst < slice.num_chips(); ++dst) {
    if (slice.chip_failed(dst)) continue;  // a failed chip is in no pair (its hops are all -1)
    working_hops_from(neighbours, dst, from, queue);
    for (const std::int32_t hops : from) {
      f.diameter = std::max<std::int64_t>(f.diameter, hops);
      f.sum += std::max(hops, 0);
    }
  }
  return f;
}

}  // namespace podsim
