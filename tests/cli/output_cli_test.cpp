// Issue 33, class 5: outputs are written whole or not at all, and never over an input or another output. Every
// output file goes through one writer (sim/report/output_file.hpp): a temporary file beside the destination,
// checked and renamed when complete; a failure leaves the destination as it was and exits 2, located at the flag.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tests/cli/cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using podsim::test::CliRun;
using podsim::test::run_podsim;

// A fresh folder of its own for each test, with the toy plan scenario in it.
struct OutputTestFolder {
  fs::path dir;
  fs::path scenario;
  explicit OutputTestFolder(const std::string& name) {
    dir = fs::temp_directory_path() / ("podsim_out_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    scenario = podsim::test::write_toy_plan(dir / "toy.json");
  }
  ~OutputTestFolder() { fs::remove_all(dir); }
  std::string operator/(const std::string& file) const { return (dir / file).string(); }
  // The names in the folder, sorted: no temporary file may be left.
  std::string listing() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
      names.insert(entry.path().filename().string());
    std::string out;
    for (const auto& n : names)
      out += n + " ";
    return out;
  }
};

std::string output_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OutputCli, AWriteThatFailsLeavesTheFileAsItWas) {
  const OutputTestFolder f("fsize");
  std::ofstream(f / "report.html") << "the report of yesterday\n";
  // Under a file-size limit of one block the HTML report (several KB) cannot be written: EFBIG, not a signal.
  const CliRun run =
      run_podsim("plan " + f.scenario.string() + " --top 1 --report " + (f / "report.html"), "ulimit -f 1; exec ");
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_EQ(run.err,
            "error: --report: cannot write the file whole (a full disk, a file-size limit or an I/O error), "
            "got: " +
                (f / "report.html") + "\n");
  EXPECT_EQ(output_text(f / "report.html"), "the report of yesterday\n");
  EXPECT_EQ(f.listing(), "report.html toy.json ");
}

TEST(OutputCli, ARefusedCommandWritesNoOutput) {
  const OutputTestFolder f("refused");
  std::ofstream(f / "trace.json") << "{}\n";
  // The ranking has 5 rows (write_toy_plan): --candidate 99 is refused after the search, when both outputs are open.
  const CliRun run = run_podsim("plan " + f.scenario.string() + " --top 1 --report " + (f / "new.html") + " --trace " +
                                (f / "trace.json") + " --candidate 99");
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_EQ(run.err, "error: --candidate: the ranking has 5 candidates, got: 99\n");
  EXPECT_EQ(output_text(f / "trace.json"), "{}\n");
  EXPECT_EQ(f.listing(), "toy.json trace.json ");
}

TEST(OutputCli, AnOutputThatIsAnInputOrAnotherOutputIsRefused) {
  const OutputTestFolder f("same");
  const std::string toy = f.scenario.string();
  const std::string before = output_text(toy);
  const auto expect = [](const std::string& args, const std::string& err) {
    const CliRun run = run_podsim(args);
    EXPECT_EQ(run.code, 2) << args << ": " << run.err;
    EXPECT_EQ(run.err, err) << args;
  };
  expect("plan " + toy + " --report " + (f / "x") + " --trace " + (f / "x"),
         "error: --trace: the same file as --report: give each output its own file, got: " + (f / "x") + "\n");
  // The scenario named another way (through "..") is still the scenario.
  const std::string other_name = (f.dir / ".." / f.dir.filename() / "toy.json").string();
  expect("plan " + toy + " --report " + other_name,
         "error: --report: the same file as the input scenario, which it would overwrite, got: " + other_name + "\n");
  expect("run " + toy + " --trace " + toy,
         "error: --trace: the same file as the input scenario, which it would overwrite, got: " + toy + "\n");
  expect("import " + toy + " -o " + toy,
         "error: --output: the same file as the input file, which it would overwrite, got: " + toy + "\n");
  fs::create_directories(f.dir / "results");
  std::ofstream(f / "results/results.jsonl") << "";
  expect("sweep report " + (f / "results") + " --report " + (f / "results/results.jsonl"),
         "error: --report: the same file as the input results file, which it would overwrite, got: " +
             (f / "results/results.jsonl") + "\n");
  expect("sweep merge " + (f / "results") + " --out " + (f / "results"),
         "error: --out: the same file as the input shard's results file, which it would overwrite, got: " +
             (f / "results/results.jsonl") + "\n");
  expect("plan " + toy + " --report " + f.dir.string(),
         "error: --report: a folder, not a file, got: " + f.dir.string() + "\n");
  EXPECT_EQ(output_text(toy), before);
  EXPECT_EQ(f.listing(), "results toy.json ");
}

TEST(OutputCli, StandardOutputThatCannotBeWrittenIsAnError) {
  const CliRun run = run_podsim("hardware >/dev/full");
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_EQ(run.err, "error: standard output: cannot write (No space left on device)\n");
}

TEST(OutputCli, AWrittenOutputReplacesTheOldOneWithTheNewFilesMode) {
  const OutputTestFolder f("ok");
  std::ofstream(f / "report.html") << "old\n";
  const CliRun run = run_podsim("plan " + f.scenario.string() + " --top 1 --report " + (f / "report.html"));
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string html = output_text(f / "report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 40);
  EXPECT_EQ(f.listing(), "report.html toy.json ");
  // Readable by others as any new file under the usual umask (not mkstemp's 0600).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(static_cast<mode_t>(fs::status(f / "report.html").permissions()) & 0777, 0666 & ~mask);
}

}  // namespace
