//===- CpuDotKernels.cpp - bf16 micro-kernels on AVX512-BF16 --------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-dot-kernels: bf16 x bf16 -> f32 contractions as vdpbf16ps
// micro-kernels over a pair-interleaved copy of B (see the pass
// description). The generic contraction path (accel-cpu-vectorize-
// contractions) widens bf16 to f32 and runs f32 FMAs; vdpbf16ps does two
// multiply-adds per f32 lane, twice the FMA rate.
//
//===----------------------------------------------------------------------===//

#include "BlockEpilogue.h"
#include "BufferAccess.h"
#include "DotGemm.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUDOTKERNELSPASS
#define GEN_PASS_DEF_ACCELCPULOWERDOTPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

using accel::DotGemm;
using accel::DotKind;
using accel::matchDotGemm;

namespace {
/// Emits the kernel of one GEMM in place of its op. A "group" is the G
/// consecutive k values one 32-bit lane of a dot instruction consumes:
/// G = 2 bf16 or 4 i8.
struct KernelBuilder {
  KernelBuilder(OpBuilder &b, Location loc, const DotGemm &g, int64_t mr,
                int64_t nr, int64_t kc)
      : b(b), loc(loc), g(g), mr(mr), nr(nr), kc(kc) {}

  OpBuilder &b;
  Location loc;
  const DotGemm &g;
  int64_t mr, nr, kc;
  /// B packed in panels of nr columns: [ceil(N16 / nr), ceil(K / G),
  /// nr x G] (N16: N rounded up to 16), column n's group kk at
  /// [n / nr, kk, (n mod nr) G : (n mod nr) G + G]. A column tile's panel
  /// is contiguous: its K loop reads B sequentially (with [K / G, N16 x G],
  /// rows 4-8 KiB apart put every row of a panel on its own page and in
  /// the same L1 sets).
  Value packed;
  /// i8: -128 x the column sums of B, N rounded up to 16 (zeros past N).
  Value sums;
  /// Where the micro-kernel reads A: A itself (bf16), or for i8 a copy
  /// with every byte offset to unsigned (xor 0x80) and K padded to whole
  /// groups, so each group broadcasts straight from memory.
  Value aSource;
  /// The value a linalg.fill put in all of C right before the GEMM, or
  /// null: the first K block's accumulators start from it instead of
  /// loading C, and the fill goes (C written once).
  Value fillValue;
  /// Prefetch the next row tile's C lines before each tile's K loop.
  bool prefetchC = true;
  /// The elementwise epilogue applied to the last K block's accumulators
  /// (accel::emitRegisterEpilogue), and whether an out-of-place one also
  /// stores C then (C is read afterwards).
  std::optional<accel::BlockEpilogue> epilogue;
  bool alsoStoreC = false;
  /// Rows of A per M block (a multiple of mr; 0: all rows): every column
  /// tile and K block runs over one block of rows before the next, so the
  /// block's [mc, kc] of A stays in L2 instead of streaming all of A past
  /// each B panel.
  int64_t mc = 0;
  /// The current M block: its first row and its number of rows.
  Value mBase;
  int64_t mRows = 0;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }
  int64_t groupSize() const { return g.groupSize(); }
  Type inType() { return g.inputType(); }
  Type accType() { return g.accumulatorType(); }
  /// 16 columns of one group of B: vector<32xbf16> or vector<64xi8>.
  VectorType panelType() { return vec(16 * groupSize(), inType()); }

  /// Where element t of column `col`'s group `kk` lies in `packed`.
  SmallVector<Value> panelIndex(Value kk, Value col, int64_t t) {
    return accel::dotPanelIndex(b, loc, g, nr, kk, col, t);
  }

