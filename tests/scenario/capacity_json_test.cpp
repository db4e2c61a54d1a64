// Model-level scenarios (docs/scenario-format.md, "Model-level scenarios"): the good files load into the values
// they spell, defaults fill what they leave out, a spec built in code meets the same rules, and the model metrics
// of `expect` come out as the closed forms worked by hand. Each rule's exact error is pinned by a bad/<case>/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/common/error.hpp"
#include "sim/capacity/candidate_checks.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/scenario/scenario_verify.hpp"
#include "tests/cli/cli_run.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

const fs::path kCapacityData = PODSIM_TEST_DATA_DIR;

std::string capacity_load_error(const std::string& text) {
  try {
    load_scenario_text(text, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string verify_error(const ScenarioSpec& spec) {
  try {
    verify(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A small model whose figures are worked by hand below: L 2, D 64, F 256, N 4, K 2, H 16, V 1000, gated, untied.
const std::string kTinyModel =
    R"("model": {"layers": 2, "d_model": 64, "d_ff": 256, "heads": 4, "kv_heads": 2, "head_dim": 16, "vocab": 1000})";

std::string tiny(const std::string& workload, const std::string& expect) {
  return R"({"name": "t", "hardware": "tpu-v5e", "slice": {"shape": [2, 2]}, )" + kTinyModel + R"(, "workload": )" +
         workload + R"(, "expect": )" + expect + "}";
}

// ---- the good files ----

TEST(ModelScenarioGood, PresetTrainingWithEveryKeyOfTheSearch) {
  const auto spec = load_scenario((kCapacityData / "good/model_llama3_70b_train_search.json").string());
  ASSERT_TRUE(spec.model.has_value());
  EXPECT_EQ(spec.model->name, "llama3-70b");
  EXPECT_EQ(spec.model->dims.layers, 80);
  ASSERT_TRUE(spec.workload.has_value());
  const Workload& w = *spec.workload;
  EXPECT_EQ(w.mode, WorkloadMode::train);
  EXPECT_EQ(w.batch_tokens, 4194304u);
  EXPECT_EQ(w.seq_len, 4096);
  EXPECT_EQ(w.microbatches, 4);
  EXPECT_EQ(w.remat.checkpoints_per_layer, 2);
  EXPECT_TRUE(w.master_weights);
  // Defaults: bf16 parameters and activations, Adam.
  EXPECT_EQ(w.param_dtype, DType::bf16);
  EXPECT_EQ(w.activation_dtype, DType::bf16);
  EXPECT_EQ(w.optimizer, Optimizer::adam);
  ASSERT_TRUE(spec.search.has_value());
  const SearchSpec& s = *spec.search;
  EXPECT_EQ(s.slices, (std::vector<Shape>{{4, 4, 4}, {4, 4, 8}}));
  EXPECT_EQ(s.kinds, (std::vector<ParallelKind>{ParallelKind::data, ParallelKind::fsdp, ParallelKind::tensor}));
  ASSERT_EQ(s.hardware.size(), 2u);
  EXPECT_EQ(s.hardware[0].spec.name, "tpu-v5p");
  EXPECT_EQ(s.hardware[1].spec.name, "tpu-v4");
  EXPECT_EQ(s.microbatches, (std::vector<std::int64_t>{1, 2}));
  ASSERT_EQ(s.remat.size(), 2u);
  EXPECT_EQ(s.remat[0].checkpoints_per_layer, 0);  // "none"
  EXPECT_EQ(s.remat[1].checkpoints_per_layer, 1);
  ASSERT_TRUE(spec.price_per_chip_hour.has_value());
  EXPECT_DOUBLE_EQ(*spec.price_per_chip_hour, 4.2);
  ASSERT_EQ(spec.expect.size(), 1u);
  EXPECT_EQ(spec.expect[0].scope, ExpectScope::model);
  EXPECT_EQ(spec.expect[0].model, EvalModel::book);  // a model metric's model defaults to book
  EXPECT_TRUE(spec.tensors.empty());
  EXPECT_TRUE(spec.program.empty());
}

TEST(ModelScenarioGood, DimsKeysDecodeAndParallelismPlans) {
  const auto spec = load_scenario((kCapacityData / "good/model_dims_decode_plans.json").string());
  ASSERT_TRUE(spec.model.has_value());
  EXPECT_EQ(spec.model->name, "tiny-decode");  // a dims model takes the scenario's name
  EXPECT_EQ(spec.model->dims.d_ff, 256);
  EXPECT_EQ(spec.model->dims.kv_heads, 2);
  EXPECT_EQ(spec.model->dims.mlp, MlpKind::gated);  // the default
  const Workload& w = *spec.workload;
  EXPECT_EQ(w.mode, WorkloadMode::decode);
  EXPECT_EQ(w.batch, 8);
  EXPECT_EQ(w.context, 128);
  EXPECT_EQ(w.kv_dtype, DType::int8);
  EXPECT_EQ(w.weight_dtype, DType::bf16);  // the default
  ASSERT_EQ(spec.plans.size(), 2u);
  ASSERT_TRUE(spec.plans[0].parallelism.has_value());
  EXPECT_EQ(spec.plans[0].parallelism->of(ParallelKind::tensor), (std::vector<std::string>{"X", "Y"}));
  EXPECT_TRUE(spec.plans[0].parallelism->of(ParallelKind::data).empty());
  EXPECT_EQ(spec.plans[1].parallelism->to_string(), "data=X tensor=Y");
  EXPECT_EQ(spec.plans[1].description, "data over X, tensor over Y");
  EXPECT_FALSE(spec.search.has_value());
  // Candidate metrics: of the plan they name; the memory and fits_hbm (a plan metric elsewhere) by the book only,
  // the step time by the des unless told.
  ASSERT_EQ(spec.expect.size(), 5u);
  EXPECT_EQ(spec.expect[1].scope, ExpectScope::candidate);
  EXPECT_EQ(spec.expect[1].plan, "tp");
  EXPECT_EQ(spec.expect[1].model, EvalModel::book);
  EXPECT_EQ(spec.expect[3].scope, ExpectScope::candidate);
  EXPECT_EQ(spec.expect[3].model, EvalModel::des);  // as total_time_s: the simulation unless told
  EXPECT_EQ(spec.expect[4].scope, ExpectScope::candidate);
  EXPECT_EQ(spec.expect[4].model, EvalModel::book);
}

TEST(ModelScenarioGood, HuggingFaceConfigBesideTheScenarioAndSlicesOnlyInTheSearch) {
  const auto spec = load_scenario((kCapacityData / "good/model_hf_config_prefill.json").string());
  ASSERT_TRUE(spec.model.has_value());
  // The numbers of tests/scenario/data/hf_tiny_llama_config.json; head_dim defaults to 256 / 8.
  EXPECT_EQ(spec.model->dims.d_model, 256);
  EXPECT_EQ(spec.model->dims.d_ff, 688);
  EXPECT_EQ(spec.model->dims.layers, 4);
  EXPECT_EQ(spec.model->dims.kv_heads, 2);
  EXPECT_EQ(spec.model->dims.head_dim, 32);
  EXPECT_EQ(spec.workload->mode, WorkloadMode::prefill);
  EXPECT_EQ(spec.workload->weight_dtype, DType::int8);
  EXPECT_TRUE(spec.slice_shape.empty());  // no slice of its own: the search lists them
  EXPECT_EQ(spec.search->slices, (std::vector<Shape>{{2, 2}, {2, 4}}));
}

TEST(ModelScenarioGood, TrainingDefaults) {
  const auto spec =
      load_scenario_text(tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128})", "[]"), "d.json");
  const Workload& w = *spec.workload;
  EXPECT_EQ(w.microbatches, 1);
  EXPECT_EQ(w.remat.checkpoints_per_layer, 0);  // no rematerialisation
  EXPECT_FALSE(w.master_weights);
  EXPECT_EQ(w.param_dtype, DType::bf16);
  const auto none = load_scenario_text(
      tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128, "remat": "none"})", "[]"), "d.json");
  EXPECT_EQ(none.workload->remat.checkpoints_per_layer, 0);
}

TEST(ModelScenarioDocs, TheExampleOfTheFormatPageLoads) {
  std::ifstream in(kCapacityData.parent_path().parent_path() / "docs/scenario-format.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto section = doc.find("## Model-level scenarios");
  ASSERT_NE(section, std::string::npos);
  const auto begin = doc.find("```json\n", section);
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("```", begin + 8);
  const auto spec = load_scenario_text(doc.substr(begin + 8, end - begin - 8), "docs/scenario-format.md");
  EXPECT_EQ(spec.model->name, "llama3-70b");
  EXPECT_EQ(spec.workload->remat.checkpoints_per_layer, 2);
  EXPECT_EQ(spec.search->slices.size(), 2u);
  EXPECT_EQ(spec.plans[0].parallelism->to_string(), "fsdp=X,Y tensor=Z");
  const auto checks = evaluate_model_checks(spec);
  ASSERT_EQ(checks.size(), 4u);
  for (const auto& check : checks)
    EXPECT_TRUE(check.passed) << check.description;
}

// ---- rules on specs built in code: the verifier holds them, not the JSON reader ----

ScenarioSpec tiny_spec() {
  return load_scenario_text(tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128})", "[]"), "");
}

TEST(ModelScenarioVerify, WorkloadRulesOnASpecBuiltInCode) {
  auto spec = tiny_spec();
  spec.workload->microbatches = 3;
  EXPECT_EQ(verify_error(spec), "/workload/microbatches: must divide batch_tokens (1024), got: 3");
  spec.workload->microbatches = 1;
  spec.workload->seq_len = 0;
  EXPECT_EQ(verify_error(spec), "/workload/seq_len: must be at least 1, got: 0");
  spec.workload->seq_len = 128;
  spec.workload->remat.checkpoints_per_layer = 1025;
  EXPECT_EQ(verify_error(spec), "/workload/checkpoints_per_layer: must be at most 1024, got: 1025");
}

TEST(ModelScenarioVerify, SearchAndPlanRulesOnASpecBuiltInCode) {
  auto spec = tiny_spec();
  spec.search = SearchSpec{};
  EXPECT_EQ(verify_error(spec), "/search/parallelism: an empty search: list at least one parallelism kind, got: []");
  spec.search->kinds = {ParallelKind::tensor};
  EXPECT_EQ(verify_error(spec), "(no error)");
  ScenarioPlan plan;
  plan.name = "p";
  plan.parallelism = Parallelism{};
  plan.parallelism->of(ParallelKind::fsdp) = {"Y", "Y"};
  spec.plans.push_back(plan);
  EXPECT_EQ(verify_error(spec), "/plans/0/parallelism/fsdp/1: mesh axis \"Y\" is assigned twice: to fsdp and to fsdp");
}

TEST(ModelScenarioVerify, ATensorBesideAModelOnASpecBuiltInCode) {
  auto spec = tiny_spec();
  spec.tensors.push_back(ScenarioTensor{"x", {8, 8}, DType::bf16, {}, {}});
  EXPECT_EQ(verify_error(spec),
            "/tensors: a scenario has either a model or a program (tensors and ops), not both, got: \"tensors\" "
            "beside \"model\"");
}

TEST(ModelScenarioErrors, ServingCountsAndKeysOfTheOtherMode) {
  EXPECT_EQ(capacity_load_error(tiny(R"({"mode": "decode", "batch": 0, "context": 8})", "[]")),
            "s.json: /workload/batch: must be at least 1, got: 0");
  EXPECT_EQ(capacity_load_error(tiny(R"({"mode": "prefill", "batch": 4, "context": 8, "seq_len": 8})", "[]")),
            "s.json: /workload/seq_len: a training key does not apply to mode \"prefill\", got: \"seq_len\" (mode "
            "\"prefill\" takes \"mode\", \"batch\", \"context\", \"weight_dtype\", \"kv_dtype\")");
  EXPECT_EQ(
      capacity_load_error(tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128, "kv_dtype": "int8"})", "[]")),
      "s.json: /workload/kv_dtype: a serving key (modes \"decode\", \"prefill\") does not apply to mode "
      "\"train\", got: \"kv_dtype\" (mode \"train\" takes \"mode\", \"batch_tokens\", \"seq_len\", "
      "\"microbatches\", \"checkpoints_per_layer\", \"remat\", \"remat_tensors\", \"param_dtype\", "
      "\"activation_dtype\", "
      "\"master_weights\", \"optimizer\", \"pipeline_schedule\")");
  // The pipeline schedule is a training key too.
  EXPECT_EQ(
      capacity_load_error(tiny(R"({"mode": "decode", "batch": 4, "context": 8, "pipeline_schedule": "gpipe"})", "[]")),
      "s.json: /workload/pipeline_schedule: a training key does not apply to mode \"decode\", got: "
      "\"pipeline_schedule\" (mode \"decode\" takes \"mode\", \"batch\", \"context\", \"weight_dtype\", "
      "\"kv_dtype\")");
}

// ---- model metrics, by hand ----

// The tiny model: attention L (2 D N H + 2 D K H) = 2 (2*64*4*16 + 2*64*2*16) = 2 (8192 + 4096) = 24576;
// MLP L 3 D F = 2*3*64*256 = 98304; embedding 2 V D = 2*1000*64 = 128000; norms (2L + 1) D = 5*64 = 320;
// total 24576 + 98304 + 128000 + 320 = 251200.
TEST(ModelMetrics, ParamsFlopsAndKvCacheWorkedByHand) {
  const std::string expect = R"([
    {"metric": "params_total", "value": 251200},
    {"metric": "params_attention", "value": 24576},
    {"metric": "params_mlp", "value": 98304},
    {"metric": "params_embedding", "value": 128000},
    {"metric": "flops_per_token_forward", "value": 502400},
    {"metric": "flops_per_token_train", "value": 1507200},
    {"metric": "flops_per_token_train_with_attention", "value": 1703808},
    {"metric": "kv_cache_bytes_per_token", "value": 256}])";
  // forward 2 x 251200; train 6 x 251200; with attention + 12 T N H L = 12*128*4*16*2 = 196608 at T = 128;
  // KV cache 2 L K H x 2 bytes (bf16 in training) = 2*2*2*16*2.
  const auto spec = load_scenario_text(tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128})", expect), "");
  const auto checks = evaluate_model_checks(spec);
  ASSERT_EQ(checks.size(), 8u);
  for (const auto& check : checks)
    EXPECT_TRUE(check.passed) << check.description << " = " << std::get<double>(check.value);
  EXPECT_EQ(checks[0].description, "params_total (book)");
}

