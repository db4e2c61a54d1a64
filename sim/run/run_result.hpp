// What running a scenario produces, per plan: the time of every op by simulation (des) and by the closed forms
// (book), memory per chip by tensor and whether it fits, traffic per link, and the checks of `expect`; for a
// model-level scenario (docs/capacity.md, "`podsim run` of a model-level scenario") each plan's candidate figures as
// the plan search evaluates them. The report writers (sim/report) read these structs; nothing here knows JSON or
// SimGrid.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/common/bound.hpp"
#include "models/common/collective_kind.hpp"
#include "models/hardware/ici.hpp"
#include "models/topology/slice.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/run/memory_timeline.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// A buffer alive on the peak chip at the peak moment.
struct AliveBuffer {
  std::string what;  // `W1 gathered over X,Y`, `h`
  std::string op;    // the op that created it (empty: declared)
  std::uint64_t bytes = 0;
};

// An op that waited under the HBM-limited schedule.
struct OpWait {
  std::string op;
  std::string after;       // it started after this op ended
  double excess_at_s = 0;  // where memory exceeded HBM without the wait
  std::uint64_t excess_bytes = 0;
};

// Why an op's simulated time exceeds its closed form: other ops sharing its links while it ran.
struct Contention {
  std::vector<std::string> shared_with;    // ops whose transfers crossed the same links at overlapping times
  std::string busiest_shared_link;         // the shared link carrying the most bytes of this op
  std::uint64_t busiest_shared_bytes = 0;  // this op's bytes on it
};

// A collective an op runs (an explicit one, or one the matmul planner chose).
struct CollectiveRun {
  CollectiveKind kind = CollectiveKind::all_gather;
  std::string tensor;             // the tensor it moves
  std::vector<std::string> axes;  // mesh axes
  std::uint64_t array_bytes = 0;  // the book's V
  std::int64_t group_size = 1;
  std::string algorithm;  // as resolved per axis, comma-separated
  double book_time_s = 0;
  std::string reason;  // why the planner chose it (empty for explicit collectives)
};

// Where the critical chip's step went (docs/overlap-pipeline-dcn.md): seconds of the plan's des time, which they
// add up to. The critical chip is the one whose last task ends last (the lowest id among ties).
struct CriticalChipBreakdown {
  double compute_s = 0;                // the chip computes (any compute task of it runs)
  double exposed_communication_s = 0;  // it computes nothing while an ICI transfer it sends or receives is in flight
  double bubble_s = 0;                 // it computes nothing and none of its transfers is in flight: it waits on others
  double dcn_s = 0;                    // it computes nothing while only DCN transfers of it are in flight
};

struct OpRun {
  std::string name;     // the op's name in the program (`h`, `op3`)
  std::string kind;     // matmul, all_gather, reduce_scatter, all_reduce, all_to_all, reshard, load, send, elementwise
  std::string pointer;  // its JSON pointer in the scenario (`/program/2`)
  std::int32_t op_id = 0;     // Task::op of its tasks in the event graph
  double des_start_s = 0;     // first task start
  double des_end_s = 0;       // last task end
  double des_time_s = 0;      // des_end_s - des_start_s
  double book_time_s = 0;     // closed form: sum of its collectives' book times plus its compute roofline
  double compute_time_s = 0;  // roofline time of its local compute on one chip (0 for pure communication)
  double flops = 0;           // per chip
  // What dominates its book time (none for an op without steps).
  std::optional<Bound> bound;
  std::vector<CollectiveRun> collectives;
  std::uint64_t bytes_sent = 0;  // over all chips, from the simulation
  int matmul_case = 0;           // 1..4 for matmuls
  // Of des_time_s: the time during which the op's collectives or transfers were in flight on the plan's critical chip
  // and that chip computed nothing (docs/overlap-pipeline-dcn.md).
  double exposed_communication_s = 0;
  // Set when des_time_s exceeds book_time_s by more than 10%: who shared its links (empty shared_with: nobody,
  // the excess comes from the schedule itself).
  std::optional<Contention> contention;
  // An op of a model-level plan's step program (docs/capacity.md, "`podsim run` of a model-level scenario"): its
  // phase (forward, backward, or step: once per step, after the last backward), its place (layer, first with the
  // embedding, or last with the unembedding and the loss) and how many times one step runs it; its times are those
  // of one run. Empty, empty and 1 for an op-level run's op.
  std::string phase;
  std::string place;
  std::int64_t repeats = 1;
  // false: an op of a model-level plan that was not simulated (it does not fit HBM); des_time_s is then no figure.
  bool simulated = true;
};

struct TensorMemory {
  std::string name;
  std::vector<std::int64_t> local_shape;
  std::uint64_t bytes_per_device = 0;
  std::uint64_t total_bytes = 0;
  std::string sharding;    // as printed (book notation where it can, else Shardy)
  std::string written_by;  // the op that wrote this version (empty for a declared tensor)
  std::string view_of;     // a stand-in holding this tensor's bytes: no memory of its own (docs/scenario-format.md)
  bool transient = false;  // declared, but alive only while the steps that read it run
};

struct LinkLoad {
  std::string name;
  std::uint64_t bytes = 0;
  double busy_s = 0;
  double utilisation = 0;  // busy_s / plan time
};

