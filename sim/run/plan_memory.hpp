// Memory per chip of a lowered plan: each tensor's shard, the peak held at once in program order, whether it
// fits HBM, and the largest working set of one op against VMEM.
#pragma once

#include "sim/run/plan_lowering.hpp"

namespace podsim {

// Fills plan.run.memory, memory_per_chip_bytes, hbm_bytes, fits_hbm, vmem_working_set_bytes, vmem_bytes and
// fits_vmem. Declared tensors stay live for the whole program (they are the model's state); an op's result is
// live from its op to its last use (to the end when nothing reads it); while an op runs, its result, the
// version it replaces and its temporaries (a matmul's gathered operands) coexist.
void account_memory(const ScenarioSpec& spec, LoweredPlan& plan);

}  // namespace podsim
