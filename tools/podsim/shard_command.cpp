// `podsim shard`: verify a mesh and a tensor sharding in any notation and describe its layout.
#include <iostream>

#include "models/sharding/mesh_spec.hpp"
#include "models/sharding/shard_query.hpp"
#include "sim/report/error_report.hpp"
#include "sim/report/shard_report.hpp"
#include "tools/podsim/command.hpp"
#include "tools/podsim/flags.hpp"

namespace podsim::cli {
namespace {

struct ShardFlags {
  std::vector<std::string> meshes;
  std::optional<std::string> shape;
  std::string dtype = "f32";
  std::optional<std::string> sharding;
  bool devices = false;
  bool json = false;
};

// The flags' text as the typed request; each parse failure is located at its flag.
ShardRequest shard_request(const ShardFlags& flags) {
  ShardRequest request;
  for (const auto& spec : flags.meshes)
    request.meshes.push_back(located("--mesh", [&] { return parse_mesh_spec(spec); }));
  if (flags.sharding) {
    if (!flags.shape) throw InputError("--shape", "a shape is required with --sharding, got: none");
    ShardRequest::Tensor tensor;
    tensor.shape = located("--shape", [&] { return parse_shape(*flags.shape); });
    tensor.dtype = located("--dtype", [&] { return parse_dtype(flags.dtype); });
    tensor.sharding = *flags.sharding;
    request.tensor = std::move(tensor);
  }
  request.devices = flags.devices;
  return request;
}

std::string flag_of(ShardRequest::Field field) {
  switch (field) {
    case ShardRequest::Field::meshes:
      return "--mesh";
    case ShardRequest::Field::sharding:
      return "--sharding";
  }
  return "--sharding";
}

ShardAnswer answer(const ShardFlags& flags) {
  const ShardRequest request = shard_request(flags);
  try {
    return answer_shard_request(request);
  } catch (const ShardError& error) {
    throw at_flag(error, flag_of(error.field()));
  }
}

}  // namespace

void add_shard_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("shard", "Verify a sharding and show its layout: local shape, bytes per device");
  auto flags = std::make_shared<ShardFlags>();
  cmd->add_option("--mesh", flags->meshes,
                  "Mesh: X=8,Y=2 (named \"mesh\") or NAME=<[\"x\"=2, \"y\"=4], device_ids=[...]>; repeatable; "
                  "not needed when --sharding inlines its mesh (<mesh<[\"x\"=2]>, [{\"x\"}]>)");
  cmd->add_option("--shape", flags->shape, "Tensor shape, e.g. 1024x4096, or scalar");
  cmd->add_option("--dtype", flags->dtype, "Element type: f32 bf16 f16 int8 int4 fp8_e4m3 fp8_e5m2")
      ->capture_default_str();
  cmd->add_option("--sharding", flags->sharding,
                  "Sharding in Shardy (<@mesh, [{\"X\"}, {}]>), book (A[I_X, J]) or PartitionSpec (P('X', None)) "
                  "notation; without it the meshes are verified and described");
  cmd->add_flag("--devices", flags->devices, "Also list each device's shard index");
  cmd->add_flag("--json", flags->json, "Print one JSON object (schema podsim/1)");
  cmd->callback([&action, flags] {
    action = [flags] {
      try {
        const ShardAnswer result = answer(*flags);
        if (flags->json)
          std::cout << report::shard_answer_json(result).dump(2) << "\n";
        else
          std::cout << report::shard_answer_text(result);
        return 0;
      } catch (const InputError& error) {
        if (flags->json) std::cout << report::error_json(error).dump(2) << "\n";
        throw;
      }
    };
  });
}

}  // namespace podsim::cli
