//===- AccelOps.h - the fp64 oracle of accel ops ----------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The fp64 reference of one accel.matmul, accel.softmax or accel.attention,
// its operands' values given: the op's attributes turned into the
// reference's specs in one place, for accel-run and the structured fuzzer.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_REFERENCE_ACCELOPS_H
#define ACCEL_REFERENCE_ACCELOPS_H

#include "accel/Reference/Reference.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include <functional>

namespace mlir::accel::ref {

/// How the kernel that is checked computes, where the ops leave it open.
struct AccelOpOptions {
  /// Attention rounds the probabilities P to the query's element type
  /// before P·V (the GPU and systolic kernels, and the CPU's bf16
  /// attention on AMX tiles, cpu-flash-amx; otherwise the CPU keeps P in
  /// f32).
  bool roundProbabilities = false;
  /// With roundProbabilities: an attention marked accel.tf32_inputs rounds
  /// P to TF32 (the GPUs' TF32 and xf32 attention kernels) instead of to
  /// its f32 inputs' type.
  bool tf32Probabilities = false;
  /// bf16 matmuls may treat subnormals as zero (MatmulSpec's flag: the CPU
  /// kernels on AVX512-BF16 with `bf16-subnormals=flush`).
  bool flushBf16Subnormals = false;
  /// Matmuls: MatmulSpec::tensorCoreChunk and tensorCoreUnit (the GPU
  /// kernel that sums chunks of K in a reduced-precision tensor core and
  /// promotes them into f32; 0: not used).
  int64_t tensorCoreChunk = 0;
  double tensorCoreUnit = 0;
  /// Matmuls: MatmulSpec::drawRounding (a draw of the sums' roundings
  /// instead of their bound; accel-run's program gate).
  std::function<double()> drawRounding;
};

/// Whether evaluateAccelOp models `op`.
bool isAccelOracleOp(Operation *op);

/// The reference result of `op` (one of isAccelOracleOp's), `get` giving
/// each operand's value. Fails with a located error where the oracle
/// cannot model the op (an attention without a static head dimension or an
/// explicit scale).
FailureOr<Result> evaluateAccelOp(Operation *op,
                                  function_ref<const Tensor &(Value)> get,
                                  const AccelOpOptions &options = {});

} // namespace mlir::accel::ref

#endif // ACCEL_REFERENCE_ACCELOPS_H
