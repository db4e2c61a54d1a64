// `podsim validate`'s rows: the measurement files read, each row predicted by the book model and by the des without
// and with the preset's calibration (validation.hpp).
#include "sim/report/validation.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "models/common/units.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/capacity/serving_run.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/json_text.hpp"
#include "sim/scenario/scenario_calibration.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

std::string where(const Measurement& row) {
  return row.file + ":" + std::to_string(row.line);
}

std::string read_text(const std::string& path) {
  std::optional<std::string> text = read_input_file(path, kJsonMaxBytes);
  if (!text) throw InputError(path, "cannot open the file");
  return std::move(*text);
}

// A model-level scenario's candidate, evaluated by the closed form. A candidate that does not fit HBM by podsim's
// memory count is timed all the same (the published run did fit; the row compares time), and `note` says so.
CandidateResult evaluate_model_candidate(const CapacityProblem& problem, const Candidate& candidate,
                                         const std::string& at, std::string& note) {
  CandidateResult result = evaluate_candidate_book(problem, candidate);
  if (result.rejected) {
    if (result.fits_hbm || !(result.book_step_s > 0))
      throw InputError(at, "the scenario's plan cannot be planned: " + *result.rejected);
    note = "podsim's memory count does not fit HBM (" +
           format_bytes(static_cast<double>(result.memory_per_chip_bytes)) + " per chip against " +
           format_bytes(static_cast<double>(result.hbm_bytes)) + "); the step is timed all the same";
    result.rejected.reset();
  }
  return result;
}

double model_value(const Measurement& row, const CandidateResult& result, bool des) {
  if (row.quantity == MeasuredQuantity::mfu) return result.mfu;  // of the des step once simulated, else the book's
  return des ? result.des_step_s.value_or(0) : result.book_step_s;
}

void predict_model_scenario(const Measurement& row, const ScenarioSpec& spec, ValidationRow& out) {
  // `spec.hardware.spec.calibration` is the one the calibrated des applies (the caller sets it).
  const std::string at = where(row);
  const std::vector<Candidate> candidates = located(at, [&] { return enumerate_candidates(spec); });
  const Candidate* chosen = nullptr;
  for (const auto& candidate : candidates)
    if (row.plan.empty() || candidate.plan == row.plan) {
      chosen = &candidate;
      break;
    }
  if (!chosen) throw InputError(at, "column plan: the scenario has no such plan, got: " + row.plan);
  Candidate calibrated_candidate = *chosen;
  if (calibrated_candidate.hardware.name == spec.hardware.name)
    calibrated_candidate.hardware.spec.calibration = spec.hardware.spec.calibration;
  const CapacityProblem problem = located(at, [&] { return capacity_problem(spec); });
  Candidate uncalibrated = *chosen;
  uncalibrated.hardware.spec.calibration.reset();
  const CandidateResult book =
      located(at, [&] { return evaluate_model_candidate(problem, uncalibrated, at, out.note); });
  out.book = model_value(row, book, false);
  out.fits_hbm = book.fits_hbm;
  CandidateResult plain = book;
  located(at, [&] { simulate_candidate(problem, plain); });
  out.des_uncalibrated = model_value(row, plain, true);
  out.des_calibrated = out.des_uncalibrated;
  if (out.has_calibration) {
    std::string ignored;
    CandidateResult calibrated =
        located(at, [&] { return evaluate_model_candidate(problem, calibrated_candidate, at, ignored); });
    located(at, [&] { simulate_candidate(problem, calibrated); });
    out.des_calibrated = model_value(row, calibrated, true);
  }
}

void predict_program_scenario(const Measurement& row, ScenarioSpec spec, ValidationRow& out) {
  const std::string at = where(row);
  if (row.quantity == MeasuredQuantity::mfu)
    throw InputError(at,
                     "column quantity: mfu needs a model-level scenario (one with a \"model\"), got: " + row.scenario);
  RunOptions options;
  if (!row.plan.empty()) options.plan = row.plan;
  const auto plan_times = [&](const ScenarioSpec& s) {
    try {
      const ScenarioRun run = run_scenario(s, options);
      return run.plans.front();
    } catch (const RunError&) {
      throw InputError(at, "column plan: the scenario has no such plan, got: " + row.plan);
    }
  };
  const bool calibrated = spec.hardware.spec.calibration.has_value();
  ScenarioSpec uncalibrated = spec;
  uncalibrated.hardware.spec.calibration.reset();
  const PlanRun plain = located(at, [&] { return plan_times(uncalibrated); });
  out.book = plain.book_time_s;
  out.fits_hbm = plain.fits_hbm;
  out.des_uncalibrated = plain.des_time_s;
  out.des_calibrated = calibrated ? located(at, [&] { return plan_times(spec); }).des_time_s : plain.des_time_s;
}

