//===- PagedAttention.cpp - decode attention over a paged KV cache --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel.paged_attention's two lowerings:
// - the reference (convert-accel-to-linalg): every sequence's keys and
//   values gathered from the pool into contiguous [B, Hkv, N * T, D]
//   tensors, then the accel.attention they define;
// - flash-decoding (accel-decompose-attention): the query heads of a KV
//   head packed into the rows of one query tile, the keys split into
//   ranges run in parallel, pages gathered a step at a time into one key
//   tile, and a combine of the splits' partial softmax states.
// Both first check the block table and the lengths: an invalid sequence
// reads nothing from the pool and gets NaN outputs.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "accel/Conversion/AccelToLinalg/AccelToLinalg.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::builders;
using utils::IteratorType;

/// How many steps ahead flash-decoding prefetches its pages.
static constexpr int64_t kPrefetchSteps = 1;

namespace {
/// The sizes of one paged attention (all static but B and P).
struct PagedShape {
  int64_t hq, sq, d, page, hkv, dv, pages;
  int64_t group() const { return hq / hkv; }
  int64_t rows() const { return group() * sq; }
  int64_t capacity() const { return pages * page; }
};
} // namespace

static PagedShape shapeOf(PagedAttentionOp op) {
  auto q = op.getQuery().getType(), k = op.getKeyCache().getType(),
       v = op.getValueCache().getType();
  return {q.getDimSize(1), q.getDimSize(2), q.getDimSize(3), k.getDimSize(1),
          k.getDimSize(2), v.getDimSize(3), op.getMaxPages()};
}

static Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// An integer element of `t` at `indices` as an index (not clamped).
static Value indexAt(OpBuilder &b, Location loc, Value t, ValueRange indices) {
  Value v = tensor::ExtractOp::create(b, loc, t, indices);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// valid[b] (tensor<B x i1>): 0 <= kv_lengths[b] <= N * T and every page
/// that holds a key of sequence b is in [0, P).
static Value pagedValidity(OpBuilder &b, Location loc, PagedAttentionOp op,
                           const PagedShape &ps) {
  int64_t nB = op.getQuery().getType().getDimSize(0);
  SmallVector<Value> extents;
  if (ShapedType::isDynamic(nB))
    extents.push_back(tensor::DimOp::create(b, loc, op.getQuery(), 0));
  // Equal by the verifier and the AOT libraries' size checks; the smaller
  // of the two all the same.
  Value pool = arith::MinSIOp::create(
      b, loc, tensor::DimOp::create(b, loc, op.getKeyCache(), 0),
      tensor::DimOp::create(b, loc, op.getValueCache(), 0));
  auto type = RankedTensorType::get({nB}, b.getI1Type());
  auto gen = tensor::GenerateOp::create(b, loc, type, extents);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&gen.getBody(), {}, {b.getIndexType()}, {loc});
    Value bi = body->getArgument(0);
    using P = arith::CmpIPredicate;
    Value c0 = idx(b, loc, 0);
    Value len = indexAt(b, loc, op.getKvLengths(), bi);
    Value lenOk = arith::AndIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, P::sge, len, c0),
        arith::CmpIOp::create(b, loc, P::sle, len, idx(b, loc, ps.capacity())));
    // The pages holding keys: ceil(len / T) of the clamped length.
    Value clamped =
        arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, len, c0),
                               idx(b, loc, ps.capacity()));
    Value used =
        arith::CeilDivSIOp::create(b, loc, clamped, idx(b, loc, ps.page));
    auto loop =
        scf::ForOp::create(b, loc, c0, used, idx(b, loc, 1), ValueRange{lenOk});
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value p = indexAt(b, loc, op.getBlockTable(),
                        ValueRange{bi, loop.getInductionVar()});
      Value inPool = arith::AndIOp::create(
          b, loc, arith::CmpIOp::create(b, loc, P::sge, p, c0),
          arith::CmpIOp::create(b, loc, P::slt, p, pool));
      scf::YieldOp::create(
          b, loc,
          ValueRange{
              arith::AndIOp::create(b, loc, loop.getRegionIterArgs()[0], inPool)
                  .getResult()});
    }
    tensor::YieldOp::create(b, loc, loop.getResult(0));
  }
  return gen.getResult();
}

/// Calls `callee` (`() -> ()`, declared in the module if it is not there)
/// when some sequence is invalid.
/// The function `callee` (`() -> ()`), declared in the module if it is not
/// there; an error at `op` for a symbol of another kind or type. Called
/// before a pattern changes anything.
static FailureOr<func::FuncOp> failureFunction(PagedAttentionOp op,
                                               StringRef callee) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return op.emitOpError("index-failure-callee needs a module to declare '")
           << callee << "' in";
  auto type = FunctionType::get(op.getContext(), {}, {});
  auto fn = module.lookupSymbol<func::FuncOp>(callee);
  if (!fn) {
    if (module.lookupSymbol(callee))
      return op.emitOpError("index-failure-callee '")
             << callee << "' names a symbol that is not a function";
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    fn = func::FuncOp::create(mb, op.getLoc(), callee, type);
    fn.setPrivate();
  } else if (fn.getFunctionType() != type) {
    return op.emitOpError("index-failure-callee '")
           << callee << "' has type " << fn.getFunctionType()
           << ", expected () -> ()";
  }
  return fn;
}

/// Calls `fn` when some sequence is invalid.
static void callOnInvalid(OpBuilder &b, Location loc, Value valid,
                          func::FuncOp fn) {
  // all(valid) as a reduction to a 0-d tensor.
  MLIRContext *ctx = b.getContext();
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, b.getI1Type());
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
  init = linalg::FillOp::create(b, loc, yes, init).result();
  Value all =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{valid}, ValueRange{init},
          SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx),
                                 AffineMap::get(1, 0, {}, ctx)},
          SmallVector<IteratorType>{IteratorType::reduction},
          [&](OpBuilder &nb, Location l, ValueRange a) {
            yieldValue(nb, l, arith::AndIOp::create(nb, l, a[0], a[1]));
          })
          .getResult(0);
  Value ok = tensor::ExtractOp::create(b, loc, all, ValueRange{});
  auto ifOp = scf::IfOp::create(
      b, loc,
      arith::XOrIOp::create(b, loc, ok,
                            arith::ConstantIntOp::create(b, loc, 1, 1)),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  func::CallOp::create(b, loc, fn, ValueRange{});
}

