// bf16 attention on AMX tiles (cpu-flash-amx: Q·Kᵀ and P·V both bf16 x bf16
// -> f32 tile products, P rounded to bf16 before P·V, as FlashAttention
// does) against the fp64 oracle, whose gate then allows the rounding of P
// (u_bf16·max|v|); NaN-prefilled outputs. Query and key counts that no
// 128-block divides, GQA, causal, a head dimension of 128, two threads.
// REQUIRES: cpu-amx
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=7 --dist=normal | FileCheck %s
// NaN logits: the row max ignores or returns them (accel.unordered_max:
// plain vmaxps) and P is rounded by vcvtneps2bf16 (accel.bf16_flush); a NaN
// in K still makes exactly the rows that keep that key NaN, a NaN in Q its
// own row (the oracle propagates them; the check demands NaN exactly there).
// RUN: accel-run %s --entry=gqa_causal --repeat=0 --poison=1:3900:nan | FileCheck %s --check-prefix=NAN
// RUN: accel-run %s --entry=mha --repeat=0 --poison=0:70:nan --poison=1:12000:nan | FileCheck %s --check-prefix=NAN
// NAN: PASS
// NAN: accel-run: 1 of 1 functions passed
// Both products are tile multiplies:
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+avx512bf16,+amx-tile,+amx-bf16" | FileCheck %s --check-prefix=IR
// IR: llvm.x86.tdpbf16ps.internal
// IR-NOT: llvm.x86.avx512bf16.dpbf16ps
// Without AMX the same functions keep P in f32 (cpu-flash), also within the
// (then tighter) gate:
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512bf16 | FileCheck %s

// CHECK-LABEL: @mha
// CHECK: PASS
// CHECK-LABEL: @gqa_causal
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

func.func @mha(%q: tensor<1x4x200x64xbf16>, %k: tensor<1x4x333x64xbf16>, %v: tensor<1x4x333x64xbf16>) -> tensor<1x4x200x64xf32> {
  %o = tensor.empty() : tensor<1x4x200x64xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x4x200x64xbf16>, tensor<1x4x333x64xbf16>, tensor<1x4x333x64xbf16>) outs(%o : tensor<1x4x200x64xf32>) -> tensor<1x4x200x64xf32>
  return %r : tensor<1x4x200x64xf32>
}

func.func @gqa_causal(%q: tensor<1x8x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>) -> tensor<1x8x300x128xf32> {
  %o = tensor.empty() : tensor<1x8x300x128xf32>
  %r = accel.attention causal ins(%q, %k, %v : tensor<1x8x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16>) outs(%o : tensor<1x8x300x128xf32>) -> tensor<1x8x300x128xf32>
  return %r : tensor<1x8x300x128xf32>
}
