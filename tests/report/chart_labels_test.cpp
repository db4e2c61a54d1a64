// Label placement of the HTML charts (sim/report/chart_labels.hpp), on hand-placed marks: boxes of 7 px a character
// and 13 px a line, in a plot from (0, 0) to (200, 100).
#include "sim/report/chart_labels.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace podsim::report {
namespace {

struct Placed {
  double x = 0, y = 0;
};

Placed at(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("x=\"(-?\\d+)\" y=\"(-?\\d+)\""))) << svg;
  return m.empty() ? Placed{} : Placed{std::stod(m[1]), std::stod(m[2])};
}

// A mark in the open: upper right, radius + 2 px out (x + 7, y - 7 for radius 5).
TEST(ChartLabels, TheFirstLabelSitsUpperRightOfItsMark) {
  ChartLabels labels(0, 0, 200, 100);
  const Placed p = at(labels.place(100, 50, 5, "#1"));
  EXPECT_EQ(p.x, 107);
  EXPECT_EQ(p.y, 43);
}

// Three labels on one mark take three spots: upper right, lower right (baseline y + 7 + 10), upper left
// (x - 7 - 14 for two characters).
TEST(ChartLabels, LabelsOfOnePointTakeDifferentSpots) {
  ChartLabels labels(0, 0, 200, 100);
  const Placed a = at(labels.place(100, 50, 5, "#1"));
  const Placed b = at(labels.place(100, 50, 5, "#2"));
  const Placed c = at(labels.place(100, 50, 5, "#3"));
  EXPECT_EQ(b.x, 107);
  EXPECT_EQ(b.y, 67);
  EXPECT_EQ(c.x, 79);
  EXPECT_EQ(c.y, 43);
  EXPECT_NE(a.y, b.y);
}

// At the plot's right edge the label goes left of the mark; at its top, below it.
TEST(ChartLabels, ALabelStaysInsideThePlot) {
  ChartLabels labels(0, 0, 200, 100);
  const Placed right = at(labels.place(195, 50, 5, "#1"));
  EXPECT_LE(right.x + 14, 200);
  const Placed top = at(labels.place(50, 3, 5, "#2"));
  EXPECT_GE(top.y - 10, 0);
}

// Eight labels fill the eight spots around a mark; a ninth has no room and is left out.
TEST(ChartLabels, NoRoomLeavesTheLabelOut) {
  ChartLabels labels(0, 0, 200, 100);
  for (int i = 0; i < 8; ++i)
    EXPECT_FALSE(labels.place(100, 50, 5, "#" + std::to_string(i)).empty()) << i;
  EXPECT_EQ(labels.place(100, 50, 5, "#9"), "");
}

TEST(ChartLabels, TextIsEscaped) {
  ChartLabels labels(0, 0, 200, 100);
  EXPECT_NE(labels.place(20, 50, 5, "a<b").find(">a&lt;b</text>"), std::string::npos);
}

}  // namespace
}  // namespace podsim::report
