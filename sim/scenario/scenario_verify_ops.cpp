// The scenario verifier, the program: each op's name and explicit dependencies, the tensors it reads (defined
// before use) and writes, mesh axes and dims in range, and a matmul's einsum against its operands' shapes. Rules
// that depend on a plan's shardings are checked when the program is lowered.
#include <algorithm>
#include <map>

#include "models/hardware/missing_figure.hpp"
#include "sim/scenario/scenario_verify_detail.hpp"

namespace podsim::scenario_detail {
namespace {

// The alternative of OpDetail each kind carries.
bool detail_fits(const ScenarioOp& op) {
  switch (op.kind) {
    case OpKind::matmul:
      return std::holds_alternative<MatmulOp>(op.detail);
    case OpKind::all_gather:
    case OpKind::reduce_scatter:
    case OpKind::all_reduce:
    case OpKind::all_to_all:
      return std::holds_alternative<CollectiveOp>(op.detail);
    case OpKind::reshard:
      return std::holds_alternative<ReshardOp>(op.detail);
    case OpKind::load:
      return std::holds_alternative<LoadOp>(op.detail);
    case OpKind::send:
      return std::holds_alternative<SendOp>(op.detail);
    case OpKind::elementwise:
      return std::holds_alternative<ElementwiseOp>(op.detail);
  }
  return false;
}

class OpVerifier {
 public:
  OpVerifier(State& state, ScenarioOp& op) : state_(state), where_(state.where), p_(op.pointer), op_(op) {}

  void run() {
    op_.inputs.clear();
    switch (op_.kind) {
      case OpKind::matmul:
        return matmul(std::get<MatmulOp>(op_.detail));
      case OpKind::all_gather:
        return collective(std::get<CollectiveOp>(op_.detail), CollectiveKind::all_gather);
      case OpKind::reduce_scatter:
        return collective(std::get<CollectiveOp>(op_.detail), CollectiveKind::reduce_scatter);
      case OpKind::all_reduce:
        return collective(std::get<CollectiveOp>(op_.detail), CollectiveKind::all_reduce);
      case OpKind::all_to_all:
        return collective(std::get<CollectiveOp>(op_.detail), CollectiveKind::all_to_all);
      case OpKind::reshard:
        return reshard(std::get<ReshardOp>(op_.detail));
      case OpKind::load:
        return load(std::get<LoadOp>(op_.detail));
      case OpKind::send:
        return send(std::get<SendOp>(op_.detail));
      case OpKind::elementwise:
        return elementwise(std::get<ElementwiseOp>(op_.detail));
    }
  }

 private:
  // A tensor read by the op (at key `key`): defined in "tensors" or by an earlier op's out.
  const TensorInfo& use(const std::string& key, const std::string& name) {
    const auto it = state_.tensors.find(name);
    if (it == state_.tensors.end())
      where_.fail(p_ + "/" + key, "tensor is not defined before this op, got: " + quote(name) +
                                      " (declare it in \"tensors\" or write it as an earlier op's \"out\")");
    const std::string& view_of = it->second.view_of;
    if (!view_of.empty() && state_.tensors.count(view_of) == 0)
      where_.fail(p_ + "/" + key, "reads " + quote(name) + ", a view of " + quote(view_of) + ", before any op writes " +
                                      quote(view_of) + " (write it in an earlier op)");
    op_.inputs.push_back(name);
    return it->second;
  }

  void require_tensor_name(const std::string& name) {
    if (!is_tensor_name(name))
      where_.fail(p_ + "/out", "tensor names are identifiers [A-Za-z_][A-Za-z0-9_]*, got: " + quote(name));
  }

  // The tensor written: `out` if given (a new name, or `in_place` itself), else `in_place`.
  void out(const std::string& in_place, const Shape& shape, DType dtype) {
    if (op_.out.empty()) {
      op_.out = in_place;
    } else {
      require_tensor_name(op_.out);
      if (op_.out != in_place && state_.tensors.count(op_.out) != 0)
        where_.fail(p_ + "/out", "tensor is already defined, got: " + quote(op_.out) +
                                     " (write a new name, or the op's own input to update it in place)");
    }
    op_.out_shape = shape;
    op_.out_dtype = dtype;
  }

