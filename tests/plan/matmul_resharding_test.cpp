// Reaching the consumer's sharding (plan_resharding and the collectives after the local matmul): all-to-all,
// local slices, slice-before-reduce ordering, axis swaps, and every sharding pair on a 2 x 2 mesh checked step
// by step against what each collective does.
#include "models/plan/matmul_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "models/sharding/shardy_print.hpp"
#include "tests/plan/matmul_test_helpers.hpp"

namespace podsim {
namespace {

// ---- Reaching the consumer's layout (rule 5) ----

// C[I_X, K] -> C[I, K_X] moves X between dims: one all-to-all (not gather + slice). f32 [4,8], X = 2:
// 2 x 8 x 4 = 64 bytes per device, V = 64 x 2 = 128.
TEST(MatmulPlanResharding, AxisChangingDimsIsAnAllToAll) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {4, 3}, "A[I_X, J]", {3, 8}, "B[J, K]", DType::f32, two_ranks, need("C[I, K_X]"));
  EXPECT_EQ(p.matmul_case, 1);
  ASSERT_EQ(p.after.size(), 1u);
  const PlannedCollective& a2a = p.after[0];
  expect_collective(a2a, Kind::all_to_all, Operand::out, axes({"X"}), 0, 128, 2);
  EXPECT_EQ(a2a.to_dim, 1);
  EXPECT_EQ(a2a.reason, "all-to-all over X from dim 0 (I) to dim 1 (K): the required sharding moves X between them");
}

// An axis the result lacks and nothing else holds is a local slice: no collective, one note.
TEST(MatmulPlanResharding, NewAxisIsALocalSlice) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {4, 3}, "A[I, J]", {3, 8}, "B[J, K]", DType::f32, two_ranks, need("C[I_X, K]"));
  EXPECT_TRUE(p.after.empty());
  EXPECT_EQ(p.notes, (std::vector<std::string>{"local slice of out dim 0 (I) over X: no communication"}));
}

// Slices come before the all-reduce, which then runs on the smaller shard: C[I, K]{U_X} of [4,6] f32 to
// C[I_Y, K] on 2 x 2: slice I over Y (2 x 6), then all-reduce X with V = 2 x 6 x 4 = 48 bytes.
TEST(MatmulPlanResharding, SliceBeforeAllReduce) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {4, 8}, "A[I, J_X]", {8, 6}, "B[J_X, K]", DType::f32, mesh_2x2, need("C[I_Y, K]"));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::all_reduce, Operand::out, axes({"X"}), -1, 48, 2);
  EXPECT_EQ(p.notes.size(), 1u);
}

// Two dims swapping axes (C[I_X, K_Y] -> C[I_Y, K_X], [4,4] f32 on 2 x 2) cannot move both directly: gather
// X off I (V = 4 x 2 f32 = 32), all-to-all Y from K to I (4 x 2 f32 per device x 2 = 64), slice X on K.
TEST(MatmulPlanResharding, SwapGathersOneAxisThenMovesTheOther) {
  std::vector<std::string> notes;
  const auto steps = plan_resharding({4, 4}, book("C[I_X, K_Y]"), book("C[I_Y, K_X]"), DType::f32, mesh_2x2,
                                     Operand::out, "IK", &notes);
  ASSERT_EQ(steps.size(), 2u);
  expect_collective(steps[0], Kind::all_gather, Operand::out, axes({"X"}), 0, 32, 2);
  expect_collective(steps[1], Kind::all_to_all, Operand::out, axes({"Y"}), 1, 64, 2);
  EXPECT_EQ(steps[1].to_dim, 0);
  EXPECT_EQ(steps[1].after, book("C[I_Y, K]"));
  EXPECT_EQ(notes, (std::vector<std::string>{"local slice of out dim 1 (K) over X: no communication"}));
}

// ---- Every sharding on a 2 x 2 mesh ----

