#include "models/model/workload.hpp"

#include <algorithm>
#include <cmath>

namespace podsim {

std::uint64_t Workload::tokens_per_step() const {
  switch (mode) {
    case WorkloadMode::train:
      return batch_tokens;
    case WorkloadMode::prefill:
      return static_cast<std::uint64_t>(batch) * static_cast<std::uint64_t>(context);
    case WorkloadMode::decode:
      return static_cast<std::uint64_t>(batch);
  }
  return 0;
}

std::uint64_t Workload::tokens_per_pass() const {
  if (mode != WorkloadMode::train) return tokens_per_step();
  return batch_tokens / static_cast<std::uint64_t>(std::max<std::int64_t>(1, microbatches));
}

TrainingSetup Workload::training_setup() const {
  TrainingSetup setup;
  setup.batch_tokens = mode == WorkloadMode::train ? tokens_per_pass() : 0;
  setup.param_dtype = param_dtype;
  setup.activation_dtype = activation_dtype;
  setup.master_weights = master_weights;
  setup.remat = remat;
  return setup;
}

std::optional<DType> quantized_matmul_dtype(Quantization quantization) {
  switch (quantization) {
    case Quantization::none:
      return std::nullopt;
    case Quantization::int8:
      return DType::int8;
    case Quantization::fp8:
      return DType::fp8_e4m3;
  }
  return std::nullopt;
}

namespace {

// ceil(x), forgiving the last bits of a product that should be a whole number (1.25 x 4096 is exact, 1.1 x 10 is not).
std::int64_t ceil_whole(double x) {
  const double nearest = std::round(x);
  if (std::abs(x - nearest) <= 1e-9 * std::max(1.0, std::abs(x))) return static_cast<std::int64_t>(nearest);
  return static_cast<std::int64_t>(std::ceil(x));
}

// floor(x), with the same forgiveness (MaxText's int() of a product that should be whole).
std::int64_t floor_whole(double x) {
  const double nearest = std::round(x);
  if (std::abs(x - nearest) <= 1e-9 * std::max(1.0, std::abs(x))) return static_cast<std::int64_t>(nearest);
  return static_cast<std::int64_t>(std::floor(x));
}

}  // namespace

std::int64_t expert_capacity(double capacity_factor, std::int64_t tokens, std::int64_t top_k, std::int64_t experts) {
  const double even = static_cast<double>(
      ceil_whole(static_cast<double>(tokens) * static_cast<double>(top_k) / static_cast<double>(experts)));
  return std::max<std::int64_t>(1, floor_whole(std::max(even * capacity_factor, capacity_factor)));
}

namespace {

// A routing group: one sequence of the pass (docs/overlap-pipeline-dcn.md, "Mixture of experts"); the whole pass when
// it holds less than one sequence or not a whole number of them.
std::int64_t group_tokens(const Workload& workload, std::int64_t tokens) {
  std::int64_t group = 1;
  if (workload.mode == WorkloadMode::train) group = workload.seq_len;
  if (workload.mode == WorkloadMode::prefill) group = workload.context;
  if (group < 1 || group > tokens || tokens % group != 0) return std::max<std::int64_t>(1, tokens);
  return group;
}

}  // namespace

ExpertLoad expert_load(const Workload& workload, std::int64_t tokens, std::int64_t top_k, std::int64_t experts,
                       std::int64_t expert_shards) {
  ExpertLoad load;
  const bool dense = workload.moe_dispatch == MoeDispatch::dense;
  load.group_tokens = group_tokens(workload, tokens);
  load.groups = std::max<std::int64_t>(1, tokens / load.group_tokens);
  if (dense) load.group_capacity = expert_capacity(workload.capacity_factor, load.group_tokens, top_k, experts);
  const auto& h = workload.expert_histogram;
  // Shares of the weights' sum; relative to the largest weight when the sum would pass the largest double.
  double top = 1, total = 0;
  for (const double weight : h)
    total += weight;
  if (!std::isfinite(total)) {
    top = *std::max_element(h.begin(), h.end());
    total = 0;
    for (const double weight : h)
      total += weight / top;
  }
  // Per group: every group routes the same shares (one histogram for the step).
  const double routed = static_cast<double>(load.group_tokens) * static_cast<double>(top_k);
  const auto groups = static_cast<double>(load.groups);
  const auto cap = static_cast<double>(load.group_capacity);
  double dropped = 0;
  for (std::int64_t e = 0; e < experts; ++e) {
    const double share = h.empty() ? 1.0 / static_cast<double>(experts) : h[static_cast<std::size_t>(e)] / top / total;
    const double demand = share * routed;
    const double kept = dense ? std::min(demand, cap) : demand;
    load.received.push_back(groups * kept);
    dropped += demand - kept;
  }
  load.dropped_fraction = routed > 0 ? dropped / routed : 0.0;
  const std::int64_t per_shard = experts / std::max<std::int64_t>(1, expert_shards);
  double busiest = 0;
  for (std::int64_t s = 0; s * per_shard < experts; ++s) {
    double sum = 0;
    for (std::int64_t e = s * per_shard; e < (s + 1) * per_shard; ++e)
      sum += load.received[static_cast<std::size_t>(e)];
    busiest = std::max(busiest, sum);
  }
  load.busiest_slots = std::max<std::int64_t>(1, ceil_whole(busiest / static_cast<double>(per_shard)));
  load.capacity = dense ? load.groups * load.group_capacity : load.busiest_slots;
  load.slots = load.capacity;
  return load;
}

}  // namespace podsim
