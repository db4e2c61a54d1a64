// The KV transfer network of disaggregated serving (kv_network.hpp).
#include "sim/engine/kv_network.hpp"

#include <cmath>
#include <string>

#include "models/common/error.hpp"

namespace podsim {

NetworkSpec kv_transfer_network(const std::vector<double>& prefill_egress_Bps,
                                const std::vector<double>& decode_ingress_Bps, double latency_s, LinkTier tier) {
  const auto prefill = static_cast<std::int64_t>(prefill_egress_Bps.size());
  const auto decode = static_cast<std::int64_t>(decode_ingress_Bps.size());
  if (prefill < 1 || decode < 1)
    throw VerifyError("the kv network needs a prefill and a decode replica at least, got: " + std::to_string(prefill) +
                      " and " + std::to_string(decode));
  if (prefill * decode > kMaxKvRoutes)
    throw VerifyError("the kv network routes at most 2^20 (prefill, decode) replica pairs, got: " +
                      std::to_string(prefill) + " x " + std::to_string(decode));
  if (!(std::isfinite(latency_s) && latency_s >= 0))
    throw VerifyError("the kv network's latency must be finite and >= 0, got: " + std::to_string(latency_s));
  NetworkSpec network;
  network.num_chips = static_cast<std::int32_t>(prefill + decode);
  const auto add = [&](const std::string& name, double bandwidth_Bps, double latency) {
    if (!(std::isfinite(bandwidth_Bps) && bandwidth_Bps > 0))
      throw VerifyError("the kv network's link " + name +
                        " must have a finite bandwidth > 0, got: " + std::to_string(bandwidth_Bps) + " B/s");
    network.links.push_back(LinkSpec{name, bandwidth_Bps, latency, tier});
  };
  for (std::int64_t p = 0; p < prefill; ++p)
    add("kv.out.p" + std::to_string(p), prefill_egress_Bps[static_cast<std::size_t>(p)], latency_s);
  for (std::int64_t d = 0; d < decode; ++d)
    add("kv.in.d" + std::to_string(d), decode_ingress_Bps[static_cast<std::size_t>(d)], 0.0);
  const auto first_decode = static_cast<std::int32_t>(prefill);
  network.route = [first_decode](std::int32_t src, std::int32_t dst) -> std::vector<std::int32_t> {
    if (src >= first_decode || dst < first_decode) return {};
    return {src, dst};  // egress src (id src), ingress of decode dst - P (id P + (dst - P) = dst)
  };
  return network;
}

}  // namespace podsim
