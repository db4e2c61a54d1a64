// Fuzzes JAX's PartitionSpec `P(('X', 'Y'), None)`: what parses prints back (when a PartitionSpec can express
// it) and parses to the same sharding; the notation detector and the other printers do not crash on it.
#include "models/common/error.hpp"
#include "models/sharding/notation.hpp"
#include "models/sharding/partition_spec.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string_view text = fuzz::as_text(data, size);
  TensorSharding parsed;
  try {
    parsed = parse_partition_spec(text, "mesh", std::nullopt);
  } catch (const Error&) {
    return 0;
  }
  try {  // JAX's rule: a longer rank adds replicated trailing dims
    const TensorSharding padded = parse_partition_spec(text, "mesh", parsed.dims.size() + 2);
    fuzz::require(padded.dims.size() == parsed.dims.size() + 2, "rank not completed", text);
  } catch (const Error&) {
  }
  std::string printed;
  try {
    printed = print_partition_spec(parsed);
  } catch (const VerifyError&) {
    return 0;  // a sharding the notation cannot express
  }
  TensorSharding again;
  try {
    again = parse_partition_spec(printed, "mesh", std::nullopt);
  } catch (const Error&) {
    fuzz::require(false, "printed PartitionSpec does not parse", text, printed);
  }
  fuzz::require(again == parsed, "sharding changed", text, printed);
  try {
    const ParsedSharding detected = parse_sharding(printed, "mesh", std::nullopt);
    fuzz::require(detected.notation == Notation::partition_spec, "printed PartitionSpec not detected", text, printed);
    MeshTable meshes;
    meshes.add("mesh", make_mesh({{"X", 2}, {"Y", 4}, {"Z", 2}, {"data", 2}, {"model", 2}}));
    verify_sharding(parsed, meshes, std::nullopt);
    print_all_notations(parsed);
  } catch (const Error&) {
  }
  return 0;
}
