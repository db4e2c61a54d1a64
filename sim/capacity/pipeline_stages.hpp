// The work of each pipeline stage of a model's training step (docs/overlap-pipeline-dcn.md, "Pipeline parallelism"):
// from one run of the layer program's ops (each op's time by part, from the closed form or the simulation), a
// stage's forward and backward of one microbatch (its L / p layers, plus the embedding on the first stage and the
// unembedding and loss on the last) and its work after the last backward (gradient all-reduces over the data axes,
// the optimizer update of its weights).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/capacity/model_program.hpp"
#include "sim/run/candidate_result.hpp"

namespace podsim {

struct StageWork {
  std::vector<StepBreakdown> forward;   // per stage: one microbatch's forward
  std::vector<StepBreakdown> backward;  // per stage: one microbatch's backward (with what remat recomputes)
  std::vector<StepBreakdown> tail;      // per stage: once per step, after the last backward

  std::vector<double> forward_s() const;
  std::vector<double> backward_s() const;
};

// `op_time[i]` is one run of op i of `model` (its role tells where and when it runs; recomputed ops are in the
// backward); `stages` divides `layers`. Throws VerifyError when op_time and the program disagree in length or stages
// does not divide layers.
StageWork stage_work(const ModelProgram& model, const std::vector<StepBreakdown>& op_time, std::int64_t layers,
                     std::int64_t stages);

}  // namespace podsim
