// Encoding and decoding of a child's GraphRun.
#include "sim/engine/result_codec.hpp"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "models/common/error.hpp"

namespace podsim::engine {
namespace {

constexpr std::uint64_t kMagic = 0x32746e65766d6973;  // "simvent2"

template <typename T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

}  // namespace

std::string encode_run(const GraphRun& run) {
  std::string out;
  out.reserve(3 * sizeof(std::uint64_t) + run.tasks.size() * 2 * sizeof(double));
  put(out, kMagic);
  put(out, static_cast<std::uint64_t>(run.tasks.size()));
  for (const TaskTiming& timing : run.tasks) {
    put(out, timing.start_s);
    put(out, timing.end_s);
  }
  put(out, run.wall_s);
  put(out, run.rss_growth_bytes);
  return out;
}

GraphRun decode_run(std::string_view bytes) {
  std::size_t at = 0;
  auto take = [&](auto& value) {
    if (bytes.size() - at < sizeof(value))
      throw InternalError(fmt::format("simulation result: must be a complete encoding, got: {} bytes", bytes.size()));
    std::memcpy(&value, bytes.data() + at, sizeof(value));
    at += sizeof(value);
  };
  std::uint64_t magic = 0, count = 0;
  take(magic);
  if (magic != kMagic)
    throw InternalError("simulation result: must start with the podsim magic word, got: other bytes");
  take(count);
  if (count > bytes.size() / (2 * sizeof(double)))
    throw InternalError(
        fmt::format("simulation result: task count must fit the {} bytes, got: {}", bytes.size(), count));
  GraphRun run;
  run.tasks.resize(count);
  for (TaskTiming& timing : run.tasks) {
    take(timing.start_s);
    take(timing.end_s);
  }
  take(run.wall_s);
  take(run.rss_growth_bytes);
  if (at != bytes.size())
    throw InternalError(
        fmt::format("simulation result: must end after the peak memory, got: {} extra bytes", bytes.size() - at));
  return run;
}

}  // namespace podsim::engine
