// One SimGrid actor per chip executes the chip's tasks: a task starts when all its dependencies have completed,
// as seen from its chip. Computes run as execs on the chip's host. A transfer whose completion the destination
// chip needs (a task there depends on it) goes through the destination's eager mailbox and is matched by task
// id. A chip posts the receive for an incoming transfer when a task waiting on it has no other dependency left:
// it then observes the transfer at max(post time, transfer end), which is exactly when that task can start,
// while keeping few receives pending per actor. A transfer no task on its destination waits for goes through the
// same mailbox, and its sender posts the matching receive itself and waits on that. (Not a host-to-host
// Comm::sendto_async: SimGrid 3.32 keeps those, like detached comms, in maestro's list of activities, and removing
// each one at its end scans the list: O(transfers in flight) per transfer, 7 to 8.5 % of a 4096-chip all-reduce.)
//
// Latency: SimGrid's maxmin solver weights a flow by its route's latency (network_config.hpp), so every route of
// the platform has the same latency L0, the least of the graph's transfers (RouteZone). A transfer over a route
// of latency L > L0 starts L - L0 later: its chip defers the send and wakes then (a timeout on its wait), and
// SimGrid adds L0. Its bandwidth phase starts L after its start, as in the fluid model; with every route's own
// latency in SimGrid, the weights would differ and the sharing would not be max-min.
//
// A split transfer (NetworkSpec::split_routes) sends its parts at once, each from its part host to the destination
// chip's host (RouteZone: the part's route, the pair's latency), and the sender waits for all of them. When the last
// has arrived the transfer ends: the sender puts a notice of no bytes into the destination's mailbox along the pair's
// empty route (no link, no latency, so it arrives at that instant), which the destination observes as the transfer.
#include "sim/engine/graph_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <xbt/log.h>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include "models/common/error.hpp"
#include "models/topology/route_policy.hpp"
#include "sim/engine/network_config.hpp"
#include "sim/engine/route_zone.hpp"

namespace podsim::engine {
namespace {

namespace sg4 = simgrid::s4u;

// s4u::Comm of SimGrid 3.32 keeps the receive-side match function private ("FIXME: expose these elements in the
// API") although Comm::start() hands it to the kernel. An explicit instantiation may name a private member, so
// this template yields a pointer to it; a receive then matches only the send of one task.
using MatchFun = std::function<bool(void*, void*, simgrid::kernel::activity::CommImpl*)>;
using MatchFunMember = MatchFun sg4::Comm::*;
MatchFunMember comm_match_fun();
template <MatchFunMember member>
struct ExposeMatchFun {
  friend MatchFunMember comm_match_fun() { return member; }
};
template struct ExposeMatchFun<&sg4::Comm::match_fun_>;

bool same_task(void* receive_tag, void* send_tag, simgrid::kernel::activity::CommImpl* /*send*/) {
  return receive_tag == send_tag;
}

void* tag_of(TaskId task) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(task) + 1);
}

// Compressed lists: the items of key k are items[offsets[k] .. offsets[k + 1]).
struct Lists {
  std::vector<std::uint32_t> offsets;
  std::vector<TaskId> items;
  std::span<const TaskId> of(std::size_t key) const {
    return {items.data() + offsets[key], static_cast<std::size_t>(offsets[key + 1] - offsets[key])};
  }
};

// Builds Lists from (key, item) pairs produced twice by `each` (a count pass, then a fill pass).
Lists make_lists(std::size_t num_keys,
                 const std::function<void(const std::function<void(std::size_t, TaskId)>&)>& each) {
  Lists lists;
  lists.offsets.assign(num_keys + 1, 0);
  each([&](std::size_t key, TaskId) { ++lists.offsets[key + 1]; });
  for (std::size_t k = 0; k < num_keys; ++k)
    lists.offsets[k + 1] += lists.offsets[k];
  lists.items.resize(lists.offsets[num_keys]);
  std::vector<std::uint32_t> fill(lists.offsets.begin(), lists.offsets.end() - 1);
  each([&](std::size_t key, TaskId item) { lists.items[fill[key]++] = item; });
  return lists;
}

