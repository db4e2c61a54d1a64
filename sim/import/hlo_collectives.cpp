// Partitioned HLO's collectives (docs/import.md, "Partitioned HLO"): replica groups as the mesh axes of the slice's
// lines or planes, each collective as podsim's over those axes on a stand-in in the layout it needs, a
// collective-permute as sends; and the default slice on which every collective's groups are lines or planes.
#include <algorithm>
#include <charconv>
#include <iomanip>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "sim/import/hlo_builder.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/slice_placement.hpp"

namespace podsim::import {
namespace hlo_build {

// The mesh axes of a collective's replica groups, refused with the groups named when they are not lines or planes.
std::vector<std::string> Builder::axes_of(const HloInstruction& ins) {
  for (const auto& g : ins.replica_groups)
    for (const auto d : g)
      if (d < 0 || d >= devices_)
        fail_at(ins, "replica_groups",
                ins.opcode + " %" + ins.name + ": device " + std::to_string(d) + " is outside the module's " +
                    std::to_string(devices_) + " devices");
  const auto dims = slice_dims_of_groups(ins.replica_groups, slice_);
  if (!dims)
    fail_at(ins, "replica_groups",
            ins.opcode + " %" + ins.name + ": replica_groups " + groups_text(ins.replica_groups) +
                " are not lines or planes of the slice " + format_shape(slice_) +
                " (device id = chip id, row-major), so no mesh axes run it; give --slice");
  std::vector<std::string> axes;
  for (const int d : *dims)
    axes.emplace_back(kAxisNames[d]);
  return axes;
}

// A collective-permute: one send per pair from chip to chip of the operand's bytes, all after the operand's writers.
void Builder::collective_permute(const HloInstruction& ins, const HloShape& result) {
  const Value& in = operand(ins, 0);
  if (in.shape.tuple || result.tuple) fail(ins, ins.column, "collective-permute of a tuple is not read");
  const double bytes = bytes_of(ins, in.shape);
  Value v;
  v.shape = result;
  std::size_t k = 0;
  for (const auto& [from, to] : ins.source_target_pairs) {
    if (from < 0 || to < 0 || from >= devices_ || to >= devices_)
      fail_at(ins, "source_target_pairs",
              "collective-permute %" + ins.name + ": pair {" + std::to_string(from) + "," + std::to_string(to) +
                  "} names a device outside the module's " + std::to_string(devices_));
    if (from == to) continue;
    const std::string name = new_op(ins.name + "." + std::to_string(k++));
    ImportedOp send;
    send.kind = ImportedOpKind::send;
    send.name = name;
    send.from_chip = from;
    send.to_chip = to;
    send.bytes = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes + 0.5));
    push(std::move(send), in.deps);
    v.deps.push_back(name);
  }
  if (k == 0) v.deps = in.deps;
  if (ins.source_target_pairs.size() != k)
    note(ins, "pairs from a device to itself move nothing and are not simulated");
  values_[ins.name] = v;
}

