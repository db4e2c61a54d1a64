// Aligned text tables for the human reports.
#include "sim/report/text_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace podsim::report {

TextTable::TextTable(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  align_.resize(headers_.size(), Align::left);
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > headers_.size())
    throw std::invalid_argument("text table: a row has " + std::to_string(cells.size()) + " cells, the header has " +
                                std::to_string(headers_.size()));
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(std::string_view indent) const {
  std::vector<std::size_t> width(headers_.size(), 0);
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& row : rows_)
      width[c] = std::max(width[c], display_width(row[c]));
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string out(indent);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += "  ";
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      out += align_[c] == Align::right ? pad + cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_);
  for (const auto& row : rows_)
    out += line(row);
  return out;
}

std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

std::string wrapped(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const std::size_t limit = out.empty() ? width : width - indent;
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      out += (out.empty() ? "" : std::string(indent, ' ')) + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) out += (out.empty() ? "" : std::string(indent, ' ')) + line + "\n";
  return out;
}

// `text` wrapped within 118 columns, its first line indented by `indent` spaces and the others by `indent + hang`.

std::string indented(std::size_t indent, const std::string& text, std::size_t hang) {
  const std::string wrapped_text = wrapped(text, 118 - indent, hang);
  std::string out;
  std::size_t start = 0;
  while (start < wrapped_text.size()) {
    const std::size_t end = wrapped_text.find('\n', start);
    out += std::string(indent, ' ') + wrapped_text.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

}  // namespace podsim::report
