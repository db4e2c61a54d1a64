// `podsim validate`'s reports (docs/validation.md): the rows as the versioned JSON object, as text tables grouped by
// measurement file with the fitted and held-out rows' errors summarised, and as the Markdown page
// docs/validation.md is generated from.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/validation.hpp"

namespace podsim::report {

// Mean and largest |error| of a set of rows' predictions (count 0: no rows, mean and max 0).
struct ErrorSummary {
  std::size_t count = 0;
  double mean_abs = 0;
  double max_abs = 0;
};

// The summary of `rows` whose `fit` equals `fitted`, of the calibrated des (calibrated), else the uncalibrated des.
ErrorSummary summarise_errors(const std::vector<ValidationRow>& rows, bool fitted, bool calibrated);

// {"schema": "podsim/1", "rows": [{"id", "source", "quantity", "measured", "book", "des_uncalibrated",
// "des_calibrated", "error_calibrated", "fitted", ...}], "summary": {...}}: the contract keys of docs/validation.md
// and beside them file, kind, hardware, calibrated, error_book, error_uncalibrated, note, fits_hbm, metric (a serving
// row's figure, else null) and quote.
nlohmann::json validation_json(const std::vector<ValidationRow>& rows);

// One aligned table per measurement file (times in us/ms, MFU in %), then the errors of the fitted and of the
// held-out rows, then the notes of the rows the calibrated des misses by more than 10%.
std::string validation_text(const std::vector<ValidationRow>& rows);

// docs/validation.md: the method, one table per measurement file, the held-out summary and, for each row beyond
// 10%, what the model lacks. A function of the rows only (no dates, no timings), so it regenerates byte for byte.
// `dirs`: the folders or files the rows came from as given to `podsim validate` (empty: the default, validation/,
// whose page is docs/validation.md); the page's header names the command that regenerates it.
std::string validation_markdown(const std::vector<ValidationRow>& rows, const std::vector<std::string>& dirs = {});

}  // namespace podsim::report
