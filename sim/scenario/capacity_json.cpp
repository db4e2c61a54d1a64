// Scenario loader, capacity planning (docs/scenario-format.md, "Model-level scenarios"): the model (a preset, a
// Hugging Face config.json or dims keys), its workload (a training or a serving step), the search section and a
// plan's parallelism assignment, read into the spec. The rules between the values are the verifier's
// (scenario_verify_capacity.cpp), so a spec written in code is held to them too.
#include <algorithm>
#include <filesystem>

#include "sim/scenario/hardware_json.hpp"
#include "sim/scenario/model_json.hpp"
#include "sim/scenario/scenario_json_detail.hpp"

namespace podsim::scenario_detail {
namespace {

const std::vector<std::string> kTrainKeys = {
    "batch_tokens",   "seq_len",       "microbatches",     "checkpoints_per_layer",
    "remat",          "remat_tensors", "param_dtype",      "activation_dtype",
    "master_weights", "optimizer",     "pipeline_schedule"};
const std::vector<std::string> kServeKeys = {"batch", "context", "weight_dtype", "kv_dtype"};
// Keys of every mode: a mixture of experts' routing.
const std::vector<std::string> kMoeKeys = {"moe_dispatch", "capacity_factor", "expert_histogram"};
// Keys of every mode: the matmuls' quantization.
const std::vector<std::string> kQuantizationKeys = {"quantization"};

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

DType read_dtype(const Ctx& ctx, const Json& j, const std::string& pointer) {
  const auto text = get_string(ctx, j, pointer);
  return located(ctx.at(pointer), [&] { return parse_dtype(text); });
}

// A non-empty array (an empty list in the search section would search nothing).
void require_list(const Ctx& ctx, const Json& j, const std::string& pointer, const std::string& what) {
  require_array(ctx, j, pointer);
  if (j.empty()) ctx.fail(pointer, "must list at least one " + what + ", got: []");
}

// A remat policy's name (docs/capacity.md, "Rematerialisation").
RematPolicy read_remat_policy(const Ctx& ctx, const Json& j, const std::string& pointer) {
  const auto text = get_string(ctx, j, pointer);
  if (const auto policy = kRematPolicyNames.find(text)) return *policy;
  ctx.fail(pointer, "unknown remat policy, got: " + quote(text) + " (expected one of " +
                        kRematPolicyNames.choices("\"") + ", or {\"checkpoints_per_layer\": K})");
}

// A custom policy's placements: each named tensor -> "remat", "device" or "offload"; a tensor left out keeps
// MaxText's default (the layer input "device", the others "remat").
TensorPlacements read_remat_tensors(const Ctx& ctx, const Json& j, const std::string& pointer) {
  require_object(ctx, j, pointer);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kLayerTensorCount; ++i)
    names.emplace_back(kLayerTensorNames.name(static_cast<LayerTensor>(i)));
  require_known_keys_near(ctx, j, pointer, names);
  TensorPlacements placements = default_custom_placements();
  for (std::size_t i = 0; i < kLayerTensorCount; ++i)
    if (j.contains(names[i]))
      placements[i] = get_enum(ctx, j.at(names[i]), child(pointer, names[i]), kTensorPlacementNames);
  return placements;
}

// A search's remat choice: a policy's name, {"checkpoints_per_layer": K}, or {"remat_tensors": {...}} (custom).
Remat read_remat_choice(const Ctx& ctx, const Json& j, const std::string& pointer) {
  Remat remat;
  if (j.is_string()) {
    remat.policy = read_remat_policy(ctx, j, pointer);
    if (remat.policy == RematPolicy::custom)
      ctx.fail(pointer, "a custom policy in a search is {\"remat_tensors\": {...}}, got: \"custom\"");
    return remat;
  }
  if (!j.is_object())
    ctx.fail(pointer,
             "must be a remat policy's name, {\"checkpoints_per_layer\": K} or {\"remat_tensors\": {...}}, got: " +
                 shown(j));
  require_known_keys_near(ctx, j, pointer, {"checkpoints_per_layer", "remat_tensors"});
  if (j.contains("remat_tensors")) {
    if (j.contains("checkpoints_per_layer"))
      ctx.fail(pointer, "give one of \"checkpoints_per_layer\" and \"remat_tensors\", got: both");
    remat.policy = RematPolicy::custom;
    remat.custom = read_remat_tensors(ctx, j.at("remat_tensors"), pointer + "/remat_tensors");
    return remat;
  }
  require_key(ctx, j, pointer, "checkpoints_per_layer");
  remat.checkpoints_per_layer = get_int(ctx, j.at("checkpoints_per_layer"), pointer + "/checkpoints_per_layer", 1);
  return remat;
}

void read_train_key(const Ctx& ctx, const std::string& key, const Json& value, const std::string& p,
                    Workload& workload) {
  if (key == "batch_tokens") workload.batch_tokens = static_cast<std::uint64_t>(get_int(ctx, value, p, 1));
  if (key == "seq_len") workload.seq_len = get_int(ctx, value, p);
  if (key == "microbatches") workload.microbatches = get_int(ctx, value, p);
  if (key == "checkpoints_per_layer") workload.remat.checkpoints_per_layer = get_int(ctx, value, p, 1);
  if (key == "remat") workload.remat.policy = read_remat_policy(ctx, value, p);
  if (key == "remat_tensors") workload.remat.custom = read_remat_tensors(ctx, value, p);
  if (key == "param_dtype") workload.param_dtype = read_dtype(ctx, value, p);
  if (key == "activation_dtype") workload.activation_dtype = read_dtype(ctx, value, p);
  if (key == "master_weights") workload.master_weights = get_bool(ctx, value, p);
  if (key == "optimizer") workload.optimizer = get_enum(ctx, value, p, kOptimizerNames);
  if (key == "pipeline_schedule") workload.pipeline_schedule = get_enum(ctx, value, p, kPipelineScheduleNames);
}

void read_serve_key(const Ctx& ctx, const std::string& key, const Json& value, const std::string& p,
                    Workload& workload) {
  if (key == "batch") workload.batch = get_int(ctx, value, p);
  if (key == "context") workload.context = get_int(ctx, value, p);
  if (key == "weight_dtype") workload.weight_dtype = read_dtype(ctx, value, p);
  if (key == "kv_dtype") workload.kv_dtype = read_dtype(ctx, value, p);
}

// A non-empty list of slice shapes, each an array of chip counts.
std::vector<Shape> read_slice_shapes(const Ctx& ctx, const Json& j, const std::string& pointer) {
  require_list(ctx, j, pointer, "slice shape");
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Json& shape = j[i];
    require_array(ctx, shape, child(pointer, i));
    Shape dims;
    for (std::size_t d = 0; d < shape.size(); ++d)
      dims.push_back(get_int(ctx, shape[d], child(child(pointer, i), d)));
    shapes.push_back(std::move(dims));
  }
  return shapes;
}

}  // namespace