void Builder::collective(const HloInstruction& ins) {
  const bool start = ins.opcode.size() > 6 && ins.opcode.compare(ins.opcode.size() - 6, 6, "-start") == 0;
  const std::string kind = start ? ins.opcode.substr(0, ins.opcode.size() - 6) : ins.opcode;
  if (ins.operands.empty()) fail(ins, ins.column, kind + " %" + ins.name + " has no operand");
  // The results, one per operand.
  std::vector<HloShape> results;
  HloShape out = ins.shape;
  if (start && (kind == "all-gather" || kind == "collective-permute")) {  // (operands, results[, contexts])
    if (!out.tuple || out.elements.size() < 2)
      fail(ins, ins.column, ins.opcode + " %" + ins.name + ": expected a tuple (operands, results) shape");
    out = out.elements[1];
  }
  if (out.tuple && ins.operands.size() > 1)
    results = out.elements;
  else
    results = {out};
  if (results.size() != ins.operands.size())
    fail(ins, ins.column,
         kind + " %" + ins.name + ": " + std::to_string(ins.operands.size()) + " operands but " +
             std::to_string(results.size()) + " results");
  Value result;
  if (results.size() > 1) result.shape = out;

  if (kind == "collective-permute") return collective_permute(ins, results[0]);

  const auto axes = axes_of(ins);
  const std::int64_t g =
      ins.replica_groups.empty() ? devices_ : static_cast<std::int64_t>(ins.replica_groups.front().size());
  std::int64_t dim = -1;
  if (kind != "all-reduce") {
    const auto d = collective_dim(ins);
    if (!d) fail_at(ins, "dimensions", kind + " %" + ins.name + ": expected dimensions={D}");
    dim = *d;
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Value& in = operand(ins, k);
    const HloShape& res = results[k];
    if (in.shape.tuple || res.tuple || in.shape.element != res.element)
      fail(ins, ins.column, kind + " %" + ins.name + ": operand and result must be arrays of one element type");
    const std::string name = new_op(results.size() > 1 ? ins.name + "." + std::to_string(k) : ins.name);
    Value v;
    v.shape = res;
    if (axes.empty()) {  // groups of one device: nothing moves
      if (in.shape.dims != res.dims)
        fail(ins, ins.column, kind + " %" + ins.name + ": shapes differ over groups of one device");
      v = in;
      if (k == 0) note(ins, "replica groups of one device each move nothing; the result is the operand");
      (results.size() > 1 ? result.elements.push_back(v) : (void)(result = v));
      continue;
    }
    if (dim >= static_cast<std::int64_t>(in.shape.dims.size()) || (dim < 0 && kind != "all-reduce"))
      fail_at(ins, "dimensions",
              kind + " %" + ins.name + ": dimension " + std::to_string(dim) + " is not a dim of " +
                  array_text(in.shape.element, in.shape.dims));
    const auto d = static_cast<std::size_t>(std::max<std::int64_t>(dim, 0));
    const std::string want = array_text(in.shape.element, in.shape.dims) + " -> " + array_text(res.element, res.dims);
    auto expect = [&](bool ok, const std::string& rule) {
      if (!ok)
        fail(ins, ins.column,
             kind + " %" + ins.name + " over groups of " + std::to_string(g) + ": " + rule + ", got: " + want);
    };
    std::vector<std::string> after = in.deps;
    v.deps = {name};
    ImportedOp op;
    op.name = name;
    op.out = new_tensor(name);
    op.axes = axes;
    if (kind == "all-gather") {
      auto gathered = in.shape.dims;
      gathered[d] = times(gathered[d], g);
      expect(gathered == res.dims, "the result is the operand with dim " + std::to_string(d) + " times the group size");
      const std::string view = dim_sharding(res.dims.size(), d, axes);
      const std::string source = !in.tensor.empty() && in.sharding == view && in.global == res.dims
                                     ? in.tensor
                                     : declare(ins, name + "_in", res, view, StandIn{in.held_by()});
      op.kind = ImportedOpKind::all_gather;
      op.lhs = source;
    } else if (kind == "all-reduce") {
      expect(in.shape.dims == res.dims, "the result has the operand's shape");
      const std::string standin =
          declare(ins, name + "_in", in.shape, unreduced_sharding(in.shape.dims.size(), axes), StandIn{in.held_by()});
      op.kind = ImportedOpKind::all_reduce;
      op.lhs = standin;
    } else if (kind == "reduce-scatter") {
      auto scattered = res.dims;
      scattered[d] = times(scattered[d], g);
      expect(scattered == in.shape.dims,
             "the result is the operand with dim " + std::to_string(d) + " divided by the group size");
      const std::string standin =
          declare(ins, name + "_in", in.shape, unreduced_sharding(in.shape.dims.size(), axes), StandIn{in.held_by()});
      op.kind = ImportedOpKind::reduce_scatter;
      op.lhs = standin;
      op.dim = static_cast<std::int64_t>(d);  // sharded: ops that need the replicated per-device view read a stand-in
      v.sharding = dim_sharding(in.shape.dims.size(), d, axes);
      v.global = in.shape.dims;
    } else {  // all-to-all, the array form: split and concatenate along one dim
      expect(in.shape.dims == res.dims && in.shape.dims[d] % g == 0,
             "the result has the operand's shape and dim " + std::to_string(d) + " divides by the group size");
      HloShape global = in.shape;
      global.dims[d] = times(global.dims[d], g);
      std::size_t to = global.dims.size();
      for (std::size_t e = 0; e < global.dims.size() && to == global.dims.size(); ++e)
        if (e != d && global.dims[e] % g == 0) to = e;
      if (to == global.dims.size())
        fail(ins, ins.column,
             "all-to-all %" + ins.name +
                 ": podsim's all-to-all moves the axes to another dim, and no "
                 "dim other than " +
                 std::to_string(d) + " of " + want + " divides by the group size " + std::to_string(g));
      const std::string standin =
          declare(ins, name + "_in", global, dim_sharding(global.dims.size(), d, axes), StandIn{in.held_by()});
      op.kind = ImportedOpKind::all_to_all;
      op.lhs = standin;
      op.dim = static_cast<std::int64_t>(d);
      op.to_dim = static_cast<std::int64_t>(to);
      v.sharding = dim_sharding(global.dims.size(), to, axes);
      v.global = global.dims;
      note(ins, "all-to-all along dim " + std::to_string(d) + " run as podsim's all-to-all of a stand-in " +
                    format_shape(global.dims) + " from dim " + std::to_string(d) + " to dim " + std::to_string(to) +
                    " (the same bytes per device; the result is that stand-in's layout)");
    }
    v.tensor = op.out;
    push(std::move(op), after);
    if (results.size() > 1)
      result.elements.push_back(v);
    else
      result = v;
  }
  if (results.size() > 1)
    note(ins, "a collective of " + std::to_string(results.size()) +
                  " operands runs as one podsim collective per operand, all after the same operands");
  values_[ins.name] = result;
}

}  // namespace hlo_build

