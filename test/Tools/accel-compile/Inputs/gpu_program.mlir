// Functions for test/Tools/accel-compile/gpu-host.test: a Llama MLP block
// (three kernels, two temporaries), two RMSNorm + projection layers (four
// kernels, three temporaries: the third can take the first's place in the
// workspace) and one matmul with its epilogue (one kernel, no workspace).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @mlp_block(%x: tensor<24x128xf32>, %wg: tensor<128x344xf32>, %wu: tensor<128x344xf32>, %wd: tensor<344x128xf32>) -> tensor<24x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x344xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<24x344xf32>) -> tensor<24x344xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<24x128xf32>, tensor<128x344xf32>) outs(%z : tensor<24x344xf32>) -> tensor<24x344xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<24x128xf32>, tensor<128x344xf32>) outs(%z : tensor<24x344xf32>) -> tensor<24x344xf32>
  %e1 = tensor.empty() : tensor<24x344xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<24x344xf32>, tensor<24x344xf32>) outs(%e1 : tensor<24x344xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %a, %d : f32
    %out = arith.mulf %s, %b : f32
    linalg.yield %out : f32
  } -> tensor<24x344xf32>
  %e2 = tensor.empty() : tensor<24x128xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x128xf32>) -> tensor<24x128xf32>
  %dn = linalg.matmul ins(%h, %wd : tensor<24x344xf32>, tensor<344x128xf32>) outs(%z2 : tensor<24x128xf32>) -> tensor<24x128xf32>
  %e3 = tensor.empty() : tensor<24x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dn, %x : tensor<24x128xf32>, tensor<24x128xf32>) outs(%e3 : tensor<24x128xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %s = arith.addf %a, %r : f32
    linalg.yield %s : f32
  } -> tensor<24x128xf32>
  return %y : tensor<24x128xf32>
}

// bf16: y = rmsnorm(x) W + x, the norm's output a bf16 temporary that the
// projection (mma.sync; the residual add its epilogue) reads.

// y = rmsnorm(rmsnorm(x) W1) W2 in f16, the products in f32.
func.func @two_layers(%x: tensor<32x64xf16>, %w1: tensor<64x96xf16>, %w2: tensor<96x64xf16>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<32xf32>) -> tensor<32xf32>
  %ss0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x64xf16>) outs(%z0 : tensor<32xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %af = arith.extf %a : f16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e1 = tensor.empty() : tensor<32x64xf16>
  %n0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss0 : tensor<32x64xf16>, tensor<32xf32>) outs(%e1 : tensor<32x64xf16>) {
  ^bb0(%a: f16, %s: f32, %o: f16):
    %c = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %af = arith.extf %a : f16 to f32
    %mean = arith.divf %s, %c : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %af, %r : f32
    %t = arith.truncf %xr : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x64xf16>
  %e2 = tensor.empty() : tensor<32x96xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %p = linalg.matmul ins(%n0, %w1 : tensor<32x64xf16>, tensor<64x96xf16>) outs(%z2 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %e3 = tensor.empty() : tensor<32xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<32xf32>) -> tensor<32xf32>
  %ss1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<32x96xf32>) outs(%z3 : tensor<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e4 = tensor.empty() : tensor<32x96xf16>
  %n1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %ss1 : tensor<32x96xf32>, tensor<32xf32>) outs(%e4 : tensor<32x96xf16>) {
  ^bb0(%a: f32, %s: f32, %o: f16):
    %c = arith.constant 96.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %s, %c : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %a, %r : f32
    %t = arith.truncf %xr : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x96xf16>
  %e5 = tensor.empty() : tensor<32x64xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y = linalg.matmul ins(%n1, %w2 : tensor<32x96xf16>, tensor<96x64xf16>) outs(%z5 : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

// relu(A B + bias): one kernel, the epilogue in it.
func.func @projection(%a: tensor<48x64xf16>, %b: tensor<64x80xf16>, %bias: tensor<80xf32>) -> tensor<48x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x80xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<48x80xf32>) -> tensor<48x80xf32>
  %p = linalg.matmul ins(%a, %b : tensor<48x64xf16>, tensor<64x80xf16>) outs(%z : tensor<48x80xf32>) -> tensor<48x80xf32>
  %e1 = tensor.empty() : tensor<48x80xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<48x80xf32>, tensor<80xf32>) outs(%e1 : tensor<48x80xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<48x80xf32>
  return %y : tensor<48x80xf32>
}
