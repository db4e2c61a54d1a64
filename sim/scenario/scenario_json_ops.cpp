// Scenario loader, the program: each op's kind and keys, its name and explicit dependencies, the tensors it
// reads (defined before use) and writes, mesh axes and dims in range, and a matmul's einsum against its
// operands' shapes. Rules that depend on a plan's shardings are checked when the program is lowered.
#include <algorithm>
#include <map>

#include "models/common/units.hpp"
#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim::scenario_detail {
namespace {

std::vector<std::string> keys_of(OpKind kind) {
  std::vector<std::string> keys = {"op", "name", "after"};
  switch (kind) {
    case OpKind::matmul:
      keys.insert(keys.end(), {"lhs", "rhs", "einsum", "out", "out_sharding"});
      break;
    case OpKind::all_gather:
    case OpKind::all_reduce:
      keys.insert(keys.end(), {"tensor", "axes", "out"});
      break;
    case OpKind::reduce_scatter:
      keys.insert(keys.end(), {"tensor", "axes", "dim", "out"});
      break;
    case OpKind::all_to_all:
      keys.insert(keys.end(), {"tensor", "axes", "from_dim", "to_dim", "out"});
      break;
    case OpKind::reshard:
      keys.insert(keys.end(), {"tensor", "to", "out"});
      break;
    case OpKind::load:
      keys.insert(keys.end(), {"tensor"});
      break;
    case OpKind::send:
      keys.insert(keys.end(), {"from", "to", "bytes", "tensor"});
      break;
    case OpKind::elementwise:
      keys.insert(keys.end(), {"tensor", "flops_per_element", "out"});
      break;
  }
  return keys;
}

std::vector<std::string> required_of(OpKind kind) {
  switch (kind) {
    case OpKind::matmul:
      return {"lhs", "rhs", "einsum", "out"};
    case OpKind::all_gather:
    case OpKind::all_reduce:
      return {"tensor", "axes"};
    case OpKind::reduce_scatter:
      return {"tensor", "axes", "dim"};
    case OpKind::all_to_all:
      return {"tensor", "axes", "from_dim", "to_dim"};
    case OpKind::reshard:
      return {"tensor", "to"};
    case OpKind::load:
    case OpKind::elementwise:
      return {"tensor"};
    case OpKind::send:
      return {"from", "to"};
  }
  return {};
}

class OpVerifier {
 public:
  OpVerifier(State& state, const Json& j, const std::string& pointer, ScenarioOp& op)
      : state_(state), ctx_(state.ctx), j_(j), p_(pointer), op_(op) {}

  // A tensor read by the op: defined in "tensors" or by an earlier op's out.
  const TensorInfo& use(const std::string& key) {
    const std::string name = get_string(ctx_, j_.at(key), p_ + "/" + key);
    const auto it = state_.tensors.find(name);
    if (it == state_.tensors.end())
      ctx_.fail(p_ + "/" + key, "tensor is not defined before this op, got: \"" + name +
                                    "\" (declare it in \"tensors\" or write it as an earlier op's \"out\")");
    op_.inputs.push_back(name);
    return it->second;
  }

  // The tensor written: "out" if given (a new name, or `in_place` itself), else `in_place`.
  void out(const std::string& in_place, const Shape& shape, DType dtype) {
    op_.out = in_place;
    if (j_.contains("out")) {
      const std::string p = p_ + "/out";
      op_.out = get_string(ctx_, j_.at("out"), p);
      if (!is_tensor_name(op_.out))
        ctx_.fail(p, "tensor names are identifiers [A-Za-z_][A-Za-z0-9_]*, got: " + show(j_.at("out")));
      if (op_.out != in_place && state_.tensors.count(op_.out) != 0)
        ctx_.fail(p, "tensor is already defined, got: \"" + op_.out +
                         "\" (write a new name, or the op's own input to update it in place)");
    }
    op_.out_shape = shape;
    op_.out_dtype = dtype;
  }

