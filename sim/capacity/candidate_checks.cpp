// A model-level scenario's expectations measured on its model (closed forms) and its plans' candidates (the plan
// search's evaluation, each candidate once, simulated once when a des figure is asked).
#include "sim/capacity/candidate_checks.hpp"

#include <map>
#include <optional>
#include <utility>

#include "models/common/error.hpp"
#include "models/hardware/hbm_fit.hpp"
#include "models/model/transformer.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/plan_candidate.hpp"
#include "sim/run/checks.hpp"

namespace podsim {
namespace {

// A model metric by the closed forms of models/model/transformer.hpp, at the workload's figures: the sequence
// length (the context when serving), the KV dtype (bf16 in training), and the training state of the tokens in
// flight at once (batch_tokens / microbatches) under the workload's remat.
double model_figure(const ScenarioSpec& spec, const Expectation& e) {
  const TransformerDims& dims = spec.model->dims;
  const Workload& w = *spec.workload;
  const bool train = w.mode == WorkloadMode::train;
  const ParamCounts params = count_params(dims);
  const FlopsPerToken flops = flops_per_token(dims, train ? w.seq_len : w.context);
  const TrainingState state = training_state_bytes(dims, w.training_setup());
  const auto as_double = [](std::uint64_t value) { return static_cast<double>(value); };
  const std::pair<Metric, double> figures[] = {
      {Metric::params_total, as_double(params.total)},
      {Metric::params_attention, as_double(params.attention)},
      {Metric::params_mlp, as_double(params.mlp)},
      {Metric::params_embedding, as_double(params.embedding)},
      {Metric::flops_per_token_forward, flops.forward},
      {Metric::flops_per_token_train, flops.train},
      {Metric::flops_per_token_train_with_attention, flops.train_with_attention},
      {Metric::kv_cache_bytes_per_token, as_double(kv_cache_bytes_per_token(dims, train ? DType::bf16 : w.kv_dtype))},
      {Metric::training_state_bytes_params, as_double(state.params)},
      {Metric::training_state_bytes_grads, as_double(state.grads)},
      {Metric::training_state_bytes_optimizer, as_double(state.optimizer)},
      {Metric::training_state_bytes_activations, as_double(state.activations)},
      {Metric::training_state_bytes_total, as_double(state.total)}};
  const Metric metric = find_metric(e.metric)->metric;
  for (const auto& figure : figures)
    if (figure.first == metric) return figure.second;
  throw InputError(spec.source_file + ": " + e.pointer, "not a model metric, got: " + e.metric);
}

// A plan's candidate evaluated once by the closed form and, when an expectation asks for the des, simulated once.
struct CandidateFigures {
  CandidateResult book;
  std::optional<CandidateResult> des;
};

class CandidateFigureCache {
 public:
  explicit CandidateFigureCache(const ScenarioSpec& spec) : spec_(spec), problem_(capacity_problem(spec)) {}

  // The closed form of the plan's candidate. Throws InputError, located at the plan's parallelism, when the
  // candidate cannot be planned (the verifier has checked the rules it knows; the planner may refuse more).
  const CandidateResult& book(const Expectation& e) { return figures(e).book; }

  // The candidate simulated (simulate_candidate). Throws InputError when it does not fit HBM: the des simulates
  // candidates that can run.
  const CandidateResult& des(const Expectation& e) {
    CandidateFigures& f = figures(e);
    if (!f.des) {
      if (f.book.rejected)
        throw InputError(spec_.source_file + ": " + e.pointer + "/model",
                         "the des simulates candidates that fit HBM, got: plan " + e.plan + ": " + *f.book.rejected);
      CandidateResult simulated = f.book;
      simulate_candidate(problem_, simulated);
      f.des = std::move(simulated);
    }
    return *f.des;
  }

