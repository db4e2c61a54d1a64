// Link sharing between ops, by a sweep over each link's bandwidth phases.
#include "sim/run/contention.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

namespace podsim {
namespace {

struct Phase {
  double start_s;
  double end_s;
  std::int32_t op;
};

// The phases of one link with each op's overlapping or touching phases merged into one interval (sorted by start).
// Merging keeps every overlap: two phases of positive length overlap when their open intervals meet, and an open
// interval that meets the union of two touching ones meets one of them.
std::vector<Phase> merged_by_op(std::vector<Phase>& list) {
  std::sort(list.begin(), list.end(),
            [](const Phase& a, const Phase& b) { return a.op != b.op ? a.op < b.op : a.start_s < b.start_s; });
  std::vector<Phase> merged;
  for (const Phase& phase : list) {
    if (!merged.empty() && merged.back().op == phase.op && phase.start_s <= merged.back().end_s)
      merged.back().end_s = std::max(merged.back().end_s, phase.end_s);
    else
      merged.push_back(phase);
  }
  std::stable_sort(merged.begin(), merged.end(), [](const Phase& a, const Phase& b) { return a.start_s < b.start_s; });
  return merged;
}

// The most explained ops whose overlaps one sweep over the links finds: a sweep holds 2 x ops x kBlock bits.
constexpr std::size_t kBlock = 4096;

// Which ops each explained op overlapped with, and on which links. Overlap is symmetric, and a sweep over a link's
// phases in order of start finds each overlapping pair once: when the later of the two starts, the other is still
// active. So an explained op's overlaps are the ops active when it started (its row: a bit per op) and the ops that
// started while it was active (a bit for it in their column of the block's explained ops): a few words per phase,
// not one step per pair (1,000 concurrent all-gathers on a 16x16 share every link: 500,000 pairs per link).
class SharedLinks {
 public:
  SharedLinks(const std::vector<bool>& explain) : explain_(explain), words_((explain.size() + 63) / 64) {
    links_.resize(explain.size());
    shared_.resize(explain.size());
    for (std::size_t i = 0; i < explain.size(); ++i)
      if (explain[i]) explained_.push_back(i);
  }

  // The overlaps of every explained op, in blocks of kBlock ops: each block sweeps every link once.
  void sweep(const std::map<LinkId, std::vector<Phase>>& links) {
    for (std::size_t first = 0; first < explained_.size(); first += kBlock) {
      const std::size_t count = std::min(kBlock, explained_.size() - first);
      block_.assign(explain_.size(), count);  // op -> its place in the block, `count` when outside
      for (std::size_t k = 0; k < count; ++k)
        block_[explained_[first + k]] = k;
      block_words_ = (count + 63) / 64;
      rows_.assign(count * words_, 0);
      columns_.assign(explain_.size() * block_words_, 0);
      for (const auto& [link, phases] : links)
        sweep_link(link, phases, count);
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t op = explained_[first + k];
        for (std::size_t b = 0; b < explain_.size(); ++b)
          if (bit(rows_, k * words_, b) || bit(columns_, b * block_words_, k))
            shared_[op].push_back(static_cast<std::int32_t>(b));
      }
    }
  }

  // The ops `op` overlapped with, in program order.
  const std::vector<std::int32_t>& ops_of(std::size_t op) const { return shared_[op]; }
  // The links where `op` overlapped another op, in link order.
  const std::vector<LinkId>& links_of(std::size_t op) const { return links_[op]; }

 private:
  struct Active {
    Phase phase;
    std::size_t arrival = 0;  // 1 for the link's first phase
    bool overlapped = false;  // another op was active when it started
  };
  struct EndsLater {
    bool operator()(const Active& a, const Active& b) const { return a.phase.end_s > b.phase.end_s; }
  };

  static bool bit(const std::vector<std::uint64_t>& bits, std::size_t first, std::size_t i) {
    return (bits[first + i / 64] >> (i % 64)) & 1;
  }
  static void flip(std::vector<std::uint64_t>& bits, std::size_t i, bool on) {
    const std::uint64_t mask = std::uint64_t{1} << (i % 64);
    bits[i / 64] = on ? bits[i / 64] | mask : bits[i / 64] & ~mask;
  }

