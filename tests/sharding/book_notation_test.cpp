// The scaling-book notation: what `A[I_XY, J]{U_Z}` means, round trips, the exact parse errors with their
// columns, and the shardings the notation cannot express.
#include "models/sharding/book_notation.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using test::axis;
using test::dim;
using test::sharding;

struct ParseFailure {
  std::string message;
  std::size_t column = 0;
};

ParseFailure parse_failure(const std::string& text) {
  try {
    parse_book_sharding(text, "m");
  } catch (const ParseError& e) {
    return {e.what(), e.column()};
  }
  return {"no error", 0};
}

std::string print_error(const TensorSharding& s) {
  try {
    print_book_sharding(s);
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "no error";
}

TEST(BookNotation, ShardsOneDimOverTwoAxesMajorToMinor) {
  const BookSharding book = parse_book_sharding("A[I_XY, J]", "mesh");
  EXPECT_EQ(book.tensor_name, "A");
  EXPECT_EQ(book.dim_labels, (std::vector<std::string>{"I", "J"}));
  TensorSharding expected = sharding({dim({axis("X"), axis("Y")}), dim({})});
  expected.mesh_name = "mesh";
  EXPECT_EQ(book.sharding, expected);
  EXPECT_TRUE(book.sharding.dims[0].is_closed);
  EXPECT_FALSE(book.sharding.dims[0].priority);
}

TEST(BookNotation, UnreducedAxesAndNoTensorName) {
  const BookSharding book = parse_book_sharding("[I_X, J_Y]{U_Z}", "m");
  EXPECT_EQ(book.tensor_name, "");
  TensorSharding expected = sharding({dim({axis("X")}), dim({axis("Y")})});
  expected.unreduced = {axis("Z")};
  EXPECT_EQ(book.sharding, expected);
  EXPECT_EQ(parse_book_sharding("C[I, K]{U_XY}", "m").sharding.unreduced, (std::vector<AxisRef>{axis("X"), axis("Y")}));
}

TEST(BookNotation, MultiLetterAxesInBraces) {
  const BookSharding book = parse_book_sharding("A[I_{data,model}, J]{U_{pipe}}", "m");
  TensorSharding expected = sharding({dim({axis("data"), axis("model")}), dim({})});
  expected.unreduced = {axis("pipe")};
  EXPECT_EQ(book.sharding, expected);
}

TEST(BookNotation, WhitespaceAndLowerCaseAxes) {
  // The seed notes write A[I_x, J_y]: axis names keep their case; the verifier matches them to the mesh.
  const BookSharding book = parse_book_sharding("  W [ I _ x ,J_ y ] { U _ { z } }  ", "m");
  EXPECT_EQ(book.tensor_name, "W");
  TensorSharding expected = sharding({dim({axis("x")}), dim({axis("y")})});
  expected.unreduced = {axis("z")};
  EXPECT_EQ(book.sharding, expected);
}

TEST(BookNotation, RankZeroAndLongLabels) {
  EXPECT_TRUE(parse_book_sharding("A[]", "m").sharding.dims.empty());
  const BookSharding book = parse_book_sharding("act[B_X, S, D1_Y]", "m");
  EXPECT_EQ(book.tensor_name, "act");
  EXPECT_EQ(book.dim_labels, (std::vector<std::string>{"B", "S", "D1"}));
}

TEST(BookNotation, AnAxisUsedTwiceIsLeftToTheVerifier) {
  const BookSharding book = parse_book_sharding("A[I_X, J_X]", "m");
  EXPECT_EQ(book.sharding, sharding({dim({axis("X")}), dim({axis("X")})}));
}

TEST(BookNotation, RoundTrips) {
  for (const std::string text : {"A[I_XY, J]", "[I_X, J_Y]{U_Z}", "A[I_{data,model}, J]{U_{data}}", "X[B_X, D_Y]{U_Z}",
                                 "A[I_{X,model}, J]", "A[]", "act[B_X, S, D1_Y]"}) {
    const BookSharding book = parse_book_sharding(text, "m");
    EXPECT_EQ(print_book_sharding(book.sharding, book.tensor_name, book.dim_labels), text);
  }
}

TEST(BookNotation, DefaultLabelsAndTensorName) {
  const TensorSharding s = sharding({dim({axis("X")}), dim({}), dim({axis("Y"), axis("Z")})});
  EXPECT_EQ(print_book_sharding(s), "A[I_X, J, K_YZ]");
  EXPECT_EQ(print_book_sharding(s, ""), "[I_X, J, K_YZ]");
  EXPECT_EQ(print_book_sharding(s, "W", {"D", "F", "E"}), "W[D_X, F, E_YZ]");
  // I..Z are 18 labels, then A..H, then the same letters numbered: dims 27 and 28 are I1 and J1.
  const std::string twenty = print_book_sharding(sharding(std::vector<DimSharding>(20)));
  EXPECT_EQ(twenty.substr(0, 8), "A[I, J, ");
  EXPECT_EQ(twenty.substr(twenty.size() - 8), "Z, A, B]");
  const std::string twenty_eight = print_book_sharding(sharding(std::vector<DimSharding>(28)));
  EXPECT_EQ(twenty_eight.substr(twenty_eight.size() - 10), "H, I1, J1]");
}

TEST(BookNotation, ParseErrorsSayWhatWasExpectedAndWhere) {
  const auto expect = [](const std::string& text, const std::string& message, std::size_t column) {
    const ParseFailure failure = parse_failure(text);
    EXPECT_EQ(failure.message, message) << text;
    EXPECT_EQ(failure.column, column) << text;
  };
  expect("A[I_XY, J", "expected ',' or ']', got: end of input", 10);
  expect("A[I_X$, J]", "expected ',' or ']', got: '$'", 6);
  expect("A(I_X)", "expected '[', got: '('", 2);
  expect("", "expected '[', got: end of input", 1);
  expect("A[I_]", "expected mesh axis letters or '{', got: ']'", 5);
  expect("A[I_{data,}]", "expected an axis name, got: '}'", 11);
  expect("A[I_{data]", "expected ',' or '}', got: ']'", 10);
  expect("A[1_X]", "expected a dim label, got: '1'", 3);
  expect("A[I_X1]", "expected ',' or ']', got: '1'", 6);
  expect("A[I_X]{V_Z}", "expected 'U' (unreduced axes read {U_X}), got: 'V'", 8);
  expect("A[I_X]{U_Z", "expected '}', got: end of input", 11);
  expect("A[I_X] B", "expected end of input, got: 'B'", 8);
}

TEST(BookNotation, CannotExpressSubAxes) {
  TensorSharding s = sharding({dim({axis("x")}), dim({{"y", SubAxis{2, 2}}})});
  EXPECT_EQ(print_error(s), "the book notation cannot express sub-axes, got: <@m, [{\"x\"}, {\"y\":(2)2}]>");
}

TEST(BookNotation, CannotExpressOpenDimsOrPriorities) {
  TensorSharding open = sharding({dim({axis("x")}), dim({})});
  open.dims[0].is_closed = false;
  EXPECT_EQ(print_error(open), "the book notation cannot express open dimensions, got: <@m, [{\"x\", ?}, {}]>");
  open.dims[0].axes.clear();
  EXPECT_EQ(print_error(open), "the book notation cannot express open dimensions, got: <@m, [{?}, {}]>");
  TensorSharding prioritized = sharding({dim({axis("x")})});
  prioritized.dims[0].priority = 1;
  EXPECT_EQ(print_error(prioritized), "the book notation cannot express priorities, got: <@m, [{\"x\"}p1]>");
}

TEST(BookNotation, CannotExpressExplicitReplicationOrMaxReduction) {
  TensorSharding replicated = sharding({dim({axis("x")})});
  replicated.replicated = {axis("z")};
  EXPECT_EQ(print_error(replicated),
            "the book notation cannot express explicitly replicated axes, got: <@m, [{\"x\"}], replicated={\"z\"}>");
  TensorSharding max = sharding({dim({})});
  max.unreduced = {axis("z")};
  max.unreduced_reduction = Reduction::max;
  EXPECT_EQ(
      print_error(max),
      "the book notation cannot express unreduced axes with reduction max, got: <@m, [{}], unreduced=max{\"z\"}>");
}

TEST(BookNotation, CannotExpressAxisNamesThatAreNotWords) {
  TensorSharding s = sharding({dim({axis("a b")})});
  s.inline_mesh = make_mesh({{"a b", 2}});
  EXPECT_EQ(print_error(s),
            "the book notation cannot express axis name \"a b\" (not letters, digits or '_'), got: "
            "<mesh<[\"a b\"=2]>, [{\"a b\"}]>");
}

TEST(BookNotation, LabelsMustMatchTheRankAndBeWords) {
  const TensorSharding s = sharding({dim({axis("X")}), dim({})});
  try {
    print_book_sharding(s, "A", {"I"});
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_EQ(std::string(e.what()), "dim labels don't match the sharding rank: 1 != 2");
  }
  try {
    print_book_sharding(s, "A", {"I_J", "K"});
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_EQ(std::string(e.what()), "dim label must be a letter then letters or digits, got: \"I_J\"");
  }
  try {
    print_book_sharding(s, "A[");
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_EQ(std::string(e.what()), "tensor name must be a letter then letters, digits or '_', got: \"A[\"");
  }
}

}  // namespace
}  // namespace podsim
