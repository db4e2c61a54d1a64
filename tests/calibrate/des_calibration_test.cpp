// The des under a calibration, against closed forms: a fixed cost per transfer adds once per step of a line, the
// calibrated hop latency once per hop, a link efficiency of 0.5 doubles a bandwidth-bound time, a neutral
// calibration changes nothing; and the fit recovers the figures rows were made with.
#include <gtest/gtest.h>

#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "sim/calibrate/calibration_fit.hpp"
#include "sim/calibrate/measurement.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"
#include "sim/query/collective_query.hpp"
#include "tests/calibrate/v5e_like_chip.hpp"

namespace podsim {
namespace {

// The des of an all-gather of V bytes over X of a 4x4 slice: a line of 4 chips (no wraparound), 3 steps.
double line_all_gather_s(const HardwareSpec& hw, std::uint64_t bytes) {
  CollectiveQuery query;
  query.hardware = hw;
  query.slice = {4, 4};
  query.axes = {"X"};
  query.size = bytes;
  query.model = EvalModel::des;
  const CollectiveAnswer answer = answer_collective(query);
  EXPECT_EQ(answer.des->algorithms.front(), "line");
  EXPECT_EQ(answer.des->calibrated, hw.calibration.has_value());
  return answer.des->time_s;
}

TEST(DesCalibration, ANeutralCalibrationChangesNoTime) {
  HardwareSpec neutral = test::v5e_like_chip();
  neutral.calibration = Calibration{};
  EXPECT_EQ(line_all_gather_s(neutral, 1 << 20), line_all_gather_s(test::v5e_like_chip(), 1 << 20));
}

TEST(DesCalibration, AStepCostAddsOncePerStepOfTheLine) {
  HardwareSpec calibrated = test::v5e_like_chip();
  calibrated.calibration = Calibration{};
  calibrated.calibration->collective_step_s = 3e-6;
  const double before = line_all_gather_s(test::v5e_like_chip(), 4096), after = line_all_gather_s(calibrated, 4096);
  EXPECT_NEAR(after - before, 3 * 3e-6, 1e-12);
}

TEST(DesCalibration, TheCalibratedHopLatencyReplacesThePresetsOncePerHop) {
  HardwareSpec calibrated = test::v5e_like_chip();
  calibrated.calibration = Calibration{};
  calibrated.calibration->hop_latency_s = 2e-6;
  const double before = line_all_gather_s(test::v5e_like_chip(), 4096), after = line_all_gather_s(calibrated, 4096);
  EXPECT_NEAR(after - before, 3 * (2e-6 - 1e-6), 1e-12);  // 3 steps of one hop each
}

TEST(DesCalibration, HalfTheLinkEfficiencyDoublesABandwidthBoundTime) {
  HardwareSpec no_latency = test::v5e_like_chip();
  no_latency.ici.hop_latency_s = 0;
  HardwareSpec calibrated = no_latency;
  calibrated.calibration = Calibration{};
  calibrated.calibration->link_efficiency = {{1e3, 0.5}, {1e9, 0.5}};
  const std::uint64_t bytes = std::uint64_t{32} << 20;
  const double before = line_all_gather_s(no_latency, bytes);
  EXPECT_NEAR(before, 3.0 * (bytes / 4) / 4.5e10, 1e-12);  // 3 steps of a quarter at W (the book's line)
  EXPECT_NEAR(line_all_gather_s(calibrated, bytes), 2 * before, 1e-12);
}

TEST(DesCalibration, OneTransferOverThreeHopsTakesTheFixedCostOnce) {
  const Slice line({8}, {false});
  IciModel ici;
  ici.links_per_chip = 2;
  ici.bandwidth_Bps = 1e9;
  ici.hop_latency_s = 1e-6;
  NetworkSpec network = slice_network(line, ici, 1e12);
  network.transfer.fixed_s = 5e-6;
  network.transfer.link_efficiency = {{1e6, 0.25}};
  EventGraph graph;
  graph.num_chips = 8;
  Task send;
  send.src_chip = 0;
  send.dst_chip = 3;
  send.bytes = 1000000;
  graph.add(send);
  const SimulationResult result = simulate(network, graph);
  EXPECT_NEAR(result.makespan_s, 3 * 1e-6 + 5e-6 + 1e6 / 0.25 / 1e9, 1e-12);
}

TEST(DesCalibration, TheCalibratedDcnLatencyReplacesThePresetsOnceForAOneStepGatherAcrossSlices) {
  // Two slices of 2x2 over the DCN: an all-gather over the slice axis is one exchange between the slices, each
  // transfer crossing one NIC up link (which carries the DCN latency) and one down link.
  HardwareSpec hw = test::v5e_like_chip();
  hw.dcn_bandwidth_Bps = 3.125e9;
  hw.dcn_latency_s = 2e-6;
  hw.chips_per_host = 4;
  CollectiveQuery query;
  query.hardware = hw;
  query.slice = {2, 2};
  query.slices = 2;
  query.axes = {kSliceAxis};
  query.size = std::uint64_t{1} << 20;
  query.model = EvalModel::des;
  const double before = answer_collective(query).des->time_s;
  query.hardware.calibration = Calibration{};
  query.hardware.calibration->dcn_latency_s = 12e-6;
  const double after = answer_collective(query).des->time_s;
  EXPECT_NEAR(after - before, 12e-6 - 2e-6, 1e-12);
}

// The symmetry paths carry the calibration: each gives the full simulation's time under it (the translation quotient
// on the torus, with the axes at once; one group per phase on the mesh, axis after axis: concurrent parts on a mesh
// run in full).
TEST(DesCalibration, TheSymmetryPathsStayExactUnderACalibration) {
  HardwareSpec calibrated = test::v5e_like_chip();
  calibrated.calibration = Calibration{};
  calibrated.calibration->collective_step_s = 1.5e-6;
  calibrated.calibration->link_efficiency = {{1e4, 0.5}, {1e7, 0.9}};
  for (const bool wrapped : {true, false}) {
    CollectiveQuery query;
    query.hardware = calibrated;
    query.slice = {4, 6};
    query.wrap.mode = wrapped ? WrapMode::all : WrapMode::none;
    query.axes = {"X", "Y"};
    query.size = std::uint64_t{3145728};
    query.model = EvalModel::des;
    query.multi_axis = wrapped ? MultiAxis::concurrent : MultiAxis::sequential;
    const CollectiveAnswer answer = answer_collective(query);
    ASSERT_TRUE(answer.des->symmetric);
    EXPECT_EQ(answer.des->simulated, wrapped ? "one chip" : "one group per phase");
    const Slice slice({4, 6}, {wrapped, wrapped});
    CollectiveRequest request;
    request.op = CollectiveKind::all_gather;
    request.axes = axes_groups(MeshMapping(default_mesh(slice), slice), slice, {"X", "Y"});
    request.array_bytes = 3145728;
    request.multi_axis = query.multi_axis;
    NetworkSpec network = slice_network(slice, answer.ici, 1e15);
    network.transfer = {1.5e-6, calibrated.calibration->link_efficiency};
    const SimulatedCollective full = simulate_collective(network, 24, request, SymmetryUse::never);
    EXPECT_NEAR(answer.des->time_s, full.result.makespan_s, 1e-12 * full.result.makespan_s) << wrapped;
    if (!wrapped) EXPECT_EQ(answer.des->time_s, full.result.makespan_s);  // one group per phase: the same double
    HardwareSpec plain = test::v5e_like_chip();
    query.hardware = plain;
    EXPECT_GT(answer.des->time_s, answer_collective(query).des->time_s + 1e-6);
  }
}

TEST(DesCalibration, TheFitRecoversTheFiguresTheRowsWereMadeWith) {
  // The rows: a latency-bound and a bandwidth-bound all-gather on the line of 4, their times made by the des under
  // a step cost of 2 us and a link efficiency of 0.8; a compute-bound matmul at 70% of peak and a copy at 90% of the
  // HBM bandwidth, worked out by hand.
  HardwareSpec truth = test::v5e_like_chip();
  truth.calibration = Calibration{};
  truth.calibration->collective_step_s = 2e-6;
  truth.calibration->link_efficiency = {{8388608, 0.8}};  // one message of the big row: V / 4 on the line
  const std::string head = "id,kind,measured,op,slice,axes,bytes,m,k,n,fit\n";
  auto collective_row = [&](const std::string& id, std::uint64_t bytes) {
    const std::string row = id + ",collective,1,all-gather,4x4,X," + std::to_string(bytes) + ",,,,yes\n";
    const Measurement m = read_measurements(head + row, "m.csv").front();
    char measured[64];
    std::snprintf(measured, sizeof measured, "%.17g", predict_measurement(m, truth).des);
    return id + ",collective," + measured + ",all-gather,4x4,X," + std::to_string(bytes) + ",,,,yes\n";
  };
  char matmul[128], copy[128];
  std::snprintf(matmul, sizeof matmul, "mm,matmul,%.17g,,,,,4096,4096,4096,yes\n",
                2.0 * 4096 * 4096 * 4096 / 1.97e14 / 0.7);
  std::snprintf(copy, sizeof copy, "cp,copy,%.17g,,,,1000000000,,,,yes\n", 2e9 / 8.1e11 / 0.9);
  const std::string csv = head + collective_row("small", 4096) + collective_row("big", 33554432) + matmul + copy +
                          "held,collective,1e-3,all-gather,4x4,X,1073741824,,,,no\n";
  const CalibrationFit fit = fit_calibration(read_measurements(csv, "m.csv"), test::v5e_like_chip(), "test");
  EXPECT_NEAR(fit.calibration.collective_step_s, 2e-6, 2e-9);
  ASSERT_EQ(fit.calibration.link_efficiency.size(), 1u);
  EXPECT_EQ(fit.calibration.link_efficiency[0].at, 8388608);
  EXPECT_NEAR(fit.calibration.link_efficiency[0].efficiency, 0.8, 8e-4);
  ASSERT_EQ(fit.calibration.mxu_efficiency.size(), 1u);
  EXPECT_NEAR(fit.calibration.mxu_efficiency[0].efficiency, 0.7, 7e-4);
  ASSERT_EQ(fit.calibration.hbm_efficiency.size(), 1u);
  EXPECT_EQ(fit.calibration.hbm_efficiency[0].at, 2e9);  // the copy's bytes, read and written
  EXPECT_NEAR(fit.calibration.hbm_efficiency[0].efficiency, 0.9, 9e-4);
  EXPECT_LT(fit.rms_after, 1e-3);
  EXPECT_EQ(fit.fitted,
            (std::vector<std::string>{"collective_step_s", "link_efficiency", "mxu_efficiency", "hbm_efficiency"}));
  // The held-out row's messages (256 MiB) lie beyond the one size the link curve was fitted on: flagged.
  EXPECT_FALSE(fit.rows[0].outside_range);
  EXPECT_TRUE(fit.rows.back().outside_range);
  EXPECT_FALSE(fit.rows.back().row.fit);
}

}  // namespace
}  // namespace podsim
