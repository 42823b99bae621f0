// Hand-written configs for AMD chips: the vendor's kernels only, the chip's
// own family only, and the attention kernel's single LDS buffer.
//
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-gpu-configure="chip=gfx942"
// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu="chip=gfx942"

func.func @nvidia_kernel(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config for the mma.sync kernel, which amdgpu chips do not have}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync">} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @rdna_kernel(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config for the wmma kernel; gfx942 has no wmma instructions (its matrix instruction is mfma)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "wmma">} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @lds_stages(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{stages = 3 does not apply to gfx942: its kernel double-buffers LDS (stages = 2)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mfma", stages = 3>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @attention_stages(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tensor.empty() : tensor<1x2x128x64xf16>
  // expected-error @below {{stages = 2 does not apply to gfx942: its attention kernel keeps one LDS buffer of K and V}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>) {accel.lowering_config = #accel.lowering_config<kernel = "mfma", stages = 2>} -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}

// -----

// An AMD part with less LDS than the attention kernel's K and V buffers
// (2 x 128 x 136 + ... = 35840 bytes at D = Dv = 128).
module attributes {accel.target = #accel.target<name = "small-lds", kind = amdgpu, chip = "gfx942", compute_units = 304, peak_f16 = 100.0, local_memory_kib = 32, warp_size = 64>} {
  func.func @attention(%q: tensor<1x2x128x128xf16>, %k: tensor<1x2x128x128xf16>, %v: tensor<1x2x128x128xf16>) -> tensor<1x2x128x128xf16> {
    %o = tensor.empty() : tensor<1x2x128x128xf16>
    // expected-error @below {{needs 35840 bytes of LDS (K [64][128 + 8] and V transposed [128][64 + 8]); gfx942 has 32768 per workgroup}}
    %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x128xf16>, tensor<1x2x128x128xf16>, tensor<1x2x128x128xf16>) outs(%o : tensor<1x2x128x128xf16>) -> tensor<1x2x128x128xf16>
    return %0 : tensor<1x2x128x128xf16>
  }
}
