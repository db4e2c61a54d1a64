// The scenario verifier, capacity planning (docs/scenario-format.md, "Model-level scenarios"): a model stands
// instead of tensors and a program and needs a workload; the workload's counts and how they divide; the search
// section (not empty, no kind twice, slices within the limits); the price; a plan's parallelism against the mesh and
// the model (the dims each kind shards divide by its axes).
#include <algorithm>
#include <cmath>

#include "models/hardware/missing_figure.hpp"
#include "models/model/parallel_fit.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/slice_shapes.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"
#include "sim/scenario/serving_pools.hpp"

namespace podsim::scenario_detail {
namespace {

// Fails at the first entry of the list at `pointer` that equals an earlier one (`key` gives what is compared, `show`
// how it is echoed): every candidate it makes would be listed, and simulated, twice.
template <typename T, typename Key, typename Show>
void require_listed_once(const Where& where, const std::string& pointer, const std::vector<T>& list,
                         const std::string& what, Key key, Show show) {
  for (std::size_t i = 0; i < list.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (key(list[k]) == key(list[i])) where.fail(child(pointer, i), what + " listed twice, got: " + show(list[i]));
}

constexpr std::int64_t kMaxCount = std::int64_t{1} << 31;     // sequence length, batch, context
constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 40;  // tokens of one step (as podsim model describe)
constexpr std::int64_t kMaxCheckpointsPerLayer = 1024;        // as podsim model describe

std::string kind_name(ParallelKind kind) {
  return std::string(kParallelKindNames.name(kind));
}

std::string mode_name(WorkloadMode mode) {
  return quote(kWorkloadModeNames.name(mode));
}

void require_at_most(const Where& where, const std::string& pointer, std::int64_t value, std::int64_t max,
                     const std::string& max_text) {
  if (value > max) where.fail(pointer, "must be at most " + max_text + ", got: " + std::to_string(value));
}

// K checkpoints per layer (0 for a policy), at `pointer` (the object holding checkpoints_per_layer and
// remat_tensors); a custom policy's layer input is kept, on the device or on the host.
void verify_remat(const Where& where, const std::string& pointer, const Remat& remat) {
  where.require_at_least(pointer + "/checkpoints_per_layer", remat.checkpoints_per_layer, 0);
  require_at_most(where, pointer + "/checkpoints_per_layer", remat.checkpoints_per_layer, kMaxCheckpointsPerLayer,
                  "1024");
  if (remat.checkpoints_per_layer > 0 && remat.policy != RematPolicy::none)
    where.fail(pointer, "give one of \"checkpoints_per_layer\" and \"remat\", got: both");
  if (remat.policy == RematPolicy::custom &&
      placement_of(remat.custom, LayerTensor::decoder_layer_input) == TensorPlacement::remat)
    where.fail(pointer + "/remat_tensors/decoder_layer_input",
               "the layer's input is what the backward recomputes from: it is kept, \"device\" or \"offload\", got: "
               "\"remat\"");
}

// A microbatch count against the batch: it divides batch_tokens, and each microbatch holds whole sequences.
void verify_microbatches(const Where& where, const std::string& pointer, const Workload& w, std::int64_t count) {
  where.require_at_least(pointer, count, 1);
  const auto m = static_cast<std::uint64_t>(count);
  if (w.batch_tokens % m != 0)
    where.fail(pointer,
               "must divide batch_tokens (" + std::to_string(w.batch_tokens) + "), got: " + std::to_string(count));
  const std::uint64_t per_microbatch = w.batch_tokens / m;
  if (per_microbatch % static_cast<std::uint64_t>(w.seq_len) != 0)
    where.fail(pointer, "each microbatch holds whole sequences: batch_tokens / microbatches (" +
                            std::to_string(per_microbatch) + ") must be a multiple of seq_len (" +
                            std::to_string(w.seq_len) + "), got: " + std::to_string(count));
}

void verify_training(const Where& where, const Workload& w) {
  const std::string p = "/workload";
  if (w.batch_tokens < 1) where.fail(p + "/batch_tokens", "must be at least 1, got: 0");
  if (w.batch_tokens > kMaxTokens)
    where.fail(p + "/batch_tokens", "must be at most 2^40 tokens, got: " + std::to_string(w.batch_tokens));
  where.require_at_least(p + "/seq_len", w.seq_len, 1);
  require_at_most(where, p + "/seq_len", w.seq_len, kMaxCount, "2^31");
  if (w.batch_tokens % static_cast<std::uint64_t>(w.seq_len) != 0)
    where.fail(p + "/seq_len", "must divide batch_tokens (" + std::to_string(w.batch_tokens) +
                                   "): a batch holds whole sequences, got: " + std::to_string(w.seq_len));
  verify_microbatches(where, p + "/microbatches", w, w.microbatches);
  verify_remat(where, p, w.remat);
}

void verify_serving(const Where& where, const Workload& w) {
  const std::string p = "/workload";
  where.require_at_least(p + "/batch", w.batch, 1);
  require_at_most(where, p + "/batch", w.batch, kMaxCount, "2^31");
  where.require_at_least(p + "/context", w.context, 1);
  require_at_most(where, p + "/context", w.context, kMaxCount, "2^31");
  if (w.tokens_per_step() > kMaxTokens && w.mode == WorkloadMode::prefill)
    where.fail(p + "/context", "batch x context must be at most 2^40 tokens, got: " + std::to_string(w.batch) + " x " +
                                   std::to_string(w.context));
}

// A mixture of experts' routing keys (docs/overlap-pipeline-dcn.md, "Mixture of experts"): a capacity factor > 0,
// only under the dense dispatch, and a histogram of one non-negative weight per expert, not all zero; both only on a
// model with experts.
void verify_routing(const Where& where, const Workload& w, const TransformerDims& dims) {
  const std::string p = "/workload";
  const bool moe = dims.experts > 1;
  if (w.capacity_factor != 1.0 && !moe)
    where.fail(p + "/capacity_factor",
               "applies to mixture-of-experts models (experts > 1), got: experts " + std::to_string(dims.experts));
  if (w.moe_dispatch != MoeDispatch::dropless && !moe)
    where.fail(p + "/moe_dispatch",
               "applies to mixture-of-experts models (experts > 1), got: experts " + std::to_string(dims.experts));
  if (!w.expert_histogram.empty() && !moe)
    where.fail(p + "/expert_histogram",
               "applies to mixture-of-experts models (experts > 1), got: experts " + std::to_string(dims.experts));
  if (!(w.capacity_factor > 0) || !std::isfinite(w.capacity_factor) || w.capacity_factor > 1e6)
    where.fail(p + "/capacity_factor", "must be a finite number > 0 and at most 1e6, got: " + shown(w.capacity_factor));
  if (w.capacity_factor != 1.0 && w.moe_dispatch != MoeDispatch::dense)
    where.fail(
        p + "/capacity_factor",
        "sizes the buffers of moe_dispatch \"dense\" (\"dropless\" keeps every routed token), got: moe_dispatch " +
            quote(kMoeDispatchNames.name(w.moe_dispatch)));
  if (w.expert_histogram.empty()) return;
  const std::string hp = p + "/expert_histogram";
  if (static_cast<std::int64_t>(w.expert_histogram.size()) != dims.experts)
    where.fail(hp, "must list one weight per expert (" + std::to_string(dims.experts) +
                       "), got: " + std::to_string(w.expert_histogram.size()) + " weights");
  double largest = 0;  // not their sum: weights near the largest double sum to infinity (issue 33, class 6)
  for (std::size_t i = 0; i < w.expert_histogram.size(); ++i) {
    const double v = w.expert_histogram[i];
    if (!(v >= 0) || !std::isfinite(v)) where.fail(child(hp, i), "must be a finite number >= 0, got: " + shown(v));
    largest = std::max(largest, v);
  }
  if (!(largest > 0))
    where.fail(hp, "the weights must not all be zero (each is an expert's share of the routed tokens), got: all zero");
}

// A quantized workload runs the layers' matmuls at the chip's peak for the quantized type (docs/capacity.md,
// "Quantization"): every hardware it runs on (the scenario's, or each one searched) has that figure.
void verify_quantization(const Where& where, const Workload& w, const std::vector<HardwarePreset>& hardware) {
  const std::optional<DType> dtype = quantized_matmul_dtype(w.quantization);
  if (!dtype) return;
  for (const auto& preset : hardware) {
    try {
      preset.spec.chip.peak_flops(*dtype);
    } catch (const MissingFigureError& e) {
      where.fail("/workload/quantization", "runs the layers' matmuls at the chip's " + std::string(dtype_name(*dtype)) +
                                               " peak (hardware " + quote(preset.name) + "): " + e.what() +
                                               ", got: " + quote(kQuantizationNames.name(w.quantization)));
    }
  }
}

// The searched slice counts (docs/overlap-pipeline-dcn.md, "Model-level scenarios over several slices"): each >= 1
// and listed once, in place of the scenario's own count; with a count > 1, every chip of every slice within the
// limit, a searched kind the slice axis can carry, and every hardware searched with ICI links and a DCN bandwidth.
void verify_slice_counts(const State& state, const SearchSpec& search, const std::vector<HardwarePreset>& hardware) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  const std::string p = "/search/slice_counts";
  if (search.slice_counts.empty()) return;
  if (spec.slice_count > 1)
    where.fail(p, "the slice counts are searched in place of the scenario's \"slice\": {\"count\"}, got: both");
  auto largest = static_cast<std::int64_t>(element_count(spec.slice_shape));
  for (const Shape& dims : search.slices)
    largest = std::max(largest, static_cast<std::int64_t>(element_count(dims)));
  for (const auto& entry : search.slices_by_preset)
    for (const Shape& dims : entry.second)
      largest = std::max(largest, static_cast<std::int64_t>(element_count(dims)));
  const auto same = [](const auto& v) { return v; };
  require_listed_once(where, p, search.slice_counts, "slice count", same,
                      [](std::int32_t count) { return std::to_string(count); });
  for (std::size_t i = 0; i < search.slice_counts.size(); ++i) {
    const std::string cp = child(p, i);
    const std::int32_t count = search.slice_counts[i];
    where.require_at_least(cp, count, 1);
    if (count == 1) continue;
    if (largest * count > kMaxSliceChips)
      where.fail(cp, "slices x chips per slice must be at most " + std::to_string(kMaxSliceChips) +
                         ", got: " + std::to_string(largest * count));
    const bool carried = std::any_of(search.kinds.begin(), search.kinds.end(), [](ParallelKind kind) {
      return kind == ParallelKind::data || kind == ParallelKind::fsdp || kind == ParallelKind::pipeline;
    });
    if (!carried)
      where.fail(cp, std::string("the slice axis ") + kSliceAxisName +
                         " carries data, fsdp or pipeline parallelism: list one in \"parallelism\", got: none");
    for (const auto& preset : hardware) {
      if (preset.spec.ici.links_per_chip == 0)
        where.fail(cp, "several slices need a chip with ICI links, got: " + preset.spec.name);
      if (!(preset.spec.dcn_bandwidth_Bps > 0))
        where.fail(cp, "several slices need a DCN bandwidth per chip, got: none for hardware " + preset.spec.name);
    }
  }
}

// A serve scenario's search (docs/serving.md, "Search"): tensor and expert kinds only (data parallelism is the
// replicas), replica counts and max_num_seqs each listed once and within the serving limits; neither list elsewhere.
void verify_serving_search(const State& state, const SearchSpec& search) {
  const Where& where = state.where;
  const std::string p = "/search";
  const auto count_text = [](std::int64_t n) { return std::to_string(n); };
  require_listed_once(where, p + "/replicas", search.replicas, "replica count", count_text, count_text);
  require_listed_once(where, p + "/max_num_seqs", search.max_num_seqs, "max_num_seqs", count_text, count_text);
  if (!state.spec.serve) {
    const std::string mode = mode_name(state.spec.workload->mode);
    if (!search.replicas.empty()) where.fail(p + "/replicas", "applies to serving workloads, got: mode " + mode);
    if (!search.max_num_seqs.empty())
      where.fail(p + "/max_num_seqs", "applies to serving workloads, got: mode " + mode);
    return;
  }
  for (std::size_t i = 0; i < search.kinds.size(); ++i)
    if (search.kinds[i] != ParallelKind::tensor && search.kinds[i] != ParallelKind::expert)
      where.fail(child(p + "/parallelism", i),
                 "a serving replica is tensor and expert parallel (its data parallelism is the replicas: search "
                 "\"replicas\"), got: " +
                     quote(kind_name(search.kinds[i])));
  for (std::size_t i = 0; i < search.replicas.size(); ++i)
    if (search.replicas[i] < 1 || search.replicas[i] > kMaxServingReplicas)
      where.fail(child(p + "/replicas", i), "must be in [1, " + std::to_string(kMaxServingReplicas) +
                                                "], got: " + std::to_string(search.replicas[i]));
  const std::int64_t budget = state.spec.serve->scheduler.max_num_batched_tokens;
  for (std::size_t i = 0; i < search.max_num_seqs.size(); ++i) {
    const std::int64_t seqs = search.max_num_seqs[i];
    if (seqs < 1 || seqs > kMaxNumSeqs)
      where.fail(child(p + "/max_num_seqs", i),
                 "must be in [1, " + std::to_string(kMaxNumSeqs) + "], got: " + std::to_string(seqs));
    if (seqs > budget)
      where.fail(child(p + "/max_num_seqs", i), "must be at most serving.max_num_batched_tokens (" +
                                                    std::to_string(budget) + "), got: " + std::to_string(seqs));
  }
}

// A goal (docs/capacity.md, "Goals"): a training workload's, its values by verify_goal, a budget or a cost objective
// with a price; its reliability by verify_reliability.
void verify_goal_section(const State& state) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  const GoalSpec& goal = *spec.goal;
  if (spec.serve || !spec.workload || spec.workload->mode != WorkloadMode::train)
    where.fail("/goal", "a goal is a training run's (tokens to train): give a workload in mode \"train\", got: " +
                            std::string(spec.serve      ? "\"serve\""
                                        : spec.workload ? mode_name(spec.workload->mode)
                                                        : "none"));
  try {
    verify_goal(goal);
    if (spec.reliability) verify_reliability(*spec.reliability);
  } catch (const InputError& e) {
    where.fail(e.where(), e.message());
  }
  if (goal.budget_usd && !priced(spec))
    where.fail("/goal/budget_usd", "a budget needs a price: give \"price_per_chip_hour\", got: none");
  if (goal.objective == GoalObjective::cost && !priced(spec))
    where.fail("/goal/objective", "the objective \"cost\" needs a price: give \"price_per_chip_hour\", got: none");
}

// Each slice of `slices` (at `pointer`) within the limits and listed once, its wraparound resolvable on every preset
// of `hardware`: the preset's rule, or the scenario's "none" or "all" (a per-dim list belongs to the scenario's own
// slice).
void verify_slice_shapes(const State& state, const std::string& pointer, const std::vector<Shape>& slices,
                         const std::vector<HardwarePreset>& hardware) {
  const Where& where = state.where;
  const auto same = [](const auto& v) { return v; };
  require_listed_once(where, pointer, slices, "slice shape", same, [](const Shape& dims) { return shown(dims); });
  const WrapChoice wrap =
      state.spec.wrap && state.spec.wrap->mode != WrapMode::listed ? *state.spec.wrap : WrapChoice{};
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const std::string sp = child(pointer, i);
    const Shape& dims = slices[i];
    if (const auto issue = slice_shape_issue(dims)) {
      switch (issue->rule) {
        case SliceShapeIssue::Rule::rank:
          where.fail(sp, "must be an array of 1 to 3 chip counts, got: " + shown(dims));
        case SliceShapeIssue::Rule::dim_size:
          where.require_at_least(child(sp, issue->dim), dims[issue->dim], 1);
          break;
        case SliceShapeIssue::Rule::chips:
          where.fail(sp, "a slice has at most " + std::to_string(kMaxSliceChips) + " chips, got: " + shown(dims));
      }
    }
    for (const auto& preset : hardware) {
      try {
        resolve_wraparound(wrap, dims, preset.spec.wrap_rule, preset.spec.pod_shape);
      } catch (const Error& e) {
        where.fail(sp, std::string(e.what()) + " (hardware " + preset.spec.name + ")");
      }
    }
  }
}