struct CandidateTimeline;  // sim/capacity/candidate_timeline.hpp

struct PlanRun {
  std::string name;  // "default" when the scenario has no plans
  std::string description;
  std::vector<OpRun> ops;                        // in program order
  double des_time_s = 0;                         // makespan of the plan's event graph
  double book_time_s = 0;                        // sum of the ops' book times (no overlap assumed)
  std::vector<std::string> critical_path;        // op names along the simulated critical path
  std::int32_t critical_chip = 0;                // the chip whose last task ends last
  CriticalChipBreakdown step_breakdown;          // of des_time_s on critical_chip
  std::string schedule;                          // the scheduling policy (program-order, dataflow, dataflow-hbm)
  std::vector<OpWait> waits;                     // dataflow-hbm: the waits it added to fit HBM
  int simulations = 0;                           // simulations run to schedule the plan
  bool schedule_exhausted = false;               // dataflow-hbm reached its limit of waits, still over HBM
  std::vector<TensorMemory> memory;              // every tensor version (declared and results)
  std::uint64_t memory_per_chip_bytes = 0;       // peak over chips and simulated time
  double peak_time_s = 0;                        // when the peak is first reached
  std::int32_t peak_chip = 0;                    // on which chip
  std::vector<AliveBuffer> alive_at_peak;        // what is alive then, largest first
  std::uint64_t book_memory_per_chip_bytes = 0;  // peak of the closed form: ops one after another at book times
  std::uint64_t hbm_bytes = 0;                   // capacity per chip
  bool fits_hbm = true;
  std::uint64_t vmem_working_set_bytes = 0;  // largest single op's operands + result per chip
  std::uint64_t vmem_bytes = 0;
  bool fits_vmem = true;
  std::uint64_t max_link_bytes = 0;
  std::uint64_t total_link_bytes = 0;
  std::string busiest_link;
  double max_link_utilisation = 0;
  std::uint64_t messages = 0;
  std::vector<LinkLoad> links;  // per directed link id
  // For traces: the event graph and its timings (task.op indexes ops).
  std::shared_ptr<const EventGraph> graph;
  std::shared_ptr<const SimulationResult> simulation;
  std::shared_ptr<const MemoryTimeline> memory_timeline;  // per chip memory over simulated time
  // Functional mode: the plan computed the dense reference's values (nullopt when not run).
  std::optional<bool> values_match;
  std::string values_note;
  // A model-level plan (ScenarioRun::level model): its candidate as the plan search evaluates it (book and, when it
  // fits HBM, des step, breakdown, memory by kind, MFU; prepared let go once the op rows are made). Of the fields
  // above it then sets ops (the expanded step program's, OpRun::phase...simulated), book_time_s and des_time_s (the
  // step's; des 0 when not simulated), step_breakdown (the step time in force split, model_step_breakdown),
  // schedule (program-order), memory_per_chip_bytes, hbm_bytes and fits_hbm; the others stay empty.
  std::optional<CandidateResult> candidate;
  // With RunOptions::keep_timeline and once simulated: the candidate's simulated step, for its Chrome trace.
  std::shared_ptr<const CandidateTimeline> candidate_timeline;
  // What plans are ranked by: the des makespan, or a model-level plan's step time in force (des when simulated, else
  // book).
  double step_time_s() const { return candidate ? candidate->step_s() : des_time_s; }
};

// A figure an `expect` entry names: a number, a yes/no, or a shape.
using CheckValue = std::variant<double, bool, std::vector<std::int64_t>>;

// One `expect` entry, evaluated (of either kind of scenario: sim/run/checks.hpp, sim/capacity/candidate_checks.hpp).
struct CheckResult {
  std::string description;  // e.g. `fsdp: op h time_s (des)`
  std::string pointer;      // `/expect/3`
  CheckValue value, target;
  double rel_tol = 0, abs_tol = 0;
  bool passed = false;
  std::string source;
};

// An op-level scenario's run (run_scenario) or a model-level one's (run_model_scenario, sim/capacity/model_run.hpp).
enum class RunLevel { op, model };

struct ScenarioRun {
  RunLevel level = RunLevel::op;
  std::string name;
  std::string description;
  std::string file;
  std::string hardware;
  // The des simulated the hardware's calibration (docs/hardware-model.md, "Calibration"): its source; empty when
  // uncalibrated.
  std::string calibration_source;
  bool calibrated = false;
  std::vector<std::int64_t> slice_shape;
  std::vector<bool> wraparound;
  std::shared_ptr<const Slice> slice;
  bool cube_generation =
      false;     // the hardware builds slices of 4x4x4 cubes (the whole_cubes rule): reports outline them
  IciModel ici;  // the scenario's ICI figures (link bandwidth per direction, hop latency)
  std::vector<PlanRun> plans;
  std::vector<CheckResult> checks;
  // A model-level run's scenario (its model and workload), for the reports; null for an op-level run.
  std::shared_ptr<const ScenarioSpec> spec;
  bool checks_passed() const {
    for (const auto& check : checks)
      if (!check.passed) return false;
    return true;
  }
};

}  // namespace podsim
