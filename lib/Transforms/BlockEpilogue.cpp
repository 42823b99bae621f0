//===- BlockEpilogue.cpp - epilogues applied per C block -----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "BlockEpilogue.h"
#include "BufferAccess.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

void accel::BlockEpilogue::prepare(Operation *gemm) {
  for (Operation *op : hoist)
    op->moveBefore(gemm);
  hoist.clear();
}

std::optional<accel::BlockEpilogue>
accel::findBlockEpilogue(linalg::LinalgOp gemm, Value c) {
  auto cType = dyn_cast<MemRefType>(c.getType());
  if (!cType || cType.getRank() != 2 || !cType.hasStaticShape())
    return std::nullopt;
  Value root = rootBuffer(c);
  linalg::GenericOp g;
  for (Operation *next = gemm->getNextNode(); next;
       next = next->getNextNode()) {
    auto generic = dyn_cast<linalg::GenericOp>(next);
    bool reads = false;
    if (generic)
      for (Value v : generic->getOperands())
        reads |= v == c;
    if (reads) {
      g = generic;
      break;
    }
    if (accessesOtherThan(next, root, nullptr, nullptr))
      return std::nullopt;
  }
  // (A boolean mask read as a vector would be garbage: hasBooleanBuffer.)
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != 2 || g.getNumParallelLoops() != 2 ||
      g.hasIndexSemantics() || hasBooleanBuffer(g) ||
      g.getStaticLoopRanges() != SmallVector<int64_t>(cType.getShape()))
    return std::nullopt;
  OpOperand *out = g.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(out->get().getType());
  if (!outType || outType.getShape() != cType.getShape() ||
      !g.getMatchingIndexingMap(out).isIdentity())
    return std::nullopt;
  for (Operation &op : g.getRegion().front().without_terminator())
    if (!isMemoryEffectFree(&op))
      return std::nullopt;
  BlockEpilogue e;
  e.generic = g;
  Value outRoot = rootBuffer(out->get());
  std::optional<unsigned> cOperand;
  if (out->get() == c)
    cOperand = out->getOperandNumber();
  else if (outRoot == root)
    return std::nullopt;
  for (OpOperand *in : g.getDpsInputOperands()) {
    Value v = in->get();
    if (!isa<MemRefType>(v.getType()))
      return std::nullopt;
    if (v == c && !cOperand && g.getMatchingIndexingMap(in).isIdentity()) {
      cOperand = in->getOperandNumber();
      continue;
    }
    // Another view of C, or an input that is the output's buffer, would be
    // read after blocks of it have been written.
    if (rootBuffer(v) == root || rootBuffer(v) == outRoot)
      return std::nullopt;
    for (AffineExpr r : g.getMatchingIndexingMap(in).getResults())
      if (!isa<AffineDimExpr>(r))
        return std::nullopt;
  }
  if (!cOperand)
    return std::nullopt;
  e.cOperand = *cOperand;
  e.inPlace = out->get() == c;
  // Nothing between the GEMM and the epilogue may write what it reads or
  // touch what it writes: it now runs before them.
  for (Operation *between = gemm->getNextNode(); between != g;
       between = between->getNextNode()) {
    for (OpOperand *in : g.getDpsInputOperands())
      if (in->get() != c && mayWrite(between, rootBuffer(in->get())))
        return std::nullopt;
    if (!e.inPlace && accessesOtherThan(between, outRoot, nullptr, nullptr))
      return std::nullopt;
  }
  // Every value it uses must exist where the GEMM is: allocations and
  // constants between them move up.
  std::optional<SmallVector<Operation *>> hoist = hoistableBefore(g, gemm);
  if (!hoist)
    return std::nullopt;
  e.hoist = std::move(*hoist);
  return e;
}

std::optional<SmallVector<Operation *>>
accel::hoistableBefore(linalg::GenericOp g, Operation *gemm) {
  llvm::SetVector<Operation *> hoist;
  auto usable = [&](Value v) {
    if (definedBefore(v, gemm))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != gemm->getBlock() ||
        !(isa<memref::AllocOp>(def) || def->hasTrait<OpTrait::ConstantLike>()))
      return false;
    for (Value operand : def->getOperands())
      if (!definedBefore(operand, gemm))
        return false;
    hoist.insert(def);
    return true;
  };
  for (Value v : g->getOperands())
    if (!usable(v))
      return std::nullopt;
  WalkResult captured = g.getRegion().walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (!g.getRegion().isAncestor(v.getParentRegion()) && !usable(v))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (captured.wasInterrupted())
    return std::nullopt;
  SmallVector<Operation *> ops = hoist.takeVector();
  llvm::sort(ops,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  return ops;
}

