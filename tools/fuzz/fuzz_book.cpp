// Fuzzes the scaling-book notation `A[I_XY, J]{U_Z}`: what parses prints back (when the notation can express
// it) and parses to the same tensor name, labels and sharding; the other notations print it without crashing.
#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "models/sharding/notation.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string_view text = fuzz::as_text(data, size);
  BookSharding parsed;
  try {
    parsed = parse_book_sharding(text, "mesh");
  } catch (const Error&) {
    return 0;
  }
  std::string printed;
  try {
    printed = print_book_sharding(parsed.sharding, parsed.tensor_name, parsed.dim_labels);
  } catch (const VerifyError&) {
    return 0;  // a sharding the notation cannot express (e.g. an axis name that is not a word)
  }
  BookSharding again;
  try {
    again = parse_book_sharding(printed, "mesh");
  } catch (const Error&) {
    fuzz::require(false, "printed book sharding does not parse", text, printed);
  }
  fuzz::require(again.sharding == parsed.sharding, "sharding changed", text, printed);
  fuzz::require(again.tensor_name == parsed.tensor_name, "tensor name changed", text, printed);
  fuzz::require(again.dim_labels == parsed.dim_labels, "dim labels changed", text, printed);
  try {
    MeshTable meshes;
    meshes.add("mesh", make_mesh({{"X", 2}, {"Y", 4}, {"Z", 2}, {"data", 2}, {"model", 2}}));
    verify_sharding(parsed.sharding, meshes, parsed.sharding.dims.size());
    print_all_notations(parsed.sharding, parsed.tensor_name, parsed.dim_labels);
  } catch (const Error&) {
  }
  return 0;
}