void read_price(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/price_per_chip_hour";
  if (!j.is_object()) {
    if (!j.is_number())
      ctx.fail(p,
               "must be a number (USD per chip-hour) or an object of numbers keyed by preset "
               "({\"tpu-v5p\": 4.2}), got: " +
                   shown(j));
    spec.price_per_chip_hour = get_number(ctx, j, p);
    return;
  }
  if (j.empty()) ctx.fail(p, "must give at least one preset's price ({\"tpu-v5p\": 4.2}), got: {}");
  for (const auto& [preset, price] : j.items())
    spec.price_per_preset.emplace_back(preset, get_number(ctx, price, child(p, preset)));
}

void read_model(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/model";
  require_object(ctx, j, p);
  std::vector<std::string> known = {"preset", "config"};
  const auto& dims_keys = model_dims_keys();
  known.insert(known.end(), dims_keys.begin(), dims_keys.end());
  require_known_keys_near(ctx, j, p, known);
  // Exactly one form: {"preset"}, {"config"}, or the dims keys.
  for (const char* form : {"preset", "config"}) {
    if (!j.contains(form)) continue;
    for (const auto& [key, value] : j.items())
      if (key != form)
        ctx.fail(child(p, key), "a model is a \"preset\", a \"config\" or dims keys, one of the three, got: " +
                                    quote(form) + " and " + quote(key));
  }
  if (j.contains("preset")) {
    std::string preset = get_string(ctx, j.at("preset"), p + "/preset");
    if (is_preset_path(preset)) preset = ctx.beside(preset);
    try {
      spec.model = load_model_preset(preset);
    } catch (const PresetNotFoundError& e) {
      if (e.is_name()) ctx.fail(p + "/preset", e.message());
      ctx.fail(p + "/preset", "cannot open the preset file, got: " + quote(preset));
    }
    return;
  }
  if (j.contains("config")) {
    const std::string path = ctx.beside(get_string(ctx, j.at("config"), p + "/config"));
    try {
      spec.model = load_hf_config(path);
    } catch (const PresetNotFoundError&) {
      ctx.fail(p + "/config", "cannot open the config file, got: " + quote(path));
    }
    return;
  }
  ModelPreset model;
  model.name = spec.name;
  model.description = "dims of the scenario";
  model.origin = ctx.file;
  model.dims = model_dims_from_json(nlohmann::json::parse(j.dump()), ctx.at(p));
  spec.model = std::move(model);
}

