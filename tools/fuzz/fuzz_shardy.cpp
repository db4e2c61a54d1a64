// Fuzzes the Shardy attribute parsers (mesh, tensor sharding, one dim, one axis reference): what parses prints
// back and parses to the same value, and verifies without crashing.
#include "models/common/error.hpp"
#include "models/sharding/notation.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

namespace {

// The meshes a fuzzed sharding may name: Shardy's test meshes, sub-axes included.
const MeshTable& meshes() {
  static const MeshTable table = [] {
    MeshTable t;
    t.add("mesh", make_mesh({{"x", 2}, {"y", 4}, {"z", 2}}));
    t.add("m", make_mesh({{"a", 8}, {"b", 2}}, {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
    t.add("maximal", make_mesh({}, {3}));
    t.add("empty", make_mesh({}));
    return t;
  }();
  return table;
}

void mesh(std::string_view text) {
  Mesh parsed;
  try {
    parsed = parse_shardy_mesh(text);
  } catch (const Error&) {
    return;
  }
  const std::string printed = print_shardy_mesh(parsed);
  Mesh again;
  try {
    again = parse_shardy_mesh(printed);
  } catch (const Error&) {
    fuzz::require(false, "printed mesh does not parse", text, printed);
  }
  fuzz::require(again == parsed, "mesh changed", text, printed);
  try {
    verify_mesh(parsed);
  } catch (const Error&) {
  }
}

void sharding(std::string_view text) {
  TensorSharding parsed;
  try {
    parsed = parse_shardy_sharding(text);
  } catch (const Error&) {
    return;
  }
  const std::string printed = print_shardy_sharding(parsed);
  TensorSharding again;
  try {
    again = parse_shardy_sharding(printed);
  } catch (const Error&) {
    fuzz::require(false, "printed sharding does not parse", text, printed);
  }
  fuzz::require(again == parsed, "sharding changed", text, printed);
  try {
    verify_sharding(parsed, meshes(), std::nullopt);
    print_all_notations(parsed);
  } catch (const Error&) {
  }
}

void dim(std::string_view text) {
  DimSharding parsed;
  try {
    parsed = parse_shardy_dim_sharding(text);
  } catch (const Error&) {
    return;
  }
  const std::string printed = print_dim_sharding(parsed);
  DimSharding again;
  try {
    again = parse_shardy_dim_sharding(printed);
  } catch (const Error&) {
    fuzz::require(false, "printed dim sharding does not parse", text, printed);
  }
  fuzz::require(again == parsed, "dim sharding changed", text, printed);
}

void axis_ref(std::string_view text) {
  try {
    parse_shardy_axis_ref(text);
  } catch (const Error&) {
  }
}

}  // namespace

PODSIM_FUZZ_ENTRY {
  const std::string_view text = fuzz::as_text(data, size);
  mesh(text);
  sharding(text);
  dim(text);
  axis_ref(text);
  return 0;
}
