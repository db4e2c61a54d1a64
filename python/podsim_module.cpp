// The extension module podsim._podsim under the Python package podsim (python/podsim/__init__.py, docs/python.md).
// It runs the podsim program's own subcommands in this process: the same CLI11 registration (tools/podsim/
// *_command.cpp), so a Python call has exactly the CLI's options, defaults, checks and located errors, and what a
// command prints on stdout (its --json object) is captured and handed back as text for the Python side to decode.
// Simulations still run in forked children (sim/engine/fork_runner), so SimGrid's one-simulation-per-process rule
// and its aborts never reach the interpreter.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "sim/report/error_report.hpp"
#include "sim/scenario/json_text.hpp"
#include "tools/podsim/command.hpp"

namespace py = pybind11;

namespace podsim::python {
namespace {

using Register = void (*)(CLI::App&, cli::Action&);

Register find_command(const std::string& name) {
  for (const auto& command : cli::kCommands)
    if (name == command.name) return command.add;
  throw py::value_error("podsim has no command " + name);
}

// std::cout sent to a string while alive (the commands print their result there).
class CaptureStdout {
 public:
  CaptureStdout() : previous_(std::cout.rdbuf(text_.rdbuf())) {}
  ~CaptureStdout() { std::cout.rdbuf(previous_); }
  CaptureStdout(const CaptureStdout&) = delete;
  CaptureStdout& operator=(const CaptureStdout&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* previous_;
};

// An error as the JSON text the Python side raises from: {"kind": "input"|"flag"|"internal", "stage", "where",
// "message", "column"}. Located input errors are the object `podsim ... --json` prints (sim/report/error_report).
std::string error_text(const std::string& kind, const std::string& where, const std::string& message) {
  nlohmann::json body = {{"kind", kind}, {"stage", "verify"}, {"where", where}, {"message", message}};
  return body.dump();
}

std::string input_error_text(const InputError& error) {
  nlohmann::json body = report::error_json(error)["error"];
  body["kind"] = "input";
  return body.dump();
}

// Runs `podsim COMMAND ARGS...` here: returns (exit code, what it printed on stdout, error JSON text or "").
// The exit code is the program's: 0, 1 (a check failed), 2 (bad input: the error is set), 3 (internal error: set),
// 128 + a signal (a sweep stopped by SIGINT or SIGTERM).
py::tuple call(const std::string& command, const std::vector<std::string>& args) {
  const Register add_command = find_command(command);
  CLI::App app{"podsim", "podsim"};
  app.require_subcommand(1);
  cli::Action action;
  add_command(app, action);
  std::vector<std::string> words = {"podsim", command};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : words)
    argv.push_back(word.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    return py::make_tuple(2, std::string(), error_text("flag", "", error.what()));
  }
  CaptureStdout capture;
  try {
    const int code = action ? action() : 0;
    return py::make_tuple(code, capture.text(), std::string());
  } catch (const InputError& error) {
    return py::make_tuple(2, capture.text(), input_error_text(error));
  } catch (const Error& error) {
    return py::make_tuple(2, capture.text(), error_text("input", "", error.what()));
  } catch (const std::filesystem::filesystem_error& error) {
    return py::make_tuple(2, capture.text(), input_error_text(input_error_of(error)));
  } catch (const std::bad_alloc&) {
    return py::make_tuple(
        2, capture.text(),
        error_text("input", "", "out of memory: the run needs more memory than this process may take"));
  } catch (const std::exception& error) {  // InternalError (a simulation child that crashed) or anything unexpected
    return py::make_tuple(3, capture.text(), error_text("internal", "", error.what()));
  }
}

// The options of `podsim COMMAND` as the CLI declares them, or of a command's subcommand when `command` names it
// after a space ("sweep merge", "model describe"): one dict per option with "name" (the long option without
// dashes, or the positional's name), "flag" (--name, or "" for a positional), "takes_value" (false for an on/off
// flag), "repeatable", "required", "default" and "help". Throws ValueError for a command or subcommand podsim
// does not have.
py::list options(const std::string& command) {
  std::istringstream words(command);
  std::string name;
  words >> name;
  const Register add_command = find_command(name);
  CLI::App app{"podsim", "podsim"};
  cli::Action action;
  add_command(app, action);
  CLI::App* sub = app.get_subcommand(name);
  while (words >> name) {
    try {
      sub = sub->get_subcommand(name);
    } catch (const CLI::OptionNotFound&) {
      throw py::value_error("podsim has no command " + command);
    }
  }
  py::list out;
  for (const CLI::Option* option : sub->get_options()) {
    if (option->get_lnames().empty() && !option->get_positional()) continue;  // --help's short form only
    if (!option->get_lnames().empty() && option->get_lnames().front() == "help") continue;
    py::dict entry;
    const bool positional = option->get_lnames().empty();
    const std::string option_name = positional ? option->get_name(true) : option->get_lnames().front();
    entry["name"] = option_name;
    entry["flag"] = positional ? std::string() : "--" + option_name;
    entry["takes_value"] = option->get_expected_max() > 0;  // a flag expects no value
    entry["repeatable"] = option->get_items_expected_max() > 1;
    entry["required"] = option->get_required();
    entry["default"] = option->get_default_str();
    entry["help"] = option->get_description();
    out.append(entry);
  }
  return out;
}

}  // namespace
}  // namespace podsim::python

PYBIND11_MODULE(_podsim, module) {
  module.doc() = "podsim's commands run in this process (the Python API is the package podsim, docs/python.md)";
  module.def("call", &podsim::python::call, py::arg("command"), py::arg("args"),
             "Run `podsim COMMAND ARGS...`: (exit code, stdout text, error JSON text or '')");
  module.def("options", &podsim::python::options, py::arg("command"),
             "The options of `podsim COMMAND` (or of a subcommand: 'sweep merge')");
  std::vector<std::string> sorted;  // by name, as the module has always listed them
  for (const auto& command : podsim::cli::kCommands)
    sorted.emplace_back(command.name);
  std::sort(sorted.begin(), sorted.end());
  py::list names;
  for (const std::string& name : sorted)
    names.append(name);
  module.attr("commands") = names;
}
