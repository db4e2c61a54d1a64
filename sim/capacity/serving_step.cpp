// The serving step model (docs/serving-step-model.md): the KV capacity from the largest step's memory, the grid of the
// composition's parts from podsim's decode and prefill steps, and the lookup that interpolates them.
#include "sim/capacity/serving_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {
namespace {

constexpr std::int64_t kMaxServingContext = std::int64_t{1} << 31;
__extension__ typedef unsigned __int128 ServingU128;
// The token axis's refinement at the roofline's knee (build_grid).
constexpr double kServingKneeTolerance = 0.0025;
constexpr std::int64_t kServingKneePoints = 24;  // __extension__: no -Wpedantic warning

// Linear interpolation of `values` over the increasing points `at`; beyond the last point, linear extrapolation from
// the last two (never below a tenth of the last value); below the first, the first value.
double serving_interpolate(const std::vector<double>& at, const std::vector<double>& values, double x) {
  const std::size_t n = at.size();
  if (n == 1 || x <= at.front()) return values.front();
  std::size_t hi = static_cast<std::size_t>(std::upper_bound(at.begin(), at.end(), x) - at.begin());
  if (hi >= n) {
    const double slope = (values[n - 1] - values[n - 2]) / (at[n - 1] - at[n - 2]);
    return std::max(0.1 * values[n - 1], values[n - 1] + slope * (x - at[n - 1]));
  }
  const std::size_t lo = hi - 1;
  const double t = (x - at[lo]) / (at[hi] - at[lo]);
  return values[lo] + t * (values[hi] - values[lo]);
}

std::vector<double> serving_axis_doubles(const std::vector<std::int64_t>& points) {
  return {points.begin(), points.end()};
}

void require_serving_limit(const std::string& field, std::int64_t value, std::int64_t max,
                           const std::string& max_text) {
  if (value < 1) throw InputError("/serving/" + field, "must be at least 1, got: " + std::to_string(value));
  if (value > max)
    throw InputError("/serving/" + field, "must be at most " + max_text + ", got: " + std::to_string(value));
}

// A serving replica is tensor and expert parallel on one slice (data parallelism is replicas).
void require_replica_parallelism(const Candidate& candidate) {
  for (const ParallelKind kind :
       {ParallelKind::data, ParallelKind::fsdp, ParallelKind::sequence, ParallelKind::pipeline})
    if (!candidate.parallelism.of(kind).empty())
      throw VerifyError(serving_candidate_text(candidate) +
                        ": a serving replica is tensor and expert parallel (its data parallelism is replicas), got: " +
                        std::string(kParallelKindNames.name(kind)) + " axes");
  if (candidate.slices != 1)
    throw VerifyError(serving_candidate_text(candidate) +
                      ": a serving replica runs on one slice, got: " + std::to_string(candidate.slices) + " slices");
}

std::string serving_gib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GiB", static_cast<double>(bytes) / 1073741824.0);
  return text;
}

}  // namespace

ServingStepModel::ServingStepModel(const CapacityProblem& problem, const Candidate& candidate,
                                   const ServingStepLimits& limits, StepEvaluator evaluator)
    : ServingStepModel(problem, candidate, limits, evaluator,
                       evaluator == StepEvaluator::book ? GridDensity::fine : GridDensity::coarse) {}

ServingStepModel::ServingStepModel(const CapacityProblem& problem, const Candidate& candidate,
                                   const ServingStepLimits& limits, StepEvaluator evaluator, GridDensity density)
    : problem_(problem),
      candidate_(candidate),
      limits_(limits),
      evaluator_(evaluator),
      candidate_text_(serving_candidate_text(candidate)) {
  require_serving_limit("max_num_batched_tokens", limits.max_num_batched_tokens, kMaxNumBatchedTokens, "2^24");
  require_serving_limit("max_num_seqs", limits.max_num_seqs, kMaxNumSeqs, "2^20");
  require_serving_limit("max_context_tokens", limits.max_context_tokens, kMaxServingContext, "2^31");
  require_replica_parallelism(candidate);
  const auto& calibration = candidate.hardware.spec.calibration;
  causal_chunks_ = evaluator == StepEvaluator::des && calibration && !calibration->attention_forward_efficiency.empty();
  // podsim shards a serving step's sequences over the expert axes (model_program.cpp): its batches are multiples of
  // their size, read from the candidate's own expanded program (one sequence per chip always divides).
  CapacityProblem one_per_chip = problem;
  one_per_chip.workload.mode = WorkloadMode::decode;
  one_per_chip.workload.batch = candidate.chips();
  one_per_chip.workload.context = 1;
  try {
    batch_multiple_ =
        candidate.parallelism.degree(ParallelKind::expert, expand_candidate(one_per_chip, candidate).spec.mesh.mesh);
  } catch (const Error& e) {
    throw VerifyError(candidate_text_ + ": cannot be planned for serving: " + e.what());
  }
  build_capacity();
  build_grid(density);
}

