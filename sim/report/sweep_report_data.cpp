// Reading sweep records for the report: every figure checked for its type and located at its record and key, so a
// hand-edited or foreign results.jsonl is an error that says where, never a chart drawn from a wrong value.
#include "sim/report/sweep_report_data.hpp"

#include <algorithm>
#include <tuple>

#include "models/common/error.hpp"

namespace podsim::report {
namespace {

using Json = nlohmann::ordered_json;

// RFC 6901: "~" and "/" in a key are written "~0" and "~1".
std::string pointer_token(const std::string& key) {
  std::string out;
  for (const char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string shown(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The located reader of one record's keys.
struct RecordReader {
  std::string where;  // `SOURCE: point N`

  [[noreturn]] void fail(const std::string& pointer, const std::string& rule, const Json& value) const {
    throw InputError(where + ": " + pointer, rule + ", got: " + shown(value));
  }

  // A time or a cost: at least 0 (a forged negative one drew `inf` into the charts' scales; issue 33, class 4).
  std::optional<double> number(const Json& plan, const std::string& pointer, const char* key) const {
    if (!plan.contains(key) || plan.at(key).is_null()) return std::nullopt;
    const Json& value = plan.at(key);
    if (!value.is_number() || !(value.get<double>() >= 0))
      fail(pointer + "/" + key, "must be a number of at least 0 or null", value);
    return value.get<double>();
  }

  std::optional<std::uint64_t> bytes(const Json& plan, const std::string& pointer, const char* key) const {
    if (!plan.contains(key) || plan.at(key).is_null()) return std::nullopt;
    const Json& value = plan.at(key);
    if (!value.is_number_unsigned()) fail(pointer + "/" + key, "must be a whole number of bytes or null", value);
    return value.get<std::uint64_t>();
  }

  SweepMark mark(const Json& plan, const std::string& pointer) const {
    if (!plan.is_object()) fail(pointer, "must be an object of a plan's figures", plan);
    SweepMark m;
    m.des_time_s = number(plan, pointer, "des_time_s");
    m.book_time_s = number(plan, pointer, "book_time_s");
    m.memory_per_chip_bytes = bytes(plan, pointer, "memory_per_chip_bytes");
    m.hbm_bytes = bytes(plan, pointer, "hbm_bytes");
    m.cost_per_million_tokens = number(plan, pointer, "cost_per_million_tokens");
    if (plan.contains("fits_hbm")) {
      if (!plan.at("fits_hbm").is_boolean()) fail(pointer + "/fits_hbm", "must be true or false", plan.at("fits_hbm"));
      m.fits_hbm = plan.at("fits_hbm").get<bool>();
    }
    if (plan.contains("chips") && !plan.at("chips").is_null()) {
      const Json& chips = plan.at("chips");
      if (!chips.is_number_integer() || chips.get<std::int64_t>() <= 0)
        fail(pointer + "/chips", "must be a whole number above 0 or null", chips);
      m.chips = chips.get<std::int64_t>();
    }
    m.time_to_train_days = number(plan, pointer, "time_to_train_days");
    m.cost_usd = number(plan, pointer, "cost_usd");
    if (plan.contains("meets_goal") && !plan.at("meets_goal").is_null()) {
      if (!plan.at("meets_goal").is_boolean())
        fail(pointer + "/meets_goal", "must be true, false or null", plan.at("meets_goal"));
      m.meets_goal = plan.at("meets_goal").get<bool>();
    }
    if (plan.contains("candidate") && !plan.at("candidate").is_null()) {
      if (!plan.at("candidate").is_string())
        fail(pointer + "/candidate", "must be a string or null", plan.at("candidate"));
      m.candidate = plan.at("candidate").get<std::string>();
    }
    return m;
  }
};

}  // namespace

std::string value_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : shown(value);
}

SweepReportData read_sweep_report_data(const std::vector<std::string>& lines, const std::string& source) {
  std::vector<Json> records;
  records.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = source + ": line " + std::to_string(i + 1);
    Json record;
    try {
      record = Json::parse(lines[i]);
    } catch (const Json::exception&) {
      throw InputError(where, "not a JSON line");
    }
    if (!record.is_object() || !record.contains("point") || !record.at("point").is_number_unsigned() ||
        !record.contains("params") || !record.at("params").is_object() || !record.contains("plans") ||
        !record.at("plans").is_object() || !record.contains("error"))
      throw InputError(where, "not a sweep record (keys point, params, hash, model, error, plans)");
    records.push_back(std::move(record));
  }
  std::stable_sort(records.begin(), records.end(), [](const Json& a, const Json& b) {
    return a.at("point").get<std::size_t>() < b.at("point").get<std::size_t>();
  });
  SweepReportData data;
  for (const Json& record : records)
    for (const auto& [pointer, value] : record.at("params").items())
      if (std::find(data.pointers.begin(), data.pointers.end(), pointer) == data.pointers.end())
        data.pointers.push_back(pointer);
  for (const Json& record : records) {
    SweepReportPoint point;
    point.point = record.at("point").get<std::size_t>();
    const RecordReader reader{source + ": point " + std::to_string(point.point)};
    for (const auto& pointer : data.pointers)
      point.values.push_back(record.at("params").contains(pointer) ? record.at("params").at(pointer) : Json());
    if (record.contains("model") && record.at("model").is_string()) point.model = record.at("model").get<std::string>();
    const Json& error = record.at("error");
    if (!error.is_null()) {
      if (!error.is_string()) reader.fail("/error", "must be a string or null", error);
      point.error = error.get<std::string>();
      ++data.failed;
    }
    const std::size_t index = data.points.size();
    data.points.push_back(std::move(point));
    for (const auto& [name, plan] : record.at("plans").items()) {
      SweepMark mark = reader.mark(plan, "/plans/" + pointer_token(name));
      mark.record = index;
      const auto at = std::find(data.series.begin(), data.series.end(), name);
      mark.series = static_cast<std::size_t>(at - data.series.begin());
      if (at == data.series.end()) data.series.push_back(name);
      data.has_des = data.has_des || mark.des_time_s.has_value();
      data.has_book = data.has_book || mark.book_time_s.has_value();
      data.has_candidates = data.has_candidates || !mark.candidate.empty();
      data.has_goal = data.has_goal || mark.time_to_train_days.has_value();
      data.has_goal_cost = data.has_goal_cost || mark.cost_usd.has_value();
      data.marks.push_back(std::move(mark));
    }
  }
  const auto timed = [](const SweepMark& m) { return m.step_s().has_value(); };
  data.priced = std::any_of(data.marks.begin(), data.marks.end(), timed) &&
                std::all_of(data.marks.begin(), data.marks.end(),
                            [&](const SweepMark& m) { return !timed(m) || m.cost_per_million_tokens.has_value(); });
  return data;
}

std::optional<double> pareto_cost(const SweepMark& mark, ParetoCost cost) {
  if (cost == ParetoCost::cost_per_million_tokens) return mark.cost_per_million_tokens;
  if (!mark.chips) return std::nullopt;
  return static_cast<double>(*mark.chips);
}

std::vector<std::size_t> pareto_front(const std::vector<SweepMark>& marks, ParetoCost cost) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < marks.size(); ++i)
    if (marks[i].fits_hbm && marks[i].step_s() && pareto_cost(marks[i], cost)) order.push_back(i);
  const auto key = [&](std::size_t i) { return std::make_tuple(*pareto_cost(marks[i], cost), *marks[i].step_s(), i); };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  // In ascending (cost, time), a mark is beaten exactly when an earlier one is faster, or as fast for less.
  std::vector<std::size_t> front;
  std::optional<double> best_s, best_cost;  // the fastest so far, and the least cost it was reached at
  for (const std::size_t i : order) {
    const double c = *pareto_cost(marks[i], cost), t = *marks[i].step_s();
    if (best_s && (*best_s < t || (*best_s == t && *best_cost < c))) continue;
    front.push_back(i);
    if (!best_s || t < *best_s) {
      best_s = t;
      best_cost = c;
    }
  }
  return front;
}

}  // namespace podsim::report
