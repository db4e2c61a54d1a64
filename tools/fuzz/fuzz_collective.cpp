// Fuzzes `podsim collective`'s question with the book model only (never a simulation): the input is the
// flags' text, one per line (hardware, slice, wrap, mesh, op, axes, size, sharding, dtype, link-bw,
// hop-latency, algorithm, `twist` for a twisted torus, routing); each goes through the parser the CLI uses,
// then answer_collective.
#include <map>
#include <string>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/common/units.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/topology/route_policy.hpp"
#include "models/topology/wraparound.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/query/collective_query.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

namespace {

// The shipped presets, loaded once (loading reads files; it has its own harness).
const std::map<std::string, HardwareSpec>& presets() {
  static const std::map<std::string, HardwareSpec> loaded = [] {
    std::map<std::string, HardwareSpec> specs;
    for (const auto& name : list_hardware_presets())
      specs.emplace(name, load_hardware_preset(name));
    return specs;
  }();
  return loaded;
}

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size() && out.size() < 14) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    out.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  out.resize(14);
  return out;
}

std::vector<std::string> split_axes(const std::string& text) {
  std::vector<std::string> axes;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    axes.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return axes;
}

}  // namespace

PODSIM_FUZZ_ENTRY {
  const std::vector<std::string> field = lines(fuzz::as_text(data, size));
  const auto preset = presets().find(field[0]);
  if (preset == presets().end()) return 0;
  try {
    CollectiveQuery query;
    query.hardware = preset->second;
    query.model = EvalModel::book;
    query.slice = parse_shape(field[1]);
    query.wrap = parse_wrap_choice(field[2], query.slice);
    if (!field[3].empty()) query.mesh = parse_mesh_spec(field[3]).mesh;
    query.op = parse_collective_kind(field[4]);
    query.axes = split_axes(field[5]);
    if (field[6].starts_with("V="))
      query.size = parse_bytes(std::string_view(field[6]).substr(2));
    else
      query.size = CollectiveQuery::Tensor{parse_shape(field[6]), field[7]};
    if (!field[8].empty()) query.dtype = parse_dtype(field[8]);
    if (!field[9].empty()) query.link_bandwidth_Bps = parse_bandwidth(field[9]);
    if (!field[10].empty()) query.hop_latency_s = parse_duration(field[10]);
    if (!field[11].empty()) query.algorithm = parse_algorithm(field[11]);
    query.twist = field[12] == "twist";
    if (!field[13].empty()) query.routing = kRoutePolicyNames.parse(field[13]);
    const CollectiveAnswer answer = answer_collective(query);
    fuzz::require(!answer.des.has_value(), "the book-only query ran a simulation", field[0]);
  } catch (const Error&) {
  }
  return 0;
}
