// The failures of a slice resolved in one place: names and ids checked, spares applied, the slice still usable.
#include "models/topology/slice_failures.hpp"

#include "models/topology/failed_chips.hpp"
#include "models/topology/failed_links.hpp"

namespace podsim {

std::optional<FailureIssue> resolve_slice_failures(const Slice& healthy, const FailureRequest& request,
                                                   const CubePod& pod, bool runs_program, SliceFailures& failures) {
  using Field = FailureIssue::Field;
  failures = SliceFailures{};
  std::vector<LinkId> links;
  if (const auto issue = resolve_failed_links(healthy, request.links, links))
    return FailureIssue{Field::failed_links, issue->index, issue->message};
  if (const auto issue = failed_chips_issue(healthy, request.chips))
    return FailureIssue{Field::failed_chips, issue->index, issue->message};
  if (const auto issue = spare_cubes_issue(healthy.shape(), request.spare_cubes, pod))
    return FailureIssue{Field::spare_cubes, std::nullopt, *issue};
  const std::vector<ChipId> chips(request.chips.begin(), request.chips.end());
  SliceFailures left = spare_failed_cubes(healthy, links, chips, request.spare_cubes);
  const Slice slice(healthy.shape(), healthy.wraparound(), healthy.twisted(), left);
  if (runs_program)
    if (const auto issue = unreplaced_chips_issue(slice, of_whole_cubes(healthy.shape()) && pod.built_of_cubes))
      return FailureIssue{Field::failed_chips, std::nullopt, *issue};
  if (const auto issue = failed_links_issue(slice))
    return FailureIssue{slice.failed_chips().empty() ? Field::failed_links : Field::failed_chips, std::nullopt, *issue};
  failures = std::move(left);
  return std::nullopt;
}

std::string failure_count_text(const FailureRequest& request) {
  std::string out;
  const auto add = [&](std::size_t n, const char* what) {
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what + "(s)";
  };
  add(request.links.size(), "failed link");
  add(request.chips.size(), "failed chip");
  if (request.spare_cubes != 0)
    out += (out.empty() ? "" : ", ") + std::to_string(request.spare_cubes) + " spare cube(s)";
  return out;
}

std::string failures_summary(const Slice& slice, const FailureRequest& request) {
  std::vector<std::string> parts;
  const auto counted = [](std::size_t n, const char* what) {
    return std::to_string(n) + " failed " + what + (n == 1 ? "" : "s") + ": ";
  };
  if (!request.links.empty()) {
    std::string names;
    for (const std::string& name : request.links)
      names += (names.empty() ? "" : ", ") + name;
    parts.push_back(counted(request.links.size(), "link") + names);
  }
  if (!request.chips.empty())
    parts.push_back(counted(request.chips.size(), "chip") +
                    chips_text(slice, std::vector<ChipId>(request.chips.begin(), request.chips.end())));
  const std::vector<std::int64_t>& cubes = slice.replaced_cubes();
  if (!cubes.empty()) {
    std::string replaced;
    for (const std::int64_t cube : cubes)
      replaced += (replaced.empty() ? "" : ", ") + cube_label(slice, cube);
    parts.push_back(replaced + (cubes.size() == 1 ? " replaced by a spare" : " replaced by spares"));
  }
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? "" : "; ") + part;
  return out.empty() ? "no failure" : out;
}

}  // namespace podsim
