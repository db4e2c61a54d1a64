// Buffer lifetimes -> memory in use over time, its peak and what is alive then.
#include "sim/plan/memory_profile.hpp"

#include <algorithm>
#include <limits>

namespace podsim {
namespace {

struct Lifetime {
  double from_s = 0;
  double to_s = std::numeric_limits<double>::infinity();
};

Lifetime lifetime(const PlannedBuffer& buffer, const StepTimes& times) {
  Lifetime life;
  // A view takes no memory (the tensor it holds is counted); a transient input nothing read takes none.
  if (!buffer.view_of.empty() || (buffer.transient && buffer.op < 0)) return {0, 0};
  if (buffer.op < 0) return life;  // declared: the whole program
  life.from_s = times[static_cast<std::size_t>(buffer.op)][static_cast<std::size_t>(std::max(buffer.step, 0))].first;
  if (buffer.last_op >= 0)
    life.to_s = times[static_cast<std::size_t>(buffer.last_op)][static_cast<std::size_t>(buffer.last_step)].second;
  return life;
}

std::vector<int> largest_first(const PlannedProgram& program, std::vector<int> ids) {
  std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
    return program.buffers[static_cast<std::size_t>(a)].bytes_per_chip >
           program.buffers[static_cast<std::size_t>(b)].bytes_per_chip;
  });
  return ids;
}

}  // namespace

std::vector<int> alive_at(const PlannedProgram& program, const StepTimes& times, double time_s) {
  std::vector<int> ids;
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    const Lifetime life = lifetime(program.buffers[b], times);
    if (life.from_s <= time_s && time_s < life.to_s) ids.push_back(static_cast<int>(b));
  }
  return largest_first(program, std::move(ids));
}

MemoryProfile memory_profile(const PlannedProgram& program, const StepTimes& times) {
  struct Event {
    double time_s;
    bool allocation;
    std::uint64_t bytes;
  };
  std::vector<Event> events;
  std::uint64_t in_use = 0;
  for (const auto& buffer : program.buffers) {
    const Lifetime life = lifetime(buffer, times);
    if (!(life.from_s < life.to_s)) continue;
    if (buffer.op < 0) {  // declared: alive from the start
      in_use += buffer.bytes_per_chip;
      continue;
    }
    events.push_back({life.from_s, true, buffer.bytes_per_chip});
    if (life.to_s < std::numeric_limits<double>::infinity())
      events.push_back({life.to_s, false, buffer.bytes_per_chip});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time_s != b.time_s ? a.time_s < b.time_s : (!a.allocation && b.allocation);
  });
  MemoryProfile profile;
  profile.points.push_back({0, in_use});
  profile.peak_bytes = in_use;
  for (std::size_t i = 0; i < events.size();) {
    const double t = events[i].time_s;
    for (; i < events.size() && events[i].time_s == t; ++i)
      in_use = events[i].allocation ? in_use + events[i].bytes : in_use - events[i].bytes;
    if (profile.points.back().time_s == t)
      profile.points.back().bytes = in_use;
    else if (profile.points.back().bytes != in_use)
      profile.points.push_back({t, in_use});
    if (in_use > profile.peak_bytes) {
      profile.peak_bytes = in_use;
      profile.peak_time_s = t;
    }
  }
  profile.alive_at_peak = alive_at(program, times, profile.peak_time_s);
  return profile;
}

}  // namespace podsim