// HBM per chip less the weights and the temporaries of the largest step (a decode of max_num_batched_tokens sequences
// or a prefill of max_num_batched_tokens tokens, whichever needs more), times the chips, over the replica's KV bytes
// per token: those a decode of one sequence per chip at context 1 holds per chip (each chip holds its batch shard's
// sequences with its ceil(kv_heads / t) heads, so that chips x per-chip bytes / chips sequences is the replica's).
void ServingStepModel::build_capacity() {
  const std::int64_t chips = candidate_.chips();
  const CandidateResult one =
      evaluate_serving_step(problem_, candidate_, WorkloadMode::decode, chips, 1, StepEvaluator::book).result;
  const CandidateResult decode = evaluate_serving_step(problem_, candidate_, WorkloadMode::decode,
                                                       padded(limits_.max_num_batched_tokens), 1, StepEvaluator::book)
                                     .result;
  const CandidateResult prefill =
      evaluate_serving_step(problem_, candidate_, WorkloadMode::prefill, batch_multiple_,
                            padded(limits_.max_num_batched_tokens) / batch_multiple_, StepEvaluator::book)
          .result;
  kv_bytes_per_token_ = one.memory.kv_cache;
  weight_bytes_per_chip_ = one.memory.params;
  temporaries_bytes_per_chip_ = std::max(decode.memory.temporaries, prefill.memory.temporaries);
  const std::uint64_t hbm = candidate_.hardware.spec.chip.hbm_bytes;
  if (hbm == 0) throw VerifyError(candidate_text_ + ": the KV cache's capacity needs the chip's HBM figure, got: none");
  if (kv_bytes_per_token_ == 0) throw InternalError(candidate_text_ + ": a decode step holds no KV cache");
  const std::uint64_t needed = weight_bytes_per_chip_ + temporaries_bytes_per_chip_;
  const auto free_bytes = static_cast<ServingU128>(needed < hbm ? hbm - needed : 0);
  const ServingU128 tokens = free_bytes * static_cast<ServingU128>(chips) / kv_bytes_per_token_;
  if (tokens < 1)
    throw ServingFitError(candidate_text_ + ": the weights (" + serving_gib_text(weight_bytes_per_chip_) +
                              " per chip) and the largest step's temporaries (" +
                              serving_gib_text(temporaries_bytes_per_chip_) +
                              ") leave no HBM for the KV cache: HBM holds " + serving_gib_text(hbm) +
                              " per chip, got: " + serving_gib_text(needed) + " needed",
                          candidate_text_, needed, hbm);
  kv_capacity_tokens_ = static_cast<std::int64_t>(std::min<ServingU128>(tokens, kMaxServingContext * kMaxNumSeqs));
}