linalg::GenericOp accel::emitBlockEpilogue(OpBuilder &b, Location loc,
                                           BlockEpilogue &e, Value cValues,
                                           ArrayRef<OpFoldResult> offsets,
                                           ArrayRef<int64_t> sizes) {
  linalg::GenericOp g = e.generic;
  MLIRContext *ctx = b.getContext();
  auto block = [&](Value buffer, AffineMap map) -> Value {
    if (map.getNumResults() == 0)
      return buffer;
    SmallVector<OpFoldResult> off, sz, one;
    for (AffineExpr r : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(r).getPosition();
      off.push_back(offsets[d]);
      sz.push_back(b.getIndexAttr(sizes[d]));
      one.push_back(b.getIndexAttr(1));
    }
    return memref::SubViewOp::create(b, loc, buffer, off, sz, one);
  };
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<Value> inputs{cValues};
  SmallVector<AffineMap> maps{id};
  SmallVector<unsigned> otherArgs;
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (in->getOperandNumber() == e.cOperand)
      continue;
    AffineMap map = g.getMatchingIndexingMap(in);
    inputs.push_back(block(in->get(), map));
    maps.push_back(map);
    otherArgs.push_back(in->getOperandNumber());
  }
  Value output = block(e.output(), id);
  maps.push_back(id);
  Block &body = g.getRegion().front();
  auto clone = linalg::GenericOp::create(
      b, loc, TypeRange{}, inputs, ValueRange{output}, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location, ValueRange args) {
        IRMapping mapping;
        // C's values: argument 0; the others in order; the output last
        // (in place, the old output argument was C's value).
        mapping.map(body.getArgument(e.cOperand), args[0]);
        for (auto [i, operand] : llvm::enumerate(otherArgs))
          mapping.map(body.getArgument(operand), args[i + 1]);
        if (!e.inPlace)
          mapping.map(body.getArguments().back(), args.back());
        for (Operation &op : body)
          nb.clone(op, mapping);
      });
  return clone;
}

