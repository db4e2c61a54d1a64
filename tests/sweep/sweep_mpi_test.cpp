// `mpirun -n 2 podsim sweep` (docs/sweeps.md, "Across machines"): the results files equal, byte for byte, those of
// a single-process run of the same sweep, book and des; only rank 0 reports (one summary line, progress lines ending
// with one for all points, nothing from Open MPI); a resumed run across ranks skips the points already written; Ctrl-C
// to mpirun leaves whole lines that a resumed run completes. Registered only when podsim is built with MPI
// (PODSIM_WITH_MPI).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/support/sweep_files.hpp"

namespace {

namespace fs = std::filesystem;
using podsim::test::read_text;
using podsim::test::sweep_file;

// A fresh folder for one test.
fs::path mpi_dir(const std::string& name) {
  return podsim::test::fresh_dir("podsim_sweep_mpi", name);
}

// Running as root (CI, containers) needs --allow-run-as-root; --oversubscribe lets 2 ranks start on any machine.
// In the sanitizer build LeakSanitizer would report Open MPI's own allocations (kept until exit, in components it
// has unloaded by then, so no suppression can name them): leaks are checked by every test that runs podsim alone.
const std::string kMpirun = "env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 " +
                            std::string(PODSIM_MPIEXEC) + " --allow-run-as-root --oversubscribe -n 2 ";

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs COMMAND through the shell: stdout, stderr, exit code.
Outcome run_shell(const std::string& command, const fs::path& dir) {
  const auto err_path = dir / "stderr.txt";
  Outcome result;
  FILE* pipe = popen((command + " 2>" + err_path.string()).c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (std::size_t n = 0; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
    result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  return result;
}

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// 4 batch sizes x 3 chip generations: 12 points.
const std::string kTwelve = R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 2048, "stop": 8192, "step": 2048}},
                                {"pointer": "/hardware", "values": ["tpu-v5e", "tpu-v6e", "tpu-v5p"]}])";

// A single-process run and a run over 2 ranks write the same bytes; rank 0 alone prints the summary and progress.
void expect_ranks_write_one_process_bytes(const std::string& parameters, const std::string& model, std::size_t points) {
  const auto dir = mpi_dir(model);
  const auto sweep = sweep_file(dir, parameters).string();
  const std::string flags = " --model " + model;
  const Outcome one = run_shell(
      std::string(PODSIM_BINARY) + " sweep " + sweep + " --out " + (dir / "one").string() + flags + " --jobs 1", dir);
  ASSERT_EQ(one.code, 0) << one.err;
  const Outcome ranks =
      run_shell(kMpirun + PODSIM_BINARY + " sweep " + sweep + " --out " + (dir / "ranks").string() + flags, dir);
  ASSERT_EQ(ranks.code, 0) << ranks.err;
  EXPECT_EQ(line_count(read_text(dir / "one" / "results.jsonl")), points);
  EXPECT_EQ(read_text(dir / "ranks" / "results.jsonl"), read_text(dir / "one" / "results.jsonl"));
  EXPECT_EQ(read_text(dir / "ranks" / "results.csv"), read_text(dir / "one" / "results.csv"));
  const std::string n = std::to_string(points);
  EXPECT_EQ(ranks.out, (dir / "ranks" / "results.jsonl").string() + ": " + n + " points (" + n +
                           " evaluated, 0 already there, 0 failed)\n");
  // stderr is not a terminal: progress lines (one every 5 s, so a slow or loaded machine prints some before the
  // last), from rank 0 only (one line for all n points), ending with that line, and nothing from Open MPI.
  std::istringstream lines(ranks.err);
  std::string line, last;
  std::size_t finals = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("sweep: ", 0), 0u) << ranks.err;
    if (line.rfind("sweep: " + n + "/" + n + " points, ", 0) == 0) ++finals;
    last = line;
  }
  EXPECT_EQ(finals, 1u) << ranks.err;
  EXPECT_EQ(last.rfind("sweep: " + n + "/" + n + " points, ", 0), 0u) << ranks.err;
  fs::remove_all(dir);
}

TEST(SweepMpi, TwoRanksWriteTheBytesOfOneProcessBook) {
  expect_ranks_write_one_process_bytes(kTwelve, "book", 12);
}

TEST(SweepMpi, TwoRanksWriteTheBytesOfOneProcessDes) {
  expect_ranks_write_one_process_bytes(R"([{"pointer": "/tensors/x/shape/0", "values": [2048, 4096, 8192, 16384]},
                                           {"pointer": "/hardware", "values": ["tpu-v5e", "tpu-v6e"]}])",
                                       "des", 8);
}