void ServingStepModel::build_grid(GridDensity density) {
  // Every evaluation once: (mode, batch, context) -> the evaluation.
  std::map<std::tuple<WorkloadMode, std::int64_t, std::int64_t>, ServingStepEvaluation> done;
  const auto eval = [&](WorkloadMode mode, std::int64_t batch, std::int64_t context) -> const ServingStepEvaluation& {
    const auto key = std::make_tuple(mode, batch, context);
    if (const auto found = done.find(key); found != done.end()) return found->second;
    ++evaluations_;
    return done.emplace(key, evaluate_serving_step(problem_, candidate_, mode, batch, context, evaluator_))
        .first->second;
  };
  // The layers and the logits over the token axis, from decodes at context 1 (their attention set apart).
  const std::vector<std::int64_t> tokens =
      padded_axis(serving_grid_axis(std::max(limits_.max_num_batched_tokens, limits_.max_num_seqs), density));
  tokens_ = serving_axis_doubles(tokens);
  for (const std::int64_t n : tokens) {
    const ServingStepEvaluation& e = eval(WorkloadMode::decode, n, 1);
    layers_.push_back(e.layers_s);
    logits_.push_back(e.logits_s);
  }
  // Where the matmuls turn from reading their weights to computing (the roofline's knee) the layers are max(a, b N),
  // and a chord over a wide segment lies well above them: bisect a segment while its midpoint is off the chord by more
  // than kServingKneeTolerance of the step (a kink's chord error peaks at most twice its midpoint's), at most
  // kServingKneePoints evaluations.
  std::int64_t added = 0;
  for (std::size_t i = 0; i + 1 < tokens_.size() && added < kServingKneePoints;) {
    const auto a = static_cast<std::int64_t>(tokens_[i]), b = static_cast<std::int64_t>(tokens_[i + 1]);
    if (b - a < 2 * batch_multiple_) {
      ++i;
      continue;
    }
    const std::int64_t mid = padded(a + (b - a) / 2);
    const ServingStepEvaluation& e = eval(WorkloadMode::decode, mid, 1);
    ++added;
    const double t = static_cast<double>(mid - a) / static_cast<double>(b - a);
    const double off = std::abs(layers_[i] + t * (layers_[i + 1] - layers_[i]) - e.layers_s) +
                       std::abs(logits_[i] + t * (logits_[i + 1] - logits_[i]) - e.logits_s);
    tokens_.insert(tokens_.begin() + static_cast<std::ptrdiff_t>(i + 1), static_cast<double>(mid));
    layers_.insert(layers_.begin() + static_cast<std::ptrdiff_t>(i + 1), e.layers_s);
    logits_.insert(logits_.begin() + static_cast<std::ptrdiff_t>(i + 1), e.logits_s);
    if (off <= kServingKneeTolerance * e.step_s) i += 2;  // both halves are as straight: move on
  }
  // The decodes' attention over sequences x mean context: D(B, c) - D(B, 1) + A(B, 1), each cell evaluated when the
  // KV capacity reaches into it (its lower corner holds at most the capacity's tokens), else extrapolated linearly in
  // the context from the row's last two points.
  const std::vector<std::int64_t> seqs = padded_axis(serving_grid_axis(limits_.max_num_seqs, density));
  const std::vector<std::int64_t> contexts = serving_grid_axis(limits_.max_context_tokens, density);
  seqs_ = serving_axis_doubles(seqs);
  contexts_ = serving_axis_doubles(contexts);
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    const ServingStepEvaluation& base = eval(WorkloadMode::decode, seqs[i], 1);
    std::vector<double> row;
    const std::int64_t lower_seqs = seqs[i > 0 ? i - 1 : 0];
    for (std::size_t j = 0; j < contexts.size(); ++j) {
      const std::int64_t lower_context = contexts[j > 0 ? j - 1 : 0];
      const bool reached = static_cast<ServingU128>(lower_seqs) * static_cast<ServingU128>(lower_context) <=
                           static_cast<ServingU128>(kv_capacity_tokens_);
      if (j == 0) {
        row.push_back(base.attention_s);
      } else if (reached) {
        row.push_back(eval(WorkloadMode::decode, seqs[i], contexts[j]).step_s - base.step_s + base.attention_s);
      } else if (j >= 2) {
        const double slope = (row[j - 1] - row[j - 2]) / (contexts_[j - 1] - contexts_[j - 2]);
        row.push_back(row[j - 1] + slope * (contexts_[j] - contexts_[j - 1]));
      } else {
        row.push_back(row[0] * contexts_[j] / contexts_[0]);
      }
    }
    decode_attention_.push_back(std::move(row));
  }
  // The prefill attention per query over the key axis: (P(m, k) - the layers at m k tokens - the logits of m rows) /
  // (m k), m the batch multiple (1 without expert axes).
  const std::vector<std::int64_t> keys = serving_grid_axis(limits_.max_context_tokens, density);
  keys_ = serving_axis_doubles(keys);
  const std::int64_t m = batch_multiple_;
  const ServingStepEvaluation& rows = eval(WorkloadMode::decode, m, 1);
  for (const std::int64_t k : keys) {
    const ServingStepEvaluation& base = eval(WorkloadMode::decode, m * k, 1);
    const double attention = eval(WorkloadMode::prefill, m, k).step_s - base.layers_s - rows.logits_s;
    prefill_per_query_.push_back(attention / static_cast<double>(m * k));
  }
}

std::int64_t ServingStepModel::padded(std::int64_t n) const {
  return (n + batch_multiple_ - 1) / batch_multiple_ * batch_multiple_;
}

std::vector<std::int64_t> ServingStepModel::padded_axis(const std::vector<std::int64_t>& points) const {
  std::vector<std::int64_t> out;
  for (const std::int64_t n : points)
    if (out.empty() || padded(n) != out.back()) out.push_back(padded(n));
  return out;
}

double ServingStepModel::chunk_share(std::int64_t tokens, std::int64_t keys) const {
  // A chunk of c queries over k keys is c of a k-token prefill's k queries; a causal kernel (the calibrated des)
  // computes c k - c^2 / 2 of its score blocks where the prefill computes k^2 / 2: c (2k - c) / k of a query's time.
  const auto c = static_cast<double>(tokens), k = static_cast<double>(keys);
  return causal_chunks_ ? c * (2.0 * k - c) / k : c;
}

