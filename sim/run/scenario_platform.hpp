// The platform a scenario's plans run on: the slice, the mesh mapped onto it and the engine network built from
// the hardware's ICI model (shared by all plans of a scenario).
#pragma once

#include <memory>
#include <optional>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/engine/network.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct ScenarioPlatform {
  std::shared_ptr<const Slice> slice;
  std::shared_ptr<const MeshMapping> mapping;
  NetworkSpec network;
  // The engine's host speed: compute tasks carry time x chip_flops, so any positive speed gives the same times.
  double chip_flops = 1e15;
  // The hardware's calibration the des applies (docs/hardware-model.md, "Calibration"): the network already holds
  // its hop latency, DCN figures and transfer costs; the lowering takes the compute efficiencies from here.
  std::optional<Calibration> calibration;

  // Several slices over the DCN (docs/overlap-pipeline-dcn.md): `slice` and `mapping` are one slice's; the network
  // holds them all.
  std::int32_t slices = 1;
  double dcn_bandwidth_Bps = 0;
  double dcn_latency_s = 0;

  std::int64_t num_chips() const { return slice->num_chips() * slices; }
  PlanTopology topology() const { return {*slice, *mapping, false, slices, dcn_bandwidth_Bps, dcn_latency_s}; }
};

// Builds the platform. Throws InputError located in the scenario file.
ScenarioPlatform build_platform(const ScenarioSpec& spec);

}  // namespace podsim