 private:
  CandidateFigures& figures(const Expectation& e) {
    const auto found = figures_.find(e.plan);
    if (found != figures_.end()) return found->second;
    const ScenarioPlan* plan = spec_.find_plan(e.plan);
    if (plan == nullptr)
      throw InputError(spec_.source_file + ": " + e.pointer + "/plan", "unknown plan, got: " + e.plan);
    CandidateResult result = evaluate_candidate_book(problem_, plan_candidate(spec_, *plan));
    const bool over_hbm = !fits_hbm(result.memory_per_chip_bytes, result.hbm_bytes);
    if (result.rejected && !over_hbm)
      throw InputError(spec_.source_file + ": " + plan->pointer + "/parallelism", *result.rejected);
    return figures_.emplace(e.plan, CandidateFigures{std::move(result), std::nullopt}).first->second;
  }

  const ScenarioSpec& spec_;
  CapacityProblem problem_;
  std::map<std::string, CandidateFigures> figures_;
};

// A candidate metric of the plan `e` names: the step time, MFU and tokens per second of the model e asks for
// (des: simulated), the rest by the closed form (docs/parallelism.md, "Figures of a candidate").
CheckValue candidate_figure(CandidateFigureCache& cache, const Expectation& e) {
  const Metric metric = find_metric(e.metric)->metric;
  const bool des = e.model == EvalModel::des && find_metric(e.metric)->per_model;
  const CandidateResult& r = des ? cache.des(e) : cache.book(e);
  const auto bytes = [](std::uint64_t value) { return static_cast<double>(value); };
  switch (metric) {
    case Metric::step_time_s:
      return des ? *r.des_step_s : r.book_step_s;
    case Metric::compute_time_s:
      return r.breakdown.compute_s;
    case Metric::hbm_time_s:
      return r.breakdown.hbm_s;
    case Metric::ici_time_s:
      return r.breakdown.ici_s;
    case Metric::compute_bound:
      return r.bound == StepBound::compute;
    case Metric::fits_hbm:
      return r.fits_hbm;
    case Metric::memory_per_chip_bytes:
      return bytes(r.memory_per_chip_bytes);
    case Metric::memory_params_bytes:
      return bytes(r.memory.params);
    case Metric::memory_grads_bytes:
      return bytes(r.memory.grads);
    case Metric::memory_optimizer_bytes:
      return bytes(r.memory.optimizer);
    case Metric::memory_activations_bytes:
      return bytes(r.memory.activations);
    case Metric::memory_kv_cache_bytes:
      return bytes(r.memory.kv_cache);
    case Metric::memory_temporaries_bytes:
      return bytes(r.memory.temporaries);
    case Metric::dcn_s:
      return des ? *r.des_dcn_s : r.breakdown.dcn_s;
    case Metric::dropped_fraction:
      return r.dropped_fraction;
    case Metric::mfu:
      return r.mfu;
    case Metric::tokens_per_s_per_chip:
      return r.tokens_per_s_per_chip;
    case Metric::bubble_time_s:
    case Metric::bubble_fraction: {
      // Pipeline stages' bubble (docs/overlap-pipeline-dcn.md); a candidate without stages has none.
      if (!r.pipeline) return 0.0;
      const bool time = metric == Metric::bubble_time_s;
      if (des) return time ? *r.pipeline->des_bubble_s : *r.pipeline->des_bubble_fraction;
      return time ? r.pipeline->bubble_s : r.pipeline->bubble_fraction;
    }
    default:
      break;
  }
  throw InputError(e.pointer, "not a candidate metric, got: " + e.metric);
}

}  // namespace

std::vector<CheckResult> evaluate_model_checks(const ScenarioSpec& spec) {
  if (!spec.model || !spec.workload) throw VerifyError("the scenario has no model and workload");
  std::vector<CheckResult> checks;
  std::optional<CandidateFigureCache> candidates;  // built for the first candidate metric (a serving scenario has none)
  for (const auto& e : spec.expect) {
    if (e.scope == ExpectScope::model) checks.push_back(check_expectation(e, model_figure(spec, e)));
    if (e.scope == ExpectScope::candidate) {
      if (!candidates) candidates.emplace(spec);
      checks.push_back(check_expectation(e, candidate_figure(*candidates, e)));
    }
  }
  return checks;
}

}  // namespace podsim
