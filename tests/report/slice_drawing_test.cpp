// The slice drawing: one chip box per chip (16 on a 4x4, 64 on a 4x4x4 in 4 layers), one line per neighbour pair
// (a 4x4 mesh has 2 x 4 x 3 = 24), wrap stubs only on wrapped dims (two per wrapped line), a cube outline per layer of
// a 4x4x4 on a cube generation, marked links in their colours with a legend entry each, ids out of range ignored, and
// a pod-scale slice (v5p's largest, 16x16x24: 6,144 chips) drawn as its 96 cubes.
#include "sim/report/slice_drawing.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace podsim::report {
namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(SliceDrawing, AMeshHasOneBoxPerChipAndOneLinePerNeighbourPair) {
  const std::string svg = slice_drawing_svg(podsim::Slice({4, 4}, {false, false}), {});
  EXPECT_EQ(count_of(svg, "<rect"), 16u);
  EXPECT_EQ(count_of(svg, "stroke=\"#9aa5b1\" stroke-width=\"1.2\"/>"), 24u);  // 2 dims x 4 lines x 3 pairs
  EXPECT_EQ(count_of(svg, "stroke-dasharray"), 1u);                            // the legend's wraparound key only
  EXPECT_NE(svg.find("slice 4x4 (16 chips): x no wrap, y no wrap"), std::string::npos);
}

TEST(SliceDrawing, ACubeOnACubeGenerationWrapsAndIsOutlinedInEveryLayer) {
  SliceDrawing drawing;
  drawing.cubes = true;
  const std::string svg = slice_drawing_svg(podsim::Slice({4, 4, 4}, {true, true, true}), drawing);
  // 64 chips, 4 cube outlines (one per layer), the legend's cube key.
  EXPECT_EQ(count_of(svg, "stroke=\"#2c3e50\" stroke-width=\"2\" rx=\"3\""), 4u);
  EXPECT_EQ(count_of(svg, "<rect"), 64u + 4u + 1u);
  // Wrap links within a layer: y and z, 4 lines each per layer, two stubs each: 4 x 2 x 4 x 2 = 64, plus the legend.
  EXPECT_EQ(count_of(svg, "stroke-dasharray=\"3 2\""), 64u + 1u);
  EXPECT_NE(svg.find("x = 3"), std::string::npos);
}

TEST(SliceDrawing, MarkedLinksTakeTheirColoursAndLegend) {
  const podsim::Slice slice({4, 4}, {false, true});
  SliceDrawing drawing;
  drawing.marked = {{slice.link_id(0, 1, Direction::plus), LinkMark::failed},
                    {slice.link_id(3, 1, Direction::plus), LinkMark::twisted},  // chip 3 (0,3) wraps to chip 0
                    {static_cast<LinkId>(slice.num_links()), LinkMark::busy}};  // out of range: ignored
  const std::string svg = slice_drawing_svg(slice, drawing);
  EXPECT_EQ(count_of(svg, "stroke=\"#e15759\" stroke-width=\"3\" stroke-dasharray=\"5 3\""), 1u);
  EXPECT_EQ(count_of(svg, "stroke=\"#f28e2b\" stroke-width=\"3\""), 2u);  // a wrap link: a stub at each end
  EXPECT_NE(svg.find("failed link"), std::string::npos);
  EXPECT_NE(svg.find("twisted wrap link"), std::string::npos);
  EXPECT_EQ(svg.find("busiest links"), std::string::npos);
}

TEST(SliceDrawing, APodScaleSliceIsDrawnAsItsCubes) {
  SliceDrawing drawing;
  drawing.cubes = true;
  const podsim::Slice slice({16, 16, 24}, {true, true, true});
  drawing.marked = {{slice.link_id(0, 2, Direction::plus), LinkMark::failed}};
  const std::string svg = slice_drawing_svg(slice, drawing);
  EXPECT_EQ(count_of(svg, "fill=\"#dce6f2\""), 96u);  // 4 layers of 4 x 6 cubes
  EXPECT_NE(svg.find("each cell is a 4x4x4 block of 64 chips (one cube)"), std::string::npos);
  EXPECT_NE(svg.find("x = 12..15"), std::string::npos);
  if (const char* dir = std::getenv("PODSIM_DRAWING_DIR")) std::ofstream(std::string(dir) + "/pod.svg") << svg;
}

}  // namespace
}  // namespace podsim::report
