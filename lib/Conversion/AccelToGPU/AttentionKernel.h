//===- AttentionKernel.h - accel.attention to a GPU kernel ------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The FlashAttention-2 forward kernel of convert-accel-to-gpu: each
// accel.attention of a function becomes one gpu.func (AttentionKernel.cpp
// has the algorithm). AccelToGPU.cpp hands it the functions that hold an
// attention.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNEL_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include <cstdint>

namespace mlir::accel {

class GpuTargetInfo;
struct GpuConfigOverrides;

/// Whether `func` holds an accel.attention (it is then compiled by
/// convertGpuAttentionFunction, not by the matmul path).
bool hasGpuAttention(func::FuncOp func);

/// Replaces `func`, a function of accel.attention ops on static tensors,
/// with `gpu.module @<func>_kernels` holding one kernel per attention;
/// each kernel is configured by the op's accel.lowering_config, else by the
/// configuration stage with `options` (KernelConfig.h). Emits a located error and fails (leaving the
/// module unchanged) on anything it does not compile.
LogicalResult convertGpuAttentionFunction(func::FuncOp func,
                                          const GpuTargetInfo &target,
                                          const GpuConfigOverrides &options);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNEL_H
