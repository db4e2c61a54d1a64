// The compact binary form in which a simulation child returns its task timings to the parent through a pipe:
// a magic word, the task count, the (start, end) pairs and the wall time, in native byte order (both ends are
// the same program). Routes do not travel: the parent resolved them while validating and publishes them itself.
#pragma once

#include <string>
#include <string_view>

#include "sim/engine/graph_runner.hpp"

namespace podsim::engine {

std::string encode_run(const GraphRun& run);
// Throws podsim::InternalError if `bytes` is not a complete encoding (the child's fault, not the input's).
GraphRun decode_run(std::string_view bytes);

}  // namespace podsim::engine
