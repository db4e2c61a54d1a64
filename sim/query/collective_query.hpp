// The question `podsim collective` answers: how long one collective takes over some mesh axes of a slice,
// by the book's closed form and by the hop-by-hop simulation, and how much each link carries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/cost/cost_breakdown.hpp"
#include "models/hardware/hardware.hpp"
#include "models/topology/slice.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/simulation_result.hpp"

namespace podsim {

// The inputs as the user wrote them (flag text); errors name the flag.
struct CollectiveQuery {
  std::string hardware = "tpu-v5e";
  std::string slice;                 // `8x4`
  std::string wrap = "auto";         // auto | none | all | `0,1`
  std::optional<std::string> mesh;   // `X=8,Y=4`; default: one axis per slice dim named X, Y, Z
  std::string op;                    // all-gather | reduce-scatter | all-reduce | all-to-all
  std::string axes;                  // `Y` or `X,Y`
  std::optional<std::string> shape;  // with sharding: the tensor the collective moves
  std::string dtype = "bf16";
  std::optional<std::string> sharding;
  std::optional<std::string> array_bytes;     // the book's V directly (`33554432`, `32MiB`)
  std::optional<std::string> link_bandwidth;  // overrides the preset's W_uni (`45GB/s`)
  std::optional<std::string> hop_latency;     // overrides the preset's alpha (`1us`)
  std::string model = "both";                 // des | book | both
  std::string algorithm = "auto";
  std::string multi_axis = "sequential";
};

struct DesAnswer {
  double time_s = 0;
  std::vector<std::string> algorithms;  // per axis, as resolved
  SimulationResult result;
  bool symmetric = false;  // one representative group per phase gave the (identical) result
};

struct CollectiveAnswer {
  std::string hardware;
  std::optional<Slice> slice;  // always set by answer_collective
  CollectiveKind kind = CollectiveKind::all_gather;
  std::vector<std::string> axes;
  std::int64_t group_size = 1;
  std::uint64_t shard_bytes = 0;  // array_bytes / group_size (ceil)
  std::uint64_t array_bytes = 0;  // the book's V
  double link_bandwidth_Bps = 0;
  double hop_latency_s = 0;
  std::optional<CostBreakdown> book;
  std::optional<DesAnswer> des;
};

// Parses, verifies, evaluates. Throws InputError located at the flag (`--slice`, `--axes`, ...).
CollectiveAnswer answer_collective(const CollectiveQuery& query);

}  // namespace podsim
