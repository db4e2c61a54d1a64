// Writing a whole buffer to a file descriptor (a results file, a pipe between a sweep and its workers): write(2)
// may write less than asked or be interrupted by a signal, so it loops.
#pragma once

#include <cstddef>

namespace podsim {

// Writes all `size` bytes of `data` to `fd`, retrying after EINTR. False when a write fails (errno says why) or
// writes nothing.
bool write_all(int fd, const char* data, std::size_t size);

}  // namespace podsim
