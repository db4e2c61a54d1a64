// A shard_map inside a loop (fori_loop of 3 steps), written for podsim's tests in the form JAX prints: each step moves
// every chip's 4x8 f32 block one chip along the "x" ring.
sdy.mesh @mesh = <["x"=4]>
func.func @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %c, %v = %arg0) : tensor<i32>, tensor<16x8xf32>
   cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %m = sdy.manual_computation(%v) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<4x8xf32>) {
      %r = "stablehlo.collective_permute"(%b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
      sdy.return %r : tensor<4x8xf32>
    } : (tensor<16x8xf32>) -> tensor<16x8xf32>
    stablehlo.return %j, %m : tensor<i32>, tensor<16x8xf32>
  }
  return %w#1 : tensor<16x8xf32>
}
