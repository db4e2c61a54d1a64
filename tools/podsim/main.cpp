// The podsim program: parses the command line, runs one subcommand, maps errors to exit codes
// (0 ok, 1 a check failed, 2 bad input with `error: WHERE: WHAT` on stderr, 3 an internal error with
// `internal error: WHAT` on stderr).
#include <unistd.h>

#include <csignal>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"
#include "sim/report/output_file.hpp"
#include "sim/scenario/json_text.hpp"
#include "tools/podsim/command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"podsim: a discrete-event simulator of TPU pods and their ICI network", "podsim"};
  app.set_version_flag("--version", "podsim 0.1.0");
  app.require_subcommand(1);
  podsim::cli::Action action;
  for (const auto& command : podsim::cli::kCommands)
    command.add(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A command line CLI11 refuses: podsim's error form, `error: WHERE: WHAT` (issue 33, class 6).
    std::cerr << "error: command line: " << podsim::terminal_safe(e.what()) << " (--help lists the options)\n";
    return 2;
  }
  // A write past a file-size limit (ulimit -f) fails with EFBIG and is reported as any failed write, instead of
  // killing the process (the signal's default action) with a file half written.
  std::signal(SIGXFSZ, SIG_IGN);
  // On a terminal, text reports escape the control characters of names and paths (issue 33, class 4); a pipe or a
  // file gets the bytes as they are (JSON escapes them itself).
  podsim::report::TerminalSafeBuffer terminal(std::cout.rdbuf());
  struct Restore {  // std::cout outlives main: it must not keep a buffer that ends with it
    std::streambuf* original;
    ~Restore() {
      std::cout.flush();
      std::cout.rdbuf(original);
    }
  } restore{std::cout.rdbuf()};
  if (::isatty(STDOUT_FILENO) == 1) std::cout.rdbuf(&terminal);
  try {
    const int code = action ? action() : 0;
    podsim::report::check_standard_output();
    return code;
  } catch (const podsim::Error& e) {
    std::cerr << "error: " << podsim::terminal_safe(e.what()) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "error: " << podsim::terminal_safe(podsim::input_error_of(e).what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {  // never a candidate's "rejected" reason: the answer must not depend on the machine
    std::cerr << "error: out of memory: the run needs more memory than this process may take (docs/reliability.md, "
                 "\"Limits that protect the machine\")\n";
    return 2;
  } catch (const std::exception& e) {  // podsim::InternalError (a crashed simulation child) or anything unexpected
    std::cerr << "internal error: " << podsim::terminal_safe(e.what()) << "\n";
    return 3;
  } catch (...) {
    std::cerr << "internal error: unknown exception\n";
    return 3;
  }
}