/// The validity of every sequence (pagedValidity), and with a non-empty
/// `callee` a call of it when some sequence is invalid; fails, having
/// changed nothing, when `callee` names something else.
static FailureOr<Value> checkedValidity(OpBuilder &b, Location loc,
                                        PagedAttentionOp op,
                                        const PagedShape &ps,
                                        StringRef callee) {
  func::FuncOp onInvalid;
  if (!callee.empty()) {
    FailureOr<func::FuncOp> fn = failureFunction(op, callee);
    if (failed(fn))
      return failure();
    onInvalid = *fn;
  }
  Value valid = pagedValidity(b, loc, op, ps);
  if (onInvalid)
    callOnInvalid(b, loc, valid, onInvalid);
  return valid;
}

/// O, or NaN where the sequence is invalid: a generic over O's shape
/// reading `valid` per batch element.
static Value poisonInvalid(OpBuilder &b, Location loc, Value valid, Value o) {
  MLIRContext *ctx = b.getContext();
  auto oT = cast<RankedTensorType>(o.getType());
  int64_t rank = oT.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap batch = AffineMap::get(rank, 0, {getAffineDimExpr(0, ctx)}, ctx);
  Type elt = oT.getElementType();
  return linalg::GenericOp::create(
             b, loc, oT, ValueRange{valid}, ValueRange{o},
             SmallVector<AffineMap>{batch, id},
             SmallVector<IteratorType>(rank, IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value nan = arith::ConstantOp::create(
                   nb, l, nb.getFloatAttr(elt, std::nan("")));
               yieldValue(nb, l,
                          arith::SelectOp::create(nb, l, a[0], a[1], nan));
             })
      .getResult(0);
}

/// A statically shaped float tensor in f32 (itself when it is f32).
static Value widenToF32(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  Type f32 = b.getF32Type();
  if (type.getElementType() == f32)
    return t;
  int64_t rank = type.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value wide = tensor::EmptyOp::create(b, loc, type.getShape(), f32);
  return linalg::GenericOp::create(
             b, loc, wide.getType(), ValueRange{t}, ValueRange{wide},
             SmallVector<AffineMap>{id, id},
             SmallVector<IteratorType>(rank, IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               yieldValue(nb, l, builders::cast(nb, l, a[0], f32));
             })
      .getResult(0);
}

/// A rank-reduced [rows, cols] slice of a 4-D tensor.
static Value slice2d(OpBuilder &b, Location loc, Value source,
                     ArrayRef<OpFoldResult> offsets,
                     ArrayRef<OpFoldResult> sizes, int64_t rows, int64_t cols) {
  auto srcT = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto type = RankedTensorType::get({rows, cols}, srcT.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, type, source, offsets, sizes,
                                        strides);
}

namespace {
//===----------------------------------------------------------------------===//
// The reference lowering
//===----------------------------------------------------------------------===//

struct PagedAttentionToLinalg : public OpRewritePattern<PagedAttentionOp> {
  PagedAttentionToLinalg(MLIRContext *ctx, std::string failureCallee)
      : OpRewritePattern(ctx), failureCallee(std::move(failureCallee)) {}
  std::string failureCallee;

  LogicalResult matchAndRewrite(PagedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    PagedShape ps = shapeOf(op);
    FailureOr<Value> checked =
        checkedValidity(rewriter, loc, op, ps, failureCallee);
    if (failed(checked))
      return failure();
    Value valid = *checked;
    OpFoldResult batch = tensor::getMixedSize(rewriter, loc, op.getQuery(), 0);
    auto gathered = [&](Value pool, int64_t width) {
      Type elt = cast<RankedTensorType>(pool.getType()).getElementType();
      SmallVector<OpFoldResult> sizes = {batch, rewriter.getIndexAttr(ps.hkv),
                                         rewriter.getIndexAttr(ps.capacity()),
                                         rewriter.getIndexAttr(width)};
      Value e = tensor::EmptyOp::create(rewriter, loc, sizes, elt);
      Value zero =
          arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(elt));
      return linalg::FillOp::create(rewriter, loc, zero, e).result();
    };
    Value c0 = idx(rewriter, loc, 0), c1 = idx(rewriter, loc, 1);
    OpFoldResult zero = rewriter.getIndexAttr(0),
                 one = rewriter.getIndexAttr(1);
    // for b, n: if page n holds keys of a valid sequence b, its [T, Hkv, x]
    // block goes, transposed to [Hkv, T, x], to keys [n T, (n + 1) T).
    auto outer = scf::ForOp::create(
        rewriter, loc, c0,
        getValueOrCreateConstantIndexOp(rewriter, loc, batch), c1,
        ValueRange{gathered(op.getKeyCache(), ps.d),
                   gathered(op.getValueCache(), ps.dv)});
    rewriter.setInsertionPointToStart(outer.getBody());
    Value bi = outer.getInductionVar();
    Value len = indexAt(rewriter, loc, op.getKvLengths(), bi);
    Value ok = tensor::ExtractOp::create(rewriter, loc, valid, ValueRange{bi});
    auto inner =
        scf::ForOp::create(rewriter, loc, c0, idx(rewriter, loc, ps.pages), c1,
                           outer.getRegionIterArgs());
    rewriter.setInsertionPointToStart(inner.getBody());
    Value n = inner.getInductionVar();
    Value first =
        arith::MulIOp::create(rewriter, loc, n, idx(rewriter, loc, ps.page));
    Value holds = arith::AndIOp::create(
        rewriter, loc, ok,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, first,
                              len));
    auto ifOp = scf::IfOp::create(
        rewriter, loc, ValueRange(inner.getRegionIterArgs()).getTypes(), holds,
        /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      Value page =
          indexAt(rewriter, loc, op.getBlockTable(), ValueRange{bi, n});
      SmallVector<Value> next;
      for (auto [pool, dest, width] :
           {std::tuple<Value, Value, int64_t>{
                op.getKeyCache(), inner.getRegionIterArgs()[0], ps.d},
            {op.getValueCache(), inner.getRegionIterArgs()[1], ps.dv}}) {
        Type elt = cast<RankedTensorType>(pool.getType()).getElementType();
        auto blockT = RankedTensorType::get({ps.page, ps.hkv, width}, elt);
        Value block = tensor::ExtractSliceOp::create(
            rewriter, loc, blockT, pool,
            ArrayRef<OpFoldResult>{page, zero, zero, zero},
            ArrayRef<OpFoldResult>{one, rewriter.getIndexAttr(ps.page),
                                   rewriter.getIndexAttr(ps.hkv),
                                   rewriter.getIndexAttr(width)},
            ArrayRef<OpFoldResult>{one, one, one, one});
        Value tInit = tensor::EmptyOp::create(
            rewriter, loc, ArrayRef<int64_t>{ps.hkv, ps.page, width}, elt);
        Value t = linalg::TransposeOp::create(rewriter, loc, block, tInit,
                                              ArrayRef<int64_t>{1, 0, 2})
                      .getResult()[0];
        next.push_back(tensor::InsertSliceOp::create(
            rewriter, loc, t, dest,
            ArrayRef<OpFoldResult>{bi, zero, first, zero},
            ArrayRef<OpFoldResult>{one, rewriter.getIndexAttr(ps.hkv),
                                   rewriter.getIndexAttr(ps.page),
                                   rewriter.getIndexAttr(width)},
            ArrayRef<OpFoldResult>{one, one, one, one}));
      }
      scf::YieldOp::create(rewriter, loc, next);
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(rewriter, loc, inner.getRegionIterArgs());
    }
    rewriter.setInsertionPointAfter(ifOp);
    scf::YieldOp::create(rewriter, loc, ifOp.getResults());
    rewriter.setInsertionPointAfter(inner);
    scf::YieldOp::create(rewriter, loc, inner.getResults());
    rewriter.setInsertionPointAfter(outer);

