// The algorithm table walked row by row: each name reads back as its algorithm; each generator, on a ring of 4
// chips, moves the bytes per chip of the book's closed forms (worked by hand below) in the steps, messages and
// directions its row states; the translation invariance its row claims holds; the verifier refuses the kinds the
// row does not run; and the docs list exactly the table's names.
#include "sim/collectives/algorithm_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "models/common/error.hpp"
#include "sim/collectives/collective_builder.hpp"

namespace podsim {
namespace {

constexpr std::int32_t kRingChips = 4;
constexpr std::uint64_t kArray = 1 << 20;  // V = 1 MiB: V/4, V/8 and V/16 are whole bytes

// What each algorithm does on a ring of 4 chips, worked by hand from its schedule (docs/collectives.md):
// the steps of one phase and the bytes of every message of an all-gather of V (shard S = V/4), or of an all-to-all
// of V (each chip holds V/4 and sends V/16 to each other chip).
struct HandFigures {
  std::int32_t steps;
  std::uint64_t message_bytes;
};
const std::map<std::string, HandFigures>& hand_figures() {
  static const std::map<std::string, HandFigures> figures{
      {"unidirectional", {3, kArray / 4}},       // N-1 steps of a whole shard
      {"bidirectional", {2, kArray / 4}},        // ceil(3/2) steps one way (floor(3/2) the other), whole shards
      {"bidirectional-split", {3, kArray / 8}},  // N-1 steps of half a shard each way
      {"line", {3, kArray / 4}},                 // N-1 steps, whole shards both ways along the line
      {"direct", {1, kArray / 16}},              // one step, V/N^2 to every other chip
  };
  return figures;
}

CollectiveRequest ring_request(const AlgorithmTraits& row, CollectiveKind op) {
  std::vector<ChipId> chips(kRingChips);
  std::iota(chips.begin(), chips.end(), 0);
  CollectiveRequest request;
  request.op = op;
  request.axes = {AxisGroups{{chips}, true}};
  request.array_bytes = kArray;
  request.algorithm = row.algorithm;
  return request;
}

struct ChipBytes {
  std::vector<std::uint64_t> sent = std::vector<std::uint64_t>(kRingChips, 0);
  std::vector<std::uint64_t> received = std::vector<std::uint64_t>(kRingChips, 0);
  std::size_t transfers = 0;
  std::set<std::int32_t> steps;
  std::set<std::uint64_t> message_bytes;
  std::set<std::int32_t> offsets;  // (destination - source) mod N
  // Per chip, what it sends seen from itself: (step, bytes, offset), sorted.
  std::vector<std::vector<std::tuple<std::int32_t, std::uint64_t, std::int32_t>>> seen_from =
      std::vector<std::vector<std::tuple<std::int32_t, std::uint64_t, std::int32_t>>>(kRingChips);
};

ChipBytes tally(const EventGraph& graph) {
  ChipBytes out;
  for (const Task& task : graph.tasks) {
    if (task.kind != TaskKind::transfer) continue;
    const auto src = static_cast<std::size_t>(task.src_chip), dst = static_cast<std::size_t>(task.dst_chip);
    out.sent[src] += task.bytes;
    out.received[dst] += task.bytes;
    ++out.transfers;
    out.steps.insert(task.step);
    out.message_bytes.insert(task.bytes);
    const std::int32_t offset = (task.dst_chip - task.src_chip + kRingChips) % kRingChips;
    out.offsets.insert(offset);
    out.seen_from[src].emplace_back(task.step, task.bytes, offset);
  }
  for (auto& tasks : out.seen_from)
    std::sort(tasks.begin(), tasks.end());
  return out;
}

std::vector<std::uint64_t> each_chip(std::uint64_t bytes) {
  return std::vector<std::uint64_t>(kRingChips, bytes);
}

// The message of the VerifyError `step` throws, or "accepted".
template <class Step>
std::string refusal_of(const Step& step) {
  try {
    step();
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(AlgorithmTable, EveryNameReadsBackAsItsAlgorithm) {
  std::string choices = "auto";
  for (const AlgorithmTraits& row : kAlgorithms) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(parse_algorithm(row.name), row.algorithm);
    EXPECT_EQ(algorithm_name(row.algorithm), row.name);
    EXPECT_EQ(&algorithm_traits(row.algorithm), &row);
    // Users may write any case and `_` for `-` (bidirectional_split, Bidirectional-Split).
    std::string other(row.name);
    std::replace(other.begin(), other.end(), '-', '_');
    other[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(other[0])));
    EXPECT_EQ(parse_algorithm(other), row.algorithm);
    EXPECT_NE(row.generator, nullptr);
    choices += ", " + std::string(row.name);
  }
  EXPECT_EQ(kAlgorithmNames.choices(), choices);
  EXPECT_EQ(parse_algorithm("auto"), Algorithm::automatic);
  EXPECT_THROW(algorithm_traits(Algorithm::automatic), InternalError);
}

TEST(AlgorithmTable, UnknownNameListsTheRows) {
  EXPECT_EQ(refusal_of([] { parse_algorithm("tree"); }),
            "unknown algorithm, got: tree (expected one of auto, unidirectional, bidirectional, bidirectional-split, "
            "line, direct)");
}

// The book's bytes per chip on N = 4 chips: an all-gather of V brings every chip the N-1 shards it lacks,
// (N-1)/N V = 3V/4 received; a reduce-scatter of V sends the N-1 partial chunks a chip does not keep, 3V/4 sent; an
// all-reduce is both, 2 (N-1)/N V per chip, 6V over the ring; an all-to-all sends (N-1)/N of a chip's V/N,
// 3V/16, and receives as much.
TEST(AlgorithmTable, EveryGeneratorMovesTheBooksBytesOnARingOfFour) {
  for (const AlgorithmTraits& row : kAlgorithms) {
    SCOPED_TRACE(std::string(row.name));
    const auto hand = hand_figures().find(std::string(row.name));
    ASSERT_NE(hand, hand_figures().end()) << "a new row needs its figures worked by hand above";
    std::size_t kinds = 0;
    if (row.runs(CollectiveKind::all_gather)) {
      ++kinds;
      const ChipBytes ag = tally(build_collective(kRingChips, ring_request(row, CollectiveKind::all_gather)));
      EXPECT_EQ(ag.received, each_chip(3 * kArray / 4));
      EXPECT_EQ(static_cast<std::int32_t>(ag.steps.size()), hand->second.steps);
      EXPECT_EQ(ag.message_bytes, std::set<std::uint64_t>{hand->second.message_bytes});
      // The row's own figures agree with the schedule its generator builds.
      EXPECT_EQ(row.phase_steps(kRingChips), hand->second.steps);
      EXPECT_EQ(row.half_shard_messages, hand->second.message_bytes == kArray / 8);
      EXPECT_EQ(static_cast<std::int32_t>(ag.offsets.size()), row.directions);
    }
    if (row.runs(CollectiveKind::reduce_scatter)) {
      ++kinds;
      const ChipBytes rs = tally(build_collective(kRingChips, ring_request(row, CollectiveKind::reduce_scatter)));
      EXPECT_EQ(rs.sent, each_chip(3 * kArray / 4));
      EXPECT_EQ(static_cast<std::int32_t>(rs.steps.size()), hand->second.steps);
    }
    if (row.runs(CollectiveKind::all_reduce)) {
      ++kinds;
      const ChipBytes ar = tally(build_collective(kRingChips, ring_request(row, CollectiveKind::all_reduce)));
      const auto total = [](const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), 0ull); };
      EXPECT_EQ(total(ar.sent), 6 * kArray);
      EXPECT_EQ(total(ar.received), 6 * kArray);
    }
    if (row.runs(CollectiveKind::all_to_all)) {
      ++kinds;
      const ChipBytes a2a = tally(build_collective(kRingChips, ring_request(row, CollectiveKind::all_to_all)));
      EXPECT_EQ(a2a.sent, each_chip(3 * kArray / 16));
      EXPECT_EQ(a2a.received, each_chip(3 * kArray / 16));
      EXPECT_EQ(static_cast<std::int32_t>(a2a.steps.size()), hand->second.steps);
      EXPECT_EQ(a2a.message_bytes, std::set<std::uint64_t>{hand->second.message_bytes});
      EXPECT_EQ(row.phase_steps(kRingChips), hand->second.steps);
    }
    EXPECT_GT(kinds, 0u) << "a row runs at least one collective";
  }
}

