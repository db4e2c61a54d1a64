// Slice construction (validation, strides, links) and the chip/link look-ups the router and the engine use.
#include "models/topology/slice.hpp"

#include <utility>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/topology/twist.hpp"

namespace podsim {
namespace {

constexpr std::int64_t kMaxChips = std::int64_t{1} << 31;

}  // namespace

std::string_view direction_sign(Direction dir) {
  return dir == Direction::plus ? "+" : "-";
}

std::optional<SliceShapeIssue> slice_shape_issue(const std::vector<std::int64_t>& shape) {
  using Rule = SliceShapeIssue::Rule;
  if (shape.empty() || shape.size() > 3) return SliceShapeIssue{Rule::rank, 0};
  std::int64_t chips = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1) return SliceShapeIssue{Rule::dim_size, d};
    if (shape[d] > kMaxSliceChips / chips) return SliceShapeIssue{Rule::chips, d};
    chips *= shape[d];
  }
  return std::nullopt;
}

char dim_letter(int dim) {
  static constexpr char kLetters[] = {'x', 'y', 'z'};
  if (dim < 0 || dim > 2) throw VerifyError("slice: dim must be 0, 1 or 2, got: " + std::to_string(dim));
  return kLetters[dim];
}

Slice::Slice(std::vector<std::int64_t> shape, WrapRule rule, const std::vector<std::int64_t>& pod_shape)
    : Slice(shape, wraparound_for(rule, shape, pod_shape)) {}

Slice::Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound)
    : shape_(std::move(shape)), wrap_(std::move(wraparound)) {
  if (shape_.empty() || shape_.size() > 3)
    throw VerifyError("slice: rank must be 1, 2 or 3, got: " + std::to_string(shape_.size()) + " (shape " +
                      format_dims(shape_) + ")");
  if (wrap_.size() != shape_.size())
    throw VerifyError("slice: wraparound needs one flag per dim, got: " + std::to_string(wrap_.size()) +
                      " flags for shape " + format_dims(shape_));
  num_chips_ = 1;
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] < 1)
      throw VerifyError("slice: dim " + std::to_string(d) + " size must be >= 1, got: " + format_dims(shape_));
    num_chips_ *= shape_[d];
    if (num_chips_ > kMaxChips) throw VerifyError("slice: at most 2^31 chips, got: shape " + format_dims(shape_));
    if (shape_[d] <= 2) wrap_[d] = false;  // the wrap link would duplicate the direct one
  }
  stride_.assign(shape_.size(), 1);
  for (int d = rank() - 2; d >= 0; --d)
    stride_[d] = stride_[d + 1] * shape_[d + 1];
}

Slice::Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound, bool twisted)
    : Slice(std::move(shape), std::move(wraparound)) {
  if (!twisted) return;
  if (const auto issue = twist_issue(shape_, wrap_, &twist_k_)) throw VerifyError(*issue + ", got: " + shape_string());
}

Slice::Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound, bool twisted,
             const std::vector<LinkId>& failed)
    : Slice(std::move(shape), std::move(wraparound), twisted, SliceFailures{failed, {}, {}}) {}

Slice::Slice(std::vector<std::int64_t> shape, std::vector<bool> wraparound, bool twisted, const SliceFailures& failures)
    : Slice(std::move(shape), std::move(wraparound), twisted) {
  replaced_cubes_ = failures.replaced_cubes;
  if (failures.links.empty() && failures.chips.empty()) return;
  auto state = std::make_shared<Failures>();
  state->failed.assign(static_cast<std::size_t>(num_links()), false);
  state->chip_failed.assign(static_cast<std::size_t>(num_chips_), false);
  const auto fail_cable = [&](LinkId id) {
    const Link& one = link(id);
    state->failed[static_cast<std::size_t>(id)] = true;
    // The cable's other direction: the link from its far end, the other way along the same dim, back to its start.
    const Direction back = one.dir == Direction::plus ? Direction::minus : Direction::plus;
    const std::optional<LinkId> reverse = find_link(one.dst, one.dim, back);
    if (!reverse || link(*reverse).dst != one.src)
      throw InternalError("slice " + shape_string() + ": link " + one.name + " has no link back along its cable");
    state->failed[static_cast<std::size_t>(*reverse)] = true;
  };
  for (const LinkId id : failures.links)
    fail_cable(id);
  for (const ChipId chip : failures.chips) {
    check_chip(chip);
    state->chip_failed[static_cast<std::size_t>(chip)] = true;
    for (int dim = 0; dim < rank(); ++dim)
      for (Direction dir : {Direction::plus, Direction::minus})
        if (const std::optional<LinkId> id = find_link(chip, dim, dir)) fail_cable(*id);
  }
  for (LinkId id = 0; id < num_links(); ++id)
    if (state->failed[static_cast<std::size_t>(id)]) state->ids.push_back(id);
  for (ChipId chip = 0; chip < num_chips_; ++chip)
    if (state->chip_failed[static_cast<std::size_t>(chip)]) state->chips.push_back(chip);
  failures_ = std::move(state);
}

