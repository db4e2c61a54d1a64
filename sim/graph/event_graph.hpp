// The timed event graph podsim executes: per-chip compute tasks and chip-to-chip transfers with
// dependencies. Collective algorithms and the plan lowering produce it; sim/engine runs it on SimGrid.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/ids.hpp"
#include "sim/graph/dep_list.hpp"

namespace podsim {

enum class TaskKind : std::uint8_t {
  transfer,  // `bytes` from src_chip to dst_chip over the slice's route (cut-through: hops * alpha + bytes / W)
  compute,   // `flops` on src_chip (dst_chip == src_chip); a reduction or a matmul
};

struct Task {
  // Members are ordered for size (48 bytes): set them by name.
  ChipId src_chip = 0;
  ChipId dst_chip = 0;
  std::uint64_t bytes = 0;
  double flops = 0;
  // Tasks that must complete before this one starts. Each dependency must be observable on the chip that
  // starts this task (src_chip): a compute on that chip, a transfer it sent, or a transfer it received.
  DepList deps;           // reads and writes like std::vector<TaskId>; up to 2 ids need no allocation
  std::int32_t op = 0;    // which op of the program (or collective) it belongs to, for reports
  std::int32_t step = 0;  // algorithm step within the op, for reports and traces
  TaskKind kind = TaskKind::transfer;
};

static_assert(sizeof(Task) == 48, "Task is stored by the million: keep it small");

struct EventGraph {
  std::int32_t num_chips = 0;
  std::vector<Task> tasks;  // TaskId = index; deps point to lower or higher ids, the graph must be acyclic

  TaskId add(Task task) {
    tasks.push_back(std::move(task));
    return static_cast<TaskId>(tasks.size() - 1);
  }
};

}  // namespace podsim
