// Identifiers shared by the topology, the event graph and the engine. 32 bits hold every chip and link of
// the largest pods (8960 chips, 53,760 directed links) and keep per-task records small.
#pragma once

#include <cstdint>

namespace podsim {

using ChipId = std::int32_t;  // row-major position in the slice (dim 0 slowest)
using LinkId = std::int32_t;  // dense index of a directed ICI link in its slice

}  // namespace podsim
