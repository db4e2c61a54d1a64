// The two bound vocabularies: each name spelled once, read back leniently, and "" for no bound.
#include "models/common/bound.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace podsim {
namespace {

TEST(Bound, EachOpBoundHasItsWordAndItsSide) {
  // compute and memory are the roofline's two terms, on the chip; bandwidth and latency a transfer's, off it.
  const std::vector<std::pair<Bound, bool>> bounds = {
      {Bound::compute, true}, {Bound::memory, true}, {Bound::bandwidth, false}, {Bound::latency, false}};
  const std::vector<std::string_view> words = {"compute", "memory", "bandwidth", "latency"};
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    EXPECT_EQ(bound_name(bounds[i].first), words[i]);
    EXPECT_EQ(on_chip(bounds[i].first), bounds[i].second) << words[i];
  }
  EXPECT_EQ(bound_name(std::optional<Bound>()), "");
  EXPECT_EQ(bound_name(std::optional<Bound>(Bound::latency)), "latency");
  EXPECT_EQ(kBoundNames.parse("Bandwidth"), Bound::bandwidth);
}

TEST(Bound, EachStepBoundHasItsWord) {
  EXPECT_EQ(step_bound_name(StepBound::compute), "compute");
  EXPECT_EQ(step_bound_name(StepBound::hbm), "hbm");
  EXPECT_EQ(step_bound_name(StepBound::ici), "ici");
  EXPECT_EQ(step_bound_name(StepBound::dcn), "dcn");
  EXPECT_EQ(step_bound_name(std::optional<StepBound>()), "");
  EXPECT_EQ(kStepBoundNames.parse("DCN"), StepBound::dcn);
}

TEST(Bound, TheVocabulariesDoNotMix) {
  EXPECT_FALSE(kStepBoundNames.find("memory"));
  EXPECT_FALSE(kBoundNames.find("hbm"));
  EXPECT_EQ(kStepBoundNames.choices(), "compute, hbm, ici, dcn");
  EXPECT_EQ(kBoundNames.choices(), "compute, memory, bandwidth, latency");
}

}  // namespace
}  // namespace podsim
