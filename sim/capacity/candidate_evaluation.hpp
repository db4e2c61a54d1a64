// Evaluating one capacity-planning candidate (docs/capacity.md): the model's step expands into a planned program on
// the candidate's slice and mesh, with shardings derived from its parallelism, and is timed by the closed form
// (fast, for screening) or by the simulation (SimGrid, in a child process).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/capacity/candidate_timeline.hpp"
#include "sim/capacity/des_memory_gate.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/planned_program.hpp"
#include "sim/run/candidate_result.hpp"
#include "sim/run/program_simulation.hpp"
#include "sim/scenario/model_preset.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

// What every candidate of one study shares.
struct CapacityProblem {
  ModelPreset model;
  Workload workload;
  ScenarioOptions options;
  std::optional<double> price_per_chip_hour;  // the scenario's price as a number; read through candidate_price
  std::vector<std::pair<std::string, double>> price_per_preset;  // or as an object keyed by preset
  std::optional<GoalSpec> goal;                                  // a training goal (docs/capacity.md, "Goals")
  std::optional<ReliabilitySpec> reliability;                    // set with a goal
  std::string source_file;                                       // for messages
  ProgramSimulationOptions simulation;  // the symmetry paths simulate_candidate may take (all, by default)
};

// The scenario's model, workload, options and price. Throws VerifyError when the scenario has no model, and
// InputError at /workload/mode for a serving scenario (mode "serve": its answers are a serving run's, not a step's).
CapacityProblem capacity_problem(const ScenarioSpec& spec);
// The same for any model-level scenario, a serving one included (then the workload is its step's, mode decode): what
// a serving run's step model is built from.
CapacityProblem step_problem(const ScenarioSpec& spec);

// USD per chip-hour of the candidate's hardware (docs/capacity.md, "Prices per preset"): the scenario's price for its
// preset, or its one price; nullopt when the scenario gives none. The one place a candidate's price is read.
std::optional<double> candidate_price(const CapacityProblem& problem, const Candidate& candidate);

// The candidate's step program (expand_model) with the problem's workload and options; the planner's errors on it
// name the problem's scenario file.
ModelProgram expand_candidate(const CapacityProblem& problem, const Candidate& candidate);

// A candidate made ready once for every evaluation of it: its step program (expand_candidate) and that program planned
// for the closed form (PlanTopology::book_only: each collective's figures, not its chip groups).
struct PreparedCandidate {
  ModelProgram model;
  PlannedProgram book_program;
};

// The closed form: the sum of the ops' book times x repeats or, with pipeline axes, the stages' schedule (its span by
// recurrence plus the longest tail; `pipeline` set, docs/overlap-pipeline-dcn.md). A candidate that cannot be planned
// (a dim that does not divide the axes assigned to it, a sharding rule broken) comes back with `rejected` set, never as
// an exception; one that does not fit HBM comes back with fits_hbm false and `rejected` saying by how many bytes.
// The result keeps what it made of the candidate (`prepared`) for simulate_candidate and the op rows.
CandidateResult evaluate_candidate_book(const CapacityProblem& problem, const Candidate& candidate);

// How many of a step's layers the des runs in sequence for a candidate without pipeline stages (docs/capacity.md,
// "Overlap in the step"): the first `layers_in_sequence` (at most the model's), then one more, the others at the
// steady state that one more layer adds. 2 is enough (tests/capacity/layers_in_sequence_test.cpp runs every layer and
// gets the same step).
struct CandidateSimulation {
  std::int64_t layers_in_sequence = 2;
  // When several candidates are simulated at once (the plan search's threads): each event graph waits for its
  // memory, count_lowered_tasks x kDesBytesPerTask, before it is built. Null: no wait.
  DesMemoryGate* memory = nullptr;
  // Runs the two stretches of layers (layers_in_sequence, then one more) on two threads, for a caller with a core to
  // spare (the plan search's last candidates); the figures are those of one thread.
  bool stretches_at_once = false;
};

// Simulates the candidate's step on SimGrid in a child process and sets des_step_s and the figures derived from it.
// Without pipeline axes: its layers in sequence under dataflow-hbm (des_breakdown, des_op_s from the first layer). With
// pipeline axes: the layer program once in program order, then the stages' schedule as an event graph in a second
// child (the pipeline's des span and bubble). The result must come from evaluate_candidate_book and not be rejected.
// With `timeline`, also keeps the simulated timelines there (for the trace). Throws Error when the simulation fails.
void simulate_candidate(const CapacityProblem& problem, CandidateResult& result, CandidateTimeline* timeline = nullptr,
                        const CandidateSimulation& how = {});

}  // namespace podsim
