// The typed error for a hardware figure a model needs and the preset does not give (a GPU has no MXU figures,
// a chip may have no peak for f32). Callers catch it by type and may point users at the preset key to add.
#pragma once

#include <string>
#include <utility>

#include "models/common/error.hpp"

namespace podsim {

class MissingFigureError : public VerifyError {
 public:
  MissingFigureError(std::string figure, const std::string& message)
      : VerifyError(message), figure_(std::move(figure)) {}

  // The preset key a scenario's hardware overrides would add it under, e.g. "chip.peak_flops" (keyed by
  // dtype), "chip.vmem_bytes_per_core", "ici.bandwidth_Bps".
  const std::string& figure() const { return figure_; }

 private:
  std::string figure_;
};

}  // namespace podsim
