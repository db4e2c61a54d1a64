// Failed links (failed_links.hpp, docs/topology.md "Failed links"): a named cable fails both ways, routes go around it
// on a shortest working path in (dim, + before -) order, figures by breadth-first search, and the refusals, all
// worked by hand.
#include "models/topology/failed_links.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/routing.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/topology_figures.hpp"

namespace podsim {
namespace {

Slice with_failed(std::vector<std::int64_t> shape, std::vector<bool> wrap, const std::vector<std::string>& names) {
  const Slice plain(shape, wrap);
  std::vector<LinkId> ids;
  const auto issue = resolve_failed_links(plain, names, ids);
  EXPECT_FALSE(issue) << issue->message;
  return Slice(std::move(shape), std::move(wrap), false, ids);
}

std::vector<std::string> names_of(const Slice& s, const std::vector<LinkId>& route) {
  std::vector<std::string> names;
  for (const LinkId id : route)
    names.push_back(s.link(id).name);
  return names;
}

TEST(FailedLinks, ANamedCableFailsBothWaysAndKeepsItsIds) {
  const Slice plain({4, 4}, {true, true});
  const Slice s = with_failed({4, 4}, {true, true}, {"ici.y+.0.0"});
  EXPECT_TRUE(s.has_failures());
  EXPECT_FALSE(plain.has_failures());
  EXPECT_EQ(s.num_links(), plain.num_links());
  // The cable (0,0)-(0,1): y+ from (0,0) and y- from (0,1) back.
  ASSERT_EQ(s.failed_links().size(), 2u);
  EXPECT_EQ(s.link(s.failed_links()[0]).name, "ici.y+.0.0");
  EXPECT_EQ(s.link(s.failed_links()[1]).name, "ici.y-.0.1");
  for (LinkId id = 0; id < s.num_links(); ++id)
    EXPECT_EQ(s.link(id).name, plain.link(id).name);
}

// 4x4 torus, cable (0,0)-(0,1) failed. From chip 0 to chip 1 the direct link is gone; the way round the y ring takes
// 3 hops, and so does the detour through row 1. In (dim, + before -) order the first link one hop closer is x+ to
// (1,0) (2 hops left: (1,1), (0,1)), then y+ to (1,1), then x- to (0,1).
TEST(FailedLinks, RouteAroundOneFailedLinkOnA4x4Torus) {
  const Slice s = with_failed({4, 4}, {true, true}, {"ici.y+.0.0"});
  EXPECT_EQ(hop_count(s, 0, 1), 3);
  EXPECT_EQ(names_of(s, dor_route(s, 0, 1)), (std::vector<std::string>{"ici.x+.0.0", "ici.y+.1.0", "ici.x-.1.1"}));
  EXPECT_EQ(dor_path(s, 0, 1), (std::vector<ChipId>{0, 4, 5, 1}));
  // Back the other way: the same 3 hops (a cable fails both ways); x+ first again.
  EXPECT_EQ(names_of(s, dor_route(s, 1, 0)), (std::vector<std::string>{"ici.x+.0.1", "ici.y-.1.1", "ici.x-.1.0"}));
  // A pair whose dimension-order route never used the cable keeps its length: (0,0) -> (2,2) is 4 hops.
  EXPECT_EQ(hop_count(s, 0, s.chip_at({2, 2})), 4);
}

// On a 4x4 mesh without the cable (1,1)-(1,2): (1,1) -> (1,2) goes x+ to (2,1), y+ to (2,2), x- to (1,2).
TEST(FailedLinks, RouteAroundOneFailedLinkOnA4x4Mesh) {
  const Slice s = with_failed({4, 4}, {false, false}, {"ici.y-.1.2"});
  const ChipId from = s.chip_at({1, 1});
  const ChipId to = s.chip_at({1, 2});
  EXPECT_EQ(hop_count(s, from, to), 3);
  EXPECT_EQ(names_of(s, dor_route(s, from, to)), (std::vector<std::string>{"ici.x+.1.1", "ici.y+.2.1", "ici.x-.2.2"}));
}

// A ring of 8 that loses its wrap cable (7-0) is a line of 8: diameter 7, mean over ordered pairs
// n (n^2 - 1) / 3 / (n (n - 1)) = 168 / 56 = 3 (the ring: 4 and 128 / 56), and one link each way across the middle
// (the ring: 2).
TEST(FailedLinks, FiguresOfARingOf8WithoutItsWrapCable) {
  const Slice s = with_failed({8}, {true}, {"ici.x+.7"});
  const TopologyFigures f = topology_figures(s, WrapRule::always);
  EXPECT_EQ(f.diameter_hops, 7);
  EXPECT_DOUBLE_EQ(f.mean_hops, 3.0);
  EXPECT_EQ(f.bisection_links, 1);
  EXPECT_EQ(diameter(s), 7);
  EXPECT_EQ(names_of(s, dor_route(s, 7, 0)).size(), 7u);
}

// The 4x4 torus without cable (0,0)-(0,1): only the two ordered pairs across the cable get longer, 1 -> 3 hops, so
// the distance sum over ordered pairs is 512 + 4 = 516 (the torus: 2 dims x 4^2 x 16), the mean 516 / 240 and the
// diameter still 4. The cable runs along y, the cut halves x: 8 links each way, as on the whole torus.
TEST(FailedLinks, FiguresOfA4x4TorusWithoutOneCable) {
  const Slice s = with_failed({4, 4}, {true, true}, {"ici.y+.0.0"});
  const TopologyFigures f = topology_figures(s, WrapRule::always);
  EXPECT_EQ(f.diameter_hops, 4);
  EXPECT_DOUBLE_EQ(f.mean_hops, 516.0 / 240.0);
  EXPECT_EQ(f.bisection_links, 8);
}

TEST(FailedLinks, UnknownNamesAndCutOffChipsAreRefused) {
  const Slice plain({4, 4}, {true, true});
  std::vector<LinkId> ids;
  const auto unknown = resolve_failed_links(plain, {"ici.y+.0.0", "ici.z+.0.0"}, ids);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->index, 1u);
  EXPECT_EQ(unknown->message,
            "a failed link must be a link of the slice 4x4 (podsim topology --links lists them), got: ici.z+.0.0");
  // One cable named twice: the same name, or its link back (ici.y+.0.0 runs (0,0) -> (0,1); ici.y-.0.1 runs back).
  const auto twice = resolve_failed_links(plain, {"ici.y+.0.0", "ici.x+.2.2", "ici.y+.0.0"}, ids);
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->index, 2u);
  EXPECT_EQ(twice->message,
            "a failed cable is listed once (a link and the link back along its cable are one cable), got: ici.y+.0.0, "
            "the cable of ici.y+.0.0 (entry 0)");
  const auto back = resolve_failed_links(plain, {"ici.y+.0.0", "ici.y-.0.1"}, ids);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->index, 1u);
  EXPECT_EQ(back->message,
            "a failed cable is listed once (a link and the link back along its cable are one cable), got: ici.y-.0.1, "
            "the cable of ici.y+.0.0 (entry 0)");
  // Two cables from one chip are two cables.
  EXPECT_FALSE(resolve_failed_links(plain, {"ici.y+.0.0", "ici.x+.0.0"}, ids));
  // All four cables of chip 5 (1,1) failed: it alone is cut off.
  const Slice cut = with_failed({4, 4}, {true, true}, {"ici.x+.1.1", "ici.x-.1.1", "ici.y+.1.1", "ici.y-.1.1"});
  EXPECT_EQ(cut_off_chips(cut), (std::vector<ChipId>{5}));
  EXPECT_EQ(*failed_links_issue(cut),
            "failed links must leave every chip reachable from every other over the working links, got: 1 chip(s) cut "
            "off from the other 15: chip 5 (1,1)");
  EXPECT_FALSE(failed_links_issue(with_failed({4, 4}, {true, true}, {"ici.y+.0.0"})));
  EXPECT_THROW(split_link_names("ici.x+.0,,ici.x+.1"), VerifyError);
  EXPECT_EQ(split_link_names("ici.x+.0, ici.x+.1"), (std::vector<std::string>{"ici.x+.0", "ici.x+.1"}));
}

