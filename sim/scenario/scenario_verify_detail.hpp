// Shared pieces of the scenario verifier (scenario_verify*.cpp) and of the JSON loader that feeds it: where an
// error is (`FILE: /pointer`), values shown as the format writes them ("got: VALUE"), the format's names, and
// the state carried from section to section. Internal to sim/scenario; not a public header.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/mesh.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::scenario_detail {

// `key` as a JSON pointer token (`~` -> `~0`, `/` -> `~1`).
std::string escape_key(const std::string& key);
// `pointer + "/" + token` for a key or an index.
std::string child(const std::string& pointer, const std::string& key);
std::string child(const std::string& pointer, std::size_t index);

// Values after "got: ", as the scenario format writes them: a quoted string (JSON escapes), a number in its
// shortest exact form, an array `[64,64,32]` / `[true,false]`; each cut by cut_shown (shown_text.hpp).
std::string quote(std::string_view text);
std::string shown(double value);
std::string shown(const std::vector<std::int64_t>& values);
std::string shown(const std::vector<bool>& values);
// `"a", "b"`.
std::string quote_list(const std::vector<std::string>& names);

// Names of tensors, ops and plans: [A-Za-z_][A-Za-z0-9_]* (tensors, as the book notation writes them) or
// additionally `-` and `.` after the first character (ops, plans and meshes).
bool is_tensor_name(const std::string& text);
bool is_op_name(const std::string& text);

// Where errors go: `FILE: /pointer: message` (just `/pointer: message` for a spec without a file).
struct Where {
  std::string file;
  std::string folder;  // where relative paths written in the file are read from (empty: the file's own folder)

  // `path` as the file means it: an absolute path as is, a relative one under `folder` (or the file's folder).
  std::string beside(const std::string& path) const;

  std::string at(const std::string& pointer) const;
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const;
  // A podsim::Error (ParseError keeps its column) located at `pointer`.
  [[noreturn]] void fail(const std::string& pointer, const Error& error) const;
  // `must be at least MIN, got: VALUE` unless value >= min.
  void require_at_least(const std::string& pointer, std::int64_t value, std::int64_t min) const;
};

// What the verifier knows about every tensor name defined so far.
struct TensorInfo {
  Shape shape;
  DType dtype = DType::bf16;
  bool declared = false;  // in "tensors" (an input), not defined by an op
  std::string view_of;    // declared with "view_of": the tensor whose bytes it holds
};

// State carried from section to section while verifying; the spec's derived fields are filled as it goes.
struct State {
  Where where;
  ScenarioSpec& spec;
  MeshTable meshes;
  std::map<std::string, TensorInfo> tensors;  // every name defined so far
};

// Verifies `sharding.text` for `tensor` of rank `rank` and fills `sharding.parsed` and `.pointer`:
// parse_sharding (column errors), then the book tensor name (`tensor` or, when given, `other_name`),
// verify_sharding (Shardy's messages), and an inline mesh must be the scenario's.
void verify_sharding_text(const State& state, ScenarioSharding& sharding, const std::string& pointer,
                          const std::string& tensor, std::size_t rank, const std::string& other_name = "");

// Capacity planning (scenario_verify_capacity.cpp). `a scenario has either a model or a program ...` for `key`
// ("tensors" or "program") written beside a model.
std::string model_or_program_message(const std::string& key);
// A model-level scenario without a slice of its own: its search section lists the slices (no slice, no mesh).
bool slices_in_search_only(const ScenarioSpec& spec);
// The model, its workload, the search section and the price, after the mesh.
void verify_capacity(State& state);
// A plan's parallelism assignment (plan.parallelism set) against the scenario's mesh, errors located at
// `/plans/i/parallelism/<kind>/<j>`.
void verify_plan_parallelism(const State& state, const ScenarioPlan& plan, const std::string& pointer);

// The sections after the tensors, in the format's order (each in its own source file).
void verify_program(State& state);
void verify_plans(State& state);
void verify_expect(State& state);

}  // namespace podsim::scenario_detail