std::int64_t hlo_device_count(const HloModule& module) {
  using namespace hlo_build;                            // the builder's helpers
  constexpr std::int64_t kCap = std::int64_t{1} << 20;  // larger ids are refused at their collective
  std::int64_t n = module.num_partitions * module.replica_count;
  if (n > 1) return n;
  for (const auto& c : module.computations)  // the ENTRY's and those its calls and loops read
    for (const auto& ins : c.instructions) {
      for (const auto& g : ins.replica_groups)
        for (const auto d : g)
          n = std::max(n, std::min(d, kCap) + 1);
      for (const auto& [from, to] : ins.source_target_pairs)
        n = std::max({n, std::min(from, kCap) + 1, std::min(to, kCap) + 1});
    }
  return n;
}

std::optional<std::vector<int>> slice_dims_of_groups(const std::vector<std::vector<std::int64_t>>& groups,
                                                     const std::vector<std::int64_t>& slice) {
  using namespace hlo_build;  // the builder's helpers
  const int rank = static_cast<int>(slice.size());
  std::int64_t n = 1;
  for (const auto d : slice)
    n *= d;
  std::vector<std::int64_t> stride(slice.size(), 1);
  for (int d = rank - 1; d > 0; --d)
    stride[d - 1] = stride[d] * slice[d];
  if (groups.empty()) {  // one group of all devices, row-major
    std::vector<int> all;
    for (int d = 0; d < rank; ++d)
      if (slice[d] > 1) all.push_back(d);
    return all;
  }
  const std::size_t size = groups.front().size();
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (const auto& g : groups) {
    if (g.size() != size) return std::nullopt;
    for (const auto d : g) {
      if (d < 0 || d >= n || seen[static_cast<std::size_t>(d)]) return std::nullopt;
      seen[static_cast<std::size_t>(d)] = 1;
    }
  }
  if (static_cast<std::int64_t>(size * groups.size()) != n) return std::nullopt;
  if (size == 1) return std::vector<int>{};
  for (int mask = 1; mask < (1 << rank); ++mask) {
    std::vector<int> dims;
    std::int64_t product = 1;
    for (int d = 0; d < rank; ++d)
      if (mask & (1 << d)) dims.push_back(d), product *= slice[d];
    if (product != static_cast<std::int64_t>(size) ||
        std::any_of(dims.begin(), dims.end(), [&](int d) { return slice[d] == 1; }))
      continue;
    do {
      bool ok = true;
      for (const auto& g : groups) {
        const std::int64_t base = g.front();
        for (const int d : dims)
          if ((base / stride[d]) % slice[d] != 0) ok = false;
        for (std::size_t j = 0; ok && j < size; ++j) {
          std::int64_t rest = static_cast<std::int64_t>(j), expect = base;
          for (std::size_t q = dims.size(); q-- > 0;) {
            expect += (rest % slice[dims[q]]) * stride[dims[q]];
            rest /= slice[dims[q]];
          }
          if (g[j] != expect) ok = false;
        }
        if (!ok) break;
      }
      if (ok) return dims;
    } while (std::next_permutation(dims.begin(), dims.end()));
  }
  return std::nullopt;
}