  std::vector<std::string> axes() {
    const std::string p = p_ + "/axes";
    const auto names = get_string_array(ctx_, j_.at("axes"), p);
    if (names.empty()) ctx_.fail(p, "must list at least one mesh axis, got: []");
    const Mesh& mesh = state_.spec.mesh.mesh;
    std::vector<std::string> all;
    for (const auto& a : mesh.axes)
      all.push_back(a.name);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!mesh.axis_index(names[i]))
        ctx_.fail(child(p, i), "unknown mesh axis, got: \"" + names[i] + "\" (axes: " + quoted_list(all) + ")");
      for (std::size_t k = 0; k < i; ++k)
        if (names[k] == names[i]) ctx_.fail(child(p, i), "axis listed twice, got: \"" + names[i] + "\"");
    }
    return names;
  }

  int dim(const std::string& key, const std::string& tensor, const Shape& shape) {
    const std::string p = p_ + "/" + key;
    const auto d = get_int(ctx_, j_.at(key), p, 0);
    if (d >= static_cast<std::int64_t>(shape.size()))
      ctx_.fail(p, "must be a dim of tensor \"" + tensor + "\" (rank " + std::to_string(shape.size()) +
                       "), got: " + show(j_.at(key)));
    return static_cast<int>(d);
  }

  void matmul() {
    MatmulOp m;
    const TensorInfo lhs = use("lhs");
    const TensorInfo rhs = use("rhs");
    m.lhs = op_.inputs[0];
    m.rhs = op_.inputs[1];
    const std::string p = p_ + "/einsum";
    m.einsum_text = get_string(ctx_, j_.at("einsum"), p);
    try {
      m.einsum = parse_einsum(m.einsum_text);
    } catch (const Error& e) {
      ctx_.fail(p, e);
    }
    const auto check_rank = [&](const std::string& labels, const std::string& tensor, const Shape& shape,
                                const char* side) {
      if (labels.size() != shape.size())
        ctx_.fail(p, std::string("the ") + side + " operand has " + std::to_string(labels.size()) +
                         " labels but tensor \"" + tensor + "\" has rank " + std::to_string(shape.size()) +
                         ", got: \"" + m.einsum_text + "\"");
    };
    check_rank(m.einsum.lhs, m.lhs, lhs.shape, "left");
    check_rank(m.einsum.rhs, m.rhs, rhs.shape, "right");
    std::map<char, std::pair<std::int64_t, std::string>> sizes;  // label -> size, where it was seen
    const auto bind = [&](const std::string& labels, const std::string& tensor, const Shape& shape) {
      for (std::size_t d = 0; d < labels.size(); ++d) {
        const std::string seen = "\"" + tensor + "\" dim " + std::to_string(d);
        const auto [it, fresh] = sizes.emplace(labels[d], std::make_pair(shape[d], seen));
        if (!fresh && it->second.first != shape[d])
          ctx_.fail(p, std::string("label '") + labels[d] + "' has size " + std::to_string(it->second.first) + " in " +
                           it->second.second + " but " + std::to_string(shape[d]) + " in " + seen + ", got: \"" +
                           m.einsum_text + "\"");
      }
    };
    bind(m.einsum.lhs, m.lhs, lhs.shape);
    bind(m.einsum.rhs, m.rhs, rhs.shape);
    Shape shape;
    for (const char c : m.einsum.out)
      shape.push_back(sizes.at(c).first);
    const std::string out_p = p_ + "/out";
    op_.out = get_string(ctx_, j_.at("out"), out_p);
    if (!is_tensor_name(op_.out))
      ctx_.fail(out_p, "tensor names are identifiers [A-Za-z_][A-Za-z0-9_]*, got: " + show(j_.at("out")));
    if (state_.tensors.count(op_.out) != 0)
      ctx_.fail(out_p, "tensor is already defined, got: \"" + op_.out + "\" (a matmul writes a new tensor)");
    op_.out_shape = shape;
    op_.out_dtype = lhs.dtype;
    if (j_.contains("out_sharding"))
      m.out_sharding = verify_sharding_text(state_, j_.at("out_sharding"), p_ + "/out_sharding", op_.out, shape.size());
    op_.detail = std::move(m);
  }

  void collective(CollectiveKind kind) {
    CollectiveOp c;
    c.kind = kind;
    const TensorInfo t = use("tensor");
    c.tensor = op_.inputs[0];
    c.axes = axes();
    if (kind == CollectiveKind::reduce_scatter) c.dim = dim("dim", c.tensor, t.shape);
    if (kind == CollectiveKind::all_to_all) {
      c.from_dim = dim("from_dim", c.tensor, t.shape);
      c.to_dim = dim("to_dim", c.tensor, t.shape);
      if (c.from_dim == c.to_dim)
        ctx_.fail(p_ + "/to_dim", "must differ from \"from_dim\", got: " + show(j_.at("to_dim")));
    }
    out(c.tensor, t.shape, t.dtype);
    op_.detail = std::move(c);
  }

  void reshard() {
    ReshardOp r;
    const TensorInfo t = use("tensor");
    r.tensor = op_.inputs[0];
    out(r.tensor, t.shape, t.dtype);
    r.to = verify_sharding_text(state_, j_.at("to"), p_ + "/to", r.tensor, t.shape.size(),
                                op_.out == r.tensor ? "" : op_.out);
    op_.detail = std::move(r);
  }

  void load() {
    use("tensor");
    op_.detail = LoadOp{op_.inputs[0]};
  }

  void send() {
    SendOp s;
    std::int64_t chips = 1;
    for (const auto d : state_.spec.slice_shape)
      chips *= d;
    const auto chip = [&](const char* key) {
      const std::string p = p_ + "/" + key;
      const auto id = get_int(ctx_, j_.at(key), p, 0);
      if (id >= chips)
        ctx_.fail(p, "must be a chip of the slice (0 to " + std::to_string(chips - 1) + "), got: " + show(j_.at(key)));
      return id;
    };
    s.from = chip("from");
    s.to = chip("to");
    if (s.from == s.to) ctx_.fail(p_ + "/to", "must differ from \"from\", got: " + show(j_.at("to")));
    const bool has_bytes = j_.contains("bytes"), has_tensor = j_.contains("tensor");
    if (has_bytes && has_tensor) ctx_.fail(p_, "give either \"bytes\" or \"tensor\", got: both");
    if (!has_bytes && !has_tensor) ctx_.fail(p_, "missing key \"bytes\" or \"tensor\"");
    if (has_tensor) {
      use("tensor");
      s.tensor = op_.inputs[0];
    } else {
      const std::string p = p_ + "/bytes";
      const Json& b = j_.at("bytes");
      if (b.is_string()) {
        try {
          s.bytes = parse_bytes(b.get<std::string>());
        } catch (const Error& e) {
          ctx_.fail(p, e);
        }
        if (*s.bytes == 0) ctx_.fail(p, "must be at least 1, got: " + show(b));
      } else if (b.is_number()) {
        s.bytes = static_cast<std::uint64_t>(get_int(ctx_, b, p, 1));
      } else {
        ctx_.fail(p, "must be a byte count (a number or a string with a unit), got: " + show(b));
      }
    }
    op_.detail = std::move(s);
  }

  void elementwise() {
    ElementwiseOp e;
    const TensorInfo t = use("tensor");
    e.tensor = op_.inputs[0];
    if (j_.contains("flops_per_element")) {
      const std::string p = p_ + "/flops_per_element";
      e.flops_per_element = get_number(ctx_, j_.at("flops_per_element"), p);
      if (!(e.flops_per_element >= 0)) ctx_.fail(p, "must not be negative, got: " + show(j_.at("flops_per_element")));
    }
    out(e.tensor, t.shape, t.dtype);
    op_.detail = std::move(e);
  }

 private:
  State& state_;
  const Ctx& ctx_;
  const Json& j_;
  std::string p_;
  ScenarioOp& op_;
};

}  // namespace

