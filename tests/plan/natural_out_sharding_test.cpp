// A matmul's natural output sharding (models/plan/natural_out_sharding.hpp): the rule the planner's local product
// and the importer's propagated dot_general result share, on hand-worked einsums.
#include "models/plan/natural_out_sharding.hpp"

#include <gtest/gtest.h>

#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {
namespace {

std::string natural(const std::string& einsum, const std::string& lhs, const std::string& rhs, const Mesh& mesh) {
  return print_shardy_sharding(
      natural_out_sharding(parse_einsum(einsum), parse_shardy_sharding(lhs), parse_shardy_sharding(rhs), mesh));
}

TEST(NaturalOutSharding, EachDimFromTheOperandDimItComesFrom) {
  const Mesh mesh = make_mesh({{"x", 4}, {"y", 2}, {"z", 2}});
  // B from the lhs, F from the rhs; the contracted D's axis "y" leaves no dim.
  EXPECT_EQ(natural("BD,DF->BF", "<@m, [{\"x\"}, {\"y\"}]>", "<@m, [{\"y\"}, {\"z\"}]>", mesh),
            "<@m, [{\"x\"}, {\"z\"}]>");
  // A batch dim the lhs leaves unsharded takes the rhs's axes.
  EXPECT_EQ(natural("ABC,ACD->ABD", "<@m, [{}, {}, {}]>", "<@m, [{\"x\"}, {}, {\"y\"}]>", mesh),
            "<@m, [{\"x\"}, {}, {\"y\"}]>");
  // An axis an earlier dim took ends a later dim's axes: "x" on both free dims, the rhs's F keeps nothing after it.
  EXPECT_EQ(natural("BD,DF->BF", "<@m, [{\"x\"}, {}]>", "<@m, [{}, {\"x\", \"z\"}]>", mesh), "<@m, [{\"x\"}, {}]>");
  // Sub-axes that do not overlap are both kept: "x":(1)2 and "x":(2)2 are the two halves of "x".
  EXPECT_EQ(natural("BD,DF->BF", "<@m, [{\"x\":(1)2}, {}]>", "<@m, [{}, {\"x\":(2)2}]>", mesh),
            "<@m, [{\"x\":(1)2}, {\"x\":(2)2}]>");
}

}  // namespace
}  // namespace podsim