// Every sharding of a rank-`rank` tensor by X and Y (each on no dim or one dim, both orders on one dim).
std::vector<TensorSharding> all_shardings(std::size_t rank) {
  std::vector<TensorSharding> all;
  for (std::size_t x = 0; x <= rank; ++x)
    for (std::size_t y = 0; y <= rank; ++y)
      for (int order = 0; order < (x == y && x < rank ? 2 : 1); ++order) {
        TensorSharding s;
        s.mesh_name = "m";
        s.dims.resize(rank);
        if (x < rank) s.dims[x].axes.push_back({"X", std::nullopt});
        if (y < rank) s.dims[y].axes.insert(order ? s.dims[y].axes.begin() : s.dims[y].axes.end(), {"Y", std::nullopt});
        all.push_back(s);
      }
  return all;
}

// The same shardings, each also with every subset of its unused axes unreduced.
std::vector<TensorSharding> all_outputs(std::size_t rank) {
  std::vector<TensorSharding> all;
  for (const auto& s : all_shardings(rank)) {
    std::vector<AxisRef> unused;
    for (const char* name : {"X", "Y"}) {
      const AxisRef ref{name, std::nullopt};
      if (std::none_of(s.dims.begin(), s.dims.end(), [&](const DimSharding& d) { return has(d.axes, ref); }))
        unused.push_back(ref);
    }
    for (unsigned mask = 0; mask < (1u << unused.size()); ++mask) {
      TensorSharding with = s;
      for (std::size_t i = 0; i < unused.size(); ++i)
        if (mask & (1u << i)) with.unreduced.push_back(unused[i]);
      all.push_back(with);
    }
  }
  return all;
}

// A collective changes its tensor's sharding exactly as its kind does (SCALING_BOOK_MODELS.md §(c)):
// all-gather drops the minor axes of one dim, reduce-scatter turns unreduced axes into the minor axes of one
// dim, all-reduce drops unreduced axes, all-to-all moves the minor axes of one dim to the minor end of another.
void expect_legal_step(const PlannedCollective& c, const Mesh& mesh) {
  const auto& b = c.before.dims;
  const auto& a = c.after.dims;
  ASSERT_EQ(a.size(), b.size());
  auto without = [](std::vector<AxisRef> list, const std::vector<AxisRef>& gone) {
    list.erase(std::remove_if(list.begin(), list.end(), [&](const AxisRef& r) { return has(gone, r); }), list.end());
    return list;
  };
  auto plus = [](std::vector<AxisRef> list, const std::vector<AxisRef>& more) {
    list.insert(list.end(), more.begin(), more.end());
    return list;
  };
  for (std::size_t d = 0; d < b.size(); ++d) {
    const int i = static_cast<int>(d);
    std::vector<AxisRef> expected = b[d].axes;
    if ((c.kind == Kind::all_gather || c.kind == Kind::all_to_all) && i == c.dim) {
      ASSERT_GE(b[d].axes.size(), c.axes.size()) << c.reason;
      EXPECT_TRUE(std::equal(c.axes.begin(), c.axes.end(), b[d].axes.end() - c.axes.size())) << c.reason;
      expected.resize(b[d].axes.size() - c.axes.size());
    }
    if ((c.kind == Kind::reduce_scatter && i == c.dim) || (c.kind == Kind::all_to_all && i == c.to_dim))
      expected = plus(expected, c.axes);
    EXPECT_EQ(a[d].axes, expected) << c.reason;
  }
  const bool reduces = c.kind == Kind::reduce_scatter || c.kind == Kind::all_reduce;
  for (const auto& r : c.axes)
    EXPECT_EQ(has(c.before.unreduced, r), reduces) << c.reason;
  EXPECT_EQ(c.after.unreduced, reduces ? without(c.before.unreduced, c.axes) : c.before.unreduced) << c.reason;
  EXPECT_EQ(c.group_size, static_cast<std::uint64_t>(product_of_sizes(c.axes, mesh))) << c.reason;
  EXPECT_GT(c.group_size, 1u) << c.reason;
}

