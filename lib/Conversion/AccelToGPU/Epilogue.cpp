//===- Epilogue.cpp - matmul epilogues inside GPU GEMM kernels ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Epilogue.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::accel;

std::string mlir::accel::whyNotInGpuBody(Operation &op) {
  if (isa<linalg::YieldOp, linalg::IndexOp>(op))
    return "";
  Dialect *dialect = op.getDialect();
  if (!dialect || !isa<arith::ArithDialect, math::MathDialect>(dialect))
    return "a '" + op.getName().getStringRef().str() +
           "', which is not a scalar arith or math op";
  for (Type t : llvm::concat<const Type>(op.getOperandTypes(),
                                         op.getResultTypes()))
    if (!t.isIntOrIndexOrFloat())
      return "a '" + op.getName().getStringRef().str() +
             "' on non-scalar values";
  return "";
}

/// The values `e` takes over the box of loop sizes `loops`, when it is
/// built of loop indices, constants, `+`, `*`, and `floordiv` / `mod` by a
/// positive constant, and no part of it is ever negative (so that the
/// kernel computes it with unsigned index arithmetic); else none.
static std::optional<std::pair<int64_t, int64_t>>
indexRange(AffineExpr e, ArrayRef<int64_t> loops) {
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    if (d.getPosition() >= loops.size() || loops[d.getPosition()] < 1)
      return std::nullopt;
    return std::make_pair(int64_t(0), loops[d.getPosition()] - 1);
  }
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    if (c.getValue() < 0)
      return std::nullopt;
    return std::make_pair(c.getValue(), c.getValue());
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  auto lhs = indexRange(bin.getLHS(), loops);
  auto rhs = indexRange(bin.getRHS(), loops);
  if (!lhs || !rhs)
    return std::nullopt;
  // Bounds that overflow int64 are refused, not wrapped.
  int64_t lo, hi;
  switch (e.getKind()) {
  case AffineExprKind::Add:
    if (llvm::AddOverflow(lhs->first, rhs->first, lo) ||
        llvm::AddOverflow(lhs->second, rhs->second, hi))
      return std::nullopt;
    return std::make_pair(lo, hi);
  case AffineExprKind::Mul:
    if (llvm::MulOverflow(lhs->first, rhs->first, lo) ||
        llvm::MulOverflow(lhs->second, rhs->second, hi))
      return std::nullopt;
    return std::make_pair(lo, hi);
  case AffineExprKind::FloorDiv:
  case AffineExprKind::Mod: {
    auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!c || c.getValue() < 1)
      return std::nullopt;
    if (e.getKind() == AffineExprKind::FloorDiv)
      return std::make_pair(lhs->first / c.getValue(),
                            lhs->second / c.getValue());
    return std::make_pair(int64_t(0), std::min(lhs->second, c.getValue() - 1));
  }
  default:
    return std::nullopt;
  }
}

Value mlir::accel::emitGpuIndex(OpBuilder &b, Location loc, AffineExpr e,
                                ArrayRef<Value> ivs) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return ivs[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return arith::ConstantIndexOp::create(b, loc, c.getValue());
  auto bin = cast<AffineBinaryOpExpr>(e);
  Value l = emitGpuIndex(b, loc, bin.getLHS(), ivs);
  Value r = emitGpuIndex(b, loc, bin.getRHS(), ivs);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, l, r);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, l, r);
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, l, r);
  default:
    return arith::RemUIOp::create(b, loc, l, r);
  }
}

std::string mlir::accel::whyNotGpuBufferOperand(linalg::GenericOp g,
                                                OpOperand &operand,
                                                ArrayRef<int64_t> loops) {
  auto t = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!t || !t.hasStaticShape())
    return "is not a tensor of static shape or a splat constant";
  if (!isGpuStorableType(t.getElementType()))
    return "has elements that are not f32, f16, bf16, fp8, i8 or i32";
  // No iteration, no read (the kernel of an empty result launches nothing).
  if (llvm::is_contained(loops, 0))
    return "";
  // Loop indices, constants, or what folded slices make of them (RoPE's
  // halves, d + 32; its pairs, 2 * d + 1; accel-fuse-slices' pieces,
  // (d + 32) mod 64): in bounds for every point of the loops.
  for (auto [i, expr] :
       llvm::enumerate(g.getMatchingIndexingMap(&operand).getResults())) {
    auto range = indexRange(expr, loops);
    if (!range || range->second >= t.getDimSize(i))
      return "is indexed by a map whose results are not loop indices, "
             "constants, or sums, multiples, quotients and remainders of "
             "them that stay inside it";
  }
  return "";
}

