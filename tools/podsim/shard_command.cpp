// `podsim shard`: verify a mesh and a tensor sharding in any notation and describe its layout.
#include <iostream>

#include "models/sharding/shard_query.hpp"
#include "sim/report/error_report.hpp"
#include "sim/report/shard_report.hpp"
#include "tools/podsim/command.hpp"

namespace podsim::cli {

void add_shard_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("shard", "Verify a sharding and show its layout: local shape, bytes per device");
  auto request = std::make_shared<ShardRequest>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--mesh", request->mesh_specs,
                  "Mesh: X=8,Y=2 (named \"mesh\") or NAME=<[\"x\"=2, \"y\"=4], device_ids=[...]>; repeatable")
      ->required();
  cmd->add_option("--shape", request->shape, "Tensor shape, e.g. 1024x4096, or scalar");
  cmd->add_option("--dtype", request->dtype, "Element type: f32 bf16 f16 int8 int4 fp8_e4m3 fp8_e5m2")
      ->capture_default_str();
  cmd->add_option("--sharding", request->sharding,
                  "Sharding in Shardy (<@mesh, [{\"X\"}, {}]>), book (A[I_X, J]) or PartitionSpec (P('X', None)) "
                  "notation; without it the meshes are verified and described");
  cmd->add_flag("--devices", request->devices, "Also list each device's shard index");
  cmd->add_flag("--json", *json, "Print one JSON object (schema podsim/1)");
  cmd->callback([&action, request, json] {
    action = [request, json] {
      try {
        const ShardAnswer answer = answer_shard_request(*request);
        if (*json)
          std::cout << report::shard_answer_json(answer).dump(2) << "\n";
        else
          std::cout << report::shard_answer_text(answer);
        return 0;
      } catch (const InputError& error) {
        if (*json) std::cout << report::error_json(error).dump(2) << "\n";
        throw;
      }
    };
  });
}

}  // namespace podsim::cli
