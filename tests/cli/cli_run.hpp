// Runs the built podsim program for end-to-end tests: stdout, stderr and the exit code.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace podsim::test {

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `podsim ARGS` (ARGS already shell-quoted) and captures stdout, stderr and the exit code. `before` is shell
// text run first in the same shell, e.g. "ulimit -f 1; exec " to run podsim under a file-size limit.
inline CliRun run_podsim(const std::string& args, const std::string& before = "") {
  const auto err_path = std::filesystem::temp_directory_path() / ("podsim_cli_" + std::to_string(getpid()) + ".err");
  const std::string command = before + std::string(PODSIM_BINARY) + " " + args + " 2>" + err_path.string();
  CliRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::stringstream text;
  text << err.rdbuf();
  run.err = text.str();
  std::filesystem::remove(err_path);
  return run;
}

// The run's stdout parsed as JSON.
inline nlohmann::json json_of(const CliRun& run) {
  return nlohmann::json::parse(run.out);
}

// The JSON document in the file at `path`.
inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// A tiny training scenario written to `path` (returned): slices 2x2 and 4x4, data and tensor: 2^2 + 2^2 = 8
// candidates (one rejected: 16-way tensor over 4 heads), none with stages; 6 rows, as data=Y tensor=X is the mirror
// image of data=X tensor=Y on each square slice. `extra` adds top-level members
// (`, "key": value`).
inline std::filesystem::path write_toy_plan(const std::filesystem::path& path, const std::string& extra = "") {
  std::ofstream(path) << R"({"name": "toy-plan", "hardware": "tpu-v5e",
    "model": {"layers": 2, "d_model": 256, "d_ff": 1024, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 1024},
    "workload": {"mode": "train", "batch_tokens": 65536, "seq_len": 1024, "checkpoints_per_layer": 1},
    "search": {"slices": [[2, 2], [4, 4]], "parallelism": ["data", "tensor"]})"
                      << extra << "}\n";
  return path;
}

}  // namespace podsim::test