void ServingStepModel::check_batch(const BatchSignature& batch) const {
  std::int64_t sum = 0;
  for (const auto& chunk : batch.prefill_chunks) {
    if (chunk.tokens < 1 || chunk.context_tokens < 0)
      throw InternalError(candidate_text_ + ": a prefill chunk has " + std::to_string(chunk.tokens) +
                          " tokens at context " + std::to_string(chunk.context_tokens));
    sum += chunk.tokens;
  }
  if (sum != batch.prefill_tokens || batch.decode_seqs < 0 || batch.decode_context_sum < 0 || batch.total_tokens() < 1)
    throw InternalError(candidate_text_ + ": a batch of " + std::to_string(batch.prefill_tokens) +
                        " prefill tokens (chunks add up to " + std::to_string(sum) + ") and " +
                        std::to_string(batch.decode_seqs) + " decodes has no step");
}

ServingStepParts ServingStepModel::parts(const BatchSignature& batch) const {
  check_batch(batch);
  ServingStepParts out;
  const auto n = static_cast<double>(batch.total_tokens());
  const auto rows = static_cast<double>(batch.decode_seqs + static_cast<std::int64_t>(batch.prefill_chunks.size()));
  out.layers_s = serving_interpolate(tokens_, layers_, n);
  out.logits_s = serving_interpolate(tokens_, logits_, rows);
  if (batch.decode_seqs > 0) {
    const auto b = static_cast<double>(batch.decode_seqs);
    const double context = static_cast<double>(batch.decode_context_sum) / b;
    // Bilinear: along the context in the two rows around b, then along the sequences.
    const std::size_t hi = std::min<std::size_t>(
        static_cast<std::size_t>(std::upper_bound(seqs_.begin(), seqs_.end(), b) - seqs_.begin()), seqs_.size() - 1);
    const std::size_t lo = hi > 0 ? hi - 1 : 0;
    const double at_lo = serving_interpolate(contexts_, decode_attention_[lo], context);
    const double at_hi = serving_interpolate(contexts_, decode_attention_[hi], context);
    out.decode_attention_s = lo == hi ? at_lo : serving_interpolate({seqs_[lo], seqs_[hi]}, {at_lo, at_hi}, b);
  }
  for (const auto& chunk : batch.prefill_chunks) {
    const std::int64_t keys = chunk.context_tokens + chunk.tokens;
    out.prefill_attention_s +=
        chunk_share(chunk.tokens, keys) * serving_interpolate(keys_, prefill_per_query_, static_cast<double>(keys));
  }
  return out;
}

ServingStepParts ServingStepModel::direct_parts(const BatchSignature& batch) const {
  check_batch(batch);
  const auto eval = [&](WorkloadMode mode, std::int64_t b, std::int64_t context) -> const ServingStepEvaluation& {
    const auto key = std::make_tuple(mode, b, context);
    if (const auto found = direct_cache_.find(key); found != direct_cache_.end()) return found->second;
    return direct_cache_.emplace(key, evaluate_serving_step(problem_, candidate_, mode, b, context, evaluator_))
        .first->second;
  };
  const std::int64_t rows = batch.decode_seqs + static_cast<std::int64_t>(batch.prefill_chunks.size());
  ServingStepParts out;
  out.layers_s = eval(WorkloadMode::decode, padded(batch.total_tokens()), 1).layers_s;
  out.logits_s = eval(WorkloadMode::decode, padded(rows), 1).logits_s;
  if (batch.decode_seqs > 0) {
    const std::int64_t context =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(static_cast<double>(batch.decode_context_sum) /
                                                                         static_cast<double>(batch.decode_seqs))));
    const std::int64_t seqs = padded(batch.decode_seqs);
    const ServingStepEvaluation& base = eval(WorkloadMode::decode, seqs, 1);
    out.decode_attention_s = context == 1
                                 ? base.attention_s
                                 : eval(WorkloadMode::decode, seqs, context).step_s - base.step_s + base.attention_s;
  }
  const std::int64_t m = batch_multiple_;
  const double rows_logits = eval(WorkloadMode::decode, m, 1).logits_s;
  for (const auto& chunk : batch.prefill_chunks) {
    const std::int64_t keys = chunk.context_tokens + chunk.tokens;
    const double attention =
        eval(WorkloadMode::prefill, m, keys).step_s - eval(WorkloadMode::decode, m * keys, 1).layers_s - rows_logits;
    out.prefill_attention_s += chunk_share(chunk.tokens, keys) * attention / static_cast<double>(m * keys);
  }
  return out;
}

}  // namespace podsim
