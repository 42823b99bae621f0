//===- SystolicSoftmax.h - accel.softmax on the vector unit -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel.softmax over the last dimension on the systolic target: a kernel of
// the vector unit. Blocks of rows are moved into the accumulator whole (a
// row's strips of the array's width side by side); per block the row
// maximum (rowmax, accumulated across strips), x - max (a -inf max read as
// 0, so a row of -inf gives exp = 0), exp, the row sum (rowsum), the
// division by it (0 for a sum of 0), and mvout (rounding to bf16 for a bf16
// result). Two sets of rows alternate between blocks, so a block's loads
// overlap the previous block's vector work.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICSOFTMAX_H
#define ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICSOFTMAX_H

#include "SystolicEmitter.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::accel {

/// The blocks of a softmax on the vector unit.
struct SystolicSoftmax {
  /// The DRAM values it reads and writes.
  Value input, result;
  /// Rows (all dimensions but the last, flattened) and their length.
  int64_t rows = 0, n = 0;
  /// Strips of the array's width a row takes, rows a block, sets of
  /// accumulator rows alternating between blocks, and partial maxima and
  /// sums a row keeps (strips go round them, so that consecutive
  /// reductions of the in-order unit do not wait for each other's
  /// results), combined at the end.
  int64_t strips = 0, blockRows = 0, sets = 1, partials = 1;
};

/// The kernel of `op` on `machine`; a located error naming the op and why
/// when the vector unit cannot run it (a dimension other than the last,
/// element types other than f32 and bf16, dynamic shapes, a row longer
/// than the accumulator holds).
FailureOr<SystolicSoftmax>
analyzeSystolicSoftmax(SoftmaxOp op, const ::sysarray::MachineConfig &machine);

/// The model's cycles for the kernel (per block the slowest of the load
/// queue, the store queue and the vector unit).
double predictSystolicSoftmaxCycles(const SystolicSoftmax &k,
                                    const ::sysarray::MachineConfig &machine);

/// Emits the kernel: `inRows` and `outRows` are the input's and the
/// result's rows (every dimension but the last flattened) in DRAM.
void emitSystolicSoftmax(systolic_emit::Emitter &e, const SystolicSoftmax &k,
                         const systolic_emit::View &inRows,
                         const systolic_emit::View &outRows);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOSYSTOLIC_SYSTOLICSOFTMAX_H
