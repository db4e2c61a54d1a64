// The dependency list of one task: up to four ids stored inline (every ring and line schedule fits), more on
// the heap. Millions of tasks then need no allocation of their own; it reads and writes like std::vector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace podsim {

using TaskId = std::int32_t;

class DepList {
 public:
  static constexpr std::uint32_t kInline = 4;

  DepList() = default;
  DepList(std::initializer_list<TaskId> ids) { append(ids.begin(), ids.size()); }
  DepList(const std::vector<TaskId>& ids) { append(ids.data(), ids.size()); }  // NOLINT: implicit, like a vector
  DepList(const DepList& other) { append(other.data(), other.size()); }
  DepList(DepList&& other) noexcept { take(other); }
  ~DepList() { release(); }

  DepList& operator=(const DepList& other) {
    if (this != &other) {
      clear();
      append(other.data(), other.size());
    }
    return *this;
  }
  DepList& operator=(DepList&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  DepList& operator=(const std::vector<TaskId>& ids) {
    clear();
    append(ids.data(), ids.size());
    return *this;
  }
  DepList& operator=(std::initializer_list<TaskId> ids) {
    clear();
    append(ids.begin(), ids.size());
    return *this;
  }

  void push_back(TaskId id) {
    if (size_ == capacity_) reserve(2 * capacity_);
    data()[size_++] = id;
  }
  void reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    auto* grown = new TaskId[capacity];
    std::copy(data(), data() + size_, grown);
    release();
    heap_ = grown;
    capacity_ = static_cast<std::uint32_t>(capacity);
  }
  void clear() { size_ = 0; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  TaskId* data() { return capacity_ > kInline ? heap_ : inline_; }
  const TaskId* data() const { return capacity_ > kInline ? heap_ : inline_; }
  TaskId* begin() { return data(); }
  TaskId* end() { return data() + size_; }
  const TaskId* begin() const { return data(); }
  const TaskId* end() const { return data() + size_; }
  TaskId& operator[](std::size_t i) { return data()[i]; }
  TaskId operator[](std::size_t i) const { return data()[i]; }
  TaskId back() const { return data()[size_ - 1]; }

  operator std::vector<TaskId>() const { return {begin(), end()}; }  // NOLINT: implicit, like a vector
  friend bool operator==(const DepList& a, const DepList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void append(const TaskId* ids, std::size_t count) {
    reserve(size_ + count);
    std::copy(ids, ids + count, data() + size_);
    size_ += static_cast<std::uint32_t>(count);
  }
  void release() {
    if (capacity_ > kInline) delete[] heap_;
    capacity_ = kInline;
  }
  void take(DepList& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (capacity_ > kInline) {
      heap_ = other.heap_;
    } else {
      std::copy(other.inline_, other.inline_ + size_, inline_);
    }
    other.size_ = 0;
    other.capacity_ = kInline;
  }

  union {
    TaskId inline_[kInline];
    TaskId* heap_;
  };
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
};

}  // namespace podsim
