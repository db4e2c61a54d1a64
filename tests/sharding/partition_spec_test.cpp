// JAX PartitionSpec: entries, tuples, None, JAX's rule for fewer entries than the rank, unreduced axes, the
// exact parse errors with their columns, and what a PartitionSpec cannot express.
#include "models/sharding/partition_spec.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using test::axis;
using test::dim;
using test::sharding;

TensorSharding parse(const std::string& text, std::optional<std::size_t> rank = std::nullopt) {
  return parse_partition_spec(text, "m", rank);
}

struct PspecFailure {
  std::string message;
  std::size_t column = 0;
};

PspecFailure pspec_failure(const std::string& text) {
  try {
    parse(text);
  } catch (const ParseError& e) {
    return {e.what(), e.column()};
  }
  return {"no error", 0};
}

std::string pspec_print_error(const TensorSharding& s) {
  try {
    print_partition_spec(s);
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PartitionSpecNotation, EntriesTuplesAndNone) {
  EXPECT_EQ(parse("P('X', None)"), sharding({dim({axis("X")}), dim({})}));
  EXPECT_EQ(parse("P(('X','Y'), None)"), sharding({dim({axis("X"), axis("Y")}), dim({})}));
  EXPECT_EQ(parse("P(('X',), 'Y')"), sharding({dim({axis("X")}), dim({axis("Y")})}));
  EXPECT_EQ(parse("P((), 'Y')"), sharding({dim({}), dim({axis("Y")})}));
  EXPECT_EQ(parse("P()"), sharding({}));
  EXPECT_EQ(parse("P(None,)"), sharding({dim({})}));
  EXPECT_TRUE(parse("P('X')").dims[0].is_closed);
}

TEST(PartitionSpecNotation, SpellingsOfTheCallAndQuotes) {
  const TensorSharding expected = sharding({dim({axis("x")}), dim({})});
  EXPECT_EQ(parse("PartitionSpec(\"x\", None)"), expected);
  EXPECT_EQ(parse("jax.sharding.PartitionSpec('x', None)"), expected);
  EXPECT_EQ(parse("jax.sharding.P('x', None)"), expected);
  EXPECT_EQ(parse("jax.P('x', None)"), expected);
  EXPECT_EQ(parse("  P ( 'x' ,\n None , )  "), expected);
  EXPECT_EQ(parse("P(\"it's\")"), sharding({dim({axis("it's")})}));
}

TEST(PartitionSpecNotation, FewerEntriesThanTheRankAreReplicated) {
  EXPECT_EQ(parse("P('X')", 3), sharding({dim({axis("X")}), dim({}), dim({})}));
  EXPECT_EQ(parse("P()", 2), sharding({dim({}), dim({})}));
  EXPECT_EQ(parse("P('X', None)", 2), sharding({dim({axis("X")}), dim({})}));
  try {
    parse("P('X', None, None)", 2);
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_EQ(std::string(e.what()), "PartitionSpec has more entries than the tensor rank: 3 > 2");
  }
}

TEST(PartitionSpecNotation, UnreducedKeyword) {
  TensorSharding expected = sharding({dim({axis("X")}), dim({})});
  expected.unreduced = {axis("Z")};
  EXPECT_EQ(parse("P('X', None, unreduced={'Z'})"), expected);
  expected.dims.push_back(dim({}));
  EXPECT_EQ(parse("P('X', unreduced={'Z'})", 3), expected);
  TensorSharding two = sharding({});
  two.unreduced = {axis("X"), axis("Y")};
  EXPECT_EQ(parse("P(unreduced={'X', 'Y',})"), two);
}

TEST(PartitionSpecNotation, Printing) {
  EXPECT_EQ(print_partition_spec(sharding({dim({axis("X")}), dim({})})), "P('X', None)");
  EXPECT_EQ(print_partition_spec(sharding({dim({axis("X"), axis("Y")}), dim({})})), "P(('X', 'Y'), None)");
  EXPECT_EQ(print_partition_spec(sharding({})), "P()");
  EXPECT_EQ(print_partition_spec(sharding({dim({axis("it's")})})), "P(\"it's\")");
  TensorSharding unreduced = sharding({dim({axis("X")})});
  unreduced.unreduced = {axis("Y"), axis("Z")};
  EXPECT_EQ(print_partition_spec(unreduced), "P('X', unreduced={'Y', 'Z'})");
  unreduced.dims.clear();
  EXPECT_EQ(print_partition_spec(unreduced), "P(unreduced={'Y', 'Z'})");
}

TEST(PartitionSpecNotation, RoundTrips) {
  for (const std::string text : {"P('X', None)", "P(('X', 'Y'), None)", "P()", "P(None, None, 'data')",
                                 "P(('data', 'model'), unreduced={'pipe'})", "P(\"it's\", None)"})
    EXPECT_EQ(print_partition_spec(parse(text)), text);
}

TEST(PartitionSpecNotation, SameShardingAsTheBookNotation) {
  // A[I_XY, J] is P(('X', 'Y'), None); C[I_X, K]{U_Y} is P('X', None, unreduced={'Y'}).
  EXPECT_EQ(print_partition_spec(parse_book_sharding("A[I_XY, J]", "m").sharding), "P(('X', 'Y'), None)");
  EXPECT_EQ(parse("P(('X', 'Y'), None)"), parse_book_sharding("A[I_XY, J]", "m").sharding);
  EXPECT_EQ(parse("P('X', None, unreduced={'Y'})"), parse_book_sharding("C[I_X, K]{U_Y}", "m").sharding);
  EXPECT_EQ(print_book_sharding(parse("P(None, ('data', 'model'))")), "A[I, J_{data,model}]");
}

TEST(PartitionSpecNotation, ParseErrorsSayWhatWasExpectedAndWhere) {
  const auto expect = [](const std::string& text, const std::string& message, std::size_t column) {
    const PspecFailure failure = pspec_failure(text);
    EXPECT_EQ(failure.message, message) << text;
    EXPECT_EQ(failure.column, column) << text;
  };
  expect("P('X', None", "expected ',' or ')', got: end of input", 12);
  expect("P('X)", "expected a closing ', got: end of input", 6);
  expect("Q('X')", "expected 'P' or 'PartitionSpec', got: 'Q'", 1);
  expect("jax.sharding.Mesh('X')", "expected 'P' or 'PartitionSpec', got: 'jax.sharding.Mesh'", 1);
  expect("('X')", "expected 'P' or 'PartitionSpec', got: '('", 1);
  expect("P 'X'", "expected '(', got: '''", 3);
  expect("P('X', Nope)", "expected an axis name string, a tuple of them or None, got: 'Nope'", 8);
  expect("P(,)", "expected an axis name string, a tuple of them or None, got: ','", 3);
  expect("P('X',,)", "expected an axis name string, a tuple of them or None, got: ','", 7);
  expect("P(('X' 'Y'))", "expected ',' or ')', got: '''", 8);
  expect("P((None,))", "expected an axis name string or ')', got: 'N'", 4);
  expect("P('X', reduced={'Y'})", "unknown keyword argument, got: 'reduced'", 8);
  expect("P(unreduced={'Z'}, 'X')", "positional entry follows keyword argument", 20);
  expect("P(unreduced={'Z'}, unreduced={'Y'})", "keyword argument repeated, got: 'unreduced'", 20);
  expect("P(unreduced='Z')", "expected '{' (unreduced={'Z'}), got: '''", 13);
  expect("P('a\\b')", "escape sequences are not supported in axis names, got: '\\'", 5);
  expect("P('X') extra", "expected end of input, got: 'e'", 8);
}

TEST(PartitionSpecNotation, CannotExpressSubAxesOpenDimsOrPriorities) {
  EXPECT_EQ(pspec_print_error(sharding({dim({axis("x")}), dim({{"y", SubAxis{2, 2}}})})),
            "a PartitionSpec cannot express sub-axes, got: <@m, [{\"x\"}, {\"y\":(2)2}]>");
  TensorSharding open = sharding({dim({axis("x")}), dim({})});
  open.dims[1].is_closed = false;
  EXPECT_EQ(pspec_print_error(open), "a PartitionSpec cannot express open dimensions, got: <@m, [{\"x\"}, {?}]>");
  TensorSharding prioritized = sharding({dim({axis("x")})});
  prioritized.dims[0].priority = 0;
  EXPECT_EQ(pspec_print_error(prioritized), "a PartitionSpec cannot express priorities, got: <@m, [{\"x\"}p0]>");
}

TEST(PartitionSpecNotation, CannotExpressReplicatedAxesMaxReductionOrEscapes) {
  TensorSharding replicated = sharding({dim({axis("x")})});
  replicated.replicated = {axis("z")};
  EXPECT_EQ(pspec_print_error(replicated),
            "a PartitionSpec cannot express explicitly replicated axes, got: <@m, [{\"x\"}], replicated={\"z\"}>");
  TensorSharding max = sharding({dim({})});
  max.unreduced = {axis("z")};
  max.unreduced_reduction = Reduction::max;
  EXPECT_EQ(pspec_print_error(max),
            "a PartitionSpec cannot express unreduced axes with reduction max, got: <@m, [{}], unreduced=max{\"z\"}>");
  EXPECT_EQ(pspec_print_error(sharding({dim({axis("a'\"b")})})),
            "a PartitionSpec cannot express axis name \"a'\\\"b\" (needs escapes), got: <@m, [{\"a'\\\"b\"}]>");
}

}  // namespace
}  // namespace podsim