// The searched presets' names, quoted: `"tpu-v5p", "tpu-v6e"`.
std::string preset_names(const std::vector<HardwarePreset>& hardware) {
  std::string out;
  for (const auto& preset : hardware)
    out += (out.empty() ? "" : ", ") + quote(preset.name);
  return out;
}

// Where a searched preset is named: /search/hardware/i, or /hardware for the scenario's own.
std::string preset_pointer(const SearchSpec& search, std::size_t index) {
  return search.hardware.empty() ? std::string("/hardware") : child("/search/hardware", index);
}

// `search.slices` keyed by preset (docs/capacity.md, "Generations in one search"): each key a searched preset, each
// searched preset a key, each preset's shapes as `slices`' on that preset alone.
void verify_slices_by_preset(const State& state, const SearchSpec& search,
                             const std::vector<HardwarePreset>& hardware) {
  const Where& where = state.where;
  const std::string p = "/search/slices";
  if (search.slices_by_preset.empty()) return;
  if (!search.slices.empty()) where.fail(p, "is a list of shapes or an object keyed by preset, not both, got: both");
  for (const auto& [name, shapes] : search.slices_by_preset) {
    const std::string& key = name;  // clang 14: a lambda cannot capture a structured binding
    const auto found = std::find_if(hardware.begin(), hardware.end(),
                                    [&](const HardwarePreset& preset) { return preset.name == key; });
    if (found == hardware.end())
      where.fail(child(p, name),
                 "names no searched hardware (searched: " + preset_names(hardware) + "), got: " + quote(name));
    verify_slice_shapes(state, child(p, name), shapes, {*found});
  }
  for (std::size_t i = 0; i < hardware.size(); ++i) {
    const bool listed = std::any_of(search.slices_by_preset.begin(), search.slices_by_preset.end(),
                                    [&](const auto& entry) { return entry.first == hardware[i].name; });
    if (!listed)
      where.fail(p, "gives no slice shapes for hardware " + quote(hardware[i].name) + " (searched at " +
                        preset_pointer(search, i) + "), got: none");
  }
}

