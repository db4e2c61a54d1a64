// Shardy attribute parsing (SHARDY.md §1): the accepted grammar, MLIR-like lexing, and every parser error
// with its exact message and 1-based column. Columns are located by searching the text for the offending
// token, so each expectation is independent of the parser.
#include "models/sharding/shardy_parse.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <string_view>

#include "models/common/error.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

// 1-based column of the `occurrence`-th (0-based) match of `needle` in `text`.
std::size_t column_of(std::string_view text, std::string_view needle, int occurrence = 0) {
  std::size_t pos = text.find(needle);
  for (int i = 0; i < occurrence && pos != std::string_view::npos; ++i)
    pos = text.find(needle, pos + 1);
  EXPECT_NE(pos, std::string_view::npos) << needle << " not in " << text;
  return pos + 1;
}

template <typename Parse>
void expect_parse_error(Parse parse, std::string_view text, const std::string& message, std::size_t column) {
  try {
    parse(text);
    ADD_FAILURE() << "parsed without error: " << text;
  } catch (const ParseError& error) {
    EXPECT_EQ(std::string(error.what()), message) << "text: " << text;
    EXPECT_EQ(error.column(), column) << "text: " << text;
  }
}

void expect_sharding_error(std::string_view text, const std::string& message, std::size_t column) {
  expect_parse_error([](std::string_view t) { return parse_shardy_sharding(t); }, text, message, column);
}
void expect_mesh_error(std::string_view text, const std::string& message, std::size_t column) {
  expect_parse_error([](std::string_view t) { return parse_shardy_mesh(t); }, text, message, column);
}

// ---- meshes ----

