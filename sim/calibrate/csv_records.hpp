// RFC 4180 records of a delimited text (comma or tab separated), each with the line it starts on: what the
// measurement CSV (measurement_csv.cpp) and the microbenchmark suite's tables (microbenchmark_table.cpp) are split by.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace podsim {

// One record: its cells and the 1-based line it starts on.
struct CsvRecord {
  int line = 0;
  std::vector<std::string> cells;
};

// Splits `text` into records separated by `separator` (quotes open a field, "" is a quote inside one, line breaks
// may sit inside quotes; CRLF counts as one break; a UTF-8 byte order mark first is skipped, as Excel writes one). A
// line holding nothing is skipped. Throws InputError at
// `file:LINE` for a quote that opens mid-field, text after a closing quote, or a quote left open (at the line it
// opened on).
std::vector<CsvRecord> split_csv_records(std::string_view text, const std::string& file, char separator = ',');

// `file:LINE`: where a record's error is located.
std::string csv_where(const std::string& file, int line);

}  // namespace podsim
