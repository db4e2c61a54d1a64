// split_csv_records: RFC 4180 records (csv_records.hpp), comma or tab separated.
#include "sim/calibrate/csv_records.hpp"

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"

namespace podsim {

std::string csv_where(const std::string& file, int line) {
  return file + ":" + std::to_string(line);
}

std::vector<CsvRecord> split_csv_records(std::string_view text, const std::string& file, char separator) {
  // The UTF-8 byte order mark Excel writes first is not part of the first cell.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string cell;
  int line = 1;
  record.line = 1;
  bool quoted = false, cell_was_quoted = false, any = false;
  int quote_line = 0;
  const auto end_record = [&] {
    if (any || !record.cells.empty() || !cell.empty()) {
      record.cells.push_back(std::move(cell));
      records.push_back(std::move(record));
    }
    record = CsvRecord{};
    cell.clear();
    any = false;
    cell_was_quoted = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      if (!cell.empty() || cell_was_quoted)
        throw InputError(csv_where(file, line), "a quote may only open a field, got: " + cut_shown(cell + "\""));
      quoted = cell_was_quoted = any = true;
      quote_line = line;
    } else if (c == separator) {
      record.cells.push_back(std::move(cell));
      cell.clear();
      cell_was_quoted = false;
      any = true;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      end_record();
      ++line;
      record.line = line;
    } else {
      if (cell_was_quoted)
        throw InputError(csv_where(file, line), "text after a closing quote, got: " + cut_shown(std::string(1, c)));
      cell += c;
      any = true;
    }
  }
  if (quoted) throw InputError(csv_where(file, quote_line), "a quoted field must be closed, got: end of file");
  end_record();
  return records;
}

}  // namespace podsim
