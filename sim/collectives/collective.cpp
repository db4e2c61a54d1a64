// Names of collective operations and algorithms, as users write them, and small shared helpers.
#include "sim/collectives/collective.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "models/common/error.hpp"
#include "sim/collectives/phase.hpp"

namespace podsim {
namespace {

constexpr std::array<std::pair<std::string_view, Algorithm>, 6> kAlgorithms = {{
    {"auto", Algorithm::automatic},
    {"unidirectional", Algorithm::unidirectional},
    {"bidirectional", Algorithm::bidirectional},
    {"bidirectional-split", Algorithm::bidirectional_split},
    {"line", Algorithm::line},
    {"direct", Algorithm::direct},
}};

// all_gather, AllGather and allgather all read as all-gather.
std::string normalised(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '_') {
      out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

template <typename Table>
std::string choices(const Table& table) {
  std::string text;
  for (const auto& [name, value] : table)
    text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

}  // namespace

std::string_view algorithm_name(Algorithm algorithm) {
  for (const auto& [name, value] : kAlgorithms)
    if (value == algorithm) return name;
  return "unknown";
}

Algorithm parse_algorithm(std::string_view text) {
  const std::string key = normalised(text);
  for (const auto& [name, value] : kAlgorithms)
    if (key == name) return value;
  throw VerifyError("unknown algorithm, got: " + std::string(text) + " (expected one of " + choices(kAlgorithms) + ")");
}

std::int32_t phase_steps(Algorithm algorithm, std::int32_t n) {
  if (n < 2) return 0;
  switch (algorithm) {
    case Algorithm::bidirectional:
      return n / 2;
    case Algorithm::direct:
      return 1;
    default:
      return n - 1;
  }
}

std::vector<ChipId> reversed(const std::vector<ChipId>& chips) {
  return {chips.rbegin(), chips.rend()};
}

}  // namespace podsim
