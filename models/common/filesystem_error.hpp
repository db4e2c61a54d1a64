// A std::filesystem error (a symlink loop, a name too long, a folder that cannot be made) is the located input error it
// is: exit 2 with `error: PATH: the system's reason`, never an internal error (docs/reliability.md, "Hostile inputs").
#pragma once

#include <filesystem>
#include <string>

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"

namespace podsim {

// Located at the error's first path (cut as echoed values are: a 6,000-character name does not flood stderr).
inline InputError input_error_of(const std::filesystem::filesystem_error& error) {
  const std::string path = error.path1().empty() ? std::string("filesystem") : cut_shown(error.path1().string());
  return InputError(path, error.code().message());
}

}  // namespace podsim
