// Control flow of a partitioned HLO module (docs/import.md, "Partitioned HLO"): a `call` reads its computation in
// place, with its parameters bound to the call's operands; a `while` whose trip count XLA states
// (`backend_config={"known_trip_count":{"n":"N"}}`) reads its body N times, each iteration's parameter bound to the
// previous one's result. The ops of a called computation are named after the call (`call.dot`), those of a loop
// body after the loop and the iteration (`while.0.dot`, `while.1.dot`, ...).
#include <charconv>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "sim/import/hlo_builder.hpp"

namespace podsim::import::hlo_build {
namespace {

// N of a while's `"known_trip_count":{"n":"N"}` in its backend_config (the JSON as written, or a quoted string of
// it with escaped quotes); nullopt when absent or not a count.
std::optional<std::int64_t> known_trip_count(const HloInstruction& ins) {
  const auto it = ins.attributes.find("backend_config");
  if (it == ins.attributes.end()) return std::nullopt;
  const std::string_view text = it->second;
  const auto key = text.find("known_trip_count");
  if (key == std::string_view::npos) return std::nullopt;
  const auto n = text.find("n\\\"", key) < text.find("n\"", key) ? text.find("n\\\"", key) : text.find("n\"", key);
  if (n == std::string_view::npos) return std::nullopt;
  std::size_t i = n + 1;
  while (i < text.size() && (text[i] == '"' || text[i] == '\\' || text[i] == ':' || text[i] == ' '))
    ++i;
  std::int64_t count = -1;
  const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), count);
  if (ec != std::errc() || end == text.data() + i || count < 0) return std::nullopt;
  return count;
}

// The parameter number of a `parameter(N)` instruction; nullopt when not one.
std::optional<std::size_t> parameter_number(const HloInstruction& ins) {
  std::size_t number = 0;
  const char* b = ins.arguments.data();
  const auto [end, ec] = std::from_chars(b, b + ins.arguments.size(), number);
  if (ins.opcode != "parameter" || ec != std::errc() || end != b + ins.arguments.size()) return std::nullopt;
  return number;
}

// The names of the ops in [from, to) of `program` that no op of that range waits for.
std::vector<std::string> last_ops(const std::vector<ImportedOp>& program, std::size_t from, std::size_t to) {
  std::set<std::string> waited;
  for (std::size_t k = from; k < to; ++k)
    for (const auto& d : program[k].after)
      waited.insert(d);
  std::vector<std::string> last;
  for (std::size_t k = from; k < to; ++k)
    if (!waited.count(program[k].name)) last.push_back(program[k].name);
  return last;
}

}  // namespace

const HloComputation& Builder::callee(const HloInstruction& ins, const std::string& key) const {
  const auto it = ins.attributes.find(key);
  if (it == ins.attributes.end()) fail(ins, ins.column, ins.opcode + " %" + ins.name + " without " + key + "=");
  const std::string name = it->second.substr(!it->second.empty() && it->second[0] == '%' ? 1 : 0);
  for (const auto& c : module_.computations)
    if (c.name == name) {
      if (c.entry) fail_at(ins, key, ins.opcode + " %" + ins.name + " calls the ENTRY computation %" + name);
      return c;
    }
  fail_at(ins, key, ins.opcode + " %" + ins.name + " calls an unknown computation %" + name);
}