TEST(SweepMpi, AResumedRunSkipsThePointsAlreadyWritten) {
  const auto dir = mpi_dir("resume");
  const auto sweep = sweep_file(dir, kTwelve).string();
  ASSERT_EQ(run_shell(std::string(PODSIM_BINARY) + " sweep " + sweep + " --out " + (dir / "full").string(), dir).code,
            0);
  const std::string full = read_text(dir / "full" / "results.jsonl");
  // An interrupted run: 5 whole lines and half of the sixth.
  std::size_t cut = 0;
  for (int i = 0; i < 5; ++i)
    cut = full.find('\n', cut) + 1;
  fs::create_directories(dir / "part");
  std::ofstream(dir / "part" / "results.jsonl") << full.substr(0, cut + 40);
  const Outcome resumed =
      run_shell(kMpirun + PODSIM_BINARY + " sweep " + sweep + " --out " + (dir / "part").string(), dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("12 points (7 evaluated, 5 already there, 0 failed)"), std::string::npos) << resumed.out;
  EXPECT_EQ(read_text(dir / "part" / "results.jsonl"), full);
  EXPECT_EQ(read_text(dir / "part" / "results.csv"), read_text(dir / "full" / "results.csv"));
  // The written records are kept, not evaluated again: a marker put in them survives a resume across ranks.
  std::string marked = full.substr(0, cut);
  marked.replace(marked.find("\"fits_hbm\":"), 11, "\"fits_hbm_kept\":");
  std::ofstream(dir / "part" / "results.jsonl", std::ios::trunc) << marked;
  ASSERT_EQ(run_shell(kMpirun + PODSIM_BINARY + " sweep " + sweep + " --out " + (dir / "part").string(), dir).code, 0);
  EXPECT_NE(read_text(dir / "part" / "results.jsonl").find("\"fits_hbm_kept\":"), std::string::npos);
  fs::remove_all(dir);
}

// SIGINT to mpirun (what Ctrl-C sends) once 2 records are written: rank 0 keeps whole lines, rewrites the CSV from
// them and says so; running the same command again evaluates only the rest and completes the sweep. The wait for the
// records polls the file; nothing here depends on how fast podsim is.
TEST(SweepMpi, CtrlCToMpirunLeavesWholeLinesAndTheResumeCompletesThem) {
  const auto dir = mpi_dir("interrupt");
  const auto sweep =
      sweep_file(dir, R"([{"pointer": "/tensors/x/shape/0", "range": {"start": 256, "stop": 40960, "step": 256}}])")
          .string();
  const auto out = dir / "ranks";
  const std::string command = kMpirun + PODSIM_BINARY + " sweep " + sweep + " --out " + out.string() + " --model des";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);  // mpirun alone gets the signal, as from a terminal's Ctrl-C to its job
    const std::string redirected =
        "exec " + command + " >" + (dir / "out.txt").string() + " 2>" + (dir / "err.txt").string();
    execl("/bin/sh", "sh", "-c", redirected.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (line_count(read_text(out / "results.jsonl")) < 2 && waitpid(pid, &status, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGINT);
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);  // mpirun's own status for a job it ended (Open MPI 4: 1)
  const std::string text = read_text(out / "results.jsonl");
  const std::size_t written = line_count(text);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_GE(written, 2u);
  EXPECT_LT(written, 160u);  // 256 to 40960 by 256: 160 points
  EXPECT_EQ(line_count(read_text(out / "results.csv")), written + 1);
  EXPECT_NE(read_text(dir / "err.txt").find("sweep: interrupted after "), std::string::npos)
      << read_text(dir / "err.txt");
  const Outcome resumed = run_shell(command, dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("160 points (" + std::to_string(160 - written) + " evaluated, " + std::to_string(written) +
                             " already there, 0 failed)"),
            std::string::npos)
      << resumed.out;
  // Complete: every point once, in point order (the bytes of a single-process run are the other tests' business).
  std::istringstream lines(read_text(out / "results.jsonl"));
  std::size_t point = 0;
  for (std::string line; std::getline(lines, line); ++point)
    EXPECT_EQ(line.rfind("{\"point\":" + std::to_string(point) + ",", 0), 0u) << line.substr(0, 40);
  EXPECT_EQ(point, 160u);
  EXPECT_EQ(line_count(read_text(out / "results.csv")), 161u);
  fs::remove_all(dir);
}

}  // namespace