// The figure a serving row measured, from the run's metrics.
double serving_figure_value(const ServingMetrics& metrics, const ServingFigure& figure) {
  using Family = ServingFigure::Family;
  const LatencySummary* summary = nullptr;
  switch (figure.family) {
    case Family::requests_per_s:
      return metrics.requests_per_s;
    case Family::output_tokens_per_s:
      return metrics.output_tokens_per_s;
    case Family::ttft:
      summary = &metrics.ttft_s;
      break;
    case Family::tpot:
      summary = &metrics.tpot_s;
      break;
    case Family::itl:
      summary = &metrics.itl_s;
      break;
    case Family::e2e:
      summary = &metrics.e2e_s;
      break;
  }
  switch (figure.statistic) {
    case ServingFigure::Statistic::mean:
      return summary->mean;
    case ServingFigure::Statistic::p50:
      return summary->p50;
    case ServingFigure::Statistic::p90:
      return summary->p90;
    case ServingFigure::Statistic::p99:
      return summary->p99;
  }
  return summary->mean;
}

// The serving run of `spec` (the scenario's own traffic, serving section and plan) with a step model timed by
// `evaluator`, memoised in `cache` by scenario, plan, evaluator and calibration: the rows that read several figures of
// one published run simulate it once.
const ServingMetrics& serving_run_metrics(const Measurement& row, const ScenarioSpec& spec, StepEvaluator evaluator,
                                          bool calibrated, ServingRunCache& cache) {
  const std::string key = row.scenario + "\n" + row.plan + "\n" + (evaluator == StepEvaluator::book ? "book" : "des") +
                          (calibrated ? " calibrated" : "");
  if (const auto found = cache.find(key); found != cache.end()) return found->second;
  ServingRunOptions options;
  options.evaluator = evaluator;
  options.plan = row.plan;
  options.keep_steps = false;
  const ServingOutcome outcome = located(where(row), [&] {
    try {
      return run_serving_scenario(spec, options);
    } catch (const ServingRunError& error) {  // its one option is the row's plan
      throw InputError(where(row), "column plan: " + error.message());
    }
  });
  if (outcome.metrics.requests == 0)
    throw InputError(where(row), "column scenario: the serving run completed no request, got: " + row.scenario);
  return cache.emplace(key, outcome.metrics).first->second;
}

// A serving row: the book's step model, then the des's without and with the calibration, each a whole serving run.
void predict_serving_scenario(const Measurement& row, ScenarioSpec spec, ValidationRow& out, ServingRunCache& cache) {
  if (!spec.serve)
    throw InputError(
        where(row),
        "column scenario: a serving row runs a serving scenario (workload mode \"serve\"), got: " + row.scenario);
  ScenarioSpec uncalibrated = spec;
  drop_calibration(uncalibrated);
  out.book =
      serving_figure_value(serving_run_metrics(row, uncalibrated, StepEvaluator::book, false, cache), row.figure);
  out.des_uncalibrated =
      serving_figure_value(serving_run_metrics(row, uncalibrated, StepEvaluator::des, false, cache), row.figure);
  out.des_calibrated =
      out.has_calibration
          ? serving_figure_value(serving_run_metrics(row, spec, StepEvaluator::des, true, cache), row.figure)
          : out.des_uncalibrated;
  out.fits_hbm = true;  // the replica's weights and KV cache fit, or the run would have refused it
}

}  // namespace

double relative_error(double predicted, double measured) {
  return predicted / measured - 1.0;
}

std::vector<std::string> validation_files(const std::vector<std::string>& dirs) {
  std::vector<std::string> files;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) {
      if (fs::path(dir).extension() != ".csv")
        throw InputError(dir, "a measurement file is a .csv file (or give its folder), got: " + dir);
      files.push_back(dir);
      continue;
    }
    if (!fs::is_directory(dir, ec)) throw InputError(dir, "cannot read the folder (nor a file of that name)");
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".csv") found.push_back(entry.path().string());
    if (ec) throw InputError(dir, "cannot read the folder: " + ec.message());
    if (found.empty()) throw InputError(dir, "no *.csv files in the folder");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::map<std::string, std::string> read_validation_notes(const std::string& dir) {
  const std::string path = (fs::path(dir) / "notes.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  const std::optional<std::string> text = read_json_file(path);
  if (!text) throw InputError(path, "cannot open the file");
  check_json_text(*text, path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, "invalid JSON: " + json_exception_message(e.what()), InputError::Stage::parse);
  }
  if (!doc.is_object()) throw InputError(path, "notes are an object of row id -> text, got: " + doc.dump());
  std::map<std::string, std::string> notes;
  for (const auto& [id, note] : doc.items()) {
    if (!note.is_string()) throw InputError(path + ": /" + id, "a note is a string, got: " + note.dump());
    notes[id] = note.get<std::string>();
  }
  return notes;
}

