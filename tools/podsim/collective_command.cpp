// `podsim collective`: one collective over mesh axes of a slice, book model and simulation side by side.
#include <fstream>
#include <iostream>

#include "sim/query/collective_query.hpp"
#include "sim/report/collective_report.hpp"
#include "sim/report/error_report.hpp"
#include "tools/podsim/command.hpp"

namespace podsim::cli {

void add_collective_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("collective", "Time one collective: book closed form and hop-by-hop simulation");
  auto query = std::make_shared<CollectiveQuery>();
  auto json = std::make_shared<bool>(false);
  auto links = std::make_shared<std::string>();
  cmd->add_option("--hardware", query->hardware, "Hardware preset (podsim hardware lists them)")->capture_default_str();
  cmd->add_option("--slice", query->slice, "Slice shape in chips, e.g. 8x4 or 4x4x4")->required();
  cmd->add_option("--wrap", query->wrap, "Wraparound: auto (the preset's rule), none, all, or dims such as 0,1")
      ->capture_default_str();
  cmd->add_option("--mesh", query->mesh, "Logical mesh, e.g. X=8,Y=4 (default: one axis per slice dim, X Y Z)");
  cmd->add_option("--op", query->op, "all-gather, reduce-scatter, all-reduce or all-to-all")->required();
  cmd->add_option("--axes", query->axes, "Mesh axes the collective runs over, e.g. Y or X,Y")->required();
  cmd->add_option("--shape", query->shape, "Tensor shape, with --sharding");
  cmd->add_option("--dtype", query->dtype, "Element type")->capture_default_str();
  cmd->add_option("--sharding", query->sharding, "The tensor's sharding before the collective, e.g. 'A[E_Y, F]'");
  cmd->add_option("--array-bytes", query->array_bytes, "The gathered or reduced array V over the group (bytes)");
  cmd->add_option("--link-bw", query->link_bandwidth, "Override the link bandwidth per direction, e.g. 45GB/s");
  cmd->add_option("--hop-latency", query->hop_latency, "Override the per-hop latency, e.g. 1us");
  cmd->add_option("--model", query->model, "des, book or both")->capture_default_str();
  cmd->add_option("--algorithm", query->algorithm,
                  "auto, unidirectional, bidirectional, bidirectional-split, line, direct")
      ->capture_default_str();
  cmd->add_option("--multi-axis", query->multi_axis, "Several axes: sequential or concurrent")->capture_default_str();
  cmd->add_option("--links", *links, "Write the per-link ledger (bytes, messages, busy time) to this CSV file");
  cmd->add_flag("--json", *json, "Print one JSON object (schema podsim/1)");
  cmd->callback([&action, query, json, links] {
    action = [query, json, links] {
      try {
        const CollectiveAnswer answer = answer_collective(*query);
        if (!links->empty()) {
          std::ofstream out(*links);
          if (!out) throw InputError("--links", "cannot write the file, got: " + *links);
          report::write_link_ledger_csv(answer, out);
        }
        if (*json)
          std::cout << report::collective_answer_json(answer).dump(2) << "\n";
        else
          std::cout << report::collective_answer_text(answer);
        return 0;
      } catch (const InputError& error) {
        if (*json) std::cout << report::error_json(error).dump(2) << "\n";
        throw;
      }
    };
  });
}

}  // namespace podsim::cli
