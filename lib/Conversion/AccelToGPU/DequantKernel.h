//===- DequantKernel.h - weight-only quantised matmul on the GPU -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The GPU kernel of accel.dequant_matmul (int4/int8 weights with group
// scales and zero points, f32/f16/bf16 activations), for the decode steps
// it is made for (1-16 rows of A): a GEMV-style kernel on the CUDA cores
// (SIMT), the same on NVIDIA and AMD. Each warp takes rows of W (output
// channels) and streams them along K in coalesced 16-byte loads a lane,
// dequantises in registers exactly as the op defines
// (f32(f32(q - z) * s)), multiplies by the rows of A its block holds in f32
// FMAs and sums the lanes by xor shuffles. The integers become f32 by the
// exponent trick (q | 0x4B000000 read as f32, less 2^23), an OR and an FADD
// at full rate, where an int-to-float conversion runs at a quarter of the
// FMA rate on these chips.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_DEQUANTKERNEL_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_DEQUANTKERNEL_H

#include "KernelConfig.h"
#include "llvm/ADT/DenseMap.h"
#include <string>

namespace mlir::accel {

/// Emits the kernel of `op` named `name` at `b`'s insertion point (in a
/// gpu.module), configured by `k` (planGpuDequant); `bufferOf` names the
/// host buffers. Its parameters: A [rows, K], W [N, K * bits / 8] (i8),
/// scales and zero points [N, K / group], C [rows, N], the batch
/// dimensions flattened into rows; `accel.launch` says
/// `kind = "dequant"`. Nothing for an empty C.
void emitGpuDequantKernel(OpBuilder &b, DequantMatmulOp op, StringRef name,
                          const GpuDequantPlan &k,
                          const llvm::DenseMap<Value, std::string> &bufferOf,
                          const GpuTargetInfo &target);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_DEQUANTKERNEL_H
