//===- BufferAccess.h - which ops touch which buffer ------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Small queries on buffers shared by the CPU kernel passes: the buffer a
// view is of, whether an op may touch it, and the linalg.fill that
// initializes a contraction's output (which the kernels fold into their
// accumulators instead of reading C back).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TRANSFORMS_BUFFERACCESS_H
#define ACCEL_LIB_TRANSFORMS_BUFFERACCESS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::accel {

/// Whether `op` has an i1 buffer operand. Such a buffer holds a byte per
/// element, but LLVM loads and stores an <N x i1> vector as N packed bits:
/// vector code reading a boolean mask would see garbage, so the passes that
/// vectorize elementwise ops leave these scalar.
inline bool hasBooleanBuffer(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    auto m = dyn_cast<MemRefType>(t);
    return m && m.getElementType().isInteger(1);
  });
}

/// The buffer `v` is a view of (subview, expand_shape, cast, ...), or `v`.
inline Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewDest() != v)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Whether `v` exists at `op`: defined in a block around it, before it (or,
/// with `orByOp`, by the op in that block that holds `op`).
inline bool definedBefore(Value v, Operation *op, bool orByOp = false) {
  Block *block = v.getParentBlock();
  Operation *ancestor = block->findAncestorOpInBlock(*op);
  if (!ancestor)
    return false;
  if (isa<BlockArgument>(v))
    return true;
  Operation *def = v.getDefiningOp();
  return (orByOp && def == ancestor) || def->isBeforeInBlock(ancestor);
}

/// Whether `op`, or an op nested in it, may read or write a buffer whose
/// root is `root`, other than `read` and `write`. Ops with unknown effects
/// count as accesses. An op's own effects count even when it also has
/// recursive ones: linalg ops on buffers declare both (the operands they
/// read and write, and their body's), so skipping every op with recursive
/// effects would miss a linalg.generic that writes the buffer.
inline bool accessesOtherThan(Operation *op, Value root, Operation *read,
                              Operation *write) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == read || nested == write)
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface) {
      // Nested ops are walked on their own.
      if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value accessed = effect.getValue();
      if (!accessed || rootBuffer(accessed) == root)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op`, or an op nested in it, may write a buffer whose root is
/// `root` (ops with unknown effects count as writes; reads do not).
inline bool mayWrite(Operation *op, Value root) {
  WalkResult result = op->walk([&](Operation *nested) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value written = effect.getValue();
      if (!written || rootBuffer(written) == root)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// The linalg.fill that initializes `op`'s output before it: the nearest
/// earlier op in the block that may access the output's buffer must be a
/// fill of exactly the output (the same value). Ops between that touch
/// other buffers only (accel-cpu-transpose-rhs's copy of B) are fine.
inline linalg::FillOp initializingFill(linalg::LinalgOp op) {
  Value c = op.getDpsInitOperand(0)->get();
  Value root = rootBuffer(c);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.hasPureBufferSemantics() &&
        fill.getDpsInitOperand(0)->get() == c)
      return fill;
    if (accessesOtherThan(prev, root, nullptr, nullptr))
      return {};
  }
  return {};
}

} // namespace mlir::accel

#endif // ACCEL_LIB_TRANSFORMS_BUFFERACCESS_H
