// predict_measurement: one measurement row by the book model and by the des. Collectives go through the one
// collective query (`podsim collective`), matmuls through the roofline (the des's compute-task time, with the
// calibration's MXU and HBM efficiencies), copies through the HBM bandwidth.
#include "models/hardware/roofline.hpp"
#include "sim/calibrate/measurement.hpp"
#include "sim/calibrate/measurement_query.hpp"

#include "models/common/error.hpp"

namespace podsim {
namespace {

// The CSV column a collective query's field comes from.
const char* column_of(CollectiveQuery::Field field) {
  using Field = CollectiveQuery::Field;
  switch (field) {
    case Field::slice:
      return "slice";
    case Field::wrap:
      return "wrap";
    case Field::mesh:
    case Field::axes:
      return "axes";
    case Field::array_bytes:
    case Field::shape:
      return "bytes";
    case Field::op:
    case Field::algorithm:
      return "op";
    default:
      return "hardware";
  }
}

Prediction predict_collective(const Measurement& row, const HardwareSpec& hardware) {
  const CollectiveAnswer answer = answer_measurement(row, hardware);
  return {answer.book->time_s, answer.des->time_s};
}

Prediction predict_matmul(const Measurement& row, const HardwareSpec& hardware, const std::string& at) {
  MatmulRoofline roofline;
  try {
    roofline = matmul_roofline(hardware.chip, row.m, row.k, row.n, row.dtype, row.dtype);
  } catch (const MissingFigureError& e) {
    throw InputError(at, std::string("column hardware: ") + e.what());
  } catch (const Error& e) {
    throw InputError(at, std::string("column m: ") + e.what());
  }
  const double des = hardware.calibration
                         ? calibrated_compute_s(*hardware.calibration, roofline.compute_time_s, roofline.memory_time_s,
                                                roofline.flops, static_cast<double>(roofline.bytes))
                         : roofline.time_s;
  return {roofline.time_s, des};
}

Prediction predict_copy(const Measurement& row, const HardwareSpec& hardware, const std::string& at) {
  const double moved = copy_hbm_bytes(row);
  double book = 0;
  try {
    book = hbm_load_time(moved, hardware.chip);
  } catch (const Error& e) {
    throw InputError(at, std::string("column hardware: ") + e.what());
  }
  return {book, hardware.calibration ? book / efficiency_at(hardware.calibration->hbm_efficiency, moved) : book};
}

}  // namespace

double copy_hbm_bytes(const Measurement& row) {
  return 2.0 * static_cast<double>(row.bytes);  // read once, written once
}

CollectiveQuery measurement_collective_query(const Measurement& row, const HardwareSpec& hardware) {
  CollectiveQuery query;
  query.hardware = hardware;
  query.slice = row.slice;
  query.wrap = row.wrap;
  query.op = row.op;
  query.axes = row.axes;
  query.dtype = row.dtype;
  query.size = row.bytes;
  return query;
}

CollectiveAnswer answer_measurement(const Measurement& row, const HardwareSpec& hardware) {
  try {
    return answer_collective(measurement_collective_query(row, hardware));
  } catch (const CollectiveError& e) {
    throw InputError(row.file + ":" + std::to_string(row.line),
                     std::string("column ") + column_of(e.field()) + ": " + e.what());
  }
}

Prediction predict_measurement(const Measurement& row, const HardwareSpec& hardware) {
  const std::string at = row.file + ":" + std::to_string(row.line);
  switch (row.kind) {
    case MeasurementKind::collective:
      return predict_collective(row, hardware);
    case MeasurementKind::matmul:
      return predict_matmul(row, hardware, at);
    case MeasurementKind::copy:
      return predict_copy(row, hardware, at);
    case MeasurementKind::scenario:
    case MeasurementKind::serving:
      break;
  }
  throw InputError(at, std::string("column kind: a ") +
                           (row.kind == MeasurementKind::serving ? "serving" : "scenario") +
                           " row needs its scenario loaded (podsim validate predicts it), got: " +
                           (row.kind == MeasurementKind::serving ? "serving" : "scenario"));
}

}  // namespace podsim
