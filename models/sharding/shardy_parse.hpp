// Parsers for Shardy attribute text (SHARDY.md §1): meshes `<["x"=2], device_ids=[...]>` and tensor
// shardings `<@mesh, [{"x"}, {"y":(2)2, ?}p1], replicated={"z"}, unreduced={"w"}>`. Parsing only checks the
// grammar (plus Shardy's parse-time axis size check); see sharding_verify.hpp for the rules.
#pragma once

#include <string_view>

#include "models/sharding/axis_ref.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

// `<["x"=2, "y"=4], device_ids=[...]>`, `<[]>`, `<[], device_ids=[3]>`, optionally prefixed by `#sdy.mesh`.
// Builds the mesh with make_mesh (an explicit iota device list is dropped when there are axes).
// Throws ParseError(message, 1-based column of the offending token); Shardy's exact messages.
Mesh parse_shardy_mesh(std::string_view text);

// `<@mesh, [dims...]{, replicated={...}}{, unreduced[=[sum|max|min]]{...}}>`, optionally prefixed by
// `#sdy.sharding`; `mesh<[...]>` may replace `@mesh`. Throws ParseError as parse_shardy_mesh does.
TensorSharding parse_shardy_sharding(std::string_view text);

// One dimension sharding alone: `{"x", ?}p1`. Throws ParseError.
DimSharding parse_shardy_dim_sharding(std::string_view text);

// One axis reference alone: `"x"` or `"x":(2)4`. Throws ParseError.
AxisRef parse_shardy_axis_ref(std::string_view text);

}  // namespace podsim