// Every position of the ring sends the same tasks seen from itself exactly when the row says the algorithm is
// translation invariant (the translation quotient relies on it); the line's end chips send less.
TEST(AlgorithmTable, TranslationInvarianceIsWhatTheRowSays) {
  for (const AlgorithmTraits& row : kAlgorithms) {
    SCOPED_TRACE(std::string(row.name));
    const CollectiveKind op =
        row.runs(CollectiveKind::all_gather) ? CollectiveKind::all_gather : CollectiveKind::all_to_all;
    const ChipBytes built = tally(build_collective(kRingChips, ring_request(row, op)));
    const bool alike = std::all_of(built.seen_from.begin(), built.seen_from.end(),
                                   [&](const auto& tasks) { return tasks == built.seen_from.front(); });
    EXPECT_EQ(alike, row.translation_invariant);
  }
}

// estimate_transfers, from the rows' directions, is within a factor of 2 above what the generators build.
TEST(AlgorithmTable, TransferEstimateBoundsTheBuiltTransfers) {
  for (const AlgorithmTraits& row : kAlgorithms)
    for (const CollectiveKind op : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                                    CollectiveKind::all_reduce, CollectiveKind::all_to_all}) {
      if (!row.runs(op)) continue;
      SCOPED_TRACE(std::string(row.name) + " " + std::string(collective_kind_name(op)));
      const CollectiveRequest request = ring_request(row, op);
      const std::size_t built = tally(build_collective(kRingChips, request)).transfers;
      EXPECT_LE(built, estimate_transfers(request));
      EXPECT_GE(2 * built, estimate_transfers(request));
    }
}

