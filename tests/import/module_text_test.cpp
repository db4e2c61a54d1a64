// require_utf8_module: both importers refuse a module that is not UTF-8 text, located at the byte (a module's names
// end up in the scenario's JSON, which must be UTF-8; the StableHLO fuzz harness found a byte 0xF5 reaching the JSON
// writer, kept as tools/fuzz/corpus/stablehlo/regression-invalid-utf8).
#include "sim/import/module_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/stablehlo_module.hpp"

namespace podsim::import {
namespace {

std::string utf8_error_of(const std::string& text) {
  try {
    require_utf8_module(text, "m.mlir");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModuleText, WellFormedUtf8Passes) {
  EXPECT_EQ(utf8_error_of("module @m {\n  // caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF\n}\n"), "");
}

TEST(ModuleText, TheFirstBadByteIsLocatedByLineAndColumn) {
  // Line 2, bytes: two spaces, "%", then 0xF5 (no UTF-8 sequence starts with it) at column 4.
  EXPECT_EQ(utf8_error_of("module @m {\n  %\xF5\n}"),
            "m.mlir:2:4: invalid UTF-8 byte 0xF5 (the module must be UTF-8 text)");
  EXPECT_EQ(utf8_error_of("\x80"), "m.mlir:1:1: invalid UTF-8 byte 0x80 (the module must be UTF-8 text)");  // stray
  EXPECT_EQ(utf8_error_of("ab\xC3"),
            "m.mlir:1:3: invalid UTF-8 byte 0xC3 (the module must be UTF-8 text)");  // cut short
  EXPECT_EQ(utf8_error_of("\xC0\xAF"),
            "m.mlir:1:1: invalid UTF-8 byte 0xC0 (the module must be UTF-8 text)");  // overlong
  EXPECT_EQ(utf8_error_of("\xE0\x80\xAF"), "m.mlir:1:1: invalid UTF-8 byte 0xE0 (the module must be UTF-8 text)");
  EXPECT_EQ(utf8_error_of("\xED\xA0\x80"),
            "m.mlir:1:1: invalid UTF-8 byte 0xED (the module must be UTF-8 text)");  // U+D800
  EXPECT_EQ(utf8_error_of("\xF4\x90\x80\x80"), "m.mlir:1:1: invalid UTF-8 byte 0xF4 (the module must be UTF-8 text)");
}

TEST(ModuleText, BothReadersRefuseIt) {
  const std::string bad = "module @m\xF5 {\n}\n";
  EXPECT_THROW((void)parse_stablehlo_module(bad, "m.mlir"), InputError);
  try {
    (void)parse_hlo_module("HloModule m\xF5\n", "m.hlo");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "m.hlo:1:12: invalid UTF-8 byte 0xF5 (the module must be UTF-8 text)");
  }
}

}  // namespace
}  // namespace podsim::import
