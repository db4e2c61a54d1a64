// Wraparound rules per chip generation (TPU_HARDWARE.md §3): v5e/v6e wrap only an axis of 16, v4/v5p only
// whole 4x4x4 cubes, and a dim of size <= 2 never wraps.
#include "models/topology/wraparound.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"

namespace podsim {
namespace {

using Flags = std::vector<bool>;
const std::vector<std::int64_t> kV5ePod{16, 16};

TEST(Wraparound, V5eWrapsOnlyAnAxisOf16) {
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {8, 16}, kV5ePod), (Flags{false, true}));
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {16, 16}, kV5ePod), (Flags{true, true}));
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {4, 4}, kV5ePod), (Flags{false, false}));
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {8, 4}, kV5ePod), (Flags{false, false}));
}

TEST(Wraparound, V5pWrapsOnlyWholeCubes) {
  EXPECT_EQ(wraparound_for(WrapRule::whole_cubes, {4, 4, 4}, {}), (Flags{true, true, true}));
  EXPECT_EQ(wraparound_for(WrapRule::whole_cubes, {4, 4, 8}, {}), (Flags{true, true, true}));
  EXPECT_EQ(wraparound_for(WrapRule::whole_cubes, {8, 16, 16}, {}), (Flags{true, true, true}));
  EXPECT_EQ(wraparound_for(WrapRule::whole_cubes, {2, 2, 4}, {}), (Flags{false, false, false}));
  EXPECT_EQ(wraparound_for(WrapRule::whole_cubes, {2, 4, 4}, {}), (Flags{false, false, false}));
  EXPECT_EQ(wraparound_for(WrapRule::whole_cubes, {4, 4, 6}, {}), (Flags{false, false, false}));
}

TEST(Wraparound, SizeTwoAndOneDimsNeverWrap) {
  EXPECT_EQ(wraparound_for(WrapRule::always, {2, 8, 1}, {}), (Flags{false, true, false}));
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {2, 4}, {2, 4}), (Flags{false, true}));
  EXPECT_EQ(wraparound_for(WrapRule::never, {16, 16}, {}), (Flags{false, false}));
}

// A slice of fewer dims lies along the pod's leading dims: one chip [1] on a v5e is 1x1 (no wrap), a row [16] spans
// the pod's first axis (it wraps); a slice of more dims than the pod is refused.
TEST(Wraparound, FullPodAxisNeedsAMatchingPod) {
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {1}, kV5ePod), std::vector<bool>{false});
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {16}, kV5ePod), std::vector<bool>{true});
  EXPECT_EQ(wraparound_for(WrapRule::full_pod_axis, {8}, kV5ePod), std::vector<bool>{false});
  EXPECT_THROW(
      {
        try {
          wraparound_for(WrapRule::full_pod_axis, {4, 4, 4}, kV5ePod);
        } catch (const VerifyError& e) {
          EXPECT_STREQ(e.what(),
                       "wraparound: full_pod_axis: a slice has at most the pod's 2 dims, got: pod 16x16 for slice "
                       "4x4x4");
          throw;
        }
      },
      VerifyError);
  EXPECT_THROW(
      {
        try {
          wraparound_for(WrapRule::full_pod_axis, {32, 16}, kV5ePod);
        } catch (const VerifyError& e) {
          EXPECT_STREQ(e.what(), "wraparound: slice dim 0 exceeds the pod, got: slice 32x16 in pod 16x16");
          throw;
        }
      },
      VerifyError);
}

TEST(Wraparound, RejectsEmptyDims) {
  EXPECT_THROW(wraparound_for(WrapRule::never, {4, 0}, {}), VerifyError);
}

TEST(Wraparound, RuleNamesRoundTrip) {
  for (WrapRule rule : {WrapRule::whole_cubes, WrapRule::full_pod_axis, WrapRule::always, WrapRule::never})
    EXPECT_EQ(parse_wrap_rule(wrap_rule_name(rule)), rule);
  EXPECT_EQ(wrap_rule_name(WrapRule::whole_cubes), "whole_cubes");
  try {
    parse_wrap_rule("torus");
    FAIL() << "expected VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(),
                 "unknown wraparound rule, got: torus (expected one of whole_cubes, full_pod_axis, always, never)");
  }
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

TEST(ResolveWraparound, WordsAndDimLists) {
  // v5e 8x16: auto wraps only the 16 dim (the pod is 16x16).
  EXPECT_EQ(resolve_wraparound("auto", {8, 16}, WrapRule::full_pod_axis, {16, 16}), (std::vector<bool>{false, true}));
  EXPECT_EQ(resolve_wraparound("none", {8, 16}, WrapRule::full_pod_axis, {16, 16}), (std::vector<bool>{false, false}));
  EXPECT_EQ(resolve_wraparound("all", {8, 2}, WrapRule::never, {}), (std::vector<bool>{true, false}));
  EXPECT_EQ(resolve_wraparound("0,2", {4, 4, 4}, WrapRule::never, {}), (std::vector<bool>{true, false, true}));
}

TEST(ResolveWraparound, Errors) {
  auto message = [](const char* spec, std::vector<std::int64_t> shape) {
    try {
      resolve_wraparound(spec, shape, WrapRule::never, {});
    } catch (const VerifyError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("some", {4, 4}), "wraparound must be auto, none, all or a list of dims such as 0,1, got: some");
  EXPECT_EQ(message("0,,1", {4, 4}), "wraparound must be auto, none, all or a list of dims such as 0,1, got: 0,,1");
  EXPECT_EQ(message("2", {4, 4}), "wraparound dim out of range [0, 2), got: 2");
  EXPECT_EQ(message("1,1", {4, 4}), "wraparound dim listed twice, got: 1");
  EXPECT_EQ(message("1", {4, 2}), "wraparound dim 1 has size 2: it has no wrap link (its neighbours are one chip)");
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

TEST(WrapChoice, WordsAnyCaseAndListsAsFlags) {
  EXPECT_EQ(parse_wrap_choice("AUTO", {4, 4}).mode, WrapMode::automatic);
  const WrapChoice listed = parse_wrap_choice("0,2", {4, 4, 4});
  EXPECT_EQ(listed.mode, WrapMode::listed);
  EXPECT_EQ(listed.dims, (std::vector<bool>{true, false, true}));
  // A scenario's booleans: a flag on a dim of 2 is dropped (its wrap link would be the direct one).
  EXPECT_EQ(resolve_wraparound(WrapChoice{WrapMode::listed, {true, true}}, {8, 2}, WrapRule::never, {}),
            (std::vector<bool>{true, false}));
  EXPECT_THROW(resolve_wraparound(WrapChoice{WrapMode::listed, {true}}, {8, 2}, WrapRule::never, {}), VerifyError);
}

}  // namespace
}  // namespace podsim
