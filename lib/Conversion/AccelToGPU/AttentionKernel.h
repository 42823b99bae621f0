//===- AttentionKernel.h - accel.attention to a GPU kernel ------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The FlashAttention-2 forward kernel of convert-accel-to-gpu: each
// accel.attention of a function becomes one gpu.func (AttentionKernel.cpp
// has the algorithm), among the function's other kernels (AccelToGPU.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNEL_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNEL_H

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include <string>

namespace mlir::accel {

class GpuTargetInfo;
struct AttentionPlan;
struct GpuEpilogue;

/// Emits the kernel `name` of `op` (planned as `plan`, KernelConfig.h) at
/// `b`'s insertion point, in a gpu.module; `bufferOf` names the host buffer
/// of Q, K, V, the mask and O. With `epilogue` (findGpuEpilogue of `op`),
/// each element of O goes through it and the kernel writes its result
/// instead of O. convert-accel-to-gpu places it among the
/// function's other kernels by what it reads.
void emitGpuAttentionKernel(OpBuilder &b, AttentionOp op, StringRef name,
                            const AttentionPlan &plan,
                            const GpuEpilogue *epilogue,
                            const llvm::DenseMap<Value, std::string> &bufferOf,
                            const GpuTargetInfo &target);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNEL_H
