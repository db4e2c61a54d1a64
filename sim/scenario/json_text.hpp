// Guards every JSON text podsim reads (scenario files, hardware and model presets, `podsim hardware --override`)
// before nlohmann parses it recursively: a size limit, a nesting limit and numbers out of range, each a located
// InputError instead of a crash or an internal error. Also the one way a JSON value is echoed in a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"

namespace podsim {

// The limits of docs/reliability.md ("Input limits").
inline constexpr std::size_t kJsonMaxBytes = std::size_t{64} << 20;  // 64 MiB
inline constexpr int kJsonMaxDepth = 64;                             // nested arrays and objects

// Checks `text` against the limits without recursion; throws InputError (stage parse) located at `where`:
// `input larger than 64 MiB, got: N bytes`, `line L, column C: nesting deeper than 64 levels`,
// `line L, column C: number out of range, got: 1e400`.
void check_json_text(std::string_view text, const std::string& where);

// The one reader of every file podsim takes as input (docs/reliability.md, "Hostile inputs"): the whole text of the
// file at `path`, or nullopt when no file is there or it cannot be opened. Reads regular files only, at most
// `max_bytes` of them; throws InputError located at `path` for a folder (`a folder, not a file`), a device, FIFO or
// socket (`not a regular file ...`: never read, so never a hang or an unbounded read), a path the system refuses
// (a symlink loop, a name too long: the system's reason), and a file above `max_bytes` (`input larger than N MiB`).
std::optional<std::string> read_input_file(const std::string& path, std::uintmax_t max_bytes);

// A std::filesystem error (a symlink loop, a name too long, a folder that cannot be made) as the located input error
// it is: exit 2 with `error: PATH: the system's reason` (the path cut as echoed values are), never an internal error.
InputError input_error_of(const std::filesystem::filesystem_error& error);

// read_input_file with the JSON limit (kJsonMaxBytes, check_json_text's message).
std::optional<std::string> read_json_file(const std::string& path);

// `line L, column C` of the byte at `offset` (0-based) of `text`, both 1-based.
std::string text_position(std::string_view text, std::size_t offset);

// A JSON value as compact text for "got: VALUE" (strings quoted, invalid UTF-8 replaced), cut by cut_shown.
template <typename BasicJson>
std::string shown(const BasicJson& value) {
  return cut_shown(value.dump(-1, ' ', false, BasicJson::error_handler_t::replace));
}

}  // namespace podsim
