// The typed error of `podsim import`'s options: which option (the slice, the hardware preset, the function) a refusal
// concerns, so that nothing below the CLI matches an error by its text or spells a flag. Front ends name the option
// in their own terms (the CLI maps it to its flag, tools/podsim/import_command.cpp).
#pragma once

#include "models/common/field_error.hpp"

namespace podsim::import {

// The options an import depends on besides the module text (the CLI names them in this order, import_command.cpp).
enum class ImportOption { slice, hardware, function };

// A refusal that concerns an option rather than a place in the module: the slice, `the module runs on 4 devices ...`.
using ImportOptionError = FieldError<ImportOption>;

}  // namespace podsim::import
