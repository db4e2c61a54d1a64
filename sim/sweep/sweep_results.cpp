// Reading and writing a sweep's results folder: whole lines only, a rename for results.jsonl so that a reader never
// sees half a file, shards merged by point index.
#include "sim/sweep/sweep_results.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/report/output_file.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/sweep/sweep_csv.hpp"

namespace podsim {

ResultLines read_result_lines(const std::string& path) {
  ResultLines result;
  // A results file of a large sweep (a few KB a point) stays far below 1 GiB.
  const std::optional<std::string> read = read_input_file(path, std::uintmax_t{1} << 30);
  if (!read) return result;
  const std::string& text = *read;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    if (end > start) result.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  result.whole_bytes = start;
  return result;
}

RecordKey record_key(const std::string& line, const std::string& where) {
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    throw InputError(where, "not a JSON line");
  }
  if (!record.is_object() || !record.contains("point") || !record.at("point").is_number_unsigned() ||
      !record.contains("hash") || !record.at("hash").is_string() || !record.contains("model") ||
      !record.at("model").is_string() || !record.contains("error") || !record.contains("plans") ||
      !record.contains("params"))
    throw InputError(where, "not a sweep record (keys point, params, hash, model, error, plans)");
  return {record.at("point").get<std::size_t>(), record.at("hash").get<std::string>(),
          record.at("model").get<std::string>(), record.contains("uncalibrated") && record.at("uncalibrated") == true,
          !record.at("error").is_null()};
}

void write_results(const std::string& dir, const std::vector<std::string>& lines) {
  const std::filesystem::path folder(dir);
  report::OutputFile jsonl("--out", (folder / kSweepJsonl).string());
  for (const auto& line : lines)
    jsonl.stream() << line << "\n";
  report::OutputFile csv("--out", (folder / kSweepCsv).string());
  write_sweep_csv(lines, csv.stream());
  jsonl.commit();
  csv.commit();
}

namespace {

// What every record of one sweep run shares: the model it ran (book, des, both), whether calibrated, and the swept
// parameters' names (the keys of "params").
struct RunIdentity {
  std::string model;
  bool uncalibrated = false;
  std::vector<std::string> params;
  std::string where;  // the first record's place, for messages
};

RunIdentity identity_of(const std::string& line, const RecordKey& key, const std::string& where) {
  RunIdentity id{key.model, key.uncalibrated, {}, where};
  const nlohmann::json record = nlohmann::json::parse(line);
  if (record.at("params").is_object())
    for (const auto& item : record.at("params").items())
      id.params.push_back(item.key());
  return id;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names)
    out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// Throws when `got` is not a record of the run `first` is (issue 33, class 4: book and des shards, or shards of two
// sweeps, were joined into one results file).
void require_same_run(const RunIdentity& first, const RunIdentity& got) {
  const std::string of_first = " (the record at " + first.where + " has ";
  if (got.model != first.model)
    throw InputError(got.where, "a record of another run: model " + got.model + of_first + first.model +
                                    "), got: shards of two sweep runs");
  if (got.uncalibrated != first.uncalibrated)
    throw InputError(got.where, std::string("a record of another run: ") +
                                    (got.uncalibrated ? "uncalibrated" : "calibrated") + of_first +
                                    (first.uncalibrated ? "uncalibrated" : "calibrated") +
                                    "), got: shards of two sweep runs");
  if (got.params != first.params)
    throw InputError(got.where, "a record of another sweep: parameters " + joined(got.params) + of_first +
                                    joined(first.params) + "), got: shards of two sweeps");
}

}  // namespace

std::vector<std::string> merge_shards(const std::vector<std::string>& dirs) {
  std::map<std::size_t, std::pair<std::string, std::string>> by_point;  // point -> (line, where)
  std::optional<RunIdentity> first;
  for (const auto& dir : dirs) {
    const auto path = (std::filesystem::path(dir) / kSweepJsonl).string();
    if (!std::filesystem::exists(path)) throw InputError(dir, "no " + std::string(kSweepJsonl) + " in the folder");
    const ResultLines read = read_result_lines(path);
    for (std::size_t i = 0; i < read.lines.size(); ++i) {
      const std::string where = path + ": line " + std::to_string(i + 1);
      const RecordKey key = record_key(read.lines[i], where);
      const RunIdentity id = identity_of(read.lines[i], key, where);
      if (!first)
        first = id;
      else
        require_same_run(*first, id);
      const auto [it, inserted] = by_point.emplace(key.point, std::make_pair(read.lines[i], where));
      if (!inserted && it->second.first != read.lines[i])
        throw InputError(where, "point " + std::to_string(key.point) + " differs from its record at " +
                                    it->second.second + ", got: two results for one point");
    }
  }
  std::vector<std::string> lines;
  lines.reserve(by_point.size());
  for (auto& [point, entry] : by_point)
    lines.push_back(std::move(entry.first));
  return lines;
}

}  // namespace podsim
