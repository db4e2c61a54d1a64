// Text labels beside the marks of the reports' SVG charts, placed so that no two overlap and none leaves the plot:
// two candidates a few pixels apart get a label each instead of one printed over the other.
#pragma once

#include <string>
#include <vector>

namespace podsim::report {

class ChartLabels {
 public:
  // The plot's box, in the SVG's pixels: labels stay inside it.
  ChartLabels(double left, double top, double right, double bottom);

  // The SVG <text> of `text` beside the mark at (x, y) of radius `radius`: at the first of eight spots around the
  // mark (upper right, lower right, upper left, lower left, then the same a line further out) that overlaps no
  // label placed before and stays inside the plot. "" when none does: the mark's <title> still names it.
  std::string place(double x, double y, double radius, const std::string& text);

  // The width a label takes at the charts' 12 px font (7 px a character: digits and Latin letters of system-ui).
  static double width_of(const std::string& text);

 private:
  struct Box {
    double x0, y0, x1, y1;
  };
  Box bounds_;
  std::vector<Box> placed_;
};

}  // namespace podsim::report
