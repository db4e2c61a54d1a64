// Shape text on the command line.
#include "models/common/shape.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"

namespace podsim {
namespace {

TEST(Shape, ParsesDimsAndScalar) {
  EXPECT_EQ(parse_shape("1024x4096"), (Shape{1024, 4096}));
  EXPECT_EQ(parse_shape("8x2048x4096"), (Shape{8, 2048, 4096}));
  EXPECT_EQ(parse_shape("7"), (Shape{7}));
  EXPECT_EQ(parse_shape("scalar"), Shape{});
  EXPECT_EQ(format_shape({}), "scalar");
  EXPECT_EQ(format_shape({2, 3}), "2x3");
}

TEST(Shape, ErrorsGiveTheColumn) {
  try {
    parse_shape("1024xx4096");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.column(), 6u);
    EXPECT_EQ(std::string(e.what()), "expected a dimension size, got: \"x\"");
  }
  try {
    parse_shape("12y3");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.column(), 3u);
    EXPECT_EQ(std::string(e.what()), "expected 'x' between dimension sizes, got: \"y\"");
  }
  try {
    parse_shape("8x");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.column(), 3u);
  }
  EXPECT_THROW(parse_shape("-4"), ParseError);
}

TEST(Shape, ElementCountOverflowIsAnError) {
  EXPECT_EQ(element_count({1024, 4096}), 4194304u);
  EXPECT_EQ(element_count({}), 1u);
  EXPECT_THROW(element_count({1ll << 40, 1ll << 40}), VerifyError);
}

}  // namespace
}  // namespace podsim
