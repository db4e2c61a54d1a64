// The scaling-book sharding notation `A[I_XY, J]{U_Z}` ("How to Scale Your Model"): parsing into and
// printing from the one internal TensorSharding. Dims list their mesh axes major to minor as a subscript;
// `{U_...}` lists the unreduced (partial-sum) axes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/sharding/sharding.hpp"

namespace podsim {

// A sharding read from the book notation, with the tensor name and dim labels kept for printing it back.
struct BookSharding {
  std::string tensor_name;              // `A`; empty for `[I_X, J]`
  std::vector<std::string> dim_labels;  // `I`, `J`, ... one per dim
  TensorSharding sharding;              // bound to the mesh named at parse time; closed dims, no priorities
};

// Parses `A[I_XY, J]`, `[I_X, J_Y]{U_Z}`, `A[I_{data,model}, J]{U_{data}}`. Without braces every letter of a
// subscript is one axis (`I_XY` = X then Y); in braces names are comma-separated words. Whitespace between
// tokens is ignored. Throws ParseError with the 1-based column. Axis rules (unknown, used twice) are left to
// the verifier.
BookSharding parse_book_sharding(std::string_view text, const std::string& mesh_name);

// Prints `A[I_XY, J]{U_Z}`. One-letter axis names are written bare, others in braces (`I_{data,model}`).
// Labels default to I, J, K, L, M, N, ...; an empty tensor name prints `[I_X, J]`. Throws VerifyError
// `the book notation cannot express <what>, got: <sharding>` for sub-axes, open dims, priorities, explicitly
// replicated axes, non-sum unreduced axes and axis names that are not words.
std::string print_book_sharding(const TensorSharding& s, const std::string& tensor_name = "A",
                                const std::vector<std::string>& dim_labels = {});

}  // namespace podsim