// Every pair of operand shardings and every required output of IJ,JK->IK and BIJ,BJK->BIK on {X: 2, Y: 2}:
// the plan verifies, each collective is a legal step, the operands end up compatible and the output is the
// one required; the only rejection is an unreduced axis the local product does not leave unreduced.
TEST(MatmulPlanExhaustive, EveryShardingOn2x2) {
  int plans = 0;
  for (const char* text : {"IJ,JK->IK", "BIJ,BJK->BIK"}) {
    const Einsum e = parse_einsum(text);
    const Shape a_shape = e.lhs.size() == 2 ? Shape{4, 6} : Shape{2, 4, 6};
    const Shape b_shape = e.rhs.size() == 2 ? Shape{6, 8} : Shape{2, 6, 8};
    std::vector<std::optional<TensorSharding>> outs{std::nullopt};
    for (const auto& s : all_outputs(e.out.size()))
      outs.push_back(s);
    for (const auto& a : all_shardings(e.lhs.size()))
      for (const auto& b : all_shardings(e.rhs.size()))
        for (const auto& out : outs) {
          SCOPED_TRACE(print_shardy_sharding(a) + " . " + print_shardy_sharding(b) + " -> " +
                       (out ? print_shardy_sharding(*out) : "default"));
          MatmulPlan p;
          try {
            p = plan_matmul(e, a_shape, a, b_shape, b, DType::f32, mesh_2x2, out);
          } catch (const VerifyError& error) {
            EXPECT_EQ(std::string(error.what()).rfind("required output cannot be reached: ", 0), 0u) << error.what();
            continue;
          }
          ++plans;
          expect_consistent(p, mesh_2x2, e);
          for (const auto* list : {&p.before, &p.after})
            for (const auto& c : *list)
              expect_legal_step(c, mesh_2x2);
          for (const char label : e.lhs)
            if (e.role(label) != LabelRole::lhs_free)
              EXPECT_EQ(p.lhs.dims[e.lhs.find(label)].axes, p.rhs.dims[e.rhs.find(label)].axes) << label;
          const TensorSharding& last = p.after.empty() ? p.local_out : p.after.back().after;
          const TensorSharding target = out ? *out : book(e.out.size() == 2 ? "C[I, K]" : "C[B, I, K]");
          for (std::size_t d = 0; d < e.out.size(); ++d) {
            const auto& have = last.dims[d].axes;
            const auto& want = out ? target.dims[d].axes : p.local_out.dims[d].axes;
            // Only local slices may follow the last collective.
            EXPECT_TRUE(have.size() <= want.size() && std::equal(have.begin(), have.end(), want.begin()));
          }
          EXPECT_EQ(last.unreduced, target.unreduced);
          EXPECT_DOUBLE_EQ(p.local_flops, 2.0 * static_cast<double>(p.m * p.k * p.n));
        }
  }
  EXPECT_GT(plans, 1000);
}

TEST(MatmulPlanErrors, ReshardingRejections) {
  EXPECT_EQ(verify_error([] {
              plan_resharding({2, 2}, book("C[I, K]"), book("C[I, K]{U_X}"), DType::f32, two_ranks, Operand::out, "",
                              nullptr);
            }),
            "axis X is unreduced in the target but the source holds no partial sums over it, got: source unreduced "
            "none");
  EXPECT_EQ(
      verify_error([] {
        plan_resharding({2, 2}, book("C[I, K, L]"), book("C[I, K]"), DType::f32, two_ranks, Operand::out, "", nullptr);
      }),
      "resharding needs one dim sharding per dim, got: 3 and 2 for rank 2");
}

TEST(MatmulPlanText, AxesText) {
  EXPECT_EQ(axes_text(axes({"X", "Y"})), "XY");
  EXPECT_EQ(axes_text(axes({"data", "model"})), "{data,model}");
  EXPECT_EQ(axes_text({AxisRef{"x", SubAxis{1, 2}}}), "{\"x\":(1)2}");
  EXPECT_EQ(operand_name(Operand::rhs), "rhs");
}

}  // namespace
}  // namespace podsim
