// The slice drawing: a layout of layers and cells, then chips, links, wrap stubs, cubes and marks in that order.
#include "sim/report/slice_drawing.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "sim/report/html_report.hpp"

namespace podsim::report {
namespace {

constexpr double kMaxWidth = 1100;  // px: layers wrap onto further rows past this
constexpr const char* kPlainLink = "#9aa5b1";
constexpr const char* kWrap = "#4e79a7";
constexpr const char* kFailedChip = "#e15759";
constexpr const char* kFailedChipFill = "#f6c6c7";
constexpr const char* kReplacedCube = "#59a14f";

// Per LinkMark, in its order: the colour and the legend's words.
struct MarkStyle {
  const char* colour;
  const char* name;
};
constexpr std::array<MarkStyle, 3> kMarkStyles{
    {{"#e15759", "failed link"}, {"#f28e2b", "twisted wrap link"}, {"#8e44ad", "busiest links"}}};

const char* mark_colour(LinkMark mark) {
  return kMarkStyles[static_cast<std::size_t>(mark)].colour;
}
const char* mark_name(LinkMark mark) {
  return kMarkStyles[static_cast<std::size_t>(mark)].name;
}

char dim_letter(int dim) {
  return static_cast<char>('x' + dim);
}

// Where things go: a cell per chip (or per 4x4x4 block), `layers` layers of rows x cols cells, layer l at column
// l % per_row and row l / per_row of layers. Dims: layers along dim 0 (3D), rows along dim rank-2, cols along the
// last; a 1D slice is one row.
struct Layout {
  std::array<std::int64_t, 3> size{1, 1, 1};  // layers, rows, cols (in cells)
  std::int64_t block = 1;                     // chips per cell along each dim (4 when aggregated)
  double pitch = 0, cell = 0, gap = 0, top = 74, left = 14;
  std::int64_t per_row = 1;
  std::array<int, 3> dim_of{-1, -1, -1};  // slice dim of layers, rows, cols (-1: none)

  double x(std::int64_t layer, std::int64_t col) const {
    return left + static_cast<double>(layer % per_row) * (static_cast<double>(size[2]) * pitch + gap) +
           static_cast<double>(col) * pitch;
  }
  double y(std::int64_t layer, std::int64_t row) const {
    return top + static_cast<double>(layer / per_row) * (static_cast<double>(size[1]) * pitch + gap + 18) +
           static_cast<double>(row) * pitch;
  }
  double width() const {
    return left * 2 + static_cast<double>(std::min(per_row, size[0])) * (static_cast<double>(size[2]) * pitch + gap);
  }
  double height() const {
    const std::int64_t rows = (size[0] + per_row - 1) / per_row;
    return top + static_cast<double>(rows) * (static_cast<double>(size[1]) * pitch + gap + 18);
  }
};

Layout layout_of(const podsim::Slice& slice) {
  Layout l;
  const int rank = slice.rank();
  if (rank == 3) l.dim_of = {0, 1, 2};
  if (rank == 2) l.dim_of = {-1, 0, 1};
  if (rank == 1) l.dim_of = {-1, -1, 0};
  if (slice.num_chips() > kMaxDrawnChips) l.block = 4;
  for (int k = 0; k < 3; ++k)
    if (l.dim_of[k] >= 0) l.size[k] = (slice.size(l.dim_of[k]) + l.block - 1) / l.block;
  const std::int64_t cells = std::max<std::int64_t>(l.size[1], l.size[2]);
  l.pitch = std::clamp(420.0 / static_cast<double>(cells), 9.0, l.block > 1 ? 44.0 : 34.0);
  l.cell = l.pitch * 0.62;
  l.gap = std::max(26.0, l.pitch);
  const double layer_width = static_cast<double>(l.size[2]) * l.pitch + l.gap;
  l.per_row = std::max<std::int64_t>(1, static_cast<std::int64_t>((kMaxWidth - 2 * l.left) / layer_width));
  return l;
}

// The cell of a chip: (layer, row, col).
std::array<std::int64_t, 3> cell_of(const podsim::Slice& slice, const Layout& l, ChipId chip) {
  const auto coords = slice.coords_of(chip);
  std::array<std::int64_t, 3> at{0, 0, 0};
  for (int k = 0; k < 3; ++k)
    if (l.dim_of[k] >= 0) at[k] = coords[static_cast<std::size_t>(l.dim_of[k])] / l.block;
  return at;
}

std::string line(double x1, double y1, double x2, double y2, const char* colour, double width,
                 const char* dash = nullptr) {
  return fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"{}/>", x1, y1, x2,
      y2, colour, width, dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "");
}

// The segment a link (or its wrap stubs) takes between two cells of one layer; dim-0 links and links within one
// aggregated cell get a dot on their source cell instead.
std::string link_svg(const podsim::Slice& slice, const Layout& l, const Link& link, const char* colour, double width,
                     const char* dash) {
  const auto a = cell_of(slice, l, link.src), b = cell_of(slice, l, link.dst);
  const double half = l.pitch / 2;
  const auto cx = [&](const std::array<std::int64_t, 3>& c) { return l.x(c[0], c[2]) + half; };
  const auto cy = [&](const std::array<std::int64_t, 3>& c) { return l.y(c[0], c[1]) + half; };
  if (a == b || a[0] != b[0])
    return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\"/>", cx(a), cy(a),
                       std::max(2.5, l.cell / 4), colour);
  const bool wrap = std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]) > 1;
  if (!wrap) return line(cx(a), cy(a), cx(b), cy(b), colour, width, dash);
  // A wrap link: a stub out of each end of the line, away from the grid.
  const double dx = a[2] == b[2] ? 0 : (a[2] > b[2] ? 1 : -1), dy = a[1] == b[1] ? 0 : (a[1] > b[1] ? 1 : -1);
  const double reach = half * 0.95;
  return line(cx(a), cy(a), cx(a) + dx * reach * 1.6, cy(a) + dy * reach * 1.6, colour, width, dash ? dash : "3 2") +
         line(cx(b), cy(b), cx(b) - dx * reach * 1.6, cy(b) - dy * reach * 1.6, colour, width, dash ? dash : "3 2");
}

