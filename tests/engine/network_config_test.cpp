// The exact-timing configuration: one message over a line of chips takes hops * latency + bytes / bandwidth,
// and flows whose routes have equal latency (the graph runner's platform) share links with plain max-min
// fairness, whatever their hop counts. Each TEST is its own process under ctest (one engine each).
#include "sim/engine/network_config.hpp"

#include <gtest/gtest.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <string>
#include <vector>

namespace podsim::engine {
namespace {

namespace sg4 = simgrid::s4u;

// A line of `chips` hosts, one link per hop in the + direction, with routes over the line.
std::vector<sg4::Host*> build_line(int chips, double bandwidth_Bps, double latency_s) {
  auto* zone = sg4::create_full_zone("line");
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> links;
  for (int i = 0; i < chips; ++i)
    hosts.push_back(zone->create_host("chip" + std::to_string(i), 1e12));
  for (int i = 0; i + 1 < chips; ++i)
    links.push_back(zone->create_link("ici.x+." + std::to_string(i), bandwidth_Bps)->set_latency(latency_s));
  for (int src = 0; src < chips; ++src)
    for (int dst = src + 1; dst < chips; ++dst) {
      std::vector<sg4::LinkInRoute> route;
      for (int hop = src; hop < dst; ++hop)
        route.emplace_back(links[static_cast<std::size_t>(hop)]);
      zone->add_route(hosts[static_cast<std::size_t>(src)]->get_netpoint(),
                      hosts[static_cast<std::size_t>(dst)]->get_netpoint(), nullptr, nullptr, route, false);
    }
  zone->seal();
  return hosts;
}

TEST(NetworkConfig, OneMessageOverThreeHopsIsExactlyAlphaBeta) {
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  apply_exact_network_config();
  const double bandwidth = 4.5e10, latency = 1e-6, bytes = 8388608.0;
  auto hosts = build_line(4, bandwidth, latency);
  double arrived = -1;
  sg4::Actor::create("sender", hosts[0], [&] { sg4::Mailbox::by_name("m")->put(new int(1), bytes); });
  sg4::Actor::create("receiver", hosts[3], [&] {
    delete sg4::Mailbox::by_name("m")->get<int>();
    arrived = sg4::Engine::get_clock();
  });
  engine.run();
  const double expected = 3 * latency + bytes / bandwidth;  // 3 hops, cut-through
  EXPECT_NEAR(arrived, expected, 1e-12 * expected);
}

TEST(NetworkConfig, TwoFlowsWithDifferentHopCountsShareALinkEqually) {
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  apply_exact_network_config();
  const double bandwidth = 1e9, latency = 1e-6, bytes = 1e8;
  // Links without latency; each sender waits its route's latency first, as the graph runner does.
  auto hosts = build_line(3, bandwidth, 0.0);
  // Flow A: chip1 -> chip2 (1 hop, latency 1 us). Flow B: chip0 -> chip2 (2 hops, 2 us). Both cross link 1.
  // Worked by hand (fluid model, latency phase first, then bandwidth): A runs alone at W from 1 us to 2 us
  // (1e3 bytes), then A and B share W/2 each (max-min; weights by route latency would give A 2/3), so A
  // finishes its 1e8 - 1e3 bytes at 2 us + (1e8 - 1e3) / (W/2) = 0.2 s exactly. B has then sent 1e8 - 1e3
  // bytes and sends the last 1e3 alone at W: 0.2 s + 1 us.
  double a_done = -1, b_done = -1;
  sg4::Actor::create("a_send", hosts[1], [&] {
    sg4::this_actor::sleep_for(latency);
    sg4::Mailbox::by_name("a")->put(new int(1), bytes);
  });
  sg4::Actor::create("b_send", hosts[0], [&] {
    sg4::this_actor::sleep_for(2 * latency);
    sg4::Mailbox::by_name("b")->put(new int(2), bytes);
  });
  sg4::Actor::create("a_recv", hosts[2], [&] {
    delete sg4::Mailbox::by_name("a")->get<int>();
    a_done = sg4::Engine::get_clock();
  });
  sg4::Actor::create("b_recv", hosts[2], [&] {
    delete sg4::Mailbox::by_name("b")->get<int>();
    b_done = sg4::Engine::get_clock();
  });
  engine.run();
  const double alone = latency * bandwidth;  // bytes A sends before B's latency phase ends
  const double a_expected = 2 * latency + (bytes - alone) / (bandwidth / 2);
  const double b_expected = a_expected + alone / bandwidth;
  EXPECT_NEAR(a_done, a_expected, 1e-12 * a_expected);
  EXPECT_NEAR(b_done, b_expected, 1e-12 * b_expected);
  EXPECT_NEAR(a_done, 0.2, 1e-12);
}

TEST(NetworkConfig, FlowsWithSeveralBottlenecksGetMaxMinRates) {
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  apply_exact_network_config();
  // Links L1..L4 (1, 20, 4, 6 GB/s, no latency) and five flows, each between its own pair of hosts:
  // f1 over L1; f2 over L1, L2; f3 over L3, L2; f4 over L2; f5 over L4, L2.
  // Max-min by hand (progressive filling): L1's fair share 1/2 is the least, so f1 = f2 = 0.5; L2 then has 19.5
  // for f3, f4, f5 (6.5 each), but L3 holds f3 to 4; L2 then has 15.5 for f4, f5 (7.75 each), but L4 holds f5
  // to 6; f4 gets the rest of L2: 20 - 0.5 - 4 - 6 = 9.5 GB/s. (SimGrid 3.32's fairbottleneck solver gives f4
  // 7.75: it counts the increments of flows fixed in earlier rounds again.) f4's 9.5e6 bytes end at 1 ms, before
  // any other flow (1e8 bytes each) ends and changes the shares.
  auto* zone = sg4::create_full_zone("flows");
  std::vector<sg4::Host*> hosts;
  for (int i = 0; i < 10; ++i)
    hosts.push_back(zone->create_host("h" + std::to_string(i), 1e12));
  sg4::Link* l1 = zone->create_link("L1", 1e9);
  sg4::Link* l2 = zone->create_link("L2", 20e9);
  sg4::Link* l3 = zone->create_link("L3", 4e9);
  sg4::Link* l4 = zone->create_link("L4", 6e9);
  const std::vector<std::vector<sg4::Link*>> routes = {{l1}, {l1, l2}, {l3, l2}, {l2}, {l4, l2}};
  for (std::size_t flow = 0; flow < routes.size(); ++flow) {
    std::vector<sg4::LinkInRoute> route(routes[flow].begin(), routes[flow].end());
    zone->add_route(hosts[2 * flow]->get_netpoint(), hosts[2 * flow + 1]->get_netpoint(), nullptr, nullptr, route,
                    false);
  }
  zone->seal();
  double f4_done = -1;
  for (std::size_t flow = 0; flow < routes.size(); ++flow) {
    const std::string box = "f" + std::to_string(flow + 1);
    const double bytes = flow == 3 ? 9.5e6 : 1e8;
    sg4::Actor::create(box + "_send", hosts[2 * flow],
                       [box, bytes] { sg4::Mailbox::by_name(box)->put(new int(1), bytes); });
    sg4::Actor::create(box + "_recv", hosts[2 * flow + 1], [box, flow, &f4_done] {
      delete sg4::Mailbox::by_name(box)->get<int>();
      if (flow == 3) f4_done = sg4::Engine::get_clock();
    });
  }
  engine.run();
  EXPECT_NEAR(f4_done, 1e-3, 1e-15);
}

}  // namespace
}  // namespace podsim::engine
