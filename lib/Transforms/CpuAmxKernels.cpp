//===- CpuAmxKernels.cpp - bf16 and int8 GEMMs on AMX tiles ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-amx-kernels: bf16 x bf16 -> f32 and i8 x i8 -> i32 contractions
// on Intel AMX through upstream's `amx` dialect (see the pass description).
// One tdpbf16ps multiplies a 16 x 32 bf16 tile of A by a 32 x 16 tile of B
// into 16 x 16 f32 sums (16384 flops: 16x a zmm vdpbf16ps); tdpbssd the
// same with 16 x 64 i8 tiles into i32.
//
//===----------------------------------------------------------------------===//

#include "BlockEpilogue.h"
#include "BufferAccess.h"
#include "DotGemm.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUAMXKERNELSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using accel::DotGemm;
using accel::DotKind;

namespace {
/// The widest row pitch at which A's tiles load from A itself rather than
/// from a packed copy: 16 rows of a tile then span at most 4 KiB, one
/// 64-byte row in each of 16 L1 sets, like a packed 1 KiB tile's. Wider
/// pitches pack (at 4 KiB every row of a tile is in the same L1 set:
/// 2048^3 bf16 measured 1.17x slower in place).
constexpr int64_t kAPitchLimit = 256;

/// Columns of B per piece packed in the loops (packsInLoop): a piece is
/// [kc, kPieceCols] (1 MiB of bf16 at kc = 2048), packed from runs of 512
/// bytes of each of B's rows and then used by the row tiles of its eight
/// 32-column panels while it is in L2 (32-column pieces, runs of 64 bytes
/// of rows 16 KiB apart, were 1.3x slower; docs/cpu-performance.md).
constexpr int64_t kPieceCols = 256;

/// Whether A's tiles can load from A in place: whole 16-row tiles and whole
/// k steps, contiguous rows of static pitch at most kAPitchLimit bytes.
/// FlashAttention's P (bf16 [tq, tk], written rounded by the softmax pass)
/// and its query tile ([tq, d]) are such buffers; packing them was a copy
/// of every element.
bool aLoadsInPlace(const DotGemm &g, int64_t kstep) {
  auto type = dyn_cast<MemRefType>(g.a.getType());
  if (!type || type.getRank() != 2 || g.m % 16 || g.k % kstep ||
      !accel::unitInnerStride(type))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides[0]))
    return false;
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return strides[0] * bytes <= kAPitchLimit && strides[0] >= g.k;
}

/// Emits the AMX kernel of one GEMM in place of its op.
///
/// Every tile is whole and A and B tiles are contiguous 1 KiB blocks: A and
/// B are packed once per call (packA; DotGemm.h's packDotB: one 16-column
/// block of `kstep` k values, rows 64 bytes apart), zeros past M, N and K,
/// or B piece by piece in the loops when M is one M block (packsInLoop);
/// C is written in place when 16 divides M and N, else through a padded
/// copy (copied in unless the GEMM starts from zero, copied back after).
struct AmxBuilder {
  AmxBuilder(OpBuilder &b, Location loc, const DotGemm &g,
             accel::CpuAmxTiles t)
      : b(b), loc(loc), g(g), t(t) {}

  OpBuilder &b;
  Location loc;
  const DotGemm &g;
  accel::CpuAmxTiles t;
  /// C starts from zero (a zero fill preceded the GEMM and is removed): the
  /// first K block's tiles start from tile_zero instead of loading C.
  bool zeroStart = false;

  /// k values per tile multiply (32 bf16, 64 i8) and per 32-bit lane.
  int64_t kstep = 0, group = 0;
  /// M, N rounded up to 16 and K to kstep.
  int64_t mp = 0, np = 0, kp = 0;
  /// What the tiles read and write: packed A and B, C or its padded copy.
  Value aSrc, bPacked, cDst;
  /// A's tiles load from A itself (its rows `kAPitchLimit` bytes apart at
  /// most): aSrc is A, indexed [row, k], not a packed [Mp / 16, Kp / kstep,
  /// 16, kstep] buffer.
  bool aInPlace = false;
  /// When A is the bf16 rounding of an f32 buffer (fusedTruncation): that
  /// buffer and the truncation, which packA applies while it packs.
  Value aF32;
  arith::TruncFOp aTrunc;
  /// The elementwise epilogue after the GEMM (findBlockEpilogue): applied
  /// to each C block after its last K block, while the block is in L1; with
  /// a padded C, in the copy back instead.
  std::optional<accel::BlockEpilogue> epilogue;
  /// B is packed piece by piece right before its tiles are used instead of
  /// whole before the loops (packsInLoop): each (K block, kPieceCols
  /// columns) piece of B into `bPiece` ([min(kPieceCols, Np) / 16, kc / G,
  /// 16 G], one per region: each thread its own), which the kernels then
  /// index from the piece's first column (pieceCol0) and the K block's k.
  bool packInLoop = false;
  Value bPiece, pieceCol0;
  /// The columns of the current region's full panels: every task's (or the
  /// only region's), and the last task's.
  int64_t panelWidth = 0, lastPanelWidth = 0;

