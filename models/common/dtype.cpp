// Element types: sizes, names and the aliases users write.
#include "models/common/dtype.hpp"

#include "models/common/enum_names.hpp"
#include "models/common/error.hpp"

namespace podsim {
namespace {

// Canonical names first, then the aliases users write (read, never listed).
constexpr EnumNames<DType, 22> kNames{"dtype",
                                      {{
                                          {"f32", DType::f32},           {"bf16", DType::bf16},
                                          {"f16", DType::f16},           {"int8", DType::int8},
                                          {"int4", DType::int4},         {"fp8_e4m3", DType::fp8_e4m3},
                                          {"fp8_e5m2", DType::fp8_e5m2}, {"fp32", DType::f32},
                                          {"float32", DType::f32},       {"bfloat16", DType::bf16},
                                          {"fp16", DType::f16},          {"float16", DType::f16},
                                          {"s8", DType::int8},           {"i8", DType::int8},
                                          {"s4", DType::int4},           {"i4", DType::int4},
                                          {"f8e4m3fn", DType::fp8_e4m3}, {"float8_e4m3fn", DType::fp8_e4m3},
                                          {"f8e5m2", DType::fp8_e5m2},   {"float8_e5m2", DType::fp8_e5m2},
                                          {"fp8", DType::fp8_e4m3},      {"f8e4m3", DType::fp8_e4m3},
                                      }}};

}  // namespace

int dtype_bits(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return 32;
    case DType::bf16:
    case DType::f16:
      return 16;
    case DType::int8:
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
      return 8;
    case DType::int4:
      return 4;
  }
  throw Error("unknown dtype enumerator");
}

std::string_view dtype_name(DType dtype) {
  return kNames.name(dtype);
}

DType parse_dtype(std::string_view text) {
  return kNames.parse(text);
}

std::uint64_t dtype_bytes(DType dtype, std::uint64_t elements) {
  // Whole groups of 8 elements take exactly `bits` bytes; the rest rounds up. This avoids overflow in
  // elements * bits.
  const auto bits = static_cast<std::uint64_t>(dtype_bits(dtype));
  if (elements / 8 > UINT64_MAX / bits - 8)
    throw VerifyError("tensor size overflows 64-bit bytes, got: " + std::to_string(elements) + " elements");
  return elements / 8 * bits + ((elements % 8) * bits + 7) / 8;
}

}  // namespace podsim
