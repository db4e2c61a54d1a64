// A slice's failures as a scenario or the command line names them (docs/topology.md, "Failed links", "Failed chips",
// "Spare cubes"): failed links by name, failed chips by id and a count of spare cubes, resolved in one place into the
// failures the slice is built with, or the first rule they break, with the field at fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/topology/slice.hpp"
#include "models/topology/spare_cubes.hpp"

namespace podsim {

// What is named failed, before the spares.
struct FailureRequest {
  std::vector<std::string> links;   // link names, as podsim prints them (`ici.x+.0.1.3`)
  std::vector<std::int64_t> chips;  // chip ids, as podsim prints them (`chip 5 (1,1)`)
  std::int64_t spare_cubes = 0;
  bool any() const { return !links.empty() || !chips.empty() || spare_cubes != 0; }
};

// The first rule a request breaks: the field at fault, the entry (for a list) and the message ("rule, got: value").
struct FailureIssue {
  enum class Field { failed_links, failed_chips, spare_cubes };
  Field field = Field::failed_links;
  std::optional<std::size_t> index;
  std::string message;
};

// Resolves `request` on `healthy` (the slice as wired, without failures), rule by rule: every link name a link of it,
// every chip id a chip of it and listed once, the spare count within the rules of `pod` (spare_cubes_issue); then the
// spares replace cubes (spare_failed_cubes); then, when `runs_program`, no failed chip is left (unreplaced_chips_issue:
// a sharded program runs on every chip); and the working chips stay connected (failed_links_issue). Fills `failures`
// with what the slice is built with, or returns the first issue.
std::optional<FailureIssue> resolve_slice_failures(const Slice& healthy, const FailureRequest& request,
                                                   const CubePod& pod, bool runs_program, SliceFailures& failures);

// "2 failed link(s), 1 failed chip(s), 1 spare cube(s)": the counts a request gives, those it gives ("" for none).
std::string failure_count_text(const FailureRequest& request);

// "1 failed link: ici.x+.7; 1 failed chip: chip 70 (1,0,6); cube 1 (x 0-3, y 0-3, z 4-7) replaced by a spare": what
// a request named (`slice` being the slice built with it) and the cubes its spares replaced; "no failure" when none.
std::string failures_summary(const Slice& slice, const FailureRequest& request);

}  // namespace podsim
