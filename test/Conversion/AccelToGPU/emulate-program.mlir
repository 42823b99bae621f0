// REQUIRES: numpy
// Functions of several GPU kernels run as one program: accel-run records
// (and on a GPU launches) the function's kernels in their order in its
// gpu.module, on buffers they share by name (arguments, temporaries,
// results), and checks the function's results against the fp64 oracle of
// the whole function. A Llama MLP block of three f32 matmuls (SwiGLU reads
// both the gate's and the up projection's products: it is the epilogue of
// the later one, whose kernel reads the gate's stored product; the down
// projection adds the residual), an RMSNorm before a bf16 projection with
// a residual epilogue, an RMSNorm of a product, and causal attention whose
// output a projection reads (attention and matmuls in one function).
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// A program whose kernels run out of order reads a temporary before it is
// written (NaN-prefilled): the replay fails.
// RUN: %python %S/Inputs/reverse_program.py %t.rec mlp_block
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BROKEN
// The CPU runs the same functions.
// RUN: accel-run %s --repeat=0 | FileCheck %s

// REC: @mlp_block: recorded mlp_block_0, mlp_block_1, mlp_block_2 (7 buffers)
// REC: @norm_then_projection: recorded norm_then_projection_row0, norm_then_projection_0 (5 buffers)
// REC: @norm_of_product: recorded norm_of_product_0, norm_of_product_row0 (4 buffers)
// REC: @attention_then_projection: recorded attention_then_projection_1, attention_then_projection_0 (6 buffers)
// REC: accel-run: recorded 4 functions

// LAUNCH: @mlp_block: program of 3 kernels ran, 3 buffers written
// LAUNCH: @norm_then_projection: program of 2 kernels ran, 2 buffers written
// LAUNCH: @norm_of_product: program of 2 kernels ran, 2 buffers written
// LAUNCH: @attention_then_projection: program of 2 kernels ran, 2 buffers written
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @mlp_block
// CHECK: PASS
// CHECK-LABEL: @norm_then_projection
// CHECK: PASS
// CHECK-LABEL: @norm_of_product
// CHECK: PASS
// CHECK-LABEL: @attention_then_projection
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

// BROKEN-LABEL: @mlp_block
// BROKEN: FAIL
// BROKEN: accel-run: 3 of 4 functions passed

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// down(silu(x Wg) * (x Wu)) + x: 24 tokens, 128 -> 344 -> 128.
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
func.func @norm_then_projection(%x: tensor<40x128xbf16>, %w: tensor<128xbf16>, %wq: tensor<128x128xbf16>) -> tensor<40x128xbf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<40xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<40xf32>) -> tensor<40xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<40x128xbf16>) outs(%z : tensor<40xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<40xf32>
  %e1 = tensor.empty() : tensor<40x128xbf16>
  %n = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<40x128xbf16>, tensor<40xf32>, tensor<128xbf16>) outs(%e1 : tensor<40x128xbf16>) {
  ^bb0(%a: bf16, %s: f32, %g: bf16, %o: bf16):
    %c = arith.constant 128.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %af = arith.extf %a : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %mean = arith.divf %s, %c : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %af, %r : f32
    %out = arith.mulf %xr, %gf : f32
    %t = arith.truncf %out : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<40x128xbf16>
  %e2 = tensor.empty() : tensor<40x128xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<40x128xf32>) -> tensor<40x128xf32>
  %p = linalg.matmul ins(%n, %wq : tensor<40x128xbf16>, tensor<128x128xbf16>) outs(%z2 : tensor<40x128xf32>) -> tensor<40x128xf32>
  %e3 = tensor.empty() : tensor<40x128xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %x : tensor<40x128xf32>, tensor<40x128xbf16>) outs(%e3 : tensor<40x128xbf16>) {
  ^bb0(%a: f32, %r: bf16, %o: bf16):
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %a, %rf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<40x128xbf16>
  return %y : tensor<40x128xbf16>
}

// rmsnorm(A B): the matmul stores its product for the row kernel.
func.func @norm_of_product(%a: tensor<64x96xf16>, %b: tensor<96x320xf16>) -> tensor<64x320xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x320xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x320xf32>) -> tensor<64x320xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x96xf16>, tensor<96x320xf16>) outs(%z : tensor<64x320xf32>) -> tensor<64x320xf32>
  %e0 = tensor.empty() : tensor<64xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<64x320xf32>) outs(%z0 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64x320xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %ss : tensor<64x320xf32>, tensor<64xf32>) outs(%e1 : tensor<64x320xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %n = arith.constant 320.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %ve = arith.addf %mean, %eps : f32
    %r = math.rsqrt %ve : f32
    %out = arith.mulf %v, %r : f32
    linalg.yield %out : f32
  } -> tensor<64x320xf32>
  return %y : tensor<64x320xf32>
}

// Causal attention (2 heads, 64 queries, D = 64) in f16, its output viewed
// as [128, 64] and projected: the attention kernel runs first.
func.func @attention_then_projection(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>, %w: tensor<64x96xf16>) -> tensor<128x96xf32> {
  %o = tensor.empty() : tensor<1x2x64x64xf16>
  %a = accel.attention causal ins(%q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>) outs(%o : tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16>
  %flat = tensor.collapse_shape %a [[0, 1, 2], [3]] : tensor<1x2x64x64xf16> into tensor<128x64xf16>
  %c = tensor.empty() : tensor<128x96xf32>
  %p = accel.matmul ins(%flat, %w : tensor<128x64xf16>, tensor<64x96xf16>) outs(%c : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %p : tensor<128x96xf32>
}
