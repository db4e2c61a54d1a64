// What both module readers of `podsim import` require of the text before they parse it: valid UTF-8 (the names
// and lines they copy end up in the scenario's JSON, which must be valid UTF-8 to be written).
#pragma once

#include <string>
#include <string_view>

namespace podsim::import {

// Throws InputError located `FILE:LINE:COL` (1-based, COL in bytes) at the first byte of `text` that does not start
// a well-formed UTF-8 sequence (a stray continuation byte, a sequence cut short, an overlong form, a surrogate, a
// code point above U+10FFFF), naming that byte: "invalid UTF-8 byte 0xF5 (the module must be UTF-8 text)".
void require_utf8_module(std::string_view text, const std::string& file);

}  // namespace podsim::import
