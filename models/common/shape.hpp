// Tensor shapes as users write them on the command line: `1024x4096`, `8x2048x4096`, `scalar` (rank 0).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace podsim {

using Shape = std::vector<std::int64_t>;

// Parses `AxBxC` (non-negative integers, any rank >= 1) or `scalar` / `[]` for rank 0. Throws ParseError
// with the 1-based column: `expected a dimension size, got: "x"`.
Shape parse_shape(std::string_view text);

// `1024x4096`, `scalar` for rank 0.
std::string format_shape(const Shape& shape);

// `4x4x8`, `(none)` for rank 0: dims for sentences about slices and meshes.
std::string format_dims(const std::vector<std::int64_t>& dims);

// Product of the dims (1 for rank 0). Throws VerifyError when it overflows 64 bits.
std::uint64_t element_count(const Shape& shape);

}  // namespace podsim
