// The model program with its layer written out several times, in the order a step runs the layers.
#include "sim/capacity/layer_stretch.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "models/common/error.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim {
namespace {

enum class BlockKind { edge, layer_forward, layer_backward };

struct Block {
  BlockKind kind = BlockKind::edge;
  std::vector<std::size_t> ops;  // the model program's ops, in program order
};

class StretchWriter {
 public:
  StretchWriter(const ModelProgram& model, std::int64_t copies, bool step_ops_in_tail)
      : model_(model), copies_(copies), step_ops_in_tail_(step_ops_in_tail) {
    for (const auto& s : model.state) {
      state_.insert(s.tensor);
      if (s.kind == ModelStateTensor::Kind::optimizer) optimizer_.insert(s.tensor);
    }
    const auto& program = model.spec.program;
    for (std::size_t i = 0; i < program.size(); ++i) {
      if (model.roles[i].place != ModelPlace::layer) continue;
      layer_ops_.insert(program[i].name);
      for (const auto& t : program[i].inputs)
        layer_tensors_.insert(t);
      if (!program[i].out.empty()) layer_tensors_.insert(program[i].out);
    }
  }

  LayerStretch write() {
    out_.copies = copies_;
    out_.spec = model_.spec;
    out_.spec.program.clear();
    out_.spec.tensors.clear();
    out_.spec.expect.clear();
    out_.forward_end.assign(static_cast<std::size_t>(copies_), 0);

    declare();
    std::vector<Block> blocks;
    std::vector<std::size_t> tail;
    const auto& program = model_.spec.program;
    for (std::size_t i = 0; i < program.size(); ++i) {
      if (in_tail(i)) {
        tail.push_back(i);
        continue;
      }
      const ModelOpRole& role = model_.roles[i];
      const BlockKind kind = role.place != ModelPlace::layer     ? BlockKind::edge
                             : role.phase == ModelPhase::forward ? BlockKind::layer_forward
                                                                 : BlockKind::layer_backward;
      if (blocks.empty() || blocks.back().kind != kind) blocks.push_back({kind, {}});
      blocks.back().ops.push_back(i);
    }
    for (const Block& block : blocks) {
      if (block.kind == BlockKind::edge) {
        write_block(block, 0);
      } else if (block.kind == BlockKind::layer_forward) {
        for (std::int64_t k = 1; k <= copies_; ++k)
          out_.forward_end[static_cast<std::size_t>(k - 1)] = write_block(block, k);
      } else {
        out_.backward_end.assign(static_cast<std::size_t>(copies_), 0);
        for (std::int64_t k = copies_; k >= 1; --k)
          out_.backward_end[static_cast<std::size_t>(k - 1)] = write_block(block, k);
      }
    }
    // The tail: after the last microbatch's backward, the edges' updates, then each layer's in turn (after the layer
    // before it), an update after its own gradient too.
    const std::string microbatch_end = block_ends_.empty() ? std::string() : block_ends_.back();
    std::vector<std::string> previous;  // the tail block before: the edges', then each layer's
    for (std::int64_t k = 0; k <= copies_; ++k) {
      std::vector<std::string> written_now;
      for (const std::size_t i : tail) {
        const bool layer = model_.roles[i].place == ModelPlace::layer;
        if (layer != (k > 0)) continue;
        std::vector<std::string> after = previous;
        if (!microbatch_end.empty()) after.push_back(microbatch_end);
        const std::string& written = model_.spec.program[i].out;
        if (optimizer_.count(written) && written.rfind("adam_", 0) == 0) {
          const auto gradient = writer_of_.find({k, "d" + written.substr(5)});
          if (gradient != writer_of_.end()) after.push_back(gradient->second);
        }
        const std::size_t index = emit(i, k, std::move(after), true);
        written_now.push_back(out_.spec.program[index].name);
      }
      if (!written_now.empty()) previous = std::move(written_now);
    }
    out_.spec = verified(std::move(out_.spec));
    return std::move(out_);
  }

 private:
  bool in_tail(std::size_t i) const {
    if (model_.roles[i].phase != ModelPhase::step) return false;
    return step_ops_in_tail_ || optimizer_.count(model_.spec.program[i].out) > 0;
  }

  std::string suffix(std::int64_t copy) const { return copy > 0 ? "_l" + std::to_string(copy) : std::string(); }

  std::string tensor(const std::string& name, std::int64_t copy) const {
    return copy > 0 && layer_tensors_.count(name) ? name + suffix(copy) : name;
  }