TEST(ShardyParseMesh, AxesAndDeviceIds) {
  const Mesh mesh = parse_shardy_mesh(R"(<["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>)");
  EXPECT_EQ(mesh.axes, (std::vector<MeshAxis>{{"x", 2}, {"y", 4}}));
  EXPECT_EQ(mesh.device_ids, (std::vector<std::int64_t>{7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(ShardyParseMesh, EmptyAndMaximalMeshes) {
  EXPECT_TRUE(parse_shardy_mesh("<[]>").is_empty());
  const Mesh maximal = parse_shardy_mesh("<[], device_ids=[3]>");
  EXPECT_TRUE(maximal.is_maximal());
  EXPECT_EQ(maximal.device_ids, std::vector<std::int64_t>{3});
  // Without axes the single id is kept even when it equals iota(1).
  EXPECT_TRUE(parse_shardy_mesh("<[], device_ids=[0]>").is_maximal());
  // A mesh of total size 1 with an axis is not maximal.
  EXPECT_FALSE(parse_shardy_mesh(R"(<["a"=1]>)").is_maximal());
}

TEST(ShardyParseMesh, ExplicitIotaDeviceIdsAreDropped) {
  const Mesh mesh = parse_shardy_mesh(R"(<["a"=2,"b"=2], device_ids=[0,1,2,3]>)");
  EXPECT_EQ(mesh.axes, (std::vector<MeshAxis>{{"a", 2}, {"b", 2}}));
  EXPECT_TRUE(mesh.device_ids.empty());
}

TEST(ShardyParseMesh, PrefixWhitespaceAndInvalidIdsStillParse) {
  const Mesh mesh = parse_shardy_mesh("#sdy.mesh < [ \"x\" = 4 ] , device_ids = [ 1 , 1, -3, 0 ] >");
  EXPECT_EQ(mesh.axes, (std::vector<MeshAxis>{{"x", 4}}));
  EXPECT_EQ(mesh.device_ids, (std::vector<std::int64_t>{1, 1, -3, 0}));  // the verifier rejects them
  EXPECT_EQ(parse_shardy_mesh(R"(<["a"=2, "a"=2]>)").axes.size(), 2u);   // duplicates: a verifier error
}

TEST(ShardyParseMesh, AxisSizeMustBeAtLeastOne) {
  const std::string zero = R"(<["x"=2, "y"=0]>)";
  expect_mesh_error(zero, "axis size must be at least 1, got: 0", column_of(zero, "0"));
  const std::string negative = R"(<["x"=-4]>)";
  expect_mesh_error(negative, "axis size must be at least 1, got: -4", column_of(negative, "-4"));
}

TEST(ShardyParseMesh, GrammarErrors) {
  expect_mesh_error(R"(["x"=2])", "expected '<'", 1);
  expect_mesh_error(R"(<"x"=2>)", "expected '['", 2);
  expect_mesh_error(R"(<[x=2]>)", "expected string", 3);
  const std::string no_equal = R"(<["x" 2]>)";
  expect_mesh_error(no_equal, "expected '='", column_of(no_equal, "2"));
  const std::string no_size = R"(<["x"=]>)";
  expect_mesh_error(no_size, "expected integer value", column_of(no_size, "]"));
  const std::string no_close = R"(<["x"=2 "y"=2]>)";
  expect_mesh_error(no_close, "expected ',' or ']'", column_of(no_close, "\"y\""));
  const std::string bad_keyword = R"(<["x"=2], devices=[0, 1]>)";
  expect_mesh_error(bad_keyword, "expected 'device_ids'", column_of(bad_keyword, "devices"));
  const std::string no_ids = R"(<["x"=2], device_ids=[]>)";
  expect_mesh_error(no_ids, "expected integer value", column_of(no_ids, "]>"));
  const std::string no_angle = R"(<["x"=2])";
  expect_mesh_error(no_angle, "expected '>'", no_angle.size() + 1);
  const std::string garbage = R"(<["x"=2]> x)";
  expect_mesh_error(garbage, "expected end of input after '>', got: x", column_of(garbage, " x") + 1);
  const std::string big = R"(<["x"=99999999999999999999]>)";
  expect_mesh_error(big, "integer value too large", column_of(big, "9"));
  const std::string alias = R"(#sdy.sharding<["x"=2]>)";
  expect_mesh_error(alias, "expected '#sdy.mesh' or '<', got: #sdy.sharding", 1);
}

// ---- shardings ----

TEST(ShardyParseSharding, FullExample) {
  const TensorSharding s =
      parse_shardy_sharding(R"(<@mesh, [{"x"}, {"y":(2)2, ?}p1], replicated={"z"}, unreduced={"w"}>)");
  EXPECT_EQ(s.mesh_name, "mesh");
  EXPECT_FALSE(s.inline_mesh.has_value());
  ASSERT_EQ(s.dims.size(), 2u);
  EXPECT_EQ(s.dims[0], (DimSharding{{test::axis("x")}, true, std::nullopt}));
  EXPECT_EQ(s.dims[1], (DimSharding{{test::sub_axis("y", 2, 2)}, false, 1}));
  EXPECT_EQ(s.replicated, std::vector<AxisRef>{test::axis("z")});
  EXPECT_EQ(s.unreduced, std::vector<AxisRef>{test::axis("w")});
  EXPECT_EQ(s.unreduced_reduction, Reduction::sum);
}

TEST(ShardyParseSharding, WhitespaceBetweenTokensIsIgnored) {
  const TensorSharding spaced = parse_shardy_sharding("  < @m ,[ { \"a\" : ( 2 ) 2 , ? } p3 ,{\"b\",?}] >  ");
  ASSERT_EQ(spaced.dims.size(), 2u);
  EXPECT_EQ(spaced.dims[0], (DimSharding{{test::sub_axis("a", 2, 2)}, false, 3}));
  EXPECT_EQ(spaced.dims[1], (DimSharding{{test::axis("b")}, false, std::nullopt}));
}

TEST(ShardyParseSharding, PrefixEmptyDimsAndOpenDims) {
  const TensorSharding s = parse_shardy_sharding(R"(#sdy.sharding<@m, [{}, {?}, {"a", "b"}]>)");
  ASSERT_EQ(s.dims.size(), 3u);
  EXPECT_EQ(s.dims[0], (DimSharding{{}, true, std::nullopt}));
  EXPECT_EQ(s.dims[1], (DimSharding{{}, false, std::nullopt}));
  EXPECT_EQ(s.dims[2], (DimSharding{{test::axis("a"), test::axis("b")}, true, std::nullopt}));
  EXPECT_TRUE(parse_shardy_sharding("<@m, []>").dims.empty());
}

TEST(ShardyParseSharding, InlineMeshAndQuotedSymbol) {
  const TensorSharding s = parse_shardy_sharding(R"(<mesh<["a"=2], device_ids=[1, 0]>, [{"a"}]>)");
  ASSERT_TRUE(s.inline_mesh.has_value());
  EXPECT_EQ(s.inline_mesh->axes, (std::vector<MeshAxis>{{"a", 2}}));
  EXPECT_EQ(s.inline_mesh->device_ids, (std::vector<std::int64_t>{1, 0}));
  EXPECT_TRUE(s.mesh_name.empty());
  EXPECT_EQ(parse_shardy_sharding(R"(<@"my mesh", []>)").mesh_name, "my mesh");
  // An inline iota list is dropped too.
  EXPECT_TRUE(parse_shardy_sharding(R"(<mesh<["a"=2], device_ids=[0, 1]>, []>)").inline_mesh->device_ids.empty());
}

TEST(ShardyParseSharding, StringEscapes) {
  const TensorSharding s = parse_shardy_sharding(R"(<@m, [{"a\"b", "c\\d", "e\0Af\n"}]>)");
  EXPECT_EQ(s.dims[0].axes, (std::vector<AxisRef>{test::axis("a\"b"), test::axis("c\\d"), test::axis("e\nf\n")}));
}

TEST(ShardyParseSharding, PrioritiesIncludingP0AreKept) {
  const TensorSharding s = parse_shardy_sharding(R"(<@m, [{"a"}p0, {?}p12, {}p0, {"b"}]>)");
  EXPECT_EQ(s.dims[0].priority, 0);
  EXPECT_EQ(s.dims[1].priority, 12);
  EXPECT_EQ(s.dims[2].priority, 0);  // `{}p0` parses; the verifier rejects it
  EXPECT_EQ(s.dims[3].priority, std::nullopt);
  EXPECT_EQ(parse_shardy_sharding("<@m, [{?}p9223372036854775807]>").dims[0].priority,
            std::int64_t{9223372036854775807});
}

TEST(ShardyParseSharding, UnreducedQuirkAndReductions) {
  EXPECT_EQ(parse_shardy_sharding(R"(<@m, [], unreduced{"a"}>)").unreduced, std::vector<AxisRef>{test::axis("a")});
  const TensorSharding max = parse_shardy_sharding(R"(<@m, [], unreduced=max{"a"}, replicated={"b"}>)");
  EXPECT_EQ(max.unreduced_reduction, Reduction::max);
  EXPECT_EQ(max.replicated, std::vector<AxisRef>{test::axis("b")});
  EXPECT_EQ(parse_shardy_sharding(R"(<@m, [], unreduced=min{"a"}>)").unreduced_reduction, Reduction::min);
  EXPECT_EQ(parse_shardy_sharding(R"(<@m, [], unreduced=sum{"a"}>)").unreduced_reduction, Reduction::sum);
  EXPECT_EQ(parse_shardy_sharding(R"(<@m, [], unreduced={"a"}>)").unreduced_reduction, Reduction::sum);
}

TEST(ShardyParseSharding, ListsAreNeitherSortedNorMerged) {
  const TensorSharding s = parse_shardy_sharding(R"(<@m, [{"x":(1)2, "x":(2)2}], replicated={"y":(4)2, "x"}>)");
  EXPECT_EQ(s.dims[0].axes, (std::vector<AxisRef>{test::sub_axis("x", 1, 2), test::sub_axis("x", 2, 2)}));
  EXPECT_EQ(s.replicated, (std::vector<AxisRef>{test::sub_axis("y", 4, 2), test::axis("x")}));
}

TEST(ShardyParseSharding, SubAxisNumbersAreSigned64Bit) {
  const TensorSharding s = parse_shardy_sharding(R"(<@m, [{"a":(-1)2, "b":(1)-9223372036854775808}]>)");
  EXPECT_EQ(s.dims[0].axes[0], test::sub_axis("a", -1, 2));
  EXPECT_EQ(s.dims[0].axes[1].sub->size, std::numeric_limits<std::int64_t>::min());
  const std::string big = R"(<@m, [{"a":(9223372036854775808)2}]>)";
  expect_sharding_error(big, "integer value too large", column_of(big, "9"));
}

TEST(ShardyParseSharding, QuestionMarkMustBeLast) {
  const std::string text = R"(<@m, [{?, "a"}]>)";
  expect_sharding_error(text, "expected '}'", column_of(text, ", \"a\""));
  const std::string leading_comma = R"(<@m, [{, ?}]>)";
  expect_sharding_error(leading_comma, "expected string", column_of(leading_comma, ", ?"));
  const std::string missing_comma = R"(<@m, [{"a" "b"}]>)";
  expect_sharding_error(missing_comma, "expected ','", column_of(missing_comma, "\"b\""));
}

TEST(ShardyParseSharding, PriorityFormatErrors) {
  const std::string word = R"(<@m, [{"a"}phigh]>)";
  expect_sharding_error(word, "expecting priority in format 'p<number>', got: phigh", column_of(word, "phigh"));
  const std::string negative = R"(<@m, [{"a"}p-1]>)";  // lexes as `p` `-` `1`
  expect_sharding_error(negative, "expecting priority in format 'p<number>', got: p", column_of(negative, "p-1"));
  const std::string other = R"(<@m, [{"a"}q1]>)";
  expect_sharding_error(other, "expecting priority in format 'p<number>', got: q1", column_of(other, "q1"));
  const std::string zeros = R"(<@m, [{"a"}p01]>)";
  expect_sharding_error(zeros, "priorities with leading zeros are not allowed, got: p01", column_of(zeros, "p01"));
  const std::string huge = R"(<@m, [{"a"}p9999999999999999999]>)";
  expect_sharding_error(huge, "expecting integer priority, got: p9999999999999999999", column_of(huge, "p9"));
}

TEST(ShardyParseSharding, NamedAxisListErrors) {
  const std::string message = "failed to parse Sdy_TensorSharding, expected valid named axis list after comma";
  const std::string twice = R"(<@m, [], replicated={"a"}, replicated={"b"}>)";
  expect_sharding_error(twice, message, column_of(twice, "replicated", 1));
  const std::string twice_unreduced = R"(<@m, [], unreduced={"a"}, unreduced={"b"}>)";
  expect_sharding_error(twice_unreduced, message, column_of(twice_unreduced, "unreduced", 1));
  const std::string trailing = R"(<@m, [{"a"}], >)";
  expect_sharding_error(trailing, message, column_of(trailing, ">"));
  const std::string unknown = R"(<@m, [], manual={"a"}>)";
  expect_sharding_error(unknown, message, column_of(unknown, "manual"));
  const std::string no_equal = R"(<@m, [], replicated{"a"}>)";
  expect_sharding_error(no_equal, "expected '='", column_of(no_equal, "{\"a\""));
  const std::string empty = R"(<@m, [], replicated={}>)";
  expect_sharding_error(empty, "expected string", column_of(empty, "}"));
  const std::string bare = R"(<@m, [{"a", b}]>)";
  expect_sharding_error(bare, "expected string", column_of(bare, "b}"));
  const std::string reduction = R"(<@m, [], unreduced=avg{"a"}>)";
  expect_sharding_error(reduction, "expecting reduction 'sum', 'max' or 'min', got: avg", column_of(reduction, "avg"));
  const std::string no_brace = R"(<@m, [], unreduced max{"a"}>)";
  expect_sharding_error(no_brace, "expected '{'", column_of(no_brace, "max"));
  const std::string unclosed = R"(<@m, [], replicated={"a" "b"}>)";
  expect_sharding_error(unclosed, "expected '}'", column_of(unclosed, "\"b\""));
}

TEST(ShardyParseSharding, StructureErrors) {
  expect_sharding_error(R"(@m, []>)", "expected '<'", 1);
  expect_sharding_error(R"(<m, []>)", "expected a mesh symbol '@name' or an inlined 'mesh<[...]>'", 2);
  expect_sharding_error(R"(<@m []>)", "expected ','", 5);
  expect_sharding_error(R"(<@m, {"a"}>)", "expected '['", 6);
  const std::string dims = R"(<@m, [{"a"} {"b"}]>)";
  expect_sharding_error(dims, "expected ',' or ']'", column_of(dims, "{\"b\""));
  const std::string no_brace = R"(<@m, ["a"]>)";
  expect_sharding_error(no_brace, "expected '{'", column_of(no_brace, "\"a\""));
  const std::string unclosed = R"(<@m, [{"a"}])";
  expect_sharding_error(unclosed, "expected '>'", unclosed.size() + 1);
  const std::string garbage = R"(<@m, [{"a"}]>>)";
  expect_sharding_error(garbage, "expected end of input after '>', got: >", garbage.size());
  const std::string alias = R"(#sdy.mesh<@m, []>)";
  expect_sharding_error(alias, "expected '#sdy.sharding' or '<', got: #sdy.mesh", 1);
  const std::string sub_axis = R"(<@m, [{"a":2}]>)";
  expect_sharding_error(sub_axis, "expected '('", column_of(sub_axis, "2"));
  const std::string sub_close = R"(<@m, [{"a":(2 2}]>)";
  expect_sharding_error(sub_close, "expected ')'", column_of(sub_close, "2}"));
  const std::string sub_size = R"(<@m, [{"a":(2)}]>)";
  expect_sharding_error(sub_size, "expected integer value", column_of(sub_size, "}"));
  const std::string bad_mesh = R"(<mesh<["a"=0]>, []>)";
  expect_sharding_error(bad_mesh, "axis size must be at least 1, got: 0", column_of(bad_mesh, "0"));
}

TEST(ShardyParseSharding, LexingErrors) {
  const std::string unterminated = R"(<@m, [{"ab}]>)";
  expect_sharding_error(unterminated, "expected '\"' in string literal", column_of(unterminated, "\""));
  const std::string escape = R"(<@m, [{"a\qb"}]>)";
  expect_sharding_error(escape, "unknown escape in string literal", column_of(escape, "\\"));
  // `\dd` is the byte 0xDD, which no UTF-8 text holds alone: refused at the string's opening quote.
  const std::string not_utf8 = R"(<@m, [{"a\ddb"}]>)";
  expect_sharding_error(not_utf8, "string literal is not UTF-8 text (after its escapes)", column_of(not_utf8, "\""));
  // `\c3\a9` is é in UTF-8: accepted.
  EXPECT_NO_THROW((void)parse_shardy_sharding(R"(<@m, [{"caf\c3\a9"}]>)"));
  const std::string character = R"(<@m, [{"a"}; ]>)";
  expect_sharding_error(character, "unexpected character ';'", column_of(character, ";"));
  expect_sharding_error("<@ m, []>", "invalid symbol reference, expected an identifier or a string after '@'", 2);
}

TEST(ShardyParsePieces, AxisRefAndDimAlone) {
  EXPECT_EQ(parse_shardy_axis_ref(R"("x":(2)4)"), test::sub_axis("x", 2, 4));
  EXPECT_EQ(parse_shardy_axis_ref(R"( "x" )"), test::axis("x"));
  EXPECT_EQ(parse_shardy_dim_sharding(R"({"x", ?}p1)"), (DimSharding{{test::axis("x")}, false, 1}));
  expect_parse_error([](std::string_view t) { return parse_shardy_axis_ref(t); }, R"("x" "y")",
                     "expected end of input after axis ref, got: y", 5);
  expect_parse_error([](std::string_view t) { return parse_shardy_dim_sharding(t); }, R"({"x"}, {})",
                     "expected end of input after '}', got: ,", 6);
}

}  // namespace
}  // namespace podsim
