// Value semantics of a plan, op by op, against dense references.
#include "sim/run/functional_run.hpp"

#include <functional>
#include <map>

#include "models/common/error.hpp"
#include "models/plan/collective_values.hpp"
#include "models/plan/matmul_plan.hpp"
#include "models/plan/sharded_values.hpp"
#include "sim/run/collective_target.hpp"

namespace podsim {
namespace {

struct Values {
  ShardedValues sharded;
  DenseArray dense;  // the reference
};

// Applies the planned collectives to values in order.
ShardedValues apply_collectives(ShardedValues values, const std::vector<PlannedCollective>& list) {
  for (const auto& pc : list) {
    switch (pc.kind) {
      case CollectiveKind::all_gather:
        values = all_gather(values, pc.axes, static_cast<std::size_t>(pc.dim)).values;
        break;
      case CollectiveKind::reduce_scatter:
        values = reduce_scatter(values, pc.axes, static_cast<std::size_t>(pc.dim)).values;
        break;
      case CollectiveKind::all_reduce:
        values = all_reduce(values, pc.axes).values;
        break;
      case CollectiveKind::all_to_all:
        values =
            all_to_all(values, pc.axes, static_cast<std::size_t>(pc.dim), static_cast<std::size_t>(pc.to_dim)).values;
        break;
    }
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

void verify_plan_values(const ScenarioSpec& spec, const ScenarioPlan* plan, PlanRun& run) {
  const Mesh& mesh = spec.mesh.mesh;
  std::map<std::string, Values> table;
  std::vector<std::string> results;  // tensors the program writes, in order
  try {
    for (const auto& tensor : spec.tensors) {
      TensorSharding sharding = tensor.sharding.sharding();
      if (plan)
        for (const auto& [name, s] : plan->shardings)
          if (name == tensor.name) sharding = s.sharding();
      // A declared tensor that is unreduced holds partial sums: give each device its own partial, whose sum over
      // the unreduced group is the reference.
      DenseArray dense = small_integer_array(tensor.shape, seed_of(tensor.name));
      ShardedValues values = distribute(dense, sharding, mesh, tensor.dtype);
      if (!sharding.unreduced.empty()) {
        TensorSharding replicated = sharding;
        replicated.unreduced.clear();
        ShardedValues whole = distribute(dense, replicated, mesh, tensor.dtype);
        std::vector<DenseArray> locals = whole.locals();
        // Device 0 of each unreduced group keeps the values, the others hold zeros: partials summing to the whole.
        for (std::size_t position = 0; position < locals.size(); ++position) {
          const std::int64_t device = mesh.device_at(static_cast<std::int64_t>(position));
          const auto group = collective_group(mesh, sharding.unreduced, device);
          if (group.front() != device) locals[position] = DenseArray(locals[position].shape());
        }
        values = ShardedValues(tensor.shape, sharding, mesh, std::move(locals), tensor.dtype);
      }
      table.insert_or_assign(tensor.name, Values{std::move(values), std::move(dense)});
    }
    for (const auto& op : spec.program) {
      if (const auto* mm = std::get_if<MatmulOp>(&op.detail)) {
        const Values& lhs = table.at(mm->lhs);
        const Values& rhs = table.at(mm->rhs);
        std::optional<TensorSharding> required;
        if (mm->out_sharding) required = mm->out_sharding->sharding();
        if (plan)
          for (const auto& [name, s] : plan->out_shardings)
            if (name == op.name) required = s.sharding();
        const MatmulPlan mp =
            plan_matmul(mm->einsum, lhs.sharded.global_shape(), lhs.sharded.sharding(), rhs.sharded.global_shape(),
                        rhs.sharded.sharding(), lhs.sharded.dtype(), mesh, required);
        std::vector<PlannedCollective> on_lhs, on_rhs;
        for (const auto& pc : mp.before)
          (pc.operand == PlannedCollective::Operand::lhs ? on_lhs : on_rhs).push_back(pc);
        const ShardedValues product = local_matmul(mm->einsum, apply_collectives(lhs.sharded, on_lhs),
                                                   apply_collectives(rhs.sharded, on_rhs), mp.local_out);
        table.insert_or_assign(
            op.out, Values{apply_collectives(product, mp.after), dense_einsum(mm->einsum, lhs.dense, rhs.dense)});
        results.push_back(op.out);
      } else if (const auto* c = std::get_if<CollectiveOp>(&op.detail)) {
        const Values& in = table.at(c->tensor);
        const TensorSharding to = collective_target(*c, in.sharded.sharding(), c->tensor);
        const auto list = plan_resharding(in.sharded.global_shape(), in.sharded.sharding(), to, in.sharded.dtype(),
                                          mesh, PlannedCollective::Operand::out, "", nullptr);
        table.insert_or_assign(op.out, Values{apply_collectives(in.sharded, list), in.dense});
        results.push_back(op.out);
      } else if (const auto* r = std::get_if<ReshardOp>(&op.detail)) {
        const Values& in = table.at(r->tensor);
        const auto list = plan_resharding(in.sharded.global_shape(), in.sharded.sharding(), r->to.sharding(),
                                          in.sharded.dtype(), mesh, PlannedCollective::Operand::out, "", nullptr);
        table.insert_or_assign(op.out, Values{apply_collectives(in.sharded, list), in.dense});
        results.push_back(op.out);
      } else if (const auto* e = std::get_if<ElementwiseOp>(&op.detail)) {
        // Only the op's cost is modelled, not its function: the values pass through.
        table.insert_or_assign(op.out, table.at(e->tensor));
        results.push_back(op.out);
      }
    }
  } catch (const Error& e) {
    run.values_match = false;
    run.values_note = std::string("functional run failed: ") + e.what();
    return;
  }
  std::string skipped;
  for (const auto& name : results) {
    const Values& v = table.at(name);
    if (!v.sharded.sharding().unreduced.empty()) {
      skipped += (skipped.empty() ? "" : ", ") + name;
      continue;
    }
    const Comparison comparison = compare(assemble(v.sharded), v.dense);
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
