// Runs functions in fork()ed child processes and collects the bytes each returns through a pipe. SimGrid allows
// one engine per process and aborts on its own errors; a child per simulation isolates both, and lets two
// simulations run on two cores.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace podsim::engine {

using ChildWork = std::function<std::string()>;

// Runs each work in its own child process, at most `parallel` (>= 1) at a time, and returns their results in
// input order. A child's stderr is kept in memory. Once every child has ended, throws
// podsim::Error("simulation failed: ...") for the first failing work (by index): the message of the exception it
// threw, or how it died (signal, exit code) followed by the tail of its stderr.
std::vector<std::string> run_in_children(const std::vector<ChildWork>& works, int parallel);

}  // namespace podsim::engine
