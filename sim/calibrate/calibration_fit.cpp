// The calibration fit: which figures the fit rows constrain, then Levenberg-Marquardt on the rows' relative errors
// with a forward-difference Jacobian (each des of a small slice is milliseconds), figures kept in their ranges
// (step cost >= 0, efficiencies in [kMinEfficiency, 1]).
#include "sim/calibrate/calibration_fit.hpp"

#include <algorithm>
#include <cmath>

#include "models/common/error.hpp"
#include "models/hardware/roofline.hpp"
#include "sim/calibrate/measurement_query.hpp"
#include "sim/collectives/algorithm_table.hpp"

namespace podsim {
namespace {

constexpr double kMinEfficiency = 0.01;
constexpr double kStepUnit_s = 1e-6;  // the step cost is fitted in microseconds, for a well-scaled Jacobian

// One figure of the fit: what it is and where it lives in the parameter vector.
enum class Param { step, link, mxu, hbm };
struct Unknown {
  Param param;
  std::size_t point = 0;  // the curve point (link, mxu, hbm)
};

struct Problem {
  HardwareSpec hardware;  // without calibration
  std::vector<Unknown> unknowns;
  std::vector<double> link_at, mxu_at, hbm_at;  // curve points' sizes, increasing
  std::vector<std::size_t> fit_rows;            // indexes into the rows

  Calibration calibration_of(const std::vector<double>& x) const {
    Calibration c;
    c.link_efficiency.resize(link_at.size());
    c.mxu_efficiency.resize(mxu_at.size());
    c.hbm_efficiency.resize(hbm_at.size());
    for (std::size_t i = 0; i < link_at.size(); ++i)
      c.link_efficiency[i].at = link_at[i];
    for (std::size_t i = 0; i < mxu_at.size(); ++i)
      c.mxu_efficiency[i].at = mxu_at[i];
    for (std::size_t i = 0; i < hbm_at.size(); ++i)
      c.hbm_efficiency[i].at = hbm_at[i];
    for (std::size_t u = 0; u < unknowns.size(); ++u) {
      switch (unknowns[u].param) {
        case Param::step:
          c.collective_step_s = x[u] * kStepUnit_s;
          break;
        case Param::link:
          c.link_efficiency[unknowns[u].point].efficiency = x[u];
          break;
        case Param::mxu:
          c.mxu_efficiency[unknowns[u].point].efficiency = x[u];
          break;
        case Param::hbm:
          c.hbm_efficiency[unknowns[u].point].efficiency = x[u];
          break;
      }
    }
    return c;
  }

  void clamp(std::vector<double>& x) const {
    for (std::size_t u = 0; u < unknowns.size(); ++u)
      x[u] = unknowns[u].param == Param::step ? std::max(x[u], 0.0) : std::clamp(x[u], kMinEfficiency, 1.0);
  }
};

HardwareSpec with(const HardwareSpec& base, const Calibration& calibration) {
  HardwareSpec spec = base;
  spec.calibration = calibration;
  return spec;
}

std::vector<double> residuals(const Problem& problem, const std::vector<FittedRow>& rows,
                              const std::vector<double>& x) {
  const HardwareSpec spec = with(problem.hardware, problem.calibration_of(x));
  std::vector<double> r;
  for (const std::size_t i : problem.fit_rows) {
    const Measurement& row = rows[i].row;
    r.push_back((predict_measurement(row, spec).des - row.measured) / row.measured);
  }
  return r;
}

double cost(const std::vector<double>& r) {
  double sum = 0;
  for (const double v : r)
    sum += v * v;
  return sum;
}

// Solves a x = b (n x n, row-major) by Gaussian elimination with partial pivoting; a singular direction gets 0.
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r * n + c]) > std::abs(a[pivot * n + c])) pivot = r;
    if (std::abs(a[pivot * n + c]) < 1e-300) continue;
    for (std::size_t k = 0; k < n; ++k)
      std::swap(a[c * n + k], a[pivot * n + k]);
    std::swap(b[c], b[pivot]);
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k)
        a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0.0);
  for (std::size_t c = 0; c < n; ++c)
    if (std::abs(a[c * n + c]) >= 1e-300) x[c] = b[c] / a[c * n + c];
  return x;
}

