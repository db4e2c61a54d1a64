// Writers for `podsim collective`: the versioned JSON object, a readable summary, and the per-link ledger CSV.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/query/collective_query.hpp"

namespace podsim::report {

// {"schema": "podsim/1", "op", "axes", "group_size", "shard_bytes", "array_bytes", "wraparound": [...],
//  "book": {"time_s", "bandwidth_s", "latency_s", "bound", "hops", "formula"},
//  "des": {"time_s", "algorithm", "messages", "max_link_bytes", "total_link_bytes", "max_link_utilisation",
//          and when calibrated "calibrated", "calibration_source", "calibration_extrapolated" (true: some ICI
//          message lies outside the link-efficiency curve's fitted range, then "extrapolated_message_bytes" and
//          "link_efficiency_range_bytes": [from, to])},
//  "ratio_des_over_book"} (book and des when computed).
nlohmann::json collective_answer_json(const CollectiveAnswer& answer);

std::string collective_answer_text(const CollectiveAnswer& answer);

// One row per directed link: link,name,src,dst,dim,direction,bytes,messages,busy_s,utilisation.
void write_link_ledger_csv(const CollectiveAnswer& answer, std::ostream& out);

}  // namespace podsim::report
