// A transformer model as podsim reads it: its dims (models/model/transformer.hpp), where they came from (a preset
// under configs/models/, a Hugging Face config.json, or a scenario's own keys), and the parameter count its source
// publishes, when it states one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/model/transformer.hpp"

namespace podsim {

struct ModelPreset {
  std::string name;         // the preset's name, the config's file stem, or the scenario's
  std::string description;  // one line
  std::string origin;       // the file the dims were read from
  TransformerDims dims;
  std::optional<std::uint64_t> published_params;  // as the preset's source states it
  std::string published_params_source;
};

}  // namespace podsim