// A thick green outline, in every layer it spans, around each cube a spare replaced (spare_cubes.hpp): a 4x4 square
// of chips, or the cube's own cell when the slice is drawn as blocks.
std::string replaced_cubes_svg(const podsim::Slice& slice, const Layout& l) {
  std::string out;
  if (slice.rank() != 3) return out;
  for (const std::int64_t cube : slice.replaced_cubes()) {
    // The cube's first chip: cube ids are row-major over the cube coordinates (dim 0 slowest).
    std::array<std::int64_t, 3> at{0, 0, 0};
    std::int64_t rest = cube;
    for (int d = 2; d >= 0; --d) {
      at[static_cast<std::size_t>(d)] = rest % (slice.size(d) / 4) * 4;
      rest /= slice.size(d) / 4;
    }
    const auto first = cell_of(slice, l, slice.chip_at({at[0], at[1], at[2]}));
    const std::int64_t span = l.block == 1 ? 4 : 1;  // cells per side (and layers) the cube takes
    for (std::int64_t layer = first[0]; layer < first[0] + span; ++layer)
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"3\" rx=\"3\"/>\n",
          l.x(layer, first[2]) + 1, l.y(layer, first[1]) + 1, static_cast<double>(span) * l.pitch - 2,
          static_cast<double>(span) * l.pitch - 2, kReplacedCube);
  }
  return out;
}

}  // namespace

