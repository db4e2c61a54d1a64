// Names of the collectives, as users write them.
#include "models/common/collective_kind.hpp"

#include "models/common/enum_names.hpp"

namespace podsim {
namespace {

constexpr EnumNames<CollectiveKind, 4> kKinds{"collective",
                                              {{
                                                  {"all-gather", CollectiveKind::all_gather},
                                                  {"reduce-scatter", CollectiveKind::reduce_scatter},
                                                  {"all-reduce", CollectiveKind::all_reduce},
                                                  {"all-to-all", CollectiveKind::all_to_all},
                                              }}};

}  // namespace

std::string_view collective_kind_name(CollectiveKind kind) {
  return kKinds.name(kind);
}

CollectiveKind parse_collective_kind(std::string_view text) {
  return kKinds.parse(text);
}

}  // namespace podsim
