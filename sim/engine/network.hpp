// The network the engine simulates on: chips (hosts with a compute speed), directed links with a bandwidth and a
// latency, and a route function. The engine's own input, independent of how a topology builder produced it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/hardware/calibration.hpp"

namespace podsim {

// Which network a link belongs to: the slice's ICI torus, or the data-centre network between slices (a host's
// NIC to or from the switch; docs/overlap-pipeline-dcn.md), or a symmetry path's release timer (release_timers.hpp:
// a wait, not a link of the machine, so the transfer calibration leaves it alone).
enum class LinkTier : std::uint8_t { ici, dcn, timer };

// One directed link. A transfer of S bytes over links l1..lk alone on them takes sum(latency_s) + S / min(bandwidth).
struct LinkSpec {
  std::string name;          // for error messages and reports (`ici.x+.0.1.3`); need not be unique
  double bandwidth_Bps = 0;  // > 0, bytes per second
  double latency_s = 0;      // >= 0, seconds
  LinkTier tier = LinkTier::ici;
};

// How the des calibrates every transfer (docs/hardware-model.md, "Calibration"); the default changes nothing.
struct TransferCalibration {
  // >= 0: a fixed cost before every transfer moves (a collective step's launch and synchronisation), added to its
  // route's latency: it holds no link.
  double fixed_s = 0;
  // Achieved / nominal link bandwidth vs the transfer's bytes: a transfer of S bytes over ICI links only moves
  // ceil(S / efficiency(S)) bytes in the simulation, while results and reports keep S. Empty: 1.
  std::vector<EfficiencyPoint> link_efficiency;

  bool active() const { return fixed_s > 0 || !link_efficiency.empty(); }
};

struct NetworkSpec {
  std::int32_t num_chips = 0;
  double chip_flops = 1e12;     // host speed for compute tasks, flop/s (one core: concurrent computes share it)
  std::vector<LinkSpec> links;  // directed links; index = link id
  // Route from src to dst as directed link ids (empty for src == dst). Must be deterministic: simulate() calls it
  // once per (src, dst) pair that a transfer uses, while validating, before SimGrid runs.
  std::function<std::vector<std::int32_t>(std::int32_t src, std::int32_t dst)> route;
  // Unset (the default), or the routes a transfer from src to dst splits its bytes over (options.routing
  // split_minimal, models/topology/route_policy.hpp): fewer than 2 routes means the one route above; otherwise the
  // first is route(src, dst), no link appears twice among them, and each carries split_bytes(bytes, m, k). The parts
  // flow at once and the transfer ends when the last part does. Deterministic, called like `route`.
  std::function<std::vector<std::vector<std::int32_t>>(std::int32_t src, std::int32_t dst)> split_routes;
  TransferCalibration transfer;  // the des's calibration of transfers (none: the links' figures as they are)

  // True when link `link` (an id in [0, links.size())) is a DCN link: a transfer whose route crosses one is a DCN
  // transfer (SimulationResult::route_of gives the route).
  bool is_dcn(std::int32_t link) const { return links[static_cast<std::size_t>(link)].tier == LinkTier::dcn; }
};

}  // namespace podsim