// docs/collectives.md: `auto` takes bidirectional-split on an axis with wraparound, line without, direct for an
// all-to-all.
TEST(AlgorithmTable, AutoPicksPerAxisAsTheDocsSay) {
  const AxisGroups wrapped{{{0, 1, 2, 3}}, true};
  const AxisGroups open{{{0, 1, 2, 3}}, false};
  EXPECT_EQ(resolve_algorithm(Algorithm::automatic, CollectiveKind::all_gather, wrapped),
            Algorithm::bidirectional_split);
  EXPECT_EQ(resolve_algorithm(Algorithm::automatic, CollectiveKind::reduce_scatter, open), Algorithm::line);
  EXPECT_EQ(resolve_algorithm(Algorithm::automatic, CollectiveKind::all_to_all, open), Algorithm::direct);
  EXPECT_EQ(resolve_algorithm(Algorithm::automatic, CollectiveKind::all_to_all, wrapped), Algorithm::direct);
  EXPECT_EQ(resolve_algorithm(Algorithm::line, CollectiveKind::all_gather, wrapped), Algorithm::line);
}

// A request for a kind the row does not run is refused, naming the algorithm.
TEST(AlgorithmTable, VerifierRefusesTheKindsARowDoesNotRun) {
  for (const AlgorithmTraits& row : kAlgorithms)
    for (const CollectiveKind op : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                                    CollectiveKind::all_reduce, CollectiveKind::all_to_all}) {
      if (row.runs(op)) continue;
      SCOPED_TRACE(std::string(row.name) + " " + std::string(collective_kind_name(op)));
      const std::string message = refusal_of([&] { verify_collective(ring_request(row, op), kRingChips); });
      EXPECT_NE(message.find(std::string(row.name)), std::string::npos) << message;
    }
  const CollectiveRequest ring_a2a =
      ring_request(algorithm_traits(Algorithm::unidirectional), CollectiveKind::all_to_all);
  EXPECT_EQ(refusal_of([&] { verify_collective(ring_a2a, kRingChips); }),
            "all-to-all runs with the direct algorithm, got: unidirectional");
}

std::string source_file(const std::string& path) {
  std::ifstream in(std::string(PODSIM_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The docs read the table: the schedules table of docs/collectives.md has one line per row, in the table's order;
// the scenario format and its schema list every name.
TEST(AlgorithmTable, DocsListExactlyTheRows) {
  const std::string collectives = source_file("docs/collectives.md");
  const std::size_t header = collectives.find("| algorithm | what moves | time without contention |");
  ASSERT_NE(header, std::string::npos);
  std::istringstream lines(collectives.substr(header));
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);  // its rule
  std::vector<std::string> documented;
  while (std::getline(lines, line) && line.rfind("| `", 0) == 0)
    documented.push_back(line.substr(3, line.find('`', 3) - 3));
  std::vector<std::string> names;
  for (const AlgorithmTraits& row : kAlgorithms)
    names.emplace_back(row.name);
  EXPECT_EQ(documented, names);

  const std::string format = source_file("docs/scenario-format.md");
  std::string listed = "| `algorithm` | `auto`";
  for (const std::string& name : names)
    listed += ", `" + name + "`";
  EXPECT_NE(format.find(listed + " |"), std::string::npos) << listed;

  const std::string schema = source_file("docs/scenario.schema.json");
  for (const std::string& name : names)
    EXPECT_NE(schema.find("\"" + name + "\""), std::string::npos) << name;
}

}  // namespace
}  // namespace podsim
