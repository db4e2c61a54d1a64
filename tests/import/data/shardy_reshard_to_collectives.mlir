// From openxla/shardy, shardy/dialect/sdy/transforms/export/test/reshard_to_collectives.mlir: four functions on the
// mesh @mesh3d_4x2x4, each as that test expects `-sdy-reshard-to-collectives` to print it (its CHECK lines, with the
// FileCheck captures named %0, %1, ...), so the collectives are Shardy's own output. The module has several public
// functions: `podsim import --function NAME` picks one.
sdy.mesh @mesh3d_4x2x4 = <["x"=4, "y"=2, "z"=4]>

func.func @two_all_to_alls_different_tgt_dims(%arg0 : tensor<16x8x8xf32> {sdy.sharding=#sdy.sharding<@mesh3d_4x2x4, [{}, {"y", "x"}, {}]>}) -> tensor<16x8x8xf32> {
  %0 = sdy.all_to_all {"x"} 1->0 %arg0 out_sharding=<@mesh3d_4x2x4, [{"x"}, {"y"}, {}]> : tensor<16x8x8xf32>
  %1 = sdy.all_to_all {"y"} 1->2 %0 out_sharding=<@mesh3d_4x2x4, [{"x"}, {}, {"y"}]> : tensor<16x8x8xf32>
  return %1 : tensor<16x8x8xf32>
}

func.func @two_all_to_alls_tgt_dim_not_empty(%arg0 : tensor<16x8x8xf32> {sdy.sharding=#sdy.sharding<@mesh3d_4x2x4, [{"x"}, {"y", "z"}, {}]>}) -> tensor<16x8x8xf32> {
  %0 = sdy.all_to_all {"z"} 1->0 %arg0 out_sharding=<@mesh3d_4x2x4, [{"x", "z"}, {"y"}, {}]> : tensor<16x8x8xf32>
  %1 = sdy.all_to_all {"y"} 1->2 %0 out_sharding=<@mesh3d_4x2x4, [{"x", "z"}, {}, {"y"}]> : tensor<16x8x8xf32>
  return %1 : tensor<16x8x8xf32>
}

func.func @slice_then_all_to_alls(%arg0 : tensor<16x8x8xf32> {sdy.sharding=#sdy.sharding<@mesh3d_4x2x4, [{}, {"y", "z"}, {}]>}) -> tensor<16x8x8xf32> {
  %0 = sdy.all_slice [{"x"}, {}, {}] %arg0 out_sharding=<@mesh3d_4x2x4, [{"x"}, {"y", "z"}, {}]> : tensor<16x8x8xf32>
  %1 = sdy.all_to_all {"z"} 1->0 %0 out_sharding=<@mesh3d_4x2x4, [{"x", "z"}, {"y"}, {}]> : tensor<16x8x8xf32>
  %2 = sdy.all_to_all {"y"} 1->2 %1 out_sharding=<@mesh3d_4x2x4, [{"x", "z"}, {}, {"y"}]> : tensor<16x8x8xf32>
  return %2 : tensor<16x8x8xf32>
}

func.func @all_to_all_subaxis_then_all_gather(%arg0 : tensor<16x8x8xf32> {sdy.sharding=#sdy.sharding<@mesh3d_4x2x4, [{"x"}, {"z", "y"}, {}]>}) -> tensor<16x8x8xf32> {
  %0 = sdy.all_to_all {"y"} 1->2 %arg0 out_sharding=<@mesh3d_4x2x4, [{"x"}, {"z"}, {"y"}]> : tensor<16x8x8xf32>
  %1 = sdy.all_to_all {"z":(2)2} 1->0 %0 out_sharding=<@mesh3d_4x2x4, [{"x", "z":(2)2}, {"z":(1)2}, {"y"}]> : tensor<16x8x8xf32>
  %2 = sdy.all_gather [{}, {"z":(1)2}, {}] %1 out_sharding=<@mesh3d_4x2x4, [{"x", "z":(2)2}, {}, {"y"}]> : tensor<16x8x8xf32>
  return %2 : tensor<16x8x8xf32>
}
