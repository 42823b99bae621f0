//===- RowKernel.h - row reductions and their consumers as one kernel -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The ops around attention on the GPU: RMSNorm, LayerNorm and softmax as
// frontends write them (linalg.generic reductions over one loop, the
// elementwise generics that read their per-row results; accel.softmax is
// first lowered to those by the linalg lowering's pattern) become one
// kernel per group of generics that share a row space. One block computes
// one row: each reduction by a strided loop of the block's threads, a
// butterfly of xor shuffles within each warp, and the warps' partial
// results combined through shared memory in a fixed order, so every
// thread holds the same row value; the elementwise members are evaluated
// where they are read (recomputed, never stored unless something outside
// the group reads them); the group's outputs are stored last.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_ROWKERNEL_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_ROWKERNEL_H

#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include <string>

namespace mlir::accel {

/// What a member of a row group computes: a row value by a reduction, an
/// element of the full loop space, or a row value elementwise over the
/// rows.
enum class GpuRowRole { Reduction, Full, Row };

/// A group of linalg.generic ops that one row kernel computes.
struct GpuRowGroup {
  /// The members, in block order: reductions over the group's reduction
  /// loop, and elementwise generics over the full loop space ("full") or
  /// over the rows ("row"), each reading members only through maps the
  /// kernel can follow (a full member through the identity, a row member
  /// through the rows' projection).
  SmallVector<linalg::GenericOp> members;
  /// Each member's role.
  SmallVector<GpuRowRole> roles;
  /// The full loop space and the position of the reduced loop in it.
  SmallVector<int64_t> space;
  unsigned reductionLoop = 0;
  /// What the kernel reads from memory (function arguments, results of
  /// other kernels), in the order of first use; each is a parameter.
  SmallVector<Value> inputs;
  /// The members' results it stores (read outside the group or returned),
  /// in block order; each is a parameter after the inputs.
  SmallVector<Value> outputs;

  int64_t columns() const { return space[reductionLoop]; }
  int64_t rows() const;
  bool contains(Operation *op) const;
};

/// Whether `g` is a reduction a row kernel computes: one reduction loop,
/// the others parallel, one result of the other loops in order.
bool isGpuRowReduction(linalg::GenericOp g);

/// The row groups of `func`: each reduction with the generics that read its
/// result (and what they feed), and the elementwise generics whose only
/// readers are members; generics in `exclude` (matmul epilogues) are never
/// members. Located errors for a member no row kernel can compute (a
/// combiner that is not an associative float op, an operand it cannot
/// index, a body op that is not scalar arith or math).
FailureOr<SmallVector<GpuRowGroup, 1>>
formGpuRowGroups(func::FuncOp func, ArrayRef<Operation *> exclude);

/// Emits the kernel of `group` named `name` at `b`'s insertion point (in a
/// gpu.module); `bufferOf` names the host buffer of each input and output.
/// Nothing for a group with no rows.
void emitGpuRowKernel(OpBuilder &b, const GpuRowGroup &group, StringRef name,
                      const llvm::DenseMap<Value, std::string> &bufferOf,
                      const GpuTargetInfo &target);

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_ROWKERNEL_H