// A goal's search without slices: every searched preset offers shapes to enumerate (offered_slice_shapes).
void verify_offered_shapes(const State& state, const SearchSpec& search) {
  const std::vector<HardwarePreset> own_hardware = {state.spec.hardware};
  const auto& hardware = search.hardware.empty() ? own_hardware : search.hardware;
  for (std::size_t i = 0; i < hardware.size(); ++i) {
    const HardwareSpec& spec = hardware[i].spec;
    if (offered_slice_shapes(spec.wrap_rule, spec.pod_shape).empty())
      state.where.fail(preset_pointer(search, i),
                       "the search enumerates each preset's slice shapes (a 2D pod with the rule full_pod_axis, a 3D "
                       "pod of whole_cubes): list \"slices\" for this one, got: hardware " +
                           quote(hardware[i].name) + " (rule " + std::string(wrap_rule_name(spec.wrap_rule)) +
                           ", pod " + shown(spec.pod_shape) + ")");
  }
}

void verify_search(const State& state, const SearchSpec& search) {
  const Where& where = state.where;
  const Workload& w = *state.spec.workload;
  const std::string p = "/search";
  if (search.kinds.empty())
    where.fail(p + "/parallelism", "an empty search: list at least one parallelism kind, got: []");
  const auto same = [](const auto& v) { return v; };
  require_listed_once(where, p + "/parallelism", search.kinds, "parallelism kind", same,
                      [](ParallelKind kind) { return quote(kind_name(kind)); });
  require_listed_once(
      where, p + "/hardware", search.hardware, "hardware",
      [](const HardwarePreset& preset) { return preset.spec.name; },
      [](const HardwarePreset& preset) { return quote(preset.spec.name); });
  require_listed_once(where, p + "/microbatches", search.microbatches, "microbatch count", same,
                      [](std::int64_t m) { return std::to_string(m); });
  require_listed_once(where, p + "/remat", search.remat, "remat policy", same,
                      [](const Remat& remat) { return quote(remat_text(remat)); });
  for (std::size_t i = 0; i < search.twist.size(); ++i)
    if (const auto issue = route_policy_issue(state.spec.options.routing, search.twist[i]))
      where.fail("/options/routing",
                 *issue + " (search.twist lists true at " + p + "/twist/" + std::to_string(i) + ")");
  const std::vector<HardwarePreset> own_hardware = {state.spec.hardware};
  const auto& hardware = search.hardware.empty() ? own_hardware : search.hardware;
  verify_slice_shapes(state, p + "/slices", search.slices, hardware);
  verify_slices_by_preset(state, search, hardware);
  if (search.slices.empty() && search.slices_by_preset.empty() && state.spec.slice_shape.empty())
    verify_offered_shapes(state, search);
  verify_slice_counts(state, search, hardware);
  const bool train = w.mode == WorkloadMode::train;
  if (!train && !search.microbatches.empty())
    where.fail(p + "/microbatches", "applies to training workloads, got: mode " + mode_name(w.mode));
  if (!train && !search.remat.empty())
    where.fail(p + "/remat", "applies to training workloads, got: mode " + mode_name(w.mode));
  for (std::size_t i = 0; i < search.microbatches.size(); ++i)
    verify_microbatches(where, child(p + "/microbatches", i), w, search.microbatches[i]);
  for (std::size_t i = 0; i < search.remat.size(); ++i)
    verify_remat(where, child(p + "/remat", i), search.remat[i]);
  verify_serving_search(state, search);
}

