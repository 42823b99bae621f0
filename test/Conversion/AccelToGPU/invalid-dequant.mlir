// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu=chip=sm_80
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-gpu-configure=chip=sm_80
// What the GPU kernel of accel.dequant_matmul (DequantKernel.h) does not
// take, each a located error of the configuration stage (planGpuDequant),
// which both passes report: dynamic shapes, a hand-written lowering_config
// (the stage alone configures the kernel), and more rows than the chip's
// grid holds (16 rows of A a block along y).

func.func @dynamic_rows(%a: tensor<?x64xbf16>, %w: tensor<32x32xi8>, %s: tensor<32x1xbf16>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @below {{'accel.dequant_matmul' op needs static shapes on the GPU target (A is 'tensor<?x64xbf16>')}}
  %0 = accel.dequant_matmul bits(4) group(64) ins(%a, %w : tensor<?x64xbf16>, tensor<32x32xi8>) scales(%s : tensor<32x1xbf16>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

func.func @config(%a: tensor<4x64xbf16>, %w: tensor<32x32xi8>, %s: tensor<32x1xbf16>) -> tensor<4x32xf32> {
  %c = tensor.empty() : tensor<4x32xf32>
  // expected-error @below {{'accel.dequant_matmul' op has a lowering_config; the GPU kernel of a dequant_matmul is configured by the stage alone (it has no tiles to choose)}}
  %0 = accel.dequant_matmul bits(4) group(64) ins(%a, %w : tensor<4x64xbf16>, tensor<32x32xi8>) scales(%s : tensor<32x1xbf16>) outs(%c : tensor<4x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 64, 32]>} -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

func.func @grid(%a: tensor<1100000x32xbf16>, %w: tensor<32x16xi8>, %s: tensor<32x1xbf16>) -> tensor<1100000x32xf32> {
  %c = tensor.empty() : tensor<1100000x32xf32>
  // expected-error @below {{'accel.dequant_matmul' op needs a grid of 8 x 68750 x 1 blocks; sm_80 allows at most 2147483647 x 65535 x 65535}}
  %0 = accel.dequant_matmul bits(4) group(32) ins(%a, %w : tensor<1100000x32xbf16>, tensor<32x16xi8>) scales(%s : tensor<32x1xbf16>) outs(%c : tensor<1100000x32xf32>) -> tensor<1100000x32xf32>
  return %0 : tensor<1100000x32xf32>
}
