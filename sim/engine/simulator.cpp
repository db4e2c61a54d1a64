// simulate() and simulate_all(): validate in the parent, run each graph in a forked child (graph_runner), decode
// its task timings, and compute the traffic ledger in the parent.
#include "sim/engine/simulator.hpp"

#include "sim/engine/fork_runner.hpp"
#include "sim/engine/graph_runner.hpp"
#include "sim/engine/input_check.hpp"
#include "sim/engine/link_ledger.hpp"
#include "sim/engine/result_codec.hpp"
#include "sim/engine/validated_run.hpp"

namespace podsim {
namespace engine {

SimulationResult run_validated(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes) {
  const std::vector<std::string> outputs =
      run_in_children({[&] { return encode_run(run_event_graph(network, graph, routes)); }}, 1);
  SimulationResult result;
  GraphRun run = decode_run(outputs.front());
  result.tasks = std::move(run.tasks);
  result.wall_s = run.wall_s;
  result.simulated_tasks = result.tasks.size();
  result.child_rss_growth_bytes = run.rss_growth_bytes;
  fill_ledger(network, graph, routes, result);
  return result;
}

}  // namespace engine

SimulationResult simulate(const NetworkSpec& network, const EventGraph& graph) {
  return simulate_all({{&network, &graph}}, 1).front();
}

std::vector<SimulationResult> simulate_all(const std::vector<std::pair<const NetworkSpec*, const EventGraph*>>& runs,
                                           int parallel) {
  std::vector<engine::RouteTable> routes;
  routes.reserve(runs.size());
  for (const auto& [network, graph] : runs)
    routes.push_back(engine::check_simulation_input(*network, *graph));

  std::vector<engine::ChildWork> works;
  for (std::size_t i = 0; i < runs.size(); ++i)
    works.emplace_back([&runs, &routes, i] {
      return engine::encode_run(engine::run_event_graph(*runs[i].first, *runs[i].second, routes[i]));
    });
  const std::vector<std::string> outputs = engine::run_in_children(works, parallel);

  std::vector<SimulationResult> results(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    engine::GraphRun run = engine::decode_run(outputs[i]);
    results[i].tasks = std::move(run.tasks);
    results[i].wall_s = run.wall_s;
    results[i].simulated_tasks = results[i].tasks.size();
    results[i].child_rss_growth_bytes = run.rss_growth_bytes;
    engine::fill_ledger(*runs[i].first, *runs[i].second, routes[i], results[i]);
  }
  return results;
}

}  // namespace podsim
