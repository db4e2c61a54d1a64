// A block after Shardy's propagation, reshard insertion and reshard-to-collectives passes: the communication is
// already decided and spelled as Shardy's explicit collectives. Written for podsim's tests in the form those passes
// print (openxla/shardy: shardy/dialect/sdy/transforms/export/test/, and the transformer block quoted in podsim's
// issue "Import what JAX and Shardy really print"): an entry function that is not @main, an all-reduce of a dot's
// partial sums, an all-gather, all-slices (also over a sub-axis), a reduce whose partial sums the module reduces,
// collective permutes, an all-gather over a sub-axis, a reshard and an all-to-all.
module @explicit_block {
  sdy.mesh @mesh = <["data"=2, "tile"=4, "model"=2]>
  func.func @block(%arg0: tensor<64x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"tile"}]>}, %arg1: tensor<256x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"tile"}, {"model"}]>}, %arg2: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}) -> (tensor<64x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tile", "data"}]>}) {
    %cst = sdy.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
    %1 = sdy.all_reduce {"tile"} %0 out_sharding=<@mesh, [{"data"}, {"model"}]> : tensor<64x512xf32>
    %2 = sdy.all_gather [{}, {"model"}] %1 out_sharding=<@mesh, [{"data"}, {}]> : tensor<64x512xf32>
    %3 = sdy.all_slice [{}, {"tile"}] %2 out_sharding=<@mesh, [{"data"}, {"tile"}]> : tensor<64x512xf32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}]>]>} : (tensor<64x512xf32>, tensor<f32>) -> tensor<64xf32>
    %5 = sdy.all_reduce {"tile"} %4 out_sharding=<@mesh, [{"data"}]> : tensor<64xf32>
    %6 = sdy.all_slice [{"tile":(1)2}] %arg2 out_sharding=<@mesh, [{"model", "tile":(1)2}]> : tensor<256xf32>
    %7 = sdy.collective_permute %6 out_sharding=<@mesh, [{"tile"}]> : tensor<256xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"tile"}]>]>} : (tensor<256xf32>) -> tensor<64x256xf32>
    %9 = stablehlo.add %arg0, %8 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {"tile"}]>]>} : tensor<64x256xf32>
    %10 = sdy.collective_permute %9 out_sharding=<@mesh, [{"data"}, {"model", "tile":(2)2}]> : tensor<64x256xf32>
    %11 = sdy.all_gather [{}, {"tile":(2)2}] %10 out_sharding=<@mesh, [{"data"}, {"model"}]> : tensor<64x256xf32>
    %12 = sdy.reshard %11 <@mesh, [{"data"}, {"tile"}]> : tensor<64x256xf32>
    %13 = sdy.all_to_all [{"data"}: 0->1] %12 out_sharding=<@mesh, [{}, {"tile", "data"}]> : tensor<64x256xf32>
    return %13 : tensor<64x256xf32>
  }
}