  /// The last K block's C tiles go to a small buffer of one register block
  /// ([mr, nr] f32/i32, allocated per region: each thread its own), which
  /// the epilogue reads while it writes C or its output: C is written once
  /// (in place) or never (out of place, nothing reads C after).
  bool useScratch = false;
  Value scratch;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, int64_t y) {
    return y == 0 ? x : arith::AddIOp::create(b, loc, x, idx(y)).getResult();
  }
  Type inType() { return g.inputType(); }
  Type accType() { return g.accumulatorType(); }
  amx::TileType inTile() { return amx::TileType::get({16, kstep}, inType()); }
  amx::TileType accTile() { return amx::TileType::get({16, 16}, accType()); }

  /// A [rows, cols] buffer for C: zeros with `src` in its top-left corner,
  /// or, unless `copy`, uninitialized (the GEMM starts from zero and its
  /// first K block stores every tile).
  Value padded(Value src, int64_t rows, int64_t cols, bool copy) {
    auto srcType = cast<MemRefType>(src.getType());
    Type elt = srcType.getElementType();
    Value buf = memref::AllocOp::create(
        b, loc, MemRefType::get({rows, cols}, elt), b.getI64IntegerAttr(64));
    if (copy) {
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
      linalg::FillOp::create(b, loc, zero, buf);
      Value corner = memref::SubViewOp::create(
          b, loc, buf, ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(srcType.getDimSize(0)),
                                 b.getIndexAttr(srcType.getDimSize(1))},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
      linalg::CopyOp::create(b, loc, src, corner);
    }
    return buf;
  }

  /// A packed in whole tiles: [Mp / 16, Kp / kstep, 16, kstep], row r's k
  /// values [kstep kt, kstep kt + kstep) at [r / 16, kt, r mod 16, 0], zeros
  /// past M and K. A row tile's K loop then reads 1 KiB tiles one after
  /// the other; in place, its 16 rows lie K elements apart (4 KiB at K =
  /// 2048 bf16: every row in the same L1 set), which measured 1.17x slower
  /// on 2048^3 bf16 (790 against 928 GFLOP/s, docs/cpu-performance.md).
  Value packA(bool parallel) {
    Type elt = inType();
    Value packed = memref::AllocOp::create(
        b, loc, MemRefType::get({mp / 16, kp / kstep, 16, kstep}, elt),
        b.getI64IntegerAttr(64));
    VectorType chunk = VectorType::get({kstep}, elt);
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(chunk, b.getZeroAttr(elt)));
    Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
    int64_t fullChunks = g.k / kstep;
    // A read from aF32 and rounded here (the truncation's attributes, e.g.
    // accel.bf16_flush, kept).
    auto round = [&](Value v) -> Value {
      if (!aF32)
        return v;
      auto t = arith::TruncFOp::create(b, loc, chunk, v);
      t->setDiscardableAttrs(aTrunc->getDiscardableAttrDictionary());
      return t;
    };
    VectorType readChunk =
        aF32 ? VectorType::get({kstep}, b.getF32Type()) : chunk;
    Value readSrc = aF32 ? aF32 : g.a;
    Value readPad =
        aF32 ? arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0))
                   .getResult()
             : pad;
    auto store = [&](Value v, Value row, Value kt) {
      Value tileRow = arith::DivUIOp::create(b, loc, row, idx(16));
      Value within = arith::RemUIOp::create(b, loc, row, idx(16));
      vector::StoreOp::create(b, loc, v, packed,
                              ValueRange{tileRow, kt, within, idx(0)});
    };
    {
      OpBuilder::InsertionGuard guard(b);
      Value row = accel::openLoop(b, loc, g.m, parallel);
      if (fullChunks > 0) {
        OpBuilder::InsertionGuard g2(b);
        auto chunks = scf::ForOp::create(b, loc, idx(0), idx(fullChunks),
                                         idx(1));
        b.setInsertionPointToStart(chunks.getBody());
        Value kt = chunks.getInductionVar();
        Value k = arith::MulIOp::create(b, loc, kt, idx(kstep));
        store(round(vector::LoadOp::create(b, loc, readChunk, readSrc,
                                           ValueRange{row, k})),
              row, kt);
      }
      if (kp > g.k) {
        // The last, partial chunk: A's remaining values, then zeros.
        Value v = vector::TransferReadOp::create(
            b, loc, readChunk, readSrc,
            ValueRange{row, idx(fullChunks * kstep)}, readPad,
            ArrayRef<bool>{false});
        store(round(v), row, idx(fullChunks));
      }
    }
    if (mp > g.m) {
      OpBuilder::InsertionGuard guard(b);
      auto rows = scf::ForOp::create(b, loc, idx(g.m), idx(mp), idx(1));
      b.setInsertionPointToStart(rows.getBody());
      auto chunks = scf::ForOp::create(b, loc, idx(0), idx(kp / kstep),
                                       idx(1));
      b.setInsertionPointToStart(chunks.getBody());
      store(zeros, rows.getInductionVar(), chunks.getInductionVar());
    }
    return packed;
  }

  /// The C block of `tm` x `tn` tiles at (row0, col0) over the k steps
  /// [k0, k0 + steps x kstep): C tiles held in tile registers across the K
  /// loop, each A tile multiplied by the tn B tiles and each B tile by the
  /// tm A tiles.
  /// With `last` and a scratch, the tiles go to the scratch's `slot` (null:
  /// 0) and the epilogue follows, unless `during` is given: it is emitted
  /// at the end of every K step (given the step; the previous block's
  /// epilogue, a few rows a step) and the caller applies this block's
  /// later.
  void kernel(Value row0, int64_t tm, Value col0, int64_t tn, Value k0,
              int64_t steps, bool zero, bool last, Value slot = {},
              llvm::function_ref<void(Value)> during = {}) {
    SmallVector<Value> acc;
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j) {
        if (zero)
          acc.push_back(amx::TileZeroOp::create(b, loc, accTile()));
        else
          acc.push_back(amx::TileLoadOp::create(
              b, loc, accTile(), cDst,
              ValueRange{add(row0, 16 * i), add(col0, 16 * j)}));
      }
    // B's block of 16 columns j: its packed panel col0 / 16 + j (in a
    // piece packed in the loop: panel j, k from the block's start).
    Value block0 = arith::DivUIOp::create(
        b, loc,
        packInLoop ? arith::SubIOp::create(b, loc, col0, pieceCol0).getResult()
                   : col0,
        idx(16));
    auto kLoop = scf::ForOp::create(b, loc, idx(0), idx(steps), idx(1), acc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value k = arith::AddIOp::create(
          b, loc, k0,
          arith::MulIOp::create(b, loc, kLoop.getInductionVar(), idx(kstep)));
      Value kk = arith::DivUIOp::create(
          b, loc,
          packInLoop ? arith::SubIOp::create(b, loc, k, k0).getResult() : k,
          idx(group));
      if (last && useScratch) {
        // The epilogue's rows of this block, spread over the K steps:
        // [step perStep, (step + 1) perStep).
        OpBuilder::InsertionGuard g2(b);
        int64_t rows = 16 * tm, perStep = llvm::divideCeil(rows, steps);
        Value row = arith::MulIOp::create(b, loc, kLoop.getInductionVar(),
                                          idx(perStep));
        if (perStep > 1) {
          Value end =
              arith::MinUIOp::create(b, loc, add(row, perStep), idx(rows));
          auto rowLoop = scf::ForOp::create(b, loc, row, end, idx(1));
          b.setInsertionPointToStart(rowLoop.getBody());
          row = rowLoop.getInductionVar();
        } else if (steps > rows) {
          auto inBlock = scf::IfOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                    idx(rows)),
              /*withElse=*/false);
          b.setInsertionPointToStart(inBlock.thenBlock());
        }
        accel::emitRowPrefetch(b, loc, *epilogue,
                               arith::AddIOp::create(b, loc, row0, row), col0,
                               16 * tn);
      }
      SmallVector<Value> aTiles, bTiles;
      Value kt = arith::DivUIOp::create(b, loc, k, idx(kstep));
      Value tileRow0 = arith::DivUIOp::create(b, loc, row0, idx(16));
      for (int64_t i = 0; i < tm; ++i)
        aTiles.push_back(
            aInPlace ? amx::TileLoadOp::create(b, loc, inTile(), aSrc,
                                               ValueRange{add(row0, 16 * i), k})
                     : amx::TileLoadOp::create(
                           b, loc, inTile(), aSrc,
                           ValueRange{add(tileRow0, i), kt, idx(0), idx(0)}));
      for (int64_t j = 0; j < tn; ++j)
        bTiles.push_back(amx::TileLoadOp::create(
            b, loc, inTile(), packInLoop ? bPiece : bPacked,
            ValueRange{add(block0, j), kk, idx(0)}));
      SmallVector<Value> next;
      ValueRange in = kLoop.getRegionIterArgs();
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j) {
          Value c = in[i * tn + j];
          if (g.kind == DotKind::Bf16)
            next.push_back(amx::TileMulFOp::create(b, loc, accTile(),
                                                   aTiles[i], bTiles[j], c));
          else
            next.push_back(amx::TileMulIOp::create(
                b, loc, accTile(), aTiles[i], bTiles[j], c,
                /*isZextLhs=*/false, /*isZextRhs=*/false));
        }
      if (last && useScratch && during)
        during(kLoop.getInductionVar());
      scf::YieldOp::create(b, loc, next);
    }
    if (last && useScratch) {
      Value at = slot ? slot : idx(0);
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j)
          amx::TileStoreOp::create(b, loc, scratch,
                                   ValueRange{at, idx(16 * i), idx(16 * j)},
                                   kLoop.getResult(i * tn + j));
      if (!during)
        epilogueFromSlot(at, row0, col0, 16 * tm, 16 * tn);
      return;
    }
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j)
        amx::TileStoreOp::create(
            b, loc, cDst, ValueRange{add(row0, 16 * i), add(col0, 16 * j)},
            kLoop.getResult(i * tn + j));
  }

  /// The epilogue of the block of `rows` x `cols` at (row0, col0) from the
  /// scratch's `slot`; with `first`, only its rows [first, first + rows).
  void epilogueFromSlot(Value slot, Value row0, Value col0, int64_t rows,
                        int64_t cols, Value first = {}) {
    auto st = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    OpFoldResult from = first ? OpFoldResult(first) : st(0);
    SmallVector<OpFoldResult> offsets{slot, from, st(0)},
        sizes{st(1), st(rows), st(cols)}, strides{st(1), st(1), st(1)};
    auto type = memref::SubViewOp::inferRankReducedResultType(
        {rows, cols}, cast<MemRefType>(scratch.getType()), offsets, sizes,
        strides);
    Value block = memref::SubViewOp::create(b, loc, cast<MemRefType>(type),
                                            scratch, offsets, sizes, strides);
    Value at =
        first ? arith::AddIOp::create(b, loc, row0, first).getResult() : row0;
    accel::emitBlockEpilogue(b, loc, *epilogue, block,
                             ArrayRef<OpFoldResult>{at, col0},
                             ArrayRef<int64_t>{rows, cols});
  }

  /// The epilogue on C's rows [row0, row0 + rows) x columns [col0, col0 +
  /// cols), read from C (not padded).
  void applyEpilogue(Value row0, int64_t rows, Value col0, int64_t cols) {
    SmallVector<OpFoldResult> offsets{row0, col0};
    SmallVector<int64_t> sizes{rows, cols};
    Value block = memref::SubViewOp::create(
        b, loc, cDst, offsets,
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(cols)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    accel::emitBlockEpilogue(b, loc, *epilogue, block, offsets, sizes);
  }

  /// The row tiles [rowBase, rowBase + rows) (rows a multiple of 16) of one
  /// column panel: blocks of mr rows, then the rest.
  void rowTiles(Value rowBase, int64_t rows, Value col0, int64_t tn, Value k0,
                int64_t steps, bool zero, bool last) {
    int64_t full = rows / t.mr * t.mr, rest = rows - full;
    if (last && useScratch && full > t.mr) {
      // Software-pipelined: block i stores its tiles to slot i mod 2 and
      // applies block i - 1's epilogue inside its K loop, ceil(mr / steps)
      // rows a step, so the epilogue's vector work issues between the tile
      // products instead of after them; the last block's follows the loop.
      OpBuilder::InsertionGuard guard(b);
      auto mLoop = scf::ForOp::create(b, loc, idx(0), idx(full), idx(t.mr));
      b.setInsertionPointToStart(mLoop.getBody());
      Value i = mLoop.getInductionVar();
      Value step = arith::DivUIOp::create(b, loc, i, idx(t.mr));
      Value slot = arith::RemUIOp::create(b, loc, step, idx(2));
      Value row = arith::AddIOp::create(b, loc, rowBase, i);
      int64_t perStep = llvm::divideCeil(t.mr, steps);
      kernel(row, t.mr / 16, col0, tn, k0, steps, zero, last, slot,
             [&](Value kStep) {
               Value notFirst = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::ne, i, idx(0));
               auto ifOp =
                   scf::IfOp::create(b, loc, notFirst, /*withElse=*/false);
               OpBuilder::InsertionGuard g2(b);
               b.setInsertionPointToStart(ifOp.thenBlock());
               Value prevSlot = arith::SubIOp::create(b, loc, idx(1), slot);
               Value prevRow = arith::SubIOp::create(b, loc, row, idx(t.mr));
               // Rows [kStep perStep, (kStep + 1) perStep) within the block
               // (a loop when there are several: the epilogue is not
               // unrolled perStep times).
               Value first = arith::MulIOp::create(b, loc, kStep, idx(perStep));
               Value at = first;
               if (perStep > 1) {
                 Value end = arith::MinUIOp::create(b, loc, add(first, perStep),
                                                    idx(t.mr));
                 auto rows = scf::ForOp::create(b, loc, first, end, idx(1));
                 b.setInsertionPointToStart(rows.getBody());
                 at = rows.getInductionVar();
               } else if (steps > t.mr) {
                 Value inBlock = arith::CmpIOp::create(
                     b, loc, arith::CmpIPredicate::ult, first, idx(t.mr));
                 auto rowIf =
                     scf::IfOp::create(b, loc, inBlock, /*withElse=*/false);
                 b.setInsertionPointToStart(rowIf.thenBlock());
               }
               epilogueFromSlot(prevSlot, prevRow, col0, 1, 16 * tn, at);
             });
      b.setInsertionPointAfter(mLoop);
      epilogueFromSlot(idx((full / t.mr - 1) % 2), add(rowBase, full - t.mr),
                       col0, t.mr, 16 * tn);
    } else if (full == t.mr) {
      kernel(rowBase, t.mr / 16, col0, tn, k0, steps, zero, last);
    } else if (full > 0) {
      OpBuilder::InsertionGuard guard(b);
      auto mLoop = scf::ForOp::create(b, loc, idx(0), idx(full), idx(t.mr));
      b.setInsertionPointToStart(mLoop.getBody());
      kernel(arith::AddIOp::create(b, loc, rowBase, mLoop.getInductionVar()),
             t.mr / 16, col0, tn, k0, steps, zero, last);
    }
    if (rest > 0)
      kernel(add(rowBase, full), rest / 16, col0, tn, k0, steps, zero, last);
    // The strip is complete: its epilogue. Not per block right after the
    // block's tile stores: loads of data that tile stores still hold
    // stall (bias + ReLU on 1024^3 bf16 ran at 0.79 of the GEMM alone per
    // block); most of the strip's blocks have left their stores by now.
    if (last && epilogue && cDst == g.c && !useScratch)
      applyEpilogue(rowBase, rows, col0, 16 * tn);
  }

  /// Packs B's rows [k0, k0 + steps kstep) x columns [col0, col0 + cols)
  /// into bPiece (packInLoop: K a multiple of kstep and N of 16, so every
  /// piece is whole).
  void packPiece(Value k0, int64_t steps, Value col0, int64_t cols) {
    auto st = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    int64_t rows = steps * kstep;
    Value slab = accel::viewOfB(b, loc, g, k0, col0, rows, cols);
    Value into = memref::SubViewOp::create(
        b, loc, bPiece, ArrayRef<OpFoldResult>{st(0), st(0), st(0)},
        ArrayRef<OpFoldResult>{st(cols / 16), st(rows / group), st(16 * group)},
        ArrayRef<OpFoldResult>{st(1), st(1), st(1)});
    DotGemm piece = g;
    piece.b = slab;
    piece.k = rows;
    piece.n = cols;
    accel::packDotB(b, loc, piece, /*nr=*/16, kstep / group,
                    /*parallel=*/false, into);
  }

  /// Every column panel of nr columns (then the rest) of the rows [rowBase,
  /// rowBase + rows) over one K block; the full panels are the tasks of an
  /// scf.forall when `parallel`.
  /// The column panels the current region runs: full panels of nr columns
  /// from `panelLo` to `panelHi` (columns; null: none), then the rest
  /// narrower than nr when `withRest`.
  Value panelLo, panelHi;
  bool withRest = true;

  /// The region's column panels of the rows [rowBase, rowBase + rows) over
  /// one K block.
  void panels(Value rowBase, int64_t rows, Value k0, int64_t steps, bool zero,
              bool last) {
    int64_t fullPanels = np / t.nr, restCols = np - fullPanels * t.nr;
    if (packInLoop) {
      // Pieces of kPieceCols columns (a multiple of nr): packed, then their
      // panels' row tiles.
      int64_t nc = std::max<int64_t>(kPieceCols / t.nr, 1) * t.nr;
      auto piece = [&](Value c0, int64_t cols) {
        packPiece(k0, steps, c0, cols);
        pieceCol0 = c0;
        int64_t tn = std::min(cols, t.nr) / 16;
        if (cols <= t.nr) {
          rowTiles(rowBase, rows, c0, tn, k0, steps, zero, last);
          return;
        }
        OpBuilder::InsertionGuard guard(b);
        auto nLoop = scf::ForOp::create(b, loc, c0, add(c0, cols), idx(t.nr));
        b.setInsertionPointToStart(nLoop.getBody());
        rowTiles(rowBase, rows, nLoop.getInductionVar(), tn, k0, steps, zero,
                 last);
      };
      auto region = [&](int64_t width) {
        int64_t full = width / nc, rest = width - full * nc;
        if (full == 1) {
          piece(panelLo, nc);
        } else if (full > 1) {
          OpBuilder::InsertionGuard guard(b);
          auto cLoop = scf::ForOp::create(b, loc, panelLo,
                                          add(panelLo, full * nc), idx(nc));
          b.setInsertionPointToStart(cLoop.getBody());
          piece(cLoop.getInductionVar(), nc);
        }
        if (rest > 0)
          piece(add(panelLo, full * nc), rest);
      };
      if (panelLo && panelWidth == lastPanelWidth)
        region(panelWidth);
      else if (panelLo)
        // The last task's panels are fewer.
        byTaskWidth(arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq,
                        arith::SubIOp::create(b, loc, panelHi, panelLo),
                        idx(panelWidth)),
                    panelWidth, lastPanelWidth, region);
      if (withRest && restCols > 0)
        piece(idx(fullPanels * t.nr), restCols);
      return;
    }
    if (panelLo) {
      OpBuilder::InsertionGuard guard(b);
      auto nLoop = scf::ForOp::create(b, loc, panelLo, panelHi, idx(t.nr));
      b.setInsertionPointToStart(nLoop.getBody());
      rowTiles(rowBase, rows, nLoop.getInductionVar(), t.nr / 16, k0, steps,
               zero, last);
    }
    if (withRest && restCols > 0)
      rowTiles(rowBase, rows, idx(fullPanels * t.nr), restCols / 16, k0, steps,
               zero, last);
  }

  /// The rows [rowBase, rowBase + rows) over every K block of kc values
  /// (the first from zero when the GEMM starts from zero; the last, with
  /// an epilogue, out of the loop: its blocks apply it).
  void kBlocks(Value rowBase, int64_t rows) {
    int64_t kc = std::min(t.kc, kp);
    int64_t fullBlocks = kp / kc, restK = kp - fullBlocks * kc;
    int64_t total = fullBlocks + (restK > 0 ? 1 : 0);
    bool epi = epilogue.has_value();
    // Full blocks [first, loopEnd) run in the loop.
    int64_t first = 0, loopEnd = fullBlocks;
    if (epi && restK == 0)
      loopEnd = fullBlocks - 1;
    if (zeroStart) {
      panels(rowBase, rows, idx(0), kc / kstep, /*zero=*/true,
             /*last=*/epi && total == 1);
      first = 1;
    }
    if (loopEnd - first == 1) {
      panels(rowBase, rows, idx(first * kc), kc / kstep, false, false);
    } else if (loopEnd - first > 1) {
      OpBuilder::InsertionGuard guard(b);
      auto kLoop = scf::ForOp::create(b, loc, idx(first * kc),
                                      idx(loopEnd * kc), idx(kc));
      b.setInsertionPointToStart(kLoop.getBody());
      panels(rowBase, rows, kLoop.getInductionVar(), kc / kstep, false, false);
    }
    // The last full block, when it was kept out of the loop and is not the
    // zero block.
    if (loopEnd < fullBlocks && loopEnd >= first)
      panels(rowBase, rows, idx(loopEnd * kc), kc / kstep, false, true);
    // (kc <= Kp: there is a whole first block, so the rest never starts
    // from zero.)
    if (restK > 0)
      panels(rowBase, rows, idx(fullBlocks * kc), restK / kstep, false, epi);
  }

  /// Every M block of mc rows (a multiple of mr; 0 or more than M: one
  /// block) over the region's panels.
  void mBlocks() {
    if (packInLoop)
      bPiece = memref::AllocOp::create(
          b, loc,
          MemRefType::get(
              {std::min(std::max<int64_t>(kPieceCols / t.nr, 1) * t.nr, np) /
                   16,
               std::min(t.kc, kp) / group, 16 * group},
              inType()),
          b.getI64IntegerAttr(64));
    if (useScratch) {
      scratch = memref::AllocOp::create(
          b, loc, MemRefType::get({2, t.mr, t.nr}, accType()),
          b.getI64IntegerAttr(64));
    }
    int64_t mc = t.mc / t.mr * t.mr;
    if (mc <= 0 || mc > mp)
      mc = mp;
    int64_t fullBlocks = mp / mc, restRows = mp - fullBlocks * mc;
    if (fullBlocks == 1) {
      kBlocks(idx(0), mc);
    } else {
      OpBuilder::InsertionGuard guard(b);
      auto mLoop =
          scf::ForOp::create(b, loc, idx(0), idx(fullBlocks * mc), idx(mc));
      b.setInsertionPointToStart(mLoop.getBody());
      kBlocks(mLoop.getInductionVar(), mc);
    }
    if (restRows > 0)
      kBlocks(idx(fullBlocks * mc), restRows);
  }

  /// The outermost scf.for around the GEMM (inside any parallel loop) that
  /// A is defined outside of and nothing in which may write A's buffer:
  /// where A can be packed once for all its iterations; null if none.
  Operation *invariantPoint() {
    Value a = g.a;
    Value root = accel::rootBuffer(a);
    Operation *point = nullptr;
    for (Operation *parent = g.op->getParentOp(); parent;
         parent = parent->getParentOp()) {
      auto loop = dyn_cast<scf::ForOp>(parent);
      if (!loop || loop.getRegion().isAncestor(a.getParentRegion()) ||
          accel::mayWrite(loop, root))
        break;
      point = loop;
    }
    return point;
  }

  /// Threads for the parallel region (build's `parallel`).
  int64_t threads = 1;

  /// Where B's buffer may be packed whole (bHoistPoint), or null.
  Operation *hoistPoint = nullptr;
  /// Buffers packed whole before the loops (hoistedB), per (buffer, kind,
  /// hoist point), shared by the pass's GEMMs.
  llvm::DenseMap<std::tuple<Value, int, Operation *>, Value> *wholePacked =
      nullptr;

  /// B packed once for all the GEMM's executions, or null: when B is a 2-D
  /// slab [r0 : r0 + K, :] of a buffer R (static shape, contiguous; every
  /// dimension before the last two indexed by one value: FlashAttention's
  /// K or V tile of a head) that nothing writes in the loops around the
  /// GEMM, and the GEMM runs more often than R has slabs' worth of B, R is
  /// packed whole before those loops ([..., N / 16, K_R / G, 16 G], each
  /// slab as packDotB would) and B is a view of it at group r0 / G. Before,
  /// each (query block, key tile) of a bf16 attention on AMX packed its
  /// key and value tiles again (~15 % of the time, docs/cpu-performance.md).
  Value hoistedB() {
    if (g.bTransposed)
      return {};
    auto view = g.b.getDefiningOp<memref::SubViewOp>();
    if (!view || !view.hasUnitStride())
      return {};
    Value whole = view.getSource();
    auto wholeType = dyn_cast<MemRefType>(whole.getType());
    int64_t rank = wholeType ? wholeType.getRank() : 0;
    if (rank < 2 || !wholeType.hasStaticShape() ||
        !wholeType.getLayout().isIdentity() ||
        accel::rootBuffer(whole) != whole ||
        cast<MemRefType>(view.getType()).getRank() != 2)
      return {};
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets(),
                              sizes = view.getMixedSizes();
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (getConstantIntValue(sizes[d]) != 1)
        return {};
    int64_t rowsWhole = wholeType.getDimSize(rank - 2);
    if (getConstantIntValue(sizes[rank - 2]) != g.k ||
        getConstantIntValue(sizes[rank - 1]) != g.n ||
        wholeType.getDimSize(rank - 1) != g.n ||
        getConstantIntValue(offsets[rank - 1]) != 0)
      return {};
    // The slab starts at a whole group and, unless it ends R, covers whole
    // tile steps (the kernel reads B up to K rounded to a step: past the
    // slab that would be the next slab's rows, not zeros).
    std::optional<int64_t> r0 = getConstantIntValue(offsets[rank - 2]);
    bool endsWhole = r0 && *r0 + g.k == rowsWhole;
    if (!multipleOf(offsets[rank - 2], group) || (g.k % kstep && !endsWhole))
      return {};
    // Outside every loop around the GEMM (the top level of its function),
    // where the pass found R written by nothing in them (hoistPoint, before
    // any kernel was emitted).
    Operation *gemm = g.op;
    Operation *point = hoistPoint;
    if (!point)
      return {};
    // Worth it: the GEMM's executions (loops of unknown trip count taken
    // as 2) pack more of B than R holds.
    double runs = 1;
    for (Operation *p = gemm->getParentOp(); p != point->getParentOp();
         p = p->getParentOp()) {
      if (auto loop = dyn_cast<scf::ForOp>(p)) {
        std::optional<APInt> trips = loop.getStaticTripCount();
        runs *= trips ? double(trips->getZExtValue()) : 2.0;
      } else if (auto forall = dyn_cast<scf::ForallOp>(p)) {
        for (OpFoldResult ub : forall.getMixedUpperBound())
          runs *= double(getConstantIntValue(ub).value_or(2));
      } else if (auto parallel = dyn_cast<scf::ParallelOp>(p)) {
        for (Value ub : parallel.getUpperBound())
          runs *= double(getConstantIntValue(ub).value_or(2));
      }
    }
    if (runs * double(g.k) * double(g.n) <= double(wholeType.getNumElements()))
      return {};
    int64_t groupsWhole =
        llvm::alignTo(llvm::divideCeil(rowsWhole, group), kstep / group);
    int64_t panels = np / 16;
    auto key = std::make_tuple(whole, int(g.kind), point);
    Value packed = wholePacked ? wholePacked->lookup(key) : Value();
    if (!packed) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(point);
      SmallVector<int64_t> shape(wholeType.getShape().drop_back(2));
      int64_t slabs = 1;
      for (int64_t d : shape)
        slabs *= d;
      shape.append({panels, groupsWhole, 16 * group});
      packed = memref::AllocOp::create(b, loc, MemRefType::get(shape, inType()),
                                       b.getI64IntegerAttr(64));
      // One task per slab (threads: an scf.forall), each packed as B.
      Value slab = accel::openLoop(b, loc, slabs, threads > 1);
      SmallVector<OpFoldResult> at, one, atPacked, sizesPacked;
      Value rest = slab;
      SmallVector<Value> lead(rank - 2);
      for (int64_t d = rank - 3; d > 0; --d) {
        int64_t extent = wholeType.getDimSize(d);
        lead[d] = arith::RemUIOp::create(b, loc, rest, idx(extent));
        rest = arith::DivUIOp::create(b, loc, rest, idx(extent));
      }
      if (rank > 2)
        lead[0] = rest;
      for (Value v : lead) {
        at.push_back(v);
        atPacked.push_back(v);
        one.push_back(b.getIndexAttr(1));
        sizesPacked.push_back(b.getIndexAttr(1));
      }
      SmallVector<OpFoldResult> sizesSlab = one;
      sizesSlab.append({b.getIndexAttr(rowsWhole), b.getIndexAttr(g.n)});
      at.append({b.getIndexAttr(0), b.getIndexAttr(0)});
      SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
      auto slabType = memref::SubViewOp::inferRankReducedResultType(
          {rowsWhole, g.n}, wholeType, at, sizesSlab, strides);
      Value slabView = memref::SubViewOp::create(
          b, loc, cast<MemRefType>(slabType), whole, at, sizesSlab, strides);
      atPacked.append(3, b.getIndexAttr(0));
      sizesPacked.append({b.getIndexAttr(panels), b.getIndexAttr(groupsWhole),
                          b.getIndexAttr(16 * group)});
      SmallVector<OpFoldResult> stridesPacked(rank + 1, b.getIndexAttr(1));
      auto packedType = cast<MemRefType>(packed.getType());
      auto dstType = memref::SubViewOp::inferRankReducedResultType(
          {panels, groupsWhole, 16 * group}, packedType, atPacked, sizesPacked,
          stridesPacked);
      Value dst =
          memref::SubViewOp::create(b, loc, cast<MemRefType>(dstType), packed,
                                    atPacked, sizesPacked, stridesPacked);
      DotGemm slabGemm = g;
      slabGemm.b = slabView;
      slabGemm.k = rowsWhole;
      accel::packDotB(b, loc, slabGemm, /*nr=*/16, kstep / group,
                      /*parallel=*/false, dst);
      if (wholePacked)
        (*wholePacked)[key] = packed;
    }
    // This GEMM's slab: groups [r0 / G, r0 / G + Kp / G).
    SmallVector<OpFoldResult> at(offsets.begin(), offsets.end() - 2),
        sizesView(rank - 2, b.getIndexAttr(1));
    Value r0v = getValueOrCreateConstantIndexOp(b, loc, offsets[rank - 2]);
    at.append({b.getIndexAttr(0),
               arith::DivUIOp::create(b, loc, r0v, idx(group)).getResult(),
               b.getIndexAttr(0)});
    sizesView.append({b.getIndexAttr(panels), b.getIndexAttr(kp / group),
                      b.getIndexAttr(16 * group)});
    SmallVector<OpFoldResult> strides(rank + 1, b.getIndexAttr(1));
    auto packedType = cast<MemRefType>(packed.getType());
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        {panels, kp / group, 16 * group}, packedType, at, sizesView, strides);
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), packed,
                                     at, sizesView, strides);
  }

  /// Packs B's columns [col0, col0 + cols) into their panels of bPacked:
  /// `cols` columns, or `lastCols` for the last task (col0 + cols past the
  /// panels).
  void packTaskPanels(Value col0, int64_t cols, int64_t lastCols) {
    auto pack = [&](int64_t n) {
      auto packedType = cast<MemRefType>(bPacked.getType());
      int64_t groupsK = packedType.getDimSize(1);
      auto st = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
      Value slab = accel::viewOfB(b, loc, g, st(0), col0, g.k, n);
      Value panel0 = arith::DivUIOp::create(b, loc, col0, idx(16));
      Value into = memref::SubViewOp::create(
          b, loc, bPacked, ArrayRef<OpFoldResult>{panel0, st(0), st(0)},
          ArrayRef<OpFoldResult>{st(n / 16), st(groupsK), st(16 * group)},
          ArrayRef<OpFoldResult>{st(1), st(1), st(1)});
      DotGemm columns = g;
      columns.b = slab;
      columns.n = n;
      accel::packDotB(b, loc, columns, /*nr=*/16, kstep / group,
                      /*parallel=*/false, into);
    };
    if (lastCols == cols) {
      pack(cols);
      return;
    }
    byTaskWidth(arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::ule,
                    arith::AddIOp::create(b, loc, col0, idx(cols)), idx(np)),
                cols, lastCols, pack);
  }

  /// emit(width) for a task whose static width is `width` when `whole`
  /// holds, else `lastWidth` (the last task of a split): an scf.if.
  void byTaskWidth(Value whole, int64_t width, int64_t lastWidth,
                   llvm::function_ref<void(int64_t)> emit) {
    auto branch = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    emit(width);
    b.setInsertionPointToStart(branch.elseBlock());
    emit(lastWidth);
  }

  /// Whether `v` is a multiple of `n`: a constant, an scf.for induction
  /// variable with such a start and step, or a product with one.
  static bool multipleOf(OpFoldResult v, int64_t n) {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return *c % n == 0;
    Value value = cast<Value>(v);
    if (auto loop = scf::getForInductionVarOwner(value))
      return multipleOf(loop.getLowerBound(), n) &&
             multipleOf(loop.getStep(), n);
    if (auto mul = value.getDefiningOp<arith::MulIOp>())
      return multipleOf(mul.getLhs(), n) || multipleOf(mul.getRhs(), n);
    return false;
  }

  /// Whether B is packed piece by piece in the loops (packInLoop): when
  /// the GEMM has one M block (M <= Mc, as a prefill of up to 256 tokens
  /// or a decode step against a weight), each piece of B is then used by
  /// every row tile while it is in L2, and packing it whole before the
  /// loops wrote and read back a copy of B from memory (B is the weight:
  /// the GEMM's largest operand). Whole pieces only: K a multiple of the
  /// tile's k step, N of 16.
  bool packsInLoop() {
    int64_t mc = t.mc / t.mr * t.mr;
    bool oneMBlock = mc <= 0 || mc >= mp;
    return oneMBlock && g.k % kstep == 0 && g.n % 16 == 0 &&
           isa<MemRefType>(g.b.getType());
  }

  void build(bool parallel) {
    group = g.groupSize();
    kstep = g.kind == DotKind::Bf16 ? 32 : 64;
    mp = llvm::alignTo(g.m, 16);
    np = llvm::alignTo(g.n, 16);
    kp = llvm::alignTo(g.k, kstep);
    // With threads, the packing loops are parallel too (their rows and k
    // groups are disjoint). B packed once before the loops when that pays.
    // With threads over whole column panels that cover N exactly, each
    // task packs its own panels (packTaskPanels): a core then reads no B
    // that the other packed.
    int64_t fullPanels = np / t.nr;
    bool taskPacked = false;
    bPacked = hoistedB();
    packInLoop = !bPacked && packsInLoop();
    if (!bPacked && !packInLoop && parallel && fullPanels > 1 &&
        g.n == fullPanels * t.nr) {
      int64_t groupsK =
          llvm::alignTo(llvm::divideCeil(g.k, group), kstep / group);
      bPacked = memref::AllocOp::create(
          b, loc, MemRefType::get({np / 16, groupsK, 16 * group}, inType()),
          b.getI64IntegerAttr(64));
      taskPacked = true;
    }
    if (!bPacked && !packInLoop)
      bPacked = accel::packDotB(b, loc, g, /*nr=*/16, kstep / group, parallel);
    aInPlace = !aF32 && aLoadsInPlace(g, kstep);
    if (aInPlace) {
      aSrc = g.a;
    } else {
      // A packed once, before the loops it does not change in (the query
      // tile of FlashAttention's Q·Kᵀ, the same for every key tile).
      OpBuilder::InsertionGuard guard(b);
      if (Operation *point = aF32 ? nullptr : invariantPoint())
        b.setInsertionPoint(point);
      aSrc = packA(parallel);
    }
    bool padC = mp != g.m || np != g.n;
    cDst = padC ? padded(g.c, mp, np, /*copy=*/!zeroStart) : g.c;
    useScratch =
        epilogue && !padC &&
        (epilogue->inPlace || !accel::readAfter(epilogue->generic, g.c));
    if (parallel && fullPanels > 1) {
      // One parallel region: the full column panels in `tasks` contiguous
      // chunks, each running every M and K block over its own panels (A's
      // M block stays in each core's L2 across its panels); the narrower
      // rest after it.
      int64_t tasks = std::min(threads, fullPanels);
      int64_t per = (fullPanels + tasks - 1) / tasks;
      tasks = (fullPanels + per - 1) / per;
      {
        OpBuilder::InsertionGuard guard(b);
        auto forall = scf::ForallOp::create(
            b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(tasks)},
            ValueRange{}, std::nullopt);
        b.setInsertionPointToStart(forall.getBody());
        Value task = forall.getInductionVar(0);
        panelLo = arith::MulIOp::create(b, loc, task, idx(per * t.nr));
        panelWidth = per * t.nr;
        lastPanelWidth = (fullPanels - (tasks - 1) * per) * t.nr;
        panelHi = arith::MinUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, panelLo, idx(per * t.nr)),
            idx(fullPanels * t.nr));
        withRest = false;
        if (taskPacked)
          packTaskPanels(panelLo, per * t.nr,
                         (fullPanels - (tasks - 1) * per) * t.nr);
        mBlocks();
      }
      panelLo = panelHi = Value();
      withRest = true;
      if (np > fullPanels * t.nr)
        mBlocks();
    } else {
      if (fullPanels > 0) {
        panelLo = idx(0);
        panelHi = idx(fullPanels * t.nr);
        panelWidth = lastPanelWidth = fullPanels * t.nr;
      }
      mBlocks();
    }
    if (padC) {
      Value corner = memref::SubViewOp::create(
          b, loc, cDst,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(g.m), b.getIndexAttr(g.n)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
      // The epilogue reads the padded copy and writes its output: in place,
      // that is the copy back; out of place, C is still copied back unless
      // nothing reads it afterwards.
      if (epilogue)
        accel::emitBlockEpilogue(
            b, loc, *epilogue, corner,
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
            ArrayRef<int64_t>{g.m, g.n});
      if (!epilogue ||
          (!epilogue->inPlace && accel::readAfter(epilogue->generic, g.c)))
        linalg::CopyOp::create(b, loc, corner, g.c);
    }
  }
};

