// simulate() and simulate_all(): validate in the parent, run each graph in a forked child (graph_runner), decode
// its task timings, and publish the routes and compute the traffic ledger in the parent.
#include "sim/engine/simulator.hpp"

#include <string_view>

#include "sim/engine/fork_runner.hpp"
#include "sim/engine/graph_runner.hpp"
#include "sim/engine/input_check.hpp"
#include "sim/engine/link_ledger.hpp"
#include "sim/engine/result_codec.hpp"
#include "sim/engine/validated_run.hpp"

namespace podsim {
namespace engine {
namespace {

ChildWork simulation_work(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes) {
  return [&network, &graph, &routes] { return encode_run(run_event_graph(network, graph, routes)); };
}

// The result of a graph from what its child returned: the timings, then the routes the parent resolved.
SimulationResult result_of(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes,
                           std::string_view child_output) {
  GraphRun run = decode_run(child_output);
  SimulationResult result;
  result.tasks = std::move(run.tasks);
  result.wall_s = run.wall_s;
  result.simulated_tasks = result.tasks.size();
  result.child_rss_growth_bytes = run.rss_growth_bytes;
  publish_routes(graph, routes, result);
  fill_ledger(network, graph, result);
  return result;
}

}  // namespace

SimulationResult run_validated(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes) {
  const std::vector<std::string> outputs = run_in_children({simulation_work(network, graph, routes)}, 1);
  return result_of(network, graph, routes, outputs.front());
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
    works.push_back(engine::simulation_work(*runs[i].first, *runs[i].second, routes[i]));
  const std::vector<std::string> outputs = engine::run_in_children(works, parallel);

  std::vector<SimulationResult> results;
  results.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i)
    results.push_back(engine::result_of(*runs[i].first, *runs[i].second, routes[i], outputs[i]));
  return results;
}

}  // namespace podsim