  // Load and send write no tensor.
  void no_out() {
    if (!op_.out.empty())
      where_.fail(p_ + "/out",
                  "a " + std::string(op_kind_name(op_.kind)) + " writes no tensor, got: " + quote(op_.out));
  }

  void axes(const std::vector<std::string>& names) {
    const std::string p = p_ + "/axes";
    if (names.empty()) where_.fail(p, "must list at least one mesh axis, got: []");
    const Mesh& mesh = state_.spec.mesh.mesh;
    std::vector<std::string> all;
    for (const auto& a : mesh.axes)
      all.push_back(a.name);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!mesh.axis_index(names[i]))
        where_.fail(child(p, i), "unknown mesh axis, got: " + quote(names[i]) + " (axes: " + quote_list(all) + ")");
      for (std::size_t k = 0; k < i; ++k)
        if (names[k] == names[i]) where_.fail(child(p, i), "axis listed twice, got: " + quote(names[i]));
    }
  }

  void dim(const std::string& key, int value, const std::string& tensor, const Shape& shape) {
    const std::string p = p_ + "/" + key;
    where_.require_at_least(p, value, 0);
    if (value >= static_cast<int>(shape.size()))
      where_.fail(p, "must be a dim of tensor " + quote(tensor) + " (rank " + std::to_string(shape.size()) +
                         "), got: " + std::to_string(value));
  }

  void matmul(MatmulOp& m) {
    const TensorInfo lhs = use("lhs", m.lhs);
    const TensorInfo rhs = use("rhs", m.rhs);
    const std::string p = p_ + "/einsum";
    try {
      m.einsum = parse_einsum(m.einsum_text);
    } catch (const Error& e) {
      where_.fail(p, e);
    }
    const auto check_rank = [&](const std::string& labels, const std::string& tensor, const Shape& shape,
                                const char* side) {
      if (labels.size() != shape.size())
        where_.fail(p, std::string("the ") + side + " operand has " + std::to_string(labels.size()) +
                           " labels but tensor " + quote(tensor) + " has rank " + std::to_string(shape.size()) +
                           ", got: " + quote(m.einsum_text));
    };
    check_rank(m.einsum.lhs, m.lhs, lhs.shape, "left");
    check_rank(m.einsum.rhs, m.rhs, rhs.shape, "right");
    std::map<char, std::pair<std::int64_t, std::string>> sizes;  // label -> size, where it was seen
    const auto bind = [&](const std::string& labels, const std::string& tensor, const Shape& shape) {
      for (std::size_t d = 0; d < labels.size(); ++d) {
        const std::string seen = quote(tensor) + " dim " + std::to_string(d);
        const auto [it, fresh] = sizes.emplace(labels[d], std::make_pair(shape[d], seen));
        if (!fresh && it->second.first != shape[d])
          where_.fail(p, std::string("label '") + labels[d] + "' has size " + std::to_string(it->second.first) +
                             " in " + it->second.second + " but " + std::to_string(shape[d]) + " in " + seen +
                             ", got: " + quote(m.einsum_text));
      }
    };
    bind(m.einsum.lhs, m.lhs, lhs.shape);
    bind(m.einsum.rhs, m.rhs, rhs.shape);
    Shape shape;
    for (const char c : m.einsum.out)
      shape.push_back(sizes.at(c).first);
    require_tensor_name(op_.out);
    if (state_.tensors.count(op_.out) != 0)
      where_.fail(p_ + "/out", "tensor is already defined, got: " + quote(op_.out) + " (a matmul writes a new tensor)");
    op_.out_shape = shape;
    op_.out_dtype = lhs.dtype;
    if (m.out_sharding) verify_sharding_text(state_, *m.out_sharding, p_ + "/out_sharding", op_.out, shape.size());
    if (m.compute_dtype) {
      try {
        state_.spec.hardware.spec.chip.peak_flops(*m.compute_dtype);
      } catch (const MissingFigureError& e) {
        where_.fail(p_ + "/compute_dtype", std::string(e.what()) +
                                               " (a scenario can add one under hardware overrides, " + e.figure() +
                                               "), got: " + quote(dtype_name(*m.compute_dtype)));
      }
    }
  }