TEST(ModelMetrics, TrainingStateOfTheTokensInFlight) {
  // 1024 tokens in 2 microbatches: 512 in flight. params and grads 2 bytes x 251200 = 502400 each; Adam 8 x 251200
  // = 2009600; activations 1 checkpoint x 512 tokens x 64 x 2 bytes x 2 layers = 131072; total 3145472.
  const std::string expect = R"([
    {"metric": "training_state_bytes_params", "value": 502400},
    {"metric": "training_state_bytes_grads", "value": 502400},
    {"metric": "training_state_bytes_optimizer", "value": 2009600},
    {"metric": "training_state_bytes_activations", "value": 131072},
    {"metric": "training_state_bytes_total", "value": 3145472}])";
  const auto spec = load_scenario_text(
      tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128, "microbatches": 2, "checkpoints_per_layer": 1})",
           expect),
      "");
  for (const auto& check : evaluate_model_checks(spec))
    EXPECT_TRUE(check.passed) << check.description << " = " << std::get<double>(check.value);
}

TEST(ModelMetrics, ServingUsesTheContextAndTheKvDtype) {
  // decode at context 128 with int8 KV: 2 L K H x 1 byte = 128; train_with_attention at T = 128 as above.
  const std::string expect = R"([
    {"metric": "kv_cache_bytes_per_token", "value": 128},
    {"metric": "flops_per_token_train_with_attention", "value": 1703808},
    {"metric": "params_total", "value": 251201}])";
  const auto spec =
      load_scenario_text(tiny(R"({"mode": "decode", "batch": 4, "context": 128, "kv_dtype": "int8"})", expect), "");
  const auto checks = evaluate_model_checks(spec);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_TRUE(checks[0].passed);
  EXPECT_TRUE(checks[1].passed);
  EXPECT_FALSE(checks[2].passed);  // one parameter off, outside the default tolerance
}

