// Helpers shared by the matmul planner tests: shardings from the book notation, plan checks that hold for
// every plan (rule 6, the chain of collectives on the result), and the small meshes the tests use.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/plan/matmul_plan.hpp"
#include "models/sharding/book_notation.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {

// Readable failures: gtest prints a sharding in Shardy's text.
inline void PrintTo(const TensorSharding& s, std::ostream* os) {
  *os << print_shardy_sharding(s);
}

using Shape = std::vector<std::int64_t>;
using Kind = CollectiveKind;
using Operand = PlannedCollective::Operand;

inline TensorSharding book(const std::string& text) {
  return parse_book_sharding(text, "m").sharding;
}
inline std::optional<TensorSharding> need(const std::string& text) {
  return book(text);
}
inline bool has(const std::vector<AxisRef>& list, const AxisRef& ref) {
  return std::find(list.begin(), list.end(), ref) != list.end();
}
inline std::vector<AxisRef> axes(std::initializer_list<const char*> names) {
  std::vector<AxisRef> refs;
  for (const char* name : names)
    refs.push_back({name, std::nullopt});
  return refs;
}

// Rule 6 for every sharding a plan names, and the collectives on the result chain from local_out to out.
inline void expect_consistent(const MatmulPlan& plan, const Mesh& mesh, const Einsum& e) {
  MeshTable table;
  table.add("m", mesh);
  auto rank = [&](Operand op) {
    return op == Operand::lhs ? e.lhs.size() : op == Operand::rhs ? e.rhs.size() : e.out.size();
  };
  EXPECT_NO_THROW(verify_sharding(plan.lhs, table, e.lhs.size()));
  EXPECT_NO_THROW(verify_sharding(plan.rhs, table, e.rhs.size()));
  EXPECT_NO_THROW(verify_sharding(plan.local_out, table, e.out.size()));
  for (const auto* list : {&plan.before, &plan.after})
    for (const auto& c : *list) {
      EXPECT_NO_THROW(verify_sharding(c.before, table, rank(c.operand))) << c.reason;
      EXPECT_NO_THROW(verify_sharding(c.after, table, rank(c.operand))) << c.reason;
    }
  // Between two collectives only local slices happen: each dim keeps its axes and may add minor ones.
  TensorSharding cur = plan.local_out;
  for (const auto& c : plan.after) {
    EXPECT_EQ(c.operand, Operand::out);
    EXPECT_EQ(c.before.unreduced, cur.unreduced) << c.reason;
    ASSERT_EQ(c.before.dims.size(), cur.dims.size());
    for (std::size_t d = 0; d < cur.dims.size(); ++d) {
      const auto& had = cur.dims[d].axes;
      const auto& has = c.before.dims[d].axes;
      EXPECT_TRUE(had.size() <= has.size() && std::equal(had.begin(), had.end(), has.begin())) << c.reason;
    }
    cur = c.after;
  }
}

inline MatmulPlan plan(const char* subscripts, const Shape& a_shape, const std::string& a, const Shape& b_shape,
                       const std::string& b, DType dtype, const Mesh& mesh, const std::optional<TensorSharding>& out) {
  const Einsum e = parse_einsum(subscripts);
  MatmulPlan p = plan_matmul(e, a_shape, book(a), b_shape, book(b), dtype, mesh, out);
  expect_consistent(p, mesh, e);
  return p;
}

inline void expect_collective(const PlannedCollective& c, Kind kind, Operand operand, const std::vector<AxisRef>& over,
                              int dim, std::uint64_t array_bytes, std::uint64_t group_size) {
  EXPECT_EQ(c.kind, kind) << c.reason;
  EXPECT_EQ(c.operand, operand) << c.reason;
  EXPECT_EQ(c.axes, over) << c.reason;
  EXPECT_EQ(c.dim, dim) << c.reason;
  EXPECT_EQ(c.array_bytes, array_bytes) << c.reason;
  EXPECT_EQ(c.group_size, group_size) << c.reason;
}

template <typename F>
inline std::string verify_error(F&& f) {
  try {
    f();
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "no error";
}

inline const Mesh two_ranks = make_mesh({{"X", 2}});
inline const Mesh mesh_2x2 = make_mesh({{"X", 2}, {"Y", 2}});
inline const Mesh mesh_4x2 = make_mesh({{"X", 4}, {"Y", 2}});

}  // namespace podsim
