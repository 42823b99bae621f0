//===- FreeEarly.cpp - accel-free-early -----------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Ownership-based buffer deallocation frees a block's temporaries at the end
// of the block. In a whole program (a decoder block: projections, attention,
// MLP) that keeps every temporary alive until the function returns, so the
// peak is the sum of them all. This pass moves each `memref.dealloc` up to
// just after the last use of its buffer in the block: the op in the block
// that holds, itself or in its regions, the last user of the buffer or of a
// value derived from it. Values derived from the buffer are the memref
// results of every op that takes it (views, casts, loops that carry it);
// a buffer one of whose values reaches a call, a return, a block other
// than the dealloc's (a branch), an op that turns it into an address, or an
// op of the LLVM dialect keeps its dealloc where it is.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELFREEEARLYPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// The op in `block` that holds `op` (op itself, or an ancestor), or null.
static Operation *holderIn(Block *block, Operation *op) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// Whether `op`, a user of a value derived from a buffer, lets the buffer
/// escape where this pass cannot follow it.
static bool escapes(Operation *op) {
  return isa<CallOpInterface, func::ReturnOp,
             memref::ExtractAlignedPointerAsIndexOp,
             UnrealizedConversionCastOp>(op) ||
         isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect());
}

/// The last op of `dealloc`'s block that uses its buffer (null: none
/// does), or failure when the buffer may be used past what this pass sees
/// (then the dealloc stays).
static FailureOr<Operation *> lastUse(memref::DeallocOp dealloc) {
  Block *block = dealloc->getBlock();
  SmallVector<Value> worklist{dealloc.getMemref()};
  DenseSet<Value> seen{dealloc.getMemref()};
  Operation *last = nullptr;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (escapes(user))
        return failure();
      // A terminator passes the value on: to the op that holds it (its
      // results are the op's, followed below) or to another block.
      if (user->hasTrait<OpTrait::IsTerminator>() &&
          user->getParentOp() == block->getParentOp() &&
          user->getBlock() != block)
        return failure();
      Operation *holder = holderIn(block, user);
      if (!holder || (isa<memref::DeallocOp>(holder) && holder != dealloc))
        return failure();
      if (!last || last->isBeforeInBlock(holder))
        last = holder;
      // Every memref the user (and the op that holds it) produces may be a
      // view of the buffer.
      for (Operation *producer : {user, holder})
        for (Value result : producer->getResults())
          if (isa<BaseMemRefType>(result.getType()) &&
              seen.insert(result).second)
            worklist.push_back(result);
    }
  }
  return last;
}

namespace {
struct AccelFreeEarlyPass
    : public accel::impl::AccelFreeEarlyPassBase<AccelFreeEarlyPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      FailureOr<Operation *> last = lastUse(dealloc);
      if (failed(last))
        continue;
      // Unused: right after the op that makes the buffer, in this block.
      Operation *after = *last;
      if (!after) {
        after = dealloc.getMemref().getDefiningOp();
        if (!after || after->getBlock() != dealloc->getBlock())
          continue;
      }
      if (after->isBeforeInBlock(dealloc))
        dealloc->moveAfter(after);
    }
  }
};
} // namespace
