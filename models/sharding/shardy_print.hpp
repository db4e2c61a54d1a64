// Printers for Shardy attribute text in the canonical form of SHARDY.md §5. Printing never sorts or
// merges: what was parsed is printed back, with canonical spacing.
#pragma once

#include <string>

#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

// `<["a"=2, "b"=4]>`, `<["a"=2], device_ids=[1, 0]>`, `<[]>`, `<[], device_ids=[3]>`.
std::string print_shardy_mesh(const Mesh& mesh);

// `<@m, [{"a"}, {}]>` (inline mesh as `mesh<[...]>`), then `, replicated={...}` and
// `, unreduced=[max|min]{...}` when non-empty; `sum` is never printed.
std::string print_shardy_sharding(const TensorSharding& sharding);

// `{}`, `{"a", "b"}`, `{?}`, `{"a", ?}`, followed by `pN` when a priority is present (even p0).
std::string print_dim_sharding(const DimSharding& dim);

// `@name`, or `@"name"` when the name is not a bare identifier.
std::string print_symbol_ref(const std::string& name);

}  // namespace podsim
