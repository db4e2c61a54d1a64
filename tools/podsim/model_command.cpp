// `podsim model describe (--preset NAME | --config FILE) [--batch-tokens N] [--seq-len T]
// [--checkpoints-per-layer K | --remat none] [--weight-dtype D] [--kv-dtype D] [--master-weights] [--json]`: a
// transformer's parameters, FLOPs per token, KV cache and training state (docs/models.md).
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "models/common/error.hpp"
#include "sim/query/model_query.hpp"
#include "sim/report/model_report.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/model_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct ModelFlags {
  std::string preset;
  std::string config;
  std::int64_t batch_tokens = 0;  // signed: -1 is refused as -1, not read as 2^64 - 1
  std::int64_t seq_len = 4096;
  std::optional<std::int64_t> checkpoints_per_layer;
  std::string remat;
  std::string weight_dtype = "bf16";
  std::string kv_dtype = "bf16";
  bool master_weights = false;
  bool json = false;
};

const char* flag_of(ModelQuery::Field field) {
  switch (field) {
    case ModelQuery::Field::batch_tokens:
      return "--batch-tokens";
    case ModelQuery::Field::seq_len:
      return "--seq-len";
    case ModelQuery::Field::checkpoints_per_layer:
      return "--checkpoints-per-layer";
  }
  return "";
}

int describe(const ModelFlags& flags) {
  if (flags.preset.empty() == flags.config.empty())
    throw InputError("--preset", "give one of --preset NAME or --config FILE, got: " +
                                     std::string(flags.preset.empty() ? "neither" : "both"));
  if (!flags.remat.empty() && flags.remat != "none")
    throw InputError("--remat", "the only named policy is none (else --checkpoints-per-layer K), got: " + flags.remat);
  if (!flags.remat.empty() && flags.checkpoints_per_layer)
    throw InputError("--remat", "give --remat none or --checkpoints-per-layer, not both");
  ModelQuery query;
  if (!flags.preset.empty()) {
    try {
      query.model = load_model_preset(flags.preset);
    } catch (const PresetNotFoundError& e) {
      throw InputError("--preset", e.is_name() ? e.message() : e.what());
    }
  } else {
    query.model = load_hf_config(flags.config);
  }
  query.seq_len = flags.seq_len;
  if (flags.batch_tokens < 0)
    throw InputError("--batch-tokens", "must be at least 0, got: " + std::to_string(flags.batch_tokens));
  query.training.batch_tokens = static_cast<std::uint64_t>(flags.batch_tokens);
  query.checkpoints_per_layer = flags.checkpoints_per_layer;
  query.training.param_dtype = located("--weight-dtype", [&] { return parse_dtype(flags.weight_dtype); });
  query.kv_dtype = located("--kv-dtype", [&] { return parse_dtype(flags.kv_dtype); });
  query.training.master_weights = flags.master_weights;
  ModelAnswer answer;
  try {
    answer = describe_model(query);
  } catch (const ModelQueryError& e) {
    throw at_flag(e, flag_of(e.field()));
  } catch (const VerifyError& e) {
    // A count the model's dims make too large (a tensor past 2^64 bytes): located at the model it came from.
    throw InputError(flags.preset.empty() ? flags.config : "--preset " + flags.preset,
                     std::string("the model's figures cannot be counted: ") + e.what());
  }
  if (flags.json)
    std::cout << report::model_json(answer).dump(2) << "\n";
  else
    std::cout << report::model_text(answer);
  return 0;
}

}  // namespace

void add_model_command(CLI::App& app, Action& action) {
  auto* model = app.add_subcommand("model", "Transformer models: parameters, FLOPs, KV cache, training state");
  model->require_subcommand(1);
  auto flags = std::make_shared<ModelFlags>();
  auto* sub = model->add_subcommand("describe", "A model's figures from a preset or a Hugging Face config.json");
  sub->add_option("--preset", flags->preset, "A preset of configs/models (e.g. llama3-70b) or a preset file");
  sub->add_option("--config", flags->config, "A Hugging Face config.json (LLaMA, Mistral, Mixtral keys)");
  sub->add_option("--batch-tokens", flags->batch_tokens, "Tokens per training step, for activations (default 0)");
  sub->add_option("--seq-len", flags->seq_len, "Sequence length for the attention FLOPs")->capture_default_str();
  sub->add_option("--checkpoints-per-layer", flags->checkpoints_per_layer,
                  "Rematerialisation: [tokens, d_model] checkpoints kept per layer");
  sub->add_option("--remat", flags->remat, "none: no rematerialisation (the default)");
  sub->add_option("--weight-dtype", flags->weight_dtype, "Parameters' (and gradients') dtype")->capture_default_str();
  sub->add_option("--kv-dtype", flags->kv_dtype, "KV cache dtype")->capture_default_str();
  sub->add_flag("--master-weights", flags->master_weights, "Adam keeps an fp32 master copy (12 bytes per param)");
  sub->add_flag("--json", flags->json, "Print JSON (\"schema\": \"podsim/1\")");
  sub->callback([flags, &action] { action = [flags] { return describe(*flags); }; });
}

}  // namespace podsim::cli
