// A two-layer MLP with a bias, a tanh activation in a private function, a scale by a constant and a squared-sum
// loss, in the form jax.jit(loss).lower(x, w1, b1, w2).as_text() prints with Shardy (func.call of a private
// function, splat constants, broadcast_in_dim, reduce with its region printed as `applies`). Written for podsim;
// not a copy. Mesh: "x"=4 shards the batch, "y"=2 the hidden dim (Megatron-style).
module @jit_loss attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]>
  func.func public @main(%arg0: tensor<256x1024xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<1024x4096xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg2: tensor<4096xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}]>}, %arg3: tensor<4096x1024xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<bf16> {jax.result_info = "[0]"}, tensor<256x8x128xbf16> {jax.result_info = "[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<256x4096xbf16>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<4096xbf16>) -> tensor<256x4096xbf16>
    %2 = stablehlo.add %0, %1 : tensor<256x4096xbf16>
    %3 = call @act(%2) : (tensor<256x4096xbf16>) -> tensor<256x4096xbf16>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<256x4096xbf16>
    %5 = stablehlo.multiply %3, %4 : tensor<256x4096xbf16>
    %6 = stablehlo.dot_general %5, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x4096xbf16>, tensor<4096x1024xbf16>) -> tensor<256x1024xbf16>
    %7 = stablehlo.multiply %6, %6 : tensor<256x1024xbf16>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %8 = stablehlo.reduce(%7 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<256x1024xbf16>, tensor<bf16>) -> tensor<bf16>
    %9 = stablehlo.reshape %6 : (tensor<256x1024xbf16>) -> tensor<256x8x128xbf16>
    return %8, %9 : tensor<bf16>, tensor<256x8x128xbf16>
  }
  func.func private @act(%arg0: tensor<256x4096xbf16>) -> tensor<256x4096xbf16> {
    %0 = stablehlo.tanh %arg0 : tensor<256x4096xbf16>
    return %0 : tensor<256x4096xbf16>
  }
}
