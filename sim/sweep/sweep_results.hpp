// The files a sweep writes into its --out folder: results.jsonl (one record per point, in point order) and
// results.csv (the same records flattened); reading them back for resuming and merging shards.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace podsim {

inline constexpr const char* kSweepJsonl = "results.jsonl";
inline constexpr const char* kSweepCsv = "results.csv";

// The whole lines of a results.jsonl (without their newlines); a missing file has none. A trailing line without
// its newline (a run killed mid-write) is left out, and whole_bytes says where the whole lines end.
struct ResultLines {
  std::vector<std::string> lines;
  std::size_t whole_bytes = 0;
};
ResultLines read_result_lines(const std::string& path);

// What resuming and merging read of a record. Throws InputError located at `where` (`DIR/results.jsonl: line 3`)
// for a line that is not a sweep record.
struct RecordKey {
  std::size_t point = 0;
  std::string hash;
  std::string model;
  bool uncalibrated = false;  // the record says "uncalibrated": true
  bool failed = false;        // error is not null
};
RecordKey record_key(const std::string& line, const std::string& where);

// Writes DIR/results.jsonl (through a temporary file renamed over it) and DIR/results.csv from `lines`.
// Throws InputError when the folder cannot be written.
void write_results(const std::string& dir, const std::vector<std::string>& lines);

// The records of every shard folder's results.jsonl, in point order. A point in two shards must hold the same
// record (it is then kept once); otherwise, or for a folder without results.jsonl, throws InputError.
std::vector<std::string> merge_shards(const std::vector<std::string>& dirs);

}  // namespace podsim
