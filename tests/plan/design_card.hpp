// The design card's operands (docs/functional-mode.md): A = [[1, 2], [3, 4]] and B = [[5, 6], [7, 8]] on a mesh of two
// chips, X=2. Their product is [[19, 22], [43, 50]].
#pragma once

#include "models/plan/dense_array.hpp"
#include "models/sharding/mesh.hpp"

namespace podsim::test {

inline const Mesh kPair = make_mesh({{"X", 2}});
inline const DenseArray kA = matrix({{1, 2}, {3, 4}});
inline const DenseArray kB = matrix({{5, 6}, {7, 8}});

}  // namespace podsim::test