    // Lengths of the invalid sequences are 0: their rows are NaN below.
    auto lenT = cast<RankedTensorType>(op.getKvLengths().getType());
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    Value lenInit = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{batch}, lenT.getElementType());
    Value lengths =
        linalg::GenericOp::create(
            rewriter, loc, lenInit.getType(),
            ValueRange{op.getKvLengths(), valid}, ValueRange{lenInit},
            SmallVector<AffineMap>(3, id1),
            SmallVector<IteratorType>{IteratorType::parallel},
            [&](OpBuilder &nb, Location l, ValueRange a) {
              Value z = arith::ConstantOp::create(
                  nb, l, nb.getZeroAttr(lenT.getElementType()));
              yieldValue(nb, l, arith::SelectOp::create(nb, l, a[1], a[0], z));
            })
            .getResult(0);
    if (lengths.getType() != lenT)
      lengths = tensor::CastOp::create(rewriter, loc, lenT, lengths);
    // Keys and values past each length: zeros (the last page's rows past
    // the length are not the sequence's; the pool may hold NaN there).
    auto clearPast = [&](Value t) {
      auto type = cast<RankedTensorType>(t.getType());
      AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
      AffineMap batchMap =
          AffineMap::get(4, 0, {getAffineDimExpr(0, ctx)}, ctx);
      Type elt = type.getElementType();
      return linalg::GenericOp::create(
                 rewriter, loc, type, ValueRange{lengths}, ValueRange{t},
                 SmallVector<AffineMap>{batchMap, id4},
                 SmallVector<IteratorType>(4, IteratorType::parallel),
                 [&](OpBuilder &nb, Location l, ValueRange a) {
                   Value j = linalg::IndexOp::create(nb, l, 2);
                   Value n = arith::IndexCastOp::create(
                       nb, l, nb.getIndexType(), a[0]);
                   Value in = arith::CmpIOp::create(
                       nb, l, arith::CmpIPredicate::slt, j, n);
                   Value z =
                       arith::ConstantOp::create(nb, l, nb.getZeroAttr(elt));
                   yieldValue(nb, l,
                              arith::SelectOp::create(nb, l, in, a[1], z));
                 })
          .getResult(0);
    };
    Value o = AttentionOp::create(
        rewriter, loc, op.getInit().getType(), op.getQuery(),
        clearPast(outer.getResult(0)), clearPast(outer.getResult(1)),
        /*mask=*/Value(), lengths,
        /*q_lengths=*/Value(), /*diagonal=*/Value(), op.getInit(),
        rewriter.getF32FloatAttr(float(op.getEffectiveScale())), op.getCausal(),
        /*window=*/IntegerAttr());
    rewriter.replaceOp(op, poisonInvalid(rewriter, loc, valid, o));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Flash-decoding
//===----------------------------------------------------------------------===//