  /// i8: A enters vpdpbusd as unsigned (a + 128), which adds 128 x the
  /// column sums of B to every row: `sums` = -128 x B's column sums, which
  /// the micro-kernels add to the C tile they load in the first K block.
  /// Summed from the packed panels (zeros past N and K), whatever B's
  /// layout: per 16 columns, the groups' 64 bytes widened and added, then
  /// each column's 4 lanes.
  void columnSums() {
    Type i32 = b.getI32Type();
    int64_t gs = groupSize();
    int64_t groupsK = cast<MemRefType>(packed.getType()).getDimSize(1);
    Value c0 = idx(0), c1 = idx(1);
    sums = memref::AllocOp::create(b, loc,
                                   MemRefType::get({(g.n + 15) / 16 * 16}, i32),
                                   b.getI64IntegerAttr(64));
    auto wideType = vec(16 * gs, i32);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(wideType, b.getI32IntegerAttr(0)));
    auto nLoop =
        scf::ForOp::create(b, loc, c0, idx((g.n + 15) / 16 * 16), idx(16));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(nLoop.getBody());
    Value col = nLoop.getInductionVar();
    auto kLoop =
        scf::ForOp::create(b, loc, c0, idx(groupsK), c1, ValueRange{zero});
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value panel =
          vector::LoadOp::create(b, loc, panelType(), packed,
                                 panelIndex(kLoop.getInductionVar(), col, 0));
      Value wide = arith::ExtSIOp::create(b, loc, wideType, panel);
      scf::YieldOp::create(
          b, loc,
          ValueRange{
              arith::AddIOp::create(b, loc, kLoop.getRegionIterArgs()[0], wide)
                  .getResult()});
    }
    // Lane 4 c + t of the sum holds column c's k = 4 kk + t terms.
    Value total;
    for (int64_t t = 0; t < gs; ++t) {
      SmallVector<int64_t> lanes;
      for (int64_t c = 0; c < 16; ++c)
        lanes.push_back(c * gs + t);
      Value part = vector::ShuffleOp::create(b, loc, kLoop.getResult(0),
                                             kLoop.getResult(0), lanes);
      total =
          total ? arith::AddIOp::create(b, loc, total, part).getResult() : part;
    }
    Value scaled = arith::MulIOp::create(
        b, loc, total,
        arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(vec(16, i32), b.getI32IntegerAttr(-128))));
    vector::StoreOp::create(b, loc, scaled, sums, ValueRange{col});
  }

  /// acc += a (G inputs broadcast to every lane) . panel (16 columns x G).
  Value dot(Value acc, Value aWord, Value panel) {
    Type i32 = b.getI32Type();
    Value splat = vector::BroadcastOp::create(b, loc, vec(16, i32), aWord);
    if (g.kind == DotKind::Bf16) {
      Value aPairs = vector::BitCastOp::create(b, loc, panelType(), splat);
      return x86vector::DotBF16Op::create(b, loc, acc.getType(), acc, aPairs,
                                          panel);
    }
    Value aBytes = vector::BitCastOp::create(b, loc, panelType(), splat);
    return accel::X86DotU8S8Op::create(b, loc, acc.getType(), acc, aBytes,
                                       panel);
  }

  /// A's G values of a row as the 32-bit word the dot broadcasts (i8: each
  /// byte offset by 128, i.e. its sign bit flipped).
  Value word(Value groupVec) {
    Type i32 = b.getI32Type();
    Value w = vector::BitCastOp::create(b, loc, vec(1, i32), groupVec);
    return vector::ExtractOp::create(b, loc, w, 0);
  }

  /// i8: A' [M, K rounded up to 4] = A xor 0x80 (= a + 128 as unsigned),
  /// zeros past K.
  void packA() {
    Type i8 = b.getI8Type();
    int64_t kp = (g.k + 3) / 4 * 4, k64 = g.k / 64 * 64;
    aSource = memref::AllocOp::create(b, loc, MemRefType::get({g.m, kp}, i8),
                                      b.getI64IntegerAttr(64));
    Value c0 = idx(0), c1 = idx(1);
    auto mLoop = scf::ForOp::create(b, loc, c0, idx(g.m), c1);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(mLoop.getBody());
    Value row = mLoop.getInductionVar();
    if (k64 > 0) {
      OpBuilder::InsertionGuard g2(b);
      auto kLoop = scf::ForOp::create(b, loc, c0, idx(k64), idx(64));
      b.setInsertionPointToStart(kLoop.getBody());
      Value k = kLoop.getInductionVar();
      Value v =
          vector::LoadOp::create(b, loc, vec(64, i8), g.a, ValueRange{row, k});
      Value flip = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(vec(64, i8), b.getI8IntegerAttr(-128)));
      vector::StoreOp::create(b, loc, arith::XOrIOp::create(b, loc, v, flip),
                              aSource, ValueRange{row, k});
    }
    if (k64 < kp) {
      auto kLoop = scf::ForOp::create(b, loc, idx(k64), idx(kp), c1);
      b.setInsertionPointToStart(kLoop.getBody());
      Value k = kLoop.getInductionVar();
      Value inK =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k, idx(g.k));
      auto read = scf::IfOp::create(b, loc, TypeRange{i8}, inK,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(read.thenBlock());
      Value v = memref::LoadOp::create(b, loc, g.a, ValueRange{row, k});
      Value flipped = arith::XOrIOp::create(
          b, loc, v,
          arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(-128)));
      scf::YieldOp::create(b, loc, flipped);
      b.setInsertionPointToStart(read.elseBlock());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0))
                         .getResult()});
      b.setInsertionPointAfter(read);
      memref::StoreOp::create(b, loc, read.getResult(0), aSource,
                              ValueRange{row, k});
    }
  }

  /// The rows [m0, m0 + rows) x columns [n0, n0 + 16 groups) of C over the k
  /// groups [kb, ke); `lastCols` < 16 masks the last group of columns;
  /// `tail` adds the last, partial k group (K % G values and zeros).
  /// `lastBlock` (i1, or null: not the last): the K block is the last, whose
  /// accumulators take the epilogue.
  void microKernel(Value m0, int64_t rows, Value n0, int64_t groups,
                   int64_t lastCols, Value kb, Value ke, bool tail,
                   bool fromFill, Value lastBlock) {
    // i8: the offset correction joins C in the first K block (when the
    // kernel starts from a fill, the peeled first block adds it, and the
    // loop's blocks never are the first).
    Value firstBlock;
    if (g.kind == DotKind::I8 && !fillValue)
      firstBlock =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kb, idx(0));
    int64_t gs = groupSize();
    Type elt = inType();
    VectorType accT = vec(16, accType());
    auto colOf = [&](int64_t j) {
      return arith::AddIOp::create(b, loc, n0, idx(16 * j)).getResult();
    };
    auto rowOf = [&](int64_t i) {
      return arith::AddIOp::create(b, loc, m0, idx(i)).getResult();
    };
    Value mask;
    if (lastCols < 16)
      mask = vector::CreateMaskOp::create(b, loc, vec(16, b.getI1Type()),
                                          ValueRange{idx(lastCols)});
    Value zeroAcc = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accT, b.getZeroAttr(accType())));
    SmallVector<Value> acc;
    Value fillVec;
    if (fromFill)
      fillVec = vector::BroadcastOp::create(b, loc, accT, fillValue);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < groups; ++j) {
        SmallVector<Value> at = {rowOf(i), colOf(j)};
        Value cv;
        if (fromFill) {
          // The first K block: C holds the fill value (not read), plus the
          // i8 offset correction.
          cv = fillVec;
          if (g.kind == DotKind::I8)
            cv = arith::AddIOp::create(
                b, loc, cv,
                vector::LoadOp::create(b, loc, accT, sums,
                                       ValueRange{colOf(j)}));
          acc.push_back(cv);
          continue;
        }
        if (mask && j == groups - 1)
          cv = vector::MaskedLoadOp::create(b, loc, accT, g.c, at, mask,
                                            zeroAcc);
        else
          cv = vector::LoadOp::create(b, loc, accT, g.c, at);
        if (firstBlock) {
          Value sv =
              vector::LoadOp::create(b, loc, accT, sums, ValueRange{colOf(j)});
          cv = arith::SelectOp::create(
              b, loc, firstBlock, arith::AddIOp::create(b, loc, cv, sv), cv);
        }
        acc.push_back(cv);
      }
    // One k group: broadcast A's group of each row, one dot per 16 columns.
    auto step = [&](Value kk, ArrayRef<Value> in,
                    function_ref<Value(int64_t)> groupOfRow) {
      SmallVector<Value> bv;
      for (int64_t j = 0; j < groups; ++j)
        bv.push_back(vector::LoadOp::create(b, loc, panelType(), packed,
                                            panelIndex(kk, colOf(j), 0)));
      SmallVector<Value> out;
      for (int64_t i = 0; i < rows; ++i) {
        Value aWord = word(groupOfRow(i));
        for (int64_t j = 0; j < groups; ++j)
          out.push_back(dot(in[i * groups + j], aWord, bv[j]));
      }
      return out;
    };
    // The next row tile's C lines (one 64-byte line per 16 columns), rows
    // clamped to C's last, so its loads or stores find them in cache.
    if (prefetchC && rows == mr) {
      Value last = idx(g.m - 1);
      for (int64_t i = 0; i < rows; ++i) {
        Value row = arith::MinSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, m0, idx(mr + i)), last);
        for (int64_t j = 0; j < groups; ++j)
          memref::PrefetchOp::create(b, loc, g.c, ValueRange{row, colOf(j)},
                                     /*isWrite=*/true, /*localityHint=*/3,
                                     /*isDataCache=*/true);
      }
    }
    auto kLoop = scf::ForOp::create(b, loc, kb, ke, idx(1), acc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      Value k0 = arith::MulIOp::create(b, loc, kk, idx(gs));
      SmallVector<Value> next = step(
          kk, SmallVector<Value>(kLoop.getRegionIterArgs()), [&](int64_t i) {
            return vector::LoadOp::create(b, loc, vec(gs, elt), aSource,
                                          ValueRange{rowOf(i), k0})
                .getResult();
          });
      scf::YieldOp::create(b, loc, next);
    }
    acc.assign(kLoop.getResults().begin(), kLoop.getResults().end());
    if (tail) {
      // The last K % G columns of A with zeros after them (Bp's rows there
      // are zero too); A is not read past K.
      int64_t first = g.k / gs * gs;
      Value zeros = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vec(gs, elt), b.getZeroAttr(elt)));
      acc = step(idx(g.k / gs), acc, [&](int64_t i) -> Value {
        if (g.kind == DotKind::I8)
          return vector::LoadOp::create(b, loc, vec(gs, elt), aSource,
                                        ValueRange{rowOf(i), idx(first)});
        Value v = zeros;
        for (int64_t t = 0; first + t < g.k; ++t) {
          Value x = memref::LoadOp::create(
              b, loc, g.a, ValueRange{rowOf(i), idx(first + t)});
          v = vector::InsertOp::create(b, loc, x, v, t);
        }
        return v;
      });
    }
    auto storeTile = [&] {
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < groups; ++j) {
          SmallVector<Value> at = {rowOf(i), colOf(j)};
          if (mask && j == groups - 1)
            vector::MaskedStoreOp::create(b, loc, g.c, at, mask,
                                          acc[i * groups + j]);
          else
            vector::StoreOp::create(b, loc, acc[i * groups + j], g.c, at);
        }
    };
    // The last K block: the epilogue on the accumulators, then its store.
    auto epilogueTile = [&] {
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < groups; ++j)
          accel::emitRegisterEpilogue(b, loc, *epilogue, acc[i * groups + j],
                                      rowOf(i), colOf(j),
                                      mask && j == groups - 1 ? mask : Value());
      if (alsoStoreC)
        storeTile();
    };
    std::optional<int64_t> isLast =
        lastBlock ? getConstantIntValue(lastBlock) : std::optional<int64_t>(0);
    if (!epilogue || (isLast && *isLast == 0)) {
      storeTile();
    } else if (isLast) {
      epilogueTile();
    } else {
      auto branch = scf::IfOp::create(b, loc, TypeRange{}, lastBlock,
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      epilogueTile();
      b.setInsertionPointToStart(branch.elseBlock());
      storeTile();
    }
  }

  /// Rows in tiles of mr (then the remainder) for the columns [n0, n0 +
  /// groups x 16) and the k groups [kb, ke).
  void rowTiles(Value n0, int64_t groups, int64_t lastCols, Value kb, Value ke,
                Value tail, bool fromFill, Value lastBlock) {
    int64_t fullRows = mRows / mr * mr, restRows = mRows % mr;
    auto row = [&](Value offset) {
      return arith::AddIOp::create(b, loc, mBase, offset).getResult();
    };
    auto tile = [&](Value m0, int64_t rows) {
      if (!tail) {
        microKernel(m0, rows, n0, groups, lastCols, kb, ke, false, fromFill,
                    lastBlock);
        return;
      }
      // The partial k group belongs to the last K block only.
      auto branch = scf::IfOp::create(b, loc, TypeRange{}, tail,
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      microKernel(m0, rows, n0, groups, lastCols, kb, ke, true, fromFill,
                  lastBlock);
      b.setInsertionPointToStart(branch.elseBlock());
      microKernel(m0, rows, n0, groups, lastCols, kb, ke, false, fromFill,
                  lastBlock);
    };
    if (fullRows > 0) {
      auto mLoop = scf::ForOp::create(b, loc, idx(0), idx(fullRows), idx(mr));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(mLoop.getBody());
      tile(row(mLoop.getInductionVar()), mr);
    }
    if (restRows > 0)
      tile(row(idx(fullRows)), restRows);
  }

  /// Columns [n0, n0 + groups x 16) of C over every K block of kc values:
  /// the B panel [kc, nr] stays in L1/L2 while the rows of A stream past
  /// it. The k-pair range of a block is [kb, ke).
  void columnTile(Value n0, int64_t groups, int64_t lastCols) {
    int64_t gs = groupSize();
    int64_t fullGroups = g.k / gs, kcGroups = std::max<int64_t>(1, kc / gs);
    int64_t blocksEnd = std::max<int64_t>(fullGroups, 1);
    int64_t firstBlockEnd = 0;
    if (fillValue) {
      // The first K block on its own, its tiles starting from the fill.
      int64_t next = kcGroups;
      Value tail;
      if (g.k % gs != 0)
        tail =
            arith::ConstantOp::create(b, loc, b.getBoolAttr(next >= blocksEnd));
      rowTiles(
          n0, groups, lastCols, idx(0), idx(std::min(next, fullGroups)), tail,
          /*fromFill=*/true,
          arith::ConstantOp::create(b, loc, b.getBoolAttr(next >= blocksEnd)));
      firstBlockEnd = kcGroups;
      if (firstBlockEnd >= blocksEnd)
        return;
    }
    auto kLoop = scf::ForOp::create(b, loc, idx(firstBlockEnd), idx(blocksEnd),
                                    idx(kcGroups));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kb = kLoop.getInductionVar();
    Value next = arith::AddIOp::create(b, loc, kb, idx(kcGroups));
    Value ke = arith::MinSIOp::create(b, loc, next, idx(fullGroups));
    Value tail;
    if (g.k % gs != 0)
      tail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, next,
                                   idx(blocksEnd));
    Value lastBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            next, idx(blocksEnd));
    rowTiles(n0, groups, lastCols, kb, ke, tail, /*fromFill=*/false, lastBlock);
  }

  void build(bool parallel) {
    packed = accel::packDotB(b, loc, g, nr);
    aSource = g.a;
    if (g.kind == DotKind::I8) {
      packA();
      columnSums();
    }
    int64_t blockRows = mc > 0 && mc < g.m ? mc : g.m;
    int64_t fullBlocks = g.m / blockRows, lastRows = g.m % blockRows;
    mRows = blockRows;
    if (fullBlocks == 1) {
      mBase = idx(0);
      columns(parallel);
    } else {
      auto mLoop = scf::ForOp::create(b, loc, idx(0),
                                      idx(fullBlocks * blockRows),
                                      idx(blockRows));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(mLoop.getBody());
      mBase = mLoop.getInductionVar();
      columns(parallel);
    }
    if (lastRows > 0) {
      mBase = idx(fullBlocks * blockRows);
      mRows = lastRows;
      columns(parallel);
    }
  }

  /// Every column tile (in parallel: one task each) over the current M
  /// block.
  void columns(bool parallel) {
    int64_t groupsPerTile = nr / 16;
    int64_t fullTiles = g.n / nr, restCols = g.n - fullTiles * nr;
    if (fullTiles > 0) {
      OpBuilder::InsertionGuard guard(b);
      Value n0;
      if (parallel) {
        // Column tiles write disjoint columns of C: one task each.
        auto forall = scf::ForallOp::create(
            b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(fullTiles)},
            ValueRange{}, std::nullopt);
        b.setInsertionPointToStart(forall.getBody());
        n0 = arith::MulIOp::create(b, loc, forall.getInductionVar(0), idx(nr));
      } else {
        auto nLoop =
            scf::ForOp::create(b, loc, idx(0), idx(fullTiles * nr), idx(nr));
        b.setInsertionPointToStart(nLoop.getBody());
        n0 = nLoop.getInductionVar();
      }
      columnTile(n0, groupsPerTile, 16);
    }
    if (restCols > 0) {
      int64_t groups = (restCols + 15) / 16;
      int64_t lastCols = restCols - 16 * (groups - 1);
      columnTile(idx(fullTiles * nr), groups, lastCols);
    }
  }
};

