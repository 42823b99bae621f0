// RUN: accel-opt %s --accel-roofline="target=h100" -verify-diagnostics -o /dev/null
// RUN: accel-opt %s --accel-roofline="target=h100 report=%t.txt svg=%t.svg" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=CHECK-TABLE < %t.txt
// RUN: FileCheck %s --check-prefix=CHECK-SVG < %t.svg

// Per op on the H100 (989.4 TFLOP/s bf16/f16, 67 TFLOP/s f32, 3352 GB/s,
// ridge 295.2 FLOP/B for bf16): FLOPs, compulsory bytes, intensity, bound,
// predicted time = max(FLOPs / peak, bytes / bandwidth).

// 2 * 4096^3 = 137.4 GFLOP over 32 + 32 MiB of bf16 A, B and 64 MiB of f32 C
// (134.2 MB): 1024 FLOP/B, compute-bound.
func.func @big_gemm(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  // expected-note @+2 {{tiles on h100: block 128x256x64 (3 stages x (A 128x64 + B 64x256) bf16 = 147456 B of 232448 B shared memory per block on h100; 256 threads; 85.3 FLOP/B from memory); warpgroup 128x128x64 (C 128x128 f32 = 128 accumulator registers per thread}}
  // expected-remark @+1 {{roofline on h100: 137.44 GFLOP, 134.22 MB, 1024.0 FLOP/B, compute-bound (ridge 295.2 FLOP/B), predicted 138.91 us at 989.40 TFLOP/s}}
  %0 = accel.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

// Decode-like GEMV: 2 FLOPs per weight byte pair, memory-bound.
func.func @gemv(%a: tensor<1x8192xbf16>, %b: tensor<8192x8192xbf16>, %c: tensor<1x8192xf32>) -> tensor<1x8192xf32> {
  // expected-note @+2 {{tiles on h100: block 1x2048x16 (3 stages x (A 1x16 + B 16x2048) bf16 = 196704 B of 232448 B shared memory per block on h100; 128 threads}}
  // expected-remark @+1 {{roofline on h100: 134.22 MFLOP, 134.27 MB, 1.0 FLOP/B, memory-bound (ridge 295.2 FLOP/B), predicted 40.06 us at 3.35 TB/s}}
  %0 = accel.matmul ins(%a, %b : tensor<1x8192xbf16>, tensor<8192x8192xbf16>) outs(%c : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  return %0 : tensor<1x8192xf32>
}

// Causal attention counts the kept pairs only: 1024 * 1025 / 2 per head.
func.func @causal_attention(%q: tensor<1x8x1024x64xf16>, %k: tensor<1x8x1024x64xf16>, %v: tensor<1x8x1024x64xf16>, %o: tensor<1x8x1024x64xf16>) -> tensor<1x8x1024x64xf16> {
  // expected-note @+2 {{tiles on h100: block 1x128x128 (Q 1x128x64 + 3 stages x K/V 128x(64+64) = 114688 B of 232448 B shared memory per block on h100; 256 threads; keys in blocks of 128}}
  // expected-remark @+1 {{roofline on h100: 1.10 GFLOP, 4.19 MB, 261.3 FLOP/B, memory-bound (ridge 295.2 FLOP/B), predicted 1.25 us at 3.35 TB/s}}
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x8x1024x64xf16>, tensor<1x8x1024x64xf16>, tensor<1x8x1024x64xf16>) outs(%o : tensor<1x8x1024x64xf16>) -> tensor<1x8x1024x64xf16>
  return %0 : tensor<1x8x1024x64xf16>
}

// A sliding window keeps at most W keys per row: 256 * 257 / 2 + 768 * 256
// pairs per head (the window's cost, not the causal band's).
func.func @window_attention(%q: tensor<1x8x1024x64xf16>, %k: tensor<1x8x1024x64xf16>, %v: tensor<1x8x1024x64xf16>, %o: tensor<1x8x1024x64xf16>) -> tensor<1x8x1024x64xf16> {
  // expected-note @+2 {{tiles on h100}}
  // expected-remark @+1 {{roofline on h100: 479.20 MFLOP, 4.19 MB, 114.3 FLOP/B, memory-bound}}
  %0 = accel.attention causal window(256) ins(%q, %k, %v : tensor<1x8x1024x64xf16>, tensor<1x8x1024x64xf16>, tensor<1x8x1024x64xf16>) outs(%o : tensor<1x8x1024x64xf16>) -> tensor<1x8x1024x64xf16>
  return %0 : tensor<1x8x1024x64xf16>
}

// Dynamic shapes have no estimate.
func.func @dynamic(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-remark @+1 {{roofline on h100: dynamic shapes, no estimate}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<?x64xf32>) outs(%y : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// CHECK-TABLE: roofline on h100
// CHECK-TABLE: # op{{.*}}predicted  tiles
// CHECK-TABLE: 0 accel.matmul{{.*}}137.44 GFLOP{{.*}}134.22 MB{{.*}}1024.0 compute{{.*}}138.91 us  block 128x256x64, warpgroup 128x128x64
// CHECK-TABLE: 1 accel.matmul{{.*}}memory
// CHECK-TABLE: 2 accel.attention{{.*}}1.10 GFLOP
// CHECK-TABLE: 3 accel.attention{{.*}}479.20 MFLOP

// CHECK-SVG: <svg
// CHECK-SVG: <title>Roofline on h100</title>
// CHECK-SVG: <polyline class="roof"
// CHECK-SVG: bf16/f16 roof: 989400.0 GFLOP/s, ridge 295.2 FLOP/B
// CHECK-SVG: <circle class="model"
// CHECK-SVG: 0: accel.matmul (bf16), 137.44 GFLOP, 1024.0 FLOP/B, predicted 989400.00 GFLOP/s</text>
// CHECK-SVG-COUNT-3: <circle class="model"
// CHECK-SVG-NOT: class="measured"
// CHECK-SVG: </svg>
