// Plan search's enumeration, counted by hand: k kinds on n mesh axes of size > 1 give k^n assignments, times the
// microbatch counts, the remat policies, the slices and the presets; axes of size 1 stay unassigned; a scenario
// without `search` offers its parallelism plans.
#include "sim/capacity/plan_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "models/common/error.hpp"
#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim {
namespace {

ScenarioSpec model_spec(const std::string& hardware, Shape slice) {
  ScenarioSpec spec;
  spec.name = "search";
  spec.source_file = "search.json";
  spec.hardware = load_hardware_preset_full(hardware);
  spec.slice_shape = std::move(slice);
  ModelPreset model;
  model.name = "toy";
  model.dims.layers = 2;
  model.dims.d_model = 256;
  model.dims.d_ff = 1024;
  model.dims.heads = 4;
  model.dims.kv_heads = 4;
  model.dims.head_dim = 64;
  model.dims.vocab = 1024;
  spec.model = model;
  Workload workload;
  workload.batch_tokens = 1 << 16;
  workload.seq_len = 1024;
  workload.microbatches = 2;
  workload.remat.checkpoints_per_layer = 1;
  spec.workload = workload;
  return spec;
}

SearchSpec kinds(std::vector<ParallelKind> list) {
  SearchSpec search;
  search.kinds = std::move(list);
  return search;
}

std::set<std::string> assignments_of(const std::vector<Candidate>& candidates) {
  std::set<std::string> out;
  for (const Candidate& c : candidates)
    out.insert(c.parallelism.to_string());
  return out;
}

using enum ParallelKind;

TEST(PlanSearch, ThreeKindsOnThreeAxesGiveTwentySevenAssignments) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4, 4, 4});
  spec.search = kinds({data, fsdp, tensor});
  const auto candidates = enumerate_candidates(verified(spec));
  ASSERT_EQ(candidates.size(), 27u);  // 3^3
  const auto distinct = assignments_of(candidates);
  EXPECT_EQ(distinct.size(), 27u);
  EXPECT_EQ(distinct.count("data=X,Y,Z"), 1u);
  EXPECT_EQ(distinct.count("data=Z fsdp=X tensor=Y"), 1u);
  EXPECT_EQ(distinct.count("tensor=X,Y,Z"), 1u);
  for (const Candidate& c : candidates) {
    EXPECT_EQ(c.slice, (Shape{4, 4, 4}));
    EXPECT_EQ(c.chips(), 64);
    EXPECT_EQ(c.hardware.name, "tpu-v5p");
    EXPECT_EQ(c.wraparound, (std::vector<bool>{true, true, true}));  // v5p: a whole 4x4x4 cube is a torus
    ASSERT_EQ(c.mesh.mesh.axes.size(), 3u);
    EXPECT_EQ(c.mesh.mesh.axes[2].name, "Z");
    EXPECT_EQ(c.microbatches, 2);  // the workload's
    EXPECT_EQ(c.remat.checkpoints_per_layer, 1);
    EXPECT_TRUE(c.plan.empty());
  }
}

TEST(PlanSearch, AxesOfSizeOneStayUnassigned) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4, 4, 1});
  spec.search = kinds({data, fsdp, tensor});
  const auto candidates = enumerate_candidates(verified(spec));
  ASSERT_EQ(candidates.size(), 9u);  // 3^2: Z has size 1
  for (const auto& text : assignments_of(candidates))
    EXPECT_EQ(text.find('Z'), std::string::npos) << text;
}

// The verifier refuses a kind listed twice; a spec changed after it still enumerates each assignment once.
TEST(PlanSearch, RepeatedKindsCountOnce) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  spec.search = kinds({data, tensor});
  ScenarioSpec checked = verified(spec);
  checked.search->kinds.push_back(data);
  EXPECT_EQ(enumerate_candidates(checked).size(), 4u);  // 2^2
}

