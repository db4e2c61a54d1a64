// A hardware figure as a preset states it: the value in use (SI), its unit, where it comes from, and the
// values other sources give. Reports show all of them; models use only `value`.
#pragma once

#include <string>
#include <vector>

namespace podsim {

// Another source's value for the same figure (a vendor's raw number, a measurement, an older edition).
struct Alternative {
  double value = 0;
  std::string source;
  std::string note;
};

struct Figure {
  double value = 0;
  std::string unit;  // "B", "B/s", "s", "Hz", "FLOP/s", "count"
  std::string source;
  std::string note;
  std::vector<Alternative> alternatives;
};

// A figure with its place in the preset, e.g. key "ici.bandwidth_Bps" or "chip.peak_flops.bf16".
struct NamedFigure {
  std::string key;
  Figure figure;
};

}  // namespace podsim
