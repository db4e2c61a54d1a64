// The sweep runner (sim/sweep/sweep_runner.hpp) refuses a results folder by its option, never by a flag's name: the
// CLI maps out_dir to --out (SweepCli.BadSweepFilesExit2Located).
#include "sim/sweep/sweep_runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/sweep/sweep_spec.hpp"
#include "tests/support/sweep_files.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

TEST(SweepRunner, AFolderThatCannotBeMadeIsRefusedInOutDir) {
  const fs::path dir = test::fresh_dir("podsim_sweep_runner", "out_dir");
  std::ofstream(dir / "a-file") << "not a folder";
  const SweepSpec spec =
      load_sweep(test::sweep_file(dir, R"([{"pointer": "/hardware", "values": ["tpu-v5e"]}])").string());
  SweepOptions options;
  options.out_dir = (dir / "a-file" / "out").string();
  try {
    run_sweep(spec, options);
    FAIL() << "no error";
  } catch (const SweepError& e) {
    EXPECT_EQ(e.field(), SweepOptions::Field::out_dir);
    EXPECT_EQ(e.message(), "cannot create the folder, got: " + options.out_dir);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace podsim