TEST(PlanSearch, MicrobatchesAndRematMultiply) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  SearchSpec search = kinds({data, fsdp});
  search.microbatches = {1, 2, 4};
  Remat two;
  two.checkpoints_per_layer = 2;
  search.remat = {Remat{}, two};
  spec.search = search;
  const auto candidates = enumerate_candidates(verified(spec));
  ASSERT_EQ(candidates.size(), 24u);  // 2^2 assignments x 3 microbatch counts x 2 remat policies
  std::set<std::tuple<std::string, std::int64_t, std::int64_t>> distinct;
  for (const Candidate& c : candidates)
    distinct.insert({c.parallelism.to_string(), c.microbatches, c.remat.checkpoints_per_layer});
  EXPECT_EQ(distinct.size(), 24u);
}

// Issue 33, class 3: the candidates are counted from the lists before any is made. 8 slice shapes of 2 and 4 chips
// per dim x slice counts 1 and 2 (a fourth mesh axis, DCN, with 2) x 5 kinds: 8 x 5^3 + 8 x 5^4 = 6,000
// assignments, x 7 microbatch counts x 3 remat policies = 126,000, above kMaxSearchCandidates.
TEST(PlanSearch, ASearchOfMoreCandidatesThanTheLimitIsRefusedBeforeAnyIsMade) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4, 4, 4});
  SearchSpec search = kinds({data, fsdp, tensor, sequence, pipeline});
  for (const std::int64_t x : {2, 4})
    for (const std::int64_t y : {2, 4})
      for (const std::int64_t z : {2, 4})
        search.slices.push_back({x, y, z});
  search.slice_counts = {1, 2};
  search.microbatches = {1, 2, 4, 8, 16, 32, 64};
  Remat one, two;
  one.checkpoints_per_layer = 1;
  two.checkpoints_per_layer = 2;
  search.remat = {Remat{}, one, two};
  spec.search = search;
  ASSERT_EQ(kMaxSearchCandidates, 100000u);
  try {
    enumerate_candidates(verified(spec));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "search.json: /search");
    EXPECT_EQ(e.message(),
              "the search allows up to 126,000 candidates, more than the limit of 100,000 (16 slice shapes and counts "
              "x 5 kinds on each mesh axis x 7 microbatch counts x 3 remat policies; docs/reliability.md, \"Limits "
              "that protect the machine\"): search fewer slices, kinds, microbatch counts or policies at once");
  }
  // One slice count fewer: 8 x 125 x 21 = 21,000 candidates, made.
  spec.search->slice_counts = {1};
  EXPECT_EQ(enumerate_candidates(verified(spec)).size(), 21000u);
}

TEST(PlanSearch, SlicesAndPresetsMultiplyAndAnUnformableSliceIsRejected) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  SearchSpec search = kinds({data, tensor});
  search.slices = {{16, 8}};
  search.hardware = {load_hardware_preset_full("tpu-v5e"), load_hardware_preset_full("tpu-v5p")};
  spec.search = search;
  // The verifier refuses a searched slice a searched preset cannot form; a spec changed after it gets a rejection.
  spec = verified(spec);
  spec.search->slices.push_back({2, 2, 2});
  const Enumeration e = enumerate_search(spec);
  // v5e 16x8: 4, v5e 2x2x2: cannot be formed (a v5e pod is 16x16), v5p 16x8: 4, v5p 2x2x2: 2^3 = 8.
  ASSERT_EQ(e.candidates.size(), 16u);
  ASSERT_EQ(e.unformable.size(), 1u);
  EXPECT_EQ(e.unformable[0].candidate.hardware.name, "tpu-v5e");
  EXPECT_EQ(e.unformable[0].candidate.slice, (Shape{2, 2, 2}));
  ASSERT_TRUE(e.unformable[0].rejected);
  EXPECT_EQ(e.unformable[0].rejected->rfind("slice 2x2x2 cannot be formed on tpu-v5e: ", 0), 0u)
      << *e.unformable[0].rejected;
  // v5e wraps only an axis of 16; v5p every dim when all are multiples of 4 (whole cubes).
  EXPECT_EQ(e.candidates[0].hardware.name, "tpu-v5e");
  EXPECT_EQ(e.candidates[0].wraparound, (std::vector<bool>{true, false}));
  EXPECT_EQ(e.candidates[0].mesh.mesh.axes[0].size, 16);
  EXPECT_EQ(e.candidates[0].mesh.mesh.axes[1].size, 8);
  EXPECT_EQ(e.candidates[4].hardware.name, "tpu-v5p");
  EXPECT_EQ(e.candidates[4].wraparound, (std::vector<bool>{true, true}));
  EXPECT_EQ(e.candidates[8].slice, (Shape{2, 2, 2}));
  EXPECT_EQ(e.candidates[8].wraparound, (std::vector<bool>{false, false, false}));  // size 2 never wraps
  EXPECT_EQ(enumerate_candidates(spec).size(), 16u);
}