// A serving scenario's traffic, server and SLO, by the serving models' own verifiers (their pointers under /workload,
// /serving and /slo), and its replicas.
void verify_serve(const Where& where, const ScenarioSpec& spec) {
  const ServeSpec& serve = *spec.serve;
  try {
    verify_traffic(serve.traffic);
    // The cache's size comes from a replica's HBM when the run is built; its rules are checked then.
    SchedulerConfig scheduler = serve.scheduler;
    if (scheduler.kv_capacity_blocks == 0) scheduler.kv_capacity_blocks = 1;
    verify_scheduler_config(scheduler);
    verify_slo(serve.slo);
  } catch (const InputError& e) {
    where.fail(e.where(), e.message());
  }
  if (serve.replicas < 1 || serve.replicas > kMaxServingReplicas)
    where.fail("/serving/replicas",
               "must be in [1, " + std::to_string(kMaxServingReplicas) + "], got: " + std::to_string(serve.replicas));
  if (!serve.disaggregated) return;
  // Each pool as the scenario its replicas run (its own errors located under the pool), then what joins them.
  const DisaggregatedSpec& pools = *serve.disaggregated;
  if (spec.search)
    where.fail(
        "/search",
        "a disaggregated deployment is simulated as given; `podsim plan` searches co-located ones, got: a search "
        "section");
  for (const ServingPoolSpec* pool : {&pools.prefill, &pools.decode})
    kv_link_figures(serving_pool_scenario(spec, *pool), *pool, pools.kv_link);
  if (pools.prefill.replicas * pools.decode.replicas > kMaxKvRoutes)
    where.fail("/serving/disaggregated", "prefill replicas x decode replicas must be at most 2^20, got: " +
                                             std::to_string(pools.prefill.replicas) + " x " +
                                             std::to_string(pools.decode.replicas));
}

