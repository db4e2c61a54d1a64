// How the CLI turns a query's typed field error into the error it prints: located at the flag the field came
// from (`error: --sharding: column 19: expected '}'`). Flag names live here and in the commands, never below.
#pragma once

#include <string>

#include "models/common/error.hpp"
#include "models/common/field_error.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim::cli {

// `error` located at `flag`, its message followed by `hint`; a parse failure keeps its stage and column.
template <typename Field>
InputError at_flag(const FieldError<Field>& error, const std::string& flag, const std::string& hint = "") {
  return InputError(flag, error.message() + hint, error.parse() ? InputError::Stage::parse : InputError::Stage::verify,
                    error.column());
}

// What `step` returns; a FieldError<Field> it throws (a library call's option it cannot honour) is located at the
// flag that option came from, `flag_of(field)`.
template <typename Field, typename Step>
auto at_flags(Step&& step, std::string (*flag_of)(Field)) -> decltype(step()) {
  try {
    return step();
  } catch (const FieldError<Field>& error) {
    throw at_flag(error, flag_of(error.field()));
  }
}

// What `load` (a preset loader given the --hardware flag's value) returns; an unknown preset or a missing preset file
// is located at --hardware, and any other error as `located` does.
template <typename Load>
auto hardware_flag(Load&& load) -> decltype(load()) {
  try {
    return located("--hardware", load);
  } catch (const PresetNotFoundError& error) {
    // By name: the message lists the known presets; a file: it names the file.
    throw InputError("--hardware", error.where() == "hardware" ? error.message() : std::string(error.what()));
  }
}

}  // namespace podsim::cli