std::string mlir::accel::whyNotGpuBody(linalg::GenericOp g) {
  for (Operation &op : g.getRegion().front()) {
    std::string why = whyNotInGpuBody(op);
    if (!why.empty())
      return "its body holds " + why;
    // Values from outside the body: scalar constants only (the kernel has
    // nothing else of the function).
    for (Value v : op.getOperands())
      if (!g.getRegion().isAncestor(v.getParentRegion()) &&
          !(v.getDefiningOp() && matchPattern(v, m_Constant()) &&
            v.getType().isIntOrIndexOrFloat()))
        return "its body uses a value defined outside it that is not a "
               "scalar constant";
  }
  return "";
}

/// The analysis an epilogue and a standalone elementwise kernel share: `g`
/// elementwise over its (static) result, every operand C (`c`, when given:
/// identity map), a splat constant, or a static tensor read through a map
/// of loop indices and constants; a body of scalar arith and math.
static LogicalResult
analyzeElementwise(linalg::GenericOp g, Value c, GpuEpilogue &e,
                   function_ref<LogicalResult(const Twine &)> fail) {
  if (g.getNumResults() != 1 || g.getNumDpsInits() != 1)
    return fail("it has " + Twine(g.getNumResults()) +
                " results; an epilogue yields one value per element of C");
  auto outType = dyn_cast<RankedTensorType>(g.getResult(0).getType());
  if (g.getNumParallelLoops() != g.getNumLoops() || !outType ||
      g.getNumLoops() != outType.getRank())
    return fail("it is not elementwise over " + Twine(c ? "C" : "its result") +
                " (" + Twine(g.getNumLoops()) + " loops, " +
                Twine(g.getNumParallelLoops()) + " parallel)");
  if (!outType.hasStaticShape() ||
      (c && outType.getShape() !=
                cast<RankedTensorType>(c.getType()).getShape()) ||
      !g.getIndexingMapsArray().back().isIdentity())
    return fail(c ? "its result is not C's shape, indexed as C"
                  : "its result is not of static shape, indexed by the "
                    "loops in order");

  // What kernels read and write: whole bytes of the types the launcher
  // and the oracle know.
  auto storable = isGpuStorableType;
  e.op = g;
  e.outType = outType.getElementType();
  if (!storable(e.outType))
    return fail("its result's elements are not f32, f16, bf16, fp8, i8 or i32");
  bool found = false;
  for (OpOperand &operand : g->getOpOperands()) {
    unsigned n = operand.getOperandNumber();
    if (c && operand.get() == c) {
      if (found)
        return fail("it reads C through two operands");
      // findGpuEpilogue leaves a generic reading C elsewhere to a kernel
      // of its own.
      assert(g.getMatchingIndexingMap(&operand).isIdentity() &&
             "an epilogue reads C at its element");
      found = true;
      e.matmulOperand = n;
      continue;
    }
    BlockArgument arg = g.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue; // an init only shaping the result, or an unused input
    DenseElementsAttr dense;
    if (matchPattern(operand.get(), m_Constant(&dense)) && dense.isSplat()) {
      e.splats[n] = dense.getSplatValue<TypedAttr>();
      continue;
    }
    std::string why = whyNotGpuBufferOperand(g, operand, outType.getShape());
    if (!why.empty())
      return fail("operand #" + Twine(n) + " " + why);
    auto earlier = llvm::find_if(e.bufferOperands, [&](unsigned m) {
      return g->getOperand(m) == operand.get();
    });
    if (earlier != e.bufferOperands.end())
      e.sameBufferAs[n] = earlier - e.bufferOperands.begin();
    else
      e.bufferOperands.push_back(n);
  }
  assert((!c || found) && "C's user reads C");
  if (std::string why = whyNotGpuBody(g); !why.empty())
    return fail(why);
  return success();
}

