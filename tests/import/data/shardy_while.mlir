// From Shardy's own tests (openxla/shardy, shardy/dialect/sdy/transforms/propagation/test/
// propagation_pipeline_data_flow_edges.mlir, func @while_result_use): a while of 32 iterations whose body adds its
// argument to itself, then an add of the result with a given sharding. Taken as it is, but renamed @main, in a
// module with only the mesh it uses, without the FileCheck lines.
module {
  sdy.mesh @mesh_a_2_b_2 = <["a"=2, "b"=2]>
  func.func @main(%arg0: tensor<32x96xf32>) -> tensor<32x96xf32> {
    %0 = sdy.constant dense<0> : tensor<i32>
    %1 = sdy.constant dense<1> : tensor<i32>
    %2 = sdy.constant dense<32> : tensor<i32>
    %3:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %0) : tensor<32x96xf32>, tensor<i32>
      cond {
      %5 = stablehlo.compare  LT, %iterArg_0, %2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = stablehlo.add %iterArg_0, %1 : tensor<i32>
      %6 = stablehlo.add %iterArg, %iterArg : tensor<32x96xf32>
      stablehlo.return %6, %5 : tensor<32x96xf32>, tensor<i32>
    }
    %4 = stablehlo.add %3#0, %3#0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh_a_2_b_2, [{"a"}, {"b"}]>]>} : tensor<32x96xf32>
    return %4 : tensor<32x96xf32>
  }
}
