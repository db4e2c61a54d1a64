// Parser of the `--mesh` flag's value (mesh_spec.hpp). The Shardy attribute form is delegated to
// parse_shardy_mesh; the simple `X=8,Y=2` form is parsed here.
#include "models/sharding/mesh_spec.hpp"

#include <cctype>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/sharding/shardy_parse.hpp"

namespace podsim {

namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-';
}

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : text_(text) {}

  NamedMesh parse() {
    skip_space();
    if (at_end()) fail("expected a mesh spec such as 'X=8,Y=2' or 'NAME=<[\"x\"=2]>'");
    if (starts_attr()) return {std::string(kDefaultMeshName), parse_attr()};
    // Either `NAME=...` or the first axis of an unnamed simple mesh: look past the first `name=`.
    const std::size_t start = pos_;
    const bool at_sign = accept('@');
    std::string first = parse_name(at_sign ? "expected a mesh name after '@'" : "expected an axis or mesh name");
    skip_space();
    expect('=');
    skip_space();
    if (starts_attr()) return {std::move(first), parse_attr()};
    if (at_sign || is_name_start(peek())) return {std::move(first), parse_simple_axes()};
    pos_ = start;  // unnamed: `first` was the first axis
    return {std::string(kDefaultMeshName), parse_simple_axes()};
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw ParseError(message, pos_ + 1); }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool starts_attr() const { return peek() == '<' || peek() == '#'; }

  std::string parse_name(const char* error) {
    if (!is_name_start(peek())) fail(error);
    const std::size_t start = pos_;
    while (!at_end() && is_name_char(text_[pos_]))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // The rest of the text as a Shardy mesh attribute; columns are shifted to count in the whole spec.
  Mesh parse_attr() {
    Mesh mesh;
    try {
      mesh = parse_shardy_mesh(text_.substr(pos_));
    } catch (const ParseError& error) {
      throw ParseError(error.what(), error.column() + pos_);
    }
    verify_mesh(mesh);
    return mesh;
  }

  // axis ::= name "=" int, separated by ",".
  Mesh parse_simple_axes() {
    std::vector<MeshAxis> axes;
    while (true) {
      skip_space();
      MeshAxis axis;
      axis.name = parse_name("expected an axis name");
      skip_space();
      expect('=');
      skip_space();
      axis.size = parse_size();
      axes.push_back(std::move(axis));
      skip_space();
      if (at_end()) break;
      if (!accept(',')) fail("expected ',' or end of mesh spec");
    }
    Mesh mesh = make_mesh(std::move(axes));
    verify_mesh(mesh);
    return mesh;
  }

  std::int64_t parse_size() {
    const std::size_t start = pos_;
    accept('-');
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected integer value");
    while (std::isdigit(static_cast<unsigned char>(peek())))
      ++pos_;
    const std::string_view digits = text_.substr(start, pos_ - start);
    std::int64_t size = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
    if (error != std::errc() || end != digits.data() + digits.size())
      throw ParseError("integer value too large", start + 1);
    if (size < 1) throw ParseError("axis size must be at least 1, got: " + std::to_string(size), start + 1);
    return size;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

NamedMesh parse_mesh_spec(std::string_view text) {
  return SpecParser(text).parse();
}

}  // namespace podsim