struct AccelCpuDotKernelsPass
    : public accel::impl::AccelCpuDotKernelsPassBase<AccelCpuDotKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Tiles for contractions without a configuration stage's
    // accel.lowering_config: the options, else the stage's choice.
    // The CPU: `features`, else the module's CPU target.
    const accel::CpuIsa cpu = accel::CpuIsa::resolve(features, func);
    accel::CpuDotTiles chosen = accel::chooseCpuDotTiles(cpu);
    accel::CpuDotTiles optionTiles{mr != 0 ? int64_t(mr) : chosen.mr,
                                   nr != 0 ? int64_t(nr) : chosen.nr,
                                   mc != 0 ? int64_t(mc) : chosen.mc,
                                   kc != 0 ? int64_t(kc) : chosen.kc};
    if (std::string why = accel::checkCpuDotTiles(optionTiles); !why.empty()) {
      func.emitError() << "accel-cpu-dot-kernels: " << why;
      return signalPassFailure();
    }
    if (bf16Subnormals != "flush" && bf16Subnormals != "keep") {
      func.emitError() << "accel-cpu-dot-kernels: bf16-subnormals must be "
                          "'flush' or 'keep' (got '"
                       << bf16Subnormals << "')";
      return signalPassFailure();
    }
    bool bf16Dot = cpu.avx512bf16;
    bool i8Dot = cpu.avx512vnni;
    // vdpbf16ps flushes bf16 subnormals; `keep` leaves bf16 to the f32 path.
    if (bf16Subnormals == "keep")
      bf16Dot = false;
    // A contraction the configuration stage configured gets the kernel it
    // names (with its tiles); the others the features' and the options'.
    SmallVector<std::pair<DotGemm, accel::CpuDotTiles>> gemms;
    // Each GEMM's B transpose whose input it packs instead (B stored
    // [N, K], a linear layer's weight): no copy of B per call.
    llvm::DenseMap<Operation *, Operation *> transposeOfB;
    func.walk([&](linalg::LinalgOp op) {
      std::optional<DotGemm> g = matchDotGemm(op);
      if (!g)
        return;
      if (linalg::TransposeOp t = accel::adoptTransposedB(*g))
        transposeOfB[op] = t;
      auto config = op->getAttrOfType<accel::LoweringConfigAttr>(
          accel::kLoweringConfigAttrName);
      if (config) {
        if (std::optional<accel::CpuDotTiles> t =
                accel::getCpuDotTiles(config);
            t && config.getKernel() == (g->kind == DotKind::Bf16
                                            ? "cpu-avx512bf16"
                                            : "cpu-avx512vnni"))
          gemms.push_back({*g, *t});
        return;
      }
      if (g->kind == DotKind::Bf16 ? bf16Dot : i8Dot)
        gemms.push_back({*g, optionTiles});
    });
    OpBuilder builder(&getContext());
    for (auto &[g, tiles] : gemms) {
      if (g.m == 0 || g.n == 0 || g.k == 0)
        continue;
      builder.setInsertionPoint(g.op);
      KernelBuilder kb{builder, g.op.getLoc(), g, tiles.mr, tiles.nr,
                       tiles.kc};
      kb.mc = tiles.mc / tiles.mr * tiles.mr;
      // C = fill; C += A B: the kernel starts from the fill value.
      linalg::FillOp fill = accel::initializingFill(g.op);
      if (fill)
        kb.fillValue = fill.getInputs()[0];
      kb.prefetchC = prefetchC;
      if (fuseEpilogues) {
        kb.epilogue = accel::findBlockEpilogue(g.op, g.c);
        if (kb.epilogue && (!accel::hasRegisterForm(*kb.epilogue) ||
                            (!fuseExpensiveEpilogues &&
                             !accel::isCheapEpilogue(kb.epilogue->generic))))
          kb.epilogue.reset();
        if (kb.epilogue) {
          kb.epilogue->prepare(g.op);
          kb.alsoStoreC = !kb.epilogue->inPlace &&
                          accel::readAfter(kb.epilogue->generic, g.c);
        }
      }
      // Threads over column tiles, unless the GEMM already runs inside a
      // parallel loop (e.g. FlashAttention's heads).
      bool nested = accel::insideParallelLoop(g.op);
      kb.build(threads > 1 && !nested);
      Operation *transpose = transposeOfB.lookup(g.op);
      g.op->erase();
      if (transpose)
        accel::eraseTransposeOfB(transpose);
      if (fill)
        fill->erase();
      if (kb.epilogue)
        kb.epilogue->generic->erase();
    }
    if (failed(accel::lowerWordTransposes(func)))
      return signalPassFailure();
  }
};
} // namespace