  std::string op_name(const std::string& name, std::int64_t copy) const {
    return copy > 0 && layer_ops_.count(name) ? name + suffix(copy) : name;
  }

  // The declared tensors: a layer's once per copy. Only the model's state (weights, optimizer state, KV cache) lives
  // throughout; a declared activation (the layer's input, a gradient's stand-in) from its first reader to its last.
  void declare() {
    for (const auto& t : model_.spec.tensors) {
      const bool layer = layer_tensors_.count(t.name) > 0;
      for (std::int64_t k = layer ? 1 : 0; k <= (layer ? copies_ : 0); ++k) {
        ScenarioTensor c = t;
        c.name = tensor(t.name, k);
        if (!c.view_of.empty()) c.view_of = tensor(c.view_of, k);
        c.transient = t.transient || state_.count(t.name) == 0;
        c.pointer.clear();
        out_.spec.tensors.push_back(std::move(c));
      }
    }
  }

  // Writes `block` as copy `copy`; returns the index of its last op outside the step's (its output's).
  std::size_t write_block(const Block& block, std::int64_t copy) {
    std::set<std::string> made;  // tensors made earlier in this block (the model program's names)
    const std::string two_back = block_ends_.size() >= 2 ? block_ends_[block_ends_.size() - 2] : std::string();
    std::optional<std::size_t> last;
    for (const std::size_t i : block.ops) {
      const ScenarioOp& op = model_.spec.program[i];
      std::vector<std::string> after;
      bool reads_made = false, reads_state_only = !op.inputs.empty();
      for (const auto& t : op.inputs) {
        reads_made = reads_made || made.count(t) > 0;
        reads_state_only = reads_state_only && state_.count(t) > 0;
      }
      // A gather of state (a weight) may run ahead of the activation, up to one block; anything else that reads
      // nothing of its block waits for the block before it (the activation it carries on).
      const bool prefetch = reads_state_only && std::holds_alternative<CollectiveOp>(op.detail);
      if (!reads_made && !prefetch && !block_ends_.empty()) after.push_back(block_ends_.back());
      if (!two_back.empty()) after.push_back(two_back);
      const std::size_t index = emit(i, copy, std::move(after), false);
      if (!op.out.empty()) made.insert(op.out);
      if (model_.roles[i].phase != ModelPhase::step) last = index;
    }
    const std::size_t end = last.value_or(out_.spec.program.size() - 1);
    block_ends_.push_back(out_.spec.program[end].name);
    return end;
  }

  std::size_t emit(std::size_t i, std::int64_t copy, std::vector<std::string> after, bool tail) {
    ScenarioOp o = model_.spec.program[i];
    for (auto& a : o.after)
      a = op_name(a, copy);
    for (auto& a : after)
      if (std::find(o.after.begin(), o.after.end(), a) == o.after.end()) o.after.push_back(std::move(a));
    const std::string original_out = o.out;
    o.name = op_name(o.name, copy);
    o.out = o.out.empty() ? o.out : tensor(o.out, copy);
    std::visit(
        [&](auto& d) {
          using D = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<D, MatmulOp>) {
            d.lhs = tensor(d.lhs, copy);
            d.rhs = tensor(d.rhs, copy);
          } else if constexpr (std::is_same_v<D, SendOp>) {
            if (d.tensor) d.tensor = tensor(*d.tensor, copy);
          } else {
            d.tensor = tensor(d.tensor, copy);
          }
        },
        o.detail);
    o.inputs.clear();
    o.pointer.clear();
    if (!original_out.empty()) writer_of_[{copy, original_out}] = o.name;
    out_.spec.program.push_back(std::move(o));
    out_.source.push_back(i);
    out_.copy.push_back(copy);
    out_.tail.push_back(tail);
    return out_.spec.program.size() - 1;
  }

  const ModelProgram& model_;
  std::int64_t copies_;
  bool step_ops_in_tail_;
  std::set<std::string> state_, optimizer_, layer_ops_, layer_tensors_;
  std::map<std::pair<std::int64_t, std::string>, std::string> writer_of_;  // (copy, tensor) -> last op writing it
  std::vector<std::string> block_ends_;  // per block written: its last op outside the step's
  LayerStretch out_;
};

}  // namespace

LayerStretch layer_stretch(const ModelProgram& model, std::int64_t copies, bool step_ops_in_tail) {
  if (copies < 1) throw InternalError("layer stretch: " + std::to_string(copies) + " copies");
  if (model.roles.size() != model.spec.program.size())
    throw InternalError("layer stretch: the model program has a role per op");
  return StretchWriter(model, copies, step_ops_in_tail).write();
}

}  // namespace podsim
