// drop_calibration (scenario_calibration.hpp).
#include "sim/scenario/scenario_calibration.hpp"

namespace podsim {

void drop_calibration(ScenarioSpec& spec) {
  spec.hardware.spec.calibration.reset();
  if (spec.search)
    for (HardwarePreset& preset : spec.search->hardware)
      preset.spec.calibration.reset();
  if (spec.serve && spec.serve->disaggregated)
    for (ServingPoolSpec* pool : {&spec.serve->disaggregated->prefill, &spec.serve->disaggregated->decode})
      if (pool->hardware) pool->hardware->spec.calibration.reset();
}

}  // namespace podsim
