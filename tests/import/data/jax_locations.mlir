// JAX's as_text() with debug locations (loc(...) suffixes, #loc definitions, mhlo.layout_mode attributes), as
// jax.jit(f).lower(x, w).as_text(debug_info=True) prints it; written for podsim after JAX's printed form.
#loc1 = loc("x")
#loc2 = loc("w")
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]>
  func.func public @main(%arg0: tensor<1024x4096xbf16> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} loc("x"), %arg1: tensor<4096x8192xbf16> {mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>} loc("w")) -> (tensor<1024x8192xbf16> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1024x4096xbf16>, tensor<4096x8192xbf16>) -> tensor<1024x8192xbf16> loc(#loc3)
    %1 = stablehlo.add %0, %0 : tensor<1024x8192xbf16> loc(#loc4)
    return %1 : tensor<1024x8192xbf16> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("jit(f)/dot_general"(#loc2))
