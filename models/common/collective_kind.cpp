// Names of the collectives, as users write them.
#include "models/common/collective_kind.hpp"

#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {
namespace {

constexpr std::array<std::pair<std::string_view, CollectiveKind>, 4> kKinds = {{
    {"all-gather", CollectiveKind::all_gather},
    {"reduce-scatter", CollectiveKind::reduce_scatter},
    {"all-reduce", CollectiveKind::all_reduce},
    {"all-to-all", CollectiveKind::all_to_all},
}};

// Lower case without separators: "all-gather", "all_gather" and "AllGather" all read "allgather".
std::string folded(std::string_view text) {
  std::string out;
  for (const char c : text)
    if (c != '-' && c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string_view collective_kind_name(CollectiveKind kind) {
  for (const auto& [name, value] : kKinds)
    if (value == kind) return name;
  return "unknown";
}

CollectiveKind parse_collective_kind(std::string_view text) {
  for (const auto& [name, value] : kKinds)
    if (folded(name) == folded(text)) return value;
  throw VerifyError("unknown collective, got: " + std::string(text) +
                    " (expected one of all-gather, reduce-scatter, all-reduce, all-to-all)");
}

}  // namespace podsim
