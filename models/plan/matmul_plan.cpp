// The four sharded-matmul cases (docs/matmul-cases.md): batch dims made to agree, contracting dims gathered
// (case 2) or left as partial sums (case 3), an axis on a free dim of both operands gathered from one of them
// (case 4), then the result brought to the consumer's layout by plan_resharding.
#include "models/plan/matmul_plan.hpp"

#include <algorithm>
#include <string>

#include "models/common/enum_names.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/plan/natural_out_sharding.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/sharding_verify.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {
namespace {

using Axes = std::vector<AxisRef>;
using Operand = PlannedCollective::Operand;

constexpr EnumNames<Operand, 3> kOperands{"operand",
                                          {{{"lhs", Operand::lhs}, {"rhs", Operand::rhs}, {"out", Operand::out}}}};

std::string sharded_text(const Axes& axes) {
  return axes.empty() ? "unsharded" : "sharded over " + axes_text(axes);
}

std::string mesh_text(const TensorSharding& s) {
  return s.inline_mesh ? "an inline mesh " + print_shardy_mesh(*s.inline_mesh) : print_symbol_ref(s.mesh_name);
}

bool same_mesh(const TensorSharding& a, const TensorSharding& b) {
  return a.mesh_name == b.mesh_name && a.inline_mesh == b.inline_mesh;
}

std::size_t common_prefix(const Axes& a, const Axes& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  return i;
}

// verify_sharding on `mesh`, the message prefixed with `what`.
void verify_on(const TensorSharding& s, const Mesh& mesh, std::size_t rank, const std::string& what) {
  MeshTable table;
  if (!s.inline_mesh) table.add(s.mesh_name, mesh);
  try {
    verify_sharding(s, table, rank);
  } catch (const VerifyError& e) {
    throw VerifyError(what + ": " + e.what());
  }
  if (s.inline_mesh && !(*s.inline_mesh == mesh))
    throw VerifyError(what + ": its inline mesh is not the mesh of the plan, got: " +
                      print_shardy_mesh(*s.inline_mesh) + " (plan on " + print_shardy_mesh(mesh) + ")");
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) throw VerifyError(std::string(what) + " overflows 64 bits");
  return product;
}

// One operand as the planner reshapes its sharding.
struct OperandState {
  Operand tag;
  const std::string& labels;
  const std::vector<std::int64_t>& shape;
  TensorSharding s;

  std::string name() const { return std::string(operand_name(tag)); }
  std::size_t index(char label) const { return labels.find(label); }
  Axes& axes(char label) { return s.dims[index(label)].axes; }
  bool is_free(const AxisRef& ref, const Mesh& mesh) const {
    for (const auto& dim : s.dims)
      for (const auto& a : dim.axes)
        if (overlaps(a, ref, mesh)) return false;
    return true;
  }
};

class Planner {
 public:
  Planner(const Einsum& einsum, const std::vector<std::int64_t>& lhs_shape, const TensorSharding& lhs,
          const std::vector<std::int64_t>& rhs_shape, const TensorSharding& rhs, DType dtype, const Mesh& mesh,
          const std::optional<TensorSharding>& required)
      : einsum_(einsum),
        lhs_{Operand::lhs, einsum.lhs, lhs_shape, lhs},
        rhs_{Operand::rhs, einsum.rhs, rhs_shape, rhs},
        dtype_(dtype),
        mesh_(mesh),
        required_(required) {}

  MatmulPlan run() {
    validate();
    for (const char label : einsum_.lhs)
      if (einsum_.role(label) == LabelRole::batch) agree_batch(label);
    for (const char label : einsum_.lhs)
      if (einsum_.role(label) == LabelRole::contracting) agree_contracting(label);
    while (resolve_shared_axis()) {
    }
    build_local_out();
    reach_required();
    measure();
    verify_result();
    return std::move(plan_);
  }

