// What the sweep report (sweep_report_html.hpp) draws, read from a sweep's records (the lines of results.jsonl,
// docs/sweeps.md): the swept parameters, the plans as series, one mark per plan of every point that ran, the failed
// points, and the Pareto front of step time against chips, or against the cost per million tokens when priced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace podsim::report {

// One point of the sweep, as its record says.
struct SweepReportPoint {
  std::size_t point = 0;
  std::vector<nlohmann::ordered_json> values;  // per SweepReportData::pointers (null when the record lacks it)
  std::string model;                           // book, des or both
  std::optional<std::string> error;            // the message that stopped the point
};

// One plan (or ranked candidate) of one point that ran. A figure the record lacks (an older record without
// `chips`) is empty, and the mark is then left out of what needs it.
struct SweepMark {
  std::size_t record = 0;  // index into SweepReportData::points
  std::size_t series = 0;  // index into SweepReportData::series
  std::optional<double> des_time_s;
  std::optional<double> book_time_s;
  std::optional<std::uint64_t> memory_per_chip_bytes;
  bool fits_hbm = false;
  std::optional<std::int64_t> chips;
  std::optional<std::uint64_t> hbm_bytes;  // capacity per chip
  std::optional<double> cost_per_million_tokens;
  std::string candidate;  // model-level scenarios: the ranked candidate's label
  // With a goal (docs/capacity.md, "Goals"): the expected days to train, its cost (priced), whether it meets the goal.
  std::optional<double> time_to_train_days;
  std::optional<double> cost_usd;
  std::optional<bool> meets_goal;

  // The step time the report ranks by: des when simulated, else book (as plan search ranks).
  std::optional<double> step_s() const { return des_time_s ? des_time_s : book_time_s; }
};

struct SweepReportData {
  std::vector<std::string> pointers;  // the swept parameters, in the records' order
  std::vector<std::string> series;    // plan names in order of first appearance
  std::vector<SweepReportPoint> points;
  std::vector<SweepMark> marks;  // in record order, plans in the record's order
  bool has_des = false;          // some mark has a des time
  bool has_book = false;         // some mark has a book time
  bool has_candidates = false;   // some mark has a candidate label
  bool has_goal = false;         // some mark has a time to train (the scenario has a goal)
  bool has_goal_cost = false;    // some mark has a goal's cost
  // Every mark that has a step time also has a cost per million tokens: the front is drawn against cost.
  bool priced = false;
  std::size_t failed = 0;  // points whose record has an error
};

// Reads the records (one JSON object per line, in any order; they are kept in point order). `source` names them in
// errors. Throws InputError located at the record and key for a line that is not a sweep record or a figure of the
// wrong type: `out/results.jsonl: point 3: /plans/dp/book_time_s: must be a number or null, got: "x"`.
SweepReportData read_sweep_report_data(const std::vector<std::string>& lines, const std::string& source);

// What the Pareto front trades step time against.
enum class ParetoCost { chips, cost_per_million_tokens };

// The marks (indices into `marks`) that no other fitting mark beats: none has a lower or equal cost and a lower or
// equal step time with one of the two strictly lower. Only marks that fit HBM and have a step time and the cost
// count. In ascending cost (then step time, then index); marks with the same cost and time are all kept.
std::vector<std::size_t> pareto_front(const std::vector<SweepMark>& marks, ParetoCost cost);

// A mark's cost on the front's axis, if it has one.
std::optional<double> pareto_cost(const SweepMark& mark, ParetoCost cost);

// A parameter value as the page shows it: a string without quotes, anything else as compact JSON.
std::string value_text(const nlohmann::ordered_json& value);

}  // namespace podsim::report
