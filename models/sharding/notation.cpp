// Dispatch between the three sharding notations.
#include "models/sharding/notation.hpp"

#include "models/common/enum_names.hpp"
#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "models/sharding/partition_spec.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {
namespace {

constexpr EnumNames<Notation, 3> kNotations{"notation",
                                            {{
                                                {"shardy", Notation::shardy},
                                                {"book", Notation::book},
                                                {"pspec", Notation::partition_spec},
                                            }}};

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  return text;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string_view notation_name(Notation notation) {
  return kNotations.name(notation);
}

Notation detect_notation(std::string_view text) {
  text = trim_left(text);
  if (starts_with(text, "<") || starts_with(text, "#sdy")) return Notation::shardy;
  if (starts_with(text, "jax.sharding.")) text.remove_prefix(std::string_view("jax.sharding.").size());
  if (starts_with(text, "PartitionSpec")) return Notation::partition_spec;
  if (starts_with(text, "P")) {
    const auto rest = trim_left(text.substr(1));
    if (starts_with(rest, "(")) return Notation::partition_spec;
  }
  return Notation::book;
}

ParsedSharding parse_sharding(std::string_view text, const std::string& default_mesh, std::optional<std::size_t> rank) {
  ParsedSharding parsed;
  parsed.notation = detect_notation(text);
  switch (parsed.notation) {
    case Notation::shardy:
      parsed.sharding = parse_shardy_sharding(text);
      break;
    case Notation::partition_spec:
      parsed.sharding = parse_partition_spec(text, default_mesh, rank);
      break;
    case Notation::book: {
      auto book = parse_book_sharding(text, default_mesh);
      parsed.sharding = std::move(book.sharding);
      parsed.tensor_name = std::move(book.tensor_name);
      parsed.dim_labels = std::move(book.dim_labels);
      break;
    }
  }
  return parsed;
}

std::string print_readable(const TensorSharding& sharding, const std::string& tensor_name,
                           const std::vector<std::string>& dim_labels) {
  const bool labelled = dim_labels.size() == sharding.dims.size();
  try {
    return print_book_sharding(sharding, tensor_name, labelled ? dim_labels : std::vector<std::string>{});
  } catch (const VerifyError&) {
    return print_shardy_sharding(sharding);
  }
}

PrintedSharding print_all_notations(const TensorSharding& sharding, const std::string& tensor_name,
                                    const std::vector<std::string>& dim_labels) {
  PrintedSharding printed;
  printed.shardy = print_shardy_sharding(sharding);
  try {
    printed.book = print_book_sharding(sharding, tensor_name, dim_labels);
  } catch (const VerifyError& e) {
    printed.book_error = e.what();
  }
  try {
    printed.pspec = print_partition_spec(sharding);
  } catch (const VerifyError& e) {
    printed.pspec_error = e.what();
  }
  return printed;
}

}  // namespace podsim
