// Slice (or slices joined by the DCN) -> engine network.
#include "sim/engine/slice_network.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "models/common/error.hpp"
#include "models/topology/routing.hpp"

namespace podsim {

namespace {

// The split routes of transfers within slice `slice_index` of `slice` (link ids offset by slice_index x its links).
void add_split_routes(NetworkSpec& network, const std::shared_ptr<const Slice>& slice, std::int64_t per_slice,
                      std::int32_t ici_links) {
  network.split_routes = [slice, per_slice, ici_links](std::int32_t src, std::int32_t dst) {
    std::vector<std::vector<std::int32_t>> parts;
    if (src / per_slice != dst / per_slice) return parts;  // between slices: the DCN route
    const std::int64_t offset = src / per_slice * ici_links;
    const auto routes = policy_routes(*slice, static_cast<ChipId>(src % per_slice),
                                      static_cast<ChipId>(dst % per_slice), RoutePolicy::split_minimal);
    if (routes.size() < 2) return parts;
    for (const auto& route : routes) {
      parts.emplace_back();
      for (const LinkId link : route)
        parts.back().push_back(static_cast<std::int32_t>(offset + link));
    }
    return parts;
  };
}

}  // namespace

NetworkSpec slice_network(const Slice& slice, const IciModel& ici, double chip_flops, RoutePolicy routing) {
  NetworkSpec network;
  network.num_chips = static_cast<std::int32_t>(slice.num_chips());
  network.chip_flops = chip_flops;
  network.links.reserve(static_cast<std::size_t>(slice.num_links()));
  for (const Link& link : slice.links())
    network.links.push_back({link.name, ici.bandwidth_Bps, ici.hop_latency_s});
  auto shared = std::make_shared<const Slice>(slice);
  network.route = [shared](std::int32_t src, std::int32_t dst) {
    const auto links = dor_route(*shared, src, dst);
    return std::vector<std::int32_t>(links.begin(), links.end());
  };
  if (routing == RoutePolicy::split_minimal)
    add_split_routes(network, shared, slice.num_chips(), static_cast<std::int32_t>(slice.num_links()));
  return network;
}

NetworkSpec multi_slice_network(const Slice& slice, std::int32_t slices, const IciModel& ici, const DcnLinks& dcn,
                                double chip_flops, RoutePolicy routing) {
  if (slices < 1) throw VerifyError("the slice count must be >= 1, got: " + std::to_string(slices));
  if (slices == 1) return slice_network(slice, ici, chip_flops, routing);
  if (!(dcn.bandwidth_per_chip_Bps > 0) || !std::isfinite(dcn.bandwidth_per_chip_Bps))
    throw VerifyError("DCN bandwidth per chip must be finite and > 0 B/s, got: " +
                      std::to_string(dcn.bandwidth_per_chip_Bps));
  if (!(dcn.latency_s >= 0) || !std::isfinite(dcn.latency_s))
    throw VerifyError("DCN latency must be finite and >= 0 s, got: " + std::to_string(dcn.latency_s));
  if (dcn.chips_per_host < 1)
    throw VerifyError("chips per host must be >= 1, got: " + std::to_string(dcn.chips_per_host));
  const std::int64_t per_slice = slice.num_chips();
  if (per_slice * slices > std::numeric_limits<std::int32_t>::max())
    throw VerifyError("slices x chips per slice must fit 32 bits, got: " + std::to_string(per_slice * slices));

  NetworkSpec network;
  network.num_chips = static_cast<std::int32_t>(per_slice * slices);
  network.chip_flops = chip_flops;
  const auto ici_links = static_cast<std::int32_t>(slice.num_links());
  const std::int64_t hosts = (per_slice + dcn.chips_per_host - 1) / dcn.chips_per_host;
  network.links.reserve(static_cast<std::size_t>(slices) * static_cast<std::size_t>(ici_links + 2 * hosts));
  for (std::int32_t s = 0; s < slices; ++s)
    for (const Link& link : slice.links())
      network.links.push_back({"s" + std::to_string(s) + "." + link.name, ici.bandwidth_Bps, ici.hop_latency_s});
  const std::int32_t first_nic = slices * ici_links;
  for (std::int32_t s = 0; s < slices; ++s)
    for (std::int64_t h = 0; h < hosts; ++h) {
      const std::int64_t chips = std::min(dcn.chips_per_host, per_slice - h * dcn.chips_per_host);
      const double nic_Bps = dcn.bandwidth_per_chip_Bps * static_cast<double>(chips);
      const std::string host = "s" + std::to_string(s) + ".h" + std::to_string(h);
      network.links.push_back({"dcn.up." + host, nic_Bps, dcn.latency_s, LinkTier::dcn});
      network.links.push_back({"dcn.down." + host, nic_Bps, 0.0, LinkTier::dcn});
    }
  auto shared = std::make_shared<const Slice>(slice);
  const std::int64_t per_host = dcn.chips_per_host;
  network.route = [shared, per_slice, ici_links, first_nic, hosts, per_host](std::int32_t src, std::int32_t dst) {
    const std::int64_t src_slice = src / per_slice, dst_slice = dst / per_slice;
    const auto src_local = static_cast<ChipId>(src % per_slice), dst_local = static_cast<ChipId>(dst % per_slice);
    if (src_slice == dst_slice) {
      const auto links = dor_route(*shared, src_local, dst_local);
      std::vector<std::int32_t> route;
      route.reserve(links.size());
      for (const LinkId link : links)
        route.push_back(static_cast<std::int32_t>(src_slice * ici_links + link));
      return route;
    }
    const auto nic = [&](std::int64_t slice_index, ChipId local) {
      return first_nic + static_cast<std::int32_t>(2 * (slice_index * hosts + local / per_host));
    };
    return std::vector<std::int32_t>{nic(src_slice, src_local), nic(dst_slice, dst_local) + 1};
  };
  if (routing == RoutePolicy::split_minimal) add_split_routes(network, shared, per_slice, ici_links);
  return network;
}

}  // namespace podsim
