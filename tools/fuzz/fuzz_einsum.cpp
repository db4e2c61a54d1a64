// Fuzzes einsum subscripts (`BD,DF->BF`): what parses prints back and parses to the same operands, and every
// label has a role.
#include "models/common/error.hpp"
#include "models/plan/einsum.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string_view text = fuzz::as_text(data, size);
  Einsum parsed;
  try {
    parsed = parse_einsum(text);
  } catch (const Error&) {
    return 0;
  }
  const std::string printed = to_string(parsed);
  Einsum again;
  try {
    again = parse_einsum(printed);
  } catch (const Error&) {
    fuzz::require(false, "printed einsum does not parse", text, printed);
  }
  fuzz::require(again.lhs == parsed.lhs && again.rhs == parsed.rhs && again.out == parsed.out, "einsum changed", text,
                printed);
  for (const char label : parsed.labels())
    (void)parsed.role(label);
  return 0;
}