// ---- podsim check and podsim run on model-level scenarios ----

TEST(ModelScenarioCli, CheckEvaluatesTheModelMetricsAndExitsOneOnAMiss) {
  const fs::path path = fs::temp_directory_path() / ("podsim_model_check_" + std::to_string(getpid()) + ".json");
  // params_total is 251200 (worked above); 251201 misses.
  std::ofstream(path) << tiny(R"({"mode": "train", "batch_tokens": 1024, "seq_len": 128})",
                              R"([{"metric": "params_total", "value": 251200},
                                  {"metric": "params_total", "value": 251201}])");
  const auto run = test::run_podsim("check " + path.string());
  fs::remove(path);
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_NE(run.out.find("PASS  " + path.string() + ": params_total (book) = 251200"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("FAIL  " + path.string() + ": params_total (book) = 251200, expected 251201"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("1 passed, 1 failed"), std::string::npos) << run.out;
}

TEST(ModelScenarioCli, RunRefusesASearchAndPointsToPlan) {
  const std::string file = (kCapacityData / "good/model_llama3_70b_train_search.json").string();
  const auto run = test::run_podsim("run " + file);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: " + file +
                         ": /search: a search has several candidates, `podsim run` runs a model-level scenario's fixed "
                         "plans, got: a search section (rank its candidates with `podsim plan " +
                         file + "`, or write the chosen one as a plan with a parallelism)\n");
}

TEST(ModelScenarioCli, RunRunsEveryPlanOfAModelLevelScenario) {
  const std::string file = (kCapacityData / "good/model_dims_decode_plans.json").string();
  const auto run = test::run_podsim("run " + file + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  ASSERT_EQ(json["plans"].size(), 2u);
  EXPECT_EQ(json["plans"][0]["name"], "tp");
  EXPECT_EQ(json["plans"][1]["name"], "dp-tp");
}

}  // namespace
}  // namespace podsim
