// Shared by the libFuzzer harnesses: the input as text, and a round-trip check that aborts (a finding) with
// both texts on stderr. A harness catches podsim::Error (bad input is expected) and lets anything else crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace podsim::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what`, the fuzzed input and the printed text when a round trip loses or changes something.
inline void require(bool ok, const char* what, std::string_view input, std::string_view printed = {}) {
  if (ok) return;
  std::fprintf(stderr, "round trip failed: %s\n  input:   %.*s\n  printed: %.*s\n", what,
               static_cast<int>(input.size()), input.data(), static_cast<int>(printed.size()), printed.data());
  std::abort();
}

}  // namespace podsim::fuzz

#define PODSIM_FUZZ_ENTRY extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
