// A jax.lax.scan over 4 stacked layers as JAX prints it with Shardy (written for podsim in that form; not a copy):
// the loop counter %iterArg_0 from 0 while < 4, the layer's weight cut from the stack by dynamic_slice at the
// counter (after JAX's normalisation of a negative index), a matmul, tanh, a sharding constraint that gathers the
// model-sharded features, and the layer's output stacked into the zeros %cst by dynamic_update_slice. Mesh
// "data"=2 shards the batch, "model"=4 the weights' output features.
#loc = loc(unknown)
module @jit_forward attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<4x512x512xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, %arg1: tensor<256x512xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<256x512xbf16> {jax.result_info = "[0]"}, tensor<4x256x512xbf16> {jax.result_info = "[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32> loc(#loc)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<4x256x512xbf16> loc(#loc)
    %0:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg1, %iterArg_2 = %cst) : tensor<4x512x512xbf16>, tensor<i32>, tensor<256x512xbf16>, tensor<4x256x512xbf16>
     cond {
      %c_3 = stablehlo.constant dense<4> : tensor<i32> loc(#loc)
      %1 = stablehlo.compare  LT, %iterArg_0, %c_3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc)
      stablehlo.return %1 : tensor<i1> loc(#loc)
    } do {
      %c_3 = stablehlo.constant dense<0> : tensor<i32> loc(#loc)
      %1 = stablehlo.compare  LT, %iterArg_0, %c_3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc)
      %c_4 = stablehlo.constant dense<4> : tensor<i32> loc(#loc)
      %2 = stablehlo.add %iterArg_0, %c_4 : tensor<i32> loc(#loc)
      %3 = stablehlo.select %1, %2, %iterArg_0 : tensor<i1>, tensor<i32> loc(#loc)
      %c_5 = stablehlo.constant dense<0> : tensor<i32> loc(#loc)
      %4 = stablehlo.dynamic_slice %iterArg, %3, %c_5, %c_5, sizes = [1, 512, 512] : (tensor<4x512x512xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x512x512xbf16> loc(#loc)
      %5 = stablehlo.reshape %4 : (tensor<1x512x512xbf16>) -> tensor<512x512xbf16> loc(#loc)
      %6 = stablehlo.dot_general %iterArg_1, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xbf16>, tensor<512x512xbf16>) -> tensor<256x512xbf16> loc(#loc)
      %7 = stablehlo.tanh %6 : tensor<256x512xbf16> loc(#loc)
      %8 = sdy.sharding_constraint %7 <@mesh, [{"data"}, {}]> : tensor<256x512xbf16> loc(#loc)
      %9 = stablehlo.broadcast_in_dim %8, dims = [1, 2] : (tensor<256x512xbf16>) -> tensor<1x256x512xbf16> loc(#loc)
      %10 = stablehlo.dynamic_update_slice %iterArg_2, %9, %3, %c_5, %c_5 : (tensor<4x256x512xbf16>, tensor<1x256x512xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x256x512xbf16> loc(#loc)
      %c_6 = stablehlo.constant dense<1> : tensor<i32> loc(#loc)
      %11 = stablehlo.add %iterArg_0, %c_6 : tensor<i32> loc(#loc)
      stablehlo.return %iterArg, %11, %8, %10 : tensor<4x512x512xbf16>, tensor<i32>, tensor<256x512xbf16>, tensor<4x256x512xbf16> loc(#loc)
    } loc(#loc)
    return %0#2, %0#3 : tensor<256x512xbf16>, tensor<4x256x512xbf16> loc(#loc)
  } loc(#loc)
} loc(#loc)
