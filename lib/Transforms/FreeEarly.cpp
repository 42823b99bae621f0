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
// peak is the sum of them all. This pass moves the `memref.dealloc` of a
// `memref.alloc` of the same block up to just after the op of the block that
// holds the last use of the buffer or of anything that may alias it.
//
// It moves a dealloc only when it can see every use, by an allow-list:
// the aliases of the buffer are followed forward from the allocation
// (through views, casts and the base of extract_strided_metadata; through
// region ops, every memref block argument of their regions and every memref
// result they have, wherever the buffer enters or is yielded); every other
// use must be an access the op declares as a memory effect on that operand
// (loads, stores as the stored-to memref, linalg, copies, AMX tile loads and
// stores), nested only in SCF or linalg ops (synchronous). Anything else
// (a call, a store of the buffer itself, an address taken, a cast to a
// tensor or pointer, an asynchronous region, another block, another
// dealloc) keeps the dealloc where it is.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELFREEEARLYPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Ops whose regions run before the op is done (SCF, linalg).
static bool synchronous(Operation *op) {
  return isa<scf::SCFDialect>(op->getDialect()) || isa<linalg::LinalgOp>(op);
}

/// Whether `op` accesses the memref `operand` as a declared memory effect
/// on it (and does nothing else with it).
static bool accesses(Operation *op, OpOperand &operand) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [&](const MemoryEffects::EffectInstance &e) {
    return e.getEffectValue<OpOperand *>() == &operand ||
           e.getValue() == operand.get();
  });
}

/// The last op of `dealloc`'s block that uses its buffer (null: none
/// does), or failure when the buffer may be used where this pass cannot
/// see (then the dealloc stays).
static FailureOr<Operation *> lastUse(memref::DeallocOp dealloc) {
  Block *block = dealloc->getBlock();
  Value buffer = dealloc.getMemref();
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != block)
    return failure();
  SmallVector<Value> worklist{buffer};
  DenseSet<Value> aliases{buffer};
  auto alias = [&](Value v) {
    if (isa<BaseMemRefType>(v.getType()) && aliases.insert(v).second)
      worklist.push_back(v);
  };
  // Every memref result of `op` and block argument of its regions.
  auto aliasAll = [&](Operation *op) {
    for (Value result : op->getResults())
      alias(result);
    for (Region &region : op->getRegions())
      for (Block &b : region)
        for (BlockArgument arg : b.getArguments())
          alias(arg);
  };
  Operation *last = nullptr;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      // The op of the block that holds the use; every op between runs
      // its regions before it is done.
      Operation *holder = user;
      while (holder && holder->getBlock() != block) {
        holder = holder->getParentOp();
        if (holder && !synchronous(holder))
          return failure();
      }
      if (!holder)
        return failure();
      if (isa<ViewLikeOpInterface, memref::CastOp,
              memref::ExtractStridedMetadataOp>(user)) {
        for (Value result : user->getResults())
          alias(result);
      } else if (user->hasTrait<OpTrait::IsTerminator>()) {
        // Passed to the op whose region it ends (a yield), never to
        // another block of this one.
        Operation *parent = user->getParentOp();
        if (user->getBlock() == block || !parent || !synchronous(parent) ||
            user->getNumSuccessors() != 0)
          return failure();
        aliasAll(parent);
      } else if (user->getNumRegions() > 0 && synchronous(user) &&
                 !isa<linalg::LinalgOp>(user)) {
        // An operand of a loop or branch: it may flow into any of its
        // block arguments and results.
        aliasAll(user);
      } else if (!accesses(user, use) || isa<memref::DeallocOp>(user)) {
        return failure();
      }
      if (!last || last->isBeforeInBlock(holder))
        last = holder;
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
      // Unused: right after its allocation.
      Operation *after = *last ? *last : dealloc.getMemref().getDefiningOp();
      if (after->isBeforeInBlock(dealloc))
        dealloc->moveAfter(after);
    }
  }
};
} // namespace
