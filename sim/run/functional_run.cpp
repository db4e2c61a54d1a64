// Value semantics of a plan, op by op, against dense references.
#include "sim/run/functional_run.hpp"

#include <functional>
#include <map>
#include <optional>

#include "models/common/error.hpp"
#include "models/plan/collective_values.hpp"
#include "models/plan/sharded_values.hpp"

namespace podsim {
namespace {

struct Values {
  ShardedValues sharded;
  DenseArray dense;  // the reference
};

// One planned collective on values.
ShardedValues apply(const ShardedValues& values, const PlannedCollective& pc) {
  switch (pc.kind) {
    case CollectiveKind::all_gather:
      return all_gather(values, pc.axes, static_cast<std::size_t>(pc.dim)).values;
    case CollectiveKind::reduce_scatter:
      return reduce_scatter(values, pc.axes, static_cast<std::size_t>(pc.dim)).values;
    case CollectiveKind::all_reduce:
      return all_reduce(values, pc.axes).values;
    case CollectiveKind::all_to_all:
      return all_to_all(values, pc.axes, static_cast<std::size_t>(pc.dim), static_cast<std::size_t>(pc.to_dim)).values;
  }
  return values;
}

std::uint64_t seed_of(const std::string& name) {
  return std::hash<std::string>{}(name) % 1000003;
}

}  // namespace

bool scenario_is_small(const ScenarioSpec& spec, std::uint64_t limit) {
  auto small = [&](const Shape& shape) {
    std::uint64_t elements = 1;
    for (const auto dim : shape) {
      elements *= static_cast<std::uint64_t>(dim);
      if (elements > limit) return false;
    }
    return true;
  };
  for (const auto& tensor : spec.tensors)
    if (!small(tensor.shape)) return false;
  for (const auto& op : spec.program)
    if (!op.out.empty() && !small(op.out_shape)) return false;
  return true;
}

void verify_plan_values(const ScenarioSpec& spec, const PlannedProgram& program, PlanRun& run) {
  const Mesh& mesh = spec.mesh.mesh;
  std::vector<std::optional<ShardedValues>> values(program.buffers.size());  // per buffer, once created
  std::vector<int> results;                                                  // result buffers, in order
  std::vector<DenseArray> reference(program.buffers.size());
  try {
    for (std::size_t b = 0; b < program.buffers.size(); ++b) {
      const PlannedBuffer& buffer = program.buffers[b];
      if (buffer.role != PlannedBuffer::Role::declared) continue;
      const TensorSharding& sharding = buffer.sharding;
      // A declared tensor that is unreduced holds partial sums: give each device its own partial, whose sum over
      // the unreduced group is the reference.
      DenseArray whole = small_integer_array(buffer.shape, seed_of(buffer.tensor));
      if (sharding.unreduced.empty()) {
        values[b] = distribute(whole, sharding, mesh, buffer.dtype);
      } else {
        TensorSharding replicated = sharding;
        replicated.unreduced.clear();
        std::vector<DenseArray> locals = distribute(whole, replicated, mesh, buffer.dtype).locals();
        // Device 0 of each unreduced group keeps the values, the others hold zeros: partials summing to the whole.
        for (std::size_t position = 0; position < locals.size(); ++position) {
          const std::int64_t device = mesh.device_at(static_cast<std::int64_t>(position));
          const auto group = collective_group(mesh, sharding.unreduced, device);
          if (group.front() != device) locals[position] = DenseArray(locals[position].shape());
        }
        values[b] = ShardedValues(buffer.shape, sharding, mesh, std::move(locals), buffer.dtype);
      }
      reference[b] = std::move(whole);
    }
    for (const PlannedOp& op : program.ops) {
      const ScenarioOp& source = spec.program[static_cast<std::size_t>(op.index)];
      for (const PlannedStep& step : op.steps) {
        if (step.writes < 0) continue;  // loads and sends move no values
        const auto at = [&](int b) -> const ShardedValues& { return *values[static_cast<std::size_t>(b)]; };
        if (step.in_loop) {
          // A collective matmul: its blocks and partial sums are not carried as values; its product is the
          // local matmul with the collective it replaces applied (to the operand, or to the partial sums).
          const CollectiveMatmulLoop& loop = *op.collective_matmul;
          if (step.writes != loop.product_buffer) continue;
          const auto* mm = std::get_if<MatmulOp>(&source.detail);
          if (loop.replaces.kind == CollectiveKind::reduce_scatter) {
            values[static_cast<std::size_t>(step.writes)] = apply(
                local_matmul(mm->einsum, at(op.inputs[0]), at(op.inputs[1]), loop.replaces.before), loop.replaces);
            continue;
          }
          const ShardedValues gathered = apply(at(loop.operand_buffer), loop.replaces);
          const bool on_lhs = loop.replaces.operand == PlannedCollective::Operand::lhs;
          const int other = op.inputs[on_lhs ? 1 : 0];
          values[static_cast<std::size_t>(step.writes)] =
              local_matmul(mm->einsum, on_lhs ? gathered : at(other), on_lhs ? at(other) : gathered,
                           program.buffers[static_cast<std::size_t>(step.writes)].sharding);
          continue;
        }
        ShardedValues out = at(step.reads.front());
        if (step.kind == StepKind::collective) {
          if (step.value_moves.empty()) out = apply(out, step.collective);
          for (const PlannedCollective& move : step.value_moves)
            out = apply(out, move);
        } else if (const auto* mm = std::get_if<MatmulOp>(&source.detail)) {
          out = local_matmul(mm->einsum, at(step.reads[0]), at(step.reads[1]),
                             program.buffers[static_cast<std::size_t>(step.writes)].sharding);
        }
        // Elementwise ops and local slices: only their cost is modelled, not their function; values pass through
        // (re-laid out for a local slice).
        else if (out.sharding() != program.buffers[static_cast<std::size_t>(step.writes)].sharding) {
          out = distribute(assemble(out), program.buffers[static_cast<std::size_t>(step.writes)].sharding, mesh,
                           out.dtype());
        }
        values[static_cast<std::size_t>(step.writes)] = std::move(out);
      }
      if (op.output < 0) continue;
      // The reference: the dense product of the operands' references, or the input's reference.
      const auto in = [&](std::size_t i) -> const DenseArray& {
        return reference[static_cast<std::size_t>(op.inputs[i])];
      };
      if (const auto* mm = std::get_if<MatmulOp>(&source.detail))
        reference[static_cast<std::size_t>(op.output)] = dense_einsum(mm->einsum, in(0), in(1));
      else
        reference[static_cast<std::size_t>(op.output)] = in(0);
      results.push_back(op.output);
    }
  } catch (const Error& e) {
    run.values_match = false;
    run.values_note = std::string("functional run failed: ") + e.what();
    return;
  }
  std::string skipped;
  for (const int b : results) {
    const ShardedValues& v = *values[static_cast<std::size_t>(b)];
    const std::string& name = program.buffers[static_cast<std::size_t>(b)].tensor;
    if (!v.sharding().unreduced.empty()) {
      skipped += (skipped.empty() ? "" : ", ") + name;
      continue;
    }
    const Comparison comparison = compare(assemble(v), reference[static_cast<std::size_t>(b)]);
    if (!comparison.equal) {
      run.values_match = false;
      run.values_note = name + ": " + comparison.first_mismatch;
      return;
    }
  }
  run.values_match = true;
  run.values_note = "every result equals its dense reference";
  if (!skipped.empty()) run.values_note += " (not compared, still unreduced: " + skipped + ")";
}

}  // namespace podsim
