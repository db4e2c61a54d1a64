// The dependency list of one task in 12 bytes: up to two ids inline (every ring and line step after the first
// needs no more), more on the heap. Millions of tasks then need no allocation of their own; it reads and writes
// like std::vector<TaskId>.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace podsim {

using TaskId = std::int32_t;

class DepList {
 public:
  static constexpr std::size_t kInline = 2;

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
    if (size() == capacity()) reserve(2 * capacity());
    data()[size()] = id;
    ++size_;
  }
  void reserve(std::size_t wanted) {
    if (wanted <= capacity()) return;
    // A heap block holds its capacity first, then the ids.
    auto* block = new TaskId[wanted + 1];
    block[0] = static_cast<TaskId>(wanted);
    std::copy(data(), data() + size(), block + 1);
    const std::uint32_t count = size();
    release();
    std::memcpy(words_, &block, sizeof(block));
    size_ = count | kOnHeap;
  }
  void clear() { size_ &= kOnHeap; }

  std::uint32_t size() const { return size_ & ~kOnHeap; }
  bool empty() const { return size() == 0; }
  TaskId* data() { return on_heap() ? heap() + 1 : words_; }
  const TaskId* data() const { return on_heap() ? heap() + 1 : words_; }
  TaskId* begin() { return data(); }
  TaskId* end() { return data() + size(); }
  const TaskId* begin() const { return data(); }
  const TaskId* end() const { return data() + size(); }
  TaskId& operator[](std::size_t i) { return data()[i]; }
  TaskId operator[](std::size_t i) const { return data()[i]; }
  TaskId back() const { return data()[size() - 1]; }

  operator std::vector<TaskId>() const { return {begin(), end()}; }  // NOLINT: implicit, like a vector
  friend bool operator==(const DepList& a, const DepList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr std::uint32_t kOnHeap = 0x80000000u;
  bool on_heap() const { return (size_ & kOnHeap) != 0; }
  TaskId* heap() const {
    TaskId* block = nullptr;
    std::memcpy(&block, words_, sizeof(block));
    return block;
  }
  std::size_t capacity() const { return on_heap() ? static_cast<std::size_t>(heap()[0]) : kInline; }
  void append(const TaskId* ids, std::size_t count) {
    reserve(size() + count);
    std::copy(ids, ids + count, data() + size());
    size_ += static_cast<std::uint32_t>(count);
  }
  void release() {
    if (on_heap()) delete[] heap();
    size_ = 0;
  }
  void take(DepList& other) {
    std::memcpy(words_, other.words_, sizeof(words_));
    size_ = other.size_;
    other.size_ = 0;
  }

  TaskId words_[kInline] = {};  // the ids, or the heap block's address
  std::uint32_t size_ = 0;      // the count, and kOnHeap when the ids live on the heap
};

static_assert(sizeof(DepList) == 12);

}  // namespace podsim