std::vector<std::int64_t> hlo_default_slice(const HloModule& module, const std::vector<std::int64_t>& pod_shape,
                                            const std::string& file, const std::string& where) {
  using namespace hlo_build;  // the builder's helpers
  const std::int64_t n = hlo_device_count(module);
  if (n > (std::int64_t{1} << 20))
    throw InputError(file, "the module runs on " + std::to_string(n) + " devices; podsim reads at most 2^20");
  const std::size_t rank = slice_rank(pod_shape, 3);
  std::vector<const HloInstruction*> collectives;
  for (const auto& c : module.computations)
    for (const auto& ins : c.instructions)
      if (is_collective(ins.opcode) && ins.opcode.rfind("collective-permute", 0) != 0) collectives.push_back(&ins);
  // Ordered factorisations of n into k factors >= 2 (n = 1: the one-chip slice).
  std::vector<std::vector<std::int64_t>> candidates;
  std::vector<std::int64_t> current;
  auto factor = [&](auto&& self, std::int64_t rest, std::size_t k) -> void {
    if (candidates.size() > 4096) return;
    if (current.size() + 1 == k) {
      if (rest >= 2 || (n == 1 && k == 1)) {
        current.push_back(rest);
        candidates.push_back(current);
        current.pop_back();
      }
      return;
    }
    for (std::int64_t f = 2; f * 2 <= rest; ++f)
      if (rest % f == 0) {
        current.push_back(f);
        self(self, rest / f, k);
        current.pop_back();
      }
  };
  for (std::size_t k = 1; k <= rank; ++k)
    factor(factor, n, k);
  std::vector<std::vector<std::int64_t>> fitting;
  for (auto shape : candidates)
    if (place_on_pod(shape, pod_shape, rank) == Placement::fits) fitting.push_back(shape);
  for (const auto& shape : fitting)
    if (std::all_of(collectives.begin(), collectives.end(), [&](const HloInstruction* c) {
          return slice_dims_of_groups(c->replica_groups, shape).has_value();
        }))
      return shape;
  for (const HloInstruction* c : collectives)  // a collective no slice can run: located at its groups
    if (std::none_of(fitting.begin(), fitting.end(),
                     [&](const auto& shape) { return slice_dims_of_groups(c->replica_groups, shape).has_value(); })) {
      const auto col = c->attribute_column.find("replica_groups");
      throw InputError(file + ":" + std::to_string(c->line) + ":" +
                           std::to_string(col == c->attribute_column.end() ? c->column : col->second),
                       c->opcode + " %" + c->name + ": replica_groups " + groups_text(c->replica_groups) +
                           " are not lines or planes of any slice of " + std::to_string(n) +
                           " chips that fits the generation's pod (device id = chip id, row-major)");
    }
  throw InputError(where, "no slice of the generation's pod holds the module's " + std::to_string(n) +
                              " devices with every collective's replica groups on lines or planes of it; give --slice");
}

}  // namespace podsim::import
