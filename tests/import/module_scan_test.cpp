// The scanner and element-type table both module readers share (sim/import/module_scan.hpp), on hand-written text.
#include "sim/import/module_scan.hpp"

#include <gtest/gtest.h>

#include <string>

namespace podsim::import::scan {
namespace {

TEST(ModuleScan, BracketsPerDialect) {
  const std::string mlir = "tensor<4x(8)>, \"a>b\" -> x";
  // MLIR counts `<...>`: the `<` at 6 closes at 12; the `>` of `->` and the one in a string do not count.
  EXPECT_EQ(closing_bracket(mlir, 6, kMlirBrackets), 12u);
  EXPECT_EQ(closing_bracket("(a -> b)", 0, kMlirBrackets), 7u);
  // HLO does not: `[` at 3 closes at `]` 7, past the `<`.
  EXPECT_EQ(closing_bracket("f32[<=8]", 3, kHloBrackets), 7u);
  // HLO's nesting is bounded: 33 `(` pass the depth of 32.
  bool deep = false;
  EXPECT_EQ(closing_bracket(std::string(33, '(') + std::string(33, ')'), 0, kHloBrackets, &deep), std::string::npos);
  EXPECT_TRUE(deep);
  // A closing bracket first: HLO stops, MLIR reads on to the next bracket that returns to depth 0.
  EXPECT_EQ(closing_bracket(")()", 0, kHloBrackets), std::string::npos);
  EXPECT_EQ(closing_bracket(")(())", 0, kMlirBrackets), 3u);
  // A quoted `)` with an escaped quote inside is skipped.
  EXPECT_EQ(closing_bracket("(\"\\\")\")", 0, kHloBrackets), 6u);
}

TEST(ModuleScan, SplitAtTopLevelCommas) {
  const std::string s = "a , f(b, c) , \"d,e\" ";
  using Parts = std::vector<std::pair<std::size_t, std::size_t>>;
  // Parts begin after spaces; HLO ends them before trailing spaces, MLIR at the comma.
  EXPECT_EQ(split_top(s, 0, s.size(), kHloBrackets), (Parts{{0, 1}, {4, 11}, {14, 19}}));
  EXPECT_EQ(split_top(s, 0, s.size(), kMlirBrackets), (Parts{{0, 2}, {4, 12}, {14, 20}}));
  EXPECT_EQ(find_top("f(a : b) : c", " : ", 0, kMlirBrackets), 8u);
  EXPECT_EQ(net_depth("{a, (b", kHloBrackets), 2);
}

TEST(ModuleScan, ElementTypesOfBothDialects) {
  EXPECT_EQ(element_type(Dialect::mlir, "f8E4M3FN").dtype, "fp8_e4m3");
  EXPECT_TRUE(element_type(Dialect::mlir, "f8E4M3FN").exact);
  EXPECT_EQ(element_type(Dialect::hlo, "f8e4m3fn").dtype, "fp8_e4m3");
  EXPECT_EQ(element_type(Dialect::mlir, "i8").dtype, "int8");
  EXPECT_EQ(element_type(Dialect::hlo, "s8").dtype, "int8");
  // Integers of 32 bits are held as f32 by their size, in both spellings.
  EXPECT_EQ(element_type(Dialect::mlir, "ui32").dtype, "f32");
  EXPECT_FALSE(element_type(Dialect::mlir, "ui32").exact);
  EXPECT_EQ(element_type(Dialect::hlo, "u32").dtype, "f32");
  // Spellings of the other dialect, and types of no podsim size, have none.
  EXPECT_EQ(element_type(Dialect::hlo, "i32").dtype, "");
  EXPECT_EQ(element_type(Dialect::mlir, "s32").dtype, "");
  EXPECT_EQ(element_type(Dialect::mlir, "i64").dtype, "");
  EXPECT_EQ(element_type(Dialect::hlo, "s4").dtype, "int4");
}

}  // namespace
}  // namespace podsim::import::scan
