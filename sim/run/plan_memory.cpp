// Liveness of tensors in program order, and the HBM / VMEM fit.
#include "sim/run/plan_memory.hpp"

#include <algorithm>
#include <map>

#include "models/sharding/layout.hpp"
#include "models/sharding/notation.hpp"

namespace podsim {

void account_memory(const ScenarioSpec& spec, LoweredPlan& plan) {
  const Mesh& mesh = spec.mesh.mesh;
  std::vector<std::uint64_t> bytes(plan.tensors.size());
  for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
    const LoweredTensor& tensor = plan.tensors[i];
    const Layout layout = compute_layout(tensor.shape, tensor.dtype, tensor.sharding, mesh);
    bytes[i] = layout.bytes_per_device;
    const std::string writer =
        tensor.written_by < 0 ? "" : spec.program[static_cast<std::size_t>(tensor.written_by)].name;
    plan.run.memory.push_back({tensor.name, layout.local_shape, layout.bytes_per_device, layout.total_bytes,
                               print_readable(tensor.sharding, tensor.name, tensor.labels), writer});
  }
  std::map<std::string, int> last_use;
  for (std::size_t i = 0; i < spec.program.size(); ++i)
    for (const auto& input : spec.program[i].inputs)
      last_use[input] = static_cast<int>(i);

  std::map<std::string, std::uint64_t> live;
  std::map<std::string, bool> declared;
  auto total = [&] {
    std::uint64_t sum = 0;
    for (const auto& [name, b] : live)
      sum += b;
    return sum;
  };
  std::vector<const LoweredTensor*> written(spec.program.size(), nullptr);
  std::vector<std::uint64_t> written_bytes(spec.program.size(), 0);
  for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
    const LoweredTensor& tensor = plan.tensors[i];
    if (tensor.written_by < 0) {
      live[tensor.name] = bytes[i];
      declared[tensor.name] = true;
    } else {
      written[static_cast<std::size_t>(tensor.written_by)] = &tensor;
      written_bytes[static_cast<std::size_t>(tensor.written_by)] = bytes[i];
    }
  }
  std::uint64_t peak = total();
  std::uint64_t working_set = 0;
  for (std::size_t i = 0; i < spec.program.size(); ++i) {
    const ScenarioOp& op = spec.program[i];
    const std::uint64_t out_bytes = written[i] ? written_bytes[i] : 0;
    const std::uint64_t temporary = plan.temporary_bytes.empty() ? 0 : plan.temporary_bytes[i];
    peak = std::max(peak, total() + out_bytes + temporary);
    std::uint64_t op_set = out_bytes + temporary;
    for (const auto& input : op.inputs)
      op_set += live.count(input) ? live[input] : 0;
    if (op.kind == OpKind::matmul || op.kind == OpKind::elementwise || op.kind == OpKind::load)
      working_set = std::max(working_set, op_set);
    if (written[i]) live[op.out] = out_bytes;
    for (const auto& input : op.inputs)
      if (!declared[input] && last_use[input] == static_cast<int>(i) && input != op.out) live.erase(input);
  }
  const ChipModel& chip = spec.hardware.spec.chip;
  plan.run.memory_per_chip_bytes = peak;
  plan.run.hbm_bytes = chip.hbm_bytes;
  plan.run.fits_hbm = chip.hbm_bytes == 0 || peak <= chip.hbm_bytes;
  plan.run.vmem_working_set_bytes = working_set;
  plan.run.vmem_bytes = chip.vmem_bytes_per_core * static_cast<std::uint64_t>(std::max(chip.tensorcores, 1));
  plan.run.fits_vmem = plan.run.vmem_bytes == 0 || working_set <= plan.run.vmem_bytes;
}

}  // namespace podsim
