// parse -> verify -> measure for `podsim shard`, each failure located at the flag it came from.
#include "models/sharding/shard_query.hpp"

#include <algorithm>

#include "models/common/error.hpp"
#include "models/sharding/mesh_spec.hpp"
#include "models/sharding/sharding_verify.hpp"

namespace podsim {
namespace {}  // namespace

ShardAnswer answer_shard_request(const ShardRequest& request) {
  ShardAnswer answer;
  if (request.mesh_specs.empty()) throw InputError("--mesh", "at least one mesh is required, got: none");
  for (const auto& spec : request.mesh_specs) {
    auto named = located("--mesh", [&] { return parse_mesh_spec(spec); });
    located("--mesh", [&] {
      answer.meshes.add(named.name, std::move(named.mesh));
      return 0;
    });
  }
  if (!request.sharding) return answer;

  if (!request.shape) throw InputError("--shape", "a shape is required with --sharding, got: none");
  answer.shape = located("--shape", [&] { return parse_shape(*request.shape); });
  answer.dtype = located("--dtype", [&] { return parse_dtype(request.dtype); });

  const std::string& default_mesh = answer.meshes.meshes().front().name;
  answer.parsed =
      located("--sharding", [&] { return parse_sharding(*request.sharding, default_mesh, answer.shape.size()); });
  const TensorSharding& sharding = answer.parsed->sharding;
  located("--sharding", [&] {
    verify_sharding(sharding, answer.meshes, answer.shape.size());
    return 0;
  });
  const Mesh* mesh = resolve_mesh(sharding, answer.meshes);
  answer.mesh_name = sharding.inline_mesh ? "inline" : sharding.mesh_name;
  answer.layout = located("--sharding", [&] { return compute_layout(answer.shape, answer.dtype, sharding, *mesh); });
  answer.printed = print_all_notations(sharding, answer.parsed->tensor_name.empty() ? "A" : answer.parsed->tensor_name,
                                       answer.parsed->dim_labels);
  if (request.devices) {
    std::vector<std::int64_t> ids(static_cast<std::size_t>(mesh->num_devices()));
    for (std::size_t i = 0; i < ids.size(); ++i)
      ids[i] = mesh->device_at(static_cast<std::int64_t>(i));
    std::sort(ids.begin(), ids.end());
    for (const auto device : ids)
      answer.devices.push_back({device, shard_index(sharding, *mesh, device)});
  }
  return answer;
}

}  // namespace podsim
