// The ops around attention as frontends write them (linalg generics: a
// row reduction, then elementwise generics that read its per-row result),
// on the systolic target's vector unit, against the fp64 oracle: each
// reduction over the last loop is a kernel of rowsum / rowmax accumulated
// across strips (SystolicElementwise.h), the rest elementwise kernels
// (per-row values as one column, rsqrt the unit's rsqrt). RMSNorm,
// LayerNorm (a reduction that reads the mean as a column), a softmax
// written out (max from a -inf fill, exp, sum, divide), a sum from a
// non-neutral fill (combined at the end), a bf16 RMSNorm, the bf16
// RMSNorm as PyTorch writes it (x * rsqrt(..) rounded to bf16 in the
// middle of the body, the unit's round_bf16, then the bf16 weight's
// product) and round_bf16 alone (bit for bit: the oracle replays the
// rounding of exact inputs, ties and all), and bf16 arithmetic whose
// intermediate (a bf16 sum read by a product) is rounded as the IR says,
// bit for bit. Three machines:
// the default, a 2 KiB accumulator, 8x8 with 4 lanes.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="acc-kib=2" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 9 of 9 functions passed

#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
#col2 = affine_map<(i, j) -> (j)>
#id1 = affine_map<(i) -> (i)>

func.func @rmsnorm(%x: tensor<19x72xf32>, %w: tensor<72xf32>) -> tensor<19x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<19xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<19xf32>) -> tensor<19xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<19x72xf32>) outs(%f0 : tensor<19xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<19xf32>
  %e1 = tensor.empty() : tensor<19xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%ss : tensor<19xf32>) outs(%e1 : tensor<19xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.constant 72.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %v, %d : f32
    %ve = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %ve : f32
    linalg.yield %rs : f32
  } -> tensor<19xf32>
  %e2 = tensor.empty() : tensor<19x72xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<19x72xf32>, tensor<19xf32>, tensor<72xf32>) outs(%e2 : tensor<19x72xf32>) {
  ^bb0(%a: f32, %rr: f32, %ww: f32, %o: f32):
    %t = arith.mulf %a, %rr : f32
    %u = arith.mulf %t, %ww : f32
    linalg.yield %u : f32
  } -> tensor<19x72xf32>
  return %y : tensor<19x72xf32>
}

func.func @layernorm(%x: tensor<2x9x40xf32>, %w: tensor<40xf32>, %b: tensor<40xf32>) -> tensor<2x9x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x9xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x9xf32>) -> tensor<2x9xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x9x40xf32>) outs(%f0 : tensor<2x9xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x9xf32>
  %e1 = tensor.empty() : tensor<2x9xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(b, i) -> (b, i)>, affine_map<(b, i) -> (b, i)>], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<2x9xf32>) outs(%e1 : tensor<2x9xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.constant 40.0 : f32
    %m = arith.divf %v, %d : f32
    linalg.yield %m : f32
  } -> tensor<2x9xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %mean : tensor<2x9x40xf32>, tensor<2x9xf32>) outs(%f0 : tensor<2x9xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %c = arith.subf %a, %m : f32
    %c2 = arith.mulf %c, %c : f32
    %s = arith.addf %acc, %c2 : f32
    linalg.yield %s : f32
  } -> tensor<2x9xf32>
  %e2 = tensor.empty() : tensor<2x9x40xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean, %sq, %w, %b : tensor<2x9x40xf32>, tensor<2x9xf32>, tensor<2x9xf32>, tensor<40xf32>, tensor<40xf32>) outs(%e2 : tensor<2x9x40xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %ww: f32, %bb: f32, %o: f32):
    %d = arith.constant 40.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %var = arith.divf %v, %d : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %c = arith.subf %a, %m : f32
    %n = arith.mulf %c, %rs : f32
    %t = arith.mulf %n, %ww : f32
    %u = arith.addf %t, %bb : f32
    linalg.yield %u : f32
  } -> tensor<2x9x40xf32>
  return %y : tensor<2x9x40xf32>
}

