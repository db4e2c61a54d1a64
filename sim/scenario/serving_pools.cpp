// A disaggregated serving scenario's pools as scenarios (serving_pools.hpp).
#include "sim/scenario/serving_pools.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "models/common/error.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim {
namespace {

// A pointer of the pool's own scenario, where the scenario file writes it: its slice, mesh, hardware and plan are
// under the pool's pointer, and so are the limits and replicas the pool gives.
std::string pool_pointer(const std::string& pointer, const ServingPoolSpec& pool) {
  const auto under = [&](const std::string& prefix) { return pointer == prefix || pointer.starts_with(prefix + "/"); };
  for (const char* section : {"/slice", "/mesh", "/hardware"})
    if (under(section)) return pool.pointer + pointer;
  if (under("/plans/0/parallelism")) return pool.pointer + pointer.substr(std::string("/plans/0").size());
  if (under("/plans")) return pool.pointer;
  if (under("/serving/replicas")) return pool.pointer + "/replicas";
  if (under("/serving/max_num_seqs") && pool.max_num_seqs) return pool.pointer + "/max_num_seqs";
  if (under("/serving/max_num_batched_tokens") && pool.max_num_batched_tokens)
    return pool.pointer + "/max_num_batched_tokens";
  return pointer;
}

}  // namespace

ScenarioSpec serving_pool_scenario(const ScenarioSpec& spec, const ServingPoolSpec& pool) {
  if (!spec.serve) throw InternalError("serving_pool_scenario: not a serving scenario");
  ScenarioSpec out = spec;
  out.source_file = "";  // its errors come back as bare pointers, relocated below
  if (pool.hardware) out.hardware = *pool.hardware;
  out.slice_shape = pool.slice_shape;
  out.wrap.reset();
  out.wraparound.clear();
  out.slice_count = 1;
  out.dcn_bandwidth_Bps.reset();  // the pool's DCN figures are its KV link's (kv_link_figures), not a multi-slice's
  out.dcn_latency_s.reset();
  out.mesh = ScenarioMesh{};
  out.mesh.text = pool.mesh;
  ScenarioPlan plan;
  plan.name = pool.pointer.substr(pool.pointer.rfind('/') + 1);
  plan.parallelism = pool.parallelism;
  out.plans = {plan};
  out.search.reset();
  out.expect.clear();
  ServeSpec& serve = *out.serve;
  serve.disaggregated.reset();
  serve.replicas = pool.replicas;
  if (pool.max_num_seqs) serve.scheduler.max_num_seqs = *pool.max_num_seqs;
  if (pool.max_num_batched_tokens) serve.scheduler.max_num_batched_tokens = *pool.max_num_batched_tokens;
  try {
    out = verified(std::move(out));
  } catch (const InputError& e) {
    const std::string where = pool_pointer(e.where(), pool);
    throw InputError(spec.source_file.empty() ? where : spec.source_file + ": " + where, e.message());
  }
  out.source_file = spec.source_file;
  return out;
}

KvLinkFigures kv_link_figures(const ScenarioSpec& pool_scenario, const ServingPoolSpec& pool, KvLink link) {
  const std::string where =
      pool_scenario.source_file.empty() ? pool.pointer : pool_scenario.source_file + ": " + pool.pointer;
  const HardwareSpec& hardware = pool_scenario.hardware.spec;
  if (link == KvLink::ici) {
    if (!hardware.ici.present())
      throw InputError(where, "kv_link \"ici\" needs the preset's ICI link bandwidth, got: none in " + hardware.name);
    return {hardware.ici.bandwidth_Bps, hardware.ici.hop_latency_s};
  }
  const double bandwidth = pool.dcn_bandwidth_Bps.value_or(hardware.dcn_bandwidth_Bps);
  if (pool.dcn_bandwidth_Bps && !(std::isfinite(bandwidth) && bandwidth > 0))
    throw InputError(where + "/slice/dcn/bandwidth_per_chip",
                     "must be finite and > 0 B/s, got: " + std::to_string(bandwidth));
  if (!(bandwidth > 0))
    throw InputError(where + "/slice", "kv_link \"dcn\" needs a DCN bandwidth per chip: the preset " + hardware.name +
                                           " has none, give \"dcn\": {\"bandwidth_per_chip\": ...}, got: none");
  const double latency = pool.dcn_latency_s.value_or(hardware.dcn_latency_s);
  if (!(std::isfinite(latency) && latency >= 0))
    throw InputError(where + "/slice/dcn/latency", "must be finite and >= 0 s, got: " + std::to_string(latency));
  return {bandwidth, latency};
}

}  // namespace podsim
