// Element sizes, names and packing of sub-byte types.
#include "models/common/dtype.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"

namespace podsim {
namespace {

TEST(DType, BitsOfEachType) {
  EXPECT_EQ(dtype_bits(DType::f32), 32);
  EXPECT_EQ(dtype_bits(DType::bf16), 16);
  EXPECT_EQ(dtype_bits(DType::f16), 16);
  EXPECT_EQ(dtype_bits(DType::int8), 8);
  EXPECT_EQ(dtype_bits(DType::int4), 4);
  EXPECT_EQ(dtype_bits(DType::fp8_e4m3), 8);
  EXPECT_EQ(dtype_bits(DType::fp8_e5m2), 8);
}

TEST(DType, SubByteTypesArePackedAndRoundedUp) {
  EXPECT_EQ(dtype_bytes(DType::int4, 4), 2u);
  EXPECT_EQ(dtype_bytes(DType::int4, 3), 2u);  // 12 bits need 2 bytes
  EXPECT_EQ(dtype_bytes(DType::bf16, 1024 * 4096), 8388608u);
}

TEST(DType, AliasesParse) {
  EXPECT_EQ(parse_dtype("fp32"), DType::f32);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  EXPECT_EQ(parse_dtype("f8e4m3fn"), DType::fp8_e4m3);
  EXPECT_EQ(parse_dtype(dtype_name(DType::int4)), DType::int4);
}

TEST(DType, UnknownNameSaysWhatItGot) {
  try {
    parse_dtype("f64");
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown dtype, got: f64 (expected one of f32, bf16, f16, int8, int4, fp8_e4m3, fp8_e5m2)");
  }
}

TEST(DType, OverflowIsAnError) {
  EXPECT_THROW(dtype_bytes(DType::f32, UINT64_MAX), VerifyError);
}

}  // namespace
}  // namespace podsim
