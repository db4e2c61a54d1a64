// One published or user-made measurement of a TPU, as `podsim calibrate` fits and `podsim validate` checks them
// (docs/validation.md): the CSV format's rows as typed values, the reader, and the prediction of one row by the
// book model and by the des.
//
// The CSV (RFC 4180: a header line, then one row per measurement; quoted fields may hold commas and "" for a quote;
// columns are found by their header name, in any order, and unknown columns are an error):
//   id          required, unique in the file
//   kind        collective | matmul | copy | scenario | serving
//   quantity    time_s (the default) | mfu (kind scenario only); a serving row's follows from its metric
//   measured    the measured value: seconds (a number or a duration such as "680us") for time_s, a fraction
//               (0.462) or a percentage ("46.2%") for mfu, a positive number for per_s (a serving throughput)
//   hardware    preset name; optional in `podsim calibrate` (then --hardware), where it must equal --hardware
//   collective: op (all-gather | reduce-scatter | all-reduce | all-to-all), slice ("4x4"), axes (mesh axes of
//               the slice's default mesh joined by '+', e.g. "X" or "X+Y"), bytes (the book's V, the whole
//               array: a number or "34MB"), wrap (auto | none | all; default auto), dtype (default bf16)
//   matmul:     m, k, n, dtype (default bf16): x[m, k] @ w[k, n] on one chip
//   copy:       bytes (read once and written once from HBM on one chip)
//   scenario:   scenario (a scenario file, relative to the CSV's folder; time_s: its plan's step time, mfu: its
//               model FLOPs utilisation), plan (which of its plans; default the first)
//   serving:    scenario (a serving scenario, workload mode "serve", relative to the CSV's folder), metric (the
//               figure of `podsim serve --json` the row measured, by its path: throughput.requests_per_s,
//               throughput.output_tokens_per_s (per_s), or ttft_s, tpot_s, itl_s, e2e_s . mean, p50, p90, p99
//               (time_s), e.g. ttft_s.p50), plan (the replica's plan when the scenario has several)
//   fit         yes | no (default yes): whether a calibration is fitted on the row; "no" rows are held out
//   source      where the figure was published (free text)
//   quote       the source's own words giving the figure (free text)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"
#include "models/common/shape.hpp"
#include "models/hardware/hardware.hpp"
#include "models/topology/wraparound.hpp"

namespace podsim {

enum class MeasurementKind { collective, matmul, copy, scenario, serving };
enum class MeasuredQuantity { time_s, mfu, per_s };

// The figure of a serving run a serving row measured: `podsim serve --json`'s key of that name.
struct ServingFigure {
  enum class Family { requests_per_s, output_tokens_per_s, ttft, tpot, itl, e2e };
  enum class Statistic { mean, p50, p90, p99 };
  Family family = Family::output_tokens_per_s;
  Statistic statistic = Statistic::mean;  // for the latencies only
};

// "throughput.requests_per_s", "ttft_s.p50", ...: the figure's path in `podsim serve --json`.
std::string serving_figure_name(const ServingFigure& figure);
// The inverse of serving_figure_name; nullopt for any other text.
std::optional<ServingFigure> parse_serving_figure(std::string_view text);
// per_s for the throughputs, time_s for the latencies.
MeasuredQuantity serving_figure_quantity(const ServingFigure& figure);

// Kinds that `podsim validate` predicts by running a scenario (JSON, hence not predict_measurement), and that
// `podsim calibrate` does not fit: scenario and serving.
bool predicted_by_validate(MeasurementKind kind);

struct Measurement {
  std::string file;  // the CSV's path as given, for errors
  int line = 0;      // 1-based line of the row in the file
  std::string id;
  MeasurementKind kind = MeasurementKind::collective;
  MeasuredQuantity quantity = MeasuredQuantity::time_s;
  double measured = 0;   // seconds, or a fraction for mfu
  std::string hardware;  // empty: the caller's default preset
  // collective
  CollectiveKind op = CollectiveKind::all_gather;
  Shape slice;
  WrapChoice wrap;
  std::vector<std::string> axes;
  std::uint64_t bytes = 0;  // collective: the book's V; copy: the bytes copied
  DType dtype = DType::bf16;
  // matmul
  std::int64_t m = 0, k = 0, n = 0;
  // scenario, serving: the file, resolved against the CSV's folder, and the plan's name (empty: the first, or a
  // serving scenario's only plan)
  std::string scenario;
  std::string plan;
  // serving: the figure measured
  ServingFigure figure;
  bool fit = true;
  std::string source;
  std::string quote;
};

// Parses the CSV text of `file`. Throws InputError naming `file:LINE: column NAME: rule, got: VALUE` for a missing
// or unknown column, a bad value, a duplicate id, a column a row's kind does not use given a value, or a row
// missing a column its kind needs.
std::vector<Measurement> read_measurements(std::string_view text, const std::string& file);

// A row's predicted value by the book model and by the des (seconds for time_s). The des uses
// `hardware.calibration` when it is set; pass a spec with it reset for the uncalibrated prediction. Throws
// InputError (located at the row) when the row does not fit the hardware (e.g. a slice the preset cannot make).
// Kinds scenario and serving need a scenario loaded from JSON, so `podsim validate` predicts them (podsim_io), not
// this: throws InputError.
struct Prediction {
  double book = 0;
  double des = 0;
};
Prediction predict_measurement(const Measurement& row, const HardwareSpec& hardware);

}  // namespace podsim
