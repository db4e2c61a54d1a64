// The plan search's memory budget for concurrent candidates' des (des_memory_gate.hpp).
#include "sim/capacity/des_memory_gate.hpp"

#include <fstream>
#include <sstream>
#include <string>

namespace podsim {

DesMemoryGate::Grant::~Grant() {
  if (gate_ != nullptr) gate_->release(bytes_);
}

DesMemoryGate::Grant DesMemoryGate::acquire(std::uint64_t bytes) {
  std::unique_lock lock(mutex_);
  released_.wait(lock, [&] { return granted_bytes_ == 0 || granted_bytes_ + bytes <= budget_bytes_; });
  granted_bytes_ += bytes;
  return Grant(this, bytes);
}

std::uint64_t DesMemoryGate::granted_bytes() const {
  const std::lock_guard lock(mutex_);
  return granted_bytes_;
}

void DesMemoryGate::release(std::uint64_t bytes) {
  {
    const std::lock_guard lock(mutex_);
    granted_bytes_ -= bytes;
  }
  released_.notify_all();
}

std::optional<std::uint64_t> available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    std::uint64_t kib = 0;
    if (fields >> key >> kib >> unit && key == "MemAvailable:" && unit == "kB") return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace podsim
