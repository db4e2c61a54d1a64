// One entry point for the three sharding notations: Shardy attributes, the scaling-book notation and
// JAX PartitionSpec. Detects which one a text uses, parses it, and prints a sharding in all three.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/sharding/sharding.hpp"

namespace podsim {

enum class Notation { shardy, book, partition_spec };

// "shardy", "book", "pspec".
std::string_view notation_name(Notation notation);

// `<...>`, `#sdy.sharding<...>` -> shardy; `P(...)`, `PartitionSpec(...)` (optionally `jax.sharding.`) ->
// partition_spec; anything else -> book.
Notation detect_notation(std::string_view text);

struct ParsedSharding {
  Notation notation = Notation::shardy;
  TensorSharding sharding;
  std::string tensor_name;              // book notation only (`A` in `A[I_X, J]`)
  std::vector<std::string> dim_labels;  // book notation only (`I`, `J`)
};

// Parses `text` in the notation it uses. Book and PartitionSpec texts name no mesh: they bind to
// `default_mesh`. `rank` completes a short PartitionSpec (missing trailing dims are replicated).
// Throws ParseError (with column) on bad text; does not verify.
ParsedSharding parse_sharding(std::string_view text, const std::string& default_mesh, std::optional<std::size_t> rank);

// A sharding printed in each notation; a notation that cannot express it holds nullopt and the reason.
struct PrintedSharding {
  std::string shardy;
  std::optional<std::string> book;
  std::string book_error;
  std::optional<std::string> pspec;
  std::string pspec_error;
};

// The book notation where it can express the sharding (with `dim_labels` when they fit its rank), else Shardy.
std::string print_readable(const TensorSharding& sharding, const std::string& tensor_name,
                           const std::vector<std::string>& dim_labels = {});

PrintedSharding print_all_notations(const TensorSharding& sharding, const std::string& tensor_name = "A",
                                    const std::vector<std::string>& dim_labels = {});

}  // namespace podsim
