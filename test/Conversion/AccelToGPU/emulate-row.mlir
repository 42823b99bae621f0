// REQUIRES: numpy
// The ops around attention on the GPUs: row reductions with the generics
// that read them become one row kernel (a block a row; RowKernel.h):
// RMSNorm (f32, and bf16 over [batch, seq, d]), LayerNorm as frontends
// write it (sum, a 1-D mean, a variance reduction, the affine output),
// linalg.softmax (raised to accel.softmax, then the linalg lowering's
// generics), a frontend's softmax generics with a fully masked row (zeros),
// a softmax over the first dimension (strided columns), rows narrower than
// a warp, a max by maxnumf, and a norm that also returns its per-row
// statistic, the largest of exp(x) * w (a maximum of inexact terms, which
// the oracle bounds by the largest term's error). Checked against the fp64 oracle of the whole function through
// the kernel emulator on NVIDIA and both AMD wave sizes (record, launch,
// replay: emulate-epilogue.mlir describes the round trip), and on the CPU.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --accel-decompose-softmax --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --accel-decompose-softmax --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --accel-decompose-softmax --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// Normal inputs (another seed) on sm_80.
// RUN: rm -rf %t.rec2
// RUN: accel-run %s --target=nvptx --record=%t.rec2 --dist=normal --seed=7 | FileCheck %s --check-prefix=REC
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec2 | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec2 --dist=normal --seed=7 | FileCheck %s
// The cross-warp combination needs its barrier: without it the race
// detector sees thread 0 read what other warps wrote.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec --drop-barrier 0 2>&1 | FileCheck %s --check-prefix=RACE
// The whole back ends take them.
// RUN: accel-opt %s --accel-nvptx-pipeline="chip=sm_90a" -o /dev/null
// RUN: accel-opt %s --accel-amdgpu-pipeline="chip=gfx942" -o /dev/null

// REC: accel-run: recorded 10 functions

// LAUNCH-COUNT-10: launched
// LAUNCH-NOT: FAILED

// RACE: @rmsnorm_row0: FAILED: shared-memory race (RAW)

// CHECK-LABEL: @rmsnorm
// CHECK: PASS
// CHECK-LABEL: @rmsnorm_bf16
// CHECK: PASS
// CHECK-LABEL: @layernorm
// CHECK: PASS
// CHECK-LABEL: @softmax_rows
// CHECK: PASS
// CHECK-LABEL: @softmax_masked
// CHECK: PASS
// CHECK-LABEL: @softmax_columns
// CHECK: PASS
// CHECK-LABEL: @narrow_rows
// CHECK: PASS
// CHECK-LABEL: @row_max
// CHECK: PASS
// CHECK-LABEL: @rmsnorm_with_rstd
// CHECK: PASS
// CHECK-LABEL: @max_of_exp
// CHECK: PASS
// CHECK: accel-run: 10 of 10 functions passed

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>

// y = x * rsqrt(mean(x^2) + eps) * w over rows of 512 (77 rows).
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

// Llama's RMSNorm in bf16 over [batch, seq, d] = [2, 37, 1000]: the squares
// summed in f32, the output rounded to bf16 (74 rows; 1000 columns leave
// the last round of 256 threads partial).
func.func @rmsnorm_bf16(%x: tensor<2x37x1000xbf16>, %w: tensor<1000xbf16>) -> tensor<2x37x1000xbf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x37xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x37xf32>) -> tensor<2x37xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x37x1000xbf16>) outs(%z : tensor<2x37xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<2x37xf32>
  %e1 = tensor.empty() : tensor<2x37x1000xbf16>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<2x37x1000xbf16>, tensor<2x37xf32>, tensor<1000xbf16>) outs(%e1 : tensor<2x37x1000xbf16>) {
  ^bb0(%a: bf16, %s: f32, %g: bf16, %o: bf16):
    %n = arith.constant 1000.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %af = arith.extf %a : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %af, %r : f32
    %out = arith.mulf %xr, %gf : f32
    %t = arith.truncf %out : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x37x1000xbf16>
  return %y : tensor<2x37x1000xbf16>
}

// LayerNorm as frontends write it: a sum, the mean as a 1-D generic (read
// by two reductions' consumers), the variance of x - mean, the output.
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
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
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

// linalg.softmax over rows of 1000: accel.softmax, then its generics.
func.func @softmax_rows(%x: tensor<20x1000xf32>) -> tensor<20x1000xf32> {
  %e = tensor.empty() : tensor<20x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<20x1000xf32>) outs(%e : tensor<20x1000xf32>) -> tensor<20x1000xf32>
  return %y : tensor<20x1000xf32>
}

