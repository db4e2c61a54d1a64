// Model figures for people and for scripts, from one ModelAnswer.
#include "sim/report/model_report.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "models/common/units.hpp"
#include "sim/report/run_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

using nlohmann::json;

std::string count_text(std::uint64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e9) return fmt::format("{} ({:.2f}B)", n, v / 1e9);
  if (v >= 1e6) return fmt::format("{} ({:.2f}M)", n, v / 1e6);
  return std::to_string(n);
}

std::string book_remat_text(const Remat& remat) {
  return remat.checkpoints_per_layer > 0
             ? fmt::format("{} checkpoint(s) per layer", remat.checkpoints_per_layer)
             : fmt::format("none ({} [tokens, d_model] tensors kept per layer)", kNoRematTensorsPerLayer);
}

// `path` relative to the working directory when it lies beneath it (as a user would type it), else as it is.
std::string shown_path(const std::string& path) {
  std::error_code ec;
  const auto relative = std::filesystem::proximate(path, ec);
  if (ec || relative.empty() || relative.string().rfind("..", 0) == 0) return path;
  return relative.string();
}

}  // namespace

std::string model_text(const ModelAnswer& a) {
  const TransformerDims& d = a.query.model.dims;
  std::string out = "model " + a.query.model.name;
  if (!a.query.model.description.empty()) out += ": " + a.query.model.description;
  out = wrapped(out, 118, 2);
  out += "  from " + shown_path(a.query.model.origin) + "\n";
  out += fmt::format("  dims: layers {}, d_model {}, d_ff {}, heads {}, kv_heads {}, head_dim {}, vocab {}\n", d.layers,
                     d.d_model, d.d_ff, d.heads, d.kv_heads, d.head_dim, d.vocab);
  out += fmt::format("        {} MLP, {} embeddings", mlp_kind_name(d.mlp), d.tied_embeddings ? "tied" : "untied");
  if (d.experts > 1) out += fmt::format(", {} experts ({} per token)", d.experts, d.experts_per_token);
  out += "\n";
  const ParamCounts& p = a.params;
  out += "params\n";
  out += fmt::format("  total:      {}\n", count_text(p.total));
  if (a.query.model.published_params)
    out += fmt::format(
        "  published:  {} ({})\n", count_text(*a.query.model.published_params),
        *a.query.model.published_params == p.total
            ? std::string("equal")
            : fmt::format("differs by {}", static_cast<std::int64_t>(*a.query.model.published_params - p.total)));
  if (p.active != p.total) out += fmt::format("  active:     {} per token\n", count_text(p.active));
  out += fmt::format("  attention:  {}\n  mlp:        {}\n  embedding:  {}\n  norms:      {}\n",
                     count_text(p.attention), count_text(p.mlp), count_text(p.embedding), count_text(p.norms));
  out += fmt::format("flops per token (sequence {})\n", a.query.seq_len);
  out += fmt::format("  forward {:.4g}, with attention {:.4g}\n", a.flops.forward, a.flops.forward_with_attention);
  out += fmt::format("  train {:.4g} (6 x active params), with attention {:.4g}\n", a.flops.train,
                     a.flops.train_with_attention);
  out += fmt::format("kv cache per token: {} ({})\n", bytes_text(a.kv_cache_bytes_per_token),
                     dtype_name(a.query.kv_dtype));
  out += fmt::format("weights: {} ({})\n", bytes_text(a.weight_bytes), dtype_name(a.query.training.param_dtype));
  const TrainingState& t = a.training;
  out += fmt::format("training state, all chips (batch {} tokens, remat {}{})\n", a.query.training.batch_tokens,
                     book_remat_text(a.query.training.remat),
                     a.query.training.master_weights ? ", fp32 master weights" : "");
  out += fmt::format("  params {}, grads {}, optimizer {}, activations {}: total {}\n", bytes_text(t.params),
                     bytes_text(t.grads), bytes_text(t.optimizer), bytes_text(t.activations), bytes_text(t.total));
  return out;
}

json model_json(const ModelAnswer& a) {
  const TransformerDims& d = a.query.model.dims;
  const ModelPreset& m = a.query.model;
  json model = {{"name", m.name},
                {"origin", m.origin},
                {"description", m.description},
                {"layers", d.layers},
                {"d_model", d.d_model},
                {"d_ff", d.d_ff},
                {"heads", d.heads},
                {"kv_heads", d.kv_heads},
                {"head_dim", d.head_dim},
                {"vocab", d.vocab},
                {"tied_embeddings", d.tied_embeddings},
                {"mlp", mlp_kind_name(d.mlp)},
                {"experts", d.experts},
                {"experts_per_token", d.experts_per_token}};
  const ParamCounts& p = a.params;
  const TrainingState& t = a.training;
  const Remat& remat = a.query.training.remat;
  return {{"schema", "podsim/1"},
          {"model", model},
          {"params",
           {{"total", p.total},
            {"attention", p.attention},
            {"mlp", p.mlp},
            {"embedding", p.embedding},
            {"norms", p.norms},
            {"active", p.active},
            {"published", m.published_params ? json(*m.published_params) : json(nullptr)}}},
          {"flops_per_token",
           {{"forward", a.flops.forward},
            {"train", a.flops.train},
            {"train_with_attention", a.flops.train_with_attention},
            {"forward_with_attention", a.flops.forward_with_attention},
            {"seq_len", a.query.seq_len}}},
          {"kv_cache_bytes_per_token", a.kv_cache_bytes_per_token},
          {"weight_bytes", a.weight_bytes},
          {"training_state_bytes",
           {{"params", t.params},
            {"grads", t.grads},
            {"optimizer", t.optimizer},
            {"activations", t.activations},
            {"total", t.total}}},
          {"workload",
           {{"batch_tokens", a.query.training.batch_tokens},
            {"seq_len", a.query.seq_len},
            {"remat", remat.checkpoints_per_layer > 0 ? json{{"checkpoints_per_layer", remat.checkpoints_per_layer}}
                                                      : json("none")},
            {"weight_dtype", dtype_name(a.query.training.param_dtype)},
            {"kv_dtype", dtype_name(a.query.kv_dtype)},
            {"master_weights", a.query.training.master_weights}}}};
}

}  // namespace podsim::report
