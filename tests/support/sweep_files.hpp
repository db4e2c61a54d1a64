// Files of a `podsim sweep` test: a fresh folder, a sweep file over a base scenario, the records a run wrote, and a
// file's bytes. Shared by the sweep tests of tests/cli and tests/sweep.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace podsim::test {

// The shipped FSDP MLP example, the base of most sweep tests.
inline const std::string kMlpExample = std::string(PODSIM_SOURCE_DIR) + "/scenarios/examples/mlp-v5e-4x4.json";

// An empty folder of its own under the system's temporary folder: `prefix`_`name`_PID.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (prefix + "_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The file's bytes ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The records of `dir`/results.jsonl, in file order.
inline std::vector<nlohmann::ordered_json> sweep_records(const std::filesystem::path& dir) {
  std::vector<nlohmann::ordered_json> out;
  std::ifstream in(dir / "results.jsonl");
  for (std::string line; std::getline(in, line);)
    out.push_back(nlohmann::ordered_json::parse(line));
  return out;
}

// `dir`/sweep.json: a sweep over `base` with the given "parameters" array (JSON text).
inline std::filesystem::path sweep_file(const std::filesystem::path& dir, const std::string& parameters,
                                        const std::string& base = kMlpExample) {
  const auto path = dir / "sweep.json";
  std::ofstream(path) << R"({"base": ")" << base << R"(", "parameters": )" << parameters << "}\n";
  return path;
}

}  // namespace podsim::test
