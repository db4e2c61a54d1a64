// A temporary file beside the destination, renamed over it when complete (sim/report/output_file.hpp).
#include "sim/report/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "models/common/error.hpp"
#include "models/common/shown_text.hpp"

namespace podsim::report {
namespace {

namespace fs = std::filesystem;

// The path as the file it names: symbolic links and ".." followed as far as they exist (weakly_canonical), or the
// absolute path when even that fails.
fs::path resolved(const std::string& path) {
  std::error_code error;
  fs::path out = fs::weakly_canonical(fs::path(path), error);
  if (error) out = fs::absolute(fs::path(path), error).lexically_normal();
  return out;
}

// Whether two paths name one file: the same resolved path, or (both existing) the same inode.
bool same_file(const std::string& a, const std::string& b) {
  if (resolved(a) == resolved(b)) return true;
  std::error_code error;
  return fs::equivalent(fs::path(a), fs::path(b), error) && !error;
}

// The mode a new file gets under the process's umask (0666 less it), read without changing it for good.
mode_t new_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return static_cast<mode_t>(0666 & ~mask);
}

}  // namespace

OutputFile::OutputFile(std::string flag, std::string path) : flag_(std::move(flag)), path_(std::move(path)) {
  if (path_.empty()) throw InputError(flag_, "give a file name, got: an empty one");
  std::error_code error;
  if (fs::is_directory(fs::path(path_), error))
    throw InputError(flag_, "a folder, not a file, got: " + cut_shown(path_));
  // A device or a pipe (`--report /dev/null`) is written in place: a file renamed over it would replace it (as root,
  // /dev/null itself).
  if (const fs::file_status status = fs::status(fs::path(path_), error);
      !error && fs::exists(status) && !fs::is_regular_file(status)) {
    in_place_ = true;
    out_.open(path_, std::ios::binary);
    if (!out_) fail("cannot write the file", errno);
    return;
  }
  const fs::path target(path_);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string pattern = (folder / ("." + target.filename().string() + ".podsim-XXXXXX")).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    const int saved = errno;
    throw InputError(flag_,
                     std::string("cannot write the file (") + std::strerror(saved) + "), got: " + cut_shown(path_));
  }
  ::fchmod(fd, new_file_mode());
  ::close(fd);
  temporary_ = pattern;
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) fail("cannot write the file", errno);
}

OutputFile::~OutputFile() {
  if (committed_ || temporary_.empty()) return;
  out_.close();
  std::remove(temporary_.c_str());
}

void OutputFile::fail(const std::string& what, int error) {
  out_.close();
  if (!temporary_.empty()) std::remove(temporary_.c_str());
  temporary_.clear();
  // A stream that failed during an earlier write has lost its errno: name the usual causes.
  const std::string reason = error != 0 ? std::string(" (") + std::strerror(error) + ")"
                                        : " whole (a full disk, a file-size limit or an I/O error)";
  throw InputError(flag_, what + reason + ", got: " + cut_shown(path_));
}

void OutputFile::commit() {
  errno = 0;
  out_.flush();
  if (!out_) fail("cannot write the file", errno);
  out_.close();
  if (out_.fail()) fail("cannot write the file", errno);
  if (!in_place_ && std::rename(temporary_.c_str(), path_.c_str()) != 0) fail("cannot write the file", errno);
  committed_ = true;
}

void check_outputs(const std::vector<OutputPath>& outputs, const std::vector<OutputPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& out = outputs[i];
    if (out.path.empty()) continue;
    for (const OutputPath& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path))
        throw InputError(out.flag, "the same file as the input " + in.flag +
                                       ", which it would overwrite, got: " + cut_shown(out.path));
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path))
        throw InputError(out.flag, "the same file as " + outputs[j].flag +
                                       ": give each output its own file, got: " + cut_shown(out.path));
  }
}

void check_standard_output() {
  errno = 0;
  std::cout.flush();
  if (std::cout.fail()) {
    const int error = errno;
    std::cout.clear();
    throw InputError("standard output",
                     std::string("cannot write") + (error != 0 ? std::string(" (") + std::strerror(error) + ")" : ""));
  }
}

TerminalSafeBuffer::int_type TerminalSafeBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  const std::string text = terminal_safe(std::string_view(&ch, 1));
  const auto n = static_cast<std::streamsize>(text.size());
  return sink_->sputn(text.data(), n) == n ? c : traits_type::eof();
}

std::streamsize TerminalSafeBuffer::xsputn(const char* s, std::streamsize n) {
  const std::string text = terminal_safe(std::string_view(s, static_cast<std::size_t>(n)));
  const auto m = static_cast<std::streamsize>(text.size());
  return sink_->sputn(text.data(), m) == m ? n : 0;
}

}  // namespace podsim::report