// search.twist (docs/topology.md, "Twisted tori"): each twist choice doubles the slices; a shape that cannot twist
// is unformable with the rule. v5p 4x4x8 and 4x4x4, one kind (data) on 3 axes: 1 assignment each; twisted 4x4x8
// is a candidate, twisted 4x4x4 is not.
TEST(PlanSearch, TwistIsSearchedWhereTheShapeTakesIt) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4, 4, 8});
  SearchSpec search = kinds({data});
  search.slices = {{4, 4, 8}, {4, 4, 4}};
  search.twist = {false, true};
  spec.search = search;
  const Enumeration e = enumerate_search(verified(spec));
  ASSERT_EQ(e.candidates.size(), 3u);
  EXPECT_FALSE(e.candidates[0].twist);
  EXPECT_TRUE(e.candidates[1].twist);
  EXPECT_EQ(e.candidates[1].slice, (Shape{4, 4, 8}));
  EXPECT_FALSE(e.candidates[2].twist);
  ASSERT_EQ(e.unformable.size(), 1u);
  EXPECT_TRUE(e.unformable[0].candidate.twist);
  ASSERT_TRUE(e.unformable[0].rejected);
  EXPECT_NE(e.unformable[0].rejected->find("a twisted torus needs a slice of shape k x k x 2k or k x 2k x 2k"),
            std::string::npos)
      << *e.unformable[0].rejected;
}

// A per-dim wraparound list belongs to the scenario's own slice; searched slices take the preset's rule.
TEST(PlanSearch, AListedWraparoundAppliesToTheScenariosOwnSliceOnly) {
  ScenarioSpec spec = model_spec("tpu-v5e", {16, 4});
  spec.wrap = WrapChoice{WrapMode::listed, {false, true}};
  spec.search = kinds({data});
  const auto own = enumerate_candidates(verified(spec));
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].wraparound, (std::vector<bool>{false, true}));  // as written
  spec.search->slices = {{16, 4}};
  const auto searched = enumerate_candidates(verified(spec));
  ASSERT_EQ(searched.size(), 1u);
  EXPECT_EQ(searched[0].wraparound, (std::vector<bool>{true, false}));  // v5e: the axis of 16 wraps
}

TEST(PlanSearch, WithoutSearchThePlansWithAParallelismAreTheCandidates) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  ScenarioPlan dp;
  dp.name = "dp";
  dp.parallelism = Parallelism{};
  dp.parallelism->of(data) = {"X", "Y"};
  ScenarioPlan tp;
  tp.name = "tp";
  tp.parallelism = Parallelism{};
  tp.parallelism->of(data) = {"X"};
  tp.parallelism->of(tensor) = {"Y"};
  spec.plans = {dp, tp};
  const auto candidates = enumerate_candidates(verified(spec));
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0].plan, "dp");
  EXPECT_EQ(candidates[0].parallelism.to_string(), "data=X,Y");
  EXPECT_EQ(candidates[1].plan, "tp");
  EXPECT_EQ(candidates[1].parallelism.to_string(), "data=X tensor=Y");
  EXPECT_EQ(candidates[1].slice, (Shape{4, 4}));
  EXPECT_EQ(candidates[1].wraparound, (std::vector<bool>{false, false}));  // v5e: 4 is not the pod's 16
  EXPECT_EQ(candidates[1].microbatches, 2);
}