 private:
  void validate() {
    if (!same_mesh(lhs_.s, rhs_.s))
      throw VerifyError("matmul operands must be on one mesh, got: lhs on " + mesh_text(lhs_.s) + " and rhs on " +
                        mesh_text(rhs_.s));
    for (const OperandState* op : {&lhs_, &rhs_}) {
      if (op->shape.size() != op->labels.size())
        throw VerifyError(op->name() + " shape has " + std::to_string(op->shape.size()) +
                          " dims but its subscripts \"" + op->labels + "\" name " + std::to_string(op->labels.size()) +
                          ", got: " + format_shape(op->shape));
      for (std::size_t i = 0; i < op->shape.size(); ++i)
        if (op->shape[i] < 0)
          throw VerifyError(op->name() + " shape: dim " + std::to_string(i) +
                            " has a negative size, got: " + std::to_string(op->shape[i]));
      verify_on(op->s, mesh_, op->shape.size(), op->name() + " sharding");
      if (!op->s.unreduced.empty())
        throw VerifyError("matmul operands must not hold partial sums, reduce " + op->name() +
                          " first, got: " + op->name() + " unreduced " + axes_text(op->s.unreduced));
    }
    for (const char label : einsum_.lhs) {
      if (einsum_.rhs.find(label) == std::string::npos) continue;
      const std::int64_t a = lhs_.shape[lhs_.index(label)];
      const std::int64_t b = rhs_.shape[rhs_.index(label)];
      if (a != b)
        throw VerifyError(std::string("label '") + label + "' must have one size in both operands, got: " +
                          std::to_string(a) + " in lhs and " + std::to_string(b) + " in rhs");
    }
    for (const char label : einsum_.out)
      plan_.out_shape.push_back(einsum_.lhs.find(label) != std::string::npos ? lhs_.shape[lhs_.index(label)]
                                                                             : rhs_.shape[rhs_.index(label)]);
    if (required_) {
      if (!same_mesh(*required_, lhs_.s))
        throw VerifyError("the required output must be on the operands' mesh, got: " + mesh_text(*required_) +
                          " (operands on " + mesh_text(lhs_.s) + ")");
      verify_on(*required_, mesh_, einsum_.out.size(), "required output sharding");
    }
  }

  void raise_case(int c) { plan_.matmul_case = std::max(plan_.matmul_case, c); }

  std::uint64_t bytes(const OperandState& op) const {
    return compute_layout(op.shape, dtype_, op.s, mesh_).bytes_per_device;
  }

  // Gathers the axes of `label` from position `start` on (a suffix: the minor axes).
  void gather(OperandState& op, char label, std::size_t start, std::string reason) {
    PlannedCollective c;
    c.kind = CollectiveKind::all_gather;
    c.operand = op.tag;
    c.dim = static_cast<int>(op.index(label));
    c.before = op.s;
    Axes& axes = op.axes(label);
    c.axes.assign(axes.begin() + static_cast<std::ptrdiff_t>(start), axes.end());
    axes.resize(start);
    c.after = op.s;
    c.group_size = static_cast<std::uint64_t>(product_of_sizes(c.axes, mesh_));
    c.array_bytes = bytes(op);
    c.reason = std::move(reason);
    plan_.before.push_back(std::move(c));
  }

