// Flattening sweep records into CSV columns: the union of the records' parameters and plan fields, so that every
// row has every column (an empty cell where a record lacks one, e.g. a failed point's plans).
#include "sim/sweep/sweep_csv.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "sim/report/run_report.hpp"

namespace podsim {
namespace {

using Json = nlohmann::ordered_json;

void add_unique(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

std::string cell(const Json& value) {
  if (value.is_null()) return "";
  return report::csv_field(value.is_string() ? value.get<std::string>()
                                             : value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

}  // namespace

void write_sweep_csv(const std::vector<std::string>& lines, std::ostream& out) {
  // Two passes over the text, the columns first, so that only one record is parsed at a time.
  std::vector<std::string> params, plans;
  std::vector<std::vector<std::string>> fields;  // per plan in `plans`
  for (const auto& line : lines) {
    const Json record = Json::parse(line);
    for (const auto& [pointer, value] : record.at("params").items())
      add_unique(params, pointer);
    for (const auto& [name, plan] : record.at("plans").items()) {
      add_unique(plans, name);
      const auto p = static_cast<std::size_t>(std::find(plans.begin(), plans.end(), name) - plans.begin());
      fields.resize(plans.size());
      for (const auto& [field, value] : plan.items())
        add_unique(fields[p], field);
    }
  }
  std::vector<std::string> header = {"point", "hash", "model", "error"};
  for (const auto& pointer : params)
    header.push_back(pointer);
  for (std::size_t p = 0; p < plans.size(); ++p)
    for (const auto& field : fields[p])
      header.push_back(plans[p] + "." + field);
  for (std::size_t i = 0; i < header.size(); ++i)
    out << (i ? "," : "") << cell(Json(header[i]));
  out << "\n";
  for (const auto& line : lines) {
    const Json record = Json::parse(line);
    out << cell(record.at("point")) << "," << cell(record.at("hash")) << "," << cell(record.at("model")) << ","
        << cell(record.at("error"));
    const Json& values = record.at("params");
    for (const auto& pointer : params)
      out << "," << (values.contains(pointer) ? cell(values.at(pointer)) : "");
    const Json& record_plans = record.at("plans");
    for (std::size_t p = 0; p < plans.size(); ++p) {
      const bool has = record_plans.contains(plans[p]);
      for (const auto& field : fields[p])
        out << ","
            << (has && record_plans.at(plans[p]).contains(field) ? cell(record_plans.at(plans[p]).at(field)) : "");
    }
    out << "\n";
  }
}

}  // namespace podsim
