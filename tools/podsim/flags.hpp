// How the CLI turns a query's typed field error into the error it prints: located at the flag the field came
// from (`error: --sharding: column 19: expected '}'`). Flag names live here and in the commands, never below.
#pragma once

#include <string>

#include "models/common/error.hpp"
#include "models/common/field_error.hpp"

namespace podsim::cli {

// `error` located at `flag`, its message followed by `hint`; a parse failure keeps its stage and column.
template <typename Field>
InputError at_flag(const FieldError<Field>& error, const std::string& flag, const std::string& hint = "") {
  return InputError(flag, error.message() + hint, error.parse() ? InputError::Stage::parse : InputError::Stage::verify,
                    error.column());
}

}  // namespace podsim::cli
