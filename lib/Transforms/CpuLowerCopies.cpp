//===- CpuLowerCopies.cpp - strided memref copies as loops ----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-lower-copies: a memref.copy whose source or target is not one
// contiguous block (a strided slice of a tensor.insert_slice, one operand
// of a tensor.concat) becomes a linalg.copy, which the CPU pipeline lowers
// to loops. memref-to-llvm would otherwise call memrefCopy from
// libmlir_c_runner_utils, which neither the JIT nor the AOT libraries
// link. Contiguous copies stay memref.copy (an llvm.memcpy).
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPULOWERCOPIESPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Whether memref-to-llvm lowers a copy of `type` to llvm.memcpy: an
/// identity layout, or a static shape laid out contiguously row-major.
static bool isOneBlock(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    memref::isStaticShapeAndContiguousRowMajor(memref));
}

namespace {
struct AccelCpuLowerCopiesPass
    : public accel::impl::AccelCpuLowerCopiesPassBase<AccelCpuLowerCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      // Unranked copies have no linalg form (and call memrefCopy anyway).
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType()))
        return;
      if (!isOneBlock(copy.getSource().getType()) ||
          !isOneBlock(copy.getTarget().getType()))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      rewriter.eraseOp(copy);
    }
  }
};
} // namespace