  // Rule 3: a batch dim sharded differently. A free local slice when one operand is a prefix of the other
  // and the extra axes are unused in it; otherwise both gather down to their common prefix.
  void agree_batch(char label) {
    const Axes la = lhs_.axes(label);
    const Axes ra = rhs_.axes(label);
    if (la == ra) return;
    const std::size_t p = common_prefix(la, ra);
    const std::string what =
        std::string("batch dim ") + label + " is " + sharded_text(la) + " in lhs but " + sharded_text(ra) + " in rhs: ";
    for (auto [narrow, wide] : {std::pair{&lhs_, &rhs_}, std::pair{&rhs_, &lhs_}}) {
      const Axes& n = narrow->axes(label);
      const Axes& w = wide->axes(label);
      if (n.size() != p) continue;
      const Axes extra(w.begin() + static_cast<std::ptrdiff_t>(p), w.end());
      if (!std::all_of(extra.begin(), extra.end(),
                       [&, side = narrow](const AxisRef& a) { return side->is_free(a, mesh_); }))
        continue;
      for (const auto& a : extra) {
        auto& r = narrow->s.replicated;
        r.erase(std::remove_if(r.begin(), r.end(), [&](const AxisRef& x) { return overlaps(x, a, mesh_); }), r.end());
      }
      narrow->axes(label) = w;
      plan_.notes.push_back(what + narrow->name() + " slices its local block over " + axes_text(extra) +
                            " (no communication)");
      return;
    }
    const std::string keep = p > 0 ? "; both keep " + axes_text(Axes(la.begin(), la.begin() + p)) : "";
    for (OperandState* op : {&lhs_, &rhs_}) {
      const Axes& axes = op->axes(label);
      if (axes.size() == p) continue;
      gather(*op, label, p,
             what + "all-gather " + op->name() + " over " +
                 axes_text(Axes(axes.begin() + static_cast<std::ptrdiff_t>(p), axes.end())) + " on dim " + label +
                 keep);
    }
  }

  // Rules 1 and 2: the common prefix of the two axis lists stays (partial sums, case 3); the rest of each
  // list is gathered first (case 2).
  void agree_contracting(char label) {
    const Axes la = lhs_.axes(label);
    const Axes ra = rhs_.axes(label);
    if (la == ra) return;
    const std::size_t p = common_prefix(la, ra);
    for (auto [op, other] : {std::pair{&lhs_, &rhs_}, std::pair{&rhs_, &lhs_}}) {
      const Axes& axes = op->axes(label);
      if (axes.size() == p) continue;
      const Axes& other_axes = op == &lhs_ ? ra : la;  // as the operands came, before either gather
      const std::string gathered = axes_text(Axes(axes.begin() + static_cast<std::ptrdiff_t>(p), axes.end()));
      std::string reason;
      if (other_axes.empty()) {
        reason = std::string("case 2: contracting dim ") + label + " of " + op->name() + " is sharded over " +
                 axes_text(axes) + " but " + other->name() + "'s is not: all-gather " + op->name() + " over " +
                 gathered;
      } else {
        reason = std::string("case 2: contracting dim ") + label + " is sharded over " + axes_text(la) +
                 " in lhs but over " + axes_text(ra) + " in rhs: all-gather " + op->name() + " over " + gathered;
        if (p > 0) reason += "; both keep " + axes_text(Axes(la.begin(), la.begin() + p)) + " (case 3)";
      }
      gather(*op, label, p, std::move(reason));
      raise_case(2);
    }
  }

  // Does the required output shard `label` over an axis overlapping `ref`?
  bool required_keeps(char label, const AxisRef& ref) const {
    if (!required_) return false;
    const auto& axes = required_->dims[einsum_.out.find(label)].axes;
    return std::any_of(axes.begin(), axes.end(), [&](const AxisRef& a) { return overlaps(a, ref, mesh_); });
  }

  // Rule 4 (case 4): one axis on a free dim of each operand. Returns whether it gathered.
  bool resolve_shared_axis() {
    for (const char i : einsum_.lhs) {
      if (einsum_.role(i) != LabelRole::lhs_free) continue;
      const Axes& ia = lhs_.axes(i);
      for (std::size_t x = 0; x < ia.size(); ++x) {
        for (const char k : einsum_.rhs) {
          if (einsum_.role(k) != LabelRole::rhs_free) continue;
          const Axes& ka = rhs_.axes(k);
          for (std::size_t y = 0; y < ka.size(); ++y) {
            if (!overlaps(ia[x], ka[y], mesh_)) continue;
            gather_shared(i, x, k, y);
            return true;
          }
        }
      }
    }
    return false;
  }

