// The collective query a measurement row of kind collective asks (`podsim collective` with the row's op, slice,
// wraparound, axes, V and dtype), shared by predict_measurement and the fit, which also reads the answer's bound and
// message size.
#pragma once

#include "sim/calibrate/measurement.hpp"
#include "sim/query/collective_query.hpp"

namespace podsim {

// The row's query on `hardware` (book and des). The row must be of kind collective.
CollectiveQuery measurement_collective_query(const Measurement& row, const HardwareSpec& hardware);

// The bytes a copy row moves to and from HBM (its array read once and written once): the HBM efficiency curve's size.
double copy_hbm_bytes(const Measurement& row);

// answer_collective on that query; a CollectiveError becomes InputError `FILE:LINE: column NAME: ...` at the row.
CollectiveAnswer answer_measurement(const Measurement& row, const HardwareSpec& hardware);

}  // namespace podsim
