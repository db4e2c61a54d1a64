// The exact-timing configuration: one message over a line of chips takes hops * latency + bytes / bandwidth,
// and two flows on one link share it equally. Each TEST is its own process under ctest (one engine each).
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
  auto hosts = build_line(3, bandwidth, latency);
  // Flow A: chip1 -> chip2 (1 hop, latency 1 us). Flow B: chip0 -> chip2 (2 hops, 2 us). Both cross link 1.
  // Worked by hand (fluid model, latency phase first, then bandwidth): A runs alone at W from 1 us to 2 us
  // (1e3 bytes), then A and B share W/2 each (max-min; maxmin would give A 2/3), so A finishes its 1e8 - 1e3
  // bytes at 2 us + (1e8 - 1e3) / (W/2) = 0.2 s exactly. B has then sent 1e8 - 1e3 bytes and sends the last
  // 1e3 alone at W: 0.2 s + 1 us.
  double a_done = -1, b_done = -1;
  sg4::Actor::create("a_send", hosts[1], [&] { sg4::Mailbox::by_name("a")->put(new int(1), bytes); });
  sg4::Actor::create("b_send", hosts[0], [&] { sg4::Mailbox::by_name("b")->put(new int(2), bytes); });
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

}  // namespace
}  // namespace podsim::engine
