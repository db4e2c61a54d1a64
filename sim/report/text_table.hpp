// A small aligned text table for the human reports: a header row and data rows, columns separated by two spaces,
// each column as wide as its widest cell (counted in UTF-8 code points), trailing spaces trimmed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::report {

class TextTable {
 public:
  enum class Align { left, right };

  // One column per header; `align` gives each column's alignment (missing entries are left-aligned).
  explicit TextTable(std::vector<std::string> headers, std::vector<Align> align = {});

  // Adds a row; a row shorter than the header is padded with empty cells, a longer one is an error
  // (std::invalid_argument naming both lengths).
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }

  // The header and every row, each line prefixed by `indent` and ended by '\n'.
  std::string render(std::string_view indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// Number of UTF-8 code points in `text` (what a terminal shows as its width for the text podsim prints).
std::size_t display_width(std::string_view text);

// `text` broken at spaces into lines of at most `width` columns, later lines indented by `indent` spaces; each line
// ends in a newline.
std::string wrapped(const std::string& text, std::size_t width, std::size_t indent);

// `text` wrapped to 118 columns, every line indented by `indent` spaces and later lines by `hang` more.
std::string indented(std::size_t indent, const std::string& text, std::size_t hang = 2);

}  // namespace podsim::report
