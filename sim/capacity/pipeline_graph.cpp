// Stage chips and the event graph of a pipeline schedule.
#include "sim/capacity/pipeline_graph.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"

namespace podsim {

std::vector<std::vector<ChipId>> stage_chips(const Mesh& mesh, const MeshMapping& mapping,
                                             const std::vector<std::string>& pipeline_axes, std::int64_t slices) {
  std::vector<std::size_t> pipeline;  // mesh axis indices, in the listed order
  std::vector<bool> is_pipeline(mesh.axes.size(), false);
  std::int64_t stages = 1;
  for (const auto& name : pipeline_axes) {
    const auto index = mesh.axis_index(name);
    if (!index) throw VerifyError("pipeline: unknown mesh axis, got: \"" + name + "\"");
    pipeline.push_back(*index);
    is_pipeline[*index] = true;
    stages *= mesh.axes[*index].size;
  }
  std::int64_t chips = 1;
  for (const auto& axis : mesh.axes)
    chips *= axis.size;
  std::vector<std::vector<ChipId>> out(static_cast<std::size_t>(stages));
  std::vector<std::int64_t> coords(mesh.axes.size(), 0);
  const bool several = slices > 1 && !mesh.axes.empty();
  const std::int64_t per_slice = several ? chips / mesh.axes.front().size : chips;
  std::vector<std::int64_t> in_slice(several ? mesh.axes.size() - 1 : 0);
  // Row-major over the mesh (last axis fastest): within each stage, the other axes' coordinates come in row-major
  // order too, so every stage lists its chips at the same places.
  for (std::int64_t position = 0; position < chips; ++position) {
    std::int64_t rest = position;
    for (std::size_t a = mesh.axes.size(); a-- > 0;) {
      coords[a] = rest % mesh.axes[a].size;
      rest /= mesh.axes[a].size;
    }
    std::int64_t stage = 0;
    for (const auto a : pipeline)
      stage = stage * mesh.axes[a].size + coords[a];
    if (several) {
      std::copy(coords.begin() + 1, coords.end(), in_slice.begin());
      out[static_cast<std::size_t>(stage)].push_back(
          static_cast<ChipId>(coords.front() * per_slice + mapping.chip_at(in_slice)));
    } else {
      out[static_cast<std::size_t>(stage)].push_back(mapping.chip_at(coords));
    }
  }
  return out;
}

EventGraph pipeline_graph(const PipelineGraphSpec& spec, std::vector<PipelineGraphTask>* roles) {
  const auto stages = static_cast<std::int64_t>(spec.chips.size());
  if (stages < 1) throw VerifyError("pipeline graph: at least one stage, got: 0");
  if (spec.forward_s.size() != spec.chips.size() || spec.backward_s.size() != spec.chips.size())
    throw VerifyError("pipeline graph: one forward and one backward time per stage (" + std::to_string(stages) +
                      "), got: " + std::to_string(spec.forward_s.size()) + " and " +
                      std::to_string(spec.backward_s.size()));
  const std::size_t width = spec.chips.front().size();
  for (const auto& chips : spec.chips)
    if (chips.size() != width)
      throw VerifyError("pipeline graph: every stage has the same number of chips (" + std::to_string(width) +
                        "), got: " + std::to_string(chips.size()));
  using Kind = PipelineTask::Kind;
  const std::int64_t m = spec.microbatches;
  EventGraph graph;
  graph.num_chips = spec.num_chips;
  if (roles) roles->clear();
  // Per (stage, place in stage): the chip's last task; per (stage, kind, microbatch, place): the transfer that
  // brought the task's input.
  std::vector<std::vector<TaskId>> last(spec.chips.size(), std::vector<TaskId>(width, -1));
  std::vector<TaskId> incoming(static_cast<std::size_t>(stages * 2 * m) * width, -1);
  const auto in_slot = [&](std::int64_t s, Kind kind, std::int64_t i, std::size_t r) {
    return (static_cast<std::size_t>((s * 2 + (kind == Kind::backward ? 1 : 0)) * m + i)) * width + r;
  };
  for_each_in_dependency_order(spec.schedule, stages, m, [&](std::int64_t s, const PipelineTask& task) {
    const auto si = static_cast<std::size_t>(s);
    const bool forward = task.kind == Kind::forward;
    const double seconds = forward ? spec.forward_s[si] : spec.backward_s[si];
    for (std::size_t r = 0; r < width; ++r) {
      Task compute;
      compute.kind = TaskKind::compute;
      compute.src_chip = compute.dst_chip = spec.chips[si][r];
      compute.flops = seconds * spec.chip_flops;
      compute.op = static_cast<std::int32_t>(s);
      compute.step = static_cast<std::int32_t>(task.microbatch);
      if (last[si][r] >= 0) compute.deps.push_back(last[si][r]);
      const TaskId input = incoming[in_slot(s, task.kind, task.microbatch, r)];
      if (input >= 0) compute.deps.push_back(input);
      const TaskId done = graph.add(std::move(compute));
      last[si][r] = done;
      const PipelineGraphTask role{static_cast<std::int32_t>(s), static_cast<std::int32_t>(r), task.microbatch,
                                   task.kind, -1};
      if (roles) roles->push_back(role);
      // The activation to the next stage, or the gradient to the previous one.
      const std::int64_t to = forward ? s + 1 : s - 1;
      if (to < 0 || to >= stages) continue;
      Task send;
      send.kind = TaskKind::transfer;
      send.src_chip = spec.chips[si][r];
      send.dst_chip = spec.chips[static_cast<std::size_t>(to)][r];
      send.bytes = spec.send_bytes;
      send.op = static_cast<std::int32_t>(s);
      send.step = static_cast<std::int32_t>(task.microbatch);
      send.deps.push_back(done);
      incoming[in_slot(to, task.kind, task.microbatch, r)] = graph.add(std::move(send));
      if (roles) roles->push_back({role.stage, role.place, role.microbatch, role.pass, static_cast<std::int32_t>(to)});
    }
  });
  return graph;
}

}  // namespace podsim