/// A's producer, when A is a buffer that one elementwise linalg.generic
/// (identity maps) fills with the bf16 rounding of an f32 buffer of the
/// same shape earlier in the GEMM's block, and that nothing else but its
/// deallocation uses: FlashAttention's P on AMX (cpu-flash-amx). The AMX
/// kernel then rounds while it packs A and the separate pass over A goes
/// (one write and one read of the tile's A less). The f32 buffer must not
/// be written between the generic and the GEMM.
struct FusedTruncation {
  linalg::GenericOp generic;
  Value source;
  arith::TruncFOp trunc;
};

std::optional<FusedTruncation> fusedTruncation(const DotGemm &g) {
  Operation *gemm = g.op;
  auto alloc = g.a.getDefiningOp<memref::AllocOp>();
  if (!alloc || g.kind != DotKind::Bf16)
    return std::nullopt;
  linalg::GenericOp writer;
  for (Operation *user : alloc->getUsers()) {
    if (user == gemm || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || writer)
      return std::nullopt;
    writer = generic;
  }
  if (!writer || writer->getBlock() != gemm->getBlock() ||
      !writer->isBeforeInBlock(gemm) || writer.getNumDpsInputs() != 1 ||
      writer.getNumDpsInits() != 1 ||
      writer.getDpsInitOperand(0)->get() != g.a ||
      !writer.hasPureBufferSemantics() ||
      !llvm::all_of(writer.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      writer.getNumParallelLoops() != writer.getNumLoops())
    return std::nullopt;
  Value source = writer.getDpsInputOperand(0)->get();
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  if (!sourceType || !sourceType.getElementType().isF32() ||
      sourceType.getShape() != cast<MemRefType>(g.a.getType()).getShape() ||
      !accel::unitInnerStride(sourceType))
    return std::nullopt;
  Block &body = writer.getRegion().front();
  auto trunc = dyn_cast<arith::TruncFOp>(body.front());
  if (body.getOperations().size() != 2 || !trunc ||
      trunc.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != trunc.getResult())
    return std::nullopt;
  Value root = accel::rootBuffer(source);
  for (Operation *op = writer->getNextNode(); op != gemm;
       op = op->getNextNode())
    if (accel::mayWrite(op, root))
      return std::nullopt;
  return FusedTruncation{writer, source, trunc};
}

/// The top-level op of the function around `g` (its outermost loop), when
/// B's buffer (the source of B's subview) is defined before it and nothing
/// in it writes that buffer: where AmxBuilder::hoistedB may pack it whole.
/// Computed before any kernel is emitted (the amx ops have no memory
/// effects to reason with).
Operation *bHoistPoint(const DotGemm &g) {
  auto view = g.b.getDefiningOp<memref::SubViewOp>();
  if (!view)
    return nullptr;
  Value whole = view.getSource();
  Operation *gemm = g.op;
  Operation *point = gemm;
  while (point->getParentOp() &&
         !isa<FunctionOpInterface>(point->getParentOp()))
    point = point->getParentOp();
  if (point == gemm || !point->getParentOp())
    return nullptr;
  if (!accel::definedBefore(whole, point))
    return nullptr;
  if (accel::mayWrite(point, accel::rootBuffer(whole)))
    return nullptr;
  return point;
}

/// Whether `v` is a constant zero (+0.0 or integer 0).
bool isZeroConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().isZero() && !f.getValue().isNegative();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero();
  return false;
}