TEST(PlanSearch, NothingToSearchIsALocatedError) {
  const ScenarioSpec spec = verified(model_spec("tpu-v5e", {4, 4}));
  try {
    enumerate_candidates(spec);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "search.json: /plans");
    EXPECT_EQ(e.message(), "nothing to plan: give a \"search\" section or plans with a \"parallelism\", got: none");
  }
}

// The toy model on a 4x4 v5e slice, data and tensor: 4 assignments. tensor=X,Y is 16-way and the model has 4 heads,
// so it cannot be planned; the other three fit (a few MiB per chip of 16 GiB), two rows: data=X tensor=Y stands for
// its mirror image data=Y tensor=X.
TEST(PlanSearch, ScreensRanksByBookSimulatesTheTopAndListsTheRejected) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  spec.search = kinds({data, tensor});
  PlanSearchOptions options;
  options.top_k = 1;
  const PlanSearchResult result = search_plans(verified(spec), options);
  EXPECT_EQ(result.screened, 4u);
  ASSERT_EQ(result.ranked.size(), 2u);
  ASSERT_EQ(result.rejected.size(), 1u);
  EXPECT_EQ(result.rejected[0].candidate.parallelism.to_string(), "tensor=X,Y");
  ASSERT_TRUE(result.rejected[0].rejected);
  EXPECT_EQ(result.rejected[0].rejected->rfind("heads (4) must be a multiple of the tensor axes X,Y (16)", 0), 0u)
      << *result.rejected[0].rejected;
  // Only the first is simulated; the rest follow by book time.
  EXPECT_TRUE(result.ranked[0].des_step_s.has_value());
  EXPECT_GT(*result.ranked[0].des_step_s, 0.0);
  EXPECT_FALSE(result.ranked[1].des_step_s.has_value());
  EXPECT_EQ(result.ranked[0].mirrors.size() + result.ranked[1].mirrors.size(), 1u);
  for (const auto& r : result.ranked) {
    EXPECT_TRUE(r.fits_hbm);
    EXPECT_FALSE(r.rejected.has_value());
  }
  EXPECT_GE(result.screen_seconds, 0.0);
  EXPECT_GT(result.simulate_seconds, 0.0);
}

