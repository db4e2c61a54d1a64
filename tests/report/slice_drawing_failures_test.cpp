// The slice drawing's failures (docs/topology.md, "Failed chips", "Spare cubes"): a failed chip's box filled red, a
// cube a spare replaced outlined green in each of its 4 layers (one cell when drawn as cubes), each with a legend key.
#include <string>

#include <gtest/gtest.h>

#include "sim/report/slice_drawing.hpp"

namespace podsim::report {
namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(SliceDrawingFailures, AFailedChipIsFilledRed) {
  const podsim::Slice s({4, 4}, {true, true}, false, podsim::SliceFailures{{}, {5}, {}});
  const std::string svg = slice_drawing_svg(s, {});
  EXPECT_EQ(occurrences(svg, "fill=\"#f6c6c7\""), 2u);  // chip 5's box and the legend's key
  EXPECT_NE(svg.find("1 failed chip(s) in red"), std::string::npos);
  EXPECT_NE(svg.find(">failed chip</text>"), std::string::npos);
}

// A 4x4x8 whose cube 1 (z 4-7) a spare replaced: one green 4x4 outline in each of the 4 layers (x = 0..3), at column
// 4 of the layer.
TEST(SliceDrawingFailures, AReplacedCubeIsOutlinedGreenInEachLayer) {
  const podsim::Slice s({4, 4, 8}, {true, true, true}, false, podsim::SliceFailures{{}, {}, {1}});
  SliceDrawing drawing;
  drawing.cubes = true;
  const std::string svg = slice_drawing_svg(s, drawing);
  EXPECT_EQ(occurrences(svg, "stroke=\"#59a14f\" stroke-width=\"3\" rx=\"3\""), 4u);
  EXPECT_EQ(occurrences(svg, "stroke=\"#59a14f\""), 5u);  // and the legend's key
  EXPECT_NE(svg.find("1 cube(s) replaced by spares in green"), std::string::npos);
  // Drawn as cubes (16x16x24: 96 cells), the replaced cube is one cell.
  const podsim::Slice pod({16, 16, 24}, {true, true, true}, false, podsim::SliceFailures{{}, {}, {7}});
  EXPECT_EQ(occurrences(slice_drawing_svg(pod, drawing), "stroke=\"#59a14f\" stroke-width=\"3\" rx=\"3\""), 1u);
}

}  // namespace
}  // namespace podsim::report
