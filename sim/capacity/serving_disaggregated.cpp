// A disaggregated serving scenario run end to end (serving_disaggregated.hpp).
#include "sim/capacity/serving_disaggregated.hpp"

#include <string>

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/model/transformer.hpp"
#include "sim/scenario/serving_pools.hpp"

namespace podsim {
namespace {

ServingPoolDeployment pool_deployment(const ServingReplicaModel& model, std::int64_t replicas, double link_Bps) {
  const Candidate& c = model.candidate();
  ServingPoolDeployment pool;
  pool.hardware = c.hardware.name;
  pool.slice = format_dims(c.slice);
  pool.parallelism = c.parallelism.to_string();
  pool.chips_per_replica = c.chips();
  pool.replicas = replicas;
  pool.kv_capacity_tokens = model.kv_capacity_tokens();
  pool.max_num_seqs = model.scheduler().max_num_seqs;
  pool.max_num_batched_tokens = model.scheduler().max_num_batched_tokens;
  pool.kv_link_Bps = link_Bps;
  return pool;
}

}  // namespace

ServingOutcome run_disaggregated_scenario(const ScenarioSpec& spec, const ServingRunOptions& options) {
  if (!options.plan.empty())
    throw ServingRunError(ServingRunOptions::Field::plan,
                          "a disaggregated scenario's pools give their parallelism, got: " + options.plan);
  const ServeSpec& serve = *spec.serve;
  const DisaggregatedSpec& pools = *serve.disaggregated;
  const ScenarioSpec prefill_spec = serving_pool_scenario(spec, pools.prefill);
  const ScenarioSpec decode_spec = serving_pool_scenario(spec, pools.decode);
  const ServingReplicaModel prefill(prefill_spec, serving_plan_candidate(prefill_spec, ""), std::nullopt,
                                    options.evaluator);
  const ServingReplicaModel decode(decode_spec, serving_plan_candidate(decode_spec, ""), std::nullopt,
                                   options.evaluator);
  const KvLinkFigures prefill_link = kv_link_figures(prefill_spec, pools.prefill, pools.kv_link);
  const KvLinkFigures decode_link = kv_link_figures(decode_spec, pools.decode, pools.kv_link);

  ServingRunSpec run;
  run.keep_steps = options.keep_steps;
  run.traffic = serve.traffic;
  run.routing = serve.routing;
  DisaggregatedRunSpec& kv = run.disaggregated.emplace();
  kv.prefill_replicas = pools.prefill.replicas;
  // The model's KV per token, every layer, at the KV dtype (what each replica's cache holds, before its tensor axes
  // pad the KV heads): the bytes a prompt token's transfer moves.
  kv.kv_bytes_per_token = kv_cache_bytes_per_token(spec.model->dims, spec.workload->kv_dtype);
  kv.kv_latency_s = prefill_link.latency_s;  // the sender's egress carries it (kv_network.hpp)
  kv.kv_tier = pools.kv_link == KvLink::ici ? LinkTier::ici : LinkTier::dcn;
  const auto add_pool = [&run](const ServingReplicaModel& model, std::int64_t replicas, double link_Bps) {
    const StepTimeFn step = [&model](const BatchSignature& batch) { return model.step_model().step_s(batch); };
    for (std::int64_t r = 0; r < replicas; ++r)
      run.replicas.push_back(ServingReplicaSpec{model.scheduler(), step, link_Bps});
  };
  const double prefill_Bps = static_cast<double>(prefill.candidate().chips()) * prefill_link.per_chip_Bps;
  const double decode_Bps = static_cast<double>(decode.candidate().chips()) * decode_link.per_chip_Bps;
  add_pool(prefill, pools.prefill.replicas, prefill_Bps);
  add_pool(decode, pools.decode.replicas, decode_Bps);

  ServingOutcome out;
  out.traffic = traffic_text(serve.traffic);
  ServingDeployment& d = out.deployment;
  ServingDisaggregation& dis = d.disaggregated.emplace();
  dis.prefill = pool_deployment(prefill, pools.prefill.replicas, prefill_Bps);
  dis.decode = pool_deployment(decode, pools.decode.replicas, decode_Bps);
  dis.kv_link = std::string(kKvLinkNames.name(pools.kv_link));
  dis.kv_link_per_chip_Bps = prefill_link.per_chip_Bps;
  dis.kv_latency_s = kv.kv_latency_s;
  dis.kv_bytes_per_token = kv.kv_bytes_per_token;
  d.hardware = dis.prefill.hardware == dis.decode.hardware ? dis.prefill.hardware
                                                           : dis.prefill.hardware + " + " + dis.decode.hardware;
  d.slice = "prefill " + dis.prefill.slice + " + decode " + dis.decode.slice;
  d.parallelism = "prefill " + dis.prefill.parallelism + "; decode " + dis.decode.parallelism;
  d.chips_per_replica = dis.decode.chips_per_replica;
  d.replicas = pools.prefill.replicas + pools.decode.replicas;
  d.kv_capacity_tokens = dis.decode.kv_capacity_tokens;
  d.kv_block_tokens = decode.scheduler().kv_block_tokens;
  d.max_num_seqs = dis.decode.max_num_seqs;
  d.max_num_batched_tokens = dis.decode.max_num_batched_tokens;
  d.chunked_prefill = decode.scheduler().chunked_prefill;
  d.routing = std::string(kRoutingNames.name(serve.routing));
  d.step_model = fmt::format("{}, interpolated over {} + {} model evaluations (prefill + decode pools)",
                             options.evaluator == StepEvaluator::book ? "book" : "des",
                             prefill.step_model().evaluations(), decode.step_model().evaluations());
  out.run = simulate_serving(run);
  out.slo = decode.slo();
  out.metrics = serving_metrics(out.run.completed, out.run.itl, d.chips(), out.slo);
  out.checks = check_slo(out.metrics, out.slo);
  return out;
}

}  // namespace podsim
