// The typed error of `podsim import`'s options: which option (the slice, the hardware preset) a refusal concerns, so
// that nothing below the CLI matches an error by its text. Its where() is the option as the user gave it.
#pragma once

#include <string>

#include "models/common/error.hpp"

namespace podsim::import {

// The options an import depends on besides the module text.
enum class ImportOption { slice, hardware, function };

// How the user names `option` (the CLI's flag); the one place in sim/import that spells it.
inline const char* import_option_name(ImportOption option) {
  switch (option) {
    case ImportOption::slice:
      return "--slice";
    case ImportOption::hardware:
      return "--hardware";
    case ImportOption::function:
      return "--function";
  }
  return "--slice";
}

// A refusal that concerns an option rather than a place in the module: `--slice: the module runs on 4 devices ...`.
class ImportOptionError : public InputError {
 public:
  ImportOptionError(ImportOption option, const std::string& message)
      : InputError(import_option_name(option), message), option_(option) {}
  ImportOption option() const { return option_; }

 private:
  ImportOption option_;
};

}  // namespace podsim::import
