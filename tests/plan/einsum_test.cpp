// Einsum subscripts: roles of labels and the errors of malformed subscripts.
#include "models/plan/einsum.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"

namespace podsim {
namespace {

TEST(Einsum, RolesOfAMatmul) {
  const Einsum e = parse_einsum("BD,DF->BF");
  EXPECT_EQ(e.role('D'), LabelRole::contracting);
  EXPECT_EQ(e.role('B'), LabelRole::lhs_free);
  EXPECT_EQ(e.role('F'), LabelRole::rhs_free);
  EXPECT_EQ(to_string(e), "BD,DF->BF");
  EXPECT_EQ(e.labels(), "BDF");
}

TEST(Einsum, BatchLabelsAndSpaces) {
  const Einsum e = parse_einsum("bij, bjk -> bik");
  EXPECT_EQ(e.role('b'), LabelRole::batch);
  EXPECT_EQ(e.role('j'), LabelRole::contracting);
  EXPECT_EQ(e.out, "bik");
}

void expect_error(const char* text, const char* message, std::size_t column) {
  try {
    parse_einsum(text);
    FAIL() << text;
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), message) << text;
    EXPECT_EQ(e.column(), column) << text;
  }
}

TEST(Einsum, Errors) {
  expect_error("BD,DF", "expected subscripts of the form lhs,rhs->out, e.g. BD,DF->BF", 6);
  expect_error("BD,DF->BX", "output label 'X' is in neither operand", 9);
  expect_error("BB,DF->BF", "label 'B' repeats within one operand", 2);
  expect_error("BD,DE->BF", "output label 'F' is in neither operand", 9);
  expect_error("BDE,DF->BF",
               "label 'E' of the left operand is in neither the other operand nor the output (a local sum, not a "
               "matmul)",
               3);
  expect_error("B1,DF->BF", "expected a dimension label (a letter), got: '1'", 2);
}

}  // namespace
}  // namespace podsim
