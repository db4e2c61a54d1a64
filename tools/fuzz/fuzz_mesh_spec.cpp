// Fuzzes the command line's mesh text (`X=8,Y=2`, `NAME=<["x"=2], device_ids=[...]>`): what parses and
// verifies prints back as a Shardy mesh attribute and parses to the same name and mesh.
#include "models/common/error.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/sharding/shardy_print.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string_view text = fuzz::as_text(data, size);
  NamedMesh parsed;
  try {
    parsed = parse_mesh_spec(text);
  } catch (const Error&) {
    return 0;
  }
  const std::string printed = parsed.name + "=" + print_shardy_mesh(parsed.mesh);
  NamedMesh again;
  try {
    again = parse_mesh_spec(printed);
  } catch (const Error&) {
    fuzz::require(false, "printed mesh spec does not parse", text, printed);
  }
  fuzz::require(again.name == parsed.name, "mesh name changed", text, printed);
  fuzz::require(again.mesh == parsed.mesh, "mesh changed", text, printed);
  // A verified mesh counts its devices in 64 bits (verify_mesh refuses the others).
  try {
    (void)parsed.mesh.num_devices();
  } catch (const Error&) {
    fuzz::require(false, "a verified mesh overflows its device count", text, printed);
  }
  return 0;
}
