// The ranks' protocol, point to point on MPI_COMM_WORLD. Rank 0 keeps up to kQueuedPerWorker points per worker in
// flight at every other rank (so a rank has its next point at hand while rank 0 is polling) and sends the next
// one when a record comes back: dynamic balancing, as the forked pool does. Nobody blocks in MPI: Open MPI's
// blocking calls spin on a core that the ranks' workers need, so every rank polls (MPI_Iprobe) between short waits
// on its workers' pipes.
#include "sim/sweep/mpi/sweep_ranks.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <thread>

#include "models/common/error.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_worker_pool.hpp"

namespace podsim {
namespace {

constexpr int kPointTag = 1;   // rank 0 -> worker rank: 8-byte point index
constexpr int kStopTag = 2;    // rank 0 -> worker rank: no more points (empty)
constexpr int kRecordTag = 3;  // worker rank -> rank 0: 8-byte point index, then the record line
constexpr int kFailedTag = 4;  // worker rank -> rank 0: why its workers cannot go on (an internal error)
constexpr std::size_t kQueuedPerWorker = 2;
constexpr auto kPollStep = std::chrono::milliseconds(1);

// MPI_Init on construction, MPI_Finalize on destruction.
class MpiWorld {
 public:
  MpiWorld() {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;
  ~MpiWorld() {
    if (finalize_) MPI_Finalize();
  }
  // After a signal mpirun is ending the job: MPI_Finalize would wait for ranks that are gone.
  void abandon() { finalize_ = false; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool finalize_ = true;
};

struct Message {
  int source = 0;
  int tag = 0;
  std::string bytes;
};

// The next message from `source` (MPI_ANY_SOURCE for any) with `tag` (MPI_ANY_TAG for any), if one has arrived.
std::optional<Message> try_receive(int source, int tag) {
  int arrived = 0;
  MPI_Status status;
  MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, &status);
  if (arrived == 0) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  Message message{status.MPI_SOURCE, status.MPI_TAG, std::string(static_cast<std::size_t>(count), '\0')};
  MPI_Recv(message.bytes.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return message;
}

// Sends without spinning in MPI: waits for the send in short steps; false when `stop` says to give up first.
bool send(const std::string& bytes, int dest, int tag, const std::function<bool()>& stop) {
  MPI_Request request;
  MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD, &request);
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return true;
    if (stop && stop()) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

std::string point_bytes(std::size_t point) {
  const auto value = static_cast<std::uint64_t>(point);
  return std::string(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::size_t point_of(const std::string& bytes) {
  std::uint64_t value = 0;
  if (bytes.size() < sizeof(value)) throw InternalError("a sweep rank sent a message without a point index");
  std::memcpy(&value, bytes.data(), sizeof(value));
  return static_cast<std::size_t>(value);
}

// Rank 0's evaluator: its own workers first, then the rank with the most free places.
class RankEvaluator final : public PointEvaluator {
 public:
  RankEvaluator(SweepWorkerPool& local, int ranks, std::size_t per_rank)
      : local_(local), in_flight_(static_cast<std::size_t>(ranks), 0), per_rank_(per_rank) {}
  RankEvaluator(const RankEvaluator&) = delete;
  RankEvaluator& operator=(const RankEvaluator&) = delete;
  ~RankEvaluator() override { stop_ranks(); }

  std::size_t slots() const override { return local_.slots() + (in_flight_.size() - 1) * per_rank_; }

  void submit(std::size_t point) override {
    if (local_.busy() < local_.slots()) return local_.submit(point);
    std::size_t best = 0;
    for (std::size_t r = 1; r < in_flight_.size(); ++r)
      if (in_flight_[r] < per_rank_ && (best == 0 || in_flight_[r] < in_flight_[best])) best = r;
    if (best == 0) throw InternalError("a point was handed to the sweep's ranks with no free place");
    send(point_bytes(point), static_cast<int>(best), kPointTag, nullptr);
    ++in_flight_[best];
  }

  // One round (the runner polls its interrupt flag between rounds): the records that came in, then a short wait
  // on the own workers.
  std::vector<EvaluatedPoint> collect(std::chrono::milliseconds timeout) override {
    std::vector<EvaluatedPoint> done;
    while (auto message = try_receive(MPI_ANY_SOURCE, MPI_ANY_TAG)) {
      if (message->tag == kFailedTag)
        throw InternalError("rank " + std::to_string(message->source) + ": " + message->bytes);
      if (message->tag != kRecordTag) continue;
      --in_flight_[static_cast<std::size_t>(message->source)];
      done.push_back({point_of(message->bytes), message->bytes.substr(sizeof(std::uint64_t))});
    }
    const auto wait = !done.empty()           ? std::chrono::milliseconds(0)
                      : in_flight_.size() > 1 ? std::min(timeout, kPollStep)
                                              : timeout;
    for (EvaluatedPoint& answer : local_.collect(wait))
      done.push_back(std::move(answer));
    return done;
  }

  void finish(bool interrupted) override {
    stop_ranks(interrupted);
    local_.finish(interrupted);
  }

 private:
  // After an interrupt or an error the other ranks may be gone already: then each stop is given a moment only.
  void stop_ranks(bool hurry = true) {
    if (stopped_) return;
    stopped_ = true;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    const auto late = [&] { return hurry && std::chrono::steady_clock::now() > give_up; };
    for (std::size_t r = 1; r < in_flight_.size(); ++r)
      send(std::string(), static_cast<int>(r), kStopTag, late);
  }

  SweepWorkerPool& local_;
  std::vector<std::size_t> in_flight_;  // per rank (index 0 unused: rank 0's own are in local_)
  std::size_t per_rank_;
  bool stopped_ = false;
};

// A worker rank: evaluates the points rank 0 sends until it says stop. Returns true when a signal stopped it.
bool serve_points(SweepWorkerPool& pool, const std::function<bool()>& interrupted) {
  std::deque<std::size_t> queue;
  const auto stopped = [&] { return interrupted && interrupted(); };
  for (;;) {
    if (stopped()) {
      pool.finish(true);
      return true;
    }
    bool stop = false;
    while (auto message = try_receive(0, MPI_ANY_TAG)) {
      if (message->tag == kPointTag) queue.push_back(point_of(message->bytes));
      if (message->tag == kStopTag) stop = true;
    }
    if (stop) {
      pool.finish(pool.busy() > 0 || !queue.empty());  // points left only when rank 0 was interrupted
      return false;
    }
    while (pool.busy() < pool.slots() && !queue.empty()) {
      pool.submit(queue.front());
      queue.pop_front();
    }
    std::vector<EvaluatedPoint> answers;
    try {
      answers = pool.collect(kPollStep);
    } catch (const InternalError& e) {
      if (signalled_soon(interrupted)) continue;
      pool.finish(true);
      send(e.what(), 0, kFailedTag, stopped);
      queue.clear();
      // Rank 0 stops the job: wait for its word, dropping the points it sent meanwhile.
      while (!stopped()) {
        if (auto message = try_receive(0, kStopTag)) return false;
        while (try_receive(0, kPointTag)) {
        }
        std::this_thread::sleep_for(kPollStep);
      }
      return true;
    }
    for (const EvaluatedPoint& answer : answers)
      if (!send(point_bytes(answer.point) + answer.record, 0, kRecordTag, stopped)) break;
  }
}

}  // namespace

SweepOutcome run_sweep_on_ranks(const SweepSpec& spec, const SweepOptions& options) {
  SweepWorkerPool pool(spec, options.model, options.jobs, options.uncalibrated);
  MpiWorld world;
  if (world.rank() == 0) {
    RankEvaluator evaluator(pool, world.size(), kQueuedPerWorker * pool.slots());
    SweepOptions ranked = options;
    ranked.evaluator = &evaluator;
    SweepOutcome outcome = run_sweep(spec, ranked);
    if (outcome.interrupted) world.abandon();
    return outcome;
  }
  SweepOutcome outcome;
  outcome.rank = world.rank();
  outcome.interrupted = serve_points(pool, options.interrupted);
  if (outcome.interrupted) world.abandon();
  return outcome;
}

}  // namespace podsim
