// The input limits of JSON texts, checked by one linear scan before nlohmann's recursive parser sees the text,
// and the cut of echoed values.
#include "sim/scenario/json_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "models/common/error.hpp"

namespace podsim {
namespace {

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

void check_size(std::uintmax_t bytes, const std::string& where, std::uintmax_t max_bytes = kJsonMaxBytes) {
  if (bytes > max_bytes)
    throw InputError(
        where,
        "input larger than " + std::to_string(max_bytes >> 20) + " MiB, got: " + std::to_string(bytes) + " bytes",
        InputError::Stage::parse);
}

[[noreturn]] void fail_at(std::string_view text, std::size_t offset, const std::string& where,
                          const std::string& message) {
  throw InputError(where, text_position(text, offset) + ": " + message, InputError::Stage::parse);
}

}  // namespace

std::string text_position(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

void check_json_text(std::string_view text, const std::string& where) {
  check_size(text.size(), where);
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {  // skip the string, its escapes included; an unterminated one is nlohmann's to report
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kJsonMaxDepth)
        fail_at(text, i, where, "nesting deeper than " + std::to_string(kJsonMaxDepth) + " levels");
    } else if (c == ']' || c == '}') {
      depth = std::max(depth - 1, 0);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i;
      while (end < text.size() && is_number_char(text[end]))
        ++end;
      const std::string number(text.substr(i, end - i));
      if (std::isinf(std::strtod(number.c_str(), nullptr)))
        fail_at(text, i, where, "number out of range, got: " + cut_shown(number));
      i = end - 1;
    }
  }
}

std::optional<std::string> read_input_file(const std::string& path, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error) {
    if (error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory) return std::nullopt;
    throw InputError(cut_shown(path), "cannot open the file: " + error.message());  // a 6,000-character name, cut
  }
  if (status.type() == fs::file_type::not_found) return std::nullopt;
  if (status.type() == fs::file_type::directory) throw InputError(path, "a folder, not a file");
  if (status.type() != fs::file_type::regular)
    throw InputError(path, "not a regular file (a device, a FIFO or a socket): podsim reads regular files only");
  const std::uintmax_t bytes = fs::file_size(path, error);
  if (!error) check_size(bytes, path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Bounded even if the file grows while it is read.
  std::string text(static_cast<std::size_t>(std::min<std::uintmax_t>(error ? 0 : bytes, max_bytes)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  char extra[4096];
  while (in && text.size() <= max_bytes) {
    in.read(extra, sizeof extra);
    text.append(extra, static_cast<std::size_t>(in.gcount()));
  }
  check_size(text.size(), path, max_bytes);
  return text;
}

InputError input_error_of(const std::filesystem::filesystem_error& error) {
  const std::string path = error.path1().empty() ? std::string("filesystem") : cut_shown(error.path1().string());
  return InputError(path, error.code().message());
}

std::optional<std::string> read_json_file(const std::string& path) {
  return read_input_file(path, kJsonMaxBytes);
}

}  // namespace podsim
