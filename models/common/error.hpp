// Typed errors of the podsim library. Libraries throw these; only main() turns them into exit codes
// (2 for bad input). Messages are lower-case and follow Shardy's "rule, got: value" shape.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace podsim {

// Base of every error podsim reports as bad input.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Text that does not follow a grammar. column() is 1-based, counted in bytes of the text parsed.
class ParseError : public Error {
 public:
  ParseError(const std::string& message, std::size_t column) : Error(message), column_(column) {}
  std::size_t column() const { return column_; }

 private:
  std::size_t column_;
};

// Well-formed input that breaks a rule (Shardy's verifier, a hardware constraint, ...).
class VerifyError : public Error {
 public:
  using Error::Error;
};

// Bad input located at `where` (a file and JSON pointer, a command-line flag, a column). what() reads
// `WHERE: WHAT`, the form the CLI prints after `error: `.
class InputError : public Error {
 public:
  InputError(const std::string& where, const std::string& message)
      : Error(where.empty() ? message : where + ": " + message), where_(where), message_(message) {}
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  std::string where_;
  std::string message_;
};

}  // namespace podsim
