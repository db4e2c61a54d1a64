// Collectives as schedules: the operations, the algorithms that realise them, and the request that the
// builder (collective_builder.hpp) lowers into tasks of an EventGraph. Nothing here or in the generators sees the
// engine (sim/collective_sim simulates what the builder makes).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/enum_names.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// The collective algorithms. Each has one row in the algorithm table (algorithm_table.hpp), which states
// everything about it: its name, the collectives it runs, its steps, directions and invariances, its generator.
enum class Algorithm {
  automatic,  // per axis, the row whose AutoChoice matches (resolve_algorithm)
  unidirectional,
  bidirectional,
  bidirectional_split,
  line,
  direct,
};

// How a collective over several axes uses them (docs/collectives.md). Concurrent is the default, as XLA runs it.
enum class MultiAxis {
  sequential,  // axis after axis (all-gather grows the shard, reduce-scatter shrinks the data)
  concurrent,  // the data split in one part per axis (within the slice), each part visits the axes in a rotated order
};

// The groups of one mesh axis: each group lists its chips in axis order; all groups run at once.
struct AxisGroups {
  std::vector<std::vector<ChipId>> groups;
  bool wraparound = false;  // the chips of each group form a ring of links (else a line)
  // The axis runs across slices over the data-centre network (docs/overlap-pipeline-dcn.md): the builder places it
  // where the data is smallest (first in an all-gather, last in a reduce-scatter or all-reduce) and refuses all-to-all
  // over it.
  bool dcn = false;
};

struct CollectiveRequest {
  CollectiveKind op = CollectiveKind::all_gather;
  std::vector<AxisGroups> axes;  // one entry per mesh axis the collective runs over
  // The book's V: the gathered (all-gather), reduced (reduce-scatter, all-reduce) or exchanged (all-to-all)
  // array over one group of all the axes. A chip holds V / group size before an all-gather, V before a
  // reduce-scatter or all-reduce, and V / group size in an all-to-all.
  std::uint64_t array_bytes = 0;
  Algorithm algorithm = Algorithm::automatic;
  MultiAxis multi_axis = MultiAxis::concurrent;
  double reduce_flops_per_byte = 0;  // reduction compute per byte received (0: none modelled)
  std::int32_t op_id = 0;
};

// Per chip, the tasks that the next work on that chip waits for. Starts empty (no dependency).
struct Frontier {
  std::vector<std::vector<TaskId>> per_chip;
  explicit Frontier(std::int32_t num_chips = 0) : per_chip(static_cast<std::size_t>(num_chips)) {}
};

// Names as users write them (any case, `_` or `-`); the algorithms' are in algorithm_table.hpp.
inline constexpr EnumNames<MultiAxis, 2> kMultiAxisNames{"multi-axis mode",
                                                         {{
                                                             {"sequential", MultiAxis::sequential},
                                                             {"concurrent", MultiAxis::concurrent},
                                                         }}};

// An algorithm's name as users write it, and back (algorithm_table.cpp, from the table's rows).
std::string_view algorithm_name(Algorithm algorithm);  // "auto", "unidirectional", ...
Algorithm parse_algorithm(std::string_view text);      // VerifyError naming the choices

}  // namespace podsim
