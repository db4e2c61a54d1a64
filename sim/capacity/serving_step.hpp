// The step time of a serving replica (docs/serving-step-model.md): a scheduler iteration's batch (prefill chunks and
// decodes at their contexts, models/serving/scheduler.hpp's BatchSignature) timed from podsim's own model-level decode
// and prefill steps on the replica's candidate, memoised on a geometric grid and interpolated linearly, so that a
// lookup costs no planning; and the replica's KV cache capacity in tokens.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/serving/scheduler.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/run/candidate_result.hpp"

namespace podsim {

// Which of podsim's two step evaluations the grid is built from (docs/capacity.md): the closed form, or the SimGrid
// simulation of the step (a child process per grid point).
enum class StepEvaluator { book, des };

// How densely a grid axis samples [1, max]: `fine` at powers of two and their midpoints 1.5 x 2^k (1, 2, 3, 4, 6, 8,
// 12, ...), `coarse` at powers of four (1, 4, 16, 64, ...); both end at max. Fine is the book's default, coarse the
// des's (each des point is a simulation).
enum class GridDensity { fine, coarse };

// The largest batch a replica's scheduler forms (its limits, docs/serving-model.md) and the model's longest context
// (prompt plus output); the grid covers them, and a batch within them never fails.
struct ServingStepLimits {
  std::int64_t max_num_batched_tokens = 2048;
  std::int64_t max_num_seqs = 128;
  std::int64_t max_context_tokens = 8192;
};

// The weights (and the temporaries of the largest step) leave no HBM for a KV cache on the candidate.
class ServingFitError : public VerifyError {
 public:
  ServingFitError(const std::string& message, std::string candidate, std::uint64_t needed_bytes,
                  std::uint64_t hbm_bytes)
      : VerifyError(message), candidate_(std::move(candidate)), needed_bytes_(needed_bytes), hbm_bytes_(hbm_bytes) {}
  const std::string& candidate() const { return candidate_; }   // e.g. `tpu-v5e 2x2 tensor=X,Y`
  std::uint64_t needed_bytes() const { return needed_bytes_; }  // per chip: weights and the largest step's temporaries
  std::uint64_t hbm_bytes() const { return hbm_bytes_; }        // per chip

 private:
  std::string candidate_;
  std::uint64_t needed_bytes_;
  std::uint64_t hbm_bytes_;
};

// The composition's parts for one batch (docs/serving-step-model.md, "Composition"), seconds; they add up to the step.
struct ServingStepParts {
  double layers_s = 0;             // every layer's matmuls, norms and collectives and the embedding over all N tokens
  double logits_s = 0;             // the unembedding over the batch's R sequences (one row each)
  double decode_attention_s = 0;   // the decodes' KV reads and score/value products
  double prefill_attention_s = 0;  // each prefill chunk's attention over its context and itself
  double total() const { return layers_s + logits_s + decode_attention_s + prefill_attention_s; }
};

// One model-level serving step evaluated by podsim, split into the composition's groups of ops: `logits` (the ops at
// ModelPlace::last), `attention` (the layer's `attention` and `kv_read` ops), `layers` (the rest). The book's groups
// are its ops' closed-form times x repeats; the des's, its step apportioned to the groups in the proportions of its
// ops' simulated spans x repeats. step_s = layers_s + logits_s + attention_s.
struct ServingStepEvaluation {
  double step_s = 0;
  double layers_s = 0;
  double logits_s = 0;
  double attention_s = 0;
  CandidateResult result;  // memory per chip by kind, fit
};

// Evaluates the problem's model at `mode` (prefill or decode), `batch` sequences and `context` tokens on the candidate
// (the problem's own workload supplies the dtypes and quantization). The des simulates a point that does not fit HBM
// without HBM waits (dataflow). Throws VerifyError naming the candidate when it cannot be planned; what
// simulate_candidate throws when a simulation fails.
ServingStepEvaluation evaluate_serving_step(const CapacityProblem& problem, const Candidate& candidate,
                                            WorkloadMode mode, std::int64_t batch, std::int64_t context,
                                            StepEvaluator evaluator);

// `tpu-v5e 2x2 tensor=X,Y`: the hardware preset, the slice (and slice count) and the parallelism.
std::string serving_candidate_text(const Candidate& candidate);

// The grid's points on one axis: 1, then the density's points below max, then max. Expects max >= 1.
std::vector<std::int64_t> serving_grid_axis(std::int64_t max, GridDensity density);

class ServingStepModel {
 public:
  // Builds the KV capacity and the grid: decodes at context 1 over the token axis (plus up to 24 points bisecting the
  // roofline's knee), the decode attention over sequences x mean context (the cells the KV capacity reaches), and
  // one prefill per point of the key axis (docs/serving-step-model.md, "The grid"). Throws InputError at /serving for
  // limits below 1 or above the scheduler's maxima, VerifyError when the candidate cannot be planned for serving (a dim
  // that does not divide, pipeline, data or fsdp or sequence axes: a replica is tensor and expert parallel),
  // ServingFitError when the weights and the largest step's temporaries fill HBM.
  ServingStepModel(const CapacityProblem& problem, const Candidate& candidate, const ServingStepLimits& limits,
                   StepEvaluator evaluator, GridDensity density);
  ServingStepModel(const CapacityProblem& problem, const Candidate& candidate, const ServingStepLimits& limits,
                   StepEvaluator evaluator = StepEvaluator::book);