ValidationRow predict_validation_row(const Measurement& row) {
  ServingRunCache cache;
  return predict_validation_row(row, cache);
}

ValidationRow predict_validation_row(const Measurement& row, ServingRunCache& cache) {
  ValidationRow out;
  out.measurement = row;
  const std::string at = where(row);
  if (predicted_by_validate(row.kind)) {
    ScenarioSpec spec = located(at + ": scenario " + row.scenario, [&] { return load_scenario(row.scenario); });
    out.hardware = spec.hardware.name;
    if (!row.hardware.empty() && row.hardware != spec.hardware.name)
      throw InputError(at, "column hardware: a scenario row runs on its scenario's hardware (" + spec.hardware.name +
                               "), got: " + row.hardware);
    // The calibrated des uses the calibration even where the scenario opts out of it ("calibrated": false, for
    // expectations worked by hand on the nominal figures): validation measures the calibrated model. It is the
    // preset's with the scenario's overrides (a scenario that gives its own achieved matmul rate may set the MXU
    // efficiency that rate already holds).
    if (!spec.hardware.spec.calibration) spec.hardware.spec.calibration = spec.hardware.calibration_set_aside;
    out.has_calibration = spec.hardware.spec.calibration.has_value();
    if (row.kind == MeasurementKind::serving)
      predict_serving_scenario(row, std::move(spec), out, cache);
    else if (spec.serve)
      throw InputError(at,
                       "column kind: a serving scenario is validated by serving rows (kind serving, a metric), got: "
                       "scenario");
    else if (spec.model)
      predict_model_scenario(row, spec, out);
    else
      predict_program_scenario(row, std::move(spec), out);
    return out;
  }
  if (row.hardware.empty())
    throw InputError(at, "column hardware: `podsim validate` needs the preset of every row, got: an empty cell");
  out.hardware = row.hardware;
  const HardwareSpec calibrated = located(at, [&] { return load_hardware_preset(row.hardware); });
  HardwareSpec uncalibrated = calibrated;
  uncalibrated.calibration.reset();
  out.has_calibration = calibrated.calibration.has_value();
  const Prediction plain = located(at, [&] { return predict_measurement(row, uncalibrated); });
  out.book = plain.book;
  out.des_uncalibrated = plain.des;
  out.des_calibrated =
      out.has_calibration ? located(at, [&] { return predict_measurement(row, calibrated); }).des : plain.des;
  return out;
}

std::vector<ValidationRow> evaluate_validation(const std::vector<std::string>& dirs,
                                               const std::vector<std::string>& only) {
  const std::vector<std::string> files = validation_files(dirs);
  std::vector<Measurement> rows;
  std::map<std::string, std::string> first_seen;  // id -> where
  std::map<std::string, std::map<std::string, std::string>> notes_by_dir;
  for (const auto& file : files) {
    const std::string dir = fs::path(file).parent_path().string();
    if (!notes_by_dir.count(dir)) notes_by_dir[dir] = read_validation_notes(dir.empty() ? "." : dir);
    for (auto& row : read_measurements(read_text(file), file)) {
      const auto [seen, fresh] = first_seen.emplace(row.id, where(row));
      if (!fresh)
        throw InputError(where(row), "column id: ids are unique across the files, got: " + row.id + " (also at " +
                                         seen->second + ")");
      rows.push_back(std::move(row));
    }
  }
  // A note without a row is stale only when its folder was read whole (a file named alone leaves its siblings out).
  const auto folder_key = [](const std::string& dir) {
    fs::path normal = fs::path(dir.empty() ? "." : dir).lexically_normal();
    return (normal.has_filename() ? normal : normal.parent_path()).string();
  };
  std::set<std::string> whole;
  for (const auto& dir : dirs)
    if (fs::is_directory(dir)) whole.insert(folder_key(dir));
  for (const auto& [dir, notes] : notes_by_dir) {
    if (!whole.count(folder_key(dir))) continue;
    for (const auto& [id, note] : notes)
      if (!first_seen.count(id))
        throw InputError((fs::path(dir.empty() ? "." : dir) / "notes.json").string() + ": /" + id,
                         "no row has this id, got: " + id);
  }
  for (const auto& id : only)
    if (!first_seen.count(id)) throw ValidationError(ValidationField::only, "no row has this id, got: " + id);
  std::vector<ValidationRow> out;
  ServingRunCache serving_runs;
  for (const auto& row : rows) {
    if (!only.empty() && std::find(only.begin(), only.end(), row.id) == only.end()) continue;
    ValidationRow predicted = predict_validation_row(row, serving_runs);
    const auto& notes = notes_by_dir[fs::path(row.file).parent_path().string()];
    if (const auto note = notes.find(row.id); note != notes.end())
      predicted.note = note->second;  // the folder's note says it better than podsim's own remark
    out.push_back(std::move(predicted));
  }
  return out;
}

}  // namespace podsim
