// `podsim collective` output.
#include "sim/report/collective_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "models/common/units.hpp"
#include "models/topology/route_policy.hpp"

namespace podsim::report {
namespace {

std::string joined_algorithms(const DesAnswer& des) {
  return fmt::format("{}", fmt::join(des.algorithms, ","));
}

}  // namespace

nlohmann::json collective_answer_json(const CollectiveAnswer& answer) {
  const Slice& slice = *answer.slice;
  nlohmann::json out = {{"schema", "podsim/1"},
                        {"hardware", answer.hardware},
                        {"slice", slice.shape()},
                        {"wraparound", slice.wraparound()},
                        {"op", collective_kind_name(answer.kind)},
                        {"axes", answer.axes},
                        {"group_size", answer.group_size},
                        {"shard_bytes", answer.shard_bytes},
                        {"array_bytes", answer.array_bytes},
                        {"link_bandwidth_Bps", answer.ici.bandwidth_Bps},
                        {"hop_latency_s", answer.ici.hop_latency_s}};
  if (slice.twisted()) out["twisted"] = true;  // only on a twisted torus, so plain answers keep their form
  // Only split routes say so, for the same reason (dimension_order is the default every answer had before).
  if (answer.routing != RoutePolicy::dimension_order)
    out["routing"] = std::string(kRoutePolicyNames.name(answer.routing));
  if (answer.slices > 1)
    out["dcn"] = {{"slices", answer.slices},
                  {"bandwidth_per_chip_Bps", answer.dcn_bandwidth_Bps},
                  {"latency_s", answer.dcn_latency_s},
                  {"chips_per_host", answer.chips_per_host}};
  if (answer.book) {
    out["book"] = {{"time_s", answer.book->time_s},       {"bandwidth_s", answer.book->bandwidth_s},
                   {"latency_s", answer.book->latency_s}, {"bound", bound_name(answer.book->bound)},
                   {"hops", answer.book->hops},           {"formula", answer.book->formula}};
  }
  if (answer.des) {
    const SimulationResult& result = answer.des->result;
    out["des"] = {{"time_s", answer.des->time_s},
                  {"algorithm", joined_algorithms(*answer.des)},
                  {"messages", result.messages},
                  {"max_link_bytes", result.max_link_bytes()},
                  {"total_link_bytes", result.total_link_bytes()},
                  {"max_link_utilisation", result.max_link_utilisation()},
                  {"symmetry_path", answer.des->symmetric},
                  {"simulated", answer.des->simulated}};
    // Only a calibrated des says so: an uncalibrated answer's JSON is as it was before calibrations existed.
    if (answer.des->calibrated) {
      out["des"]["calibrated"] = true;
      out["des"]["calibration_source"] = answer.des->calibration_source;
      // Message sizes outside the link-efficiency curve's fitted range: the curve was held flat there.
      const auto& outside = answer.des->extrapolated_message_bytes;
      out["des"]["calibration_extrapolated"] = !outside.empty();
      if (!outside.empty()) {
        out["des"]["extrapolated_message_bytes"] = outside;
        out["des"]["link_efficiency_range_bytes"] = {answer.des->curve_from, answer.des->curve_to};
      }
    }
  }
  if (answer.book && answer.des && answer.book->time_s > 0)
    out["ratio_des_over_book"] = answer.des->time_s / answer.book->time_s;
  return out;
}

std::string collective_answer_text(const CollectiveAnswer& answer) {
  const Slice& slice = *answer.slice;
  std::string wraps;
  for (int d = 0; d < slice.rank(); ++d)
    wraps += slice.wraps(d) ? "wrap " : "line ";
  if (slice.twisted()) wraps += "twisted ";
  std::string text = fmt::format("{} over {} on {} {} ({}), group of {}\n", collective_kind_name(answer.kind),
                                 fmt::join(answer.axes, ","), answer.hardware, slice.shape_string(),
                                 wraps.substr(0, wraps.size() - 1), answer.group_size);
  text += fmt::format("  array V:        {} B ({}), shard {} B ({})\n", answer.array_bytes,
                      format_bytes(static_cast<double>(answer.array_bytes)), answer.shard_bytes,
                      format_bytes(static_cast<double>(answer.shard_bytes)));
  text += fmt::format("  links:          {} per direction, {} per hop{}\n", format_bandwidth(answer.ici.bandwidth_Bps),
                      format_seconds(answer.ici.hop_latency_s),
                      answer.routing == RoutePolicy::split_minimal
                          ? "; a transfer between chips that differ in several dims split over their minimal routes"
                          : "");
  if (answer.slices > 1)
    text += fmt::format("  dcn:            {} slices, {} per chip, {} per transfer, {} chips per host NIC\n",
                        answer.slices, format_bandwidth(answer.dcn_bandwidth_Bps), format_seconds(answer.dcn_latency_s),
                        answer.chips_per_host);
  if (answer.book)
    text += fmt::format("  book:           {}  (bandwidth {}, latency {}, {}-bound; {})\n",
                        format_seconds(answer.book->time_s), format_seconds(answer.book->bandwidth_s),
                        format_seconds(answer.book->latency_s), bound_name(answer.book->bound), answer.book->formula);
  if (answer.des) {
    const SimulationResult& result = answer.des->result;
    text += fmt::format("  des:            {}  ({}; {} messages{}; busiest link {} ({}), utilisation {:.1f}%)\n",
                        format_seconds(answer.des->time_s), joined_algorithms(*answer.des), result.messages,
                        answer.des->symmetric ? ", " + answer.des->simulated + " simulated" : std::string(),
                        result.max_link_bytes(), format_bytes(static_cast<double>(result.max_link_bytes())),
                        100 * result.max_link_utilisation());
    if (answer.des->calibrated)
      text += fmt::format("  des calibrated: {} (--uncalibrated for the preset's figures)\n",
                          answer.des->calibration_source);
    if (const auto& outside = answer.des->extrapolated_message_bytes; !outside.empty()) {
      std::vector<std::string> sizes;
      for (const std::uint64_t bytes : outside)
        sizes.push_back(format_bytes(static_cast<double>(bytes)));
      text +=
          fmt::format("  link efficiency extrapolated: messages of {} outside the fitted range {}..{}\n",
                      fmt::join(sizes, ", "), format_bytes(answer.des->curve_from), format_bytes(answer.des->curve_to));
    }
  }
  if (answer.book && answer.des && answer.book->time_s > 0)
    text += fmt::format("  des / book:     {:.4f}\n", answer.des->time_s / answer.book->time_s);
  return text;
}

void write_link_ledger_csv(const CollectiveAnswer& answer, std::ostream& out) {
  const Slice& slice = *answer.slice;
  out << "link,name,src,dst,dim,direction,bytes,messages,busy_s,utilisation\n";
  if (!answer.des) return;
  const SimulationResult& result = answer.des->result;
  for (const Link& link : slice.links()) {
    const LinkUsage& usage = result.links.at(static_cast<std::size_t>(link.id));
    const double utilisation = result.makespan_s > 0 ? usage.busy_s / result.makespan_s : 0.0;
    out << fmt::format("{},{},{},{},{},{},{},{},{:.9g},{:.6f}\n", link.id, link.name, link.src, link.dst, link.dim,
                       direction_sign(link.dir), usage.bytes, usage.messages, usage.busy_s, utilisation);
  }
}

}  // namespace podsim::report
