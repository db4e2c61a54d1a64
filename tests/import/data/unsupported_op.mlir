// An op outside the subset (a Cholesky factorization): podsim import must refuse it with its line and column.
module @jit_h attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<16x8xbf16>) {
    %0 = stablehlo.tanh %arg0 : tensor<16x8xbf16>
    %1 = stablehlo.cholesky %0, lower = true : tensor<16x8xbf16>
    return %1 : tensor<16x8xbf16>
  }
}
