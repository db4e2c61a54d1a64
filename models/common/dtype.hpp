// Element types of tensors and their storage size. Sub-byte types are packed: int4 stores two
// elements per byte, so a tensor's bytes are ceil(elements * bits / 8).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace podsim {

enum class DType { f32, bf16, f16, int8, int4, fp8_e4m3, fp8_e5m2 };

// Bits of storage per element.
int dtype_bits(DType dtype);

// Canonical name: "f32", "bf16", "f16", "int8", "int4", "fp8_e4m3", "fp8_e5m2".
std::string_view dtype_name(DType dtype);

// Parses a canonical name or a common alias (fp32, float32, bfloat16, fp16, s8, i8, s4, i4, f8e4m3fn,
// f8e5m2, ...). Throws VerifyError `unknown dtype, got: <text> (expected one of ...)`.
DType parse_dtype(std::string_view text);

// Packed bytes of `elements` elements: ceil(elements * bits / 8). Throws VerifyError on overflow.
std::uint64_t dtype_bytes(DType dtype, std::uint64_t elements);

}  // namespace podsim
