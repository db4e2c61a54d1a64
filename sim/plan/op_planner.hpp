// The planner behind plan_program (program_planner.hpp): one scenario plan planned op by op, each decision made once
// with its closed form and its buffers. Internal to sim/plan; its members are defined by role in program_planner.cpp
// (buffers, loads, sends, elementwise ops), op_planner_collectives.cpp and op_planner_matmul.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/hardware/roofline.hpp"
#include "models/plan/matmul_plan.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/plan/planned_program.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// One plan of one scenario planned into a PlannedProgram; run() once per planner.
class OpPlanner {
 public:
  OpPlanner(const ScenarioSpec& spec, const PlanTopology& topology, const ScenarioPlan* plan)
      : spec_(spec), topology_(topology), plan_(plan) {}

  // The planned program of the scenario plan: its buffers, then its ops in program order.
  PlannedProgram run();

 private:
  enum class Loop { none, gather, scatter };

  // The ring of a collective matmul over `axis`: every group's chip at position j sends to position j - 1 (mod N),
  // as the book's loop does; `hops` is the longest such send (a line's wrap pair crosses N - 1 links).
  struct Ring {
    int size = 0;
    int hops = 1;
    std::vector<std::vector<std::pair<ChipId, ChipId>>> sends;
  };

  [[noreturn]] void fail(const ScenarioOp& op, const std::string& message) const {
    throw InputError(spec_.source_file + ": " + op.pointer, (plan_ ? "plan " + plan_->name + ": " : "") + message);
  }

  const Mesh& mesh() const { return spec_.mesh.mesh; }

  const IciModel& ici() const { return spec_.hardware.spec.ici; }

  const PlannedBuffer& buffer(int id) const { return program_.buffers[static_cast<std::size_t>(id)]; }

  std::int32_t total_chips() const { return static_cast<std::int32_t>(topology_.slice.num_chips() * topology_.slices); }

  static std::vector<std::string> axis_names(const std::vector<AxisRef>& axes) {
    std::vector<std::string> names;
    for (const auto& axis : axes)
      names.push_back(axis.name);
    return names;
  }

  // Buffers and the simple ops (program_planner.cpp).
  int add_buffer(PlannedBuffer::Role role, std::string tensor, std::string what, Shape shape, DType dtype,
                 TensorSharding sharding, std::vector<std::string> labels, int op);
  // Appends `step` to `op`, recording it as the last reader of what it reads and the creator of what it writes.
  void push(PlannedOp& op, PlannedStep step);
  // Step `step` of op `op` reads buffer `b`: it is that buffer's last reader so far (and a transient input's first,
  // when none read it before). Declared tensors other than transient ones are the model's state, kept throughout.
  void mark_read(int b, int op, int step);
  int result_buffer(const ScenarioOp& op, const PlannedOp& planned, TensorSharding sharding,
                    std::vector<std::string> labels);
  std::vector<std::string> input_labels(const ScenarioOp& op) const;
  void plan(const ScenarioOp&, const LoadOp&, PlannedOp& planned);
  void plan(const ScenarioOp& op, const SendOp& send, PlannedOp& planned);
  void plan(const ScenarioOp& op, const ElementwiseOp& e, PlannedOp& planned);
  // The VMEM working set of a compute op: what its compute step reads and writes, per chip.
  void note_working_set(const PlannedOp& planned);

