// accel-gpu-configure: the configuration stage attaches the choice of the
// model for the chip to every matmul and attention, without emitting code;
// the pass options override the model; configuring configured IR changes
// nothing (the conversion reads the configs back through the same
// functions). Configs written by hand: lowering-config.mlir.
//
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_90a" | FileCheck %s --check-prefix=SM90A
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: accel-opt %s --accel-gpu-configure="chip=gfx942" | FileCheck %s --check-prefix=MFMA
// RUN: accel-opt %s --accel-gpu-configure="chip=gfx1100" | FileCheck %s --check-prefix=WMMA
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_90a mma=mma.sync tile-m=64 tile-n=32 stages=4" | FileCheck %s --check-prefix=OPTS
// The tile and warps options are the GEMM kernels': attention keeps its own.
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_80 warps=8 tile-m=32" | FileCheck %s --check-prefix=GEMM-OPTS
//
// The stage is deterministic and a fixpoint: run twice, the same module.
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_90a" -o %t.once.mlir
// RUN: accel-opt %t.once.mlir --accel-gpu-configure="chip=sm_90a" -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: accel-opt %s --accel-gpu-configure="chip=gfx942" -o %t.amd.once.mlir
// RUN: accel-opt %t.amd.once.mlir --accel-gpu-configure="chip=gfx942" -o %t.amd.twice.mlir
// RUN: diff %t.amd.once.mlir %t.amd.twice.mlir

// Large enough to fill every multiprocessor with 128x256 tiles: wgmma on
// sm_90a, the large mma.sync tile elsewhere.
// SM90A-LABEL: func.func @big_bf16
// SM90A: accel.lowering_config = #accel.lowering_config<kernel = "wgmma", tile = [128, 256, 64], warps = [8, 1], mma = [64, 256, 16], stages = 4>
// GEMM-OPTS-LABEL: func.func @big_bf16
// GEMM-OPTS: #accel.lowering_config<kernel = "mma.sync", tile = [32, 128, 32], warps = [1, 8], mma = [16, 8, 16], stages = 3>
// SM80-LABEL: func.func @big_bf16
// SM80: accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [128, 128, 32], warps = [2, 4], mma = [16, 8, 16], stages = 3>
// MFMA-LABEL: func.func @big_bf16
// MFMA: accel.lowering_config = #accel.lowering_config<kernel = "mfma", tile = [128, 128, 32], warps = [2, 2], mma = [16, 16, 16], stages = 2>
// WMMA-LABEL: func.func @big_bf16
// WMMA: accel.lowering_config = #accel.lowering_config<kernel = "wmma", tile = [128, 128, 32], warps = [2, 4], mma = [16, 16, 16], stages = 2>
// OPTS-LABEL: func.func @big_bf16
// OPTS: accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 32, 32], warps = [4, 2], mma = [16, 8, 16], stages = 4>
func.func @big_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  %c = tensor.empty() : tensor<4096x4096xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

// Too small for the large tiles; K = 64 fits one wgmma slice (2 stages).
// SM90A-LABEL: func.func @small_f16
// SM90A: #accel.lowering_config<kernel = "wgmma", tile = [128, 128, 64], warps = [8, 1], mma = [64, 128, 16], stages = 2>
// SM80-LABEL: func.func @small_f16
// SM80: #accel.lowering_config<kernel = "mma.sync", tile = [64, 64, 32], warps = [2, 2], mma = [16, 8, 16], stages = 3>
// MFMA-LABEL: func.func @small_f16
// MFMA: #accel.lowering_config<kernel = "mfma", tile = [64, 64, 32], warps = [2, 2], mma = [16, 16, 16], stages = 2>
func.func @small_f16(%a: tensor<100x64xf16>, %b: tensor<64x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf16>, tensor<64x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

// Attention: the warpgroup-MMA kernel (128 x 128 blocks, 8 warps) on sm_90a
// for head dimensions of 64 multiples, FlashAttention-2 on mma.sync (64 x 64,
// 4 warps, 2 stages) elsewhere, one LDS buffer on AMD.
// SM90A-LABEL: func.func @attention
// SM90A: #accel.lowering_config<kernel = "wgmma", tile = [128, 128], warps = [8], stages = 2>
// GEMM-OPTS-LABEL: func.func @attention
// GEMM-OPTS: #accel.lowering_config<kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 16], stages = 2>
// SM80-LABEL: func.func @attention
// SM80: #accel.lowering_config<kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 16], stages = 2>
// MFMA-LABEL: func.func @attention
// MFMA: #accel.lowering_config<kernel = "mfma", tile = [64, 64], warps = [4], mma = [16, 16, 16], stages = 1>
// WMMA-LABEL: func.func @attention
// WMMA: #accel.lowering_config<kernel = "wmma", tile = [64, 64], warps = [4], mma = [16, 16, 16], stages = 1>
func.func @attention(%q: tensor<1x8x1024x128xf16>, %k: tensor<1x8x1024x128xf16>, %v: tensor<1x8x1024x128xf16>) -> tensor<1x8x1024x128xf16> {
  %o = tensor.empty() : tensor<1x8x1024x128xf16>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x8x1024x128xf16>, tensor<1x8x1024x128xf16>, tensor<1x8x1024x128xf16>) outs(%o : tensor<1x8x1024x128xf16>) -> tensor<1x8x1024x128xf16>
  return %0 : tensor<1x8x1024x128xf16>
}

// Private functions are not compiled, so not configured.
// SM90A-LABEL: func.func private @helper
// SM90A-NOT: lowering_config
func.func private @helper(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