  // Seconds of one iteration of `batch`: a lookup and linear interpolation, no planning. Within the limits the grid
  // covers the batch; beyond them each axis extrapolates linearly from its last two points (never below a tenth of
  // its last point's value). Throws InternalError for a batch with no token or whose prefill_tokens is not the sum of
  // its chunks (the scheduler never forms one).
  double step_s(const BatchSignature& batch) const { return parts(batch).total(); }
  ServingStepParts parts(const BatchSignature& batch) const;

  // The same composition evaluated directly at the batch's own points, without the grid: a decode and a logits
  // evaluation at N and R, the decodes' attention at their mean context (rounded to the nearest token), one prefill
  // per chunk. For measuring the interpolation (docs/serving-step-model.md); several evaluations per call, each kept
  // for the next calls (so not safe to call from several threads at once).
  ServingStepParts direct_parts(const BatchSignature& batch) const;

  // The KV cache of the replica, in tokens: (HBM - weights - the largest step's temporaries) per chip x chips / KV
  // bytes per token of the replica (its KV heads as the tensor axes place them, padded to ceil(kv_heads / t) per chip).
  std::int64_t kv_capacity_tokens() const { return kv_capacity_tokens_; }
  std::uint64_t kv_bytes_per_token() const { return kv_bytes_per_token_; }  // the whole replica's, all chips
  std::uint64_t weight_bytes_per_chip() const { return weight_bytes_per_chip_; }
  std::uint64_t temporaries_bytes_per_chip() const { return temporaries_bytes_per_chip_; }

  std::int64_t evaluations() const { return evaluations_; }  // model evaluations the build made
  const ServingStepLimits& limits() const { return limits_; }
  StepEvaluator evaluator() const { return evaluator_; }
  const std::string& candidate_text() const { return candidate_text_; }

 private:
  double chunk_share(std::int64_t tokens, std::int64_t keys) const;
  std::int64_t padded(std::int64_t n) const;  // n rounded up to a multiple of batch_multiple_
  std::vector<std::int64_t> padded_axis(const std::vector<std::int64_t>& points) const;
  void check_batch(const BatchSignature& batch) const;
  void build_capacity();
  void build_grid(GridDensity density);

  CapacityProblem problem_;
  Candidate candidate_;
  ServingStepLimits limits_;
  StepEvaluator evaluator_;
  std::string candidate_text_;
  bool causal_chunks_ = false;  // the des times causal attention kernels (a calibrated attention curve)
  // The expert axes' size: podsim's serving steps shard their sequences over them, so the grid's batches are its
  // multiples (a smaller batch costs the padded one) and a prompt's attention is taken from a prefill of that many.
  std::int64_t batch_multiple_ = 1;

  std::int64_t kv_capacity_tokens_ = 0;
  std::uint64_t kv_bytes_per_token_ = 0;
  std::uint64_t weight_bytes_per_chip_ = 0;
  std::uint64_t temporaries_bytes_per_chip_ = 0;
  std::int64_t evaluations_ = 0;

  std::vector<double> tokens_;  // token axis (N, and R for the logits): 1 .. max_num_batched_tokens
  std::vector<double> layers_;  // per token point
  std::vector<double> logits_;
  std::vector<double> seqs_;                           // decode sequences axis: 1 .. max_num_seqs
  std::vector<double> contexts_;                       // mean decode context axis: 1 .. max_context_tokens
  std::vector<std::vector<double>> decode_attention_;  // [seq point][context point]
  std::vector<double> keys_;                           // prefill key axis: 1 .. max_context_tokens
  std::vector<double> prefill_per_query_;              // per key point: a prefill's attention / its tokens
  // direct_parts's evaluations, by (mode, batch, context).
  mutable std::map<std::tuple<WorkloadMode, std::int64_t, std::int64_t>, ServingStepEvaluation> direct_cache_;
};

}  // namespace podsim
