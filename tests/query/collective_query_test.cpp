// `podsim collective`'s question as typed values: the book's answer for a query built in code, and errors that
// name the query's field at fault (the CLI adds its flag).
#include "sim/query/collective_query.hpp"

#include <gtest/gtest.h>

#include "models/hardware/hardware.hpp"
#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {
namespace {

// A v5e-like chip: 4 links of 45 GB/s, 1 us per hop, wraparound only on an axis of 16.
HardwareSpec v5e() {
  HardwareSpec hw;
  hw.name = "v5e";
  hw.ici.links_per_chip = 4;
  hw.ici.bandwidth_Bps = 4.5e10;
  hw.ici.hop_latency_s = 1e-6;
  hw.wrap_rule = WrapRule::full_pod_axis;
  hw.pod_shape = {16, 16};
  return hw;
}

CollectiveQuery all_gather_y() {
  CollectiveQuery query;
  query.hardware = v5e();
  query.slice = {8, 4};
  query.op = CollectiveKind::all_gather;
  query.axes = {"Y"};
  query.size = std::uint64_t{33554432};
  query.model = EvalModel::book;
  return query;
}

CollectiveQuery::Field field_of(const CollectiveQuery& query) {
  try {
    answer_collective(query);
  } catch (const CollectiveError& e) {
    return e.field();
  }
  ADD_FAILURE() << "expected CollectiveError";
  return CollectiveQuery::Field::op;
}

TEST(CollectiveQuery, BookTimeOfAQueryBuiltInCode) {
  const CollectiveAnswer answer = answer_collective(all_gather_y());
  // A line of 4 without wraparound: 3 steps of V/4 at W_uni (SCALING_BOOK_MODELS.md).
  ASSERT_TRUE(answer.book.has_value());
  EXPECT_NEAR(answer.book->time_s, 3.0 * 8388608 / 4.5e10, 1e-12);
  EXPECT_EQ(answer.group_size, 4);
  EXPECT_FALSE(answer.des.has_value());
}

TEST(CollectiveQuery, ConcurrentAllGatherOnATorusTakesTheQuotientAndEqualsTheFullSimulation) {
  CollectiveQuery query = all_gather_y();
  query.slice = {4, 6};
  query.wrap.mode = WrapMode::all;
  query.axes = {"X", "Y"};
  query.multi_axis = MultiAxis::concurrent;
  query.model = EvalModel::des;
  const CollectiveAnswer answer = answer_collective(query);
  ASSERT_TRUE(answer.des.has_value());
  EXPECT_TRUE(answer.des->symmetric);
  EXPECT_EQ(answer.des->simulated, "one chip");
  // The same collective simulated chip by chip.
  const Slice slice({4, 6}, {true, true});
  CollectiveRequest request;
  request.op = CollectiveKind::all_gather;
  request.axes = axes_groups(MeshMapping(default_mesh(slice), slice), slice, {"X", "Y"});
  request.array_bytes = 33554432;
  request.multi_axis = MultiAxis::concurrent;
  const SimulatedCollective full =
      simulate_collective(slice_network(slice, answer.ici, 1e15), 24, request, SymmetryUse::never);
  const double tolerance = 1e-12 * full.result.makespan_s;
  EXPECT_NEAR(answer.des->time_s, full.result.makespan_s, tolerance);
  EXPECT_EQ(answer.des->result.messages, full.result.messages);
  EXPECT_EQ(answer.des->result.max_link_bytes(), full.result.max_link_bytes());
  EXPECT_EQ(answer.des->result.total_link_bytes(), full.result.total_link_bytes());
  ASSERT_EQ(answer.des->result.links.size(), full.result.links.size());
  for (std::size_t l = 0; l < full.result.links.size(); ++l)
    EXPECT_NEAR(answer.des->result.links[l].busy_s, full.result.links[l].busy_s, tolerance) << "link " << l;
}

TEST(CollectiveQuery, SaysWhichSimulationGaveTheAnswer) {
  // A line of 4 without wraparound: no translation quotient (it needs wraparound); the one-group-per-phase path
  // applies to one axis of identical lines.
  CollectiveQuery query = all_gather_y();
  query.model = EvalModel::des;
  const CollectiveAnswer line = answer_collective(query);
  ASSERT_TRUE(line.des.has_value());
  EXPECT_TRUE(line.des->symmetric);
  EXPECT_EQ(line.des->simulated, "one group per phase");
}

TEST(CollectiveQuery, ErrorsNameTheField) {
  using Field = CollectiveQuery::Field;
  CollectiveQuery query = all_gather_y();
  query.axes = {"W"};
  EXPECT_EQ(field_of(query), Field::axes);
  query = all_gather_y();
  query.slice = {1000, 1000, 1000};
  EXPECT_EQ(field_of(query), Field::slice);
  query = all_gather_y();
  query.slice = {4, 4, 4};  // v5e's 2D pod has no place for a 3D slice
  EXPECT_EQ(field_of(query), Field::wrap);
  query = all_gather_y();
  query.hop_latency_s = -1e-6;
  EXPECT_EQ(field_of(query), Field::hop_latency);
  query = all_gather_y();
  query.size = std::uint64_t{0};
  EXPECT_EQ(field_of(query), Field::array_bytes);
  query = all_gather_y();
  query.size = CollectiveQuery::Tensor{{2048, 8192}, "A[E_X, F]"};  // Y does not shard it
  EXPECT_EQ(field_of(query), Field::axes);
  query.size = CollectiveQuery::Tensor{{2048, 8192}, "A[E_Q, F]"};
  EXPECT_EQ(field_of(query), Field::sharding);
}

// A sharding may inline the collective's mesh (the slice's, X=8 by Y=4 here), but not another mesh.
TEST(CollectiveQuery, AnInlineMeshMustBeTheCollectivesMesh) {
  CollectiveQuery query = all_gather_y();
  query.size = CollectiveQuery::Tensor{{2048, 8192}, "A[E_Y, F]"};
  const double named = answer_collective(query).book->time_s;
  query.size = CollectiveQuery::Tensor{{2048, 8192}, R"(<mesh<["X"=8, "Y"=4]>, [{"Y"}, {}]>)"};
  EXPECT_DOUBLE_EQ(answer_collective(query).book->time_s, named);
  query.size = CollectiveQuery::Tensor{{2048, 8192}, R"(<mesh<["X"=4, "Y"=8]>, [{"Y"}, {}]>)"};
  try {
    answer_collective(query);
    FAIL() << "expected CollectiveError";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.field(), CollectiveQuery::Field::sharding);
    EXPECT_EQ(e.message(), R"(an inline mesh must be the collective's mesh <["X"=8, "Y"=4]>, got: <["X"=4, "Y"=8]>)");
  }
}

TEST(CollectiveQuery, MessagesSayWhatIsWrongWithoutAFlag) {
  CollectiveQuery query = all_gather_y();
  query.hardware.ici.links_per_chip = 0;
  try {
    answer_collective(query);
    FAIL() << "expected CollectiveError";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.field(), CollectiveQuery::Field::hardware);
    EXPECT_EQ(e.message(), "the preset has no ICI links, so collectives cannot run on it, got: v5e");
  }
}

}  // namespace
}  // namespace podsim
