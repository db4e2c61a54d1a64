// Well-formed UTF-8 (RFC 3629): what every text podsim writes into JSON must be, names read from users included.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace podsim {

// The offset of the first byte of `text` that does not start a well-formed UTF-8 sequence (a stray continuation
// byte, a sequence cut short, an overlong form, a surrogate, a code point above U+10FFFF); nullopt when it is all
// well formed.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace podsim