// On the 4x4 slice X and Y are alike (size 4, no wraparound on v5e), so data=X tensor=Y and data=Y tensor=X are
// mirror images: one row (the first in enumeration order) names the other, and one simulation stands for both.
TEST(PlanSearch, MirrorImagesFoldIntoOneRow) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  spec.search = kinds({data, tensor});
  PlanSearchOptions options;
  options.top_k = 3;
  const PlanSearchResult result = search_plans(verified(spec), options);
  const CandidateResult* folded = nullptr;
  for (const auto& r : result.ranked) {
    ASSERT_TRUE(r.des_step_s.has_value()) << r.candidate.parallelism.to_string();
    EXPECT_NE(r.candidate.parallelism.to_string(), "data=Y tensor=X");  // folded, not a row of its own
    if (r.candidate.parallelism.to_string() == "data=X tensor=Y") folded = &r;
  }
  EXPECT_EQ(result.simulations, result.ranked.size());
  ASSERT_TRUE(folded);
  ASSERT_EQ(folded->mirrors.size(), 1u);
  EXPECT_EQ(folded->mirrors[0].to_string(), "data=Y tensor=X");
  // The premise, checked by simulating both: the same step time and memory.
  const CapacityProblem problem = capacity_problem(verified(spec));
  Candidate other = folded->candidate;
  other.parallelism = folded->mirrors[0];
  CandidateResult first = evaluate_candidate_book(problem, folded->candidate);
  CandidateResult second = evaluate_candidate_book(problem, other);
  simulate_candidate(problem, first);
  simulate_candidate(problem, second);
  EXPECT_NEAR(*first.des_step_s, *second.des_step_s, 1e-9 * *first.des_step_s);
  EXPECT_NEAR(first.book_step_s, second.book_step_s, 1e-9 * first.book_step_s);
  EXPECT_EQ(first.memory_per_chip_bytes, second.memory_per_chip_bytes);
  EXPECT_NEAR(*first.des_step_s, *folded->des_step_s, 1e-9 * *first.des_step_s);

  // On a 4x2 slice the axes differ in size: no mirrors, one row and one simulation each.
  ScenarioSpec uneven = model_spec("tpu-v5e", {4, 2});
  uneven.search = kinds({data, fsdp});
  const PlanSearchResult separate = search_plans(verified(uneven), options);
  std::size_t simulated = 0;
  for (const auto& r : separate.ranked) {
    simulated += r.des_step_s.has_value() ? 1 : 0;
    EXPECT_TRUE(r.mirrors.empty()) << r.candidate.parallelism.to_string();
  }
  EXPECT_EQ(separate.simulations, simulated);
  EXPECT_EQ(simulated, 3u);
}

// A 4x4x4 v5p slice (every dim 4, all wrapping): data=X fsdp=Y tensor=Z has 3! = 6 images, one row with 5 mirrors.
// The 27 assignments fold into the ways of sharing 3 alike axes among 3 kinds: C(3 + 2, 2) = 10 rows.
TEST(PlanSearch, ACubesSixImagesAreOneRow) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4, 4, 4});
  spec.search = kinds({data, fsdp, tensor});
  PlanSearchOptions options;
  options.simulate = false;
  const PlanSearchResult result = search_plans(verified(spec), options);
  bool found = false;
  for (const auto& r : result.ranked)
    if (r.candidate.parallelism.to_string() == "data=X fsdp=Y tensor=Z") {
      found = true;
      EXPECT_EQ(r.mirrors.size(), 5u);
    }
  for (const auto& r : result.rejected)
    if (r.candidate.parallelism.to_string() == "data=X fsdp=Y tensor=Z") {
      found = true;
      EXPECT_EQ(r.mirrors.size(), 5u);
    }
  EXPECT_TRUE(found);
  std::size_t images = 0;
  for (const auto* list : {&result.ranked, &result.rejected})
    for (const auto& r : *list)
      images += 1 + r.mirrors.size();
  EXPECT_EQ(images, 27u);
  EXPECT_EQ(result.ranked.size() + result.rejected.size(), 10u);
}

TEST(PlanSearch, BookOnlySimulatesNothing) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  spec.search = kinds({data, tensor});
  PlanSearchOptions options;
  options.simulate = false;
  const PlanSearchResult result = search_plans(verified(spec), options);
  ASSERT_EQ(result.ranked.size(), 2u);  // data=X,Y; data=X tensor=Y (and its mirror image)
  for (std::size_t i = 0; i < result.ranked.size(); ++i) {
    EXPECT_FALSE(result.ranked[i].des_step_s.has_value());
    if (i > 0) EXPECT_LE(result.ranked[i - 1].book_step_s, result.ranked[i].book_step_s);
  }
}

