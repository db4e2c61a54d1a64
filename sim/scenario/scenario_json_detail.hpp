// Shared pieces of the scenario loader's verifiers (scenario_json*.cpp): the located failure, typed field
// readers that name the rule and the value, and the sharding-text check used by tensors, ops and plans.
// Internal to sim/scenario; not a public header.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/enum_names.hpp"
#include "models/common/error.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::scenario_detail {

// Object keys keep their file order, so "first error wins" follows the file.
using Json = nlohmann::ordered_json;

// Where errors go: `FILE: /pointer: message`.
struct Ctx {
  std::string file;

  std::string at(const std::string& pointer) const { return file + ": " + (pointer.empty() ? "/" : pointer); }
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw InputError(at(pointer), message);
  }
  // A podsim::Error (ParseError keeps its column) located at `pointer`.
  [[noreturn]] void fail(const std::string& pointer, const Error& error) const {
    throw InputError::at(at(pointer), error);
  }
};

// `key` as a JSON pointer token (`~` -> `~0`, `/` -> `~1`).
std::string escape_key(const std::string& key);
// `pointer + "/" + token` for a key or an index.
std::string child(const std::string& pointer, const std::string& key);
std::string child(const std::string& pointer, std::size_t index);

// `"a", "b"`.
std::string quoted_list(const std::vector<std::string>& names);

// The value as JSON text (strings quoted), for "got: VALUE".
std::string show(const Json& j);

void require_object(const Ctx& ctx, const Json& j, const std::string& pointer);
void require_array(const Ctx& ctx, const Json& j, const std::string& pointer);
// Every key of `j` is in `known`; else `unknown key, got: "k" (expected one of ...)` at the key.
void require_known_keys(const Ctx& ctx, const Json& j, const std::string& pointer,
                        const std::vector<std::string>& known);
// `missing key "k"` at the object.
void require_key(const Ctx& ctx, const Json& j, const std::string& pointer, const std::string& key);

std::string get_string(const Ctx& ctx, const Json& j, const std::string& pointer, bool non_empty = true);
// An integer in [min, max].
std::int64_t get_int(const Ctx& ctx, const Json& j, const std::string& pointer, std::int64_t min,
                     std::int64_t max = INT64_MAX);
double get_number(const Ctx& ctx, const Json& j, const std::string& pointer);
// A name of `names` (any case, `-` for `_`); else `unknown WHAT, got: "text" (expected one of "a", "b")`.
template <typename Enum, std::size_t N>
Enum get_enum(const Ctx& ctx, const Json& j, const std::string& pointer, const EnumNames<Enum, N>& names) {
  const auto value = names.find(get_string(ctx, j, pointer));
  if (!value)
    ctx.fail(pointer, "unknown " + std::string(names.what()) + ", got: " + show(j) + " (expected one of " +
                          names.choices("\"") + ")");
  return *value;
}
bool get_bool(const Ctx& ctx, const Json& j, const std::string& pointer);
// An array of strings (each non-empty).
std::vector<std::string> get_string_array(const Ctx& ctx, const Json& j, const std::string& pointer);

// Names of tensors, ops and plans: [A-Za-z_][A-Za-z0-9_]* (tensors, as the book notation writes them) or
// additionally `-` and `.` after the first character (ops and plans).
bool is_tensor_name(const std::string& text);
bool is_op_name(const std::string& text);

// What the verifiers know about every tensor name defined so far.
struct TensorInfo {
  Shape shape;
  DType dtype = DType::bf16;
  bool declared = false;  // in "tensors" (an input), not defined by an op
};

// State carried from section to section while verifying.
struct State {
  Ctx ctx;
  ScenarioSpec spec;
  MeshTable meshes;
  std::map<std::string, TensorInfo> tensors;  // every name defined so far
};

// Parses and verifies a sharding text for `tensor` of rank `rank`: parse_sharding (column errors), then
// the book tensor name (`tensor` or, when given, `other_name`), verify_sharding (Shardy's messages), and an
// inline mesh must be the scenario's.
ScenarioSharding verify_sharding_text(const State& state, const Json& j, const std::string& pointer,
                                      const std::string& tensor, std::size_t rank, const std::string& other_name = "");
// The default sharding: replicated, one empty closed dim per tensor dim.
ScenarioSharding replicated_sharding(const State& state, std::size_t rank, const std::string& pointer);

// The sections after the tensors, in file order of the format (each in its own source file).
void verify_program(State& state, const Json& program);
void verify_plans(State& state, const Json& plans);
void verify_expect(State& state, const Json& expect);

}  // namespace podsim::scenario_detail