// The price (docs/capacity.md, "Prices per preset"): a number, or an object whose keys are the searched presets, each
// with its price; every price > 0 and at most 1e6 USD a chip-hour (today's accelerators rent for a few: a cost per
// million tokens stays finite).
void verify_prices(const State& state) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  const std::string p = "/price_per_chip_hour";
  const auto require_price = [&](const std::string& pointer, double price) {
    if (!(price > 0) || !std::isfinite(price) || price > 1e6)
      where.fail(pointer, "must be a number > 0 and at most 1e6 (USD per chip-hour), got: " + shown(price));
  };
  if (spec.price_per_chip_hour) require_price(p, *spec.price_per_chip_hour);
  if (spec.price_per_preset.empty()) return;
  if (spec.price_per_chip_hour) where.fail(p, "is a number or an object keyed by preset, not both, got: both");
  const SearchSpec search = spec.search.value_or(SearchSpec{});
  const std::vector<HardwarePreset> hardware =
      search.hardware.empty() ? std::vector<HardwarePreset>{spec.hardware} : search.hardware;
  for (const auto& [name, price] : spec.price_per_preset) {
    const std::string& key = name;  // clang 14: a lambda cannot capture a structured binding
    const bool searched =
        std::any_of(hardware.begin(), hardware.end(), [&](const HardwarePreset& preset) { return preset.name == key; });
    if (!searched)
      where.fail(child(p, name),
                 "names no searched hardware (searched: " + preset_names(hardware) + "), got: " + quote(name));
    require_price(child(p, name), price);
  }
  for (std::size_t i = 0; i < hardware.size(); ++i)
    if (!chip_hour_price(spec, hardware[i].name))
      where.fail(
          p, "has no price for hardware " + quote(hardware[i].name) + " (searched at " + preset_pointer(search, i) +
                 "), got: prices for " + [&] {
                   std::string names;
                   for (const auto& entry : spec.price_per_preset)
                     names += (names.empty() ? "" : ", ") + quote(entry.first);
                   return names;
                 }());
}

}  // namespace

