// Shape text: `1024x4096` and `scalar`.
#include "models/common/shape.hpp"

#include <charconv>

#include "models/common/error.hpp"

namespace podsim {

Shape parse_shape(std::string_view text) {
  if (text == "scalar" || text == "[]") return {};
  if (text.empty()) throw ParseError("expected a shape such as 1024x4096 or scalar, got: \"\"", 1);
  Shape shape;
  std::size_t pos = 0;
  while (true) {
    std::int64_t value = 0;
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc::result_out_of_range)
      throw ParseError("dimension size does not fit 64 bits, got: \"" + std::string(text.substr(pos)) + "\"", pos + 1);
    if (ec != std::errc() || ptr == begin || value < 0) {
      const std::size_t len = pos < text.size() ? 1 : 0;
      throw ParseError("expected a dimension size, got: \"" + std::string(text.substr(pos, len)) + "\"", pos + 1);
    }
    shape.push_back(value);
    pos = static_cast<std::size_t>(ptr - text.data());
    if (pos == text.size()) break;
    if (text[pos] != 'x' && text[pos] != 'X' && text[pos] != ',')
      throw ParseError("expected 'x' between dimension sizes, got: \"" + std::string(1, text[pos]) + "\"", pos + 1);
    ++pos;
  }
  return shape;
}

std::string format_shape(const Shape& shape) {
  return shape.empty() ? "scalar" : format_dims(shape);
}

std::string format_dims(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "(none)";
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += 'x';
    text += std::to_string(shape[i]);
  }
  return text;
}

std::uint64_t element_count(const Shape& shape) {
  __extension__ typedef unsigned __int128 u128;
  u128 product = 1;
  for (const auto dim : shape) {
    product *= static_cast<std::uint64_t>(dim);
    if (product > UINT64_MAX) throw VerifyError("element count overflows 64 bits, shape: " + format_shape(shape));
  }
  return static_cast<std::uint64_t>(product);
}

}  // namespace podsim
