// A slice of TPU chips: a 1D, 2D or 3D grid with wraparound per dim, its chips (id <-> coordinates) and
// its directed ICI links (one per direction per neighbour pair), densely indexed and deterministically
// named so that the SimGrid engine and the reports agree on them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/ids.hpp"
#include "models/topology/wraparound.hpp"

namespace podsim {

// The most chips a slice may have: four times the largest TPU pod (9216 chips) and beyond, with links and routes
// that stay within memory.
inline constexpr std::int64_t kMaxSliceChips = 65536;

// The limits of a slice shape, for scenarios and `podsim collective` alike: 1 to 3 dims, each at least 1, and at
// most kMaxSliceChips chips.
struct SliceShapeIssue {
  enum class Rule { rank, dim_size, chips };
  Rule rule = Rule::rank;
  std::size_t dim = 0;  // dim_size: the dim below 1
};

// The first limit `shape` breaks (the rank, then dim by dim its size and the chip count so far; overflow-safe),
// or nullopt.
std::optional<SliceShapeIssue> slice_shape_issue(const std::vector<std::int64_t>& shape);

// The failures a slice is built with (docs/topology.md, "Failed links", "Failed chips", "Spare cubes"), after spare
// cubes took their share (slice_failures.hpp): failed links (each fails its cable, both directions), failed chips
// (every link touching one fails), and the 4x4x4 cubes that spares replaced (no failure is left in them; the reports
// name them).
struct SliceFailures {
  std::vector<LinkId> links;
  std::vector<ChipId> chips;
  std::vector<std::int64_t> replaced_cubes;  // cube ids (spare_cubes.hpp), increasing
};

// Direction of travel along one dim: plus goes to coordinate c+1 (or wraps from N-1 to 0).
enum class Direction : int { plus = 0, minus = 1 };

// "+" or "-".
std::string_view direction_sign(Direction dir);

// One directed link: it carries bytes from `src` to `dst`, its neighbour along `dim` in direction `dir`.
struct Link {
  LinkId id = 0;
  ChipId src = 0;
  ChipId dst = 0;
  int dim = 0;
  Direction dir = Direction::plus;
  // `ici.<x|y|z><+|->.<src coordinates, dim 0 first, dot-separated>`, e.g. `ici.x+.0.1.3`.
  std::string name;
};

// Chip ids are row-major over the coordinates: dim 0 varies SLOWEST and the last dim fastest,
// id = ((c0 * S1) + c1) * S2 + c2. This is Shardy's device order, so with the default mesh mapping a
// mesh's logical device position equals the chip id. (SimGrid's built-in torus zone numbers the other way
// round; the engine uses our own routes, so that order never matters.)
//
// A 2D 4x4 torus, chip ids and the + links of dim 1 (the wrap links shown as `>`):
//
//   dim 1 ->
//    0 - 1 - 2 - 3 >     dim 0 runs down the page; its wrap links join row 3 to row 0.
//    4 - 5 - 6 - 7 >
//    8 - 9 -10 -11 >
//   12 -13 -14 -15 >
//
// Links are indexed densely in the order (src chip, dim, plus before minus), skipping absent links.
// A dim of size 2 has no wrap link even when asked to wrap: its two chips are joined by one link per
// direction. Such a request is stored as "does not wrap" (see wraps()).
class Slice {
 public:
  // Throws VerifyError when the rank is not 1..3, a size is < 1, the wraparound list has another length,
  // or the chip count exceeds 2^31.
  Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound);
  // A twisted torus (twist.hpp) when `twisted`: throws VerifyError naming the rule when the shape is not
  // k x k x 2k or k x 2k x 2k (short dims first, k a multiple of 4) or a dim does not wrap.
  Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound, bool twisted);
  // As above, with the cables of `failed` failed (docs/topology.md, "Failed links"): each listed link and the link
  // back along the same cable fail, stay in the table with their ids and names, and carry nothing; routes avoid them
  // (failed_links.hpp). Throws VerifyError for a link id outside the table.
  Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound, bool twisted, const std::vector<LinkId>& failed);
  // As above, with `failures.links` failed, every link touching a chip of `failures.chips` failed too
  // (docs/topology.md, "Failed chips"), and the replaced cubes kept for the reports. Throws VerifyError for an id
  // outside the tables.
  Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound, bool twisted, const SliceFailures& failures);
  // The wraparound of every dim from a chip generation's rule (wraparound_for).
  Slice(std::vector<std::int64_t> shape, WrapRule rule, const std::vector<std::int64_t>& pod_shape = {});

  int rank() const { return static_cast<int>(shape_.size()); }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::int64_t size(int dim) const { return shape_.at(static_cast<std::size_t>(dim)); }
  // True iff `dim` has a wrap link (never for a dim of size <= 2).
  bool wraps(int dim) const { return wrap_.at(static_cast<std::size_t>(dim)); }
  const std::vector<bool>& wraparound() const { return wrap_; }
  std::int64_t num_chips() const { return num_chips_; }
  // Chip-id step along `dim` (product of the sizes of the dims after it).
  std::int64_t stride(int dim) const { return stride_.at(static_cast<std::size_t>(dim)); }
  // "4x4x4".
  std::string shape_string() const;
  // True for a twisted torus (twist.hpp): the wrap links of its short dims land k chips further along every long dim.
  bool twisted() const { return twist_k_ > 0; }
  // The short size k of a twisted slice; 0 when plain.
  std::int64_t twist_k() const { return twist_k_; }
  // Fewest hops from chip 0 to every chip of a twisted slice (breadth-first over the links), built with the link
  // table; empty for a plain slice. A twisted torus, like a plain one, is a Cayley graph of an abelian group, so
  // hops(a, b) = origin_hops()[b - a] (chip_difference, twist.hpp).
  const std::vector<std::int32_t>& origin_hops() const { return table().origin_hops; }

  // True when some cable or chip has failed: routes are then found by breadth-first search (failed_links.hpp).
  bool has_failures() const { return failures_ != nullptr; }
  // True when chip `chip` has failed (failed_chips.hpp): its links are failed and it runs nothing.
  bool chip_failed(ChipId chip) const;
  // The failed chips, increasing; empty when none failed.
  const std::vector<ChipId>& failed_chips() const;
  // The chips that have not failed.
  std::int64_t working_chips() const { return num_chips_ - static_cast<std::int64_t>(failed_chips().size()); }
  // The 4x4x4 cubes spares replaced (spare_cubes.hpp), increasing; the slice runs as if whole there.
  const std::vector<std::int64_t>& replaced_cubes() const { return replaced_cubes_; }
  // True when link `id` has failed (either direction of a failed cable).
  bool link_failed(LinkId id) const;
  // The failed links, both directions of every failed cable, in id order; empty when none failed.
  const std::vector<LinkId>& failed_links() const;
  // On a slice with failures: the fewest working links from every chip to `dst` (-1 when cut off), by breadth-first
  // search over the working links, built on first use for `dst` and shared by copies of the slice.
  const std::vector<std::int32_t>& hops_to(ChipId dst) const;

  // Coordinates of `chip`, dim 0 first. Throws VerifyError if the chip is not in the slice.
  std::vector<std::int64_t> coords_of(ChipId chip) const;
  // Coordinate of `chip` along `dim`.
  std::int64_t coord(ChipId chip, int dim) const;
  // Chip at `coords` (one per dim, each in [0, size)). Throws VerifyError otherwise.
  ChipId chip_at(const std::vector<std::int64_t>& coords) const;

  // The chip one hop from `chip` along `dim` in `dir`, or nullopt at the edge of a dim without wraparound.
  std::optional<ChipId> neighbour(ChipId chip, int dim, Direction dir) const;
  // Distinct neighbours of `chip`, in the order (dim, plus before minus).
  std::vector<ChipId> neighbours(ChipId chip) const;

  // The link table is built on first use (a capacity search plans thousands of slices without one) and shared by
  // copies of the slice.
  std::int64_t num_links() const { return static_cast<std::int64_t>(links().size()); }
  const std::vector<Link>& links() const { return table().links; }
  const Link& link(LinkId id) const;
  // The link leaving `chip` along `dim` in `dir`, or nullopt if there is none.
  std::optional<LinkId> find_link(ChipId chip, int dim, Direction dir) const;
  // As find_link, but throws VerifyError naming the chip, dim and direction when there is no such link.
  LinkId link_id(ChipId chip, int dim, Direction dir) const;

 private:
  void check_chip(ChipId chip) const;
  void check_dim(int dim) const;
  std::size_t slot(ChipId chip, int dim, Direction dir) const;
  // `landed`, the chip a wrap link of `dim` reaches on a plain torus, moved as a twisted torus moves it.
  ChipId twist_wrap(ChipId landed, int dim) const;
  std::vector<std::int32_t> origin_distances() const;

  struct LinkTable {
    std::once_flag built;
    std::vector<Link> links;
    std::vector<LinkId> slot;               // (chip * rank + dim) * 2 + dir -> link id, or -1
    std::vector<std::int32_t> origin_hops;  // BFS hops from chip 0
  };
  const LinkTable& table() const;

  struct Failures {
    std::vector<bool> failed;       // per link id
    std::vector<LinkId> ids;        // the failed link ids, in order
    std::vector<bool> chip_failed;  // per chip id
    std::vector<ChipId> chips;      // the failed chips, increasing
    std::mutex mutex;               // guards hops_to
    std::unordered_map<ChipId, std::vector<std::int32_t>> hops_to;
  };

  std::vector<std::int64_t> shape_;
  std::vector<bool> wrap_;
  std::vector<std::int64_t> stride_;
  std::int64_t num_chips_ = 0;
  std::int64_t twist_k_ = 0;  // the short size of a twisted torus; 0 when plain
  std::shared_ptr<LinkTable> table_ = std::make_shared<LinkTable>();
  std::shared_ptr<Failures> failures_;  // null when no link or chip failed
  std::vector<std::int64_t> replaced_cubes_;
};

// Letter of `dim` in link names: 'x', 'y', 'z'.
char dim_letter(int dim);

}  // namespace podsim
