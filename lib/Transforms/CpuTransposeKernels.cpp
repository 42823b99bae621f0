//===- CpuTransposeKernels.cpp - blocked transposes in registers ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-transpose-kernels: a linalg.transpose on buffers that swaps the
// two innermost dimensions (what accel-cpu-transpose-rhs makes of a
// matmul's B as [N, K], a linear layer's weight) becomes blocks
// transposed in registers. A block is 64 bytes square (16 x 16 f32,
// 32 x 32 bf16, 64 x 64 i8): each 16 source rows of it, as 16 x 16 32-bit
// words, are transposed by 4 rounds of shuffles (vector.transpose, lowered
// here with upstream's Shuffle16x16); a word then holds p = 32 / width
// consecutive elements of one source row, so each destination row is
// gathered from the p transposed rows of words by shuffles and stored as
// one 64-byte line. Destination rows are the outer loop: each is written
// left to right, each source line read once. The rows and columns past the
// last whole block are copied element by element. With `threads` the
// blocks of destination rows are shared by an scf.forall.
// Before, the transpose became loops that read the source with a stride
// of a row per element: 12 ns an element, 200 ms for a 4096 x 4096 weight.
//
//===----------------------------------------------------------------------===//

#include "DotGemm.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUTRANSPOSEKERNELSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

/// Rows of a block, and 32-bit words of each.
constexpr int64_t kBlock = 16;
/// Blocks a tile has along each dimension.
constexpr int64_t kTile = 8;
/// Destinations from this size on are written with non-temporal stores
/// (larger than a core's L2).
constexpr int64_t kStreamingBytes = 4 << 20;