/// acc + P[:, col0 : col0 + T] · V for one page `vPage` [T, Dv] read where it
/// lies: blocks of `pvRows` rows x `pvCols` columns of the accumulator, each
/// row's columns one f32 vector kept in registers across the page's first
/// `kept` keys (V's row widened in registers, times P's element broadcast).
/// The keys past the length are never read (a pool may hold NaN there), so
/// neither a copy of V nor a mask is needed. pvCols divides Dv.
static Value emitPagePV(OpBuilder &b, Location loc, Value p, Value vPage,
                        Value acc, Value col0, Value kept, int64_t rows,
                        int64_t dv, int64_t pvRows, int64_t pvCols) {
  Type f32 = b.getF32Type();
  Type vElt = cast<RankedTensorType>(vPage.getType()).getElementType();
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto vecF = VectorType::get({pvCols}, f32);
  OpBuilder::InsertionGuard g(b);
  auto rowBlocks =
      scf::ForOp::create(b, loc, c(0), c(rows), c(pvRows), ValueRange{acc});
  b.setInsertionPointToStart(rowBlocks.getBody());
  Value r0 = rowBlocks.getInductionVar();
  auto colBlocks = scf::ForOp::create(b, loc, c(0), c(dv), c(pvCols),
                                      rowBlocks.getRegionIterArgs());
  b.setInsertionPointToStart(colBlocks.getBody());
  Value c0 = colBlocks.getInductionVar();
  Value tile = colBlocks.getRegionIterArgs()[0];
  SmallVector<Value> rowIdx, accs;
  for (int64_t i = 0; i < pvRows; ++i) {
    rowIdx.push_back(arith::AddIOp::create(b, loc, r0, c(i)));
    accs.push_back(vector::TransferReadOp::create(
        b, loc, vecF, tile, ValueRange{rowIdx[i], c0}, std::nullopt,
        ArrayRef<bool>{true}));
  }
  auto keys = scf::ForOp::create(b, loc, c(0), kept, c(1), accs);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(keys.getBody());
    Value j = keys.getInductionVar();
    Value v = vector::TransferReadOp::create(
        b, loc, VectorType::get({pvCols}, vElt), vPage, ValueRange{j, c0},
        std::nullopt, ArrayRef<bool>{true});
    if (vElt != f32)
      v = arith::ExtFOp::create(b, loc, vecF, v);
    Value col = arith::AddIOp::create(b, loc, col0, j);
    SmallVector<Value> next;
    for (int64_t i = 0; i < pvRows; ++i) {
      Value pij =
          tensor::ExtractOp::create(b, loc, p, ValueRange{rowIdx[i], col});
      Value pv = vector::BroadcastOp::create(b, loc, vecF, pij);
      next.push_back(
          vector::FMAOp::create(b, loc, pv, v, keys.getRegionIterArgs()[i]));
    }
    scf::YieldOp::create(b, loc, next);
  }
  for (int64_t i = 0; i < pvRows; ++i)
    tile = vector::TransferWriteOp::create(b, loc, keys.getResult(i), tile,
                                           ValueRange{rowIdx[i], c0},
                                           ArrayRef<bool>{true})
               .getResult();
  scf::YieldOp::create(b, loc, tile);
  b.setInsertionPointAfter(colBlocks);
  scf::YieldOp::create(b, loc, colBlocks.getResults());
  return rowBlocks.getResult(0);
}

struct DecomposePagedAttention : public OpRewritePattern<PagedAttentionOp> {
  DecomposePagedAttention(MLIRContext *ctx, int64_t pagesPerStep,
                          int64_t splits, int64_t headsPerTask,
                          std::array<int64_t, 2> pvTile,
                          std::string failureCallee)
      : OpRewritePattern(ctx), pagesPerStep(pagesPerStep), splits(splits),
        headsPerTask(headsPerTask), pvTile(pvTile),
        failureCallee(std::move(failureCallee)) {}

  LogicalResult matchAndRewrite(PagedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    PagedShape ps = shapeOf(op);
    if (ps.hq == 0 || ps.sq == 0 || ps.pages == 0)
      return rewriter.notifyMatchFailure(
          op, "no query heads, queries or pages: the reference lowering's");
    int64_t pps = pagesPerStep, nSplits = splits, heads = headsPerTask;
    std::array<int64_t, 2> pv = pvTile;
    if (auto config =
            op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
        config && config.getKernel() == "cpu-paged-flash" &&
        config.getTile().size() >= 2) {
      pps = config.getTile()[0];
      nSplits = config.getTile()[1];
      heads = config.getTile().size() == 3 ? config.getTile()[2] : 0;
      if (config.getMma().size() == 2)
        llvm::copy(config.getMma(), pv.begin());
    }
    // P · V's register tile fitted to the op: rows a divisor of G · Sq, the
    // columns the greatest power of two dividing Dv (at most the tile's);
    // below 8 columns (Dv = 5) V is widened into a copy and contracted by
    // accel.matmul instead.
    int64_t pvRows = std::clamp<int64_t>(pv[0], 1, ps.rows());
    while (ps.rows() % pvRows)
      --pvRows;
    int64_t pvCols = int64_t(llvm::bit_floor(uint64_t(
        std::max<int64_t>(1, std::min<int64_t>(pv[1], ps.dv & -ps.dv)))));
    bool pvInPlace = pvCols >= 8;
    pps = std::clamp<int64_t>(pps, 1, ps.pages);
    int64_t steps = (ps.pages + pps - 1) / pps;
    nSplits = std::clamp<int64_t>(nSplits, 1, steps);
    int64_t stepsPerSplit = (steps + nSplits - 1) / nSplits;
    nSplits = (steps + stepsPerSplit - 1) / stepsPerSplit;
    int64_t tk = pps * ps.page, rows = ps.rows();
    // KV heads per task (0: all); the forall runs the groups of heads.
    int64_t hpt = heads <= 0 ? ps.hkv : std::gcd(heads, ps.hkv);
    Type f32 = rewriter.getF32Type();
    Type kElt = op.getKeyCache().getType().getElementType();
    MLIRContext *ctx = rewriter.getContext();
    OpFoldResult zero = rewriter.getIndexAttr(0),
                 one = rewriter.getIndexAttr(1);
    auto ia = [&](int64_t v) -> OpFoldResult {
      return rewriter.getIndexAttr(v);
    };

    FailureOr<Value> checked =
        checkedValidity(rewriter, loc, op, ps, failureCallee);
    if (failed(checked))
      return failure();
    Value valid = *checked;
    OpFoldResult batch = tensor::getMixedSize(rewriter, loc, op.getQuery(), 0);

    // Q [B, Hq, Sq, D] as [B, Hkv, G Sq, D]: row r of KV head h is query
    // r mod Sq of query head h G + r floordiv Sq.
    auto packed = [&](Value t, int64_t width) {
      auto type = cast<RankedTensorType>(t.getType());
      int64_t b = type.getDimSize(0);
      auto expanded = RankedTensorType::get(
          {b, ps.hkv, ps.group(), ps.sq, width}, type.getElementType());
      Value e = tensor::ExpandShapeOp::create(
          rewriter, loc, expanded, t,
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
      return tensor::CollapseShapeOp::create(
                 rewriter, loc, e,
                 SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4}})
          .getResult();
    };
    Value q = packed(op.getQuery(), ps.d);

