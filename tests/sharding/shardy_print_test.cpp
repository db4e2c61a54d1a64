// Canonical printing of Shardy text (SHARDY.md §5): hand-built values print the documented forms, and
// canonical text round-trips through parse and print unchanged.
#include "models/sharding/shardy_print.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/sharding/shardy_parse.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

TEST(ShardyPrint, Meshes) {
  EXPECT_EQ(print_shardy_mesh(make_mesh({{"a", 2}, {"b", 4}})), R"(<["a"=2, "b"=4]>)");
  EXPECT_EQ(print_shardy_mesh(make_mesh({{"a", 2}}, {1, 0})), R"(<["a"=2], device_ids=[1, 0]>)");
  EXPECT_EQ(print_shardy_mesh(Mesh{}), "<[]>");
  EXPECT_EQ(print_shardy_mesh(make_mesh({}, {3})), "<[], device_ids=[3]>");
  // The builder drops an explicit iota list, so it never prints.
  EXPECT_EQ(print_shardy_mesh(make_mesh({{"a", 2}, {"b", 2}}, {0, 1, 2, 3})), R"(<["a"=2, "b"=2]>)");
}

TEST(ShardyPrint, DimShardings) {
  EXPECT_EQ(print_dim_sharding(DimSharding{}), "{}");
  EXPECT_EQ(print_dim_sharding(DimSharding{{test::axis("a"), test::axis("b")}, true, std::nullopt}), R"({"a", "b"})");
  EXPECT_EQ(print_dim_sharding(DimSharding{{}, false, std::nullopt}), "{?}");
  EXPECT_EQ(print_dim_sharding(DimSharding{{test::axis("a")}, false, std::nullopt}), R"({"a", ?})");
  EXPECT_EQ(print_dim_sharding(DimSharding{{test::sub_axis("y", 2, 2)}, false, 1}), R"({"y":(2)2, ?}p1)");
  EXPECT_EQ(print_dim_sharding(DimSharding{{test::axis("a")}, true, 0}), R"({"a"}p0)");  // p0 is printed
  EXPECT_EQ(print_dim_sharding(DimSharding{{}, true, 0}), "{}p0");
}

TEST(ShardyPrint, Shardings) {
  TensorSharding s;
  s.mesh_name = "m";
  s.dims = {DimSharding{{test::axis("a")}, true, std::nullopt}, DimSharding{}};
  EXPECT_EQ(print_shardy_sharding(s), R"(<@m, [{"a"}, {}]>)");
  s.unreduced = {test::axis("w")};
  s.replicated = {test::axis("z"), test::sub_axis("y", 1, 2)};
  EXPECT_EQ(print_shardy_sharding(s), R"(<@m, [{"a"}, {}], replicated={"z", "y":(1)2}, unreduced={"w"}>)");
  s.unreduced_reduction = Reduction::max;
  EXPECT_EQ(print_shardy_sharding(s), R"(<@m, [{"a"}, {}], replicated={"z", "y":(1)2}, unreduced=max{"w"}>)");
  s.replicated.clear();
  s.unreduced_reduction = Reduction::min;
  EXPECT_EQ(print_shardy_sharding(s), R"(<@m, [{"a"}, {}], unreduced=min{"w"}>)");
}

TEST(ShardyPrint, InlineMeshAndQuotedNames) {
  TensorSharding s;
  s.inline_mesh = make_mesh({{"a", 2}});
  s.dims = {DimSharding{{test::axis("a")}, true, std::nullopt}};
  EXPECT_EQ(print_shardy_sharding(s), R"(<mesh<["a"=2]>, [{"a"}]>)");
  TensorSharding t;
  t.mesh_name = "my mesh";
  t.dims = {DimSharding{{test::axis("a\"b")}, true, std::nullopt}};
  EXPECT_EQ(print_shardy_sharding(t), R"(<@"my mesh", [{"a\"b"}]>)");
  EXPECT_EQ(print_symbol_ref("mesh_0.x"), "@mesh_0.x");
  EXPECT_EQ(print_symbol_ref("0mesh"), "@\"0mesh\"");
}

