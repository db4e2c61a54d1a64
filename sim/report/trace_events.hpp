// What the Chrome trace writers share (chrome_trace.cpp, pipeline_trace.cpp): the streaming writer of the
// traceEvents array, metadata events, and a chip's track name.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace podsim::report {

// Streams events into an open JSON array, one per line, comma-separated.
class TraceWriter {
 public:
  explicit TraceWriter(std::ostream& out) : out_(out) {}

  void event(const nlohmann::json& e) {
    out_ << (first_ ? "\n" : ",\n") << e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    first_ = false;
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

// Trace timestamps are microseconds.
constexpr double kTraceMicro = 1e6;

// A metadata ("M") event of process `pid` (and thread `tid` when >= 0): process_name, thread_sort_index, ...
inline nlohmann::json trace_metadata(const char* name, int pid, std::int64_t tid, nlohmann::json args) {
  nlohmann::json e = {{"name", name}, {"ph", "M"}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

// `chip N`, or `slice S chip C` when the network's `num_chips` span several slices of `slice_chips` chips
// (docs/overlap-pipeline-dcn.md: chip S x M + C is chip C of slice S).
inline std::string chip_track_name(std::int64_t chip, std::int64_t slice_chips, std::int64_t num_chips) {
  if (slice_chips <= 0 || num_chips <= slice_chips) return "chip " + std::to_string(chip);
  return "slice " + std::to_string(chip / slice_chips) + " chip " + std::to_string(chip % slice_chips);
}

}  // namespace podsim::report