bool Slice::chip_failed(ChipId chip) const {
  return failures_ && failures_->chip_failed.at(static_cast<std::size_t>(chip));
}

const std::vector<ChipId>& Slice::failed_chips() const {
  static const std::vector<ChipId> kNone;
  return failures_ ? failures_->chips : kNone;
}

bool Slice::link_failed(LinkId id) const {
  return failures_ && failures_->failed.at(static_cast<std::size_t>(id));
}

const std::vector<LinkId>& Slice::failed_links() const {
  static const std::vector<LinkId> kNone;
  return failures_ ? failures_->ids : kNone;
}

const std::vector<std::int32_t>& Slice::hops_to(ChipId dst) const {
  check_chip(dst);
  if (!failures_) throw InternalError("slice " + shape_string() + ": hops_to asked of a slice without failures");
  const std::lock_guard<std::mutex> lock(failures_->mutex);
  auto [it, added] = failures_->hops_to.try_emplace(dst);
  if (!added) return it->second;
  // Cables fail both ways, so the working links are symmetric: hops from `dst` are hops to it.
  std::vector<std::int32_t>& hops = it->second;
  hops.assign(static_cast<std::size_t>(num_chips_), -1);
  std::vector<ChipId> queue{dst};
  hops[static_cast<std::size_t>(dst)] = 0;
  const LinkTable& t = table();
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const ChipId at = queue[head];
    for (int dim = 0; dim < rank(); ++dim)
      for (Direction dir : {Direction::plus, Direction::minus}) {
        const LinkId id = t.slot[slot(at, dim, dir)];
        if (id < 0 || failures_->failed[static_cast<std::size_t>(id)]) continue;
        const ChipId next = t.links[static_cast<std::size_t>(id)].dst;
        if (hops[static_cast<std::size_t>(next)] >= 0) continue;
        hops[static_cast<std::size_t>(next)] = hops[static_cast<std::size_t>(at)] + 1;
        queue.push_back(next);
      }
  }
  return hops;
}

const Slice::LinkTable& Slice::table() const {
  std::call_once(table_->built, [this] {
    LinkTable& t = *table_;
    t.slot.assign(static_cast<std::size_t>(num_chips_ * rank() * 2), -1);
    for (ChipId chip = 0; chip < num_chips_; ++chip) {
      const std::vector<std::int64_t> coords = coords_of(chip);
      std::string where;
      for (std::int64_t c : coords) {
        where += '.';
        where += std::to_string(c);
      }
      for (int dim = 0; dim < rank(); ++dim) {
        for (Direction dir : {Direction::plus, Direction::minus}) {
          std::optional<ChipId> dst = neighbour(chip, dim, dir);
          if (!dst) continue;
          const auto id = static_cast<LinkId>(t.links.size());
          t.slot[slot(chip, dim, dir)] = id;
          t.links.push_back(Link{id, chip, *dst, dim, dir,
                                 std::string("ici.") + dim_letter(dim) + std::string(direction_sign(dir)) + where});
        }
      }
    }
    if (twisted()) t.origin_hops = origin_distances();
  });
  return *table_;
}

std::string Slice::shape_string() const {
  return format_dims(shape_);
}

void Slice::check_chip(ChipId chip) const {
  if (chip < 0 || chip >= num_chips_)
    throw VerifyError("slice " + shape_string() + ": chip id must be in [0, " + std::to_string(num_chips_) +
                      "), got: " + std::to_string(chip));
}

void Slice::check_dim(int dim) const {
  if (dim < 0 || dim >= rank())
    throw VerifyError("slice " + shape_string() + ": dim must be in [0, " + std::to_string(rank()) +
                      "), got: " + std::to_string(dim));
}

std::size_t Slice::slot(ChipId chip, int dim, Direction dir) const {
  return static_cast<std::size_t>((chip * rank() + dim) * 2 + static_cast<int>(dir));
}

