// Request-level serving on SimGrid (serving_simulation.hpp). One host, no network: the router and the replicas are
// actors that sleep for arrival gaps and step times and wake each other through SimGrid condition variables, so the
// clock is SimGrid's and the order of events at one time is its scheduler's (deterministic). The run happens in a
// child process (fork_runner.hpp) and comes back in a compact binary form.
#include "sim/engine/serving_simulation.hpp"

#include <xbt/log.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "models/common/error.hpp"
#include "sim/engine/fork_runner.hpp"
#include "sim/engine/kv_network.hpp"
#include "sim/engine/network_config.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/engine/route_zone.hpp"

namespace podsim {
namespace {

namespace sg4 = simgrid::s4u;

// What the parent gets back, field by field (both ends are the same program: native byte order).
class ServingWriter {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  template <typename T>
  void put_all(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    out_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ServingReader {
 public:
  explicit ServingReader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    T value;
    need(sizeof(T));
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  template <typename T>
  std::vector<T> get_all() {
    const auto count = get<std::uint64_t>();
    if (count > (bytes_.size() - at_) / sizeof(T)) malformed();
    std::vector<T> values(static_cast<std::size_t>(count));
    if (!values.empty()) std::memcpy(values.data(), bytes_.data() + at_, values.size() * sizeof(T));
    at_ += values.size() * sizeof(T);
    return values;
  }
  void finish() const {
    if (at_ != bytes_.size()) malformed();
  }

 private:
  void need(std::size_t size) const {
    if (bytes_.size() - at_ < size) malformed();
  }
  [[noreturn]] static void malformed() { throw InternalError("serving simulation returned a malformed result"); }

  std::string_view bytes_;
  std::size_t at_ = 0;
};

constexpr std::uint64_t kServingMagic = 0x31767265735f7370;  // "ps_serv1"

struct ItlRun {  // one run of WeightedSamples (std::pair is not trivially copyable)
  double value;
  std::int64_t count;
};

std::string encode_serving(const ServingRunResult& result) {
  ServingWriter out;
  out.put(kServingMagic);
  out.put_all(result.completed);
  std::vector<ItlRun> runs;
  runs.reserve(result.itl.runs().size());
  for (const auto& [value, count] : result.itl.runs())
    runs.push_back(ItlRun{value, count});
  out.put_all(runs);
  out.put_all(result.steps);
  out.put_all(result.replicas);
  out.put(result.end_s);
  out.put_all(result.transfers);
  out.put(result.prefill_replicas);
  return out.take();
}

ServingRunResult decode_serving(std::string_view bytes) {
  ServingReader in(bytes);
  if (in.get<std::uint64_t>() != kServingMagic) throw InternalError("serving simulation returned a malformed result");
  ServingRunResult result;
  result.completed = in.get_all<RequestRecord>();
  for (const ItlRun& run : in.get_all<ItlRun>())
    result.itl.add(run.value, run.count);
  result.steps = in.get_all<ServingStepSample>();
  result.replicas = in.get_all<ServingReplicaTotals>();
  result.end_s = in.get<double>();
  result.transfers = in.get_all<KvTransferSample>();
  result.prefill_replicas = in.get<std::int64_t>();
  in.finish();
  return result;
}

// The state the actors share. SimGrid runs one actor at a time, so plain containers are safe between blocking calls.
class ServingRun {
 public:
  explicit ServingRun(const ServingRunSpec& spec)
      : spec_(spec), prefill_(spec.disaggregated ? static_cast<std::size_t>(spec.disaggregated->prefill_replicas) : 0) {
    for (std::size_t r = 0; r < spec.replicas.size(); ++r) {
      replicas_.push_back(std::make_unique<Replica>(spec.replicas[r].scheduler));
      replicas_.back()->wake = sg4::ConditionVariable::create();
      replicas_.back()->lock = sg4::Mutex::create();
      // A prefill replica keeps a request's KV until the decode replica has it (vLLM's delayed free on the producer).
      if (r < prefill_) replicas_.back()->scheduler.hold_finished_kv(true);
      totals_.push_back(ServingReplicaTotals{0, 0, spec.replicas[r].scheduler.kv_capacity_blocks, 0, 0});
    }
  }

  // `hosts`: one per replica (co-located: the same one for all); the router and the clients run on the first.
  void create_actors(const std::vector<sg4::Host*>& hosts) {
    hosts_ = hosts;
    sg4::Host* host = hosts.front();
    if (std::holds_alternative<ClosedLoopArrivals>(spec_.traffic.arrival)) {
      closed_.emplace(spec_.traffic);
      sg4::Actor::create("clients", host, [this] {
        guarded([this] {
          for (const Request& request : closed_->start())
            submit(request);
          wake_routed();
          if (in_flight_ == 0) finish_arrivals();
        });
      });
    } else {
      open_ = generate_requests(spec_.traffic);
      sg4::Actor::create("router", host, [this] { guarded([this] { route_open_loop(); }); });
    }
    for (std::size_t r = 0; r < replicas_.size(); ++r)
      sg4::Actor::create(fmt::format("replica{}", r), hosts_[r],
                         [this, r] { guarded([this, r] { replica_main(r); }); });
  }

  // The first error of any actor, rethrown once the engine has stopped.
  void rethrow_error() const {
    if (error_) std::rethrow_exception(error_);
  }

  ServingRunResult result() && {
    ServingRunResult out;
    out.completed = recorder_.completed();
    out.itl = recorder_.itl_samples();
    out.steps = std::move(steps_);
    out.replicas = std::move(totals_);
    out.end_s = end_s_;
    out.transfers = std::move(transfers_);
    out.prefill_replicas = static_cast<std::int64_t>(prefill_);
    return out;
  }

 private:
  struct Replica {
    explicit Replica(const SchedulerConfig& config) : scheduler(config) {}
    Scheduler scheduler;
    std::deque<Request> inbox;
    std::int64_t outstanding = 0;  // routed and not finished
    bool routed_since_wake = false;
    bool signalled = false;  // woken since it last waited: it must look again before it waits
    sg4::ConditionVariablePtr wake;
    sg4::MutexPtr lock;
  };

  // Runs an actor's body; an exception ends the whole run (every actor killed) and is kept for the caller.
  template <typename Body>
  void guarded(Body&& body) {
    try {
      body();
    } catch (...) {
      if (!error_) error_ = std::current_exception();
      sg4::Actor::kill_all();
    }
  }

  // Arrivals at one instant are routed together and their replicas woken after the last of them, so that a replica
  // plans its next step with every request that has arrived by then (notifying is a simcall, which lets the woken
  // replica run before the router goes on).
  void route_open_loop() {
    for (std::size_t i = 0; i < open_.size();) {
      const double now = sg4::Engine::get_clock();
      if (open_[i].arrival_s > now) sg4::this_actor::sleep_for(open_[i].arrival_s - now);
      const double at = open_[i].arrival_s;
      for (; i < open_.size() && open_[i].arrival_s <= at; ++i)
        submit(open_[i]);
      wake_routed();
    }
    finish_arrivals();
  }

  void wake_routed() {
    for (const auto& replica : replicas_)
      if (replica->routed_since_wake) {
        replica->routed_since_wake = false;
        wake(*replica);
      }
  }

  // The replica of [first, end) with the fewest outstanding requests (the first of equals).
  std::size_t least_outstanding(std::size_t first, std::size_t end) const {
    std::size_t best = first;
    for (std::size_t r = first + 1; r < end; ++r)
      if (replicas_[r]->outstanding < replicas_[best]->outstanding) best = r;
    return best;
  }

  // The router's choice: over every replica, or over the prefill pool when disaggregated.
  std::size_t pick_replica() {
    const std::size_t pool = prefill_ > 0 ? prefill_ : replicas_.size();
    if (spec_.routing == Routing::round_robin) return static_cast<std::size_t>(routed_ % pool);
    return least_outstanding(0, pool);
  }

  // A request arrives now: recorded and routed (its replica is woken by the caller, wake_routed).
  void submit(const Request& request) {
    recorder_.arrived(request);
    const std::size_t r = pick_replica();
    ++routed_;
    ++in_flight_;
    Replica& replica = *replicas_[r];
    ++replica.outstanding;
    ++totals_[r].requests;
    replica.routed_since_wake = true;
    if (prefill_ == 0) {
      replica.inbox.push_back(request);
      return;
    }
    // Its prompt only: the prefill replica samples one token, which the client never sees (vLLM's P/D proxy sends
    // the request to the prefill instance with max_tokens 1 and drops its answer).
    Request prompt = request;
    prompt.output_tokens = 1;
    replica.inbox.push_back(prompt);
    originals_.emplace(request.id, request);
  }

  // No request will arrive any more: every idle replica wakes to see it.
  void finish_arrivals() {
    arrivals_done_ = true;
    for (const auto& replica : replicas_)
      wake(*replica);
  }

  void finished(std::size_t r) {
    --replicas_[r]->outstanding;
    --in_flight_;
    end_s_ = sg4::Engine::get_clock();
    if (prefill_ > 0 && arrivals_done_ && in_flight_ == 0) finish_arrivals();  // the idle decode replicas stop
    if (!closed_) return;
    if (std::optional<Request> next = closed_->next(end_s_)) {
      submit(*next);
      wake_routed();
    } else if (in_flight_ == 0) {
      finish_arrivals();
    }
  }

  void replica_main(std::size_t r) {
    Replica& replica = *replicas_[r];
    const StepTimeFn& step_time = spec_.replicas[r].step_s;
    while (true) {
      while (!replica.inbox.empty()) {
        replica.scheduler.add_request(replica.inbox.front());
        replica.inbox.pop_front();
      }
      if (!replica.scheduler.has_work()) {
        // A decode replica may still receive a request while any is in flight (in a prefill or a transfer).
        if (arrivals_done_ && (prefill_ == 0 || r < prefill_ || in_flight_ == 0)) return;
        wait_for_work(replica);
        continue;
      }
      const StepBatch batch = replica.scheduler.schedule();
      if (batch.empty()) {  // a prefill replica whose cache the KV of its transfers holds: one ends, then it goes on
        wait_for_work(replica);
        continue;
      }
      const BatchSignature signature = batch_signature(batch);
      const double step_s = step_time(signature);
      if (!(std::isfinite(step_s) && step_s > 0))
        throw InternalError(fmt::format("serving: replica {}'s step model gave {} s for a batch of {} tokens", r,
                                        step_s, batch.total_tokens));
      sg4::this_actor::sleep_for(step_s);
      const StepResult stepped = replica.scheduler.finish_step();
      const double now = sg4::Engine::get_clock();
      if (r >= prefill_)
        for (const std::int64_t id : stepped.emitted)
          recorder_.token(id, now);
      ServingReplicaTotals& totals = totals_[r];
      ++totals.steps;
      totals.preemptions = replica.scheduler.preemptions();
      totals.kv_peak_blocks = std::max(totals.kv_peak_blocks, replica.scheduler.kv_used_blocks());
      if (spec_.keep_steps)
        steps_.push_back(ServingStepSample{now, step_s, static_cast<std::int32_t>(r),
                                           static_cast<std::int32_t>(batch.requests.size()), batch.total_tokens,
                                           signature.prefill_tokens, replica.scheduler.kv_used_blocks(),
                                           replica.scheduler.waiting_count(), replica.scheduler.running_count()});
      if (r < prefill_) {
        for (const std::int64_t id : stepped.finished)
          prefilled(r, id);
      } else {
        for (std::size_t k = 0; k < stepped.finished.size(); ++k)
          finished(r);
      }
    }
  }

  // Waits until woken, unless it was woken since it last waited: a wake that comes while the replica is on its way
  // to wait (taking the lock and waiting are two simcalls) is not lost.
  void wait_for_work(Replica& replica) {
    const std::unique_lock lock(*replica.lock);
    while (!replica.signalled)
      replica.wake->wait(lock);
    replica.signalled = false;
  }

  void wake(Replica& replica) {
    replica.signalled = true;
    replica.wake->notify_all();
  }

  // Prefill replica `p` computed request `id`'s prompt: its KV moves to the decode replica with the fewest outstanding
  // requests, in a transfer of its own (an actor on p's host), and that replica admits it when the last byte arrives.
  void prefilled(std::size_t p, std::int64_t id) {
    --replicas_[p]->outstanding;
    const auto found = originals_.find(id);
    if (found == originals_.end()) throw InternalError(fmt::format("serving: request {} left no record", id));
    const Request request = found->second;
    originals_.erase(found);
    const std::size_t d = least_outstanding(prefill_, replicas_.size());
    ++replicas_[d]->outstanding;
    ++totals_[d].requests;
    const std::uint64_t bytes =
        static_cast<std::uint64_t>(request.prompt_tokens) * spec_.disaggregated->kv_bytes_per_token;
    const double start_s = sg4::Engine::get_clock();
    sg4::Actor::create(fmt::format("kv{}", id), hosts_[p], [this, p, d, request, bytes, start_s] {
      guarded([&] {
        sg4::Comm::sendto(hosts_[p], hosts_[d], bytes);
        transfers_.push_back(KvTransferSample{request.id, static_cast<std::int32_t>(p), static_cast<std::int32_t>(d),
                                              bytes, start_s, sg4::Engine::get_clock()});
        replicas_[p]->scheduler.release_held(request.id);
        wake(*replicas_[p]);
        // As vLLM's scheduler does with a remote prefill, the last prompt token is computed again to sample the
        // first output token: the decode replica's first step for it is a one-token chunk.
        replicas_[d]->scheduler.add_prefilled_request(request, request.prompt_tokens - 1);
        wake(*replicas_[d]);
      });
    });
  }

  const ServingRunSpec& spec_;
  std::size_t prefill_ = 0;  // disaggregated: replicas [0, prefill_) prefill; 0: co-located
  std::vector<sg4::Host*> hosts_;
  std::unordered_map<std::int64_t, Request> originals_;  // disaggregated: requests in a prefill, as they arrived
  std::vector<KvTransferSample> transfers_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<ServingReplicaTotals> totals_;
  std::vector<Request> open_;
  std::optional<ClosedLoop> closed_;
  ServingRecorder recorder_;
  std::vector<ServingStepSample> steps_;
  std::int64_t routed_ = 0;
  std::int64_t in_flight_ = 0;
  bool arrivals_done_ = false;
  double end_s_ = 0.0;
  std::exception_ptr error_;
};

std::string run_serving_child(const ServingRunSpec& spec) {
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char program[] = "podsim";
  char* argv[] = {program, nullptr};
  auto* engine = new sg4::Engine(&argc, argv);  // never destroyed: the child exits after reporting
  sg4::Engine::set_config("contexts/stack-size:128");
  std::vector<sg4::Host*> hosts;
  std::optional<NetworkSpec> network;
  engine::RouteTable routes;
  if (!spec.disaggregated) {
    sg4::NetZone* zone = sg4::create_full_zone("serving");
    hosts.assign(spec.replicas.size(), zone->create_host("server", 1.0));
    zone->seal();
  } else {
    // One host per replica and the KV links between the pools (kv_network.hpp), timed exactly (network_config.hpp):
    // every route has the same latency, the egress's.
    engine::apply_exact_network_config();
    const auto prefill = static_cast<std::size_t>(spec.disaggregated->prefill_replicas);
    std::vector<double> egress, ingress;
    for (std::size_t r = 0; r < spec.replicas.size(); ++r)
      (r < prefill ? egress : ingress).push_back(spec.replicas[r].kv_link_Bps);
    network = kv_transfer_network(egress, ingress, spec.disaggregated->kv_latency_s, spec.disaggregated->kv_tier);
    routes = engine::RouteTable(network->num_chips);
    for (std::int32_t p = 0; p < static_cast<std::int32_t>(prefill); ++p)
      for (auto d = static_cast<std::int32_t>(prefill); d < network->num_chips; ++d) {
        const std::vector<std::int32_t> links = network->route(p, d);
        routes.add(p, d, links, spec.disaggregated->kv_latency_s);
      }
    const engine::RouteZone* zone = engine::RouteZone::create(*network, routes, spec.disaggregated->kv_latency_s);
    for (std::int32_t h = 0; h < network->num_chips; ++h)
      hosts.push_back(zone->host(h));
  }
  ServingRun run(spec);
  run.create_actors(hosts);
  engine->run();
  run.rethrow_error();
  return encode_serving(std::move(run).result());
}

}  // namespace

ServingRunResult simulate_serving(const ServingRunSpec& spec) {
  verify_traffic(spec.traffic);
  if (spec.replicas.empty()) throw InputError("/serving/replicas", "must be at least 1, got: 0");
  if (spec.disaggregated) {
    const std::int64_t prefill = spec.disaggregated->prefill_replicas;
    const auto all = static_cast<std::int64_t>(spec.replicas.size());
    if (prefill < 1 || prefill >= all)
      throw InputError(
          "/serving/disaggregated",
          fmt::format("needs a prefill and a decode replica at least, got: {} prefill of {} replicas", prefill, all));
    if (spec.disaggregated->kv_bytes_per_token == 0)
      throw InternalError("simulate_serving: a disaggregated run needs the KV bytes per token");
  }
  for (const ServingReplicaSpec& replica : spec.replicas) {
    verify_scheduler_config(replica.scheduler);
    if (!replica.step_s) throw InternalError("simulate_serving: a replica has no step model");
  }
  const std::vector<std::string> bytes = engine::run_in_children({[&spec] { return run_serving_child(spec); }}, 1);
  return decode_serving(bytes.front());
}

}  // namespace podsim
