//===- CpuGuardAllocations.cpp - check dynamic allocation sizes -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The memref-to-LLVM lowering computes an allocation's byte size as
// size_0 * ... * size_n * element bytes in wrapping 64-bit arithmetic. With
// sizes that come from a caller at run time (an AOT kernel's `?`
// dimensions), that product can wrap: a temporary tensor<?x1024xf32> sized
// by a caller's [2^52, 0] argument asks malloc for 0 bytes, and the kernel
// fills 2^64 of them. This pass puts the same product, with its overflow
// checked, before every dynamically sized allocation and calls a function
// that must not return when the allocation cannot be made
// (docs/bad-input-catalogue.md, row 41).
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUGUARDALLOCATIONSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Bytes an element of `type` takes in memory once lowered to LLVM, or at
/// least that many (never fewer: an overestimate only makes the check
/// stricter). 1 for types this does not know.
static uint64_t elementBytes(Type type) {
  if (isa<IndexType>(type))
    return 8;
  if (auto integer = dyn_cast<IntegerType>(type))
    return llvm::PowerOf2Ceil(
        std::max<uint64_t>(1, llvm::divideCeil(integer.getWidth(), 8)));
  if (auto floatType = dyn_cast<FloatType>(type))
    return llvm::PowerOf2Ceil(
        std::max<uint64_t>(1, llvm::divideCeil(floatType.getWidth(), 8)));
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * elementBytes(complex.getElementType());
  if (auto vector = dyn_cast<VectorType>(type); vector && !vector.isScalable())
    return llvm::PowerOf2Ceil(vector.getNumElements() *
                              elementBytes(vector.getElementType()));
  return 1;
}

/// Inserts, before `alloc`, the checked product of its sizes and a call of
/// `callee` when that allocation cannot be made.
static void guard(Operation *alloc, MemRefType type, ValueRange dynamicSizes,
                  uint64_t maxBytes, func::FuncOp callee) {
  OpBuilder b(alloc);
  Location loc = alloc->getLoc();
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, value);
  };
  // `lhs || rhs` where a null Value is false.
  auto either = [&](Value lhs, Value rhs) -> Value {
    return !lhs ? rhs : arith::OrIOp::create(b, loc, lhs, rhs);
  };

  // The static sizes' part of the product, known now.
  int64_t staticBytes = int64_t(elementBytes(type.getElementType()));
  bool staticOverflow = false, staticEmpty = false;
  for (int64_t dim : type.getShape()) {
    if (ShapedType::isDynamic(dim))
      continue;
    staticEmpty |= dim == 0;
    staticOverflow |= llvm::MulOverflow(staticBytes, dim, staticBytes);
  }

  // Whether a size is negative, is 0 (then nothing is allocated, however
  // large the others), and whether the running product left int64.
  Value zero = constant(0);
  Value bytes = staticOverflow ? Value() : constant(staticBytes);
  Value negative, empty, overflow;
  for (Value dynamicSize : dynamicSizes) {
    Value size = arith::IndexCastOp::create(b, loc, i64, dynamicSize);
    negative = either(
        negative,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, size, zero));
    empty = either(empty, arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::eq, size, zero));
    if (!bytes)
      continue;
    // Both factors are >= 0 when it matters (a negative size fails on its
    // own): the product fits in int64 when the high half is 0 and the low
    // half's sign bit is clear.
    auto product = arith::MulUIExtendedOp::create(b, loc, bytes, size);
    Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       product.getHigh(), zero);
    Value signBit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          product.getLow(), zero);
    overflow = either(overflow, either(high, signBit));
    bytes = product.getLow();
  }

  Value fail = negative;
  if (!staticEmpty) {
    // A size of 0 allocates nothing, whatever the product of the others
    // (the running product may have overflowed before the 0 came).
    Value notEmpty = arith::XOrIOp::create(
        b, loc, empty, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    if (staticOverflow)
      fail = either(fail, notEmpty);
    else
      fail = either(fail, arith::AndIOp::create(b, loc, overflow, notEmpty));
    if (maxBytes && !staticOverflow) {
      Value over = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ugt, bytes,
          constant(int64_t(std::min<uint64_t>(maxBytes, INT64_MAX))));
      fail = either(fail, arith::AndIOp::create(b, loc, over, notEmpty));
    }
  }
  scf::IfOp::create(b, loc, fail, [&](OpBuilder &then, Location thenLoc) {
    func::CallOp::create(then, thenLoc, callee, ValueRange());
    scf::YieldOp::create(then, thenLoc);
  });
}

namespace {
struct AccelCpuGuardAllocationsPass
    : public accel::impl::AccelCpuGuardAllocationsPassBase<
          AccelCpuGuardAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> allocs;
    module.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op);
          alloc && !alloc.getDynamicSizes().empty())
        allocs.push_back(op);
      if (auto alloca = dyn_cast<memref::AllocaOp>(op);
          alloca && !alloca.getDynamicSizes().empty())
        allocs.push_back(op);
    });
    if (allocs.empty())
      return;
    if (callee.empty()) {
      module.emitError("accel-cpu-guard-allocations: the callee name is "
                       "empty");
      return signalPassFailure();
    }

    auto calleeType = FunctionType::get(&getContext(), {}, {});
    Operation *existing = SymbolTable::lookupSymbolIn(module, callee);
    auto function = dyn_cast_or_null<func::FuncOp>(existing);
    if (existing && (!function || function.getFunctionType() != calleeType)) {
      existing->emitError()
          << "accel-cpu-guard-allocations: '" << callee
          << "' is the function called for an allocation that cannot be "
             "made, so it must be a func.func of type () -> ()";
      return signalPassFailure();
    }
    if (!function) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      function = func::FuncOp::create(b, module.getLoc(), callee, calleeType);
      function.setPrivate();
    }

    for (Operation *op : allocs) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        guard(op, alloc.getType(), alloc.getDynamicSizes(), maxBytes, function);
      else if (auto alloca = dyn_cast<memref::AllocaOp>(op))
        guard(op, alloca.getType(), alloca.getDynamicSizes(), maxBytes,
              function);
    }
  }
};
} // namespace