// Levenberg-Marquardt from `x`; returns the iterations taken.
int minimise(const Problem& problem, const std::vector<FittedRow>& rows, std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> r = residuals(problem, rows, x);
  double lambda = 1e-3;
  int iteration = 0;
  for (; iteration < 100; ++iteration) {
    const std::size_t m = r.size();
    std::vector<double> jac(m * n);
    for (std::size_t u = 0; u < n; ++u) {
      std::vector<double> probe = x;
      double h = 1e-6 * std::max(1.0, std::abs(x[u]));
      if (problem.unknowns[u].param != Param::step && x[u] + h > 1.0) h = -h;  // stay within (0, 1]
      probe[u] += h;
      const std::vector<double> rp = residuals(problem, rows, probe);
      for (std::size_t i = 0; i < m; ++i)
        jac[i * n + u] = (rp[i] - r[i]) / h;
    }
    std::vector<double> jtj(n * n, 0.0), jtr(n, 0.0);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t a = 0; a < n; ++a) {
        jtr[a] -= jac[i * n + a] * r[i];
        for (std::size_t b = 0; b < n; ++b)
          jtj[a * n + b] += jac[i * n + a] * jac[i * n + b];
      }
    const double current = cost(r);
    bool improved = false;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      std::vector<double> damped = jtj;
      for (std::size_t a = 0; a < n; ++a)
        damped[a * n + a] += lambda * std::max(jtj[a * n + a], 1e-12);
      const std::vector<double> step = solve(damped, jtr);
      std::vector<double> next = x;
      for (std::size_t a = 0; a < n; ++a)
        next[a] += step[a];
      problem.clamp(next);
      const std::vector<double> rn = residuals(problem, rows, next);
      if (cost(rn) < current) {
        double moved = 0;
        for (std::size_t a = 0; a < n; ++a)
          moved = std::max(moved, std::abs(next[a] - x[a]) / std::max(1.0, std::abs(x[a])));
        x = next;
        r = rn;
        lambda = std::max(lambda / 3, 1e-12);
        improved = true;
        if (moved < 1e-10 || current - cost(rn) < 1e-18) return iteration + 1;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) return iteration + 1;
  }
  return iteration;
}

// The sizes of a curve: the distinct values, increasing.
std::vector<double> distinct_sorted(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

double rms(const std::vector<FittedRow>& rows, bool after) {
  double sum = 0;
  int count = 0;
  for (const FittedRow& row : rows)
    if (row.row.fit) {
      const double e = after ? row.error_after() : row.error_before();
      sum += e * e;
      ++count;
    }
  return count == 0 ? 0 : std::sqrt(sum / count);
}

}  // namespace

