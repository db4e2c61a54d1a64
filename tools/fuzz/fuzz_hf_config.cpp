// Fuzzes the Hugging Face config.json reader (hf_config_from_json, as `podsim model describe --config` and a
// scenario's `"model": {"config": ...}` read it) and the figures `model describe` derives from the dims: parameter
// counts, FLOPs per token, KV cache and training state.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/query/model_query.hpp"
#include "sim/scenario/model_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const nlohmann::json doc = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;  // the reader turns parse errors into InputError itself
  try {
    ModelQuery query;
    query.model = hf_config_from_json(doc, "fuzz.json");
    query.training.batch_tokens = std::uint64_t{1} << 20;
    query.checkpoints_per_layer = 1;
    describe_model(query);
  } catch (const Error&) {
  }
  return 0;
}
