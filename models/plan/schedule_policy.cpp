// Names of the scheduling policies.
#include "models/plan/schedule_policy.hpp"

#include "models/common/enum_names.hpp"

namespace podsim {
namespace {

constexpr EnumNames<SchedulePolicy, 3> kPolicies{"schedule",
                                                 {{
                                                     {"program-order", SchedulePolicy::program_order},
                                                     {"dataflow", SchedulePolicy::dataflow},
                                                     {"dataflow-hbm", SchedulePolicy::dataflow_hbm},
                                                 }}};

}  // namespace

std::string_view schedule_policy_name(SchedulePolicy policy) {
  return kPolicies.name(policy);
}

SchedulePolicy parse_schedule_policy(std::string_view text) {
  return kPolicies.parse(text);
}

}  // namespace podsim
