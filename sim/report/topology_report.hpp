// What `podsim topology` prints (docs/topology.md): a slice's figures (topology_figures.hpp) as text or the versioned
// JSON object, and the shapes a generation's pods form.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "models/common/shape.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/topology_figures.hpp"

namespace podsim {

// {"schema": "podsim/1", "hardware", "slice", "chips", "links", "wraparound", "twisted", "diameter_hops",
// "mean_hops", "bisection_links", "cubes" (null off a cube generation)}, then "failed_links", "failed_chips" and
// "replaced_cubes" each only when not empty, and with `link_names` every directed link's name in link-id order.
nlohmann::json topology_json(const std::string& hardware, const Slice& slice, const TopologyFigures& figures,
                             bool link_names);
std::string topology_text(const std::string& hardware, const Slice& slice, const TopologyFigures& figures,
                          bool link_names);

// {"schema": "podsim/1", "hardware", "shapes": [[...], ...]}; text: one shape a line with its chips.
nlohmann::json shapes_json(const std::string& hardware, const std::vector<Shape>& shapes);
std::string shapes_text(const std::string& hardware, const std::vector<Shape>& shapes);

}  // namespace podsim
