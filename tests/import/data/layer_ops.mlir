// A slice of a transformer layer as JAX prints it with Shardy (written for podsim; not a copy): a transposed
// weight, a convert to f32, a softmax-like max/exp/sum with the reduce's region printed in full, a relu as
// compare + select, an iota, and a slice of an unsharded dim. Mesh "x"=2 shards the batch, "y"=4 the features.
module @jit_layer attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<64x512xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %arg1: tensor<128x512xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<64x128xf32> {jax.result_info = ""}, tensor<64x64xf32> {jax.result_info = ""}) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<128x512xbf16>) -> tensor<512x128xbf16>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0] : (tensor<64x512xbf16>, tensor<512x128xbf16>) -> tensor<64x128xbf16>
    %2 = stablehlo.convert %1 : (tensor<64x128xbf16>) -> tensor<64x128xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) across dimensions = [1] : (tensor<64x128xf32>, tensor<f32>) -> tensor<64xf32>
     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {
      %14 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %14 : tensor<f32>
    }
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<64xf32>) -> tensor<64x128xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<64x128xf32>
    %6 = stablehlo.exponential %5 : tensor<64x128xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x128xf32>
    %8 = stablehlo.compare  GT, %6, %7,  FLOAT : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xi1>
    %9 = stablehlo.select %8, %6, %7 : tensor<64x128xi1>, tensor<64x128xf32>
    %10 = stablehlo.iota dim = 0 : tensor<128xi32>
    %11 = stablehlo.slice %9 [0:64, 0:64] : (tensor<64x128xf32>) -> tensor<64x64xf32>
    return %9, %11 : tensor<64x128xf32>, tensor<64x64xf32>
  }
}
