// The typed error of a query (a request such as ShardRequest or CollectiveQuery): which field is wrong and what
// is wrong with it. Front ends name the field in their own terms (the CLI adds its flag), so the models never
// see a flag name.
#pragma once

#include <cstddef>
#include <string>

#include "models/common/error.hpp"

namespace podsim {

// `Field` is the query's enum of fields. what() is the message (with `column N: ` for text that did not parse).
template <typename Field>
class FieldError : public Error {
 public:
  FieldError(Field field, const std::string& message, bool parse = false, std::size_t column = 0)
      : Error(column > 0 ? "column " + std::to_string(column) + ": " + message : message),
        field_(field),
        message_(message),
        parse_(parse),
        column_(column) {}

  // Any podsim::Error in `field`: a ParseError keeps its column and counts as a parse failure.
  static FieldError at(Field field, const Error& error) {
    if (const auto* parse = dynamic_cast<const ParseError*>(&error))
      return FieldError(field, parse->what(), true, parse->column());
    return FieldError(field, error.what());
  }

  Field field() const { return field_; }
  const std::string& message() const { return message_; }
  bool parse() const { return parse_; }           // the field's text did not parse (else it broke a rule)
  std::size_t column() const { return column_; }  // 1-based, 0 when not a text position

 private:
  Field field_;
  std::string message_;
  bool parse_;
  std::size_t column_;
};

// Runs `step` and turns any podsim::Error it throws into a FieldError in `field` (one already in a field passes).
template <typename Field, typename Step>
auto in_field(Field field, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const FieldError<Field>&) {
    throw;
  } catch (const Error& error) {
    throw FieldError<Field>::at(field, error);
  }
}

}  // namespace podsim