Value Builder::inline_computation(const HloInstruction& caller, const HloComputation& computation,
                                  const std::vector<Value>& args, const std::string& scope) {
  if (depth_ >= kMaxCallDepth)
    fail(caller, caller.column,
         caller.opcode + " %" + caller.name + ": calls and loops nested deeper than " + std::to_string(kMaxCallDepth) +
             " (does %" + computation.name + " call itself?)");
  // The computation's names are its own: read it with a value table of its own, and without the ENTRY's gather
  // layouts (keyed by ENTRY names).
  std::map<std::string, Value> outer_values;
  std::map<std::string, std::pair<std::vector<std::int64_t>, std::string>> outer_views;
  std::swap(outer_values, values_);
  std::swap(outer_views, gather_views_);
  const std::string outer_scope = scope_;
  scope_ += scope;
  ++depth_;
  const HloInstruction* root = nullptr;
  for (const auto& ins : computation.instructions) {
    if (ins.root || (!root && &ins == &computation.instructions.back())) root = &ins;
    if (const auto k = parameter_number(ins)) {
      if (*k >= args.size())
        fail(ins, ins.column,
             "%" + ins.name + " is parameter " + std::to_string(*k) + " of %" + computation.name + ", which %" +
                 caller.name + " calls with " + std::to_string(args.size()) + " operand(s)");
      if (!same_shape(args[*k].shape, ins.shape))
        fail(ins, ins.column,
             "%" + ins.name + ": parameter " + std::to_string(*k) + " of %" + computation.name +
                 " differs in shape from what %" + caller.name + " passes it");
      values_[ins.name] = args[*k];
      continue;
    }
    if (const auto c = constants_.find(&ins); c != constants_.end()) {
      values_[ins.name] = c->second;
      continue;
    }
    instruction(ins);
    if (ins.opcode == "constant") constants_[&ins] = values_.at(ins.name);
  }
  if (!root)
    fail(caller, caller.column,
         caller.opcode + " %" + caller.name + " calls %" + computation.name + ", which is empty");
  Value result = values_.at(root->name);
  --depth_;
  scope_ = outer_scope;
  std::swap(outer_values, values_);
  std::swap(outer_views, gather_views_);
  return result;
}

void Builder::call(const HloInstruction& ins) {
  const HloComputation& computation = callee(ins, "to_apply");
  std::vector<Value> args;
  for (std::size_t k = 0; k < ins.operands.size(); ++k)
    args.push_back(operand(ins, k));
  note(ins, "call of %" + computation.name + " read in place (its ops named " + scope_ + ins.name + ".*)");
  Value v = inline_computation(ins, computation, args, ins.name + ".");
  v.shape = ins.shape;
  values_[ins.name] = v;
}

void Builder::loop(const HloInstruction& ins) {
  const HloComputation& body = callee(ins, "body");
  const HloComputation& condition = callee(ins, "condition");
  if (ins.operands.size() != 1)
    fail(ins, ins.column,
         "while %" + ins.name + ": expected one operand (the loop state), got " + std::to_string(ins.operands.size()));
  const auto n = known_trip_count(ins);
  if (!n)
    fail(ins, ins.column,
         "while %" + ins.name +
             ": no known_trip_count in its backend_config (podsim unrolls a loop only when XLA states how many "
             "times it runs)");
  std::int64_t size = 0;
  for (const auto& i : body.instructions)
    size += i.opcode == "parameter" ? 0 : 1;
  if (size > 0 && *n > (kMaxInstructions - walked_) / size)
    fail_at(ins, "backend_config",
            "while %" + ins.name + ": " + std::to_string(*n) + " iterations of %" + body.name + "'s " +
                std::to_string(size) + " instructions would take the module past " + std::to_string(kMaxInstructions) +
                " instructions, which podsim does not simulate one by one");
  note(ins, "while over %" + body.name + " unrolled " + std::to_string(*n) +
                " times (known_trip_count; the condition %" + condition.name + " is not simulated; ops named " +
                scope_ + ins.name + ".ITERATION.*, the body's approximations listed once)");
  Value state = operand(ins, 0);
  const bool was_quiet = quiet_, was_in_iteration = in_iteration_;
  std::set<std::string> outer_ops = iteration_ops_;
  const std::vector<std::string> outer_after = iteration_after_;
  const std::size_t first = program_.ops.size();
  in_iteration_ = true;
  std::size_t previous = first;
  for (std::int64_t i = 0; i < *n; ++i) {
    const std::size_t begin = program_.ops.size();
    if (i > 0) {  // the first iteration waits as an op of the enclosing iteration would
      iteration_ops_.clear();
      if (begin > previous) iteration_after_ = last_ops(program_.ops, previous, begin);
    }
    previous = begin;
    state = inline_computation(ins, body, {state}, ins.name + "." + std::to_string(i) + ".");
    quiet_ = true;
  }
  quiet_ = was_quiet;
  in_iteration_ = was_in_iteration;
  iteration_after_ = outer_after;
  for (std::size_t k = first; k < program_.ops.size(); ++k)
    outer_ops.insert(program_.ops[k].name);
  iteration_ops_ = outer_ops;
  state.shape = ins.shape;
  values_[ins.name] = state;
}

}  // namespace podsim::import::hlo_build