struct AccelCpuAmxKernelsPass
    : public accel::impl::AccelCpuAmxKernelsPassBase<AccelCpuAmxKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (bf16Subnormals != "flush" && bf16Subnormals != "keep") {
      func.emitError() << "accel-cpu-amx-kernels: bf16-subnormals must be "
                          "'flush' or 'keep' (got '"
                       << bf16Subnormals << "')";
      return signalPassFailure();
    }
    const accel::CpuIsa cpu = accel::CpuIsa::resolve(features, func);
    // Contractions the configuration stage configured get the kernel their
    // config names; the others the features' (AMX first), with the
    // options' tiles.
    SmallVector<std::pair<DotGemm, accel::CpuAmxTiles>> gemms;
    // Each GEMM's B transpose whose input it reads instead (bTransposed).
    llvm::DenseMap<Operation *, Operation *> transposeOfB;
    std::string why;
    func.walk([&](linalg::LinalgOp op) {
      std::optional<DotGemm> g = accel::matchDotGemm(op);
      if (!g)
        return;
      // B made by transposing a buffer stored [N, K] (a linear layer's
      // weight, accel-cpu-transpose-rhs): packed from that buffer, and the
      // transpose goes (below), instead of a copy of B per call.
      if (linalg::TransposeOp t = accel::adoptTransposedB(*g))
        transposeOfB[op] = t;
      bool int8 = g->kind == DotKind::I8;
      auto config = op->getAttrOfType<accel::LoweringConfigAttr>(
          accel::kLoweringConfigAttrName);
      if (config) {
        if (std::optional<accel::CpuAmxTiles> t =
                accel::getCpuAmxTiles(config);
            t && config.getKernel() == (int8 ? "cpu-amx-int8" : "cpu-amx-bf16"))
          gemms.push_back({*g, *t});
        return;
      }
      bool use = int8 ? cpu.hasAmxInt8()
                      : cpu.hasAmxBf16() && bf16Subnormals == "flush";
      if (!use)
        return;
      accel::CpuAmxTiles chosen = accel::chooseCpuAmxTiles(cpu, int8);
      accel::CpuAmxTiles tiles{mr != 0 ? int64_t(mr) : chosen.mr,
                               nr != 0 ? int64_t(nr) : chosen.nr,
                               mc != 0 ? int64_t(mc) : chosen.mc,
                               kc != 0 ? int64_t(kc) : chosen.kc};
      if (why.empty())
        why = accel::checkCpuAmxTiles(tiles, int8);
      gemms.push_back({*g, tiles});
    });
    if (!why.empty()) {
      func.emitError() << "accel-cpu-amx-kernels: " << why;
      return signalPassFailure();
    }
    // Truncations a GEMM rounds while it packs A (FlashAttention's P) stay
    // that GEMM's, not another's epilogue.
    llvm::SmallPtrSet<Operation *, 4> packedTruncations;
    for (auto &[g, tiles] : gemms)
      if (std::optional<FusedTruncation> f = fusedTruncation(g))
        packedTruncations.insert(f->generic);
    OpBuilder builder(&getContext());
    llvm::DenseMap<std::tuple<Value, int, Operation *>, Value> wholePacked;
    llvm::DenseMap<Operation *, Operation *> hoistPoints;
    for (auto &[g, tiles] : gemms)
      hoistPoints[g.op] = bHoistPoint(g);
    for (auto &[g, tiles] : gemms) {
      if (g.m == 0 || g.n == 0 || g.k == 0)
        continue;
      builder.setInsertionPoint(g.op);
      AmxBuilder kb(builder, g.op.getLoc(), g, tiles);
      // C = 0; C += A B: the tiles start from zero and the fill goes. Any
      // other fill stays and C is loaded.
      linalg::FillOp fill = accel::initializingFill(g.op);
      bool dropFill = fill && isZeroConstant(fill.getInputs()[0]);
      kb.zeroStart = dropFill;
      // Threads over column panels, unless the GEMM already runs inside a
      // parallel loop (e.g. FlashAttention's heads).
      bool nested = accel::insideParallelLoop(g.op);
      // Below 2^26 multiply-adds (256^3: 36 us on one core) the parallel
      // regions' start and join cost more than a second core saves: 256^3
      // bf16 ran at 621 GFLOP/s on two threads against 925 on one (oneDNN:
      // 809 against 935).
      bool large = double(g.m) * double(g.n) * double(g.k) >= 0x1p26;
      kb.threads = threads;
      kb.wholePacked = &wholePacked;
      kb.hoistPoint = hoistPoints.lookup(g.op);
      std::optional<FusedTruncation> fused = fusedTruncation(g);
      if (fused) {
        kb.aF32 = fused->source;
        kb.aTrunc = fused->trunc;
      }
      if (fuseEpilogues)
        kb.epilogue = accel::findBlockEpilogue(g.op, g.c);
      if (kb.epilogue && packedTruncations.contains(kb.epilogue->generic))
        kb.epilogue.reset();
      if (kb.epilogue)
        kb.epilogue->prepare(g.op);
      kb.build(threads > 1 && !nested && large);
      if (kb.epilogue)
        kb.epilogue->generic->erase();
      Operation *transpose = transposeOfB.lookup(g.op);
      g.op->erase();
      // The copy of B nothing reads now, and its buffer.
      if (transpose)
        accel::eraseTransposeOfB(transpose);
      if (fused)
        fused->generic->erase();
      if (dropFill)
        fill->erase();
    }
    // B stored [N, K]: the packing's 16 x 16 transposes of words as 4
    // rounds of shuffles.
    if (failed(accel::lowerWordTransposes(func)))
      return signalPassFailure();
  }
};
} // namespace
