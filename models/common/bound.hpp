// What dominates a time, in two vocabularies: an op's bound (the roofline's compute or memory term, a transfer's
// bandwidth or latency term) and a model step's bound (the largest part of its breakdown: compute, HBM, ICI or DCN).
// The name functions below are the only place these words are spelled; everything else carries the enums.
#pragma once

#include <optional>
#include <string_view>

#include "models/common/enum_names.hpp"

namespace podsim {

// An op's (or one step's) bound: compute and memory from the roofline, bandwidth and latency from a transfer's
// closed form.
enum class Bound { compute, memory, bandwidth, latency };

inline constexpr EnumNames<Bound, 4> kBoundNames{"bound",
                                                 {{{"compute", Bound::compute},
                                                   {"memory", Bound::memory},
                                                   {"bandwidth", Bound::bandwidth},
                                                   {"latency", Bound::latency}}}};

// "compute", "memory", "bandwidth" or "latency".
constexpr std::string_view bound_name(Bound bound) {
  return kBoundNames.name(bound);
}

// The bound's name, or "" when there is none (an op without steps).
constexpr std::string_view bound_name(const std::optional<Bound>& bound) {
  return bound ? bound_name(*bound) : std::string_view();
}

// Whether the bound is the chip's own (compute or memory) rather than communication (bandwidth or latency).
constexpr bool on_chip(Bound bound) {
  return bound == Bound::compute || bound == Bound::memory;
}

// A model step's bound: the largest part of its time (the pipeline bubble is not one).
enum class StepBound { compute, hbm, ici, dcn };

inline constexpr EnumNames<StepBound, 4> kStepBoundNames{
    "step bound",
    {{{"compute", StepBound::compute}, {"hbm", StepBound::hbm}, {"ici", StepBound::ici}, {"dcn", StepBound::dcn}}}};

// "compute", "hbm", "ici" or "dcn".
constexpr std::string_view step_bound_name(StepBound bound) {
  return kStepBoundNames.name(bound);
}

// The step bound's name, or "" when there is none (a candidate not evaluated).
constexpr std::string_view step_bound_name(const std::optional<StepBound>& bound) {
  return bound ? step_bound_name(*bound) : std::string_view();
}

}  // namespace podsim
