// Scenario loader, the program: each op's kind, its keys (known, and the ones its kind requires) and their
// values read into a ScenarioOp. The verifier (scenario_verify_ops.cpp) checks the rules between them.
#include <climits>

#include "models/common/units.hpp"
#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim::scenario_detail {
namespace {

std::vector<std::string> keys_of(OpKind kind) {
  std::vector<std::string> keys = {"op", "name", "after"};
  switch (kind) {
    case OpKind::matmul:
      keys.insert(keys.end(), {"lhs", "rhs", "einsum", "out", "out_sharding", "collective_matmul", "compute_dtype"});
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

// The byte count of a send: a number, or a string with a unit (`1MiB`).
std::uint64_t read_bytes(const Ctx& ctx, const Json& b, const std::string& p) {
  if (b.is_number()) return static_cast<std::uint64_t>(get_int(ctx, b, p, 1));
  if (!b.is_string()) ctx.fail(p, "must be a byte count (a number or a string with a unit), got: " + shown(b));
  const std::uint64_t bytes = located(ctx.at(p), [&] { return parse_bytes(b.get<std::string>()); });
  if (bytes == 0) ctx.fail(p, "must be at least 1, got: " + shown(b));  // the text as written, unit and all
  return bytes;
}

// The op's kind-specific keys as its detail.
OpDetail read_detail(const Ctx& ctx, const Json& j, const std::string& p, OpKind kind) {
  const auto text = [&](const char* key) { return get_string(ctx, j.at(key), p + "/" + key); };
  const auto dim = [&](const char* key) {
    return static_cast<int>(get_int(ctx, j.at(key), p + "/" + key, INT_MIN, INT_MAX));
  };
  switch (kind) {
    case OpKind::matmul: {
      MatmulOp m;
      m.lhs = text("lhs");
      m.rhs = text("rhs");
      m.einsum_text = text("einsum");
      if (j.contains("out_sharding")) m.out_sharding = ScenarioSharding{text("out_sharding"), {}, {}};
      if (j.contains("collective_matmul"))
        m.collective_matmul = get_bool(ctx, j.at("collective_matmul"), p + "/collective_matmul");
      if (j.contains("compute_dtype")) {
        const std::string dtype = text("compute_dtype");
        m.compute_dtype = located(ctx.at(p + "/compute_dtype"), [&] { return parse_dtype(dtype); });
      }
      return m;
    }
    case OpKind::all_gather:
    case OpKind::reduce_scatter:
    case OpKind::all_reduce:
    case OpKind::all_to_all: {
      CollectiveOp c;
      c.tensor = text("tensor");
      c.axes = get_string_array(ctx, j.at("axes"), p + "/axes");
      if (kind == OpKind::reduce_scatter) c.dim = dim("dim");
      if (kind == OpKind::all_to_all) {
        c.from_dim = dim("from_dim");
        c.to_dim = dim("to_dim");
      }
      return c;
    }
    case OpKind::reshard:
      return ReshardOp{text("tensor"), ScenarioSharding{text("to"), {}, {}}};
    case OpKind::load:
      return LoadOp{text("tensor")};
    case OpKind::send: {
      SendOp s;
      s.from = get_int(ctx, j.at("from"), p + "/from");
      s.to = get_int(ctx, j.at("to"), p + "/to");
      if (j.contains("bytes")) s.bytes = read_bytes(ctx, j.at("bytes"), p + "/bytes");
      if (j.contains("tensor")) s.tensor = text("tensor");
      return s;
    }
    case OpKind::elementwise: {
      ElementwiseOp e;
      e.tensor = text("tensor");
      if (j.contains("flops_per_element"))
        e.flops_per_element = get_number(ctx, j.at("flops_per_element"), p + "/flops_per_element");
      return e;
    }
  }
  return LoadOp{};
}

}  // namespace

void read_program(const Ctx& ctx, const Json& program, ScenarioSpec& spec) {
  require_array(ctx, program, "/program");
  for (std::size_t i = 0; i < program.size(); ++i) {
    const std::string p = child("/program", i);
    const Json& j = program[i];
    require_object(ctx, j, p);
    require_key(ctx, j, p, "op");
    ScenarioOp op;
    op.kind = get_enum(ctx, j.at("op"), p + "/op", kOpKindNames);
    require_known_keys(ctx, j, p, keys_of(op.kind));
    for (const auto& key : required_of(op.kind))
      require_key(ctx, j, p, key);
    if (j.contains("name")) op.name = get_string(ctx, j.at("name"), p + "/name");
    if (j.contains("after")) op.after = get_string_array(ctx, j.at("after"), p + "/after");
    if (j.contains("out")) op.out = get_string(ctx, j.at("out"), p + "/out");
    op.detail = read_detail(ctx, j, p, op.kind);
    spec.program.push_back(std::move(op));
  }
}

}  // namespace podsim::scenario_detail
