// Einsum subscripts of a two-operand contraction (`BD,DF->BF`): which labels are contracted, batch, or
// free in one operand. Each label is one letter; a label names the same logical dimension everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace podsim {

enum class LabelRole {
  contracting,  // in both operands, not in the output: summed over
  batch,        // in both operands and the output
  lhs_free,     // in the left operand and the output
  rhs_free,     // in the right operand and the output
};

struct Einsum {
  std::string lhs, rhs, out;  // labels per dim, e.g. "BD", "DF", "BF"

  // Role of `label`, which must appear in the subscripts.
  LabelRole role(char label) const;
  // Labels of all operands, each once, in order of first appearance (lhs, rhs, out).
  std::string labels() const;
};

// Parses `lhs,rhs->out`. Spaces are ignored. Throws ParseError with the column for bad text and for
// label rules: a label repeated within one operand, an output label in no operand, a label in one operand
// that is not in the output (`label 'X' of the left operand is summed away locally: ...`), a missing `->`.
Einsum parse_einsum(std::string_view text);

// "BD,DF->BF".
std::string to_string(const Einsum& einsum);

}  // namespace podsim
