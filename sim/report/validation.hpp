// `podsim validate` (docs/validation.md): every published measurement of the CSV files of validation folders beside
// what podsim predicts for it, by the book model, by the des without a calibration and by the des with the preset's
// calibration, and the errors. Collective, matmul and copy rows are predicted by predict_measurement
// (sim/calibrate/measurement.hpp); scenario rows load their scenario (JSON, hence here in podsim_io) and take its
// plan's step time or, for a model-level scenario, its candidate's step time or MFU; serving rows run their serving
// scenario (sim/capacity/serving_run.hpp) and take the figure they name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/common/field_error.hpp"
#include "models/serving/serving_metrics.hpp"
#include "sim/calibrate/measurement.hpp"

namespace podsim {

// The arguments of evaluate_validation that a ValidationError can be about; front ends name them in their terms (the
// CLI's --rows for `only`).
enum class ValidationField { only };
using ValidationError = FieldError<ValidationField>;

// One measurement and its predictions: seconds for time_s rows, a fraction for mfu rows.
struct ValidationRow {
  Measurement measurement;
  std::string hardware;          // the preset the prediction used (the row's, or its scenario's)
  double book = 0;               // the closed form, which never applies a calibration
  double des_uncalibrated = 0;   // the des with hardware.calibration reset
  double des_calibrated = 0;     // the des with the preset's calibration; = des_uncalibrated without one
  bool has_calibration = false;  // whether the preset carries a calibration
  std::string note;              // why the model misses the row (the folder's notes.json), or what podsim did
  // Scenario rows: whether podsim's memory count of the scenario's plan fits the chip's HBM (a run that ran must fit);
  // nullopt for the other rows.
  std::optional<bool> fits_hbm;
};

// predicted / measured - 1: the signed relative error (0.05 = 5% over the measurement).
double relative_error(double predicted, double measured);

// The measurement files of `dirs`: each folder's *.csv (sorted by name), or a .csv file given itself. Throws
// InputError `DIR: cannot read the folder` for a path that is neither, `DIR: no *.csv files` for a folder without
// one, `FILE: a measurement file is a .csv file` for another file.
std::vector<std::string> validation_files(const std::vector<std::string>& dirs);

// The notes of a folder (DIR/notes.json: an object of row id -> text), empty when the file is absent. Throws
// InputError `FILE: /ID: a note is a string, got: VALUE` or `FILE: invalid JSON: ...`.
std::map<std::string, std::string> read_validation_notes(const std::string& dir);

// Reads every file of `dirs`, keeps the rows whose id is in `only` (all when empty) and predicts each. Row ids are
// unique across the files read. Throws InputError located at the file and line (`FILE:LINE: ...`) for a bad row, a
// duplicate id, a row that names no hardware or whose prediction fails (an unknown preset, a slice the preset cannot
// form, a scenario that does not load or lacks the plan, mfu asked of a scenario without a model, a serving row whose
// scenario is not a serving one or a scenario row whose scenario is), and at notes.json for a note whose id no row
// has; ValidationError in `only` for an id no file has.
std::vector<ValidationRow> evaluate_validation(const std::vector<std::string>& dirs,
                                               const std::vector<std::string>& only = {});

// The serving runs a validation has simulated, by scenario, plan, step evaluator and calibration.
using ServingRunCache = std::map<std::string, ServingMetrics>;

// The prediction of one row (its file already read). A serving row runs its scenario three times (the book's step
// model, the des's without and with the calibration); `cache` keeps those runs for the rows that read other figures of
// the same run.
ValidationRow predict_validation_row(const Measurement& row);
ValidationRow predict_validation_row(const Measurement& row, ServingRunCache& cache);

}  // namespace podsim
