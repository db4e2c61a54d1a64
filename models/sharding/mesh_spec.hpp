// The command line's `--mesh` value: a simple row-major mesh `X=8,Y=2`, optionally named (`NAME=X=8,Y=2`),
// or a named Shardy mesh attribute `NAME=<["x"=2, "y"=4], device_ids=[...]>`.
#pragma once

#include <string_view>

#include "models/sharding/mesh.hpp"

namespace podsim {

// The default mesh name of an unnamed spec (`X=8,Y=2` or `<[...]>`).
inline constexpr std::string_view kDefaultMeshName = "mesh";

// Parses and verifies (verify_mesh) a mesh spec:
//   `X=8,Y=2`                 -> "mesh" with axes X=8, Y=2 (row-major, implicit device ids)
//   `NAME=X=8,Y=2`            -> the same mesh named NAME
//   `NAME=<["x"=2], ...>`     -> the Shardy mesh attribute (optionally `#sdy.mesh<...>`) named NAME
//   `<["x"=2], ...>`          -> the Shardy mesh attribute named "mesh"
// Names are identifiers ([A-Za-z_][A-Za-z0-9_.$-]*), optionally written `@NAME`; whitespace between tokens
// is ignored. Throws ParseError (1-based column in `text`) for bad text, VerifyError for rule breaks.
NamedMesh parse_mesh_spec(std::string_view text);

}  // namespace podsim