void read_moe_key(const Ctx& ctx, const std::string& key, const Json& value, const std::string& p, Workload& workload) {
  if (key == "moe_dispatch") workload.moe_dispatch = get_enum(ctx, value, p, kMoeDispatchNames);
  if (key == "capacity_factor") workload.capacity_factor = get_number(ctx, value, p);
  if (key == "expert_histogram") {
    require_list(ctx, value, p, "expert weight");
    for (std::size_t i = 0; i < value.size(); ++i)
      workload.expert_histogram.push_back(get_number(ctx, value[i], child(p, i)));
  }
}

void read_workload(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/workload";
  require_object(ctx, j, p);
  require_key(ctx, j, p, "mode");
  const Json& mode_value = j.at("mode");
  if (mode_value.is_string() && mode_value.get<std::string>() == "serve") {
    read_serve_workload(ctx, j, spec);
    return;
  }
  if (mode_value.is_string() && !kWorkloadModeNames.find(mode_value.get<std::string>()))
    ctx.fail(p + "/mode", "unknown workload mode, got: " + shown(mode_value) + " (expected one of " +
                              kWorkloadModeNames.choices("\"") + ", \"serve\")");
  if (j.contains("traffic"))
    ctx.fail(p + "/traffic",
             "applies to mode \"serve\" (requests arriving at a server), got: mode " + shown(mode_value));
  Workload workload;
  workload.mode = get_enum(ctx, mode_value, p + "/mode", kWorkloadModeNames);
  const bool train = workload.mode == WorkloadMode::train;
  std::vector<std::string> own = {"mode"};
  own.insert(own.end(), (train ? kTrainKeys : kServeKeys).begin(), (train ? kTrainKeys : kServeKeys).end());
  const std::string mode = quote(kWorkloadModeNames.name(workload.mode));
  const auto& other = train ? kServeKeys : kTrainKeys;
  for (const auto& [key, value] : j.items())
    if (contains(other, key))
      ctx.fail(child(p, key), std::string(train ? "a serving key (modes \"decode\", \"prefill\")" : "a training key") +
                                  " does not apply to mode " + mode + ", got: " + quote(key) + " (mode " + mode +
                                  " takes " + quote_list(own) + ")");
  // The routing keys are known in both modes (not listed in the message above: they belong to no mode).
  std::vector<std::string> known = own;
  known.insert(known.end(), kMoeKeys.begin(), kMoeKeys.end());
  known.insert(known.end(), kQuantizationKeys.begin(), kQuantizationKeys.end());
  require_known_keys_near(ctx, j, p, known);
  for (const auto& [key, value] : j.items()) {
    read_moe_key(ctx, key, value, child(p, key), workload);
    if (key == "quantization") workload.quantization = get_enum(ctx, value, child(p, key), kQuantizationNames);
    if (train)
      read_train_key(ctx, key, value, child(p, key), workload);
    else
      read_serve_key(ctx, key, value, child(p, key), workload);
  }
  if (train) {
    require_key(ctx, j, p, "batch_tokens");
    require_key(ctx, j, p, "seq_len");
    if (j.contains("checkpoints_per_layer") && j.contains("remat"))
      ctx.fail(p, "give one of \"checkpoints_per_layer\" and \"remat\", got: both");
    if (j.contains("remat_tensors") && workload.remat.policy != RematPolicy::custom)
      ctx.fail(p + "/remat_tensors",
               "places the tensors of the \"custom\" remat policy: give \"remat\": \"custom\", got: " +
                   (j.contains("remat") ? "remat " + quote(kRematPolicyNames.name(workload.remat.policy))
                                        : std::string("no \"remat\"")));
  } else {
    require_key(ctx, j, p, "batch");
    require_key(ctx, j, p, "context");
  }
  spec.workload = workload;
}

