// Runs functions in fork()ed child processes and collects the bytes each returns through a pipe. SimGrid allows
// one engine per process and aborts on its own errors; a child per simulation isolates both, and lets two
// simulations run on two cores.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace podsim::engine {

using ChildWork = std::function<std::string()>;

// Runs each work in its own child process, at most `parallel` (>= 1) at a time, and returns their results in
// input order. A child's stderr is kept in memory. Once every child has ended, throws for the first failing work
// (by index): the podsim::Error it threw, of the same type and fields (bad input); otherwise
// podsim::InternalError("simulation failed: ...") saying how it failed (another exception's message, a signal, an
// exit code, a malformed result) with the tail of its stderr. Failing to start a child is an InternalError too.
std::vector<std::string> run_in_children(const std::vector<ChildWork>& works, int parallel);

// Whether threads of this process may call run_in_children at once. Not in an AddressSanitizer build: GCC 12's
// sanitizer allocator does not take its large-block lock around fork(), so a child forked while another thread
// allocates a large block can inherit that lock held and wait on it forever (docs/reliability.md, "Sanitizers and
// determinism"). glibc's malloc is fork-safe, so an uninstrumented build may.
constexpr bool children_from_threads() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return false;
#else
  return true;
#endif
#else
  return true;
#endif
}

// The threads a search runs its simulations on: `requested`, or one per core when 0; one when threads may not fork
// children (children_from_threads).
std::size_t simulation_threads(std::size_t requested);

// Calls work(k) once for every k in [0, count), on up to `threads` threads (this one and threads - 1 more) taking
// the next k as they finish. Once all have ended, rethrows the exception of the smallest k that threw.
void for_each_on_threads(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& work);

}  // namespace podsim::engine