  void gather_shared(char i, std::size_t x, char k, std::size_t y) {
    const AxisRef axis = lhs_.axes(i)[x];
    std::string head = "case 4: axis " + axes_text({axis}) + " shards lhs dim " + i + " and rhs dim " + k +
                       ", and the output cannot use it twice: all-gather ";
    bool gather_lhs = false;
    std::string why;
    if (required_keeps(i, axis)) {
      why = std::string("the required output keeps ") + axes_text({axis}) + " on " + i;
    } else if (required_keeps(k, rhs_.axes(k)[y])) {
      gather_lhs = true;
      why = std::string("the required output keeps ") + axes_text({rhs_.axes(k)[y]}) + " on " + k;
    } else {
      OperandState lhs_try = lhs_;
      lhs_try.axes(i).resize(x);
      OperandState rhs_try = rhs_;
      rhs_try.axes(k).resize(y);
      const std::uint64_t v_lhs = bytes(lhs_try);
      const std::uint64_t v_rhs = bytes(rhs_try);
      gather_lhs = v_lhs < v_rhs;
      why = v_lhs == v_rhs ? "both gathers move V = " + std::to_string(v_lhs) + " bytes per device; rhs is gathered"
                           : std::string(gather_lhs ? "lhs" : "rhs") +
                                 " moves fewer bytes: V = " + std::to_string(std::min(v_lhs, v_rhs)) + " against " +
                                 std::to_string(std::max(v_lhs, v_rhs)) + " bytes per device";
    }
    OperandState& op = gather_lhs ? lhs_ : rhs_;
    const char label = gather_lhs ? i : k;
    const std::size_t start = gather_lhs ? x : y;
    const Axes& axes = op.axes(label);
    gather(op, label, start,
           head + op.name() + " over " +
               axes_text(Axes(axes.begin() + static_cast<std::ptrdiff_t>(start), axes.end())) + " on dim " + label +
               "; " + why);
    raise_case(4);
  }

  // Rule 1: the contracting axes both operands keep become unreduced axes of the local product.
  void build_local_out() {
    plan_.lhs = lhs_.s;
    plan_.rhs = rhs_.s;
    // The operands agree on batch dims and share no axis by now, so the natural rule takes each dim's axes whole.
    TensorSharding& out = plan_.local_out;
    out = natural_out_sharding(einsum_, lhs_.s, rhs_.s, mesh_);
    Axes unreduced;
    for (const char label : einsum_.lhs)
      if (einsum_.role(label) == LabelRole::contracting)
        for (const auto& a : lhs_.axes(label))
          unreduced.push_back(a);
    out.unreduced = sort_and_merge_axes(std::move(unreduced), mesh_);
    if (!out.unreduced.empty()) raise_case(3);
  }

  // Rule 5, with the default target: the local product's own dims, partial sums all-reduced.
  void reach_required() {
    TensorSharding target;
    if (required_) {
      target = *required_;
    } else {
      target = plan_.local_out;
      target.unreduced.clear();
    }
    for (const auto& a : target.unreduced)
      if (std::find(plan_.local_out.unreduced.begin(), plan_.local_out.unreduced.end(), a) ==
          plan_.local_out.unreduced.end())
        throw VerifyError(
            "required output cannot be reached: axis " + axes_text({a}) +
            " is unreduced in it but the local matmul leaves no partial sums over it, got: local output "
            "unreduced " +
            (plan_.local_out.unreduced.empty() ? std::string("none") : axes_text(plan_.local_out.unreduced)));
    plan_.after = plan_resharding(plan_.out_shape, plan_.local_out, target, dtype_, mesh_, Operand::out, einsum_.out,
                                  &plan_.notes);
    for (auto& c : plan_.after)
      if (c.kind == CollectiveKind::reduce_scatter || c.kind == CollectiveKind::all_reduce)
        c.reason = "case 3: " + c.reason;
    plan_.out = target;
  }

