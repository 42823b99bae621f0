//===- CpuResultsInPlace.cpp - results written into the caller's buffers --===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A function whose result is a buffer it allocates (a tensor.empty result,
// as most frontends write one) makes an AOT library copy that buffer into
// the caller's after every call: a GEMM's whole C. Each such buffer becomes
// an argument appended to the function, the caller's buffer, which the
// kernel writes in place and returns; `accel.result_args` lists the results
// moved, in the order of the new arguments, and accel.result_arg_alignments
// the alignment each one's accesses assume, for the C wrapper (which passes
// a buffer of its own where the caller's cannot be written in place).
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPURESULTSINPLACEPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {
struct AccelCpuResultsInPlacePass
    : public accel::impl::AccelCpuResultsInPlacePassBase<
          AccelCpuResultsInPlacePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      // A function called in the module keeps its signature.
      if (!func.isExternal() && func.isPublic() &&
          !func->hasAttr(kResultArgsAttr) &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        if (failed(moveResults(func)))
          return signalPassFailure();
  }

  LogicalResult moveResults(func::FuncOp func) {
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp r) { returns.push_back(r); });
    if (returns.size() != 1)
      return success();
    func::ReturnOp ret = returns.front();
    Block &entry = func.getBody().front();
    SmallVector<int64_t> moved, alignments;
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      // A buffer allocated in the entry block (it lives until the return)
      // with a static shape and the identity layout, returned once, never
      // freed: the caller's buffer can be it.
      auto alloc = value.getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &entry || !seen.insert(alloc).second)
        continue;
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() ||
          llvm::any_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          }))
        continue;
      if (llvm::count(ret.getOperands(), value) != 1)
        continue;
      // The alignment the function's accesses assume of the buffer (a
      // transpose's stores into a 64-byte aligned allocation say so): the
      // wrapper passes the caller's buffer only when it has it.
      int64_t align = 1;
      SmallVector<Value> work = {alloc.getResult()};
      while (!work.empty()) {
        Value v = work.pop_back_val();
        for (Operation *user : v.getUsers()) {
          if (auto a = user->getAttrOfType<IntegerAttr>("alignment"))
            align = std::max<int64_t>(align, a.getInt());
          if (auto view = dyn_cast<ViewLikeOpInterface>(user))
            if (view.getViewSource() == v)
              llvm::append_range(work, user->getResults());
        }
      }
      if (failed(func.insertArgument(func.getNumArguments(), type,
                                     DictionaryAttr(), alloc.getLoc())))
        return failure();
      alloc.getResult().replaceAllUsesWith(entry.getArguments().back());
      alloc.erase();
      moved.push_back(static_cast<int64_t>(i));
      alignments.push_back(align);
    }
    if (!moved.empty()) {
      func->setAttr(kResultArgsAttr,
                    DenseI64ArrayAttr::get(func.getContext(), moved));
      func->setAttr(kResultAlignAttr,
                    DenseI64ArrayAttr::get(func.getContext(), alignments));
    }
    return success();
  }

  static constexpr StringLiteral kResultArgsAttr = "accel.result_args";
  static constexpr StringLiteral kResultAlignAttr =
      "accel.result_arg_alignments";
};
} // namespace