void verify_program(State& state, const Json& program) {
  const Ctx& ctx = state.ctx;
  require_array(ctx, program, "/program");
  std::map<std::string, std::string> op_pointer;  // name -> pointer of the op that took it
  for (std::size_t i = 0; i < program.size(); ++i) {
    const std::string p = child("/program", i);
    const Json& j = program[i];
    require_object(ctx, j, p);
    require_key(ctx, j, p, "op");
    const std::optional<OpKind> kind = get_enum(ctx, j.at("op"), p + "/op", kOpKindNames);
    require_known_keys(ctx, j, p, keys_of(*kind));
    for (const auto& key : required_of(*kind))
      require_key(ctx, j, p, key);

    ScenarioOp op;
    op.kind = *kind;
    op.pointer = p;
    op.name = "op" + std::to_string(i);
    if (j.contains("name")) {
      op.name = get_string(ctx, j.at("name"), p + "/name");
      if (!is_op_name(op.name))
        ctx.fail(p + "/name", "op names are identifiers [A-Za-z_][A-Za-z0-9_.-]*, got: " + show(j.at("name")));
    }
    if (const auto it = op_pointer.find(op.name); it != op_pointer.end())
      ctx.fail(j.contains("name") ? p + "/name" : p,
               "op name is already used by " + it->second + ", got: \"" + op.name + "\"");
    if (j.contains("after")) {
      op.after = get_string_array(ctx, j.at("after"), p + "/after");
      for (std::size_t k = 0; k < op.after.size(); ++k) {
        const std::string ap = child(p + "/after", k);
        if (op_pointer.count(op.after[k]) == 0) ctx.fail(ap, "must name an earlier op, got: \"" + op.after[k] + "\"");
        if (std::find(op.after.begin(), op.after.begin() + static_cast<std::ptrdiff_t>(k), op.after[k]) !=
            op.after.begin() + static_cast<std::ptrdiff_t>(k))
          ctx.fail(ap, "op listed twice, got: \"" + op.after[k] + "\"");
      }
    }

    OpVerifier v(state, j, p, op);
    switch (*kind) {
      case OpKind::matmul:
        v.matmul();
        break;
      case OpKind::all_gather:
        v.collective(CollectiveKind::all_gather);
        break;
      case OpKind::reduce_scatter:
        v.collective(CollectiveKind::reduce_scatter);
        break;
      case OpKind::all_reduce:
        v.collective(CollectiveKind::all_reduce);
        break;
      case OpKind::all_to_all:
        v.collective(CollectiveKind::all_to_all);
        break;
      case OpKind::reshard:
        v.reshard();
        break;
      case OpKind::load:
        v.load();
        break;
      case OpKind::send:
        v.send();
        break;
      case OpKind::elementwise:
        v.elementwise();
        break;
    }
    if (!op.out.empty() && state.tensors.count(op.out) == 0)
      state.tensors[op.out] = {op.out_shape, op.out_dtype, false};
    op_pointer[op.name] = p;
    state.spec.program.push_back(std::move(op));
  }
}

}  // namespace podsim::scenario_detail
