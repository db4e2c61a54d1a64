// `podsim sweep SWEEP.json --out DIR` runs a sweep (docs/sweeps.md), `podsim sweep merge DIR... --out DIR` joins
// shards and `podsim sweep report DIR... --report FILE.html` draws results folders (also `--report` on a run). Exit
// codes: 0 when the sweep ran (points that failed are records with `error` set), 2 for a bad sweep file or flag, 3 when
// a worker process died, 128 + the signal when stopped by SIGINT (130) or SIGTERM (143, a batch system's preemption):
// whole lines kept, resumable.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "models/common/error.hpp"
#include "sim/report/output_file.hpp"
#include "sim/report/sweep_report_html.hpp"
#include "sim/sweep/sweep_launcher.hpp"
#include "sim/sweep/sweep_progress.hpp"
#include "sim/sweep/sweep_results.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"
#ifdef PODSIM_WITH_MPI
#include "sim/sweep/mpi/sweep_ranks.hpp"
#endif

namespace podsim::cli {
namespace {

volatile sig_atomic_t g_interrupted = 0;  // the signal (SIGINT, SIGTERM) that stopped a running sweep, else 0

void on_interrupt(int signal) {
  g_interrupted = signal;
}

struct SweepFlags {
  std::string sweep_file;
  std::string out;
  std::string model = "book";
  std::string shard = "0/1";
  std::optional<std::int64_t> jobs;  // --jobs; absent: the cores (under mpirun, 1 per rank)
  std::string format = "jsonl";
  std::vector<std::string> merge_dirs;
  std::string merge_out;
  std::string report;  // --report FILE.html, on a run or `sweep report`
  std::vector<std::string> report_dirs;
  bool uncalibrated = false;
};

// The files of results folders, named `label` in messages (the inputs an output must not overwrite).
std::vector<report::OutputPath> results_files(const std::vector<std::string>& dirs, const std::string& label) {
  std::vector<report::OutputPath> files;
  for (const auto& dir : dirs)
    for (const char* name : {kSweepJsonl, kSweepCsv})
      files.push_back({label, (std::filesystem::path(dir) / name).string()});
  return files;
}

// Draws the records of the results folders `dirs` (several are merged as `sweep merge` does, so shards can be drawn
// without merging them first) into `out`, and replaces its file with it.
void write_report(const std::vector<std::string>& dirs, report::OutputFile& out) {
  const std::vector<std::string> lines = merge_shards(dirs);
  std::string source;
  for (const auto& dir : dirs)
    source += (source.empty() ? "" : ", ") + (std::filesystem::path(dir) / kSweepJsonl).string();
  report::write_sweep_html(report::read_sweep_report_data(lines, source), source, out.stream());
  out.commit();
  std::cout << out.path() << ": the report of " << lines.size() << " points\n";
}

SweepModel parse_model(const std::string& text) {
  if (text == "book") return SweepModel::book;
  if (text == "des") return SweepModel::des;
  if (text == "both") return SweepModel::both;
  throw InputError("--model", "model must be book, des or both, got: " + text);
}

// Progress on stderr: a bar redrawn in place on a terminal (at most ten times a second), else a line every 5 s.
std::function<void(const SweepProgress&)> progress_printer() {
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  auto ended = std::make_shared<bool>(false);
  return [terminal, last, ended](const SweepProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    const bool end = progress.done == progress.total;
    if (*ended || (!end && now - *last < (terminal ? std::chrono::milliseconds(100) : std::chrono::seconds(5)))) return;
    *last = now;
    *ended = end;
    if (terminal)
      std::cerr << "\r" << progress_bar(progress) << "\033[K" << (end ? "\n" : "") << std::flush;
    else
      std::cerr << progress_line(progress) << "\n";
  };
}

// Under mpirun the ranks share the points (sim/sweep/mpi); a build without MPI says so rather than run K copies.
SweepOutcome run_on_ranks(const SweepSpec& spec, const SweepOptions& options, const MpiLaunch& launch) {
#ifdef PODSIM_WITH_MPI
  (void)launch;
  return run_sweep_on_ranks(spec, options);
#else
  (void)spec, (void)options;
  throw InputError("mpirun",
                   "podsim was built without MPI (configure with libopenmpi-dev installed and "
                   "-DPODSIM_WITH_MPI=ON), got: " +
                       launch.variable + "; run podsim sweep without mpirun, or split it with --shard");
#endif
}

std::string flag_of(SweepOptions::Field field) {
  switch (field) {
    case SweepOptions::Field::out_dir:
      return "--out";
  }
  return "--out";
}

int run(const SweepFlags& flags) {
  if (flags.sweep_file.empty())
    throw InputError("sweep", "a sweep file is required: podsim sweep SWEEP.json --out DIR");
  if (flags.out.empty()) throw InputError("--out", "the results folder is required");
  if (flags.format != "jsonl" && flags.format != "csv")
    throw InputError("--format", "format must be jsonl or csv, got: " + flags.format);
  SweepOptions options;
  options.out_dir = flags.out;
  options.model = parse_model(flags.model);
  options.uncalibrated = flags.uncalibrated;
  if (options.uncalibrated && options.model == SweepModel::book)
    throw InputError("--uncalibrated",
                     "the book model never applies a calibration: use --model des or both, got: --model book");
  options.shard = located("--shard", [&] { return parse_shard(flags.shard); });
  const std::optional<MpiLaunch> launch = mpi_launch();  // under mpirun: one worker per rank unless --jobs
  // Each worker is a process: more than kMaxJobs is a typo, not a machine.
  constexpr std::int64_t kMaxJobs = 4096;
  if (flags.jobs && (*flags.jobs < 1 || *flags.jobs > kMaxJobs))
    throw InputError("--jobs", "worker processes must be from 1 to " + std::to_string(kMaxJobs) +
                                   ", got: " + std::to_string(*flags.jobs));
  options.jobs = flags.jobs ? static_cast<std::size_t>(*flags.jobs)
                 : launch   ? 1
                            : std::max(1u, std::thread::hardware_concurrency());
  report::check_outputs({{"--report", flags.report}}, [&] {
    std::vector<report::OutputPath> inputs = results_files({flags.out}, "results file");
    inputs.push_back({"sweep", flags.sweep_file});
    return inputs;
  }());
  const SweepSpec spec = load_sweep(flags.sweep_file);
  // Opened (as a temporary file) before the sweep runs, so that a folder it cannot write stops the sweep before it
  // starts; rank 0 draws it.
  std::optional<report::OutputFile> html;
  if (!flags.report.empty() && (!launch || launch->rank == 0)) html.emplace("--report", flags.report);
  options.progress = progress_printer();
  g_interrupted = 0;  // a process that runs several sweeps (the Python module) starts each one uninterrupted
  options.interrupted = [] { return g_interrupted != 0; };
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  struct sigaction previous_int {};
  struct sigaction previous_term {};
  ::sigaction(SIGINT, &action, &previous_int);
  ::sigaction(SIGTERM, &action, &previous_term);
  const SweepOutcome outcome = at_flags<SweepOptions::Field>(
      [&] { return launch ? run_on_ranks(spec, options, *launch) : run_sweep(spec, options); }, flag_of);
  ::sigaction(SIGINT, &previous_int, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
  if (outcome.rank != 0) return outcome.interrupted ? 128 + g_interrupted : 0;  // rank 0 reports
  const auto& p = outcome.progress;
  if (outcome.interrupted) {
    std::cerr << "sweep: interrupted after " << p.done << " of " << p.total
              << " points; run the same command again to resume\n";
    return 128 + g_interrupted;
  }
  const auto file = std::filesystem::path(flags.out) / (flags.format == "csv" ? kSweepCsv : kSweepJsonl);
  std::cout << file.string() << ": " << p.done + p.skipped << " points (" << p.done << " evaluated, " << p.skipped
            << " already there, " << p.failed << " failed"
            << (p.filtered > 0 ? ", " + std::to_string(p.filtered) + " filtered out" : std::string()) << ")\n";
  if (html) write_report({flags.out}, *html);
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("sweep", "Run a sweep: every point of a sweep file, on all cores, resumable");
  auto flags = std::make_shared<SweepFlags>();
  cmd->add_option("sweep", flags->sweep_file, "The sweep file (JSON, docs/sweeps.md)");
  cmd->add_option("--out", flags->out, "The results folder (results.jsonl, results.csv)");
  cmd->add_option("--model", flags->model, "book (closed form), des or both (simulated, book beside it)")
      ->capture_default_str();
  cmd->add_option("--shard", flags->shard, "i/N: only the points whose index mod N is i")->capture_default_str();
  cmd->add_option("--jobs", flags->jobs, "Worker processes (default: the number of cores; under mpirun, 1 per rank)");
  cmd->add_option("--format", flags->format, "jsonl or csv: the file the summary names (both are written)")
      ->capture_default_str();
  auto* merge = cmd->add_subcommand("merge", "Join shards' results folders into one, as a single run writes it");
  merge->add_option("dirs", flags->merge_dirs, "Shard results folders")->required();
  merge->add_option("--out", flags->merge_out, "The merged results folder")->required();
  cmd->add_flag("--uncalibrated", flags->uncalibrated,
                "Simulate every point with the presets' figures, without their calibration (docs/hardware-model.md)");
  cmd->add_option("--report", flags->report, "Also write a self-contained HTML report of the results to this file");
  auto* draw = cmd->add_subcommand("report", "Draw results folders (shards are merged) as one HTML report");
  draw->add_option("dirs", flags->report_dirs, "Results folders")->required();
  draw->add_option("--report", flags->report, "The HTML file to write")->required();
  cmd->callback([&action, flags, merge, draw] {
    action = [flags, merge, draw] {
      if (draw->parsed()) {
        report::check_outputs({{"--report", flags->report}}, results_files(flags->report_dirs, "results file"));
        report::OutputFile html("--report", flags->report);
        write_report(flags->report_dirs, html);
        return 0;
      }
      if (!merge->parsed()) return run(*flags);
      // The merged folder's files must not be a shard's: merging into a shard would overwrite what it merges.
      const std::vector<report::OutputPath> merged = results_files({flags->merge_out}, "--out");
      report::check_outputs(merged, results_files(flags->merge_dirs, "shard's results file"));
      const std::vector<std::string> lines = merge_shards(flags->merge_dirs);
      std::error_code ec;
      std::filesystem::create_directories(flags->merge_out, ec);
      if (ec) throw InputError("--out", "cannot create the folder, got: " + flags->merge_out);
      write_results(flags->merge_out, lines);
      std::cout << (std::filesystem::path(flags->merge_out) / kSweepJsonl).string() << ": " << lines.size()
                << " points from " << flags->merge_dirs.size() << " shards\n";
      return 0;
    };
  });
}

}  // namespace podsim::cli
