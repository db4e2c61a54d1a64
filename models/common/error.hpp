// Typed errors of the podsim library. Libraries throw these; only main() turns them into exit codes
// (2 for bad input, an Error; 3 for an InternalError). Messages are lower-case and follow Shardy's "rule, got: value"
// shape.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

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

// Bad input located at `where` (a file and JSON pointer, a command-line flag). what() reads
// `WHERE: WHAT` (with `column N: ` before WHAT for text that failed to parse), the form the CLI prints
// after `error: `. stage() says whether the text did not parse or broke a rule.
class InputError : public Error {
 public:
  enum class Stage { parse, verify };

  InputError(const std::string& where, const std::string& message, Stage stage = Stage::verify, std::size_t column = 0)
      : Error(compose(where, message, column)), where_(where), message_(message), stage_(stage), column_(column) {}

  // Locates a ParseError (stage parse, its column) or any other Error (stage verify) at `where`.
  static InputError at(const std::string& where, const Error& error) {
    if (const auto* parse = dynamic_cast<const ParseError*>(&error))
      return InputError(where, parse->what(), Stage::parse, parse->column());
    return InputError(where, error.what(), Stage::verify);
  }

  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }
  Stage stage() const { return stage_; }
  std::size_t column() const { return column_; }  // 0 when not a text position

 private:
  static std::string compose(const std::string& where, const std::string& message, std::size_t column) {
    std::string text = where.empty() ? "" : where + ": ";
    if (column > 0) text += "column " + std::to_string(column) + ": ";
    return text + message;
  }

  std::string where_;
  std::string message_;
  Stage stage_;
  std::size_t column_;
};

// A failure of podsim itself, not of its input (a simulation child that crashed, was killed or returned a malformed
// result). Deliberately not an Error, which means bad input: main() exits 3 on it. what() ends with the tail of the
// failing process's stderr when there is one, which stderr_tail() also holds.
class InternalError : public std::runtime_error {
 public:
  explicit InternalError(const std::string& message, std::string stderr_tail = {})
      : std::runtime_error(stderr_tail.empty() ? message : message + "; its stderr ends with:\n" + stderr_tail),
        stderr_tail_(std::move(stderr_tail)) {}

  const std::string& stderr_tail() const { return stderr_tail_; }

 private:
  std::string stderr_tail_;
};

// Runs `step` and locates any podsim::Error it throws at `where` (an InputError passes through unchanged).
template <typename Step>
auto located(const std::string& where, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const InputError&) {
    throw;
  } catch (const Error& error) {
    throw InputError::at(where, error);
  }
}

}  // namespace podsim
