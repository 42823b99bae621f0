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
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUGUARDALLOCATIONSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

/// Bytes an element of `type` takes in memory once lowered to LLVM, or
/// more (never fewer: an overestimate only makes the check stricter);
/// nothing for a type this does not know.
static std::optional<uint64_t> elementBytes(Type type) {
  if (isa<IndexType>(type))
    return 8;
  if (type.isIntOrFloat())
    return llvm::PowerOf2Ceil(std::max<uint64_t>(
        1, llvm::divideCeil(type.getIntOrFloatBitWidth(), 8)));
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<uint64_t> part = elementBytes(complex.getElementType());
    return part ? std::optional<uint64_t>(2 * *part) : std::nullopt;
  }
  if (auto vector = dyn_cast<VectorType>(type);
      vector && !vector.isScalable()) {
    // LLVM's form: an array (of arrays) of the innermost dimension's
    // vector (one element for a 0-d vector), whose size is rounded up to a
    // power of 2 (its alignment).
    std::optional<uint64_t> scalar = elementBytes(vector.getElementType());
    if (!scalar)
      return std::nullopt;
    int64_t inner = vector.getRank() ? vector.getShape().back() : 1;
    int64_t outer = 1, innerBytes, bytes;
    for (int64_t dim : vector.getShape().drop_back(vector.getRank() ? 1 : 0))
      if (llvm::MulOverflow(outer, dim, outer))
        return std::nullopt;
    if (llvm::MulOverflow(inner, int64_t(*scalar), innerBytes) ||
        innerBytes > (int64_t(1) << 61) ||
        llvm::MulOverflow(outer, int64_t(llvm::PowerOf2Ceil(innerBytes)),
                          bytes))
      return std::nullopt;
    return bytes;
  }
  return std::nullopt;
}

/// Inserts, before `alloc`, the checked product of its sizes and a call of
/// `callee` when that allocation cannot be made.
static void guard(memref::AllocOp alloc, uint64_t elementSize,
                  uint64_t maxBytes, func::FuncOp callee) {
  MemRefType type = alloc.getType();
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
  int64_t staticBytes = int64_t(elementSize);
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
  for (Value dynamicSize : alloc.getDynamicSizes()) {
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
    if (maxBytes < uint64_t(INT64_MAX) && !staticOverflow) {
      Value over = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         bytes, constant(int64_t(maxBytes)));
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
    // Dynamically sized heap allocations, by the module whose symbol table
    // their call resolves in.
    llvm::MapVector<Operation *,
                    SmallVector<std::pair<memref::AllocOp, uint64_t>>>
        allocs;
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (auto alloca = dyn_cast<memref::AllocaOp>(op);
          alloca && !alloca.getDynamicSizes().empty()) {
        alloca.emitOpError()
            << "has sizes known only at run time, which "
               "accel-cpu-guard-allocations cannot check against the "
               "stack: allocate it with memref.alloc";
        failed = true;
        return;
      }
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc || alloc.getDynamicSizes().empty())
        return;
      std::optional<uint64_t> bytes =
          elementBytes(alloc.getType().getElementType());
      if (!bytes) {
        alloc.emitOpError()
            << "has elements of type " << alloc.getType().getElementType()
            << ", whose size accel-cpu-guard-allocations does not know";
        failed = true;
        return;
      }
      allocs[SymbolTable::getNearestSymbolTable(op)].push_back({alloc, *bytes});
    });
    if (failed)
      return signalPassFailure();
    if (allocs.empty())
      return;
    if (callee.empty()) {
      getOperation().emitError("accel-cpu-guard-allocations: the callee name "
                               "is empty");
      return signalPassFailure();
    }

    auto calleeType = FunctionType::get(&getContext(), {}, {});
    for (auto &[table, list] : allocs) {
      Operation *existing = SymbolTable::lookupSymbolIn(table, callee);
      auto function = dyn_cast_or_null<func::FuncOp>(existing);
      if (existing && (!function || function.getFunctionType() != calleeType)) {
        existing->emitError()
            << "accel-cpu-guard-allocations: '" << callee
            << "' is the function called for an allocation that cannot be "
               "made, so it must be a func.func of type () -> ()";
        return signalPassFailure();
      }
      if (!function) {
        OpBuilder b = OpBuilder::atBlockBegin(&table->getRegion(0).front());
        function = func::FuncOp::create(b, table->getLoc(), callee, calleeType);
        function.setPrivate();
      }
      for (auto [alloc, bytes] : list)
        guard(alloc, bytes, maxBytes, function);
    }
  }
};
} // namespace