namespace {
/// accel.x86_dot_u8s8 -> the vpdpbusd intrinsic.
struct LowerX86DotU8S8 : public OpRewritePattern<accel::X86DotU8S8Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(accel::X86DotU8S8Op op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(),
        rewriter.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
        ValueRange{op.getAcc(), op.getA(), op.getB()});
    return success();
  }
};

/// accel.x86_permute_f32 -> vpermps, accel.x86_permute_i16 -> vpermw: the
/// intrinsic takes the table, then the indices.
template <typename PermuteOp>
struct LowerX86Permute : public OpRewritePattern<PermuteOp> {
  LowerX86Permute(MLIRContext *ctx, StringRef intrinsic)
      : OpRewritePattern<PermuteOp>(ctx), intrinsic(intrinsic) {}
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr(intrinsic),
        ValueRange{op.getTable(), op.getIndex()});
    return success();
  }
  StringRef intrinsic;
};

struct AccelCpuLowerDotPass
    : public accel::impl::AccelCpuLowerDotPassBase<AccelCpuLowerDotPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerX86DotU8S8>(&getContext());
    patterns.add<LowerX86Permute<accel::X86PermuteF32Op>>(
        &getContext(), "llvm.x86.avx512.permvar.sf.512");
    patterns.add<LowerX86Permute<accel::X86PermuteI16Op>>(
        &getContext(), "llvm.x86.avx512.permvar.hi.512");
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

bool accel::hasCpuFeature(StringRef features, StringRef name) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  return llvm::any_of(parts,
                      [&](StringRef f) { return f.trim().ltrim('+') == name; });
}