// The activities one chip actor waits on, each tagged task * 2 (its send or compute) or task * 2 + 1 (a receive).
// Also the sends of transfers the actor receives itself, held until their receive completes.
struct Pending {
  std::vector<sg4::ActivityPtr> activities;
  std::vector<std::int64_t> tags;
  std::vector<std::pair<TaskId, sg4::CommPtr>> held;
  void add(sg4::ActivityPtr activity, std::int64_t tag) {
    activities.push_back(std::move(activity));
    tags.push_back(tag);
  }
  void release(TaskId transfer) {
    for (std::size_t k = 0; k < held.size(); ++k)
      if (held[k].first == transfer) {
        held[k] = std::move(held.back());
        held.pop_back();
        return;
      }
  }
};

// A transfer whose send is due when its route's latency beyond L0 has passed: `release` = `started` + `latency`.
struct Deferred {
  double release;
  double started;
  double latency;
  TaskId task;
};

// Orders a heap of Deferred by release time (earliest first), then task id.
bool later(const Deferred& a, const Deferred& b) {
  return a.release != b.release ? a.release > b.release : a.task > b.task;
}

// A completion a chip has observed: its own send or compute (received == false) or an incoming transfer.
struct Observation {
  TaskId task;
  bool received;
};

class GraphRunner {
 public:
  // `shared_latency` (L0) is the least latency of the graph's routes between two chips, `uniform` whether they
  // all have it (no transfer is deferred then).
  GraphRunner(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes, double shared_latency,
              bool uniform, RouteZone& zone);
  void create_actors();
  std::vector<TaskTiming> timings() const;

 private:
  const Task& task(TaskId id) const { return graph_.tasks[static_cast<std::size_t>(id)]; }
  bool incoming_for(const Task& dep, ChipId chip) const {
    return dep.kind == TaskKind::transfer && dep.src_chip != dep.dst_chip && dep.dst_chip == chip;
  }
  void chip_main(ChipId chip);
  void start(ChipId chip, TaskId id, Pending& pending, std::vector<Observation>& work, std::vector<Deferred>& deferred);
  void send(TaskId id, Pending& pending);
  void send_parts(TaskId id, std::span<const std::int32_t> parts, Pending& pending);
  void put(TaskId id, std::uint64_t bytes, Pending& pending);
  std::int64_t wait(Pending& pending, std::vector<Deferred>& deferred);
  void post_receives(ChipId chip, TaskId id, Pending& pending);
  sg4::CommPtr receive_init(sg4::Mailbox* mailbox, TaskId transfer);
  void drain(ChipId chip, Pending& pending, std::vector<Observation>& work, std::vector<Deferred>& deferred);
  std::uint64_t simulated_bytes(const Task& transfer, std::uint64_t bytes) const;

  const NetworkSpec& network_;
  const EventGraph& graph_;
  const RouteTable& routes_;
  double shared_latency_;  // L0: the latency SimGrid adds to every route
  bool uniform_;           // every route's latency is L0
  RouteZone& zone_;
  Lists tasks_of_chip_;                       // tasks by src_chip, the chip that starts them
  Lists dependents_on_src_;                   // dependents of a task that start on its src_chip
  Lists dependents_on_dst_;                   // dependents of a transfer that start on its dst_chip (!= src_chip)
  std::vector<std::int32_t> local_waiting_;   // dependencies the starting chip completes or sends itself
  std::vector<std::int32_t> remote_waiting_;  // incoming transfers still awaited
  std::vector<std::uint8_t> via_mailbox_;     // transfer observed by its destination chip
  std::vector<std::uint8_t> receive_posted_;
  std::vector<double> start_s_, end_s_;
  std::vector<std::int32_t> parts_left_;  // per task, the parts of a split transfer still in flight
  std::vector<sg4::Mailbox*> mailboxes_;
  void* sink_ = nullptr;  // receives land here: the payload pointer itself is not used
};

