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
    return fail("its result's elements are not f32, f16, bf16, i8 or i32");
  bool found = false;
  for (OpOperand &operand : g->getOpOperands()) {
    unsigned n = operand.getOperandNumber();
    AffineMap map = g.getMatchingIndexingMap(&operand);
    if (c && operand.get() == c) {
      if (found)
        return fail("it reads C through two operands");
      if (!map.isIdentity())
        return fail("it reads C through a map other than the identity");
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
    auto t = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!t || !t.hasStaticShape())
      return fail("operand #" + Twine(n) +
                  " is not a tensor of static shape or a splat constant");
    if (!storable(t.getElementType()))
      return fail("operand #" + Twine(n) +
                  " has elements that are not f32, f16, bf16, i8 or i32");
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (isa<AffineDimExpr>(expr))
        continue;
      auto cst = dyn_cast<AffineConstantExpr>(expr);
      if (!cst || cst.getValue() < 0 || cst.getValue() >= t.getDimSize(i))
        return fail("operand #" + Twine(n) +
                    " is indexed by a map whose results are not loop "
                    "indices or constants inside it");
    }
    e.bufferOperands.push_back(n);
  }
  assert((!c || found) && "C's user reads C");
  for (Operation &op : g.getRegion().front()) {
    std::string why = whyNotInGpuBody(op);
    if (!why.empty())
      return fail("its body holds " + why);
    // Values from outside the body: scalar constants only (the kernel has
    // nothing else of the function).
    for (Value v : op.getOperands())
      if (!g.getRegion().isAncestor(v.getParentRegion()) &&
          !(v.getDefiningOp() && matchPattern(v, m_Constant()) &&
            v.getType().isIntOrIndexOrFloat()))
        return fail("its body uses a value defined outside it that is not a "
                    "scalar constant");
  }
  return success();
}

bool mlir::accel::isGpuStorableType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16() || t.isInteger(8) ||
         t.isInteger(32);
}

FailureOr<std::optional<GpuEpilogue>>
mlir::accel::findGpuEpilogue(MatmulOp mm) {
  Value c = mm.getResult();
  linalg::GenericOp g;
  for (Operation *user : c.getUsers())
    if (auto generic = dyn_cast<linalg::GenericOp>(user))
      g = generic;
  // No epilogue either when a row reduction reads C (an RMSNorm of the
  // product): C is stored, and the row kernel reads it.
  if (!g || llvm::any_of(c.getUsers(), [](Operation *u) {
        auto r = dyn_cast<linalg::GenericOp>(u);
        return r && r.getNumReductionLoops() > 0;
      }))
    return std::optional<GpuEpilogue>();
  auto fail = [&](const Twine &why) -> LogicalResult {
    return g.emitOpError("cannot be the GPU epilogue of the accel.matmul "
                         "whose result it reads: ")
           << why;
  };
  if (!llvm::all_of(c.getUsers(), [&](Operation *u) { return u == g; }))
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
  for (auto [i, n] : llvm::enumerate(e.bufferOperands)) {
    AffineMap m = g.getIndexingMapsArray()[n];
    SmallVector<Value> idx;
    for (AffineExpr expr : m.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(expr))
        idx.push_back(ivs[d.getPosition()]);
      else
        idx.push_back(arith::ConstantIndexOp::create(
            b, loc, cast<AffineConstantExpr>(expr).getValue()));
    }
    map.map(body.getArgument(n),
            memref::LoadOp::create(b, loc, buffers[i], idx).getResult());
  }
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
