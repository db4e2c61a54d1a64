// `podsim topology --hardware H --slice S [--wrap W] [--twist] [--failed-links A,B] [--failed-chips C,D]
// [--spare-cubes N] [--json] [--links]` and `podsim topology --hardware H --shapes [--json]`: a slice's chips, links,
// wraparound, diameter, mean hops, bisection and cubes, or the shapes a generation's pods form (docs/topology.md). Bad
// input exits 2 naming the flag.
#include <iostream>
#include <memory>
#include <string>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>  // to print the report's JSON
#pragma GCC diagnostic pop

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/topology/slice_shapes.hpp"
#include "models/topology/topology_figures.hpp"
#include "models/topology/twist.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/report/topology_report.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/failure_flags.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct TopologyOptions {
  std::string hardware = "tpu-v5p";
  std::string slice;
  std::string wrap = "auto";
  bool twist = false;
  FailureFlags failures;
  bool json = false;
  bool links = false;
  bool shapes = false;
};

int run_topology(const TopologyOptions& options) {
  const HardwareSpec hw = hardware_flag([&] { return load_hardware_preset(options.hardware); });
  if (options.shapes) {
    if (!options.slice.empty())
      throw InputError("--shapes",
                       "lists the shapes a generation forms: give it without --slice, got: --slice " + options.slice);
    const auto shapes = formable_slice_shapes(hw.wrap_rule, hw.pod_shape, hw.pod_chips, hw.largest_slice);
    if (options.json)
      std::cout << shapes_json(options.hardware, shapes).dump(2) << "\n";
    else
      std::cout << shapes_text(options.hardware, shapes);
    return 0;
  }
  if (options.slice.empty())
    throw InputError("--slice", "a slice shape such as 4x4x8 is required (or --shapes), got: none");
  const Shape shape = located("--slice", [&] { return parse_shape(options.slice); });
  if (const auto issue = slice_shape_issue(shape))
    throw InputError("--slice", "1 to 3 dims of at least 1 chip, at most " + std::to_string(kMaxSliceChips) +
                                    " chips, got: " + options.slice);
  const auto wrap =
      located("--wrap", [&] { return resolve_wraparound(options.wrap, shape, hw.wrap_rule, hw.pod_shape); });
  if (options.twist)
    if (const auto issue = preset_twist_issue(hw.twist, hw.name, shape, wrap)) throw InputError("--twist", *issue);
  const FailureRequest request = failure_request(options.failures);
  SliceFailures failed;
  const CubePod pod = cube_pod(hw.wrap_rule, hw.pod_shape, hw.pod_chips, hw.name);
  if (const auto issue = resolve_slice_failures(Slice(shape, wrap, options.twist), request, pod, false, failed))
    throw InputError(failure_flag(issue->field), issue->message);
  const Slice slice(shape, wrap, options.twist, failed);
  const TopologyFigures figures = topology_figures(slice, hw.wrap_rule);
  if (options.json)
    std::cout << topology_json(options.hardware, slice, figures, options.links).dump(2) << "\n";
  else
    std::cout << topology_text(options.hardware, slice, figures, options.links);
  return 0;
}

}  // namespace

void add_topology_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<TopologyOptions>();
  auto* sub = app.add_subcommand("topology",
                                 "A slice's chips, links, wraparound, hops and bisection, or the shapes "
                                 "a generation forms");
  sub->add_option("--hardware", options->hardware, "Hardware preset (podsim hardware lists them)")
      ->capture_default_str();
  sub->add_option("--slice", options->slice, "Slice shape in chips, e.g. 4x4x8");
  sub->add_option("--wrap", options->wrap, "Wraparound: auto (the preset's rule), none, all, or dims such as 0,1")
      ->capture_default_str();
  sub->add_flag("--twist", options->twist, "A twisted torus (k x k x 2k or k x 2k x 2k on a preset that twists)");
  add_failure_flags(sub, options->failures);
  sub->add_flag("--json", options->json, "Print JSON (\"schema\": \"podsim/1\")");
  sub->add_flag("--links", options->links, "Also list every directed link's name (as the reports print them)");
  sub->add_flag("--shapes", options->shapes, "List the slice shapes the preset's pods form");
  sub->callback([options, &action] { action = [options] { return run_topology(*options); }; });
}

}  // namespace podsim::cli