    // The splits' partial states.
    auto partial = [&](ArrayRef<int64_t> tail) {
      SmallVector<OpFoldResult> sizes = {batch, ia(ps.hkv), ia(nSplits)};
      for (int64_t t : tail)
        sizes.push_back(ia(t));
      return tensor::EmptyOp::create(rewriter, loc, sizes, f32).getResult();
    };
    Value mAll = partial({rows}), lAll = partial({rows}),
          accAll = partial({rows, ps.dv});
    auto forall = scf::ForallOp::create(
        rewriter, loc,
        ArrayRef<OpFoldResult>{batch, ia(ps.hkv / hpt), ia(nSplits)},
        ValueRange{mAll, lAll, accAll}, std::nullopt);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(forall.getBody());
      Value bi = forall.getInductionVar(0), si = forall.getInductionVar(2);
      // The task's first KV head.
      Value h0 = arith::MulIOp::create(rewriter, loc, forall.getInductionVar(1),
                                       idx(rewriter, loc, hpt));
      Value c0 = idx(rewriter, loc, 0);
      // An invalid sequence has no keys here (and NaN rows below).
      Value ok =
          tensor::ExtractOp::create(rewriter, loc, valid, ValueRange{bi});
      Value len = arith::SelectOp::create(
          rewriter, loc, ok, indexAt(rewriter, loc, op.getKvLengths(), bi), c0);
      Value usedSteps = arith::CeilDivSIOp::create(rewriter, loc, len,
                                                   idx(rewriter, loc, tk));
      // The sequence's pages that hold keys (the key loop below prefetches
      // a later step's while this step reads its own).
      Value usedPages = arith::CeilDivSIOp::create(rewriter, loc, len,
                                                   idx(rewriter, loc, ps.page));
      Value t0 = arith::MinSIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, si,
                                idx(rewriter, loc, stepsPerSplit)),
          usedSteps);
      Value t1 = arith::MinSIOp::create(
          rewriter, loc,
          arith::AddIOp::create(rewriter, loc, t0,
                                idx(rewriter, loc, stepsPerSplit)),
          usedSteps);
      // The task's query rows [hpt, G Sq, D], in f32 (read as vectors for
      // every key).
      Value qTiles = tensor::ExtractSliceOp::create(
          rewriter, loc,
          RankedTensorType::get({hpt, rows, ps.d},
                                op.getQuery().getType().getElementType()),
          q, ArrayRef<OpFoldResult>{bi, h0, zero, zero},
          ArrayRef<OpFoldResult>{one, ia(hpt), ia(rows), ia(ps.d)},
          ArrayRef<OpFoldResult>{one, one, one, one});
      Value qFs = widenToF32(rewriter, loc, qTiles);
      AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
      AttentionBand band;
      band.kvLength = len;
      // Causal: query i sits at len - Sq + i (only cuts for Sq > 1).
      if (op.getCausal() && ps.sq > 1)
        band.offset = arith::SubIOp::create(rewriter, loc, len,
                                            idx(rewriter, loc, ps.sq));
      FlashState state{filledTensor(rewriter, loc, {ia(hpt), ia(rows)}, f32,
                                    negInfAttr(rewriter)),
                       filledTensor(rewriter, loc, {ia(hpt), ia(rows)}, f32,
                                    rewriter.getF32FloatAttr(0.0f)),
                       filledTensor(rewriter, loc,
                                    {ia(hpt), ia(rows), ia(ps.dv)}, f32,
                                    rewriter.getF32FloatAttr(0.0f))};
      // The pools as buffers, for the prefetches only (read_only: no copy).
      auto bufferOf = [&](Value pool) {
        auto type = cast<RankedTensorType>(pool.getType());
        return bufferization::ToBufferOp::create(
                   rewriter, loc,
                   MemRefType::get(type.getShape(), type.getElementType()),
                   pool, /*read_only=*/true)
            .getResult();
      };
      Value kBuffer = bufferOf(op.getKeyCache()),
            vBuffer = bufferOf(op.getValueCache());
      int64_t eltBytes = std::max<int64_t>(1, kElt.getIntOrFloatBitWidth() / 8);
      auto stepLoop =
          scf::ForOp::create(rewriter, loc, t0, t1, idx(rewriter, loc, 1),
                             ValueRange{state.m, state.l, state.acc});
      rewriter.setInsertionPointToStart(stepLoop.getBody());
      Value t = stepLoop.getInductionVar();
      Value k0 =
          arith::MulIOp::create(rewriter, loc, t, idx(rewriter, loc, tk));
      // The task's KV heads one after the other on the step's pages (the
      // heads of a token lie together in the pool).
      auto headLoop = scf::ForOp::create(
          rewriter, loc, idx(rewriter, loc, 0), idx(rewriter, loc, hpt),
          idx(rewriter, loc, 1), ValueRange(stepLoop.getRegionIterArgs()));
      rewriter.setInsertionPointToStart(headLoop.getBody());
      Value hh = headLoop.getInductionVar();
      Value hi = arith::AddIOp::create(rewriter, loc, h0, hh);
      auto headState = [&](Value all, bool isAcc) {
        SmallVector<OpFoldResult> offsets = {hh, zero}, sizes = {one, ia(rows)};
        SmallVector<int64_t> shape = {rows};
        if (isAcc) {
          offsets.push_back(zero);
          sizes.push_back(ia(ps.dv));
          shape.push_back(ps.dv);
        }
        SmallVector<OpFoldResult> strides(offsets.size(), one);
        return tensor::ExtractSliceOp::create(rewriter, loc,
                                              RankedTensorType::get(shape, f32),
                                              all, offsets, sizes, strides)
            .getResult();
      };
      auto headArgs = headLoop.getRegionIterArgs();
      Value qF = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({rows, ps.d}, f32), qFs,
          ArrayRef<OpFoldResult>{hh, zero, zero},
          ArrayRef<OpFoldResult>{one, ia(rows), ia(ps.d)},
          ArrayRef<OpFoldResult>{one, one, one});
      // The step's pages, each read where it lies in the pool: `body` runs
      // on page n of the sequence at key column col0 of the step; pages past
      // the sequence's end are skipped (never read; their logits are
      // masked below).
      auto pageOf = [&](Value pool, Value n, int64_t width) {
        Value page =
            indexAt(rewriter, loc, op.getBlockTable(), ValueRange{bi, n});
        return slice2d(rewriter, loc, pool, {page, zero, hi, zero},
                       {one, ia(ps.page), one, ia(width)}, ps.page, width);
      };
      auto forPages =
          [&](Value init,
              function_ref<Value(Value n, Value col0, Value acc)> body)
          -> Value {
        if (pps == 1)
          return body(t, idx(rewriter, loc, 0), init);
        auto loop = scf::ForOp::create(rewriter, loc, idx(rewriter, loc, 0),
                                       idx(rewriter, loc, pps),
                                       idx(rewriter, loc, 1), ValueRange{init});
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(loop.getBody());
        Value p = loop.getInductionVar();
        Value n = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, t, idx(rewriter, loc, pps)),
            p);
        Value holds = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::slt,
            arith::MulIOp::create(rewriter, loc, n,
                                  idx(rewriter, loc, ps.page)),
            len);
        auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{init.getType()},
                                      holds, /*withElseRegion=*/true);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        Value col0 = arith::MulIOp::create(rewriter, loc, p,
                                           idx(rewriter, loc, ps.page));
        scf::YieldOp::create(rewriter, loc,
                             body(n, col0, loop.getRegionIterArgs()[0]));
        rewriter.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(rewriter, loc, loop.getRegionIterArgs()[0]);
        rewriter.setInsertionPointAfter(ifOp);
        scf::YieldOp::create(rewriter, loc, ifOp.getResults());
        return loop.getResult(0);
      };

      // S = Q_packed · Kᵀ in f32, as dot products along D of each key row
      // where it lies (no transposed copy of the page): s[r, j] is the
      // reassociated sum of one D-wide vector product.
      Value sInit = filledTensor(rewriter, loc, {ia(rows), ia(tk)}, f32,
                                 rewriter.getF32FloatAttr(0.0f));
      Value s = forPages(sInit, [&](Value n, Value col0, Value sAcc) -> Value {
        Value kPage = pageOf(op.getKeyCache(), n, ps.d);
        Value c0i = idx(rewriter, loc, 0);
        // The page kPrefetchSteps steps ahead at this page's place in its
        // step (this page again on the last steps: no branch, a prefetch of
        // lines in the cache). The pages lie anywhere in the pool, where no
        // hardware prefetcher finds them, and a step's own reads alone leave
        // DRAM's latency exposed. Each key row below prefetches that page's
        // rows of the same key and head, K and V, every 64-byte line, so the
        // prefetches are spread over the step's work: all of a step's issued
        // at its start (1024 for 16-token pages of 8 heads of 128 bf16)
        // took 37 % of a bf16 call's samples, and the dot products waited
        // behind them (docs/decode-attention.md).
        Value aheadN = arith::MinSIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, n,
                                  idx(rewriter, loc, pps * kPrefetchSteps)),
            arith::SubIOp::create(rewriter, loc, usedPages,
                                  idx(rewriter, loc, 1)));
        Value aheadPage =
            indexAt(rewriter, loc, op.getBlockTable(), ValueRange{bi, aheadN});
        auto keys =
            scf::ForOp::create(rewriter, loc, c0i, idx(rewriter, loc, ps.page),
                               idx(rewriter, loc, 1), ValueRange{sAcc});
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(keys.getBody());
        Value j = keys.getInductionVar();
        int64_t perLine = std::max<int64_t>(1, 64 / eltBytes);
        for (auto [buffer, width] :
             {std::pair<Value, int64_t>{kBuffer, ps.d}, {vBuffer, ps.dv}})
          for (int64_t c = 0; c < width; c += perLine)
            memref::PrefetchOp::create(
                rewriter, loc, buffer,
                ValueRange{aheadPage, j, hi, idx(rewriter, loc, c)},
                /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
        Value kRow = vector::TransferReadOp::create(
            rewriter, loc, VectorType::get({ps.d}, kElt), kPage,
            ValueRange{j, c0i}, std::nullopt, ArrayRef<bool>{true});
        if (kElt != f32)
          kRow = arith::ExtFOp::create(rewriter, loc,
                                       VectorType::get({ps.d}, f32), kRow);
        Value col = arith::AddIOp::create(rewriter, loc, col0, j);
        auto qRows = scf::ForOp::create(
            rewriter, loc, c0i, idx(rewriter, loc, rows), idx(rewriter, loc, 1),
            ValueRange{keys.getRegionIterArgs()[0]});
        {
          OpBuilder::InsertionGuard g2(rewriter);
          rewriter.setInsertionPointToStart(qRows.getBody());
          Value r = qRows.getInductionVar();
          Value qRow = vector::TransferReadOp::create(
              rewriter, loc, VectorType::get({ps.d}, f32), qF,
              ValueRange{r, c0i}, std::nullopt, ArrayRef<bool>{true});
          auto fm =
              arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
          Value prod = arith::MulFOp::create(rewriter, loc, qRow, kRow, fm);
          Value dot = vector::ReductionOp::create(
              rewriter, loc, vector::CombiningKind::ADD, prod, fm);
          Value next = tensor::InsertOp::create(rewriter, loc, dot,
                                                qRows.getRegionIterArgs()[0],
                                                ValueRange{r, col});
          scf::YieldOp::create(rewriter, loc, next);
        }
        scf::YieldOp::create(rewriter, loc, qRows.getResult(0));
        return keys.getResult(0);
      });
      double scale = op.getEffectiveScale() * 1.4426950408889634;
      Value scaleV = arith::ConstantOp::create(
          rewriter, loc, rewriter.getF32FloatAttr(float(scale)));
      Value deferredScale;
      if (scale > 0) {
        deferredScale = scaleV;
      } else {
        s = linalg::GenericOp::create(
                rewriter, loc, s.getType(), ValueRange{}, ValueRange{s},
                SmallVector<AffineMap>{id2},
                SmallVector<IteratorType>(2, IteratorType::parallel),
                [&](OpBuilder &nb, Location l, ValueRange a) {
                  yieldValue(nb, l, arith::MulFOp::create(nb, l, a[0], scaleV));
                })
                .getResult(0);
      }
      // Steps the sequence's end (or the causal band of a later query)
      // cuts are masked by index: row r is query r mod Sq.
      Value cut = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sgt,
          arith::AddIOp::create(rewriter, loc, k0, idx(rewriter, loc, tk)),
          band.offset ? band.offset : len);
      auto maskIf = scf::IfOp::create(rewriter, loc, TypeRange{s.getType()},
                                      cut, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(maskIf.thenBlock());
        Value masked = linalg::GenericOp::create(
                           rewriter, loc, s.getType(), ValueRange{},
                           ValueRange{s}, SmallVector<AffineMap>{id2},
                           SmallVector<IteratorType>(2, IteratorType::parallel),
                           [&](OpBuilder &nb, Location l, ValueRange a) {
                             Value i = arith::RemUIOp::create(
                                 nb, l, linalg::IndexOp::create(nb, l, 0),
                                 arith::ConstantIndexOp::create(nb, l, ps.sq));
                             Value j = arith::AddIOp::create(
                                 nb, l, linalg::IndexOp::create(nb, l, 1), k0);
                             Value keep = bandKeep(nb, l, band, i, j);
                             Value negInf = arith::ConstantOp::create(
                                 nb, l, nb.getF32FloatAttr(-INFINITY));
                             yieldValue(nb, l,
                                        arith::SelectOp::create(nb, l, keep,
                                                                a[0], negInf));
                           })
                           .getResult(0);
        scf::YieldOp::create(rewriter, loc, masked);
        rewriter.setInsertionPointToStart(maskIf.elseBlock());
        scf::YieldOp::create(rewriter, loc, s);
      }
      s = maskIf.getResult(0);
      // acc += P · V page by page: on the page where it lies in a register
      // tile (emitPagePV), else V read from the pool by one elementwise pass
      // (widened to f32 for the contraction kernel, the rows past the length
      // zeroed) times P's columns of the page.
      auto pv = [&](Value p, Value acc) -> Value {
        return forPages(acc, [&](Value n, Value col0, Value accIn) -> Value {
          if (pvInPlace) {
            // The page's keys up to the length (at least one: the page is
            // read only when it holds keys).
            Value kept = arith::MinSIOp::create(
                rewriter, loc,
                arith::SubIOp::create(
                    rewriter, loc, len,
                    arith::MulIOp::create(rewriter, loc, n,
                                          idx(rewriter, loc, ps.page))),
                idx(rewriter, loc, ps.page));
            return emitPagePV(rewriter, loc, p,
                              pageOf(op.getValueCache(), n, ps.dv), accIn, col0,
                              kept, rows, ps.dv, pvRows, pvCols);
          }
          // The last page's rows past the length are not the sequence's
          // (a pool may hold NaN there): zeros, since 0 · NaN would reach
          // the output through P's zero columns. One elementwise pass that
          // also widens V to f32 for the contraction kernel, on every page
          // (an scf.if around it made the AOT library 3.5x slower: the
          // buffers its branches yield were allocated per page).
          Value vRaw = pageOf(op.getValueCache(), n, ps.dv);
          Value kept = arith::SubIOp::create(
              rewriter, loc, len,
              arith::MulIOp::create(rewriter, loc, n,
                                    idx(rewriter, loc, ps.page)));
          Value wide = tensor::EmptyOp::create(
              rewriter, loc, ArrayRef<int64_t>{ps.page, ps.dv}, f32);
          Value vPage =
              linalg::GenericOp::create(
                  rewriter, loc, wide.getType(), ValueRange{vRaw},
                  ValueRange{wide}, SmallVector<AffineMap>{id2, id2},
                  SmallVector<IteratorType>(2, IteratorType::parallel),
                  [&](OpBuilder &nb, Location l, ValueRange a) {
                    Value row = linalg::IndexOp::create(nb, l, 0);
                    Value in = arith::CmpIOp::create(
                        nb, l, arith::CmpIPredicate::slt, row, kept);
                    Value zeroF = arith::ConstantOp::create(
                        nb, l, nb.getF32FloatAttr(0.0f));
                    yieldValue(nb, l,
                               arith::SelectOp::create(
                                   nb, l, in, builders::cast(nb, l, a[0], f32),
                                   zeroF));
                  })
                  .getResult(0);
          Value pPage = tensor::ExtractSliceOp::create(
              rewriter, loc, RankedTensorType::get({rows, ps.page}, f32), p,
              ArrayRef<OpFoldResult>{zero, col0},
              ArrayRef<OpFoldResult>{ia(rows), ia(ps.page)},
              ArrayRef<OpFoldResult>{one, one});
          return MatmulOp::create(rewriter, loc, accIn.getType(), pPage, vPage,
                                  Value(), Value(), accIn,
                                  /*transpose_b=*/false, /*accumulate=*/true)
              .getResult();
        });
      };
      FlashState next = flashUpdate(
          rewriter, loc, s, deferredScale, /*vTile=*/Value(), /*roundP=*/false,
          ia(rows), ia(tk), ps.dv,
          {headState(headArgs[0], false), headState(headArgs[1], false),
           headState(headArgs[2], true)},
          pv);
      SmallVector<Value> updated;
      SmallVector<Value> nextValues = {next.m, next.l, next.acc};
      for (auto [k, v] : llvm::enumerate(nextValues)) {
        bool isAcc = k == 2;
        SmallVector<OpFoldResult> offsets = {hh, zero}, sizes = {one, ia(rows)};
        if (isAcc) {
          offsets.push_back(zero);
          sizes.push_back(ia(ps.dv));
        }
        SmallVector<OpFoldResult> strides(offsets.size(), one);
        updated.push_back(tensor::InsertSliceOp::create(
            rewriter, loc, v, headArgs[k], offsets, sizes, strides));
      }
      scf::YieldOp::create(rewriter, loc, updated);
      rewriter.setInsertionPointAfter(headLoop);
      scf::YieldOp::create(rewriter, loc, headLoop.getResults());
      rewriter.setInsertionPointAfter(stepLoop);

      rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
      auto out = forall.getRegionIterArgs();
      for (auto [k, v] : llvm::enumerate(stepLoop.getResults())) {
        bool isAcc = k == 2;
        SmallVector<OpFoldResult> offsets = {bi, h0, si, zero};
        SmallVector<OpFoldResult> sizes = {one, ia(hpt), one, ia(rows)};
        if (isAcc) {
          offsets.push_back(zero);
          sizes.push_back(ia(ps.dv));
        }
        SmallVector<OpFoldResult> strides(offsets.size(), one);
        tensor::ParallelInsertSliceOp::create(rewriter, loc, v, out[k], offsets,
                                              sizes, strides);
      }
    }

    // The combine: M = max_s m_s (0 when -inf), w_s = exp2(m_s - M),
    // O = Σ w_s acc_s / Σ w_s l_s (0 where the sum is 0), NaN for an
    // invalid sequence.
    Value mParts = forall.getResult(0), lParts = forall.getResult(1),
          accParts = forall.getResult(2);
    auto dims = [&](ArrayRef<unsigned> d, unsigned n) {
      SmallVector<AffineExpr> e;
      for (unsigned x : d)
        e.push_back(getAffineDimExpr(x, ctx));
      return AffineMap::get(n, 0, e, ctx);
    };
    // Over (b, h, r, s).
    SmallVector<IteratorType> rowRed = {
        IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
        IteratorType::reduction};
    auto rowsTensor = [&](TypedAttr fill) {
      return filledTensor(rewriter, loc, {batch, ia(ps.hkv), ia(rows)}, f32,
                          fill);
    };
    Value mMax =
        linalg::GenericOp::create(
            rewriter, loc, rowsTensor(negInfAttr(rewriter)).getType(),
            ValueRange{mParts}, ValueRange{rowsTensor(negInfAttr(rewriter))},
            SmallVector<AffineMap>{dims({0, 1, 3, 2}, 4), dims({0, 1, 2}, 4)},
            rowRed,
            [&](OpBuilder &nb, Location l, ValueRange a) {
              yieldValue(nb, l, arith::MaximumFOp::create(nb, l, a[0], a[1]));
            })
            .getResult(0);
    // acc + 2^(m_s - M) x over (m_s, x, M, acc): the sums of the combine.
    auto weighted = [&](OpBuilder &nb, Location l, ValueRange a) {
      Value w = math::Exp2Op::create(
          nb, l, arith::SubFOp::create(nb, l, a[0], safeMax(nb, l, a[2])));
      yieldValue(nb, l, math::FmaOp::create(nb, l, w, a[1], a[3]));
    };
    Value zeroF = rowsTensor(rewriter.getF32FloatAttr(0.0f));
    Value den =
        linalg::GenericOp::create(
            rewriter, loc, zeroF.getType(), ValueRange{mParts, lParts, mMax},
            ValueRange{zeroF},
            SmallVector<AffineMap>{dims({0, 1, 3, 2}, 4), dims({0, 1, 3, 2}, 4),
                                   dims({0, 1, 2}, 4), dims({0, 1, 2}, 4)},
            rowRed, weighted)
            .getResult(0);
    // Over (b, h, r, dv, s).
    Value numInit =
        filledTensor(rewriter, loc, {batch, ia(ps.hkv), ia(rows), ia(ps.dv)},
                     f32, rewriter.getF32FloatAttr(0.0f));
    Value num = linalg::GenericOp::create(
                    rewriter, loc, numInit.getType(),
                    ValueRange{mParts, accParts, mMax}, ValueRange{numInit},
                    SmallVector<AffineMap>{
                        dims({0, 1, 4, 2}, 5), dims({0, 1, 4, 2, 3}, 5),
                        dims({0, 1, 2}, 5), dims({0, 1, 2, 3}, 5)},
                    SmallVector<IteratorType>{
                        IteratorType::parallel, IteratorType::parallel,
                        IteratorType::parallel, IteratorType::parallel,
                        IteratorType::reduction},
                    weighted)
                    .getResult(0);
    Value oPacked = packed(op.getInit(), ps.dv);
    auto oPackedT = cast<RankedTensorType>(oPacked.getType());
    Type oElt = oPackedT.getElementType();
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    Value o =
        linalg::GenericOp::create(
            rewriter, loc, oPackedT, ValueRange{num, den, valid},
            ValueRange{oPacked},
            SmallVector<AffineMap>{id4, dims({0, 1, 2}, 4), dims({0}, 4), id4},
            SmallVector<IteratorType>(4, IteratorType::parallel),
            [&](OpBuilder &nb, Location l, ValueRange a) {
              Value x = builders::cast(nb, l, safeDiv(nb, l, a[0], a[1]), oElt);
              Value nan = arith::ConstantOp::create(
                  nb, l, nb.getFloatAttr(oElt, std::nan("")));
              yieldValue(nb, l, arith::SelectOp::create(nb, l, a[2], x, nan));
            })
            .getResult(0);
    auto initT = op.getInit().getType();
    auto expandedT = RankedTensorType::get(
        {initT.getDimSize(0), ps.hkv, ps.group(), ps.sq, ps.dv}, oElt);
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, expandedT, o,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4}});
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, initT, expanded,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    rewriter.replaceOp(op, result);
    return success();
  }

  int64_t pagesPerStep, splits, headsPerTask;
  std::array<int64_t, 2> pvTile;
  std::string failureCallee;
};
} // namespace

void accel::populateAccelPagedAttentionToLinalgPatterns(
    RewritePatternSet &patterns, StringRef indexFailureCallee) {
  patterns.add<PagedAttentionToLinalg>(patterns.getContext(),
                                       indexFailureCallee.str());
}

void accel::populateDecomposePagedAttentionPatterns(
    RewritePatternSet &patterns, int64_t pagesPerStep, int64_t splits,
    int64_t headsPerTask, ArrayRef<int64_t> pvTile,
    StringRef indexFailureCallee) {
  assert(pvTile.size() == 2 && "P · V tile [rows, columns]");
  patterns.add<DecomposePagedAttention>(
      patterns.getContext(), pagesPerStep, splits, headsPerTask,
      std::array<int64_t, 2>{pvTile[0], pvTile[1]}, indexFailureCallee.str());
}
