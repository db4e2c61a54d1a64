// `podsim model describe` as a typed query: a model and the workload figures its accounting needs (sequence length
// for the attention FLOPs, batch and remat for activations, dtypes for bytes), answered by the closed forms of
// models/model/transformer.hpp.
#pragma once

#include <cstdint>
#include <optional>

#include "models/common/field_error.hpp"
#include "models/model/transformer.hpp"
#include "sim/scenario/model_preset.hpp"

namespace podsim {

struct ModelQuery {
  enum class Field { batch_tokens, seq_len, checkpoints_per_layer };
  ModelPreset model;
  std::int64_t seq_len = 4096;
  TrainingSetup training;  // batch_tokens, param (weight) dtype, master weights (its remat comes from below)
  std::optional<std::int64_t> checkpoints_per_layer;  // nullopt: no rematerialisation
  DType kv_dtype = DType::bf16;
};

using ModelQueryError = FieldError<ModelQuery::Field>;

struct ModelAnswer {
  ModelQuery query;
  ParamCounts params;
  FlopsPerToken flops;
  std::uint64_t kv_cache_bytes_per_token = 0;
  std::uint64_t weight_bytes = 0;  // total params x weight dtype
  TrainingState training;
};

// Throws ModelQueryError: seq_len in [1, 2^31], batch_tokens at most 2^40, checkpoints_per_layer in [1, 1024].
ModelAnswer describe_model(const ModelQuery& query);

}  // namespace podsim
