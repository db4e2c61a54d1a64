// How many candidates' des run at once on the plan search's threads: each asks for the memory its event graph will
// take before building it, and waits while the others' requests would overflow the machine's available memory.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

namespace podsim {

// The bytes one task of a candidate's des holds in the parent while it is simulated: the task (48), its timing (16),
// the translation quotient's twin and quotient id (8), and the dependency lists and vectors around them (measured:
// LLaMA 3 70B's stretch of 3 layers on a 16x16x16 v5p, 87.9 million tasks, peaked at 6.21 GiB, 76 bytes a task).
inline constexpr std::uint64_t kDesBytesPerTask = 80;

// A budget of bytes shared by the threads of one plan search. A request waits until it fits beside those granted,
// or until none is granted (a request larger than the budget runs alone, as it would with one thread): each thread
// holds at most one grant at a time, so no request waits forever.
class DesMemoryGate {
 public:
  explicit DesMemoryGate(std::uint64_t budget_bytes) : budget_bytes_(budget_bytes) {}
  DesMemoryGate(const DesMemoryGate&) = delete;
  DesMemoryGate& operator=(const DesMemoryGate&) = delete;

  // Bytes granted until it is destroyed.
  class Grant {
   public:
    Grant() = default;
    Grant(Grant&& other) noexcept : gate_(other.gate_), bytes_(other.bytes_) { other.gate_ = nullptr; }
    Grant& operator=(Grant&&) = delete;
    Grant(const Grant&) = delete;
    ~Grant();

   private:
    friend class DesMemoryGate;
    Grant(DesMemoryGate* gate, std::uint64_t bytes) : gate_(gate), bytes_(bytes) {}
    DesMemoryGate* gate_ = nullptr;
    std::uint64_t bytes_ = 0;
  };

  // Waits until `bytes` fit beside the bytes granted (or none are), then grants them.
  Grant acquire(std::uint64_t bytes);

  std::uint64_t budget_bytes() const { return budget_bytes_; }
  std::uint64_t granted_bytes() const;

 private:
  void release(std::uint64_t bytes);

  const std::uint64_t budget_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  std::uint64_t granted_bytes_ = 0;
};

// MemAvailable of /proc/meminfo in bytes (the memory the kernel can give without swapping), or nullopt where there is
// none (not Linux) or it cannot be read.
std::optional<std::uint64_t> available_memory_bytes();

}  // namespace podsim
