// A sharding whose dim list is not closed: podsim import must name the line and column.
module @jit_k attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {]>}) -> (tensor<16x8xbf16>) {
    return %arg0 : tensor<16x8xbf16>
  }
}
