// Plan search: the candidates a scenario's `search` section (or its parallelism plans) allows, screened by the
// closed form, the best simulated, ranked. Each candidate is timed in isolation, so one that cannot be planned or
// simulated is listed with its reason and never stops the search.
#include "sim/capacity/plan_search.hpp"
#include "models/hardware/hbm_fit.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>

#include "models/common/error.hpp"
#include "models/model/parallel_fit.hpp"
#include "models/model/transformer.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/slice_shapes.hpp"
#include "models/topology/twist.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/capacity/des_memory_gate.hpp"
#include "sim/capacity/goal_evaluation.hpp"
#include "sim/capacity/plan_candidate.hpp"
#include "sim/engine/fork_runner.hpp"

namespace podsim {
namespace {

// `FILE: /pointer`, as the scenario verifier locates its errors.
std::string located(const ScenarioSpec& spec, const std::string& pointer) {
  return spec.source_file.empty() ? pointer : spec.source_file + ": " + pointer;
}

std::string shape_string(const Shape& shape) {
  std::string text;
  for (const auto dim : shape)
    text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

// The slice's wraparound on `hardware`: the same resolution (and the same Slice limits) the scenario verifier applies.
// The scenario's own slice takes its wraparound choice as written; a searched slice takes the preset's rule or the
// scenario's "none" or "all" (a per-dim list belongs to the scenario's own slice). Throws Error.
std::vector<bool> slice_wraparound(const ScenarioSpec& spec, const HardwarePreset& hardware, const Shape& shape,
                                   bool own_slice) {
  WrapChoice choice = spec.wrap.value_or(WrapChoice{});
  if (!own_slice && choice.mode == WrapMode::listed) choice = WrapChoice{};
  const std::vector<bool> wrap = resolve_wraparound(choice, shape, hardware.spec.wrap_rule, hardware.spec.pod_shape);
  return Slice(shape, wrap).wraparound();
}

// Every assignment of one of `kinds` to each mesh axis of size > 1 (axes of size 1 carry no parallelism and stay
// unassigned), the first axis varying slowest. `kinds` holds no repeats, so no two assignments are equal.
std::vector<Parallelism> assignments(const Mesh& mesh, const std::vector<ParallelKind>& kinds) {
  std::vector<std::size_t> axes;  // indices of the axes to assign
  for (std::size_t a = 0; a < mesh.axes.size(); ++a)
    if (mesh.axes[a].size > 1) axes.push_back(a);
  std::vector<Parallelism> out;
  if (kinds.empty()) return out;
  std::vector<std::size_t> choice(axes.size(), 0);  // an odometer over kinds, one digit per assigned axis
  while (true) {
    Parallelism p;
    for (std::size_t i = 0; i < axes.size(); ++i)
      p.of(kinds[choice[i]]).push_back(mesh.axes[axes[i]].name);
    out.push_back(std::move(p));
    std::size_t digit = axes.size();
    while (digit > 0 && ++choice[digit - 1] == kinds.size())
      choice[--digit] = 0;
    if (digit == 0) return out;
  }
}

std::vector<ParallelKind> distinct(const std::vector<ParallelKind>& kinds) {
  std::vector<ParallelKind> out;
  for (const auto kind : kinds)
    if (std::find(out.begin(), out.end(), kind) == out.end()) out.push_back(kind);
  return out;
}

// Every slice count with every twist choice (search.twist; docs/topology.md, "Twisted tori"), counts outermost.
std::vector<std::pair<std::int32_t, bool>> slice_choices(const std::vector<std::int32_t>& counts,
                                                         const std::vector<bool>& twists) {
  std::vector<std::pair<std::int32_t, bool>> out;
  for (const std::int32_t count : counts)
    for (const bool twist : twists)
      if (std::find(out.begin(), out.end(), std::make_pair(count, twist)) == out.end()) out.emplace_back(count, twist);
  return out;
}

// `slice` (`4x4`), or `2 x 4x4` for several slices.
std::string slice_text(const Shape& shape, std::int32_t count) {
  return count > 1 ? std::to_string(count) + " x " + shape_string(shape) : "slice " + shape_string(shape);
}

// The mesh of `base`: the scenario's own (its slice and count as written), else the slice's default, or the
// scenario's mesh on one slice when its slice is the one searched; with several slices, the slice axis
// kSliceAxisName = base.slices first, over no slice dim.
ScenarioMesh searched_mesh(const ScenarioSpec& spec, const Candidate& base, bool own_slice) {
  if (own_slice && base.slices == spec.slice_count) return spec.mesh;
  ScenarioMesh mesh;
  mesh.name = own_slice && !spec.mesh.name.empty() ? spec.mesh.name : std::string(kDefaultMeshName);
  if (own_slice) {
    auto [in_slice, dims] = spec.in_slice_mesh();
    mesh.mesh = std::move(in_slice);
    mesh.axis_dims = std::move(dims);
  } else {
    mesh.mesh = default_mesh(Slice(base.slice, base.wraparound));
    mesh.axis_dims = in_order_axis_dims(mesh.mesh.axes.size(), static_cast<int>(base.slice.size()));
  }
  if (base.slices > 1) {
    mesh.mesh.axes.insert(mesh.mesh.axes.begin(), MeshAxis{kSliceAxisName, base.slices});
    mesh.axis_dims.insert(mesh.axis_dims.begin(), std::vector<int>{});
  }
  return mesh;
}

void add_assignments(const Candidate& base, const std::vector<ParallelKind>& kinds,
                     const std::vector<std::int64_t>& microbatches, const std::vector<Remat>& remats, Enumeration& out);

// a x b, or the largest 64-bit count when it would not fit.
std::uint64_t saturated_product(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max()
                                                                     : a * b;
}

// The candidates of one base: kinds ^ (its mesh axes of size > 1) x microbatches x remats (the assignments are
// counted, not made), saturated.
std::uint64_t base_candidates(const Candidate& base, std::size_t kinds, std::size_t microbatches, std::size_t remats) {
  std::uint64_t count = saturated_product(microbatches, remats);
  for (const MeshAxis& axis : base.mesh.mesh.axes)
    if (axis.size > 1) count = saturated_product(count, kinds);
  return count;
}

std::string thousands(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The slice shapes searched on `preset`: its entry of `slices` keyed by preset, else `slices`, else the scenario's own
// slice, else (a goal's search) the shapes the preset offers. `enumerated` says the last.
struct SearchedShapes {
  std::vector<Shape> shapes;
  bool own_slice = false;
  bool enumerated = false;
};

SearchedShapes searched_shapes(const ScenarioSpec& spec, const SearchSpec& search, const HardwarePreset& preset) {
  SearchedShapes out;
  for (const auto& [name, shapes] : search.slices_by_preset)
    if (name == preset.name) out.shapes = shapes;
  if (!search.slices_by_preset.empty()) return out;
  if (!search.slices.empty()) {
    out.shapes = search.slices;
  } else if (!spec.slice_shape.empty()) {
    out.shapes = {spec.slice_shape};
    out.own_slice = true;
  } else {
    out.shapes = offered_slice_shapes(preset.spec.wrap_rule, preset.spec.pod_shape);
    out.enumerated = true;
  }
  return out;
}

// Why an enumerated (preset, shape, count) cannot answer the goal, before any of its candidates is made
// (docs/capacity.md, "Slices chosen for a goal"): more chips than a slice group may have or than the goal's
// max_chips; or HBM too small for the training state even spread evenly over every chip (parameters, gradients and
// optimizer state over chips: no assignment holds less per chip). nullopt when it may.
std::optional<std::string> goal_pruning(const ScenarioSpec& spec, const Candidate& base) {
  const auto chips = static_cast<std::uint64_t>(base.chips());
  if (chips > static_cast<std::uint64_t>(kMaxSliceChips))
    return std::to_string(chips) + " chips, more than " + std::to_string(kMaxSliceChips) + " in all";
  if (spec.goal && spec.goal->max_chips && chips > static_cast<std::uint64_t>(*spec.goal->max_chips))
    return std::to_string(chips) + " chips, more than the goal's max_chips (" + std::to_string(*spec.goal->max_chips) +
           ")";
  if (!spec.model || !spec.workload || spec.workload->mode != WorkloadMode::train) return std::nullopt;
  const TrainingState state = training_state_bytes(spec.model->dims, spec.workload->training_setup());
  const std::uint64_t needed = state.params + state.grads + state.optimizer;
  // needed > HBM x chips, without the product: the even share per chip, rounded up, exceeds one chip's HBM.
  if (chips > 0 && !fits_hbm(needed / chips + (needed % chips != 0 ? 1 : 0), base.hardware.spec.chip.hbm_bytes))
    return "the training state (parameters, gradients, optimizer: " + std::to_string(needed) +
           " bytes) exceeds the HBM of all " + std::to_string(chips) + " chips (" +
           std::to_string(base.hardware.spec.chip.hbm_bytes) + " bytes each) under any assignment";
  return std::nullopt;
}

// The searched candidates: hardware x slice x slice count x assignment x microbatches x remat, in that nesting.
// Counted before any is made: more than kMaxSearchCandidates is refused at /search with the count.
Enumeration enumerate_searched(const ScenarioSpec& spec, const SearchSpec& search) {
  Enumeration out;
  const Workload workload = spec.workload.value_or(Workload{});
  const bool train = workload.mode == WorkloadMode::train;
  const std::vector<HardwarePreset> hardware =
      search.hardware.empty() ? std::vector<HardwarePreset>{spec.hardware} : search.hardware;
  const std::vector<std::int64_t> microbatches =
      train && !search.microbatches.empty() ? search.microbatches : std::vector<std::int64_t>{workload.microbatches};
  const std::vector<Remat> remats = train && !search.remat.empty() ? search.remat : std::vector<Remat>{workload.remat};
  const std::vector<std::int32_t> counts =
      search.slice_counts.empty() ? std::vector<std::int32_t>{spec.slice_count} : search.slice_counts;
  const std::vector<bool> twists = search.twist.empty() ? std::vector<bool>{spec.twist} : search.twist;
  const std::vector<ParallelKind> kinds = distinct(search.kinds);
  std::vector<Candidate> bases;
  std::uint64_t total = 0;
  for (const HardwarePreset& preset : hardware) {
    const SearchedShapes searched = searched_shapes(spec, search, preset);
    for (const Shape& shape : searched.shapes) {
      for (const auto& choice : slice_choices(counts, twists)) {
        const std::int32_t count = choice.first;
        const bool twist = choice.second;
        Candidate base;
        base.hardware = preset;
        base.slice = shape;
        base.slices = count;
        base.twist = twist;
        // The workload's, as a slice rejected before its assignments shows them (not a remat of "none" that would
        // make the table's remat column look searched).
        base.microbatches = workload.microbatches;
        base.remat = workload.remat;
        if (count > 1) {
          base.dcn_bandwidth_Bps = spec.dcn_bandwidth_Bps;
          base.dcn_latency_s = spec.dcn_latency_s;
        }
        try {
          base.wraparound = slice_wraparound(spec, preset, shape, searched.own_slice);
          if (twist)
            if (const auto issue = preset_twist_issue(preset.spec.twist, preset.name, shape, base.wraparound))
              throw InputError("", *issue);
          if (count > 1 && !(base.dcn_bandwidth_Bps.value_or(preset.spec.dcn_bandwidth_Bps) > 0))
            throw InputError("", "several slices need a DCN bandwidth per chip, got: none");
        } catch (const std::bad_alloc&) {
          throw;  // the machine's memory, not the candidate's answer (issue 33, class 2)
        } catch (const std::exception& e) {
          CandidateResult rejected;
          rejected.candidate = base;
          rejected.rejected = slice_text(shape, count) + " cannot be formed on " + preset.name + ": " + e.what();
          out.unformable.push_back(std::move(rejected));
          continue;
        }
        if (const auto reason = searched.enumerated ? goal_pruning(spec, base) : std::nullopt) {
          CandidateResult rejected;
          rejected.candidate = base;
          rejected.rejected = slice_text(shape, count) + " on " + preset.name + ", pruned before screening: " + *reason;
          out.unformable.push_back(std::move(rejected));
          continue;
        }
        base.mesh = searched_mesh(spec, base, searched.own_slice);
        const std::uint64_t more = base_candidates(base, kinds.size(), microbatches.size(), remats.size());
        total = more > std::numeric_limits<std::uint64_t>::max() - total ? std::numeric_limits<std::uint64_t>::max()
                                                                         : total + more;
        bases.push_back(std::move(base));
      }
    }
  }
  if (total > kMaxSearchCandidates)
    throw InputError(located(spec, search.pointer.empty() ? "/search" : search.pointer),
                     "the search allows up to " + thousands(total) + " candidates, more than the limit of " +
                         thousands(kMaxSearchCandidates) + " (" + std::to_string(bases.size()) +
                         " slice shapes and counts x " + std::to_string(kinds.size()) + " kinds on each mesh axis x " +
                         std::to_string(microbatches.size()) + " microbatch counts x " + std::to_string(remats.size()) +
                         " remat policies; docs/reliability.md, \"Limits that protect the machine\"): search "
                         "fewer slices, kinds, microbatch counts or policies at once");
  for (const Candidate& base : bases)
    add_assignments(base, kinds, microbatches, remats, out);
  return out;
}

// The candidates of `base` (its hardware, slices and mesh): every assignment of `kinds` to its mesh axes (with
// several slices, those whose slice axis carries data, fsdp or pipeline) x microbatches x remat.
void add_assignments(const Candidate& base, const std::vector<ParallelKind>& kinds,
                     const std::vector<std::int64_t>& microbatches, const std::vector<Remat>& remats,
                     Enumeration& out) {
  for (Parallelism& parallelism : assignments(base.mesh.mesh, kinds)) {
    if (base.slices > 1 && slice_axis_issue(parallelism, kSliceAxisName)) continue;
    for (const auto count : microbatches) {
      for (const Remat& remat : remats) {
        Candidate candidate = base;
        candidate.parallelism = parallelism;
        candidate.microbatches = count;
        candidate.remat = remat;
        out.candidates.push_back(std::move(candidate));
      }
    }
  }
}

// Without a search section: the scenario's parallelism plans on its own hardware, slice and mesh.
Enumeration enumerate_plans(const ScenarioSpec& spec) {
  Enumeration out;
  for (const ScenarioPlan& plan : spec.plans)
    if (plan.parallelism) out.candidates.push_back(plan_candidate(spec, plan));
  return out;
}

// Whether the mesh is the slice's default: axis i covers dim i alone, with its size.
bool default_layout(const Candidate& c) {
  const auto& axes = c.mesh.mesh.axes;
  if (axes.size() != c.slice.size() || c.wraparound.size() != c.slice.size()) return false;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].size != c.slice[i]) return false;
    if (!c.mesh.axis_dims.empty() && c.mesh.axis_dims[i] != std::vector<int>{static_cast<int>(i)}) return false;
  }
  return true;
}

// Calls `visit` with `parallelism` (on c's mesh) renamed by each permutation of c's slice dims that maps the slice
// onto itself (dims of equal size and wraparound), the identity first, until `visit` returns true; returns whether one
// did. False as well when the parallelism names an axis not on the mesh.
template <typename Visit>
bool each_symmetry(const Candidate& c, const Parallelism& parallelism, Visit visit) {
  const auto& axes = c.mesh.mesh.axes;
  std::vector<std::size_t> perm(axes.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    perm[i] = i;
  do {
    bool symmetric = true;
    for (std::size_t i = 0; i < perm.size() && symmetric; ++i)
      symmetric = c.slice[i] == c.slice[perm[i]] && c.wraparound[i] == c.wraparound[perm[i]];
    if (!symmetric) continue;
    Parallelism renamed = parallelism;
    for (auto& kind_axes : renamed.axes)
      for (auto& name : kind_axes) {
        const auto index = c.mesh.mesh.axis_index(name);
        if (!index) return false;
        name = axes[perm[*index]].name;
      }
    if (visit(renamed)) return true;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return false;
}

// Whether `b` is `a` with mesh axes of equal size and wraparound swapped (fsdp=X tensor=Y and fsdp=Y tensor=X on a
// 16x16 slice): a permutation of such dims maps the slice onto itself, link for link (ICI links are alike in every
// dim), and the one program onto the other, so both have the same times and memory.
bool mirror_images(const Candidate& a, const Candidate& b) {
  if (a.hardware.name != b.hardware.name || a.slice != b.slice || a.slices != b.slices ||
      a.wraparound != b.wraparound || a.twist != b.twist || a.microbatches != b.microbatches || !(a.remat == b.remat) ||
      !a.plan.empty() || !b.plan.empty() || !default_layout(a) || !default_layout(b) || !(a.mesh.mesh == b.mesh.mesh))
    return false;
  return each_symmetry(a, b.parallelism,
                       [&](const Parallelism& renamed) { return renamed.axes == a.parallelism.axes; });
}

// What mirror images share: the hardware, slice and microbatches, and the parallelism renamed by the slice's
// symmetry that reads least. Empty for a candidate that has no mirror (a plan of the scenario, a mesh of its own).
// Equal keys are a necessary condition; mirror_images decides.
std::string mirror_key(const Candidate& c) {
  if (!c.plan.empty() || !default_layout(c)) return "";
  std::string least;
  each_symmetry(c, c.parallelism, [&](const Parallelism& renamed) {
    const std::string text = renamed.to_string();
    if (least.empty() || text < least) least = text;
    return false;
  });
  if (least.empty()) return "";  // an axis not on the mesh
  return c.hardware.name + "|" + shape_string(c.slice) + (c.twist ? " twisted" : "") + "|" + std::to_string(c.slices) +
         "|" + std::to_string(c.microbatches) + "|" + least;
}

// Folds each mirror image into the first of its class in `results` (its parallelism joins that one's `mirrors`):
// both have the same figures, book and des, so one row stands for the class (docs/capacity.md, "Mirror images").
void fold_mirrors(std::vector<CandidateResult>& results) {
  std::unordered_map<std::string, std::vector<std::size_t>> classes;  // key -> the representatives' positions
  std::vector<CandidateResult> kept;
  kept.reserve(results.size());
  for (CandidateResult& r : results) {
    const std::string key = mirror_key(r.candidate);
    if (!key.empty()) {
      std::vector<std::size_t>& representatives = classes[key];
      const auto twin = std::find_if(representatives.begin(), representatives.end(),
                                     [&](std::size_t k) { return mirror_images(kept[k].candidate, r.candidate); });
      if (twin != representatives.end()) {
        kept[*twin].mirrors.push_back(std::move(r.candidate.parallelism));
        continue;
      }
      representatives.push_back(kept.size());
    }
    kept.push_back(std::move(r));
  }
  results = std::move(kept);
}

double seconds_since(std::chrono::steady_clock::time_point began) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

// At most this many screened candidates keep their prepared programs until the best K are simulated (memory).
constexpr std::size_t kKeepPreparedCandidates = 256;

// The closed form of one candidate; an exception becomes the rejection's reason.
CandidateResult screened(const CapacityProblem& problem, const Candidate& candidate) {
  try {
    CandidateResult result = evaluate_candidate_book(problem, candidate);
    if (!result.fits_hbm && !result.rejected)
      result.rejected = "does not fit HBM: " + std::to_string(result.memory_per_chip_bytes) + " bytes per chip of " +
                        std::to_string(result.hbm_bytes);
    return result;
  } catch (const std::bad_alloc&) {
    throw;  // the machine's memory, not the candidate's answer (issue 33, class 2)
  } catch (const std::exception& e) {
    CandidateResult result;
    result.candidate = candidate;
    result.rejected = e.what();
    return result;
  }
}

// One candidate's des; a failure becomes its des_failed (it keeps its book rank).
void simulate_one(const CapacityProblem& problem, CandidateResult& result, DesMemoryGate* memory,
                  bool stretches_at_once) {
  try {
    CandidateSimulation how;
    how.memory = memory;
    how.stretches_at_once = stretches_at_once;
    simulate_candidate(problem, result, nullptr, how);
  } catch (const std::bad_alloc&) {
    throw;  // the machine's memory, not the candidate's answer (issue 33, class 2)
  } catch (const std::exception& e) {
    result.des_step_s.reset();
    result.des_failed = e.what();
  }
}

// Simulates fitting[i] for every i of `picked`, on up to `threads` threads (this one and threads - 1 more), each
// graph's memory through `memory` (null with one thread); with fewer candidates than threads, each runs its two
// stretches of layers at once. Each candidate's result is the one a single thread gives:
// the simulations share nothing but the gate. Once all have ended, rethrows the first exception (by position in
// `picked`) that is not the candidate's (std::bad_alloc).
void simulate_all(const CapacityProblem& problem, std::vector<CandidateResult>& fitting,
                  const std::vector<std::size_t>& picked, std::size_t threads, DesMemoryGate* memory) {
  const bool spare = picked.size() < threads;  // a core for each candidate's second stretch
  engine::for_each_on_threads(picked.size(), threads,
                              [&](std::size_t k) { simulate_one(problem, fitting[picked[k]], memory, spare); });
}

}  // namespace

Enumeration enumerate_search(const ScenarioSpec& spec) {
  Enumeration out = spec.search ? enumerate_searched(spec, *spec.search) : enumerate_plans(spec);
  if (out.candidates.empty() && out.unformable.empty()) {
    if (spec.search)
      throw InputError(located(spec, spec.search->pointer.empty() ? "/search" : spec.search->pointer),
                       "the search allows no candidate (give \"parallelism\" at least one kind), got: none");
    throw InputError(located(spec, "/plans"),
                     "nothing to plan: give a \"search\" section or plans with a \"parallelism\", got: none");
  }
  return out;
}

std::vector<Candidate> enumerate_candidates(const ScenarioSpec& spec) {
  return enumerate_search(spec).candidates;
}

PlanSearchResult search_plans(const ScenarioSpec& spec, const PlanSearchOptions& options) {
  if (!spec.model)
    throw InputError(located(spec, "/model"),
                     "plan search needs a model (\"model\": a \"preset\", a \"config\" or the dims), got: none");
  CapacityProblem problem = capacity_problem(spec);
  problem.simulation = options.simulation;
  Enumeration enumeration = enumerate_search(spec);
  PlanSearchResult result;
  result.rejected = std::move(enumeration.unformable);

  const auto screen_began = std::chrono::steady_clock::now();
  std::vector<CandidateResult> fitting;
  // Each candidate's prepared program (some 300 KB for Llama 3 70B: podsim plan's peak memory grew by 15 MB over its
  // 54 candidates) is kept for the des of the best K while the screened candidates are few; a larger search lets go
  // of them at once (the des prepares its K again).
  const bool keep_prepared = enumeration.candidates.size() <= kKeepPreparedCandidates;
  for (const Candidate& candidate : enumeration.candidates) {
    CandidateResult screened_one = screened(problem, candidate);
    if (screened_one.rejected || !keep_prepared) screened_one.prepared.reset();
    (screened_one.rejected ? result.rejected : fitting).push_back(std::move(screened_one));
  }
  result.screened = enumeration.candidates.size();
  result.screen_seconds = seconds_since(screen_began);
  if (problem.goal) {  // the goal's order on the closed form picks the candidates simulated (docs/capacity.md)
    attach_goal(problem, fitting, false);
    std::stable_sort(fitting.begin(), fitting.end(), [&](const CandidateResult& a, const CandidateResult& b) {
      return goal_ranks_before(problem, a, b, false);
    });
  } else {
    std::stable_sort(fitting.begin(), fitting.end(),
                     [](const CandidateResult& a, const CandidateResult& b) { return a.book_step_s < b.book_step_s; });
  }

  fold_mirrors(fitting);
  fold_mirrors(result.rejected);

  const auto simulate_began = std::chrono::steady_clock::now();
  // The top K, mirror images folded (each row a class), simulated several at once (options.parallel).
  const std::size_t top = options.simulate ? std::min(options.top_k, fitting.size()) : 0;
  std::vector<std::size_t> picked(top);
  for (std::size_t i = 0; i < top; ++i)
    picked[i] = i;
  // The candidates not simulated let go of their prepared programs (memory: the search may screen thousands).
  for (std::size_t i = top; i < fitting.size(); ++i)
    fitting[i].prepared.reset();
  const std::size_t threads = engine::simulation_threads(options.parallel);
  std::optional<DesMemoryGate> gate;
  if (threads > 1) gate.emplace(available_memory_bytes().value_or(0) / 10 * 9);
  result.simulations = top;
  simulate_all(problem, fitting, picked, threads, gate ? &*gate : nullptr);
  result.simulate_seconds = seconds_since(simulate_began);

  // A simulated schedule whose memory overflows HBM is rejected after all; the simulated lead, by des.
  for (auto& candidate : fitting) {
    if (candidate.fits_hbm)
      result.ranked.push_back(std::move(candidate));
    else
      result.rejected.push_back(std::move(candidate));
  }
  for (auto& candidate : result.rejected)
    if (!candidate.rejected)
      candidate.rejected =
          "the simulated schedule does not fit HBM: " + std::to_string(candidate.memory_per_chip_bytes) +
          " bytes per chip of " + std::to_string(candidate.hbm_bytes);
  if (problem.goal) {
    rank_by_goal(problem, result.ranked, kGoalMonteCarloCandidates);
    return result;
  }
  std::stable_sort(result.ranked.begin(), result.ranked.end(), [](const CandidateResult& a, const CandidateResult& b) {
    if (a.des_step_s.has_value() != b.des_step_s.has_value()) return a.des_step_s.has_value();
    return a.step_s() < b.step_s();
  });
  return result;
}

}  // namespace podsim
