// Exit codes of the podsim program (tools/podsim/main.cpp): a simulation child that dies is an internal error
// (exit 3, `internal error: ...` on stderr), not bad input. No flag makes a child crash: the test kills the child
// of a real simulation from outside, as the kernel's out-of-memory killer would.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/cli_run.hpp"

namespace {

// The pid of a running (not yet exited) child process of `parent`, or -1 (scans /proc/PID/stat: the third field is
// the state, the fourth the parent's pid).
pid_t child_of(pid_t parent) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const std::size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent && state != 'Z') return static_cast<pid_t>(std::stoi(name));
  }
  return -1;
}

TEST(MainCli, AKilledSimulationChildIsAnInternalErrorWithExitCodeThree) {
  // A full simulation that runs for about a second in its child: concurrent axes on a mesh without wraparound (a
  // torus would take the translation quotient; here the parts' reductions share each chip, so no shortcut holds).
  const std::vector<std::string> args = {PODSIM_BINARY,  "collective", "--hardware",    "tpu-v5p",
                                         "--slice",      "8x8x8",      "--wrap",        "none",
                                         "--op",         "all-reduce", "--axes",        "X,Y,Z",
                                         "--multi-axis", "concurrent", "--array-bytes", "1000000000"};
  const auto err_path =
      std::filesystem::temp_directory_path() / ("podsim_main_cli_" + std::to_string(getpid()) + ".err");
  const pid_t podsim = fork();
  ASSERT_GE(podsim, 0);
  if (podsim == 0) {
    std::FILE* err = std::freopen(err_path.c_str(), "w", stderr);
    std::FILE* out = std::freopen("/dev/null", "w", stdout);
    if (err == nullptr || out == nullptr) _exit(127);
    // Under -DPODSIM_SANITIZE=ON, LeakSanitizer's check at exit runs in a cloned tracer process, a child of podsim
    // that the loop below would kill again and again (podsim then never ends); this podsim checks no leaks.
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string asan_options = std::string(asan != nullptr ? asan : "") + ":detect_leaks=0";
    setenv("ASAN_OPTIONS", asan_options.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& arg : args)
      argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(PODSIM_BINARY, argv.data());
    _exit(127);
  }
  // Kill every simulation child podsim starts until podsim ends (a child that was exiting on its own when it was
  // found leaves the next one to be killed); podsim itself must survive and report it.
  bool killed = false;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (waitpid(podsim, &status, WNOHANG) == 0) {
    const pid_t child = child_of(podsim);
    if (child > 0 && kill(child, SIGKILL) == 0) killed = true;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(podsim, SIGKILL);
      waitpid(podsim, &status, 0);
      FAIL() << "podsim did not end";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::ifstream err_file(err_path);
  std::stringstream err;
  err << err_file.rdbuf();
  std::filesystem::remove(err_path);
  ASSERT_TRUE(killed) << "the simulation ended before its child was found; stderr: " << err.str();
  ASSERT_TRUE(WIFEXITED(status)) << "podsim itself died";
  EXPECT_EQ(WEXITSTATUS(status), 3) << err.str();
  EXPECT_EQ(err.str().rfind("internal error: simulation failed: child killed by signal 9 (Killed)", 0), 0u)
      << err.str();
}

TEST(MainCli, BadInputStillExitsTwo) {
  const podsim::test::CliRun run =
      podsim::test::run_podsim("collective --slice 4 --op all-gather --axes X --array-bytes 4000 --hop-latency -1us");
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_EQ(run.err.rfind("error: --hop-latency: ", 0), 0u) << run.err;
}

// Issue 33, class 6: a command line CLI11 refuses is said in podsim's form, `error: WHERE: WHAT`, exit 2 (it was
// CLI11's own words, "dirs is required" and "Run with --help for more information.", without `error:`).
TEST(MainCli, CommandLineErrorsUsePodsimsErrorForm) {
  const auto expect = [](const std::string& args, const std::string& err) {
    const podsim::test::CliRun run = podsim::test::run_podsim(args);
    EXPECT_EQ(run.code, 2) << args;
    EXPECT_EQ(run.err, err) << args;
    EXPECT_EQ(run.out, "") << args;
  };
  expect("sweep merge", "error: command line: dirs is required (--help lists the options)\n");
  expect("plan x --top abc", "error: command line: Could not convert: --top = abc (--help lists the options)\n");
  // Class 4: a path with control characters is echoed escaped, never as bytes a terminal would obey.
  expect("run \"$(printf 'no\\033[31mfile.json')\"", "error: no\\x1b[31mfile.json: cannot open file\n");
  const podsim::test::CliRun help = podsim::test::run_podsim("plan --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_EQ(help.out.rfind("Capacity planning", 0), 0u) << help.out.substr(0, 80);
}

// Issue 33, class 2: whatever path is given as an input, podsim reads regular files only, bounded, and a path the
// system refuses is a located input error: never a hang (a FIFO with no writer), an unbounded read (/dev/zero), a
// folder read as empty JSON, or a std::filesystem exception as an internal error.
TEST(MainCli, InputPathsThatAreNotFilesExitTwoLocated) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("podsim_paths_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "folder");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_symlink(dir / "loop_b", dir / "loop_a");
  fs::create_symlink(dir / "loop_a", dir / "loop_b");
  const std::string long_name = (dir / (std::string(6000, 'a') + ".json")).string();
  const auto expect = [](const std::string& args, const std::string& err) {
    const podsim::test::CliRun run = podsim::test::run_podsim(args);
    EXPECT_EQ(run.code, 2) << args << ": " << run.err;
    EXPECT_EQ(run.err, err) << args;
  };
  const std::string regular = "not a regular file (a device, a FIFO or a socket): podsim reads regular files only\n";
  expect("run /dev/zero", "error: /dev/zero: " + regular);
  expect("run " + (dir / "fifo").string(), "error: " + (dir / "fifo").string() + ": " + regular);
  expect("model describe --config /dev/urandom", "error: /dev/urandom: " + regular);
  expect("model describe --config " + (dir / "folder").string(),
         "error: " + (dir / "folder").string() + ": a folder, not a file\n");
  expect("validate " + (dir / "fifo").string(),
         "error: " + (dir / "fifo").string() + ": cannot read the folder (nor a file of that name)\n");
  expect("run " + (dir / "loop_a").string(),
         "error: " + (dir / "loop_a").string() + ": Too many levels of symbolic links\n");
  const podsim::test::CliRun long_run = podsim::test::run_podsim("run " + long_name);
  EXPECT_EQ(long_run.code, 2) << long_run.err;
  EXPECT_NE(long_run.err.find("...: File name too long\n"), std::string::npos) << long_run.err.size();
  EXPECT_LT(long_run.err.size(), 200u) << "the name is cut as echoed values are";
  fs::remove_all(dir);
}

}  // namespace
