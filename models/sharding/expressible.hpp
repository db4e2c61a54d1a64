// What the book notation and JAX PartitionSpecs cannot say, shared by both printers: sub-axes, open dims,
// priorities, explicitly replicated axes and unreduced axes reduced by max or min.
#pragma once

#include <string>
#include <string_view>

#include "models/sharding/sharding.hpp"

namespace podsim {

// Throws VerifyError `<notation> cannot express <what>, got: <the sharding in Shardy text>`.
[[noreturn]] void cannot_express(std::string_view notation, const std::string& what, const TensorSharding& s);

// Throws as cannot_express for the first thing in `s` that neither plain notation can write.
void require_plain_sharding(const TensorSharding& s, std::string_view notation);

}  // namespace podsim