GraphRunner::GraphRunner(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes,
                         double shared_latency, bool uniform, RouteZone& zone)
    : network_(network),
      graph_(graph),
      routes_(routes),
      shared_latency_(shared_latency),
      uniform_(uniform),
      zone_(zone) {
  const std::size_t n = graph.tasks.size();
  local_waiting_.assign(n, 0);
  remote_waiting_.assign(n, 0);
  via_mailbox_.assign(n, 0);
  receive_posted_.assign(n, 0);
  start_s_.assign(n, -1);
  end_s_.assign(n, -1);
  if (routes.max_parts() > 1) parts_left_.assign(n, 0);
  tasks_of_chip_ = make_lists(static_cast<std::size_t>(network.num_chips), [&](const auto& emit) {
    for (std::size_t id = 0; id < n; ++id)
      emit(static_cast<std::size_t>(graph.tasks[id].src_chip), TaskId(id));
  });
  auto each_dependency = [&](bool incoming, const auto& emit) {
    for (std::size_t id = 0; id < n; ++id)
      for (TaskId dep : graph.tasks[id].deps)
        if (incoming_for(task(dep), graph.tasks[id].src_chip) == incoming)
          emit(static_cast<std::size_t>(dep), TaskId(id));
  };
  dependents_on_src_ = make_lists(n, [&](const auto& emit) { each_dependency(false, emit); });
  dependents_on_dst_ = make_lists(n, [&](const auto& emit) { each_dependency(true, emit); });
  for (std::size_t id = 0; id < n; ++id)
    for (TaskId dep : graph.tasks[id].deps) {
      if (incoming_for(task(dep), graph.tasks[id].src_chip)) {
        ++remote_waiting_[id];
        via_mailbox_[static_cast<std::size_t>(dep)] = 1;
      } else {
        ++local_waiting_[id];
      }
    }
}

void GraphRunner::create_actors() {
  for (ChipId chip = 0; chip < network_.num_chips; ++chip)
    mailboxes_.push_back(sg4::Mailbox::by_name(fmt::format("in{}", chip)));
  for (ChipId chip = 0; chip < network_.num_chips; ++chip) {
    sg4::ActorPtr actor =
        sg4::Actor::create(fmt::format("chip{}", chip), zone_.host(chip), [this, chip] { chip_main(chip); });
    // Eager mailbox: a send flows as soon as it starts, without waiting for the receive (set before any send).
    mailboxes_[static_cast<std::size_t>(chip)]->set_receiver(actor);
  }
}

void GraphRunner::chip_main(ChipId chip) {
  Pending pending;
  std::vector<Observation> work;
  std::vector<Deferred> deferred;
  for (TaskId id : tasks_of_chip_.of(static_cast<std::size_t>(chip))) {
    if (local_waiting_[static_cast<std::size_t>(id)] != 0) continue;
    if (remote_waiting_[static_cast<std::size_t>(id)] != 0)
      post_receives(chip, id, pending);
    else
      start(chip, id, pending, work, deferred);
  }
  drain(chip, pending, work, deferred);
  while (!pending.activities.empty() || !deferred.empty()) {
    const std::int64_t waited = wait(pending, deferred);
    if (waited < 0) {
      // The earliest deferred send is due, with every other one released at the same time.
      const double release = deferred.front().release;
      while (!deferred.empty() && deferred.front().release == release) {
        std::pop_heap(deferred.begin(), deferred.end(), later);
        const TaskId id = deferred.back().task;
        deferred.pop_back();
        send(id, pending);
      }
      continue;
    }
    const auto index = static_cast<std::size_t>(waited);
    const std::int64_t tag = pending.tags[index];
    pending.activities[index] = std::move(pending.activities.back());
    pending.activities.pop_back();
    pending.tags[index] = pending.tags.back();
    pending.tags.pop_back();
    if (tag < 0) {  // a part of a split transfer (tag -(task + 1)); the last one ends it
      const auto part_of = static_cast<TaskId>(-tag - 1);
      if (--parts_left_[static_cast<std::size_t>(part_of)] == 0) {
        end_s_[static_cast<std::size_t>(part_of)] = sg4::Engine::get_clock();
        put(part_of, 0, pending);
      }
      continue;
    }
    const auto id = static_cast<TaskId>(tag >> 1);
    const bool received = (tag & 1) != 0;
    // The sender records the end: a receive posted late completes after the transfer did.
    if (!received) {
      // A split transfer's end is its last part's (the notice carries no bytes and takes no time).
      if (end_s_[static_cast<std::size_t>(id)] < 0) end_s_[static_cast<std::size_t>(id)] = sg4::Engine::get_clock();
      pending.release(id);
    }
    work.push_back({id, received});
    drain(chip, pending, work, deferred);
  }
}

