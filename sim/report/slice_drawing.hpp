// The slice as a picture for the HTML reports (`podsim run --report`, `podsim plan --report`): chips on a grid (a 3D
// slice as its layers along dim 0 side by side), neighbour links, wraparound as dashed stubs leaving both ends of a
// wrapped line, 4x4x4 cubes outlined on generations built of them, and marked links (failed, twisted wrap, busy)
// drawn over the rest; the slice's failed chips filled red and the cubes spares replaced outlined green
// (Slice::failed_chips, Slice::replaced_cubes). A slice of more than kMaxDrawnChips chips is drawn as its 4x4x4 blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/topology/slice.hpp"

namespace podsim::report {

// Past this many chips a slice is drawn as blocks of 4x4x4 (its cubes on a cube generation).
inline constexpr std::int64_t kMaxDrawnChips = 1024;

// Why a link is drawn over the others: failed (red, dashed), a twisted wrap link (orange), busy (purple, the
// reports' busiest links).
enum class LinkMark : std::uint8_t { failed, twisted, busy };

struct MarkedLink {
  LinkId link = 0;  // an id of the slice (ignored when out of range)
  LinkMark mark = LinkMark::busy;
};

struct SliceDrawing {
  bool cubes = false;              // a generation built of 4x4x4 cubes (the whole_cubes rule): outline them
  std::vector<MarkedLink> marked;  // drawn over the plain links, later ones over earlier ones
  std::string caption;             // text under the title (escaped here)
};

// An <svg> element (with a legend) of `slice`; every string is escaped.
std::string slice_drawing_svg(const podsim::Slice& slice, const SliceDrawing& drawing);

}  // namespace podsim::report
