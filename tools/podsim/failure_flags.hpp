// The failure flags of `podsim topology`, `podsim collective` and `podsim run` (docs/topology.md, "Failed links",
// "Failed chips", "Spare cubes"): their text, the typed request it makes, and the flag a field's error is located at.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "models/common/error.hpp"
#include "models/topology/failed_chips.hpp"
#include "models/topology/failed_links.hpp"
#include "models/topology/slice_failures.hpp"
#include "models/topology/spare_cubes.hpp"

namespace podsim::cli {

struct FailureFlags {
  std::optional<std::string> failed_links;
  std::optional<std::string> failed_chips;
  std::optional<std::string> spare_cubes;
  bool given() const { return failed_links || failed_chips || spare_cubes; }
};

// Adds --failed-links, --failed-chips and --spare-cubes to `cmd`.
inline void add_failure_flags(CLI::App* cmd, FailureFlags& flags) {
  cmd->add_option("--failed-links", flags.failed_links,
                  "Failed cables by link name, comma-separated (podsim topology --links lists them)");
  cmd->add_option("--failed-chips", flags.failed_chips,
                  "Failed chips by id, comma-separated, e.g. 5,70 (a program needs a spare cube to replace them)");
  cmd->add_option("--spare-cubes", flags.spare_cubes,
                  "Spare 4x4x4 cubes that replace failed ones (v4, v5p, tpu7x slices of whole cubes; default 0)");
}

// `base` with the failures the flags give in place of its own (a flag not given keeps base's field); each parse
// failure is located at its flag.
inline FailureRequest failure_request(const FailureFlags& flags, FailureRequest base = {}) {
  FailureRequest request = std::move(base);
  if (flags.failed_links)
    request.links = located("--failed-links", [&] { return split_link_names(*flags.failed_links); });
  if (flags.failed_chips)
    request.chips = located("--failed-chips", [&] { return split_chip_ids(*flags.failed_chips); });
  if (flags.spare_cubes)
    request.spare_cubes = located("--spare-cubes", [&] { return parse_spare_cubes(*flags.spare_cubes); });
  return request;
}

// The flag of a failure field.
inline std::string failure_flag(FailureIssue::Field field) {
  switch (field) {
    case FailureIssue::Field::failed_links:
      return "--failed-links";
    case FailureIssue::Field::failed_chips:
      return "--failed-chips";
    case FailureIssue::Field::spare_cubes:
      return "--spare-cubes";
  }
  return "--failed-links";
}

}  // namespace podsim::cli
