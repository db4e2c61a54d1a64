// Einsum subscripts for matmuls: parsing and label roles.
#include "models/plan/einsum.hpp"

#include <cctype>

#include "models/common/error.hpp"

namespace podsim {

LabelRole Einsum::role(char label) const {
  const bool in_lhs = lhs.find(label) != std::string::npos;
  const bool in_rhs = rhs.find(label) != std::string::npos;
  const bool in_out = out.find(label) != std::string::npos;
  if (in_lhs && in_rhs) return in_out ? LabelRole::batch : LabelRole::contracting;
  return in_lhs ? LabelRole::lhs_free : LabelRole::rhs_free;
}

std::string Einsum::labels() const {
  std::string all;
  for (const char c : lhs + rhs + out)
    if (all.find(c) == std::string::npos) all += c;
  return all;
}

Einsum parse_einsum(std::string_view text) {
  Einsum einsum;
  std::string* current = &einsum.lhs;
  int part = 0;  // 0 lhs, 1 rhs, 2 out
  std::vector<std::size_t> columns(3, 1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const std::size_t column = i + 1;
    if (c == ' ') continue;
    if (c == ',') {
      if (part != 0) throw ParseError("expected '->' after the second operand, got: ','", column);
      part = 1;
      current = &einsum.rhs;
      columns[1] = column + 1;
      continue;
    }
    if (c == '-') {
      if (part != 1 || i + 1 >= text.size() || text[i + 1] != '>')
        throw ParseError(part == 0 ? "expected ',' between the two operands, got: '-'" : "expected '->', got: '-'",
                         column);
      part = 2;
      current = &einsum.out;
      columns[2] = column + 2;
      ++i;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)))
      throw ParseError(std::string("expected a dimension label (a letter), got: '") + c + "'", column);
    if (current->find(c) != std::string::npos)
      throw ParseError(std::string("label '") + c + "' repeats within one operand", column);
    *current += c;
  }
  if (part != 2) throw ParseError("expected subscripts of the form lhs,rhs->out, e.g. BD,DF->BF", text.size() + 1);
  for (std::size_t i = 0; i < einsum.out.size(); ++i) {
    const char c = einsum.out[i];
    if (einsum.lhs.find(c) == std::string::npos && einsum.rhs.find(c) == std::string::npos)
      throw ParseError(std::string("output label '") + c + "' is in neither operand", columns[2] + i);
  }
  auto check_summed_away = [&](const std::string& operand, const std::string& other, const char* name,
                               std::size_t column0) {
    for (std::size_t i = 0; i < operand.size(); ++i) {
      const char c = operand[i];
      if (other.find(c) == std::string::npos && einsum.out.find(c) == std::string::npos)
        throw ParseError(std::string("label '") + c + "' of the " + name +
                             " operand is in neither the other operand nor the output (a local sum, not a matmul)",
                         column0 + i);
    }
  };
  check_summed_away(einsum.lhs, einsum.rhs, "left", columns[0]);
  check_summed_away(einsum.rhs, einsum.lhs, "right", columns[1]);
  return einsum;
}

std::string to_string(const Einsum& einsum) {
  return einsum.lhs + "," + einsum.rhs + "->" + einsum.out;
}

}  // namespace podsim