func.func @softmax_written_out(%x: tensor<13x50xf32>) -> tensor<13x50xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<13xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<13xf32>) -> tensor<13xf32>
  %mx = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<13x50xf32>) outs(%fm : tensor<13xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<13xf32>
  %e1 = tensor.empty() : tensor<13x50xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mx : tensor<13x50xf32>, tensor<13xf32>) outs(%e1 : tensor<13x50xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<13x50xf32>
  %e2 = tensor.empty() : tensor<13xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e2 : tensor<13xf32>) -> tensor<13xf32>
  %sm = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<13x50xf32>) outs(%fs : tensor<13xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<13xf32>
  %e3 = tensor.empty() : tensor<13x50xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%ex, %sm : tensor<13x50xf32>, tensor<13xf32>) outs(%e3 : tensor<13x50xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %v = arith.divf %a, %s : f32
    linalg.yield %v : f32
  } -> tensor<13x50xf32>
  return %y : tensor<13x50xf32>
}

// A sum that starts from 1.5 (not the neutral 0): added at the end.
func.func @sum_from_fill(%x: tensor<6x33xf32>) -> tensor<6xf32> {
  %c = arith.constant 1.5 : f32
  %e0 = tensor.empty() : tensor<6xf32>
  %f0 = linalg.fill ins(%c : f32) outs(%e0 : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x33xf32>) outs(%f0 : tensor<6xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<6xf32>
  return %s : tensor<6xf32>
}

func.func @rmsnorm_bf16(%x: tensor<8x64xbf16>, %w: tensor<64xbf16>) -> tensor<8x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xbf16>) outs(%f0 : tensor<8xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %af = arith.extf %a : bf16 to f32
    %m = arith.mulf %af, %af : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x64xbf16>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %ss, %w : tensor<8x64xbf16>, tensor<8xf32>, tensor<64xbf16>) outs(%e2 : tensor<8x64xbf16>) {
  ^bb0(%a: bf16, %v: f32, %ww: bf16, %o: bf16):
    %d = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %v, %d : f32
    %ve = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %ve : f32
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %ww : bf16 to f32
    %t = arith.mulf %af, %rs : f32
    %u = arith.mulf %t, %wf : f32
    %ub = arith.truncf %u : f32 to bf16
    linalg.yield %ub : bf16
  } -> tensor<8x64xbf16>
  return %y : tensor<8x64xbf16>
}

// Nothing to reduce: the initial value.
func.func @sum_of_nothing(%x: tensor<5x0xf32>) -> tensor<5xf32> {
  %c = arith.constant 1.5 : f32
  %e0 = tensor.empty() : tensor<5xf32>
  %f0 = linalg.fill ins(%c : f32) outs(%e0 : tensor<5xf32>) -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<5x0xf32>) outs(%f0 : tensor<5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<5xf32>
  return %s : tensor<5xf32>
}

func.func @rmsnorm_bf16_torch(%x: tensor<8x64xbf16>, %w: tensor<64xbf16>) -> tensor<8x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xbf16>) outs(%f0 : tensor<8xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %af = arith.extf %a : bf16 to f32
    %m = arith.mulf %af, %af : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x64xbf16>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %ss, %w : tensor<8x64xbf16>, tensor<8xf32>, tensor<64xbf16>) outs(%e2 : tensor<8x64xbf16>) {
  ^bb0(%a: bf16, %v: f32, %ww: bf16, %o: bf16):
    %d = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %v, %d : f32
    %ve = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %ve : f32
    %af = arith.extf %a : bf16 to f32
    %t = arith.mulf %af, %rs : f32
    %tb = arith.truncf %t : f32 to bf16
    %u = arith.mulf %tb, %ww : bf16
    linalg.yield %u : bf16
  } -> tensor<8x64xbf16>
  return %y : tensor<8x64xbf16>
}

func.func @round_bf16(%x: tensor<21x40xf32>) -> tensor<21x40xf32> {
  %e = tensor.empty() : tensor<21x40xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<21x40xf32>) outs(%e : tensor<21x40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %a : f32 to bf16
    %f = arith.extf %t : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<21x40xf32>
  return %y : tensor<21x40xf32>
}

func.func @bf16_arith(%a: tensor<8x40xbf16>, %b: tensor<8x40xbf16>, %c: tensor<8x40xbf16>) -> tensor<8x40xbf16> {
  %e = tensor.empty() : tensor<8x40xbf16>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c : tensor<8x40xbf16>, tensor<8x40xbf16>, tensor<8x40xbf16>) outs(%e : tensor<8x40xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %r: bf16, %o: bf16):
    %s = arith.addf %p, %q : bf16
    %t = arith.mulf %s, %r : bf16
    linalg.yield %t : bf16
  } -> tensor<8x40xbf16>
  return %y : tensor<8x40xbf16>
}