std::string model_or_program_message(const std::string& key) {
  return "a scenario has either a model or a program (tensors and ops), not both, got: " + quote(key) +
         " beside \"model\"";
}

bool slices_in_search_only(const ScenarioSpec& spec) {
  return spec.model && spec.slice_shape.empty() && spec.search &&
         (!spec.search->slices.empty() || !spec.search->slices_by_preset.empty() || spec.goal);
}

void verify_capacity(State& state) {
  const Where& where = state.where;
  const ScenarioSpec& spec = state.spec;
  if (!spec.model) {
    const auto needs_model = [&](const std::string& pointer) {
      where.fail(pointer, "applies to model-level scenarios (a \"model\" section), got: no model");
    };
    if (spec.workload) needs_model("/workload");
    if (spec.search) needs_model("/search");
    if (priced(spec)) needs_model("/price_per_chip_hour");
    if (spec.goal) needs_model("/goal");
    return;
  }
  try {
    verify_dims(spec.model->dims);
  } catch (const DimsError& e) {
    where.fail("/model/" + std::string(dims_field_name(e.field())), e.message());
  }
  if (!spec.tensors.empty()) where.fail("/tensors", model_or_program_message("tensors"));
  if (!spec.program.empty()) where.fail("/program", model_or_program_message("program"));
  if (!spec.workload) where.fail("", "missing key \"workload\" (a model-level scenario needs one)");
  if (spec.workload->mode == WorkloadMode::train)
    verify_training(where, *spec.workload);
  else
    verify_serving(where, *spec.workload);
  verify_routing(where, *spec.workload, spec.model->dims);
  verify_quantization(where, *spec.workload,
                      spec.search && !spec.search->hardware.empty() ? spec.search->hardware
                                                                    : std::vector<HardwarePreset>{spec.hardware});
  if (spec.search) verify_search(state, *spec.search);
  if (spec.serve) verify_serve(where, spec);
  if (spec.goal) verify_goal_section(state);
  verify_prices(state);
}