TEST(FailedLinks, SplitMinimalIsRefusedWithFailedLinks) {
  EXPECT_FALSE(route_policy_issue(RoutePolicy::split_minimal, false, false));
  EXPECT_FALSE(route_policy_issue(RoutePolicy::dimension_order, false, true));
  const auto issue = route_policy_issue(RoutePolicy::split_minimal, false, true);
  ASSERT_TRUE(issue);
  EXPECT_NE(issue->find("use dimension_order on a slice with failed links"), std::string::npos);
  const Slice s = with_failed({4, 4}, {true, true}, {"ici.y+.0.0"});
  EXPECT_THROW(policy_routes(s, 0, 5, RoutePolicy::split_minimal), VerifyError);
}

// Routes on a slice with failures are shortest over the working links: every pair of a 4x4x4 torus without three
// cables, each route's length is its hop count, each link works and the route joins its ends.
TEST(FailedLinks, RoutesAreShortestWorkingPaths) {
  const Slice s = with_failed({4, 4, 4}, {true, true, true}, {"ici.x+.0.0.0", "ici.y-.2.1.3", "ici.z+.3.3.3"});
  for (ChipId a = 0; a < s.num_chips(); ++a)
    for (ChipId b = 0; b < s.num_chips(); ++b) {
      const auto route = dor_route(s, a, b);
      ASSERT_EQ(static_cast<std::int64_t>(route.size()), hop_count(s, a, b));
      ChipId at = a;
      for (const LinkId id : route) {
        ASSERT_FALSE(s.link_failed(id));
        ASSERT_EQ(s.link(id).src, at);
        at = s.link(id).dst;
      }
      ASSERT_EQ(at, b);
    }
}

}  // namespace
}  // namespace podsim
