// Failed links (docs/topology.md, "Failed links"): a slice whose failed cables are named as podsim prints links, routed
// around them by descent on per-destination hop tables, and refused when the failures cut chips off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/ids.hpp"

namespace podsim {

class Slice;

// The rules a list of failed links must meet, as error text names them.
inline constexpr const char* kFailedLinkNameRule = "a failed link must be a link of the slice";
inline constexpr const char* kFailedLinkOnceRule =
    "a failed cable is listed once (a link and the link back along its cable are one cable)";
inline constexpr const char* kFailedLinksConnectedRule =
    "failed links must leave every chip reachable from every other over the working links";
inline constexpr const char* kFailedChipsConnectedRule =
    "failed chips and links must leave every working chip reachable from every other over the working links";

// `A,B` -> {"A", "B"} (spaces dropped, empty entries refused with kFailedLinkNameRule): the text of --failed-links.
std::vector<std::string> split_link_names(const std::string& text);

// The id of the link of `slice` named `name` (`ici.x+.0.1.3`), or nullopt.
std::optional<LinkId> link_named(const Slice& slice, const std::string& name);

// A name of `names` that is not a link of `slice`: its index and the whole message ("rule, got: name").
struct FailedLinkIssue {
  std::size_t index = 0;
  std::string message;
};

// The ids of `names` on `slice`, in the order given, or the first name that is not a link of it.
std::optional<FailedLinkIssue> resolve_failed_links(const Slice& slice, const std::vector<std::string>& names,
                                                    std::vector<LinkId>& ids);

// The working chips the failures cut off: those no working path joins to the first working chip, or, when they are
// more than half the working chips, those it does join (the smaller side); empty when the working chips are connected
// or nothing failed. A failed chip (failed_chips.hpp) is never listed: it is out of the slice's work.
std::vector<ChipId> cut_off_chips(const Slice& slice);

// kFailedLinksConnectedRule (kFailedChipsConnectedRule when some chip failed) with the chips cut off (cut_off_chips,
// at most the first 8 listed, with coordinates), or nullopt when connected.
std::optional<std::string> failed_links_issue(const Slice& slice);

// Fewest working links from `from` to `to` on a slice with failures (Slice::hops_to). Throws InternalError when cut
// off (failed_links_issue refuses such a slice first).
std::int64_t failed_hops(const Slice& slice, ChipId from, ChipId to);

// The route around the failures: from each chip the first working link in (dim, + before -) order that ends one hop
// closer to `to`; a shortest path over the working links, in the order twisted_route breaks its ties in.
std::vector<LinkId> failed_route(const Slice& slice, ChipId from, ChipId to);

// The longest and the sum of the fewest working hops over all ordered pairs of working chips (breadth-first search
// from every working chip), for `podsim topology`.
struct FailedHopFigures {
  std::int64_t diameter = 0;
  double sum = 0;
};
FailedHopFigures failed_hop_figures(const Slice& slice);

}  // namespace podsim
