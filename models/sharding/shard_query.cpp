// verify -> measure for `podsim shard`, each failure in the field it came from.
#include "models/sharding/shard_query.hpp"

#include <algorithm>

#include "models/sharding/sharding_verify.hpp"

namespace podsim {

ShardAnswer answer_shard_request(const ShardRequest& request) {
  using Field = ShardRequest::Field;
  ShardAnswer answer;
  const auto no_mesh = [] {
    return ShardError(Field::meshes, "at least one mesh is required unless the sharding inlines one, got: none");
  };
  if (request.meshes.empty() && !request.tensor) throw no_mesh();
  for (const auto& named : request.meshes)
    in_field(Field::meshes, [&] {
      answer.meshes.add(named.name, named.mesh);
      return 0;
    });
  if (!request.tensor) return answer;

  const ShardRequest::Tensor& tensor = *request.tensor;
  answer.shape = tensor.shape;
  answer.dtype = tensor.dtype;
  // Book and PartitionSpec texts bind to the first mesh; a Shardy text may inline its own (`mesh<[...]>`).
  const std::string default_mesh = answer.meshes.empty() ? "mesh" : answer.meshes.meshes().front().name;
  answer.parsed =
      in_field(Field::sharding, [&] { return parse_sharding(tensor.sharding, default_mesh, answer.shape.size()); });
  const TensorSharding& sharding = answer.parsed->sharding;
  if (answer.meshes.empty() && !sharding.inline_mesh) throw no_mesh();
  in_field(Field::sharding, [&] {
    verify_sharding(sharding, answer.meshes, answer.shape.size());
    return 0;
  });
  const Mesh* mesh = resolve_mesh(sharding, answer.meshes);
  answer.mesh_name = sharding.inline_mesh ? "inline" : sharding.mesh_name;
  answer.layout =
      in_field(Field::sharding, [&] { return compute_layout(answer.shape, answer.dtype, sharding, *mesh); });
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
