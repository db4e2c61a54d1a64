// The inter-chip interconnect of one chip generation: full-duplex links to torus neighbours, each with a
// bandwidth per direction and a per-hop latency. Presets carry the vendor's raw and the effective figure;
// bandwidth_Bps is the one models use (the effective one by default, as the scaling book does).
#pragma once

namespace podsim {

struct IciModel {
  int links_per_chip = 0;              // ICI ports per chip (4 on 2D tori, 6 on 3D tori); 0 = no ICI (GPUs)
  double bandwidth_Bps = 0;            // per link, per direction: the figure in use (W_uni)
  double bandwidth_raw_Bps = 0;        // per link, per direction: the vendor's signalling figure
  double bandwidth_effective_Bps = 0;  // per link, per direction: what transfers achieve
  double hop_latency_s = 0;            // per hop (the book's T_min)

  bool present() const { return links_per_chip > 0 && bandwidth_Bps > 0; }
  // Both directions of one link (the book's W_ici for a ring with wraparound): 2 x bandwidth_Bps.
  double bidirectional_Bps() const { return 2.0 * bandwidth_Bps; }
};

}  // namespace podsim
