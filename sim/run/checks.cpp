// Each `expect` entry measured on a run (the metric table of expect_metrics.hpp), or on a model-level scenario's
// model and its plans' candidates, and compared within its tolerance.
#include "sim/run/checks.hpp"
#include "models/hardware/hbm_fit.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "models/common/error.hpp"
#include "models/model/transformer.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/plan_candidate.hpp"

namespace podsim {
namespace {

using Value = std::variant<double, bool, std::vector<std::int64_t>>;

// The plan an expectation is about, or nullptr when it was not run (podsim run --plan).
const PlanRun* plan_of(const ScenarioRun& run, const Expectation& e) {
  const std::string wanted = e.plan.empty() ? "default" : e.plan;
  for (const auto& plan : run.plans)
    if (plan.name == wanted) return &plan;
  return nullptr;
}

const OpRun& op_of(const ScenarioRun& run, const PlanRun& plan, const Expectation& e) {
  for (const auto& op : plan.ops)
    if (op.name == e.op) return op;
  throw InputError(run.file + ": " + e.pointer, "unknown op, got: " + e.op);
}

// The tensor as it enters the program: the declared tensor, or the first op result of that name.
const TensorMemory& tensor_of(const ScenarioRun& run, const PlanRun& plan, const Expectation& e) {
  for (const auto& tensor : plan.memory)
    if (tensor.name == e.tensor) return tensor;
  throw InputError(run.file + ": " + e.pointer, "unknown tensor, got: " + e.tensor);
}

// The figure of the run a metric names (the table in expect_metrics.hpp; the verifier has checked the name).
Value measure(const ScenarioRun& run, const PlanRun& plan, const Expectation& e) {
  const MetricInfo* info = find_metric(e.metric);
  if (info == nullptr) throw InputError(run.file + ": " + e.pointer, "unknown metric, got: " + e.metric);
  const bool book = e.model == EvalModel::book;
  switch (info->metric) {
    case Metric::total_time_s:
      return book ? plan.book_time_s : plan.des_time_s;
    case Metric::peak_memory_per_chip_bytes:
      return static_cast<double>(plan.memory_per_chip_bytes);
    case Metric::fits_hbm:
      return plan.fits_hbm;
    case Metric::max_link_bytes:
      return static_cast<double>(plan.max_link_bytes);
    case Metric::total_link_bytes:
      return static_cast<double>(plan.total_link_bytes);
    case Metric::messages:
      return static_cast<double>(plan.messages);
    case Metric::exposed_communication_s:
      return plan.step_breakdown.exposed_communication_s;
    case Metric::dcn_s:
      return plan.step_breakdown.dcn_s;
    case Metric::time_s:
      return book ? op_of(run, plan, e).book_time_s : op_of(run, plan, e).des_time_s;
    case Metric::flops:
      return op_of(run, plan, e).flops;
    case Metric::collectives:
      return static_cast<double>(op_of(run, plan, e).collectives.size());
    case Metric::array_bytes: {
      double sum = 0;
      for (const auto& c : op_of(run, plan, e).collectives)
        sum += static_cast<double>(c.array_bytes);
      return sum;
    }
    case Metric::bytes_per_device:
      return static_cast<double>(tensor_of(run, plan, e).bytes_per_device);
    case Metric::total_bytes:
      return static_cast<double>(tensor_of(run, plan, e).total_bytes);
    case Metric::local_shape:
      return tensor_of(run, plan, e).local_shape;
    default:
      break;  // model metrics: evaluate_model_checks
  }
  throw InputError(run.file + ": " + e.pointer, "unknown metric, got: " + e.metric);
}

std::string describe(const Expectation& e) {
  std::string text = e.plan.empty() ? "" : e.plan + ": ";
  if (e.scope == ExpectScope::op) text += "op " + e.op + " ";
  if (e.scope == ExpectScope::tensor) text += "tensor " + e.tensor + " ";
  text += e.metric;
  const MetricInfo* info = find_metric(e.metric);
  if (info != nullptr && (info->per_model || e.scope == ExpectScope::model || e.scope == ExpectScope::candidate))
    text += " (" + std::string(eval_model_name(e.model)) + ")";
  return text;
}

// The check of `e` against the figure `measured`, within e's tolerance.
CheckResult compare(const Expectation& e, const Value& measured) {
  CheckResult check;
  check.description = describe(e);
  check.pointer = e.pointer;
  check.source = e.source;
  check.target = e.value;
  check.value = measured;
  const double tolerance = e.tolerance_or_default();
  if (std::holds_alternative<double>(e.value)) (e.relative ? check.rel_tol : check.abs_tol) = tolerance;
  if (const auto* target = std::get_if<double>(&e.value)) {
    const double got = std::get<double>(check.value);
    const double allowed = e.relative ? tolerance * std::fabs(*target) : tolerance;
    check.passed = std::isfinite(got) && std::fabs(got - *target) <= allowed;
  } else {
    check.passed = check.value == check.target;
  }
  return check;
}

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
  switch (find_metric(e.metric)->metric) {
    case Metric::params_total:
      return as_double(params.total);
    case Metric::params_attention:
      return as_double(params.attention);
    case Metric::params_mlp:
      return as_double(params.mlp);
    case Metric::params_embedding:
      return as_double(params.embedding);
    case Metric::flops_per_token_forward:
      return flops.forward;
    case Metric::flops_per_token_train:
      return flops.train;
    case Metric::flops_per_token_train_with_attention:
      return flops.train_with_attention;
    case Metric::kv_cache_bytes_per_token:
      return as_double(kv_cache_bytes_per_token(dims, train ? DType::bf16 : w.kv_dtype));
    case Metric::training_state_bytes_params:
      return as_double(state.params);
    case Metric::training_state_bytes_grads:
      return as_double(state.grads);
    case Metric::training_state_bytes_optimizer:
      return as_double(state.optimizer);
    case Metric::training_state_bytes_activations:
      return as_double(state.activations);
    case Metric::training_state_bytes_total:
      return as_double(state.total);
    default:
      break;
  }
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
Value candidate_figure(CandidateFigureCache& cache, const Expectation& e) {
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
    if (e.scope == ExpectScope::model) checks.push_back(compare(e, model_figure(spec, e)));
    if (e.scope == ExpectScope::candidate) {
      if (!candidates) candidates.emplace(spec);
      checks.push_back(compare(e, candidate_figure(*candidates, e)));
    }
  }
  return checks;
}

std::vector<CheckResult> evaluate_checks(const ScenarioSpec& spec, const ScenarioRun& run) {
  std::vector<CheckResult> checks;
  std::optional<CandidateFigureCache> candidates;
  for (const auto& e : spec.expect) {
    if (e.scope == ExpectScope::model) {
      checks.push_back(compare(e, model_figure(spec, e)));  // of no plan: the closed form
      continue;
    }
    if (e.scope == ExpectScope::candidate) {  // of a parallelism plan: its candidate, whatever was run
      if (!candidates) candidates.emplace(spec);
      checks.push_back(compare(e, candidate_figure(*candidates, e)));
      continue;
    }
    const PlanRun* plan = plan_of(run, e);
    if (!plan) continue;  // its plan was not run
    checks.push_back(compare(e, measure(run, *plan, e)));
  }
  // Functional mode: a plan whose values differ from the dense reference fails, whatever else was expected.
  for (const auto& plan : run.plans) {
    if (!plan.values_match) continue;
    CheckResult check;
    check.description = (plan.name == "default" ? "" : plan.name + ": ") + "values equal the dense reference";
    check.value = *plan.values_match;
    check.target = true;
    check.passed = *plan.values_match;
    check.source = plan.values_note;
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace podsim
