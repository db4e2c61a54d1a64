// `podsim collective --slices N`: a collective over the slice axis DCN next to the slice's own axes, answered by the
// hierarchical book model and the simulation (worked by hand here), and errors naming the field at fault.
#include <gtest/gtest.h>

#include "models/hardware/hardware.hpp"
#include "sim/query/collective_query.hpp"

namespace podsim {
namespace {

// 4 links of 1e10 B/s, no latency; DCN 1e9 B/s per chip, 2 chips per host.
HardwareSpec chip() {
  HardwareSpec hw;
  hw.name = "test";
  hw.ici.links_per_chip = 4;
  hw.ici.bandwidth_Bps = 1e10;
  hw.ici.hop_latency_s = 0;
  hw.wrap_rule = WrapRule::always;
  hw.dcn_bandwidth_Bps = 1e9;
  hw.chips_per_host = 2;
  return hw;
}

CollectiveQuery all_reduce_across(std::int32_t slices) {
  CollectiveQuery query;
  query.hardware = chip();
  query.slice = {4};
  query.op = CollectiveKind::all_reduce;
  query.axes = {"X", "DCN"};
  query.size = std::uint64_t{1} << 20;
  query.slices = slices;
  return query;
}

CollectiveQuery::Field dcn_field_of(const CollectiveQuery& query) {
  try {
    answer_collective(query);
  } catch (const CollectiveError& e) {
    return e.field();
  }
  ADD_FAILURE() << "no CollectiveError";
  return CollectiveQuery::Field::op;
}

// V = 1 MiB over a ring of 4 (W_bidi = 2e10) and 4 slices:
//   book: ICI 2 V / W_bidi, DCN 2 (V / 4) / W_dcn.
//   des: reduce-scatter X 3 steps of V/8 per direction at 1e10, reduce-scatter over 4 slices of V/4: shard V/16,
//        3 steps of halves V/32 each way (a chip sends V/16 per step at its 1e9 share); then the all-gathers.
TEST(CollectiveDcnQuery, AllReduceAcrossFourSlices) {
  const CollectiveAnswer answer = answer_collective(all_reduce_across(4));
  const double v = 1 << 20;
  EXPECT_EQ(answer.group_size, 16);
  EXPECT_EQ(answer.slices, 4);
  EXPECT_EQ(answer.chips_per_host, 2);
  ASSERT_TRUE(answer.book);
  EXPECT_DOUBLE_EQ(answer.book->time_s, 2 * v / 2e10 + 2 * (v / 4) / 1e9);
  ASSERT_TRUE(answer.des);
  EXPECT_FALSE(answer.des->symmetric);
  const double des = 2 * (3 * (v / 8) / 1e10 + 3 * (v / 16) / 1e9);
  EXPECT_NEAR(answer.des->time_s, des, 1e-9 * des);
}

TEST(CollectiveDcnQuery, ErrorsNameTheirField) {
  using Field = CollectiveQuery::Field;
  CollectiveQuery query = all_reduce_across(0);
  EXPECT_EQ(dcn_field_of(query), Field::slices);
  query = all_reduce_across(1);
  query.axes = {"X"};
  query.dcn_bandwidth_Bps = 1e9;
  EXPECT_EQ(dcn_field_of(query), Field::dcn_bandwidth);
  query = all_reduce_across(1);
  EXPECT_EQ(dcn_field_of(query), Field::axes);  // no DCN axis with one slice
  query = all_reduce_across(2);
  query.hardware.dcn_bandwidth_Bps = 0;
  EXPECT_EQ(dcn_field_of(query), Field::dcn_bandwidth);
  query = all_reduce_across(2);
  query.dcn_latency_s = -1;
  EXPECT_EQ(dcn_field_of(query), Field::dcn_latency);
  query = all_reduce_across(2);
  query.op = CollectiveKind::all_to_all;
  EXPECT_EQ(dcn_field_of(query), Field::axes);
  query = all_reduce_across(2);
  query.size = CollectiveQuery::Tensor{{8}, "[{X}]"};
  EXPECT_EQ(dcn_field_of(query), Field::shape);
}

}  // namespace
}  // namespace podsim
