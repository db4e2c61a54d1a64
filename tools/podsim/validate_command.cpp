// `podsim validate [DIR...] [--json] [--markdown] [--rows ID,...]`: podsim's error against published TPU
// measurements (docs/validation.md), each row predicted by the book model and by the des without and with the
// preset's calibration.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "sim/report/validation.hpp"
#include "sim/report/validation_report.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct ValidateFlags {
  std::vector<std::string> dirs;
  bool json = false;
  bool markdown = false;
  std::vector<std::string> rows;
};

std::string flag_of(ValidationField field) {
  switch (field) {
    case ValidationField::only:
      return "--rows";
  }
  return "--rows";
}

int validate(const ValidateFlags& flags) {
  if (flags.json && flags.markdown) throw InputError("--markdown", "give --json or --markdown, not both");
  for (const auto& id : flags.rows)
    if (id.empty()) throw InputError("--rows", "a row id is not empty, got: an empty id");
  const std::vector<std::string> dirs = flags.dirs.empty() ? std::vector<std::string>{"validation"} : flags.dirs;
  const std::vector<ValidationRow> rows =
      at_flags<ValidationField>([&] { return evaluate_validation(dirs, flags.rows); }, flag_of);
  if (flags.json)
    std::cout << report::validation_json(rows).dump(2) << "\n";
  else if (flags.markdown)
    std::cout << report::validation_markdown(rows, flags.dirs);
  else
    std::cout << report::validation_text(rows);
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("validate", "podsim against published TPU measurements: book, des, calibrated des");
  auto flags = std::make_shared<ValidateFlags>();
  cmd->add_option("dirs", flags->dirs, "Folders of measurement CSV files, or files (default: validation)");
  cmd->add_flag("--json", flags->json, "Print JSON (\"schema\": \"podsim/1\")");
  cmd->add_flag("--markdown", flags->markdown, "Print the Markdown page docs/validation.md is generated from");
  cmd->add_option("--rows", flags->rows, "Only these row ids (comma-separated)")->delimiter(',');
  cmd->callback([flags, &action] { action = [flags] { return validate(*flags); }; });
}

}  // namespace podsim::cli