  // One link's phases, sorted by start, each op's own phases merged (so an op's earlier phase has ended when its
  // next one starts: every active phase is another op's).
  void sweep_link(LinkId link, const std::vector<Phase>& phases, std::size_t count) {
    active_ = {};
    std::vector<std::uint64_t> active_bits(words_, 0), active_block(block_words_, 0);
    std::size_t arrivals = 0;
    // It overlapped another op here if one was active when it started or one started after it.
    const auto retire = [&](const Active& done) {
      const auto op = static_cast<std::size_t>(done.phase.op);
      flip(active_bits, op, false);
      if (block_[op] >= count) return;
      flip(active_block, block_[op], false);
      if ((done.overlapped || arrivals > done.arrival) && (links_[op].empty() || links_[op].back() != link))
        links_[op].push_back(link);
    };
    for (const Phase& phase : phases) {
      for (; !active_.empty() && !(active_.top().phase.end_s > phase.start_s); active_.pop())
        retire(active_.top());
      const auto p = static_cast<std::size_t>(phase.op);
      const bool overlaps = !active_.empty();
      if (overlaps) {
        if (block_[p] < count)
          for (std::size_t w = 0; w < words_; ++w)
            rows_[block_[p] * words_ + w] |= active_bits[w];
        for (std::size_t w = 0; w < block_words_; ++w)
          columns_[p * block_words_ + w] |= active_block[w];
      }
      active_.push({phase, ++arrivals, overlaps});
      flip(active_bits, p, true);
      if (block_[p] < count) flip(active_block, block_[p], true);
    }
    for (; !active_.empty(); active_.pop())
      retire(active_.top());
  }

  const std::vector<bool>& explain_;
  std::size_t words_ = 0;               // words of a row of every op's bits
  std::vector<std::size_t> explained_;  // the explained ops, in program order
  std::vector<std::size_t> block_;      // per op, its place in the block being swept (the block's size if none)
  std::size_t block_words_ = 0;         // words of a row of the block's bits
  std::vector<std::uint64_t> rows_;     // per block op: the ops active when its phases started
  std::vector<std::uint64_t> columns_;  // per op: the block ops active when its phases started
  // The phases still active, the first to end on top.
  std::priority_queue<Active, std::vector<Active>, EndsLater> active_;
  std::vector<std::vector<std::int32_t>> shared_;
  std::vector<std::vector<LinkId>> links_;
};

}  // namespace

void explain_contention(PlanRun& plan, const EventGraph& graph, const SimulationResult& simulation) {
  std::vector<bool> explain(plan.ops.size(), false);
  bool any = false;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const OpRun& op = plan.ops[i];
    explain[i] = op.book_time_s > 0 && op.des_time_s > (1 + kContentionThreshold) * op.book_time_s;
    any = any || explain[i];
  }
  if (!any) return;
  // Per link, the bandwidth phases crossing it; per (op, link), the op's bytes on it.
  std::map<LinkId, std::vector<Phase>> phases;
  std::unordered_map<std::uint64_t, std::uint64_t> bytes;  // key: op << 32 | link
  const auto key = [](std::int32_t op, LinkId link) {
    return std::uint64_t{static_cast<std::uint32_t>(op)} << 32 | static_cast<std::uint32_t>(link);
  };
  const std::size_t tasks = std::min(graph.tasks.size(), simulation.tasks.size());
  for (std::size_t t = 0; t < tasks; ++t) {
    const Task& task = graph.tasks[t];
    // A transfer of no op of the plan (none today) is left out rather than read past the op tables.
    if (task.kind != TaskKind::transfer || task.op < 0 || static_cast<std::size_t>(task.op) >= plan.ops.size())
      continue;
    const auto id = static_cast<TaskId>(t);
    const double start = simulation.bandwidth_start_s(id), end = simulation.tasks[t].end_s;
    simulation.for_each_part(id, task.bytes, [&](std::span<const LinkId> route, std::uint64_t part_bytes) {
      for (const LinkId link : route) {
        if (end > start) phases[link].push_back({start, end, task.op});
        bytes[key(task.op, link)] += part_bytes;
      }
    });
  }
  for (auto& [link, list] : phases)
    list = merged_by_op(list);
  SharedLinks shared(explain);
  shared.sweep(phases);
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    if (!explain[i]) continue;
    Contention contention;
    for (const std::int32_t other : shared.ops_of(i))
      contention.shared_with.push_back(plan.ops[static_cast<std::size_t>(other)].name);
    for (const LinkId link : shared.links_of(i)) {
      const std::uint64_t on_link = bytes[key(static_cast<std::int32_t>(i), link)];
      if (on_link > contention.busiest_shared_bytes || contention.busiest_shared_link.empty()) {
        contention.busiest_shared_bytes = on_link;
        contention.busiest_shared_link =
            static_cast<std::size_t>(link) < plan.links.size() ? plan.links[static_cast<std::size_t>(link)].name : "";
      }
    }
    plan.ops[i].contention = std::move(contention);
  }
}

}  // namespace podsim
