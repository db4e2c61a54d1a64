// The four collectives podsim models, shared by the book cost model, the matmul planner and the schedules.
#pragma once

#include <string_view>

namespace podsim {

enum class CollectiveKind { all_gather, reduce_scatter, all_reduce, all_to_all };

// "all-gather", "reduce-scatter", "all-reduce", "all-to-all".
std::string_view collective_kind_name(CollectiveKind kind);

// Reads the canonical name or a common spelling (all_gather, AllGather, allgather). Throws VerifyError
// `unknown collective, got: <text> (expected one of all-gather, reduce-scatter, all-reduce, all-to-all)`.
CollectiveKind parse_collective_kind(std::string_view text);

}  // namespace podsim
