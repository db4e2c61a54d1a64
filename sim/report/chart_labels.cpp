#include "sim/report/chart_labels.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/report/html_report.hpp"
#include "sim/report/text_table.hpp"

namespace podsim::report {
namespace {

constexpr double kCharWidth = 7;    // px a character at 12 px
constexpr double kLineHeight = 13;  // px from one label's baseline to the next
constexpr double kAscent = 10;      // px of a label above its baseline

}  // namespace

ChartLabels::ChartLabels(double left, double top, double right, double bottom) : bounds_{left, top, right, bottom} {}

double ChartLabels::width_of(const std::string& text) {
  return kCharWidth * static_cast<double>(display_width(text));
}

std::string ChartLabels::place(double x, double y, double radius, const std::string& text) {
  const double w = width_of(text), gap = radius + 2;
  // Baseline-left corners of the spots, nearest first.
  const double spots[][2] = {{x + gap, y - gap},
                             {x + gap, y + gap + kAscent},
                             {x - gap - w, y - gap},
                             {x - gap - w, y + gap + kAscent},
                             {x + gap, y - gap - kLineHeight},
                             {x + gap, y + gap + kAscent + kLineHeight},
                             {x - gap - w, y - gap - kLineHeight},
                             {x - gap - w, y + gap + kAscent + kLineHeight}};
  for (const auto& spot : spots) {
    const Box box{spot[0], spot[1] - kAscent, spot[0] + w, spot[1] + 3};
    if (box.x0 < bounds_.x0 || box.x1 > bounds_.x1 || box.y0 < bounds_.y0 || box.y1 > bounds_.y1) continue;
    const bool overlaps = std::any_of(placed_.begin(), placed_.end(), [&](const Box& other) {
      return box.x0 < other.x1 && other.x0 < box.x1 && box.y0 < other.y1 && other.y0 < box.y1;
    });
    if (overlaps) continue;
    placed_.push_back(box);
    return fmt::format("<text class=\"label\" x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n", spot[0], spot[1], esc(text));
  }
  return "";
}

}  // namespace podsim::report