  void measure() {
    plan_.local_lhs_shape = compute_layout(lhs_.shape, dtype_, plan_.lhs, mesh_).local_shape;
    plan_.local_rhs_shape = compute_layout(rhs_.shape, dtype_, plan_.rhs, mesh_).local_shape;
    plan_.local_out_shape = compute_layout(plan_.out_shape, dtype_, plan_.local_out, mesh_).local_shape;
    std::uint64_t m = 1, k = 1, n = 1, batch = 1;
    double flops = 2;
    for (const char label : einsum_.labels()) {
      const bool in_lhs = einsum_.lhs.find(label) != std::string::npos;
      const auto local = static_cast<std::uint64_t>(in_lhs ? plan_.local_lhs_shape[lhs_.index(label)]
                                                           : plan_.local_rhs_shape[rhs_.index(label)]);
      flops *= static_cast<double>(local);
      switch (einsum_.role(label)) {
        case LabelRole::batch:
          batch = checked_mul(batch, local, "local gemm batch");
          m = checked_mul(m, local, "local gemm size m");
          break;
        case LabelRole::lhs_free:
          m = checked_mul(m, local, "local gemm size m");
          break;
        case LabelRole::contracting:
          k = checked_mul(k, local, "local gemm size k");
          break;
        case LabelRole::rhs_free:
          n = checked_mul(n, local, "local gemm size n");
          break;
      }
    }
    plan_.local_flops = flops;
    plan_.m = m;
    plan_.k = k;
    plan_.n = n;
    plan_.batch = batch;
  }

  // Rule 6: every sharding the plan names verifies; a failure here is a planner bug.
  void verify_result() const {
    auto check = [&](const TensorSharding& s, std::size_t rank, const std::string& what) {
      try {
        verify_on(s, mesh_, rank, what);
      } catch (const VerifyError& e) {
        throw VerifyError(std::string("internal: ") + e.what());
      }
    };
    check(plan_.lhs, einsum_.lhs.size(), "planned lhs");
    check(plan_.rhs, einsum_.rhs.size(), "planned rhs");
    check(plan_.local_out, einsum_.out.size(), "local output");
    for (const auto* list : {&plan_.before, &plan_.after})
      for (const auto& c : *list) {
        const std::size_t rank = c.operand == Operand::lhs   ? einsum_.lhs.size()
                                 : c.operand == Operand::rhs ? einsum_.rhs.size()
                                                             : einsum_.out.size();
        check(c.before, rank, "sharding before a planned collective");
        check(c.after, rank, "sharding after a planned collective");
      }
  }

  const Einsum& einsum_;
  OperandState lhs_, rhs_;
  DType dtype_;
  const Mesh& mesh_;
  const std::optional<TensorSharding>& required_;
  MatmulPlan plan_;
};

}  // namespace

std::string_view operand_name(PlannedCollective::Operand operand) {
  return kOperands.name(operand);
}

std::string axes_text(const std::vector<AxisRef>& axes) {
  const bool short_names =
      std::all_of(axes.begin(), axes.end(), [](const AxisRef& a) { return !a.is_sub_axis() && a.name.size() == 1; });
  std::string text;
  for (const auto& a : axes) {
    if (!short_names && !text.empty()) text += ",";
    text += a.is_sub_axis() ? to_string(a) : a.name;
  }
  return short_names ? text : "{" + text + "}";
}

MatmulPlan plan_matmul(const Einsum& einsum, const std::vector<std::int64_t>& lhs_shape, const TensorSharding& lhs,
                       const std::vector<std::int64_t>& rhs_shape, const TensorSharding& rhs, DType dtype,
                       const Mesh& mesh, const std::optional<TensorSharding>& required_out) {
  return Planner(einsum, lhs_shape, lhs, rhs_shape, rhs, dtype, mesh, required_out).run();
}

}  // namespace podsim