// A model too large for the slice: every candidate is rejected, each saying by how much, and the search returns.
TEST(PlanSearch, NothingFitsIsAResultNotAnError) {
  ScenarioSpec spec = model_spec("tpu-v5e", {2, 2});
  spec.model->dims.layers = 400;
  spec.model->dims.d_model = 8192;
  spec.model->dims.d_ff = 32768;
  spec.model->dims.heads = 64;
  spec.model->dims.kv_heads = 8;
  spec.model->dims.head_dim = 128;
  spec.search = kinds({fsdp});
  const PlanSearchResult result = search_plans(verified(spec), PlanSearchOptions{});
  EXPECT_TRUE(result.ranked.empty());
  ASSERT_EQ(result.rejected.size(), 1u);
  EXPECT_FALSE(result.rejected[0].fits_hbm);
  ASSERT_TRUE(result.rejected[0].rejected);
  EXPECT_NE(result.rejected[0].rejected->find("over"), std::string::npos) << *result.rejected[0].rejected;
}

TEST(PlanSearch, ASearchWithoutAModelIsALocatedError) {
  ScenarioSpec spec = model_spec("tpu-v5e", {4, 4});
  spec.search = kinds({data});
  spec = verified(spec);
  spec.model.reset();  // after the verifier, which refuses a search without a model too
  try {
    search_plans(spec, PlanSearchOptions{});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "search.json: /model");
  }
}

// Slice counts (docs/overlap-pipeline-dcn.md): a count N > 1 puts DCN=N first on the mesh, and only assignments
// whose slice axis carries data, fsdp or pipeline are candidates. On a v5p slice of 4 chips (one axis X) with data
// and tensor: one slice gives X in {data, tensor} (2); two slices give DCN=data with X in {data, tensor} (2 of 4).
TEST(PlanSearch, SliceCountsAddTheSliceAxisAndKeepItOnDataFsdpOrPipeline) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4});
  spec.search = kinds({data, tensor});
  spec.search->slice_counts = {1, 2};
  const auto candidates = enumerate_candidates(verified(spec));
  ASSERT_EQ(candidates.size(), 4u);
  std::set<std::string> two;
  for (const Candidate& c : candidates) {
    if (c.slices == 1) {
      EXPECT_EQ(c.chips(), 4);
      EXPECT_EQ(c.mesh.mesh.axes.size(), 1u);
      continue;
    }
    EXPECT_EQ(c.chips(), 8);
    ASSERT_EQ(c.mesh.mesh.axes.size(), 2u);
    EXPECT_EQ(c.mesh.mesh.axes[0], (MeshAxis{"DCN", 2}));
    two.insert(c.parallelism.to_string());
  }
  EXPECT_EQ(two, (std::set<std::string>{"data=DCN,X", "data=DCN tensor=X"}));
}

TEST(PlanSearch, SeveralSlicesAreSimulatedAndTheDcnTimeIsReported) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4});
  spec.search = kinds({data});
  spec.search->slice_counts = {2};
  const PlanSearchResult result = search_plans(verified(spec), PlanSearchOptions{});
  ASSERT_EQ(result.ranked.size(), 1u);
  const CandidateResult& r = result.ranked[0];
  ASSERT_TRUE(r.des_step_s);
  ASSERT_TRUE(r.des_dcn_s);
  EXPECT_GT(*r.des_dcn_s, 0.0);
  EXPECT_GT(r.breakdown.dcn_s, 0.0);
  EXPECT_EQ(r.bound == StepBound::dcn,
            r.breakdown.dcn_s > std::max({r.breakdown.compute_s, r.breakdown.hbm_s, r.breakdown.ici_s}));
}

