// The sharding an explicit collective op of a scenario leads to, and the per-plan rule that each of its axes
// applies to the tensor (shared by the lowering and functional mode).
#pragma once

#include <string>

#include "models/sharding/sharding.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// `from` after `c`: an all-gather drops its axes from the dims, a reduce-scatter moves them from the unreduced
// list to `dim`, an all-reduce drops them from the unreduced list, an all-to-all moves them from `from_dim` to
// `to_dim`. Throws VerifyError `all-gather over X: the axis does not shard A in this plan, got: <shown>` (and the
// like) when an axis does not apply; `shown` is how the message prints `from`.
TensorSharding collective_target(const CollectiveOp& c, const TensorSharding& from, const std::string& shown);

}  // namespace podsim
