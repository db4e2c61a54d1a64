// A collective matmul written with shard_map (the scaling book's jax-stuff.md pattern, here gathering the rows of
// A over Y), for podsim's tests in the form JAX prints: Out[B_X, F_Y] = A[B_XY, D] W[D, F_Y], B, D, F = 1024, 2048,
// 8192 on a 2x4 mesh. Each chip multiplies the 128-row block of A it holds by its W columns while that block moves one
// chip down the Y ring (collective_permute), four steps, the fourth without a move; the four row blocks are the
// results. tests/import/stablehlo_explicit_test.cpp compares its simulated time with podsim's own collective
// matmul of the same shapes.
module @jit_collective_matmul attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["X"=2, "Y"=4]>
  func.func public @main(%arg0: tensor<1024x2048xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"X", "Y"}, {}]>}, %arg1: tensor<2048x8192xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"Y"}]>}) -> (tensor<256x8192xf32> {jax.result_info = "[0]"}, tensor<256x8192xf32> {jax.result_info = "[1]"}, tensor<256x8192xf32> {jax.result_info = "[2]"}, tensor<256x8192xf32> {jax.result_info = "[3]"}) {
    %0:4 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"X", "Y"}, {}]>, <@mesh, [{}, {"Y"}]>] out_shardings=[<@mesh, [{"X"}, {"Y"}]>, <@mesh, [{"X"}, {"Y"}]>, <@mesh, [{"X"}, {"Y"}]>, <@mesh, [{"X"}, {"Y"}]>] manual_axes={"X", "Y"} (%arg2: tensor<128x2048xf32>, %arg3: tensor<2048x2048xf32>) {
      %1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x2048xf32>, tensor<2048x2048xf32>) -> tensor<128x2048xf32>
      %2 = "stablehlo.collective_permute"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<128x2048xf32>) -> tensor<128x2048xf32>
      %3 = stablehlo.dot_general %2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x2048xf32>, tensor<2048x2048xf32>) -> tensor<128x2048xf32>
      %4 = "stablehlo.collective_permute"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<128x2048xf32>) -> tensor<128x2048xf32>
      %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x2048xf32>, tensor<2048x2048xf32>) -> tensor<128x2048xf32>
      %6 = "stablehlo.collective_permute"(%4) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, source_target_pairs = dense<[[1, 0], [2, 1], [3, 2], [0, 3], [5, 4], [6, 5], [7, 6], [4, 7]]> : tensor<8x2xi64>}> : (tensor<128x2048xf32>) -> tensor<128x2048xf32>
      %7 = stablehlo.dot_general %6, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x2048xf32>, tensor<2048x2048xf32>) -> tensor<128x2048xf32>
      sdy.return %1, %3, %5, %7 : tensor<128x2048xf32>, tensor<128x2048xf32>, tensor<128x2048xf32>, tensor<128x2048xf32>
    } : (tensor<1024x2048xf32>, tensor<2048x8192xf32>) -> (tensor<256x8192xf32>, tensor<256x8192xf32>, tensor<256x8192xf32>, tensor<256x8192xf32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<256x8192xf32>, tensor<256x8192xf32>, tensor<256x8192xf32>, tensor<256x8192xf32>
  }
}