// TPU v4 has run multi-slice jobs (PaLM's two pods over DCN), and its preset now carries the scaling book's generic
// DCN egress per chip, 6.25e9 B/s, as v5p's does: the same two-slice data-parallel search plans on v4 and its DCN
// part equals v5p's (the same gradient bytes over the same DCN figures: 4 chips per host, no DCN latency), and
// halving the DCN bandwidth doubles it.
TEST(PlanSearch, TwoSlicesOfTpuV4PlanWithTheDcnFigureOfItsPreset) {
  const auto dcn_of = [](const std::string& hardware, std::optional<double> dcn_Bps) {
    ScenarioSpec spec = model_spec(hardware, {4});
    spec.search = kinds({data});
    spec.search->slice_counts = {2};
    if (dcn_Bps) spec.hardware.spec.dcn_bandwidth_Bps = *dcn_Bps;
    const PlanSearchResult result = search_plans(verified(spec), PlanSearchOptions{});
    EXPECT_EQ(result.ranked.size(), 1u);
    return result.ranked.at(0);
  };
  EXPECT_DOUBLE_EQ(load_hardware_preset("tpu-v4").dcn_bandwidth_Bps, 6.25e9);
  const CandidateResult v4 = dcn_of("tpu-v4", std::nullopt);
  EXPECT_EQ(v4.candidate.slices, 2);
  ASSERT_TRUE(v4.des_dcn_s);
  EXPECT_GT(*v4.des_dcn_s, 0.0);
  EXPECT_GT(v4.breakdown.dcn_s, 0.0);
  EXPECT_DOUBLE_EQ(v4.breakdown.dcn_s, dcn_of("tpu-v5p", std::nullopt).breakdown.dcn_s);
  EXPECT_NEAR(dcn_of("tpu-v4", 3.125e9).breakdown.dcn_s, 2 * v4.breakdown.dcn_s, 1e-12 * v4.breakdown.dcn_s);
}

// Several slices with collectives over the DCN and two in-slice axes (data=DCN,X,Y; fsdp=DCN,X,Y): under the default
// multi_axis (concurrent) the in-slice axes run at once and the DCN hierarchically, so no candidate is rejected or
// fails its simulation (they were rejected with an error that named no file), and the expanded step program carries
// the scenario's file for the planner's errors.
TEST(PlanSearch, SeveralSlicesRunMultiAxisCollectivesAtOnceBesideTheDcn) {
  ScenarioSpec spec = model_spec("tpu-v5p", {4, 4});
  spec.search = kinds({data, fsdp});
  spec.search->slice_counts = {2};
  ASSERT_EQ(spec.options.multi_axis, MultiAxis::concurrent);
  const ScenarioSpec checked = verified(spec);
  const PlanSearchResult result = search_plans(checked, PlanSearchOptions{});
  for (const CandidateResult& r : result.rejected)
    ADD_FAILURE() << r.candidate.parallelism.to_string() << ": " << r.rejected.value_or("");
  std::set<std::string> simulated;
  for (const CandidateResult& r : result.ranked) {
    EXPECT_FALSE(r.des_failed) << r.candidate.parallelism.to_string() << ": " << r.des_failed.value_or("");
    if (r.des_step_s) simulated.insert(r.candidate.parallelism.to_string());
  }
  EXPECT_EQ(simulated.count("data=DCN,X,Y"), 1u);
  EXPECT_EQ(simulated.count("fsdp=DCN,X,Y"), 1u);
  const CapacityProblem problem = capacity_problem(checked);
  EXPECT_EQ(expand_candidate(problem, result.ranked.front().candidate).spec.source_file, "search.json");
}

// A goal's scenario without slices: LLaMA 3 70B holds 70,553,706,496 parameters (80 layers of 855,654,400: q and o
// 8192 x 8192 each, k and v 2 x 8192 x 1024, the MLP 3 x 8192 x 28672, two norms; untied embeddings 2 x 128256 x
// 8192; the final norm), 12 bytes each in training (bf16 parameters and gradients, Adam's two fp32 moments):
// 846,644,477,952 bytes, 49.3 v5e chips of 16 GiB. So the v5e shapes of 32 chips and fewer are pruned before
// screening, and 8x8, 8x16 and 16x16 are searched.
const char* const kGoalSearch = R"({"name": "goal", "hardware": "tpu-v5e", "model": {"preset": "llama3-70b"},
  "workload": {"mode": "train", "batch_tokens": 4194304, "seq_len": 4096, "remat": "full"},
  "search": {"parallelism": ["data", "fsdp"]}, "goal": {"train_tokens": 1e12}})";

