// One table of names per enum: canonical names out, lenient reading in (case, `_` and `-` ignored), aliases read
// but never listed, and the error that lists the choices.
#include "models/common/enum_names.hpp"

#include <gtest/gtest.h>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"

namespace podsim {
namespace {

enum class Fruit { apple, blood_orange };

constexpr EnumNames<Fruit, 3> kFruits{
    "fruit",
    {{
        {"apple", Fruit::apple}, {"blood-orange", Fruit::blood_orange}, {"orange", Fruit::blood_orange},  // an alias
    }}};

TEST(EnumNames, FoldsCaseAndSeparators) {
  EXPECT_EQ(fold_name("All_Gather"), "allgather");
  EXPECT_EQ(fold_name("all-gather"), fold_name("AllGather"));
  EXPECT_EQ(kFruits.parse("Blood_Orange"), Fruit::blood_orange);
  EXPECT_EQ(kFruits.parse("bloodorange"), Fruit::blood_orange);
  EXPECT_EQ(kFruits.find("pear"), std::nullopt);
}

TEST(EnumNames, AliasesAreReadButNeverListed) {
  EXPECT_EQ(kFruits.parse("ORANGE"), Fruit::blood_orange);
  EXPECT_EQ(kFruits.name(Fruit::blood_orange), "blood-orange");
  EXPECT_EQ(kFruits.choices(), "apple, blood-orange");
  EXPECT_EQ(kFruits.choices("\""), "\"apple\", \"blood-orange\"");
}

TEST(EnumNames, UnknownNameListsTheChoices) {
  try {
    kFruits.parse("pear");
    FAIL() << "expected VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "unknown fruit, got: pear (expected one of apple, blood-orange)");
  }
}

TEST(EnumNames, TablesOfTheLibraryReadCommonSpellings) {
  EXPECT_EQ(parse_collective_kind("AllGather"), CollectiveKind::all_gather);
  EXPECT_EQ(parse_collective_kind("reduce_scatter"), CollectiveKind::reduce_scatter);
  EXPECT_EQ(parse_dtype("BF16"), DType::bf16);
  EXPECT_EQ(parse_dtype("float8_e4m3fn"), DType::fp8_e4m3);
}

}  // namespace
}  // namespace podsim