TEST(ShardyPrint, CanonicalTextRoundTrips) {
  const char* shardings[] = {
      R"(<@mesh, [{"x"}, {"y":(2)2, ?}p1], replicated={"z"}, unreduced={"w"}>)",
      R"(<@mesh_xyz, [{"x"}, {"z", "y"}]>)",
      R"(<@m, []>)",
      R"(<@m, [{}, {?}, {?}p3, {"a", ?}, {"b"}p0]>)",
      R"(<@m, [{"a"}], unreduced=max{"b", "c":(2)2}>)",
      R"(<@m, [{"y":(4)2}], replicated={"y":(1)2}, unreduced=min{"x"}>)",
      R"(<mesh<["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]>, [{"b"}, {}]>)",
      R"(<mesh<[]>, [{}]>)",
      R"(<mesh<[], device_ids=[7]>, []>)",
      R"(<@"odd name", [{"a\\b"}]>)",
  };
  for (const char* text : shardings)
    EXPECT_EQ(print_shardy_sharding(parse_shardy_sharding(text)), text);
  const char* meshes[] = {R"(<["a"=2, "b"=4]>)", R"(<["a"=2], device_ids=[1, 0]>)", "<[]>", "<[], device_ids=[3]>"};
  for (const char* text : meshes)
    EXPECT_EQ(print_shardy_mesh(parse_shardy_mesh(text)), text);
}

// Shardy's own parse-print cases of inlined meshes (issue 16): an inline mesh with axes, with device_ids, and the
// maximal mesh, each printed back as written.
TEST(ShardyPrint, InlineMeshesRoundTrip) {
  const char* shardings[] = {
      R"(<mesh<["a"=2, "b"=2]>, [{}, {"c"}]>)",
      R"(<mesh<["a"=2], device_ids=[1, 0]>, [{"a"}]>)",
      R"(<mesh<[], device_ids=[3]>, []>)",
      R"(<mesh<["a"=2, "b"=2]>, [{"a"}, {"b"}]>)",
  };
  for (const char* text : shardings)
    EXPECT_EQ(print_shardy_sharding(parse_shardy_sharding(text)), text);
  const TensorSharding s = parse_shardy_sharding(R"(<mesh<["a"=2], device_ids=[1, 0]>, [{"a"}]>)");
  EXPECT_TRUE(s.mesh_name.empty());
  EXPECT_EQ(*s.inline_mesh, make_mesh({{"a", 2}}, {1, 0}));
  EXPECT_TRUE(parse_shardy_sharding(R"(<mesh<[], device_ids=[3]>, []>)").inline_mesh->is_maximal());
}

TEST(ShardyPrint, NonCanonicalTextPrintsCanonically) {
  EXPECT_EQ(print_shardy_sharding(parse_shardy_sharding(R"(#sdy.sharding< @m,[{"a" : (2)2,?}p2,{ }]>)")),
            R"(<@m, [{"a":(2)2, ?}p2, {}]>)");
  // unreduced before replicated in the text; replicated first when printed; `sum` and the missing `=` vanish.
  EXPECT_EQ(print_shardy_sharding(parse_shardy_sharding(R"(<@m, [], unreduced=sum{"a"}, replicated={"b"}>)")),
            R"(<@m, [], replicated={"b"}, unreduced={"a"}>)");
  EXPECT_EQ(print_shardy_sharding(parse_shardy_sharding(R"(<@m, [], unreduced{"a"}>)")),
            R"(<@m, [], unreduced={"a"}>)");
  EXPECT_EQ(print_shardy_mesh(parse_shardy_mesh(R"(#sdy.mesh<["a"=2,"b"=2],device_ids=[0,1,2,3]>)")),
            R"(<["a"=2, "b"=2]>)");
  // Nothing is sorted or merged.
  EXPECT_EQ(print_shardy_sharding(parse_shardy_sharding(R"(<@m, [{"x":(1)2,"x":(2)2}], replicated={"b","a"}>)")),
            R"(<@m, [{"x":(1)2, "x":(2)2}], replicated={"b", "a"}>)");
}

}  // namespace
}  // namespace podsim
