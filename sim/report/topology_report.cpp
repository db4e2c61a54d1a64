// Text and JSON of `podsim topology`.
#include "sim/report/topology_report.hpp"

#include <sstream>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

#include <fmt/format.h>

#include "models/topology/failed_chips.hpp"
#include "models/topology/spare_cubes.hpp"

namespace podsim {
namespace {

std::int64_t chips_of(const Shape& shape) {
  std::int64_t n = 1;
  for (const auto d : shape)
    n *= d;
  return n;
}

// The failed links that touch no failed chip (a failed chip's links are implied by it), in id order.
std::vector<LinkId> links_failed_alone(const Slice& slice) {
  std::vector<LinkId> out;
  for (const LinkId id : slice.failed_links())
    if (!slice.chip_failed(slice.link(id).src) && !slice.chip_failed(slice.link(id).dst)) out.push_back(id);
  return out;
}

}  // namespace

nlohmann::json topology_json(const std::string& hardware, const Slice& slice, const TopologyFigures& figures,
                             bool link_names) {
  nlohmann::json out = {{"schema", "podsim/1"},
                        {"hardware", hardware},
                        {"slice", slice.shape()},
                        {"chips", figures.chips},
                        {"links", figures.links},
                        {"wraparound", figures.wraparound},
                        {"twisted", figures.twisted},
                        {"diameter_hops", figures.diameter_hops},
                        {"mean_hops", figures.mean_hops},
                        {"bisection_links", figures.bisection_links},
                        {"cubes", nullptr}};
  if (figures.cubes) out["cubes"] = *figures.cubes;
  // Each only when some failed or were replaced, so answers without failures keep their form.
  if (const std::vector<LinkId> alone = links_failed_alone(slice); !alone.empty()) {
    nlohmann::json failed = nlohmann::json::array();
    for (const LinkId id : alone)
      failed.push_back(slice.link(id).name);
    out["failed_links"] = std::move(failed);
  }
  if (!slice.failed_chips().empty()) out["failed_chips"] = slice.failed_chips();
  if (!slice.replaced_cubes().empty()) out["replaced_cubes"] = slice.replaced_cubes();
  if (link_names) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto& link : slice.links())
      names.push_back(link.name);
    out["link_names"] = std::move(names);
  }
  return out;
}

std::string topology_text(const std::string& hardware, const Slice& slice, const TopologyFigures& figures,
                          bool link_names) {
  std::ostringstream out;
  std::string wrap;
  for (std::size_t d = 0; d < figures.wraparound.size(); ++d)
    wrap += std::string(d ? " " : "") + (figures.wraparound[d] ? "ring" : "line");
  const std::string chips = slice.failed_chips().empty()
                                ? fmt::format("{} chips", figures.chips)
                                : fmt::format("{} working chips of {} ({} failed)", figures.chips, slice.num_chips(),
                                              slice.failed_chips().size());
  out << fmt::format("slice {} of {}: {}, {} directed links, wraparound {} ({})\n", slice.shape_string(), hardware,
                     chips, figures.links, wrap, figures.twisted ? "twisted" : "not twisted");
  out << fmt::format("  diameter {} hops, mean {:.4g} hops over all pairs of {}chips\n", figures.diameter_hops,
                     figures.mean_hops, slice.failed_chips().empty() ? "" : "working ");
  out << fmt::format("  bisection: {} links each way across the middle of {}\n", figures.bisection_links,
                     figures.twisted ? "the dim that cuts the fewest" : "the longest dim");
  if (figures.cubes) out << fmt::format("  cubes: {} of 4x4x4\n", *figures.cubes);
  for (const std::int64_t cube : slice.replaced_cubes())
    out << "  " << cube_label(slice, cube) << ": replaced by a spare cube (its failures gone)\n";
  if (!slice.failed_chips().empty()) {
    out << fmt::format("  failed chips ({}, every link touching them failed; figures over the working chips):\n",
                       slice.failed_chips().size());
    for (const ChipId chip : slice.failed_chips())
      out << "    " << chip_label(slice, chip) << "\n";
  }
  if (const std::vector<LinkId> alone = links_failed_alone(slice); !alone.empty()) {
    out << fmt::format("  failed links ({}, both directions of each cable; hops over the working links):\n",
                       alone.size());
    for (const LinkId id : alone)
      out << "    " << slice.link(id).name << "\n";
  }
  if (link_names)
    for (const auto& link : slice.links())
      out << "  " << link.name << (slice.link_failed(link.id) ? " (failed)" : "") << "\n";
  return out.str();
}

nlohmann::json shapes_json(const std::string& hardware, const std::vector<Shape>& shapes) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : shapes)
    list.push_back(s);
  return {{"schema", "podsim/1"}, {"hardware", hardware}, {"shapes", list}};
}

std::string shapes_text(const std::string& hardware, const std::vector<Shape>& shapes) {
  std::ostringstream out;
  out << fmt::format("slice shapes of {} ({}):\n", hardware, shapes.size());
  for (const auto& s : shapes)
    out << fmt::format("  {:<10} {} chips\n", format_shape(s), chips_of(s));
  return out.str();
}

}  // namespace podsim