/// Whether `op` swaps the two innermost dimensions of buffers of 8-, 16-
/// or 32-bit elements with contiguous rows, keeping the others.
bool isInnerTranspose(linalg::TransposeOp op) {
  if (!op.hasPureBufferSemantics())
    return false;
  auto in = dyn_cast<MemRefType>(op.getInput().getType());
  auto out = dyn_cast<MemRefType>(op.getInit().getType());
  if (!in || !out || in.getRank() < 2 || !in.getElementType().isIntOrFloat() ||
      !accel::unitInnerStride(in) || !accel::unitInnerStride(out))
    return false;
  unsigned width = in.getElementTypeBitWidth();
  if (width != 8 && width != 16 && width != 32)
    return false;
  ArrayRef<int64_t> perm = op.getPermutation();
  int64_t rank = in.getRank();
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (perm[d] != d)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

struct TransposeBuilder {
  OpBuilder &b;
  Location loc;
  linalg::TransposeOp op;
  int64_t threads;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, idx(y));
  }
  Value roundDown(Value x, int64_t m) {
    return mul(arith::DivUIOp::create(b, loc, x, idx(m)), m);
  }
  /// An scf.for over [lo, hi) step `step` with `b` in its body (callers
  /// hold an InsertionGuard); its induction variable.
  Value loop(Value lo, Value hi, int64_t step) {
    auto l = scf::ForOp::create(b, loc, lo, hi, idx(step));
    b.setInsertionPointToStart(l.getBody());
    return l.getInductionVar();
  }

  /// out[.., j, i] = in[.., i, j] element by element for i in [i0, i1),
  /// j in [j0, j1).
  void copyElements(ValueRange outer, Value i0, Value i1, Value j0, Value j1) {
    OpBuilder::InsertionGuard guard(b);
    Value i = loop(i0, i1, 1);
    Value j = loop(j0, j1, 1);
    SmallVector<Value> from(outer), to(outer);
    from.append({i, j});
    to.append({j, i});
    memref::StoreOp::create(b, loc,
                            memref::LoadOp::create(b, loc, op.getInput(), from),
                            op.getInit(), to);
  }

  /// The block of source rows [i, i + 16 p) and columns [j, j + 16 p) at
  /// destination rows [j, j + 16 p), columns [i, i + 16 p): p transposes
  /// of 16 x 16 words (16 source rows each), and for each destination row
  /// its 16 p elements gathered from the p transposed rows of words by
  /// shuffles, one 64-byte store.
  void block(ValueRange outer, Value i, Value j, Type elt, int64_t p,
             Value rows, bool streaming, llvm::MaybeAlign storeAlign) {
    // The source lines of the block after the next (rows i + 2 edge ..,
    // clamped to the last row) into L1: a block's 16 p rows are lines a
    // row apart, which the hardware prefetchers do not follow.
    Value lastRow = arith::SubIOp::create(b, loc, rows, idx(1));
    for (int64_t r = 0; r < kBlock * p; ++r) {
      SmallVector<Value> at(outer);
      at.append(
          {arith::MinUIOp::create(b, loc, add(i, 2 * kBlock * p + r), lastRow),
           j});
      memref::PrefetchOp::create(b, loc, op.getInput(), at,
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
    }
    auto rowType = VectorType::get({kBlock * p}, elt);
    // Per part, the columns of its transposed square of words.
    SmallVector<SmallVector<Value>> t;
    for (int64_t part = 0; part < p; ++part) {
      SmallVector<Value> rows;
      for (int64_t r = 0; r < kBlock; ++r) {
        SmallVector<Value> at(outer);
        at.append({add(i, kBlock * part + r), j});
        rows.push_back(
            vector::LoadOp::create(b, loc, rowType, op.getInput(), at));
      }
      t.push_back(accel::transposeWords(b, loc, rows));
    }
    for (int64_t w = 0; w < kBlock; ++w) {
      // Word w of every source row: elements j + p w .. j + p w + p - 1,
      // interleaved; element q of each word is destination row j + p w +
      // q, whose columns i + 16 part .. come from transpose `part`.
      SmallVector<Value> rowsOfWords;
      for (ArrayRef<Value> columns : t)
        rowsOfWords.push_back(
            vector::BitCastOp::create(b, loc, rowType, columns[w]));
      for (int64_t q = 0; q < p; ++q) {
        Value dst = rowsOfWords[0];
        if (p > 1) {
          // Pairs of parts: 16 elements (lanes q, q + p, ..) of each.
          SmallVector<Value> halves;
          for (int64_t part = 0; part < p; part += 2) {
            SmallVector<int64_t> lanes;
            for (int64_t h = 0; h < 2; ++h)
              for (int64_t r = 0; r < kBlock; ++r)
                lanes.push_back(h * kBlock * p + r * p + q);
            halves.push_back(vector::ShuffleOp::create(
                b, loc, rowsOfWords[part], rowsOfWords[part + 1], lanes));
          }
          dst = halves[0];
          if (halves.size() == 2) {
            SmallVector<int64_t> lanes;
            for (int64_t l = 0; l < 4 * kBlock; ++l)
              lanes.push_back(l);
            dst =
                vector::ShuffleOp::create(b, loc, halves[0], halves[1], lanes);
          }
        }
        SmallVector<Value> at(outer);
        at.append({add(j, p * w + q), i});
        vector::StoreOp::create(b, loc, dst, op.getInit(), at, streaming,
                                storeAlign);
      }
    }
  }

  void build() {
    auto inType = cast<MemRefType>(op.getInput().getType());
    int64_t rank = inType.getRank();
    Type elt = inType.getElementType();
    int64_t p = 32 / inType.getElementTypeBitWidth();
    int64_t edge = kBlock * p;
    // A destination of kStreamingBytes or more (static) is written with
    // non-temporal stores: no read for ownership of each line (whose rows
    // are a row apart), and the cache keeps what the consumer reads. A
    // measured A/B (bf16 4096 x 4096, one thread): 19.4 against 28.3 ms.
    auto outType = cast<MemRefType>(op.getInit().getType());
    bool streaming =
        outType.hasStaticShape() &&
        outType.getNumElements() * outType.getElementTypeBitWidth() / 8 >=
            kStreamingBytes;
    // Every block row starts on a 64-byte boundary when the destination is
    // an allocation aligned so, laid out row-major with rows a multiple of
    // 64 bytes (a block's columns start 64 bytes apart): the stores say so,
    // and a non-temporal one is then one vmovntdq, not eight movnti.
    llvm::MaybeAlign storeAlign;
    auto alloc = op.getInit().getDefiningOp<memref::AllocOp>();
    if (alloc && alloc.getAlignment() && *alloc.getAlignment() >= 64 &&
        outType.hasStaticShape() && outType.getLayout().isIdentity() &&
        outType.getDimSize(rank - 1) * outType.getElementTypeBitWidth() / 8 %
                64 ==
            0)
      storeAlign = llvm::Align(64);
    OpBuilder::InsertionGuard guard(b);
    // The leading (batch) dimensions, one loop each.
    SmallVector<Value> outer;
    for (int64_t d = 0; d + 2 < rank; ++d)
      outer.push_back(
          loop(idx(0), memref::DimOp::create(b, loc, op.getInput(), d), 1));
    Value rows = memref::DimOp::create(b, loc, op.getInput(), rank - 2);
    Value cols = memref::DimOp::create(b, loc, op.getInput(), rank - 1);
    Value rowsInBlocks = roundDown(rows, edge);
    Value colsInBlocks = roundDown(cols, edge);
    {
      // Whole blocks, in tiles of kTile x kTile blocks (512 bytes of each
      // of 512 bytes' worth of rows: a tile's rows touch one page each, so
      // its lines are read without a page walk each, as a sweep down 64
      // bytes of every row of a 4096-row weight would). Tiles of
      // destination rows outermost, each written left to right in full
      // 64-byte lines; each source line is read once. Tasks: consecutive
      // tiles of destination rows.
      OpBuilder::InsertionGuard g2(b);
      bool parallel =
          threads > 1 && outer.empty() && !accel::insideParallelLoop(op);
      int64_t tasks = parallel ? threads : 1;
      Value colBlocks = arith::DivUIOp::create(b, loc, cols, idx(edge));
      Value rowBlocks = arith::DivUIOp::create(b, loc, rows, idx(edge));
      auto ceilDiv = [&](Value x, int64_t d) {
        return arith::DivUIOp::create(b, loc, add(x, d - 1), idx(d))
            .getResult();
      };
      Value colTiles = ceilDiv(colBlocks, kTile);
      Value per = ceilDiv(colTiles, tasks);
      Value task = accel::openLoop(b, loc, tasks, parallel);
      Value first = arith::MulIOp::create(b, loc, task, per);
      Value last = arith::MinUIOp::create(b, loc, add(first, per), colTiles);
      Value jt = loop(first, last, 1);
      Value it = loop(idx(0), ceilDiv(rowBlocks, kTile), 1);
      auto blocksOf = [&](Value tile, Value count) -> std::pair<Value, Value> {
        Value lo = mul(tile, kTile);
        return {lo, arith::MinUIOp::create(b, loc, add(lo, kTile), count)};
      };
      auto [jLo, jHi] = blocksOf(jt, colBlocks);
      auto [iLo, iHi] = blocksOf(it, rowBlocks);
      Value j = mul(loop(jLo, jHi, 1), edge);
      Value i = mul(loop(iLo, iHi, 1), edge);
      block(outer, i, j, elt, p, rows, streaming, storeAlign);
    }
    // The columns past the last whole block, for the rows in blocks; then
    // the rows past them, all columns.
    copyElements(outer, idx(0), rowsInBlocks, colsInBlocks, cols);
    copyElements(outer, rowsInBlocks, rows, idx(0), cols);
  }
};

struct AccelCpuTransposeKernelsPass
    : public accel::impl::AccelCpuTransposeKernelsPassBase<
          AccelCpuTransposeKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> ops;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (isInnerTranspose(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    OpBuilder builder(&getContext());
    for (linalg::TransposeOp op : ops) {
      builder.setInsertionPoint(op);
      TransposeBuilder{builder, op.getLoc(), op, threads}.build();
      op->erase();
    }
    if (failed(accel::lowerWordTransposes(getOperation())))
      return signalPassFailure();
  }
};

} // namespace