  // Collectives and reshards (op_planner_collectives.cpp).
  void require_links(const ScenarioOp& op) const;
  // One collective step: `pc` on the buffer `from`, creating the buffer `into`. `run_axes` are the mesh axes in the
  // order the collective runs them (an explicit collective's listed order; else the planner's).
  PlannedStep collective_step(const ScenarioOp& op, const PlannedCollective& pc, std::vector<std::string> run_axes,
                              int from, int into) const;
  // The book's cost of a collective: over one slice's axes, or hierarchical when an axis runs over the slices.
  CostBreakdown book_cost(const PlannedCollective& pc, const std::vector<std::string>& names) const;
  // The groups of a mesh axis, computed and verified once per plan (a slice of 4096 chips has 4096 entries per
  // axis). Throws VerifyError when they do not partition the chips into equal groups.
  const AxisGroups& groups_of(const std::string& axis) const;
  // Runs `list` on the buffer `from`, each collective creating a buffer; the last one creates `final`
  // (or a temporary when `final` < 0). Returns the buffer the lane ends with.
  int collectives(const ScenarioOp& op, PlannedOp& planned, const std::vector<PlannedCollective>& list, int from,
                  int final);
  // The tensor a reshard leads to, through plan_resharding's collectives (local slices only: a step without
  // communication or time that creates the result).
  void reshard(const ScenarioOp& op, PlannedOp& planned, const TensorSharding& to);
  std::vector<PlannedCollective> resharding(const ScenarioOp& op, const PlannedBuffer& in,
                                            const TensorSharding& to) const;
  // An explicit collective is one collective over all its axes in the listed order, as the book writes
  // AllGather_XY: V is the array a device holds once gathered (all-gather, all-to-all: bytes per device x group) or
  // reduces (the local array). On values it is plan_resharding's moves to the same target.
  void plan(const ScenarioOp& op, const CollectiveOp& c, PlannedOp& planned);
  void plan(const ScenarioOp& op, const ReshardOp& r, PlannedOp& planned) { reshard(op, planned, r.to.sharding()); }

  // Matmuls and collective matmuls (op_planner_matmul.cpp).
  void plan(const ScenarioOp& op, const MatmulOp& mm, PlannedOp& planned);
  static bool loopable(const PlannedCollective& pc, CollectiveKind kind);
  // Whether the matmul runs as a collective matmul, and which: asked by the op or the plan, it all-gathers exactly
  // one operand over one mesh axis (and nothing else before the matmul), or it gathers nothing and reduce-scatters
  // its result over one mesh axis (and nothing else after). Asked by the op of a matmul that does neither, an error
  // naming the rule; asked by the plan, matmuls that neither gather an operand nor reduce-scatter their result are
  // left as they are, and a gather or scatter it cannot loop over is an error.
  Loop wants_collective_matmul(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp) const;
  Ring ring_of(const std::string& axis) const;
  // One permute step of the loop: `bytes` per chip, one hop along `ring`.
  PlannedStep hop_step(const ScenarioOp& op, const Ring& ring, std::uint64_t bytes, const PlannedBuffer& of) const;
  // The roofline of one block's matmul: the local matmul with `label`'s size divided by N (its k when `label` is
  // contracted, else its m or n).
  MatmulRoofline block_roofline(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, char label, int n,
                                DType in) const;
  PlannedStep block_step(const PlannedStep& whole, const MatmulRoofline& roofline, int n) const;
  // The matmul's gather and compute as a collective matmul (CollectiveMatmulLoop): `whole` is the compute step the
  // matmul would run after the gather (its reads, its product, its roofline terms).
  void gather_loop(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, PlannedOp& planned,
                   const PlannedStep& whole);
  // The matmul's compute and the reduce-scatter of its result as a collective matmul: step i computes the block of
  // the result that is i + 1 hops from its owner, adds the partial block it received, and passes the sum on; the
  // last step's sum is the chip's own block. `whole` is the compute step the matmul would run before the scatter,
  // here writing the result.
  void scatter_loop(const ScenarioOp& op, const MatmulOp& mm, const MatmulPlan& mp, PlannedOp& planned,
                    const PlannedStep& whole);

  const ScenarioSpec& spec_;
  const PlanTopology& topology_;
  const ScenarioPlan* plan_;
  PlannedProgram program_;
  std::map<std::string, int> current_;                // tensor name -> buffer of its current version
  std::map<std::string, int> index_of_;               // op name -> index
  mutable std::map<std::string, AxisGroups> groups_;  // mesh axis -> its groups (groups_of)
};

}  // namespace podsim
