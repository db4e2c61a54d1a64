// The plan report writers (text, JSON, CSV, HTML) on a hand-built search: two ranked candidates (the first
// simulated), one that does not fit HBM and one that could not be planned. Expected figures are worked out from the
// chosen numbers: e.g. the 4x4 candidate holds 1 + 1 + 4 + 2 + 0 + 0.5 GiB = 8.5 GiB of 16 GiB, 7.5 GiB of headroom.
#include "sim/report/plan_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <sstream>

#include "tests/report/sample_run.hpp"
#include "tests/support/test_checks.hpp"

namespace podsim::report {
namespace {

using test::kGiB;

Candidate candidate(Shape slice, std::vector<MeshAxis> axes, std::vector<std::pair<ParallelKind, std::string>> kinds) {
  Candidate c;
  c.hardware.name = "tpu-v5e";
  c.slice = std::move(slice);
  c.wraparound.assign(c.slice.size(), false);
  c.mesh.name = "mesh";
  c.mesh.mesh = make_mesh(std::move(axes));
  for (const auto& [kind, axis] : kinds)
    c.parallelism.of(kind).push_back(axis);
  c.remat.checkpoints_per_layer = 2;
  return c;
}

ScenarioSpec spec_for(WorkloadMode mode, std::optional<double> price) {
  ScenarioSpec spec;
  spec.name = "toy-search";
  ModelPreset model;
  model.name = "toy-1b";
  spec.model = model;
  Workload workload;
  workload.mode = mode;
  workload.batch_tokens = 1 << 20;
  workload.seq_len = 2048;
  workload.batch = 8;
  workload.context = 1024;
  spec.workload = workload;
  spec.price_per_chip_hour = price;
  return spec;
}

// Ranked: #1 4x4 data=X tensor=Y (book 2 s, des 2.5 s), #2 2x8 fsdp=X,Y (book 3 s, not simulated). Rejected: 2x2 data
// (does not fit: 20 GiB), 8x2 tensor=X (cannot be planned: never evaluated).
PlanSearchResult sample_search() {
  PlanSearchResult search;
  CandidateResult first;
  first.candidate = candidate({4, 4}, {{"X", 4}, {"Y", 4}}, {{ParallelKind::data, "X"}, {ParallelKind::tensor, "Y"}});
  first.memory = {1 * kGiB, 1 * kGiB, 4 * kGiB, 2 * kGiB, 0, kGiB / 2};
  first.memory_per_chip_bytes = first.memory.total();
  first.hbm_bytes = 16 * kGiB;
  first.fits_hbm = true;
  first.book_step_s = 2.0;
  first.des_step_s = 2.5;
  first.breakdown = {1.5, 0.0, 0.5, 0.0};
  first.bound = StepBound::compute;
  first.model_flops_per_step = 1e15;
  first.mfu = 0.4;
  first.tokens_per_s_per_chip = 26214.4;  // 2^20 tokens / 2.5 s / 16 chips
  first.cost_per_million_tokens = 1.25;
  search.ranked.push_back(first);

  CandidateResult second;
  second.candidate = candidate({2, 8}, {{"X", 2}, {"Y", 8}}, {{ParallelKind::fsdp, "X"}, {ParallelKind::fsdp, "Y"}});
  second.memory = {kGiB / 8, kGiB / 8, kGiB / 2, 2 * kGiB, 0, kGiB};
  second.memory_per_chip_bytes = second.memory.total();
  second.hbm_bytes = 16 * kGiB;
  second.fits_hbm = true;
  second.book_step_s = 3.0;
  second.breakdown = {2.0, 0.0, 1.0, 0.0};
  second.bound = StepBound::compute;
  second.mfu = 0.3;
  second.tokens_per_s_per_chip = 21845.0;
  search.ranked.push_back(second);

  CandidateResult no_fit;
  no_fit.candidate = candidate({2, 2}, {{"X", 2}, {"Y", 2}}, {{ParallelKind::data, "X"}, {ParallelKind::data, "Y"}});
  no_fit.memory = {2 * kGiB, 2 * kGiB, 8 * kGiB, 8 * kGiB, 0, 0};
  no_fit.memory_per_chip_bytes = no_fit.memory.total();
  no_fit.hbm_bytes = 16 * kGiB;
  no_fit.fits_hbm = false;
  no_fit.book_step_s = 9.0;
  no_fit.bound = StepBound::compute;
  no_fit.rejected = "does not fit HBM by 4 GiB";
  search.rejected.push_back(no_fit);

  CandidateResult unplanned;
  unplanned.candidate = candidate({8, 2}, {{"X", 8}, {"Y", 2}}, {{ParallelKind::tensor, "X"}});
  unplanned.rejected = "tensor: kv_heads 4 does not divide the tensor axes X (8)";
  search.rejected.push_back(unplanned);

  search.screened = 4;
  search.screen_seconds = 0.002;
  search.simulate_seconds = 1.5;
  search.simulations = 1;
  return search;
}

TEST(PlanReport, JsonHoldsTheContractKeysRankedThenRejected) {
  const ScenarioSpec spec = spec_for(WorkloadMode::train, 2.0);
  const PlanSearchResult search = sample_search();
  const nlohmann::json j = plan_json({spec, search});
  EXPECT_EQ(j.at("schema"), "podsim/1");
  const auto& candidates = j.at("candidates");
  ASSERT_EQ(candidates.size(), 4u);
  const std::set<std::string> contract = {"rank",
                                          "slice",
                                          "chips",
                                          "mesh",
                                          "parallelism",
                                          "fits_hbm",
                                          "memory_per_chip_bytes",
                                          "memory_per_chip",
                                          "step_time_s",
                                          "mfu",
                                          "tokens_per_s_per_chip",
                                          "bound",
                                          "rejected"};
  for (const auto& c : candidates) {
    for (const auto& key : contract)
      EXPECT_TRUE(c.contains(key)) << key;
    for (const char* kind : {"params", "grads", "optimizer", "activations", "kv_cache", "temporaries"})
      EXPECT_TRUE(c.at("memory_per_chip").contains(kind)) << kind;
    EXPECT_TRUE(c.at("step_time_s").contains("book"));
    EXPECT_TRUE(c.at("step_time_s").contains("des"));
  }

  const auto& first = candidates[0];
  EXPECT_EQ(first.at("rank"), 1);
  EXPECT_EQ(first.at("slice"), nlohmann::json::array({4, 4}));
  EXPECT_EQ(first.at("chips"), 16);
  EXPECT_EQ(first.at("mesh"), "X=4,Y=4");
  EXPECT_EQ(first.at("parallelism").at("data"), nlohmann::json::array({"X"}));
  EXPECT_EQ(first.at("parallelism").at("tensor"), nlohmann::json::array({"Y"}));
  EXPECT_TRUE(first.at("parallelism").at("fsdp").empty());
  EXPECT_EQ(first.at("fits_hbm"), true);
  EXPECT_EQ(first.at("memory_per_chip_bytes"), 17 * kGiB / 2);  // 1 + 1 + 4 + 2 + 0.5 GiB
  EXPECT_EQ(first.at("memory_per_chip").at("optimizer"), 4 * kGiB);
  EXPECT_EQ(first.at("memory_per_chip").at("temporaries"), kGiB / 2);
  EXPECT_EQ(first.at("headroom_bytes"), 15 * kGiB / 2);  // 16 - 8.5 GiB
  EXPECT_DOUBLE_EQ(first.at("step_time_s").at("book").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(first.at("step_time_s").at("des").get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(first.at("mfu").get<double>(), 0.4);
  EXPECT_EQ(first.at("bound"), "compute");
  EXPECT_TRUE(first.at("rejected").is_null());
  EXPECT_DOUBLE_EQ(first.at("cost_per_million_tokens").get<double>(), 1.25);
  EXPECT_EQ(first.at("remat").at("checkpoints_per_layer"), 2);

  const auto& second = candidates[1];
  EXPECT_EQ(second.at("rank"), 2);
  EXPECT_EQ(second.at("parallelism").at("fsdp"), nlohmann::json::array({"X", "Y"}));
  EXPECT_TRUE(second.at("step_time_s").at("des").is_null());  // not simulated

  const auto& no_fit = candidates[2];
  EXPECT_TRUE(no_fit.at("rank").is_null());
  EXPECT_EQ(no_fit.at("fits_hbm"), false);
  EXPECT_EQ(no_fit.at("rejected"), "does not fit HBM by 4 GiB");
  EXPECT_EQ(no_fit.at("memory_per_chip_bytes"), 20 * kGiB);
  EXPECT_EQ(no_fit.at("headroom_bytes"), -4 * static_cast<std::int64_t>(kGiB));

  const auto& unplanned = candidates[3];
  EXPECT_TRUE(unplanned.at("rank").is_null());
  EXPECT_EQ(unplanned.at("rejected"), "tensor: kv_heads 4 does not divide the tensor axes X (8)");
  EXPECT_TRUE(unplanned.at("step_time_s").at("book").is_null());  // never evaluated
  EXPECT_TRUE(unplanned.at("memory_per_chip_bytes").is_null());
  EXPECT_TRUE(unplanned.at("bound").is_null());
}

TEST(PlanReport, CsvHasAHeaderAndOneRowPerCandidate) {
  const ScenarioSpec spec = spec_for(WorkloadMode::train, std::nullopt);
  const PlanSearchResult search = sample_search();
  std::ostringstream out;
  write_plan_csv({spec, search}, out);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "rank,hardware,slice,chips,mesh,parallelism,microbatches,remat,plan,fits_hbm,memory_per_chip_bytes,"
            "memory_params_bytes,memory_grads_bytes,memory_optimizer_bytes,memory_activations_bytes,"
            "memory_kv_cache_bytes,memory_temporaries_bytes,hbm_bytes,headroom_bytes,step_time_book_s,"
            "step_time_des_s,mfu,tokens_per_s_per_chip,token_latency_s,bound,cost_per_million_tokens,rejected,"
            "pipeline_stages,pipeline_schedule,bubble_fraction,memory_offloaded_bytes,step_recompute_book_s,"
            "step_offload_book_s,step_compute_des_s,step_exposed_communication_des_s,mirrors,price_per_chip_hour");
  EXPECT_EQ(lines[1],
            "1,tpu-v5e,4x4,16,\"X=4,Y=4\",data=X tensor=Y,1,2/layer,,true,9126805504,1073741824,1073741824,"
            "4294967296,2147483648,0,536870912,17179869184,8053063680,2,2.5,0.4,26214.4,,compute,1.25,,,,,0,0,0,,,,");
  // Not simulated: an empty des cell.
  EXPECT_EQ(lines[2].substr(0, 38), "2,tpu-v5e,2x8,16,\"X=2,Y=8\",\"fsdp=X,Y\",");
  EXPECT_NE(lines[2].find(",3,,0.3,"), std::string::npos) << lines[2];
  // Never evaluated: the 16 figures from memory_per_chip_bytes to cost_per_million_tokens are empty.
  EXPECT_EQ(lines[4], ",tpu-v5e,8x2,16,\"X=8,Y=2\",tensor=X,1,2/layer,,false" + std::string(17, ',') +
                          "tensor: kv_heads 4 does not divide the tensor axes X (8),,,,,,,,,,");
}

// Two ranked marks two pixels apart (the same step, 64 MiB more memory on an axis of 20 GiB) get a label each, not
// two labels drawn over each other: their boxes (7 px a character, 13 px a line) do not meet.
TEST(PlanReport, HtmlLabelsMarksThatNearlyCoincideApart) {
  const ScenarioSpec spec = spec_for(WorkloadMode::train, 2.0);
  PlanSearchResult search = sample_search();
  CandidateResult& second = search.ranked[1];
  second.memory = search.ranked[0].memory;
  second.memory.params += kGiB / 16;
  second.memory_per_chip_bytes = second.memory.total();
  second.des_step_s = search.ranked[0].des_step_s;
  std::ostringstream out;
  write_plan_html({spec, search}, out);
  const std::string html = out.str();
  std::smatch one, two;
  ASSERT_TRUE(std::regex_search(html, one, std::regex("<text class=\"label\" x=\"(\\d+)\" y=\"(\\d+)\">#1</text>")));
  ASSERT_TRUE(std::regex_search(html, two, std::regex("<text class=\"label\" x=\"(\\d+)\" y=\"(\\d+)\">#2</text>")));
  const double dx = std::abs(std::stod(one[1]) - std::stod(two[1]));
  const double dy = std::abs(std::stod(one[2]) - std::stod(two[2]));
  EXPECT_TRUE(dx >= 14 || dy >= 13) << "#1 at " << one[1] << "," << one[2] << "; #2 at " << two[1] << "," << two[2];
}

TEST(PlanReport, HtmlDrawsOnePointPerEvaluatedCandidateAndTheHbmLine) {
  const ScenarioSpec spec = spec_for(WorkloadMode::train, 2.0);
  const PlanSearchResult search = sample_search();
  std::ostringstream out;
  write_plan_html({spec, search}, out);
  const std::string html = out.str();
  EXPECT_EQ(test::count_of(html, "<circle class=\"fit\""), 2u);  // the two ranked
  EXPECT_EQ(test::count_of(html, "<path class=\"nofit\""), 1u);  // the 20 GiB one; the unplanned one has no figures
  EXPECT_EQ(test::count_of(html, "<line class=\"hbm\""), 1u);    // one capacity: 16 GiB
  // The line lies in the plot's right half (the marks reach 20 GiB): its label left of it, clear of the legend.
  EXPECT_NE(html.find("text-anchor=\"end\">HBM 16 GiB (tpu-v5e)"), std::string::npos);
  // The breakdown: #1 has compute and ICI parts, #2 too: four rects.
  EXPECT_EQ(test::count_of(html, "<rect class=\"part\""), 4u);
  EXPECT_EQ(test::count_of(html, "<script"), 0u);
  EXPECT_EQ(test::count_of(html, "http"), 0u);  // self-contained
  EXPECT_NE(html.find("does not fit HBM by 4 GiB"), std::string::npos);
  EXPECT_NE(html.find("<td>data=X tensor=Y</td>"), std::string::npos);
  // The breakdown says the figure of each bar and of its tick: #1's book 2 s and des 2.5 s, #2's book 3 s alone.
  EXPECT_NE(html.find(">book 2 s, des 2.5 s (tick)</text>"), std::string::npos);
  EXPECT_NE(html.find(">book 3 s</text>"), std::string::npos);
  // The ranked table leaves memory by kind to a table of its own, so each fits the page.
  EXPECT_NE(html.find("<h2>Memory per chip by kind</h2>"), std::string::npos);
  EXPECT_EQ(test::count_of(html, "<th>optimizer</th>"), 1u);
}

TEST(PlanReport, TextListsRankedThenRejectedWithReasons) {
  const ScenarioSpec spec = spec_for(WorkloadMode::train, 2.0);
  const PlanSearchResult search = sample_search();
  const std::string text = plan_text({spec, search});
  EXPECT_NE(text.find("plan search: toy-search, model toy-1b, train 1048576 tokens per step (sequence 2048)"),
            std::string::npos)
      << text;
  // The kinds no candidate holds (kv cache) get no column; the price adds one.
  EXPECT_TRUE(std::regex_search(text, std::regex("rank +slice \\(chips\\) +mesh +parallelism +step book +step des +"
                                                 "MFU +tokens/s/chip +params +grads +optimizer +activations +"
                                                 "temporaries +memory/chip +headroom +bound +\\$/1M tokens")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(" 1 +4x4 \\(16\\) +X=4,Y=4 +data=X tensor=Y +2 s +2.5 s +40.0% +"
                                                 "26214 +1 GiB +1 GiB +4 GiB +2 GiB +512 MiB +8.5 GiB +7.5 GiB +"
                                                 "compute +\\$1.25")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(" 2 +2x8 \\(16\\) +X=2,Y=8 +fsdp=X,Y +3 s +- +30.0%"))) << text;
  EXPECT_NE(text.find("rejected (2):"), std::string::npos);
  EXPECT_TRUE(std::regex_search(text, std::regex("2x2 \\(4\\) +X=2,Y=2 +data=X,Y +20 GiB +does not fit HBM by 4 GiB")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("8x2 \\(16\\) +X=8,Y=2 +tensor=X +- +tensor: kv_heads 4"))) << text;
  EXPECT_NE(text.find("screened 4 candidates by the closed form in 2 ms (2000 candidates/s); simulated 1 in 1.5 s"),
            std::string::npos)
      << text;
}

// #1 on the 4x4 (X and Y alike) stands for its mirror image data=Y tensor=X: one row, a column naming the mirror,
// the JSON's "mirrors" in the shape of "parallelism", the CSV's field; a row without mirrors shows "-".
TEST(PlanReport, AMirrorImageIsNamedInItsRepresentativesRow) {
  PlanSearchResult search = sample_search();
  Parallelism mirror;
  mirror.of(ParallelKind::data).push_back("Y");
  mirror.of(ParallelKind::tensor).push_back("X");
  search.ranked[0].mirrors.push_back(mirror);
  const ScenarioSpec spec = spec_for(WorkloadMode::train, 2.0);
  const PlanTable table = ranked_table({spec, search});
  ASSERT_EQ(table.headers.back(), "mirror images");
  EXPECT_EQ(table.rows[0].back(), "data=Y tensor=X");
  EXPECT_EQ(table.rows[1].back(), "-");
  EXPECT_FALSE(table.numeric.back());
  const nlohmann::json j = plan_json({spec, search});
  const auto& first = j.at("candidates").at(0);
  ASSERT_EQ(first.at("mirrors").size(), 1u);
  EXPECT_EQ(first.at("mirrors").at(0).at("data"), nlohmann::json::array({"Y"}));
  EXPECT_EQ(first.at("mirrors").at(0).at("tensor"), nlohmann::json::array({"X"}));
  EXPECT_TRUE(j.at("candidates").at(1).at("mirrors").empty());
  EXPECT_EQ(first.at("price_per_chip_hour"), 2.0);  // the scenario's one price, per candidate
  std::ostringstream csv;
  write_plan_csv({spec, search}, csv);
  EXPECT_NE(csv.str().find(",data=Y tensor=X,2\n"), std::string::npos) << csv.str();
  // The page names it on a line beneath the row, across the table, not in a column of its own: the ranked table shows
  // 10 columns (rank, slice, parallelism, step book and des, MFU, tokens/s/chip, memory/chip, bound, $/1M tokens; the
  // mesh, memory by kind and headroom have their own table), the line spans the 9 after the rank.
  std::ostringstream html;
  write_plan_html({spec, search}, html);
  EXPECT_NE(html.str().find("<tr class=\"beneath\"><td></td><td colspan=\"9\">mirror images: data=Y tensor=X</td>"),
            std::string::npos)
      << html.str();
  EXPECT_EQ(html.str().find("<th>mirror images</th>"), std::string::npos);
  // Without mirrors anywhere, no column.
  EXPECT_NE(ranked_table({spec, sample_search()}).headers.back(), "mirror images");
}

TEST(PlanReport, DecodeShowsTokenLatencyAndThroughput) {
  const ScenarioSpec spec = spec_for(WorkloadMode::decode, std::nullopt);
  PlanSearchResult search;
  CandidateResult r;
  r.candidate = candidate({2, 2}, {{"X", 2}, {"Y", 2}}, {{ParallelKind::tensor, "X"}, {ParallelKind::tensor, "Y"}});
  r.memory.params = 4 * kGiB;
  r.memory.kv_cache = kGiB;
  r.memory_per_chip_bytes = r.memory.total();
  r.hbm_bytes = 16 * kGiB;
  r.fits_hbm = true;
  r.book_step_s = 0.02;
  r.token_latency_s = 0.02;
  r.tokens_per_s_per_chip = 100;  // batch 8 / 0.02 s = 400 tokens/s over 4 chips
  r.bound = StepBound::hbm;
  search.ranked.push_back(r);
  search.screened = 1;
  const std::string text = plan_text({spec, search});
  EXPECT_TRUE(std::regex_search(text, std::regex("token latency +tokens/s +tokens/s/chip +params +kv cache +"
                                                 "memory/chip")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("20 ms +- +0.0% +20 ms +400 +100 +4 GiB +1 GiB +5 GiB +11 GiB "
                                                 "+hbm")))
      << text;
  const nlohmann::json j = plan_json({spec, search});
  EXPECT_EQ(j.at("mode"), "decode");
  EXPECT_DOUBLE_EQ(j.at("candidates")[0].at("token_latency_s").get<double>(), 0.02);
}

// A candidate with 4 pipeline stages (1F1B, 8 microbatches): book span 11 s with a bubble of 3 s (3/11), des span
// 12 s with 4 s (1/3).
PlanSearchResult pipelined_search() {
  PlanSearchResult search = sample_search();
  CandidateResult& first = search.ranked[0];
  PipelineFigures f;
  f.axes = {"X"};
  f.stages = 4;
  f.layers_per_stage = 2;
  f.microbatches = 8;
  f.schedule = PipelineSchedule::one_f_one_b;
  f.forward_s = {0.25, 0.25, 0.25, 0.25};
  f.backward_s = {0.75, 0.75, 0.75, 0.75};
  f.send_bytes = 1 << 20;
  f.span_s = 11;
  f.bubble_s = 3;
  f.bubble_fraction = 3.0 / 11.0;
  f.des_span_s = 12;
  f.des_bubble_s = 4;
  f.des_bubble_fraction = 1.0 / 3.0;
  f.stage_memory_bytes = {4 * kGiB, 3 * kGiB, 3 * kGiB, 2 * kGiB};
  first.pipeline = f;
  first.breakdown.bubble_s = 3;
  return search;
}

TEST(PlanReport, PipelineStagesScheduleAndBubbleBesideTheOtherFigures) {
  const ScenarioSpec spec = spec_for(WorkloadMode::train, std::nullopt);
  const PlanSearchResult search = pipelined_search();
  const nlohmann::json j = plan_json({spec, search});
  const auto& pipeline = j.at("candidates")[0].at("pipeline");
  EXPECT_EQ(pipeline.at("stages"), 4);
  EXPECT_EQ(pipeline.at("schedule"), "1f1b");
  EXPECT_EQ(pipeline.at("axes"), nlohmann::json::array({"X"}));
  EXPECT_DOUBLE_EQ(pipeline.at("bubble_fraction").at("book").get<double>(), 3.0 / 11.0);
  EXPECT_DOUBLE_EQ(pipeline.at("bubble_fraction").at("des").get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(pipeline.at("span_s").at("des").get<double>(), 12);
  EXPECT_EQ(pipeline.at("stage_memory_bytes")[0], 4 * kGiB);
  EXPECT_DOUBLE_EQ(j.at("candidates")[0].at("step_breakdown_s").at("bubble").get<double>(), 3);
  EXPECT_TRUE(j.at("candidates")[1].at("pipeline").is_null());
  // The text shows the des bubble of the simulated candidate, "-" for one without stages.
  const std::string text = plan_text({spec, search});
  EXPECT_TRUE(std::regex_search(text, std::regex("MFU +stages +schedule +bubble +tokens/s/chip"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("40.0% +4 +1f1b +33.3% +26214"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("30.0% +- +- +- +21845"))) << text;
  // The CSV's last three cells.
  std::ostringstream csv;
  write_plan_csv({spec, search}, csv);
  std::istringstream in(csv.str());
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_EQ(row.substr(row.rfind(",4,1f1b,")), ",4,1f1b,0.3333333333333333,0,0,0,,,,") << row;
  // The HTML breakdown stacks the bubble after the other parts: #1 compute, ICI and bubble, #2 compute and ICI.
  std::ostringstream html;
  write_plan_html({spec, search}, html);
  EXPECT_EQ(test::count_of(html.str(), "<rect class=\"part\""), 5u);
  EXPECT_NE(html.str().find("<title>bubble: 3 s</title>"), std::string::npos);
}

}  // namespace
}  // namespace podsim::report