CalibrationFit fit_calibration(const std::vector<Measurement>& rows, const HardwareSpec& hardware,
                               const std::string& source) {
  Problem problem;
  problem.hardware = hardware;
  problem.hardware.calibration.reset();
  CalibrationFit fit;
  bool latency_row = false;
  std::vector<double> link_sizes, mxu_sizes, hbm_sizes;
  for (const Measurement& row : rows) {
    if (predicted_by_validate(row.kind))
      throw InputError(row.file + ":" + std::to_string(row.line),
                       std::string("column kind: podsim calibrate fits collective, matmul and copy rows (podsim "
                                   "validate checks scenario and serving rows), got: ") +
                           (row.kind == MeasurementKind::serving ? "serving" : "scenario"));
    FittedRow fitted;
    fitted.row = row;
    const Prediction p = predict_measurement(row, problem.hardware);
    fitted.book = p.book;
    fitted.before = p.des;
    if (row.kind == MeasurementKind::collective) {
      const CollectiveAnswer answer = answer_measurement(row, problem.hardware);
      fitted.bound = answer.book->bound;
      const bool split = !answer.des->algorithms.empty() &&
                         algorithm_traits(parse_algorithm(answer.des->algorithms.front())).half_shard_messages;
      fitted.size = static_cast<double>(answer.shard_bytes) / (split ? 2.0 : 1.0);
    } else if (row.kind == MeasurementKind::matmul) {
      const MatmulRoofline roofline = matmul_roofline(problem.hardware.chip, row.m, row.k, row.n, row.dtype, row.dtype);
      fitted.bound = roofline.bound;
      fitted.size = fitted.bound == Bound::compute ? roofline.flops : static_cast<double>(roofline.bytes);
    } else {
      fitted.bound = Bound::memory;
      fitted.size = copy_hbm_bytes(row);
    }
    if (row.fit) {
      problem.fit_rows.push_back(fit.rows.size());
      if (fitted.bound == Bound::latency) latency_row = true;
      if (fitted.bound == Bound::bandwidth) link_sizes.push_back(fitted.size);
      if (fitted.bound == Bound::compute) mxu_sizes.push_back(fitted.size);
      if (fitted.bound == Bound::memory) hbm_sizes.push_back(fitted.size);
    }
    fit.rows.push_back(std::move(fitted));
  }
  if (problem.fit_rows.empty())
    throw InputError(rows.empty() ? "measurements" : rows.front().file,
                     "podsim calibrate needs at least one row with fit=yes, got: none");

  problem.link_at = distinct_sorted(link_sizes);
  problem.mxu_at = distinct_sorted(mxu_sizes);
  problem.hbm_at = distinct_sorted(hbm_sizes);
  std::vector<double> x;
  if (latency_row) {
    problem.unknowns.push_back({Param::step});
    x.push_back(0);
  }
  for (std::size_t i = 0; i < problem.link_at.size(); ++i) {
    problem.unknowns.push_back({Param::link, i});
    x.push_back(1);
  }
  for (std::size_t i = 0; i < problem.mxu_at.size(); ++i) {
    problem.unknowns.push_back({Param::mxu, i});
    x.push_back(1);
  }
  for (std::size_t i = 0; i < problem.hbm_at.size(); ++i) {
    problem.unknowns.push_back({Param::hbm, i});
    x.push_back(1);
  }
  fit.iterations = minimise(problem, fit.rows, x);
  fit.calibration = problem.calibration_of(x);
  fit.calibration.source = source;

  const HardwareSpec calibrated = with(problem.hardware, fit.calibration);
  for (FittedRow& row : fit.rows) {
    row.after = predict_measurement(row.row, calibrated).des;
    if (row.row.kind == MeasurementKind::collective && row.bound == Bound::bandwidth)
      row.outside_range = problem.link_at.empty() || outside_curve(fit.calibration.link_efficiency, row.size);
    if (row.row.kind == MeasurementKind::matmul && row.bound == Bound::compute)
      row.outside_range = problem.mxu_at.empty() || outside_curve(fit.calibration.mxu_efficiency, row.size);
    if (row.row.kind != MeasurementKind::collective && row.bound == Bound::memory)
      row.outside_range = problem.hbm_at.empty() || outside_curve(fit.calibration.hbm_efficiency, row.size);
  }
  fit.rms_before = rms(fit.rows, false);
  fit.rms_after = rms(fit.rows, true);
  if (!problem.link_at.empty()) fit.link_range = std::pair{problem.link_at.front(), problem.link_at.back()};
  if (!problem.mxu_at.empty()) fit.mxu_range = std::pair{problem.mxu_at.front(), problem.mxu_at.back()};
  if (!problem.hbm_at.empty()) fit.hbm_range = std::pair{problem.hbm_at.front(), problem.hbm_at.back()};

  fit.unfitted.push_back(
      {"hop_latency_s", "not separable from the step cost on neighbour-to-neighbour steps: the preset's alpha stays"});
  if (latency_row)
    fit.fitted.push_back("collective_step_s");
  else
    fit.unfitted.push_back({"collective_step_s", "no fit row is a latency-bound collective"});
  if (!problem.link_at.empty())
    fit.fitted.push_back("link_efficiency");
  else
    fit.unfitted.push_back({"link_efficiency", "no fit row is a bandwidth-bound collective"});
  if (!problem.mxu_at.empty())
    fit.fitted.push_back("mxu_efficiency");
  else
    fit.unfitted.push_back({"mxu_efficiency", "no fit row is a compute-bound matmul"});
  if (!problem.hbm_at.empty())
    fit.fitted.push_back("hbm_efficiency");
  else
    fit.unfitted.push_back({"hbm_efficiency", "no fit row is a memory-bound matmul or a copy"});
  fit.unfitted.push_back({"dcn_bandwidth_Bps", "no row runs across slices"});
  fit.unfitted.push_back({"dcn_latency_s", "no row runs across slices"});
  return fit;
}

}  // namespace podsim
