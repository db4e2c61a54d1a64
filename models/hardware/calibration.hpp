// What measurements of a real machine change in the simulation (docs/validation.md): per-hop latency, a fixed
// cost per collective step, achieved link bandwidth as a function of message size, MXU efficiency as a function
// of a matmul's FLOPs, HBM efficiency as a function of the bytes a step moves, and the DCN figures. A preset may carry
// one (its `calibration` section, a source per figure) and `podsim calibrate` writes one as an overlay; the des applies
// it when present, the book model never does, and `--uncalibrated` drops it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace podsim {

// One point of an efficiency curve: at `at` (bytes of one message, FLOPs of one matmul, or bytes one step moves
// to and from HBM) the machine achieves
// `efficiency` (0 < e <= 1) of the nominal figure. A curve is piecewise linear in log(at) between its points, in
// increasing `at`, and flat beyond its ends; the ends are the sizes the fit saw (the curve says over which sizes
// it holds).
struct EfficiencyPoint {
  double at = 0;
  double efficiency = 1;
};

struct Calibration {
  std::string source;                   // where the figures come from: a preset's source key or an overlay file
  std::optional<double> hop_latency_s;  // replaces the preset's ICI alpha in the des
  double collective_step_s = 0;         // fixed cost of every collective step (launch and synchronisation)
  std::vector<EfficiencyPoint> link_efficiency;  // achieved / nominal ICI bandwidth vs message bytes; empty = 1
  std::vector<EfficiencyPoint> mxu_efficiency;   // achieved / peak FLOP/s vs matmul FLOPs; empty = 1
  // achieved / nominal HBM bandwidth vs the bytes one step reads and writes in HBM; empty = 1. A preset's single
  // number is a curve of one point (flat everywhere).
  std::vector<EfficiencyPoint> hbm_efficiency;
  // achieved / peak FLOP/s of a causal flash (splash) attention kernel on the FLOPs it computes (half the square of
  // scores: the blocks above the diagonal are skipped) vs the sequence length, its forward and its backward; empty:
  // the attention is timed as any op, its FLOPs whole at the MXU's efficiency (docs/hardware-model.md, "Attention
  // kernels").
  std::vector<EfficiencyPoint> attention_forward_efficiency;
  std::vector<EfficiencyPoint> attention_backward_efficiency;
  std::optional<double> dcn_bandwidth_Bps;  // replaces the preset's DCN egress per chip in the des
  std::optional<double> dcn_latency_s;      // replaces the preset's DCN latency in the des
};

// The curve's efficiency at `at`: 1 for an empty curve, the end's value beyond an end, else linear in log(at)
// between the two points around it. Expects points in increasing `at` with `at` > 0 (verify_calibration).
double efficiency_at(const std::vector<EfficiencyPoint>& curve, double at);

// Whether `at` lies outside the sizes the curve was fitted on (an empty curve has no range: false).
bool outside_curve(const std::vector<EfficiencyPoint>& curve, double at);

// The des's time of one compute step whose roofline terms are `compute_s` (FLOPs at peak) and `memory_s` (bytes at
// the nominal HBM bandwidth), for a step of `flops` FLOPs moving `hbm_bytes` bytes to and from HBM:
// max(compute_s / mxu_efficiency(flops), memory_s / hbm_efficiency(hbm_bytes)).
double calibrated_compute_s(const Calibration& calibration, double compute_s, double memory_s, double flops,
                            double hbm_bytes);

// The curve named `key` ("link_efficiency", "mxu_efficiency", "hbm_efficiency", "attention_forward_efficiency" or
// "attention_backward_efficiency"). Throws std::invalid_argument for another name.
std::vector<EfficiencyPoint>& calibration_curve(Calibration& calibration, const std::string& key);
const std::vector<EfficiencyPoint>& calibration_curve(const Calibration& calibration, const std::string& key);

// Which pass of a causal attention kernel a compute step is (model-level programs tag their attention ops).
enum class AttentionPass : std::uint8_t { none, forward, backward };

// The share of a causal attention's score blocks its kernel computes: the attention's FLOPs are counted whole (as
// MFU counts them), the kernel skips the blocks above the diagonal.
inline constexpr double kCausalComputedFraction = 0.5;
// The FLOPs a flash attention's backward kernel computes over those its products count: it recomputes the scores
// (2.5 forward's, the convention of the published kernel benchmarks, where a backward's products are 2 forward's).
inline constexpr double kAttentionBackwardKernelRatio = 1.25;

// The des's time of a compute step of causal attention (`pass`, over `context` keys per query) when the calibration
// has that pass's curve: max(kCausalComputedFraction x compute_s (x kAttentionBackwardKernelRatio for the backward) /
// attention efficiency(context), memory_s / hbm_efficiency(hbm_bytes)); otherwise (no curve, or not attention)
// calibrated_compute_s.
double calibrated_attention_s(const Calibration& calibration, AttentionPass pass, double context, double compute_s,
                              double memory_s, double flops, double hbm_bytes);

// Checks the figures: latencies and the step cost >= 0 and finite, the DCN bandwidth > 0, efficiencies in (0, 1],
// curve points at > 0 in strictly increasing order. Throws VerifyError naming the figure
// (`link_efficiency[2].at: points must be in increasing order, got: 1000 after 4096`).
void verify_calibration(const Calibration& calibration);

}  // namespace podsim