void read_search(const Ctx& ctx, const Json& j, ScenarioSpec& spec) {
  const std::string p = "/search";
  require_object(ctx, j, p);
  require_known_keys_near(ctx, j, p,
                          {"slices", "slice_counts", "twist", "parallelism", "hardware", "microbatches", "remat",
                           "replicas", "max_num_seqs"});
  require_key(ctx, j, p, "parallelism");
  SearchSpec search;
  if (j.contains("slices")) {
    const std::string sp = p + "/slices";
    const Json& slices = j.at("slices");
    if (slices.is_object()) {
      if (slices.empty())
        ctx.fail(sp, "must give at least one preset's slice shapes ({\"tpu-v5p\": [[4, 4, 4]]}), got: {}");
      for (const auto& [preset, shapes] : slices.items())
        search.slices_by_preset.emplace_back(preset, read_slice_shapes(ctx, shapes, child(sp, preset)));
    } else {
      if (!slices.is_array())
        ctx.fail(sp,
                 "must be a list of slice shapes, or an object of such lists keyed by preset, got: " + shown(slices));
      search.slices = read_slice_shapes(ctx, slices, sp);
    }
  }
  if (j.contains("slice_counts")) {
    const std::string cp = p + "/slice_counts";
    require_list(ctx, j.at("slice_counts"), cp, "slice count");
    for (std::size_t i = 0; i < j.at("slice_counts").size(); ++i)
      search.slice_counts.push_back(
          static_cast<std::int32_t>(get_int(ctx, j.at("slice_counts")[i], child(cp, i), 1, 65536)));
  }
  if (j.contains("twist")) {
    const std::string tp = p + "/twist";
    require_list(ctx, j.at("twist"), tp, "twist choice");
    for (std::size_t i = 0; i < j.at("twist").size(); ++i)
      search.twist.push_back(get_bool(ctx, j.at("twist")[i], child(tp, i)));
  }
  const Json& kinds = j.at("parallelism");
  require_array(ctx, kinds, p + "/parallelism");
  for (std::size_t i = 0; i < kinds.size(); ++i)
    search.kinds.push_back(get_enum(ctx, kinds[i], child(p + "/parallelism", i), kParallelKindNames));
  if (j.contains("hardware")) {
    const std::string hp = p + "/hardware";
    require_list(ctx, j.at("hardware"), hp, "hardware preset");
    for (std::size_t i = 0; i < j.at("hardware").size(); ++i)
      search.hardware.push_back(
          read_hardware_preset(ctx, get_string(ctx, j.at("hardware")[i], child(hp, i)), child(hp, i)));
  }
  if (j.contains("microbatches")) {
    const std::string mp = p + "/microbatches";
    require_list(ctx, j.at("microbatches"), mp, "microbatch count");
    for (std::size_t i = 0; i < j.at("microbatches").size(); ++i)
      search.microbatches.push_back(get_int(ctx, j.at("microbatches")[i], child(mp, i)));
  }
  if (j.contains("remat")) {
    const std::string rp = p + "/remat";
    require_list(ctx, j.at("remat"), rp, "remat policy");
    for (std::size_t i = 0; i < j.at("remat").size(); ++i)
      search.remat.push_back(read_remat_choice(ctx, j.at("remat")[i], child(rp, i)));
  }
  const std::pair<const char*, std::vector<std::int64_t>*> serving_lists[] = {{"replicas", &search.replicas},
                                                                              {"max_num_seqs", &search.max_num_seqs}};
  for (const auto& list : serving_lists) {
    if (!j.contains(list.first)) continue;
    const std::string lp = p + "/" + list.first;
    require_list(ctx, j.at(list.first), lp, list.second == &search.replicas ? "replica count" : "max_num_seqs");
    for (std::size_t i = 0; i < j.at(list.first).size(); ++i)
      list.second->push_back(get_int(ctx, j.at(list.first)[i], child(lp, i)));
  }
  spec.search = std::move(search);
}

Parallelism read_parallelism(const Ctx& ctx, const Json& j, const std::string& pointer) {
  require_object(ctx, j, pointer);
  std::vector<std::string> kinds;
  for (std::size_t k = 0; k < kParallelKinds; ++k)
    kinds.emplace_back(kParallelKindNames.name(static_cast<ParallelKind>(k)));
  require_known_keys_near(ctx, j, pointer, kinds);
  Parallelism parallelism;
  for (std::size_t k = 0; k < kParallelKinds; ++k)
    if (j.contains(kinds[k])) parallelism.axes[k] = get_string_array(ctx, j.at(kinds[k]), child(pointer, kinds[k]));
  return parallelism;
}

}  // namespace podsim::scenario_detail
