// A sharded matmul followed by tanh, in the form jax.jit(f).lower(x, w).as_text() prints with Shardy
// (modelled on the sdy.mesh / #sdy.sharding examples of openxla/shardy's test files; written for podsim).
module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]>
  func.func public @main(%arg0: tensor<1024x4096xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4096x8192xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<1024x8192xbf16> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x4096xbf16>, tensor<4096x8192xbf16>) -> tensor<1024x8192xbf16>
    %1 = stablehlo.tanh %0 : tensor<1024x8192xbf16>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"x"}, {}]> : tensor<1024x8192xbf16>
    return %2 : tensor<1024x8192xbf16>
  }
}
