// JSON form of an input error.
#include "sim/report/error_report.hpp"

namespace podsim::report {

nlohmann::json error_json(const InputError& error) {
  nlohmann::json body = {
      {"stage", error.stage() == InputError::Stage::parse ? "parse" : "verify"},
      {"where", error.where()},
      {"message", error.message()},
  };
  if (error.column() > 0) body["column"] = error.column();
  return {{"error", body}};
}

}  // namespace podsim::report
