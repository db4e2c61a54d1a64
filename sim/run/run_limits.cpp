#include "sim/run/run_limits.hpp"

#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "sim/collectives/collective_builder.hpp"

namespace podsim {

namespace {

double elements(const std::vector<std::int64_t>& shape) {
  double product = 1;
  for (const auto dim : shape)
    product *= static_cast<double>(dim);
  return product;
}

}  // namespace

std::uint64_t estimate_transfers(const PlannedProgram& program) {
  std::uint64_t transfers = 0;
  for (const auto& op : program.ops)
    for (const auto& step : op.steps) {
      if (step.kind == StepKind::collective) transfers += estimate_transfers(step.request);
      if (step.kind == StepKind::transfer) transfers += 1;
      if (step.kind == StepKind::permute)
        for (const auto& group : step.sends)
          transfers += group.size();
    }
  return transfers;
}

std::uint64_t count_compute_tasks(const PlannedProgram& program, std::uint64_t chips) {
  std::uint64_t steps = 0;
  for (const auto& op : program.ops)
    for (const auto& step : op.steps)
      steps += step.kind == StepKind::compute ? 1 : 0;
  return steps * chips;
}

double estimate_functional_bytes(const PlannedProgram& program, const Mesh& mesh) {
  const auto devices = static_cast<double>(mesh.num_devices());
  double values = 0;
  for (const auto& buffer : program.buffers)
    values += elements(buffer.shape) + elements(buffer.local_shape) * devices;
  return values * sizeof(double);
}

void check_event_graph_size(const PlannedProgram& program, std::uint64_t chips, const std::string& what) {
  const std::uint64_t transfers = estimate_transfers(program);
  if (transfers > kMaxTransfers)
    throw VerifyError(what + "the event graph would hold " + transfers_over_limit(transfers) +
                      " (docs/reliability.md): use fewer chips per axis, or the book model");
  // Compute tasks cost an event-graph task and a simulated event each, as transfers do: one limit for both.
  const std::uint64_t computes = count_compute_tasks(program, chips);
  if (transfers + computes > kMaxTransfers)
    throw VerifyError(what + "the event graph would hold about " + std::to_string(transfers + computes) + " tasks (" +
                      std::to_string(transfers) + " transfers and " + std::to_string(computes) +
                      " compute tasks, one per chip and compute step), above the limit of " +
                      std::to_string(kMaxTransfers) +
                      " (docs/reliability.md): use fewer chips or ops, or the book model");
}

void check_run_size(const PlannedProgram& program, const Mesh& mesh, bool functional) {
  const std::string plan = "plan \"" + program.name + "\": ";
  check_event_graph_size(program, static_cast<std::uint64_t>(mesh.num_devices()), plan);
  if (!functional) return;
  const double bytes = estimate_functional_bytes(program, mesh);
  if (bytes <= static_cast<double>(kMaxFunctionalBytes)) return;
  const PlannedBuffer* largest = nullptr;
  for (const auto& buffer : program.buffers)
    if (largest == nullptr || elements(buffer.shape) > elements(largest->shape)) largest = &buffer;
  throw VerifyError(plan + "functional mode (verify_values) would hold about " + format_bytes(bytes) +
                    " of values (largest tensor \"" + largest->tensor + "\", " +
                    format_number(elements(largest->shape)) + " elements), above the limit of " +
                    format_bytes(static_cast<double>(kMaxFunctionalBytes)) + ": run without verify_values");
}

}  // namespace podsim
