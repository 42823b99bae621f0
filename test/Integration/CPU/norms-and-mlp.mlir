// The ops around attention as frontends write them in linalg (sum
// reductions and elementwise generics): RMSNorm, LayerNorm, SwiGLU, a
// standalone softmax, and a whole SwiGLU MLP block (three matmuls, the
// gate, a residual add), compiled by the CPU pipeline and checked against
// the fp64 oracle, which bounds a sum in any order (gamma_n of its terms'
// magnitudes) and carries each value's bound through rsqrt, exp and the
// divisions (docs/numerics.md).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=2 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// CHECK-LABEL: @rmsnorm
// CHECK: PASS
// CHECK-LABEL: @layernorm
// CHECK: PASS
// CHECK-LABEL: @swiglu
// CHECK: PASS
// CHECK-LABEL: @softmax_rows
// CHECK: PASS
// CHECK-LABEL: @mlp_block
// CHECK: PASS
// CHECK-LABEL: @rmsnorm_rows_in_threads
// CHECK: PASS
// CHECK-LABEL: @swiglu_rows_in_threads
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// y = x * rsqrt(mean(x^2) + eps) * w, over rows of 512 (77 rows: not a
// multiple of any tile).
func.func @rmsnorm(%x: tensor<77x512xf32>, %w: tensor<512xf32>) -> tensor<77x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<77xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<77xf32>) -> tensor<77xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<77x512xf32>) outs(%z : tensor<77xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<77xf32>
  %e1 = tensor.empty() : tensor<77x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<77x512xf32>, tensor<77xf32>, tensor<512xf32>) outs(%e1 : tensor<77x512xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %n = arith.constant 512.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %a, %r : f32
    %out = arith.mulf %xr, %g : f32
    linalg.yield %out : f32
  } -> tensor<77x512xf32>
  return %y : tensor<77x512xf32>
}

// y = (x - mean) * rsqrt(var + eps) * gamma + beta, over rows of 768.
func.func @layernorm(%x: tensor<40x768xf32>, %gamma: tensor<768xf32>, %beta: tensor<768xf32>) -> tensor<40x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<40xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<40xf32>) -> tensor<40xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<40x768xf32>) outs(%z : tensor<40xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<40xf32>
  %e1 = tensor.empty() : tensor<40xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<40xf32>) outs(%e1 : tensor<40xf32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.constant 768.0 : f32
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<40xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<40xf32>) -> tensor<40xf32>
  %var = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<40x768xf32>, tensor<40xf32>) outs(%z2 : tensor<40xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %sq = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<40xf32>
  %e2 = tensor.empty() : tensor<40x768xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %var, %gamma, %beta : tensor<40x768xf32>, tensor<40xf32>, tensor<40xf32>, tensor<768xf32>, tensor<768xf32>) outs(%e2 : tensor<40x768xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %g: f32, %b: f32, %o: f32):
    %n = arith.constant 768.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %d = arith.subf %a, %m : f32
    %vm = arith.divf %v, %n : f32
    %ve = arith.addf %vm, %eps : f32
    %r = math.rsqrt %ve : f32
    %xn = arith.mulf %d, %r : f32
    %sc = arith.mulf %xn, %g : f32
    %out = arith.addf %sc, %b : f32
    linalg.yield %out : f32
  } -> tensor<40x768xf32>
  return %y : tensor<40x768xf32>
}

// silu(gate) * up.
func.func @swiglu(%gate: tensor<33x1000xf32>, %up: tensor<33x1000xf32>) -> tensor<33x1000xf32> {
  %e = tensor.empty() : tensor<33x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<33x1000xf32>, tensor<33x1000xf32>) outs(%e : tensor<33x1000xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %g, %d : f32
    %out = arith.mulf %s, %u : f32
    linalg.yield %out : f32
  } -> tensor<33x1000xf32>
  return %y : tensor<33x1000xf32>
}

// A standalone softmax over rows of 1000.
func.func @softmax_rows(%x: tensor<20x1000xf32>) -> tensor<20x1000xf32> {
  %e = tensor.empty() : tensor<20x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<20x1000xf32>) outs(%e : tensor<20x1000xf32>) -> tensor<20x1000xf32>
  return %y : tensor<20x1000xf32>
}

// A Llama MLP block: down(silu(x Wg) * (x Wu)) + x, 24 tokens, 256 -> 688
// -> 256 (the residual add a cheap epilogue of the last matmul).
func.func @mlp_block(%x: tensor<24x256xf32>, %wg: tensor<256x688xf32>, %wu: tensor<256x688xf32>, %wd: tensor<688x256xf32>) -> tensor<24x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x688xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<24x688xf32>) -> tensor<24x688xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<24x256xf32>, tensor<256x688xf32>) outs(%z : tensor<24x688xf32>) -> tensor<24x688xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<24x256xf32>, tensor<256x688xf32>) outs(%z : tensor<24x688xf32>) -> tensor<24x688xf32>
  %e1 = tensor.empty() : tensor<24x688xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<24x688xf32>, tensor<24x688xf32>) outs(%e1 : tensor<24x688xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %a, %d : f32
    %out = arith.mulf %s, %b : f32
    linalg.yield %out : f32
  } -> tensor<24x688xf32>
  %e2 = tensor.empty() : tensor<24x256xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x256xf32>) -> tensor<24x256xf32>
  %dn = linalg.matmul ins(%h, %wd : tensor<24x688xf32>, tensor<688x256xf32>) outs(%z2 : tensor<24x256xf32>) -> tensor<24x256xf32>
  %e3 = tensor.empty() : tensor<24x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dn, %x : tensor<24x256xf32>, tensor<24x256xf32>) outs(%e3 : tensor<24x256xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %s = arith.addf %a, %r : f32
    linalg.yield %s : f32
  } -> tensor<24x256xf32>
  return %y : tensor<24x256xf32>
}

// Ops of 64 K elements and more: with --num-threads=2 their rows run on
// both threads (accel-cpu-vectorize-elementwise's scf.forall), the
// sums of squares and the normalisation each split by rows.
func.func @rmsnorm_rows_in_threads(%x: tensor<300x512xf32>, %w: tensor<512xf32>) -> tensor<300x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<300xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<300xf32>) -> tensor<300xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<300x512xf32>) outs(%z : tensor<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<300xf32>
  %e1 = tensor.empty() : tensor<300x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<300x512xf32>, tensor<300xf32>, tensor<512xf32>) outs(%e1 : tensor<300x512xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %n = arith.constant 512.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %a, %r : f32
    %out = arith.mulf %xr, %g : f32
    linalg.yield %out : f32
  } -> tensor<300x512xf32>
  return %y : tensor<300x512xf32>
}

func.func @swiglu_rows_in_threads(%gate: tensor<130x1000xf32>, %up: tensor<130x1000xf32>) -> tensor<130x1000xf32> {
  %e = tensor.empty() : tensor<130x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<130x1000xf32>, tensor<130x1000xf32>) outs(%e : tensor<130x1000xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %g, %d : f32
    %out = arith.mulf %s, %u : f32
    linalg.yield %out : f32
  } -> tensor<130x1000xf32>
  return %y : tensor<130x1000xf32>
}
