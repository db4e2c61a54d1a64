// One-directional passes of data along rings and lines, with their dependencies.
#include "sim/collectives/directional_pass.hpp"

namespace podsim {
namespace {

bool sends_at(PassPattern pattern, std::int32_t position, std::int32_t step, std::int32_t n) {
  switch (pattern) {
    case PassPattern::ring:
      return true;
    case PassPattern::line_gather:
      return position < n - 1 && step <= position;
    case PassPattern::line_reduce:
      return position < n - 1 && step >= position;
  }
  return false;
}

}  // namespace

void append_pass(EventGraph& graph, const Frontier& in, Frontier& out, const Pass& pass, std::int32_t op_id,
                 std::int32_t first_step) {
  const auto n = static_cast<std::int32_t>(pass.chips.size());
  if (n < 2 || pass.steps <= 0) return;
  constexpr TaskId none = -1;
  std::vector<TaskId> last_send(static_cast<std::size_t>(n), none);
  std::vector<TaskId> last_recv(static_cast<std::size_t>(n), none);
  std::vector<bool> started(static_cast<std::size_t>(n), false);

  // Dependencies of the next task a position starts; the first one also waits for the chip's frontier.
  auto deps_of = [&](std::int32_t position) {
    const auto p = static_cast<std::size_t>(position);
    DepList deps;
    if (!started[p]) deps = in.per_chip[static_cast<std::size_t>(pass.chips[p])];
    if (last_send[p] != none) deps.push_back(last_send[p]);
    if (last_recv[p] != none) deps.push_back(last_recv[p]);
    started[p] = true;
    return deps;
  };

  std::vector<std::pair<std::int32_t, TaskId>> arrivals;  // (receiving position, transfer) of this step
  for (std::int32_t step = 0; step < pass.steps; ++step) {
    arrivals.clear();
    for (std::int32_t i = 0; i < n; ++i) {
      if (!sends_at(pass.pattern, i, step, n)) continue;
      const std::int32_t next = (i + 1) % n;
      Task send;
      send.kind = TaskKind::transfer;
      send.src_chip = pass.chips[static_cast<std::size_t>(i)];
      send.dst_chip = pass.chips[static_cast<std::size_t>(next)];
      send.bytes = pass.bytes_per_step;
      send.deps = deps_of(i);
      send.op = op_id;
      send.step = first_step + step;
      last_send[static_cast<std::size_t>(i)] = graph.add(std::move(send));
      arrivals.emplace_back(next, last_send[static_cast<std::size_t>(i)]);
    }
    for (const auto& [position, transfer] : arrivals) {
      const auto p = static_cast<std::size_t>(position);
      if (pass.reduce_flops_per_step > 0) {
        // The reduction adds the received chunk into the chip's own data: it waits for the transfer, the
        // chip's previous reduction (one reduction at a time) and, first of all, the chip's frontier.
        Task reduce;
        reduce.kind = TaskKind::compute;
        reduce.src_chip = reduce.dst_chip = pass.chips[p];
        reduce.flops = pass.reduce_flops_per_step;
        if (!started[p]) reduce.deps = in.per_chip[static_cast<std::size_t>(pass.chips[p])];
        started[p] = true;
        reduce.deps.push_back(transfer);
        if (last_recv[p] != none) reduce.deps.push_back(last_recv[p]);
        reduce.op = op_id;
        reduce.step = first_step + step;
        last_recv[p] = graph.add(std::move(reduce));
      } else {
        last_recv[p] = transfer;
      }
    }
  }
  for (std::int32_t i = 0; i < n; ++i) {
    auto& deps = out.per_chip[static_cast<std::size_t>(pass.chips[static_cast<std::size_t>(i)])];
    if (last_send[static_cast<std::size_t>(i)] != none) deps.push_back(last_send[static_cast<std::size_t>(i)]);
    if (last_recv[static_cast<std::size_t>(i)] != none) deps.push_back(last_recv[static_cast<std::size_t>(i)]);
  }
}

void carry_untouched(const Frontier& in, Frontier& out) {
  for (std::size_t chip = 0; chip < out.per_chip.size(); ++chip)
    if (out.per_chip[chip].empty()) out.per_chip[chip] = in.per_chip[chip];
}

std::vector<ChipId> reversed(const std::vector<ChipId>& chips) {
  return {chips.rbegin(), chips.rend()};
}

}  // namespace podsim