TEST(PlanSearch, AGoalWithoutSlicesSearchesTheShapesThePresetOffersThatCanHoldTheState) {
  const Enumeration e = enumerate_search(load_scenario_text(kGoalSearch, "goal.json"));
  std::set<Shape> searched;
  for (const Candidate& c : e.candidates)
    searched.insert(c.slice);
  EXPECT_EQ(searched, (std::set<Shape>{{8, 8}, {8, 16}, {16, 16}}));
  EXPECT_EQ(e.candidates.size(), 3u * 4u);  // 2 kinds on 2 axes, each shape
  ASSERT_EQ(e.unformable.size(), 5u);
  for (const CandidateResult& r : e.unformable)
    EXPECT_NE(r.rejected->find("pruned before screening: the training state"), std::string::npos) << *r.rejected;
  EXPECT_EQ(e.unformable.front().candidate.slice, (Shape{1, 1}));
}

TEST(PlanSearch, AGoalsMaxChipsPrunesTheLargerShapes) {
  std::string text = kGoalSearch;
  text.replace(text.find("\"train_tokens\": 1e12"), 20, "\"train_tokens\": 1e12, \"max_chips\": 128");
  const Enumeration e = enumerate_search(load_scenario_text(text, "goal.json"));
  std::set<Shape> searched;
  for (const Candidate& c : e.candidates)
    searched.insert(c.slice);
  EXPECT_EQ(searched, (std::set<Shape>{{8, 8}, {8, 16}}));
  EXPECT_NE(e.unformable.back().rejected->find("256 chips, more than the goal's max_chips (128)"), std::string::npos)
      << *e.unformable.back().rejected;
}

TEST(PlanSearch, SlicesKeyedByPresetSearchTwoDAndThreeDGenerationsTogether) {
  const ScenarioSpec spec = load_scenario_text(R"({"name": "two", "hardware": "tpu-v5e",
    "model": {"layers": 2, "d_model": 256, "d_ff": 1024, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 1024},
    "workload": {"mode": "train", "batch_tokens": 65536, "seq_len": 1024, "checkpoints_per_layer": 1},
    "search": {"hardware": ["tpu-v5e", "tpu-v5p"], "slices": {"tpu-v5e": [[4, 4]], "tpu-v5p": [[2, 2, 2], [4, 4, 4]]},
               "parallelism": ["data", "fsdp"]},
    "price_per_chip_hour": {"tpu-v5e": 1.2, "tpu-v5p": 4.2}})",
                                               "two.json");
  const Enumeration e = enumerate_search(spec);
  std::set<std::pair<std::string, Shape>> searched;
  for (const Candidate& c : e.candidates)
    searched.insert({c.hardware.name, c.slice});
  EXPECT_EQ(searched, (std::set<std::pair<std::string, Shape>>{
                          {"tpu-v5e", {4, 4}}, {"tpu-v5p", {2, 2, 2}}, {"tpu-v5p", {4, 4, 4}}}));
  // 2^2 + 2^3 + 2^3 assignments.
  EXPECT_EQ(e.candidates.size(), 4u + 8u + 8u);
  const CapacityProblem problem = capacity_problem(spec);
  for (const Candidate& c : e.candidates)
    EXPECT_EQ(candidate_price(problem, c), c.hardware.name == "tpu-v5e" ? 1.2 : 4.2);
  // Each candidate's cost per million tokens at its own preset's price.
  const CandidateResult r = evaluate_candidate_book(problem, e.candidates.front());
  ASSERT_TRUE(r.cost_per_million_tokens);
  EXPECT_NEAR(*r.cost_per_million_tokens, 1.2 * 16 * r.book_step_s / 3600 / 65536 * 1e6,
              1e-12 * *r.cost_per_million_tokens);
}

}  // namespace
}  // namespace podsim
