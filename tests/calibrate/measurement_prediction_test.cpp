// predict_measurement: a row's book and des times, worked out by hand from the figures (the roofline's two terms,
// the HBM bandwidth, the book's line all-gather), and the des of a collective row is podsim collective's.
#include <gtest/gtest.h>

#include <cmath>

#include "models/common/error.hpp"
#include "sim/calibrate/measurement.hpp"
#include "sim/query/collective_query.hpp"
#include "tests/calibrate/v5e_like_chip.hpp"

namespace podsim {
namespace {

Measurement row_of(const std::string& text) {
  return read_measurements("id,kind,measured,op,slice,axes,bytes,m,k,n\n" + text + "\n", "m.csv").front();
}

TEST(MeasurementPrediction, MatmulIsTheRooflineAndTheCalibrationDividesTheBoundingTerm) {
  const Measurement big = row_of("mm,matmul,1ms,,,,,4096,4096,4096");
  const double compute_s = 2.0 * 4096 * 4096 * 4096 / 1.97e14;
  Prediction p = predict_measurement(big, test::v5e_like_chip());
  EXPECT_DOUBLE_EQ(p.book, compute_s);
  EXPECT_DOUBLE_EQ(p.des, compute_s);
  HardwareSpec calibrated = test::v5e_like_chip();
  calibrated.calibration = Calibration{};
  calibrated.calibration->mxu_efficiency = {{1e9, 0.8}};
  calibrated.calibration->hbm_efficiency = {{1, 0.5}};
  p = predict_measurement(big, calibrated);
  EXPECT_DOUBLE_EQ(p.book, compute_s);
  EXPECT_DOUBLE_EQ(p.des, compute_s / 0.8);
  // 8 rows: x 8x4096, w 4096x4096, y 8x4096 in bf16 read and written once: memory-bound.
  const Measurement thin = row_of("thin,matmul,1ms,,,,,8,4096,4096");
  const double memory_s = 2.0 * (8.0 * 4096 + 4096.0 * 4096 + 8.0 * 4096) / 8.1e11;
  p = predict_measurement(thin, calibrated);
  EXPECT_DOUBLE_EQ(p.book, memory_s);
  EXPECT_DOUBLE_EQ(p.des, memory_s / 0.5);
}

TEST(MeasurementPrediction, CopyReadsAndWritesTheBytesOnce) {
  const Measurement copy = row_of("cp,copy,1ms,,,,1000000000,,,");
  HardwareSpec calibrated = test::v5e_like_chip();
  calibrated.calibration = Calibration{};
  calibrated.calibration->hbm_efficiency = {{1, 0.8}};
  const Prediction p = predict_measurement(copy, calibrated);
  EXPECT_DOUBLE_EQ(p.book, 2e9 / 8.1e11);
  EXPECT_DOUBLE_EQ(p.des, 2e9 / 8.1e11 / 0.8);
}

// The HBM efficiency is a curve over the bytes a step reads and writes: a copy of 1e8 bytes moves 2e8, halfway in
// log(size) between points at 2e7 (0.4) and 2e9 (0.8), so it runs at 0.6 of the nominal bandwidth; the
// memory-bound matmul's own bytes pick its point the same way.
TEST(MeasurementPrediction, HbmEfficiencyIsReadAtTheBytesTheStepMoves) {
  HardwareSpec calibrated = test::v5e_like_chip();
  calibrated.calibration = Calibration{};
  calibrated.calibration->hbm_efficiency = {{2e7, 0.4}, {2e9, 0.8}};
  const Prediction copy = predict_measurement(row_of("cp,copy,1ms,,,,100000000,,,"), calibrated);
  EXPECT_DOUBLE_EQ(copy.book, 2e8 / 8.1e11);
  EXPECT_NEAR(copy.des, 2e8 / 8.1e11 / 0.6, 1e-12 * copy.des);
  // Beyond the ends the curve is flat: 2e10 bytes run at 0.8, 2e6 bytes at 0.4.
  EXPECT_NEAR(predict_measurement(row_of("cp,copy,1ms,,,,10000000000,,,"), calibrated).des, 2e10 / 8.1e11 / 0.8, 1e-12);
  EXPECT_NEAR(predict_measurement(row_of("cp,copy,1ms,,,,1000000,,,"), calibrated).des, 2e6 / 8.1e11 / 0.4, 1e-15);
  // x 8x4096, w 4096x4096, y 8x4096 in bf16: 33,619,968 bytes, log-interpolated between 2e7 and 2e9.
  const double bytes = 2.0 * (8.0 * 4096 + 4096.0 * 4096 + 8.0 * 4096);
  const double e = 0.4 + 0.4 * std::log(bytes / 2e7) / std::log(100.0);
  const Prediction thin = predict_measurement(row_of("thin,matmul,1ms,,,,,8,4096,4096"), calibrated);
  EXPECT_NEAR(thin.des, bytes / 8.1e11 / e, 1e-12 * thin.des);
}

TEST(MeasurementPrediction, CollectiveIsTheCollectiveQuerysAnswer) {
  const Measurement ag = row_of("ag,collective,680us,all-gather,4x4,X,33554432,,,");
  const Prediction p = predict_measurement(ag, test::v5e_like_chip());
  // A line of 4 without wraparound: 3 steps of V/4 at W_uni (SCALING_BOOK_MODELS.md).
  EXPECT_NEAR(p.book, 3.0 * 8388608 / 4.5e10, 1e-12);
  CollectiveQuery query;
  query.hardware = test::v5e_like_chip();
  query.slice = {4, 4};
  query.axes = {"X"};
  query.size = std::uint64_t{33554432};
  query.model = EvalModel::des;
  EXPECT_EQ(p.des, answer_collective(query).des->time_s);
}

TEST(MeasurementPrediction, ARowThatDoesNotFitTheHardwareIsLocatedAtItsColumn) {
  try {
    predict_measurement(row_of("ag,collective,680us,all-gather,4x4,Z,1000,,,"), test::v5e_like_chip());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "m.csv:2");
    EXPECT_EQ(e.message().rfind("column axes: ", 0), 0u) << e.message();
  }
  const Measurement scenario = read_measurements("id,kind,measured,scenario\ns,scenario,1ms,a.json\n", "m.csv").front();
  EXPECT_THROW(predict_measurement(scenario, test::v5e_like_chip()), InputError);
}

}  // namespace
}  // namespace podsim
