// What a capacity-planning scenario asks of a model (docs/capacity.md): a training step (tokens per step, sequence
// length, microbatches, dtypes, Adam, rematerialisation, the pipeline schedule) or a serving step (prefill or decode of
// a batch at a context length, weight and KV-cache dtypes). Plain values; the scenario loader reads them from
// `workload`.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/enum_names.hpp"
#include "models/model/transformer.hpp"

namespace podsim {

enum class WorkloadMode { train, prefill, decode };

inline constexpr EnumNames<WorkloadMode, 3> kWorkloadModeNames{"workload mode",
                                                               {{
                                                                   {"train", WorkloadMode::train},
                                                                   {"prefill", WorkloadMode::prefill},
                                                                   {"decode", WorkloadMode::decode},
                                                               }}};

enum class Optimizer { adam };

inline constexpr EnumNames<Optimizer, 1> kOptimizerNames{"optimizer", {{{"adam", Optimizer::adam}}}};

// The order in which each pipeline stage runs its microbatches' forwards and backwards (docs/overlap-pipeline-dcn.md):
// GPipe, every forward then every backward; 1F1B, a warm-up of forwards, then one forward and one backward in turn.
enum class PipelineSchedule { gpipe, one_f_one_b };

inline constexpr EnumNames<PipelineSchedule, 2> kPipelineScheduleNames{"pipeline schedule",
                                                                       {{
                                                                           {"gpipe", PipelineSchedule::gpipe},
                                                                           {"1f1b", PipelineSchedule::one_f_one_b},
                                                                       }}};

// How a mixture of experts sends tokens to its experts and back (docs/overlap-pipeline-dcn.md, "Mixture of experts"),
// as MaxText's two paths do: `dense`, one-hot dispatch and combine einsums into per-sequence capacity buffers, the
// expert matmuls over every slot (sparse_matmul false, capacity_factor > 0); `dropless`, a ragged all-to-all of the
// routed rows and grouped matmuls over them, nothing dropped (sparse_matmul true with megablox, MaxText's default).
enum class MoeDispatch { dense, dropless };

inline constexpr EnumNames<MoeDispatch, 2> kMoeDispatchNames{"moe dispatch",
                                                             {{
                                                                 {"dense", MoeDispatch::dense},
                                                                 {"dropless", MoeDispatch::dropless},
                                                             }}};

// AQT-style quantized matmuls (MaxText `quantization`, docs/capacity.md "Quantization"): the layers' weight matmuls,
// forward and backward, run at the chip's int8 or fp8 peak; attention's score and value products and the logits stay
// bf16; weights, activations and collectives keep their stored dtypes.
enum class Quantization { none, int8, fp8 };

inline constexpr EnumNames<Quantization, 3> kQuantizationNames{"quantization",
                                                               {{
                                                                   {"none", Quantization::none},
                                                                   {"int8", Quantization::int8},
                                                                   {"fp8", Quantization::fp8},
                                                               }}};

// The element type whose peak a quantized matmul runs at: int8, fp8_e4m3 (MaxText's fp8 runs e4m3 both ways); none
// for Quantization::none.
std::optional<DType> quantized_matmul_dtype(Quantization quantization);

struct Workload {
  WorkloadMode mode = WorkloadMode::train;

  // mode train: one optimizer step over batch_tokens tokens (batch x seq_len), in `microbatches` passes of
  // forward and backward (gradient accumulation) before one optimizer update.
  std::uint64_t batch_tokens = 0;
  std::int64_t seq_len = 4096;
  std::int64_t microbatches = 1;
  Remat remat;                      // checkpoints_per_layer 0: no rematerialisation
  DType param_dtype = DType::bf16;  // parameters and gradients
  DType activation_dtype = DType::bf16;
  Optimizer optimizer = Optimizer::adam;
  bool master_weights = false;  // Adam keeps an fp32 copy of the parameters
  // With pipeline axes: the stages' schedule of the microbatches.
  PipelineSchedule pipeline_schedule = PipelineSchedule::one_f_one_b;

  // mode prefill / decode: `batch` sequences; prefill processes `context` tokens of each, decode one new token
  // of each while reading a KV cache of `context` tokens.
  std::int64_t batch = 1;
  std::int64_t context = 0;
  DType weight_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;

  // Both modes: the layers' matmuls quantized on the fly (their peak), weights stored as above.
  Quantization quantization = Quantization::none;

  // A mixture-of-experts model's routing (docs/overlap-pipeline-dcn.md, "Mixture of experts"): the dispatch path;
  // under `dense`, each expert's buffer holds int(max(ceil(S x k / E) x capacity_factor, capacity_factor)) tokens of
  // each sequence of S tokens; `expert_histogram`, when not empty, is one non-negative weight per expert, the share of
  // the routed tokens each receives (uniform when empty).
  MoeDispatch moe_dispatch = MoeDispatch::dropless;
  double capacity_factor = 1.0;
  std::vector<double> expert_histogram;

  // Tokens one step processes: batch_tokens (train), batch x context (prefill), batch (decode).
  std::uint64_t tokens_per_step() const;
  // Tokens of one pass of the model: a microbatch's in training (batch_tokens / microbatches, at least one pass), the
  // step's in serving. The one place a microbatch's tokens are worked out.
  std::uint64_t tokens_per_pass() const;
  // The training state's setup under this workload's dtypes, master weights and remat, with the activations of one
  // pass (tokens_per_pass) in training and none in serving. The one place a workload becomes a TrainingSetup.
  TrainingSetup training_setup() const;
};

// How a mixture of experts' routed tokens land on the experts for one pass over `tokens` tokens, each sent to `top_k`
// of `experts` experts, the experts split in equal contiguous blocks over `expert_shards` chips (docs/overlap-
// pipeline-dcn.md, "Mixture of experts"). The dense path routes within groups of one sequence each.
struct ExpertLoad {
  std::int64_t group_tokens = 0;    // S: tokens of a routing group (a sequence: seq_len, context, or 1 in decode)
  std::int64_t groups = 0;          // G: groups in the pass, tokens / S
  std::int64_t group_capacity = 0;  // dense: C, slots per expert per group (expert_capacity); dropless: 0
  std::int64_t capacity = 0;        // dense: slots per expert in the pass, G x C; dropless: busiest_slots
  std::vector<double> received;     // rows each expert processes: dense G x min(share S k, C); dropless share T k
  double dropped_fraction = 0;      // routed rows over capacity (dropped), as a fraction of tokens x top_k
  std::int64_t busiest_slots = 0;   // ceil(busiest shard's received rows / experts per shard)
  std::int64_t slots = 0;           // rows per expert the buffers, all-to-alls and expert matmuls hold: dense the
                                    // capacity (padded), dropless the busiest shard's routed rows
};

// MaxText's capacity of one group of `tokens` tokens: int(max(ceil(tokens x top_k / experts) x capacity_factor,
// capacity_factor)), at least 1. Expects experts >= 1 and capacity_factor > 0 (the verifier's rules); throws nothing.
std::int64_t expert_capacity(double capacity_factor, std::int64_t tokens, std::int64_t top_k, std::int64_t experts);

// The load under the workload's dispatch, capacity factor and histogram (uniform when empty). Expects the verifier's
// rules: experts divisible by expert_shards >= 1, a histogram of `experts` non-negative weights not all zero.
ExpertLoad expert_load(const Workload& workload, std::int64_t tokens, std::int64_t top_k, std::int64_t experts,
                       std::int64_t expert_shards);

}  // namespace podsim
