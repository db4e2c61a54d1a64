// The subcommands of the podsim program. Each file registers one subcommand on the CLI11 app and sets
// the action main() runs after parsing; actions return the exit code (0 ok, 1 a check failed) and throw
// podsim::Error for bad input (exit 2); podsim::InternalError or any other exception exits 3.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace podsim::cli {

using Action = std::function<int()>;

// `podsim shard`: verify a sharding and describe its layout (tools/podsim/shard_command.cpp).
void add_shard_command(CLI::App& app, Action& action);

// `podsim collective`: one collective, book model and simulation (tools/podsim/collective_command.cpp).
void add_collective_command(CLI::App& app, Action& action);

// `podsim run`: run scenarios and report (tools/podsim/run_command.cpp).
void add_run_command(CLI::App& app, Action& action);

// `podsim check`: run scenarios' expectations (tools/podsim/check_command.cpp).
void add_check_command(CLI::App& app, Action& action);

// `podsim hardware`: presets and their figures (tools/podsim/hardware_command.cpp).
void add_hardware_command(CLI::App& app, Action& action);

// `podsim model describe`: a transformer's figures (tools/podsim/model_command.cpp).
void add_model_command(CLI::App& app, Action& action);

// `podsim plan`: capacity planning, candidates screened and simulated, ranked (tools/podsim/plan_command.cpp).
void add_plan_command(CLI::App& app, Action& action);

// `podsim serve`: a serving scenario's requests through its replicas, latencies and goodput
// (tools/podsim/serve_command.cpp).
void add_serve_command(CLI::App& app, Action& action);

// `podsim sweep` and `podsim sweep merge`: points of a sweep file on all cores, shards joined
// (tools/podsim/sweep_command.cpp).
void add_sweep_command(CLI::App& app, Action& action);

// `podsim calibrate`: fit a calibration to measurements, write an overlay (tools/podsim/calibrate_command.cpp).
void add_calibrate_command(CLI::App& app, Action& action);

// `podsim validate`: podsim against published TPU measurements (tools/podsim/validate_command.cpp).
void add_validate_command(CLI::App& app, Action& action);

// `podsim import`: a StableHLO module with Shardy shardings as a scenario (tools/podsim/import_command.cpp).
void add_import_command(CLI::App& app, Action& action);

// `podsim topology`: a slice's hops, links and bisection, or the shapes a generation forms.
void add_topology_command(CLI::App& app, Action& action);

// Every subcommand, by the name the CLI gives it, in the order `podsim --help` lists them: the program registers
// them all, the Python module (python/podsim_module.cpp) finds one by name.
struct CommandEntry {
  const char* name;
  void (*add)(CLI::App&, Action&);
};
inline constexpr CommandEntry kCommands[] = {{"run", add_run_command},           {"check", add_check_command},
                                             {"shard", add_shard_command},       {"collective", add_collective_command},
                                             {"hardware", add_hardware_command}, {"model", add_model_command},
                                             {"plan", add_plan_command},         {"serve", add_serve_command},
                                             {"sweep", add_sweep_command},       {"calibrate", add_calibrate_command},
                                             {"validate", add_validate_command}, {"import", add_import_command},
                                             {"topology", add_topology_command}};

}  // namespace podsim::cli