std::string slice_drawing_svg(const podsim::Slice& slice, const SliceDrawing& drawing) {
  const Layout l = layout_of(slice);
  const double legend_height = 22;
  std::string how = l.dim_of[0] >= 0 ? std::string("one layer per x; in each, rows along y, columns along z")
                                     : (slice.rank() == 2 ? std::string("rows along x, columns along y")
                                                          : std::string("one row along x"));
  if (l.block > 1) how += fmt::format("; each cell is a 4x4x4 block of 64 chips{}", drawing.cubes ? " (one cube)" : "");
  if (l.dim_of[0] >= 0)
    how += slice.wraps(0) ? "; x links join each chip to the next layer's (the last to the first), a dot marks one"
                          : "; x links join each chip to the next layer's, a dot marks one";
  const double text_width = 6.8 * static_cast<double>(std::max(how.size(), drawing.caption.size())) + 2 * l.left;
  const double width = std::max({l.width(), 560.0, text_width}), height = l.height() + legend_height;
  std::string out =
      fmt::format("<svg class=\"slice\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" aria-label=\"slice {}\">\n",
                  width, height, esc(slice.shape_string()));
  std::string wraps;
  for (int d = 0; d < slice.rank(); ++d)
    wraps += fmt::format("{}{} {}", d ? ", " : "", dim_letter(d), slice.wraps(d) ? "wraps" : "no wrap");
  if (slice.twisted())
    wraps += fmt::format("; twisted: the wrap links of the dims of {} land {} further along the others",
                         slice.twist_k(), slice.twist_k());
  if (!slice.failed_chips().empty()) wraps += fmt::format("; {} failed chip(s) in red", slice.failed_chips().size());
  if (!slice.replaced_cubes().empty())
    wraps += fmt::format("; {} cube(s) replaced by spares in green", slice.replaced_cubes().size());
  out += fmt::format("<text x=\"{}\" y=\"16\" font-weight=\"bold\">slice {} ({} chips): {}</text>\n", l.left,
                     esc(slice.shape_string()), slice.num_chips(), esc(wraps));
  out += fmt::format("<text x=\"{}\" y=\"34\" font-size=\"12\" fill=\"#555\">{}</text>\n", l.left, esc(how));
  if (!drawing.caption.empty())
    out +=
        fmt::format("<text x=\"{}\" y=\"50\" font-size=\"12\" fill=\"#333\">{}</text>\n", l.left, esc(drawing.caption));

  // Layer titles, then plain links (one line per neighbour pair: the + direction), then cells.
  for (std::int64_t layer = 0; layer < l.size[0]; ++layer)
    if (l.dim_of[0] >= 0)
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#333\">x = {}{}</text>\n",
                         l.x(layer, 0), l.y(layer, 0) - 5, layer * l.block,
                         l.block > 1 ? fmt::format("..{}", std::min(slice.size(0), (layer + 1) * l.block) - 1) : "");
  if (l.block == 1) {
    for (const Link& link : slice.links())
      if (link.dir == Direction::plus && (l.dim_of[0] < 0 || link.dim != l.dim_of[0]))
        out += link_svg(slice, l, link, slice.wraps(link.dim) ? kWrap : kPlainLink, 1.2, nullptr) + "\n";
  } else {
    // Blocks: one line between neighbouring blocks of a layer, stubs where a dim wraps.
    for (std::int64_t layer = 0; layer < l.size[0]; ++layer)
      for (std::int64_t row = 0; row < l.size[1]; ++row)
        for (std::int64_t col = 0; col < l.size[2]; ++col) {
          const double cx = l.x(layer, col) + l.pitch / 2, cy = l.y(layer, row) + l.pitch / 2;
          if (col + 1 < l.size[2]) out += line(cx, cy, cx + l.pitch, cy, kPlainLink, 1.2);
          if (row + 1 < l.size[1]) out += line(cx, cy, cx, cy + l.pitch, kPlainLink, 1.2);
          const int row_dim = l.dim_of[1], col_dim = l.dim_of[2];
          if (col_dim >= 0 && slice.wraps(col_dim) && (col == 0 || col + 1 == l.size[2]))
            out += line(cx, cy, cx + (col == 0 ? -1 : 1) * l.pitch * 0.75, cy, kWrap, 1.2, "3 2");
          if (row_dim >= 0 && slice.wraps(row_dim) && (row == 0 || row + 1 == l.size[1]))
            out += line(cx, cy, cx, cy + (row == 0 ? -1 : 1) * l.pitch * 0.75, kWrap, 1.2, "3 2");
        }
    out += "\n";
  }
  // Marks over the plain links, under the chips (their labels stay readable).
  std::array<bool, 3> used{false, false, false};
  std::string dots;
  // A twisted slice's wrap links of its short dims (those the twist moves) are marked first, under the caller's.
  std::vector<MarkedLink> marked;
  if (slice.twisted())
    for (const podsim::Link& link : slice.links())
      if (slice.size(link.dim) == slice.twist_k() &&
          slice.coord(link.src, link.dim) == (link.dir == Direction::plus ? slice.twist_k() - 1 : 0))
        marked.push_back({link.id, LinkMark::twisted});
  marked.insert(marked.end(), drawing.marked.begin(), drawing.marked.end());
  for (const MarkedLink& m : marked) {
    if (m.link < 0 || m.link >= slice.num_links()) continue;
    used[static_cast<std::size_t>(m.mark)] = true;
    const std::string drawn =
        link_svg(slice, l, slice.link(m.link), mark_colour(m.mark), 3, m.mark == LinkMark::failed ? "5 3" : nullptr);
    (drawn.rfind("<circle", 0) == 0 ? dots : out) += drawn + "\n";  // dots go over the chips
  }
  const bool labels = l.block == 1 && l.pitch >= 24;
  std::set<std::array<std::int64_t, 3>> failed_cells;  // cells holding a failed chip
  for (const ChipId chip : slice.failed_chips())
    failed_cells.insert(cell_of(slice, l, chip));
  for (std::int64_t layer = 0; layer < l.size[0]; ++layer)
    for (std::int64_t row = 0; row < l.size[1]; ++row)
      for (std::int64_t col = 0; col < l.size[2]; ++col) {
        const double x = l.x(layer, col) + (l.pitch - l.cell) / 2, y = l.y(layer, row) + (l.pitch - l.cell) / 2;
        const bool failed = failed_cells.count({layer, row, col}) > 0;
        out += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"2\" fill=\"{}\" stroke=\"{}\" "
            "stroke-width=\"{}\"/>",
            x, y, l.cell, l.cell,
            failed        ? kFailedChipFill
            : l.block > 1 ? "#dce6f2"
                          : "#f4f6f8",
            failed ? kFailedChip : "#555", failed ? 1.6 : 0.6);
        if (labels) {
          std::vector<std::int64_t> coords(static_cast<std::size_t>(slice.rank()), 0);
          for (int k = 0; k < 3; ++k)
            if (l.dim_of[k] >= 0) coords[static_cast<std::size_t>(l.dim_of[k])] = k == 0 ? layer : k == 1 ? row : col;
          out +=
              fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" text-anchor=\"middle\">{}</text>",
                          x + l.cell / 2, y + l.cell / 2 + 3.5, std::min(10.0, l.cell * 0.45), slice.chip_at(coords));
        }
      }
  out += "\n" + dots;
  // Cubes: on a cube generation, a 4x4 outline per cube in every layer (each cube spans 4 layers), when the
  // in-layer dims are whole cubes; aggregated cells already are cubes.
  if (drawing.cubes && l.block == 1 && slice.rank() == 3 && slice.size(1) % 4 == 0 && slice.size(2) % 4 == 0 &&
      slice.size(0) % 4 == 0)
    for (std::int64_t layer = 0; layer < l.size[0]; ++layer)
      for (std::int64_t row = 0; row < l.size[1]; row += 4)
        for (std::int64_t col = 0; col < l.size[2]; col += 4)
          out += fmt::format(
              "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#2c3e50\" "
              "stroke-width=\"2\" rx=\"3\"/>",
              l.x(layer, col) + 1, l.y(layer, row) + 1, 4 * l.pitch - 2, 4 * l.pitch - 2);
  out += replaced_cubes_svg(slice, l);
  // Legend.
  double x = l.left;
  const double y = height - 8;
  const auto key = [&](const char* colour, const std::string& text, const char* dash) {
    out += line(x, y - 4, x + 22, y - 4, colour, 2.5, dash);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">{}</text>", x + 27, y, esc(text));
    x += 34 + 7.0 * static_cast<double>(text.size());
  };
  key(kPlainLink, "link", nullptr);
  key(kWrap, "wraparound", "3 2");
  if (drawing.cubes) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"18\" height=\"12\" fill=\"none\" stroke=\"#2c3e50\" "
        "stroke-width=\"2\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">4x4x4 cube</text>",
        x, y - 11, x + 24, y);
    x += 110;
  }
  if (!slice.failed_chips().empty()) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"{}\" "
        "stroke-width=\"1.6\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">failed chip</text>",
        x, y - 11, kFailedChipFill, kFailedChip, x + 18, y);
    x += 96;
  }
  if (!slice.replaced_cubes().empty()) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"18\" height=\"12\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"3\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">cube replaced by a spare</text>",
        x, y - 11, kReplacedCube, x + 24, y);
    x += 190;
  }
  for (const LinkMark mark : {LinkMark::failed, LinkMark::twisted, LinkMark::busy})
    if (used[static_cast<std::size_t>(mark)])
      key(mark_colour(mark), mark_name(mark), mark == LinkMark::failed ? "5 3" : nullptr);
  return out + "</svg>\n";
}

}  // namespace podsim::report