// Waits for the next pending activity to complete (its index) or the earliest deferred send to be due (-1).
std::int64_t GraphRunner::wait(Pending& pending, std::vector<Deferred>& deferred) {
  if (deferred.empty()) return sg4::Activity::wait_any(pending.activities);
  const Deferred& next = deferred.front();
  const double now = sg4::Engine::get_clock();
  // The timer fires at now + timeout: from the start itself that is started + latency, as SimGrid adds it.
  const double timeout = now == next.started ? next.latency : std::max(0.0, next.release - now);
  if (pending.activities.empty()) {
    sg4::this_actor::sleep_for(timeout);
    return -1;
  }
  const ssize_t index = sg4::Activity::wait_any_for(pending.activities, timeout);
  return index >= 0 && static_cast<std::size_t>(index) < pending.activities.size() ? index : -1;
}

void GraphRunner::drain(ChipId chip, Pending& pending, std::vector<Observation>& work,
                        std::vector<Deferred>& deferred) {
  while (!work.empty()) {
    const Observation done = work.back();
    work.pop_back();
    const Lists& dependents = done.received ? dependents_on_dst_ : dependents_on_src_;
    for (TaskId next : dependents.of(static_cast<std::size_t>(done.task))) {
      const auto at = static_cast<std::size_t>(next);
      if (done.received) {
        --remote_waiting_[at];
      } else if (--local_waiting_[at] == 0 && remote_waiting_[at] != 0) {
        post_receives(chip, next, pending);
      }
      if (local_waiting_[at] == 0 && remote_waiting_[at] == 0) start(chip, next, pending, work, deferred);
    }
  }
}

void GraphRunner::start(ChipId chip, TaskId id, Pending& pending, std::vector<Observation>& work,
                        std::vector<Deferred>& deferred) {
  const auto at = static_cast<std::size_t>(id);
  const Task& todo = task(id);
  const double now = sg4::Engine::get_clock();
  start_s_[at] = now;
  if (todo.kind == TaskKind::compute) {
    pending.add(sg4::this_actor::exec_async(todo.flops), std::int64_t{id} * 2);
  } else if (todo.src_chip == todo.dst_chip) {
    end_s_[at] = now;  // chip-local: no link, no time
    work.push_back({id, false});
  } else if (const double excess = uniform_ ? 0.0 : routes_.latency_s(chip, todo.dst_chip) - shared_latency_;
             excess > 0) {
    deferred.push_back({now + excess, now, excess, id});
    std::push_heap(deferred.begin(), deferred.end(), later);
  } else {
    send(id, pending);
  }
}

// Sends a transfer whose latency beyond L0 has passed.
void GraphRunner::send(TaskId id, Pending& pending) {
  const Task& todo = task(id);
  if (routes_.max_parts() > 1) {
    const std::span<const std::int32_t> parts = routes_.parts(routes_.index(todo.src_chip, todo.dst_chip));
    if (!parts.empty()) return send_parts(id, parts, pending);
  }
  put(id, simulated_bytes(todo, todo.bytes), pending);
}