std::vector<std::int64_t> Slice::coords_of(ChipId chip) const {
  check_chip(chip);
  std::vector<std::int64_t> coords(shape_.size());
  for (std::size_t d = 0; d < shape_.size(); ++d)
    coords[d] = (chip / stride_[d]) % shape_[d];
  return coords;
}

std::int64_t Slice::coord(ChipId chip, int dim) const {
  check_chip(chip);
  check_dim(dim);
  return (chip / stride_[dim]) % shape_[dim];
}

ChipId Slice::chip_at(const std::vector<std::int64_t>& coords) const {
  if (coords.size() != shape_.size())
    throw VerifyError("slice " + shape_string() + ": coordinates need " + std::to_string(rank()) +
                      " values, got: " + std::to_string(coords.size()));
  ChipId chip = 0;
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    if (coords[d] < 0 || coords[d] >= shape_[d])
      throw VerifyError("slice " + shape_string() + ": coordinate " + std::to_string(d) + " must be in [0, " +
                        std::to_string(shape_[d]) + "), got: " + std::to_string(coords[d]));
    chip += coords[d] * stride_[d];
  }
  return chip;
}

std::optional<ChipId> Slice::neighbour(ChipId chip, int dim, Direction dir) const {
  const std::int64_t c = coord(chip, dim);
  const std::int64_t n = shape_[dim];
  const std::int64_t step = stride_[dim];
  if (dir == Direction::plus) {
    if (c + 1 < n) return chip + step;
    if (wrap_[dim]) return twist_wrap(chip - (n - 1) * step, dim);
  } else {
    if (c > 0) return chip - step;
    if (wrap_[dim]) return twist_wrap(chip + (n - 1) * step, dim);
  }
  return std::nullopt;
}

ChipId Slice::twist_wrap(ChipId landed, int dim) const {
  if (!twisted() || shape_[dim] != twist_k_) return landed;
  // The wrap of a short dim lands k further along every long dim (2k chips, so k further either way round).
  for (int d = 0; d < rank(); ++d)
    if (shape_[d] == 2 * twist_k_) {
      const std::int64_t c = (landed / stride_[d]) % shape_[d];
      landed += (c < twist_k_ ? twist_k_ : -twist_k_) * stride_[d];
    }
  return landed;
}

std::vector<std::int32_t> Slice::origin_distances() const {
  std::vector<std::int32_t> hops(static_cast<std::size_t>(num_chips_), -1);
  std::vector<ChipId> queue{0};
  hops[0] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const ChipId at = queue[head];
    for (int dim = 0; dim < rank(); ++dim)
      for (Direction dir : {Direction::plus, Direction::minus})
        if (const std::optional<ChipId> next = neighbour(at, dim, dir); next && hops[*next] < 0) {
          hops[*next] = hops[at] + 1;
          queue.push_back(*next);
        }
  }
  return hops;
}

std::vector<ChipId> Slice::neighbours(ChipId chip) const {
  std::vector<ChipId> result;
  for (int dim = 0; dim < rank(); ++dim)
    for (Direction dir : {Direction::plus, Direction::minus})
      if (std::optional<ChipId> other = neighbour(chip, dim, dir)) {
        bool seen = false;
        for (ChipId known : result)
          seen = seen || known == *other;
        if (!seen) result.push_back(*other);
      }
  return result;
}

const Link& Slice::link(LinkId id) const {
  if (id < 0 || id >= num_links())
    throw VerifyError("slice " + shape_string() + ": link id must be in [0, " + std::to_string(num_links()) +
                      "), got: " + std::to_string(id));
  return links()[static_cast<std::size_t>(id)];
}

std::optional<LinkId> Slice::find_link(ChipId chip, int dim, Direction dir) const {
  check_chip(chip);
  check_dim(dim);
  const LinkId id = table().slot[slot(chip, dim, dir)];
  if (id < 0) return std::nullopt;
  return id;
}

LinkId Slice::link_id(ChipId chip, int dim, Direction dir) const {
  if (std::optional<LinkId> id = find_link(chip, dim, dir)) return *id;
  throw VerifyError("slice " + shape_string() + ": no link leaves chip " + std::to_string(chip) + " along dim " +
                    std::to_string(dim) + " in direction " + std::string(direction_sign(dir)) +
                    " (edge of a dim without wraparound)");
}

}  // namespace podsim
