// The model accounting of one query.
#include "sim/query/model_query.hpp"

namespace podsim {

ModelAnswer describe_model(const ModelQuery& query) {
  using QueryField = ModelQuery::Field;
  if (query.seq_len < 1 || query.seq_len > (std::int64_t{1} << 31))
    throw ModelQueryError(QueryField::seq_len, "must be in [1, 2^31], got: " + std::to_string(query.seq_len));
  if (query.training.batch_tokens > (std::uint64_t{1} << 40))
    throw ModelQueryError(QueryField::batch_tokens,
                          "must be at most 2^40 tokens, got: " + std::to_string(query.training.batch_tokens));
  ModelAnswer answer;
  answer.query = query;
  answer.query.training.remat.checkpoints_per_layer = 0;
  if (query.checkpoints_per_layer) {
    const std::int64_t k = *query.checkpoints_per_layer;
    if (k < 1 || k > 1024)
      throw ModelQueryError(QueryField::checkpoints_per_layer, "must be in [1, 1024], got: " + std::to_string(k));
    answer.query.training.remat.checkpoints_per_layer = k;
  }
  answer.params = count_params(query.model.dims);
  answer.flops = flops_per_token(query.model.dims, query.seq_len);
  answer.kv_cache_bytes_per_token = kv_cache_bytes_per_token(query.model.dims, query.kv_dtype);
  answer.weight_bytes = dtype_bytes(query.training.param_dtype, answer.params.total);
  answer.training = training_state_bytes(query.model.dims, answer.query.training);
  return answer;
}

}  // namespace podsim