// Sends the parts of a split transfer, each from its part host (tag -(id + 1)).
void GraphRunner::send_parts(TaskId id, std::span<const std::int32_t> parts, Pending& pending) {
  const Task& todo = task(id);
  const auto m = static_cast<std::int64_t>(parts.size());
  parts_left_[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(m);
  for (std::int64_t k = 0; k < m; ++k) {
    const std::uint64_t bytes = simulated_bytes(todo, split_bytes(todo.bytes, m, k));
    pending.add(sg4::Comm::sendto_async(zone_.part_host(static_cast<std::int32_t>(k), todo.src_chip),
                                        zone_.host(todo.dst_chip), bytes),
                -(std::int64_t{id} + 1));
  }
}

// Puts `bytes` of transfer `id` into its destination's mailbox (the transfer itself, or a split one's notice).
void GraphRunner::put(TaskId id, std::uint64_t bytes, Pending& pending) {
  const auto at = static_cast<std::size_t>(id);
  const Task& todo = task(id);
  const std::int64_t tag = std::int64_t{id} * 2;
  sg4::Mailbox* mailbox = mailboxes_[static_cast<std::size_t>(todo.dst_chip)];
  sg4::CommPtr comm = mailbox->put_init(tag_of(id), bytes);
  comm->set_data(tag_of(id));
  comm->start();
  if (via_mailbox_[at] != 0) {
    pending.add(comm, tag);
  } else {
    // No task on the destination waits for it: its sender receives it, the send held until then (SimGrid reports
    // an s4u comm freed while it runs).
    pending.held.emplace_back(id, comm);
    pending.add(receive_init(mailbox, id), tag);
  }
}

// A started receive on `mailbox` that matches only the send of `transfer`.
sg4::CommPtr GraphRunner::receive_init(sg4::Mailbox* mailbox, TaskId transfer) {
  sg4::CommPtr comm = mailbox->get_init();
  comm->set_dst_data(&sink_, sizeof(void*));
  (*comm).*comm_match_fun() = same_task;
  comm->set_data(tag_of(transfer));
  comm->start();
  return comm;
}

// The bytes the links carry for `transfer`: its own, or bytes / efficiency(bytes) under a link-efficiency curve
// when its route stays on the ICI (the curve is the ICI's; DCN links have their own figures, timers are waits).
// A part of a split transfer carries `bytes` of it, under the curve's efficiency at that part's size.
std::uint64_t GraphRunner::simulated_bytes(const Task& transfer, std::uint64_t bytes) const {
  const auto& curve = network_.transfer.link_efficiency;
  if (curve.empty() || bytes == 0) return bytes;
  for (const std::int32_t link : routes_.links(transfer.src_chip, transfer.dst_chip))
    if (network_.links[static_cast<std::size_t>(link)].tier != LinkTier::ici) return bytes;
  const double size = static_cast<double>(bytes);
  return static_cast<std::uint64_t>(std::ceil(size / efficiency_at(curve, size)));
}

void GraphRunner::post_receives(ChipId chip, TaskId id, Pending& pending) {
  for (TaskId dep : task(id).deps) {
    const auto at = static_cast<std::size_t>(dep);
    if (!incoming_for(task(dep), chip) || receive_posted_[at] != 0) continue;
    receive_posted_[at] = 1;
    pending.add(receive_init(mailboxes_[static_cast<std::size_t>(chip)], dep), std::int64_t{dep} * 2 + 1);
  }
}

std::vector<TaskTiming> GraphRunner::timings() const {
  std::vector<TaskTiming> out(start_s_.size());
  for (std::size_t id = 0; id < out.size(); ++id) {
    if (end_s_[id] < 0)
      throw Error(fmt::format("simulation: every task must complete, got: task {} never {}", id,
                              start_s_[id] < 0 ? "started" : "ended"));
    out[id] = {start_s_[id], end_s_[id]};
  }
  return out;
}

// The least and the greatest latency of the routes of the graph's transfers between two chips ({0, 0} if none).
std::pair<double, double> route_latency_range(const EventGraph& graph, const RouteTable& routes) {
  double least = -1, greatest = 0;
  for (const Task& task : graph.tasks)
    if (task.kind == TaskKind::transfer && task.src_chip != task.dst_chip) {
      const double latency = routes.latency_s(task.src_chip, task.dst_chip);
      if (least < 0 || latency < least) least = latency;
      greatest = std::max(greatest, latency);
    }
  return {std::max(least, 0.0), greatest};
}

// A size field of /proc/self/status (VmRSS, VmHWM) in bytes, or 0 if it cannot be read.
std::uint64_t status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
  return 0;
}

}  // namespace

GraphRun run_event_graph(const NetworkSpec& network, const EventGraph& graph, const RouteTable& routes) {
  const auto began = std::chrono::steady_clock::now();
  std::ofstream("/proc/self/clear_refs") << "5";           // resets VmHWM: the child's own peak, not the parent's
  const std::uint64_t rss_before = status_bytes("VmRSS");  // mostly pages shared with the parent since fork
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char program[] = "podsim";
  char* argv[] = {program, nullptr};
  // Never destroyed: the child process exits right after reporting, and tearing a large platform down is slow.
  auto* engine = new sg4::Engine(&argc, argv);
  apply_exact_network_config();
  sg4::Engine::set_config("contexts/stack-size:128");  // KiB; actors stay shallow (SIMGRID.md §5)
  const auto [shared_latency, greatest_latency] = route_latency_range(graph, routes);
  RouteZone* zone = RouteZone::create(network, routes, shared_latency);
  GraphRunner runner(network, graph, routes, shared_latency, greatest_latency == shared_latency, *zone);
  runner.create_actors();
  engine->run();
  GraphRun run;
  run.tasks = runner.timings();
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  const std::uint64_t peak = status_bytes("VmHWM");
  run.rss_growth_bytes = peak > rss_before ? peak - rss_before : 0;
  return run;
}

}  // namespace podsim::engine