bool mlir::accel::isGpuStorableType(Type t) {
  // fp8 values are bytes in memory; their casts become integer arithmetic
  // (accel-expand-f8-casts in the GPU pipelines).
  return t.isF32() || t.isF16() || t.isBF16() || t.isInteger(8) ||
         t.isInteger(32) ||
         isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(t);
}

FailureOr<std::optional<GpuEpilogue>>
mlir::accel::findGpuEpilogue(Operation *producer) {
  Value c = producer->getResult(0);
  linalg::GenericOp g;
  for (Operation *user : c.getUsers())
    if (auto generic = dyn_cast<linalg::GenericOp>(user))
      g = generic;
  // No epilogue either when a row reduction reads C (an RMSNorm of the
  // product): C is stored, and the row kernel reads it.
  // Nor when a generic reads C elsewhere than at the element it writes
  // (RoPE's partner element): C is stored, and that generic is a kernel of
  // its own.
  if (!g || llvm::any_of(c.getUsers(), [&](Operation *u) {
        auto r = dyn_cast<linalg::GenericOp>(u);
        if (!r)
          return false;
        if (r.getNumReductionLoops() > 0)
          return true;
        return llvm::any_of(r->getOpOperands(), [&](OpOperand &o) {
          return o.get() == c && !r.getMatchingIndexingMap(&o).isIdentity();
        });
      }))
    return std::optional<GpuEpilogue>();
  auto fail = [&](const Twine &why) -> LogicalResult {
    return g.emitOpError("cannot be the GPU epilogue of the ")
           << producer->getName() << " whose result it reads: " << why;
  };
  if (!llvm::all_of(c.getUsers(), [&](Operation *u) { return u == g; }))
    // (An attention's epilogue is looked for only when the generic is the
    // result's one use: convert-accel-to-gpu stores O otherwise.)
    return fail("the matmul's result has other users; the kernel keeps C "
                "in registers and stores only the epilogue's result (run "
                "accel-fuse-epilogues, or split the function)");
  GpuEpilogue e;
  if (failed(analyzeElementwise(g, c, e, fail)))
    return failure();
  return std::optional<GpuEpilogue>(std::move(e));
}

FailureOr<GpuEpilogue>
mlir::accel::analyzeGpuElementwise(linalg::GenericOp g) {
  auto fail = [&](const Twine &why) -> LogicalResult {
    return g.emitOpError("has no GPU elementwise kernel: ") << why;
  };
  GpuEpilogue e;
  if (failed(analyzeElementwise(g, Value(), e, fail)))
    return failure();
  return e;
}

Value mlir::accel::emitGpuEpilogueElement(OpBuilder &b, Location loc,
                                          const GpuEpilogue &e, Value c,
                                          ArrayRef<Value> buffers,
                                          ArrayRef<Value> ivs) {
  linalg::GenericOp g = e.op;
  Block &body = g.getRegion().front();
  IRMapping map;
  if (e.matmulOperand)
    map.map(body.getArgument(*e.matmulOperand), c);
  for (auto [n, attr] : e.splats)
    map.map(body.getArgument(n),
            arith::ConstantOp::create(b, loc, attr).getResult());
  auto load = [&](unsigned n, Value buffer) {
    AffineMap m = g.getIndexingMapsArray()[n];
    SmallVector<Value> idx;
    for (AffineExpr expr : m.getResults())
      idx.push_back(emitGpuIndex(b, loc, expr, ivs));
    map.map(body.getArgument(n),
            memref::LoadOp::create(b, loc, buffer, idx).getResult());
  };
  for (auto [i, n] : llvm::enumerate(e.bufferOperands))
    load(n, buffers[i]);
  for (auto [n, i] : e.sameBufferAs)
    load(n, buffers[i]);
  for (Operation &op : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    for (Value v : op.getOperands())
      if (!map.contains(v) && !g.getRegion().isAncestor(v.getParentRegion()))
        map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    b.clone(op, map);
  }
  // The yielded value may itself be a constant from outside the body.
  Value y = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  if (!map.contains(y) && !g.getRegion().isAncestor(y.getParentRegion()))
    map.map(y, b.clone(*y.getDefiningOp())->getResult(0));
  return map.lookupOrDefault(y);
}