void accel::emitRowPrefetch(OpBuilder &b, Location loc, BlockEpilogue &e,
                            Value row, Value col0, int64_t cols) {
  SmallVector<std::pair<Value, bool>> buffers{{e.output(), true}};
  for (OpOperand *in : e.generic.getDpsInputOperands())
    if (in->getOperandNumber() != e.cOperand &&
        e.generic.getMatchingIndexingMap(in).isIdentity())
      buffers.push_back({in->get(), false});
  for (auto [buffer, write] : buffers) {
    Type elt = cast<MemRefType>(buffer.getType()).getElementType();
    int64_t perLine = std::max<int64_t>(
        1, 512 / std::max<int64_t>(8, elt.getIntOrFloatBitWidth()));
    for (int64_t c = 0; c < cols; c += perLine) {
      Value col = arith::AddIOp::create(
          b, loc, col0, arith::ConstantIndexOp::create(b, loc, c));
      memref::PrefetchOp::create(b, loc, buffer, ValueRange{row, col}, write,
                                 /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
}

/// Whether `op` divides or takes a remainder (arith's div*, ceildiv*,
/// floordiv*, rem*).
static bool isDivision(Operation &op) {
  if (!op.getDialect() || op.getDialect()->getNamespace() != "arith")
    return false;
  StringRef name = op.getName().stripDialect();
  return name.contains("div") || name.starts_with("rem");
}

bool accel::isCheapEpilogue(linalg::GenericOp g) {
  for (Operation &op : g.getRegion().front().without_terminator()) {
    if (isDivision(op))
      return false;
    if (isa<math::AbsFOp>(op) ||
        (op.getDialect() && op.getDialect()->getNamespace() == "arith"))
      continue;
    return false;
  }
  return true;
}

bool accel::dividesIntegers(linalg::GenericOp g) {
  for (Operation &op : g.getRegion().front().without_terminator())
    if (isDivision(op) && op.getNumResults() == 1 &&
        isa<IntegerType>(getElementTypeOrSelf(op.getResult(0).getType())))
      return true;
  return false;
}

bool accel::hasRegisterForm(BlockEpilogue &e) {
  linalg::GenericOp g = e.generic;
  if (dividesIntegers(g))
    return false;
  for (Operation &op : g.getRegion().front().without_terminator()) {
    if (op.getNumRegions() != 0 || op.getNumResults() != 1 ||
        !op.getResult(0).getType().isIntOrFloat())
      return false;
    Attribute value;
    if (matchPattern(&op, m_Constant(&value))) {
      if (!isa<IntegerAttr, FloatAttr>(value))
        return false;
      continue;
    }
    if (!op.hasTrait<OpTrait::Elementwise>())
      return false;
    for (Value v : op.getOperands())
      if (!v.getType().isIntOrFloat())
        return false;
  }
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (in->getOperandNumber() == e.cOperand)
      continue;
    AffineMap map = g.getMatchingIndexingMap(in);
    if (map.getNumResults() > 2)
      return false;
    unsigned last = 0;
    for (auto [i, r] : llvm::enumerate(map.getResults())) {
      unsigned d = cast<AffineDimExpr>(r).getPosition();
      if (i > 0 && d <= last)
        return false;
      last = d;
    }
  }
  return true;
}

void accel::emitRegisterEpilogue(OpBuilder &b, Location loc, BlockEpilogue &e,
                                 Value acc, Value row, Value col, Value mask) {
  linalg::GenericOp g = e.generic;
  int64_t lanes = cast<VectorType>(acc.getType()).getNumElements();
  auto vecOf = [&](Type elt) { return VectorType::get({lanes}, elt); };
  // A row of `buffer` at `indices` (the last one the column), masked.
  auto loadRow = [&](Value buffer, ValueRange indices) -> Value {
    Type elt = cast<MemRefType>(buffer.getType()).getElementType();
    if (!mask)
      return vector::LoadOp::create(b, loc, vecOf(elt), buffer, indices);
    Value pass = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vecOf(elt), b.getZeroAttr(elt)));
    return vector::MaskedLoadOp::create(b, loc, vecOf(elt), buffer, indices,
                                        mask, pass);
  };
  Block &body = g.getRegion().front();
  IRMapping mapping;
  mapping.map(body.getArgument(e.cOperand), acc);
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (in->getOperandNumber() == e.cOperand)
      continue;
    Value buffer = in->get();
    AffineMap map = g.getMatchingIndexingMap(in);
    SmallVector<Value> indices;
    bool alongN = false;
    for (AffineExpr r : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(r).getPosition();
      indices.push_back(d == 0 ? row : col);
      alongN |= d == 1;
    }
    Value v;
    if (alongN) {
      v = loadRow(buffer, indices);
    } else {
      Type elt = cast<MemRefType>(buffer.getType()).getElementType();
      Value scalar = memref::LoadOp::create(b, loc, buffer, indices);
      v = vector::BroadcastOp::create(b, loc, vecOf(elt), scalar);
    }
    mapping.map(body.getArgument(in->getOperandNumber()), v);
  }
  Value output = e.output();
  BlockArgument outArg = body.getArguments().back();
  if (!e.inPlace && !outArg.use_empty())
    mapping.map(outArg, loadRow(output, {row, col}));
  // Scalars from outside the body (constants) become splats.
  auto operand = [&](Value v) -> Value {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Value splat = vector::BroadcastOp::create(b, loc, vecOf(v.getType()), v);
    mapping.map(v, splat);
    return splat;
  };
  for (Operation &op : body.without_terminator()) {
    Type type = vecOf(op.getResult(0).getType());
    Attribute value;
    if (matchPattern(&op, m_Constant(&value))) {
      // A constant in the body: its splat.
      mapping.map(op.getResult(0),
                  arith::ConstantOp::create(
                      b, loc, type,
                      DenseElementsAttr::get(cast<ShapedType>(type), value)));
      continue;
    }
    for (Value v : op.getOperands())
      (void)operand(v);
    // The same op on vectors (its properties kept).
    Operation *vectorOp = b.clone(op, mapping);
    vectorOp->getResult(0).setType(type);
  }
  Value result = operand(body.getTerminator()->getOperand(0));
  if (mask)
    vector::MaskedStoreOp::create(b, loc, output, ValueRange{row, col}, mask,
                                  result);
  else
    vector::StoreOp::create(b, loc, result, output, ValueRange{row, col});
}

bool accel::readAfter(linalg::GenericOp epilogue, Value c) {
  Value root = rootBuffer(c);
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != epilogue->getBlock())
    return true;
  for (Operation *op = epilogue->getNextNode(); op; op = op->getNextNode()) {
    if (isa<memref::DeallocOp>(op))
      continue;
    WalkResult uses = op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (rootBuffer(v) == root)
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (uses.wasInterrupted())
      return true;
  }
  return false;
}