void verify_plan_parallelism(const State& state, const ScenarioPlan& plan, const std::string& pointer) {
  const Where& where = state.where;
  // verify_parallelism on ever longer prefixes of the assignment, in its own order (kinds, then axes): the first
  // prefix it refuses ends at the axis the error is about.
  Parallelism prefix;
  for (std::size_t k = 0; k < kParallelKinds; ++k) {
    const auto kind = static_cast<ParallelKind>(k);
    const auto& axes = plan.parallelism->of(kind);
    for (std::size_t j = 0; j < axes.size(); ++j) {
      prefix.of(kind).push_back(axes[j]);
      try {
        verify_parallelism(prefix, state.spec.mesh.mesh);
      } catch (const Error& e) {
        where.fail(child(child(pointer, kind_name(kind)), j), e);
      }
    }
  }
  // Several slices (docs/overlap-pipeline-dcn.md): the slice axis carries data, fsdp or pipeline parallelism.
  if (state.spec.slice_count > 1) {
    if (const auto issue = slice_axis_issue(*plan.parallelism, kSliceAxisName))
      where.fail(issue->kind ? child(child(pointer, kind_name(*issue->kind)), issue->index) : pointer, issue->message);
  }
  // The model's dims and the workload's counts divide by the axes each kind assigns (docs/parallelism.md,
  // "Constraints"): the rule names the dim, the axes and both sizes.
  try {
    verify_parallel_fit(state.spec.model->dims, *state.spec.workload, *plan.parallelism, state.spec.mesh.mesh);
  } catch (const Error& e) {
    where.fail(pointer, e);
  }
}

}  // namespace podsim::scenario_detail
