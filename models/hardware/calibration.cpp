// The calibration's curves and the compute time the des takes from them (calibration.hpp).
#include "models/hardware/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {

double efficiency_at(const std::vector<EfficiencyPoint>& curve, double at) {
  if (curve.empty()) return 1;
  if (at <= curve.front().at) return curve.front().efficiency;
  if (at >= curve.back().at) return curve.back().efficiency;
  const auto after = std::upper_bound(curve.begin(), curve.end(), at,
                                      [](double value, const EfficiencyPoint& point) { return value < point.at; });
  const EfficiencyPoint& hi = *after;
  const EfficiencyPoint& lo = *(after - 1);
  const double t = (std::log(at) - std::log(lo.at)) / (std::log(hi.at) - std::log(lo.at));
  return lo.efficiency + t * (hi.efficiency - lo.efficiency);
}

bool outside_curve(const std::vector<EfficiencyPoint>& curve, double at) {
  return !curve.empty() && (at < curve.front().at || at > curve.back().at);
}

double calibrated_compute_s(const Calibration& calibration, double compute_s, double memory_s, double flops,
                            double hbm_bytes) {
  return std::max(compute_s / efficiency_at(calibration.mxu_efficiency, flops),
                  memory_s / efficiency_at(calibration.hbm_efficiency, hbm_bytes));
}

std::vector<EfficiencyPoint>& calibration_curve(Calibration& calibration, const std::string& key) {
  if (key == "link_efficiency") return calibration.link_efficiency;
  if (key == "mxu_efficiency") return calibration.mxu_efficiency;
  if (key == "hbm_efficiency") return calibration.hbm_efficiency;
  if (key == "attention_forward_efficiency") return calibration.attention_forward_efficiency;
  if (key == "attention_backward_efficiency") return calibration.attention_backward_efficiency;
  throw std::invalid_argument("no calibration curve is named " + key);
}

const std::vector<EfficiencyPoint>& calibration_curve(const Calibration& calibration, const std::string& key) {
  return calibration_curve(const_cast<Calibration&>(calibration), key);
}

double calibrated_attention_s(const Calibration& calibration, AttentionPass pass, double context, double compute_s,
                              double memory_s, double flops, double hbm_bytes) {
  const std::vector<EfficiencyPoint>& curve = pass == AttentionPass::backward
                                                  ? calibration.attention_backward_efficiency
                                                  : calibration.attention_forward_efficiency;
  if (pass == AttentionPass::none || curve.empty())
    return calibrated_compute_s(calibration, compute_s, memory_s, flops, hbm_bytes);
  const double kernel = pass == AttentionPass::backward ? kAttentionBackwardKernelRatio : 1.0;
  return std::max(kCausalComputedFraction * kernel * compute_s / efficiency_at(curve, context),
                  memory_s / efficiency_at(calibration.hbm_efficiency, hbm_bytes));
}

namespace {

void verify_seconds(const char* name, double value) {
  if (!(value >= 0) || !std::isfinite(value))
    throw VerifyError(std::string(name) + ": must be finite and >= 0 s, got: " + exact_number(value));
}

void verify_efficiency(const std::string& name, double value) {
  if (!(value > 0 && value <= 1))
    throw VerifyError(name + ": an efficiency must be in (0, 1], got: " + exact_number(value));
}

void verify_curve(const char* name, const std::vector<EfficiencyPoint>& curve) {
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const std::string at = std::string(name) + "[" + std::to_string(i) + "]";
    if (!(curve[i].at > 0) || !std::isfinite(curve[i].at))
      throw VerifyError(at + ".at: must be finite and > 0, got: " + exact_number(curve[i].at));
    if (i > 0 && !(curve[i].at > curve[i - 1].at))
      throw VerifyError(at + ".at: points must be in increasing order, got: " + exact_number(curve[i].at) + " after " +
                        exact_number(curve[i - 1].at));
    verify_efficiency(at + ".efficiency", curve[i].efficiency);
  }
}

}  // namespace

void verify_calibration(const Calibration& calibration) {
  if (calibration.hop_latency_s) verify_seconds("hop_latency_s", *calibration.hop_latency_s);
  verify_seconds("collective_step_s", calibration.collective_step_s);
  verify_curve("link_efficiency", calibration.link_efficiency);
  verify_curve("mxu_efficiency", calibration.mxu_efficiency);
  verify_curve("hbm_efficiency", calibration.hbm_efficiency);
  verify_curve("attention_forward_efficiency", calibration.attention_forward_efficiency);
  verify_curve("attention_backward_efficiency", calibration.attention_backward_efficiency);
  if (calibration.dcn_bandwidth_Bps &&
      (!(*calibration.dcn_bandwidth_Bps > 0) || !std::isfinite(*calibration.dcn_bandwidth_Bps)))
    throw VerifyError("dcn_bandwidth_Bps: must be finite and > 0 B/s, got: " +
                      exact_number(*calibration.dcn_bandwidth_Bps));
  if (calibration.dcn_latency_s) verify_seconds("dcn_latency_s", *calibration.dcn_latency_s);
}

}  // namespace podsim
