// Text and JSON of `podsim topology`.
#include "sim/report/topology_report.hpp"

#include <sstream>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

#include <fmt/format.h>

namespace podsim {
namespace {

std::int64_t chips_of(const Shape& shape) {
  std::int64_t n = 1;
  for (const auto d : shape)
    n *= d;
  return n;
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
  if (slice.has_failures()) {  // only then, so answers without failures keep their form
    nlohmann::json failed = nlohmann::json::array();
    for (const LinkId id : slice.failed_links())
      failed.push_back(slice.link(id).name);
    out["failed_links"] = std::move(failed);
  }
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
  out << fmt::format("slice {} of {}: {} chips, {} directed links, wraparound {} ({})\n", slice.shape_string(),
                     hardware, figures.chips, figures.links, wrap, figures.twisted ? "twisted" : "not twisted");
  out << fmt::format("  diameter {} hops, mean {:.4g} hops over all pairs of chips\n", figures.diameter_hops,
                     figures.mean_hops);
  out << fmt::format("  bisection: {} links each way across the middle of {}\n", figures.bisection_links,
                     figures.twisted ? "the dim that cuts the fewest" : "the longest dim");
  if (figures.cubes) out << fmt::format("  cubes: {} of 4x4x4\n", *figures.cubes);
  if (slice.has_failures()) {
    out << fmt::format("  failed links ({}, both directions of each cable; hops over the working links):\n",
                       slice.failed_links().size());
    for (const LinkId id : slice.failed_links())
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