  void collective(CollectiveOp& c, CollectiveKind kind) {
    c.kind = kind;
    const TensorInfo t = use("tensor", c.tensor);
    axes(c.axes);
    if (kind == CollectiveKind::reduce_scatter) dim("dim", c.dim, c.tensor, t.shape);
    if (kind == CollectiveKind::all_to_all) {
      dim("from_dim", c.from_dim, c.tensor, t.shape);
      dim("to_dim", c.to_dim, c.tensor, t.shape);
      if (c.from_dim == c.to_dim)
        where_.fail(p_ + "/to_dim", "must differ from \"from_dim\", got: " + std::to_string(c.to_dim));
    }
    out(c.tensor, t.shape, t.dtype);
  }

  void reshard(ReshardOp& r) {
    const TensorInfo t = use("tensor", r.tensor);
    out(r.tensor, t.shape, t.dtype);
    verify_sharding_text(state_, r.to, p_ + "/to", r.tensor, t.shape.size(), op_.out == r.tensor ? "" : op_.out);
  }

  void load(const LoadOp& l) {
    use("tensor", l.tensor);
    no_out();
  }

  void send(const SendOp& s) {
    const std::int64_t chips = static_cast<std::int64_t>(element_count(state_.spec.slice_shape));
    const auto chip = [&](const char* key, std::int64_t id) {
      const std::string p = p_ + "/" + key;
      where_.require_at_least(p, id, 0);
      if (id >= chips)
        where_.fail(p,
                    "must be a chip of the slice (0 to " + std::to_string(chips - 1) + "), got: " + std::to_string(id));
    };
    chip("from", s.from);
    chip("to", s.to);
    if (s.from == s.to) where_.fail(p_ + "/to", "must differ from \"from\", got: " + std::to_string(s.to));
    if (s.bytes && s.tensor) where_.fail(p_, "give either \"bytes\" or \"tensor\", got: both");
    if (!s.bytes && !s.tensor) where_.fail(p_, "missing key \"bytes\" or \"tensor\"");
    if (s.tensor) use("tensor", *s.tensor);
    if (s.bytes && *s.bytes == 0) where_.fail(p_ + "/bytes", "must be at least 1, got: 0");
    no_out();
  }

  void elementwise(const ElementwiseOp& e) {
    const TensorInfo t = use("tensor", e.tensor);
    if (!(e.flops_per_element >= 0))
      where_.fail(p_ + "/flops_per_element", "must not be negative, got: " + shown(e.flops_per_element));
    out(e.tensor, t.shape, t.dtype);
  }

  State& state_;
  const Where& where_;
  std::string p_;
  ScenarioOp& op_;
};

}  // namespace

void verify_program(State& state) {
  const Where& where = state.where;
  std::map<std::string, std::string> op_pointer;  // name -> pointer of the op that took it
  for (std::size_t i = 0; i < state.spec.program.size(); ++i) {
    ScenarioOp& op = state.spec.program[i];
    const std::string p = child("/program", i);
    op.pointer = p;
    const bool named = !op.name.empty();
    if (!named) {
      op.name = "op" + std::to_string(i);
    } else if (!is_op_name(op.name)) {
      where.fail(p + "/name", "op names are identifiers [A-Za-z_][A-Za-z0-9_.-]*, got: " + quote(op.name));
    }
    if (const auto it = op_pointer.find(op.name); it != op_pointer.end())
      where.fail(named ? p + "/name" : p, "op name is already used by " + it->second + ", got: " + quote(op.name));
    for (std::size_t k = 0; k < op.after.size(); ++k) {
      const std::string ap = child(p + "/after", k);
      if (op_pointer.count(op.after[k]) == 0) where.fail(ap, "must name an earlier op, got: " + quote(op.after[k]));
      const auto begin = op.after.begin(), here = begin + static_cast<std::ptrdiff_t>(k);
      if (std::find(begin, here, op.after[k]) != here) where.fail(ap, "op listed twice, got: " + quote(op.after[k]));
    }
    if (!detail_fits(op))
      where.fail(p, "the op's detail is not that of its kind, got: " + quote(op_kind_name(op.kind)));
    OpVerifier(state, op).run();
    if (!op.out.empty() && state.tensors.count(op.out) == 0)
      state.tensors[op.out] = {op.out_shape, op.out_dtype, false, ""};
    op_pointer[op.name] = p;
  }
}

}  // namespace podsim::scenario_detail
