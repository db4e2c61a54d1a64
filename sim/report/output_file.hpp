// The one writer of podsim's output files (docs/reliability.md, "Outputs"): a file is written whole or not at all.
// Its text goes to a temporary file in the destination's folder, which is flushed, closed, checked and then renamed
// over the destination; a failure (a full disk, a file-size limit, a folder that cannot be written) removes the
// temporary file and is an InputError located at the flag that named the file (exit 2), and so is a command that
// stops before it commits: the destination is never left truncated, emptied or half-written.
#pragma once

#include <fstream>
#include <streambuf>
#include <string>
#include <vector>

namespace podsim::report {

class OutputFile {
 public:
  // Opens a temporary file beside `path` (its folder must exist and be writable); a `path` that is a device or a pipe
  // (/dev/null, /dev/stdout) is opened and written in place instead. `flag` names the option that gave the path
  // ("--report"), for the messages.
  OutputFile(std::string flag, std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Removes the temporary file unless the output was committed.
  ~OutputFile();

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }

  // Flushes and closes the temporary file, checks that every byte was written, and renames it over the path (the
  // file's permissions as a new file's under the process's umask). Throws InputError(flag, ...) on any failure,
  // after removing the temporary file.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what, int error);

  std::string flag_;
  std::string path_;
  std::string temporary_;
  bool in_place_ = false;  // a device or a pipe (/dev/null, /dev/stdout): written as it is, never renamed over
  std::ofstream out_;
  bool committed_ = false;
};

// One output of a command: the flag that names it and its path.
struct OutputPath {
  std::string flag;
  std::string path;
};

// Checks, before any output is opened, that no output path is one of `inputs` (the files and folders the command
// reads) or another output: `error: --report: the same file as --trace, got: PATH`. Paths are compared as the
// files they name (symbolic links and `..` followed), whether they exist or not; empty paths (outputs not asked
// for) are skipped.
void check_outputs(const std::vector<OutputPath>& outputs, const std::vector<OutputPath>& inputs);

// Checks that standard output took everything written to it (a full disk, a closed pipe): throws InputError
// ("standard output", ...) after a flush that failed.
void check_standard_output();

// A stream buffer that passes what is written to `sink` through terminal_safe, byte by byte: podsim puts it under
// standard output when that is a terminal (tools/podsim/main.cpp), so that text reports escape hostile names.
class TerminalSafeBuffer : public std::streambuf {
 public:
  explicit TerminalSafeBuffer(std::streambuf* sink) : sink_(sink) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override { return sink_->pubsync(); }

 private:
  std::streambuf* sink_;
};

}  // namespace podsim::report
