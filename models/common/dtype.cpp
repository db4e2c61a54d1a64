// Element types: sizes, names and the aliases users write.
#include "models/common/dtype.hpp"

#include <array>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int bits;
};

constexpr std::array<DTypeInfo, 7> kDTypes = {{
    {DType::f32, "f32", 32},
    {DType::bf16, "bf16", 16},
    {DType::f16, "f16", 16},
    {DType::int8, "int8", 8},
    {DType::int4, "int4", 4},
    {DType::fp8_e4m3, "fp8_e4m3", 8},
    {DType::fp8_e5m2, "fp8_e5m2", 8},
}};

constexpr std::array<std::pair<std::string_view, DType>, 15> kAliases = {{
    {"fp32", DType::f32},
    {"float32", DType::f32},
    {"bfloat16", DType::bf16},
    {"fp16", DType::f16},
    {"float16", DType::f16},
    {"s8", DType::int8},
    {"i8", DType::int8},
    {"s4", DType::int4},
    {"i4", DType::int4},
    {"f8e4m3", DType::fp8_e4m3},
    {"f8e4m3fn", DType::fp8_e4m3},
    {"float8_e4m3fn", DType::fp8_e4m3},
    {"f8e5m2", DType::fp8_e5m2},
    {"float8_e5m2", DType::fp8_e5m2},
    {"fp8", DType::fp8_e4m3},
}};

const DTypeInfo& info(DType dtype) {
  for (const auto& entry : kDTypes)
    if (entry.dtype == dtype) return entry;
  throw Error("unknown dtype enumerator");
}

}  // namespace

int dtype_bits(DType dtype) {
  return info(dtype).bits;
}

std::string_view dtype_name(DType dtype) {
  return info(dtype).name;
}

DType parse_dtype(std::string_view text) {
  for (const auto& entry : kDTypes)
    if (entry.name == text) return entry.dtype;
  for (const auto& [alias, dtype] : kAliases)
    if (alias == text) return dtype;
  std::string names;
  for (const auto& entry : kDTypes)
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  throw VerifyError("unknown dtype, got: " + std::string(text) + " (expected one of " + names + ")");
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
