// A batched matmul (batching_dims and contracting_dims, as in the dot_general_batching_dims case of
// openxla/shardy's op sharding rule tests) plus a residual add and an explicit result sharding on the dot.
// Written for podsim; not a copy.
module @jit_g attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=2, "model"=4]>
  func.func public @main(%arg0: tensor<4x8x32xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}, {}]>}, %arg1: tensor<4x32x16xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}, {"model"}]>}, %arg2: tensor<4x8x16xbf16>) -> (tensor<4x8x16xbf16> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"batch"}, {}, {"model"}]>]>} : (tensor<4x8x32xbf16>, tensor<4x32x16xbf16>) -> tensor<4x8x16xbf16>
    %1 = stablehlo.multiply %arg2, %0 : tensor<4x8x16xbf16>
    return %1 : tensor<4x8x16xbf16>
  }
}
