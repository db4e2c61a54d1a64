// A model step's layers in sequence (docs/capacity.md, "Overlap in the step"): the model program (model_program.hpp)
// with its layer written out `copies` times, each copy with its own weights and activations, in the order a step
// runs them (the forwards first to last, the backwards last to first), so that under the dataflow policies one
// layer's collectives overlap its neighbours' compute as XLA's scheduler overlaps them. The simulated stretch gives
// the step: its first layers as they run, the rest as the steady state one more layer adds (candidate_evaluation.cpp).
//
// The order the stretch adds to the program's own data dependencies, as a scan over layers runs. Blocks are a layer's
// forward, its backward, the embedding, the unembedding and loss, the embedding's backward, in the order they run:
// - an op starts after the block two before its own ends, so a layer's weight gathers (inside its products, or the
//   backward's own gathers) start when the layer before it starts, as XLA's scheduler issues the next iteration's
//   gathers at the start of this one, and run at most one block ahead;
// - an op that reads nothing made earlier in its block, other than a gather of state, starts after the block before
//   it ends (the activation or gradient flows from one block into the next);
// - the tail, the optimizer's updates (and, with microbatches, the once-per-step gradient all-reduces), runs after
//   the last microbatch's backward: the edges' first, then each layer's after the layer before it, each update after
//   its own gradient.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/capacity/model_program.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

struct LayerStretch {
  ScenarioSpec spec;                      // verified
  std::int64_t copies = 1;                // layers written out
  std::vector<std::size_t> source;        // per op: the model program's op it runs
  std::vector<std::int64_t> copy;         // per op: its layer copy, 1..copies; 0 for the edges and the step's tail
  std::vector<std::size_t> forward_end;   // per copy k (index k - 1): the last op of its forward (its output)
  std::vector<std::size_t> backward_end;  // per copy (training): the last op of its backward, else empty
  std::vector<bool> tail;                 // per op: once per step, after the last microbatch (the optimizer ...)
};

// The stretch of `copies` >= 1 layers (at most the model's). `step_ops_in_tail`: the gradients' once-per-step
// all-reduces run in the tail with the optimizer (microbatches > 1), else each right after its gradient. Throws
// InputError (from the verifier) only on an internal inconsistency of the model program.
LayerStretch layer_stretch(const ModelProgram& model, std::int64_t copies, bool step_ops_in_tail);

}  // namespace podsim