// A frontend's softmax in generics, rows of 300, row 3 masked to -inf
// everywhere (a fully masked row: the max is -inf, replaced by 0 before the
// exp, so the row is 0, never NaN) and a causal band elsewhere.
func.func @softmax_masked(%x: tensor<9x300xf32>) -> tensor<9x300xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<9x300xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<9x300xf32>) outs(%e : tensor<9x300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %band = arith.muli %i, %c32 : index
    %late = arith.cmpi ugt, %j, %band : index
    %row3 = arith.cmpi eq, %i, %c3 : index
    %drop = arith.ori %late, %row3 : i1
    %v = arith.select %drop, %ninf, %a : f32
    linalg.yield %v : f32
  } -> tensor<9x300xf32>
  %e0 = tensor.empty() : tensor<9xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<9xf32>) -> tensor<9xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<9x300xf32>) outs(%f : tensor<9xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<9xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %max : tensor<9x300xf32>, tensor<9xf32>) outs(%e : tensor<9x300xf32>) {
  ^bb0(%a: f32, %mx: f32, %o: f32):
    %isinf = arith.cmpf oeq, %mx, %ninf : f32
    %safe = arith.select %isinf, %zero, %mx : f32
    %d = arith.subf %a, %safe : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<9x300xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<9xf32>) -> tensor<9xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<9x300xf32>) outs(%z : tensor<9xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<9xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<9x300xf32>, tensor<9xf32>) outs(%e : tensor<9x300xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %zs = arith.cmpf oeq, %s, %zero : f32
    %q = arith.divf %a, %s : f32
    %r = arith.select %zs, %zero, %q : f32
    linalg.yield %r : f32
  } -> tensor<9x300xf32>
  return %y : tensor<9x300xf32>
}

// A softmax over the first dimension: each of 48 "rows" is a column of 130
// elements, read with a stride.
func.func @softmax_columns(%x: tensor<130x48xf32>) -> tensor<130x48xf32> {
  %e = tensor.empty() : tensor<130x48xf32>
  %y = linalg.softmax dimension(0) ins(%x : tensor<130x48xf32>) outs(%e : tensor<130x48xf32>) -> tensor<130x48xf32>
  return %y : tensor<130x48xf32>
}

// Rows of 24, narrower than a warp: one warp a row, some lanes idle; the
// output cast to f16.
func.func @narrow_rows(%x: tensor<50x24xf32>) -> tensor<50x24xf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<50xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<50xf32>) -> tensor<50xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<50x24xf32>) outs(%z : tensor<50xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %ab = math.absf %a : f32
    %s = arith.addf %ab, %acc : f32
    linalg.yield %s : f32
  } -> tensor<50xf32>
  %e1 = tensor.empty() : tensor<50x24xf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<50x24xf32>, tensor<50xf32>) outs(%e1 : tensor<50x24xf16>) {
  ^bb0(%a: f32, %s: f32, %o: f16):
    %q = arith.divf %a, %s : f32
    %t = arith.truncf %q : f32 to f16
    linalg.yield %t : f16
  } -> tensor<50x24xf16>
  return %y : tensor<50x24xf16>
}

// The largest of each row of 2049 by maxnumf, started from a bias (the
// reduction's init read from memory), returned as a 1-D result.
func.func @row_max(%x: tensor<6x2049xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x2049xf32>) outs(%b : tensor<6xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maxnumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  return %max : tensor<6xf32>
}

// An RMSNorm that also returns each row's rsqrt(mean(x^2) + eps): a row
// output stored by one thread, the full one by all.
func.func @rmsnorm_with_rstd(%x: tensor<33x128xf32>) -> (tensor<33x128xf32>, tensor<33xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<33xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<33xf32>) -> tensor<33xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<33x128xf32>) outs(%z : tensor<33xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<33xf32>
  %rstd = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%ss : tensor<33xf32>) outs(%e0 : tensor<33xf32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.constant 128.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<33xf32>
  %e1 = tensor.empty() : tensor<33x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %rstd : tensor<33x128xf32>, tensor<33xf32>) outs(%e1 : tensor<33x128xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %out = arith.mulf %a, %r : f32
    linalg.yield %out : f32
  } -> tensor<33x128xf32>
  return %y, %rstd : tensor<33x128xf32>, tensor<33xf32>
}

// The largest of exp(x) * w over rows of 700, in bf16 out: the terms carry
// the exp's error, and the maximum is within the largest of them.
func.func @max_of_exp(%x: tensor<12x700xf32>, %w: tensor<700xf32>) -> tensor<12xbf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<12xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<12xf32>) -> tensor<12xf32>
  %max = linalg.generic {indexing_maps = [#id, #col, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<12x700xf32>, tensor<700xf32>) outs(%f : tensor<12xf32>) {
  ^bb0(%a: f32, %g: f32, %acc: f32):
    %ex = math.exp %a : f32
    %t = arith.mulf %ex, %g : f32
    %r = arith.maximumf %acc, %t : f32
    linalg.yield %r : f32
  } -> tensor<12xf32>
  %e1 = tensor.empty() : tensor<12xbf16>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%max : tensor<12xf32>) outs(%e1 : tensor<12xbf16>) {
  ^bb0(%m: f32, %o: bf16):
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<12xbf16>
  return %y : tensor<12xbf16>
}
