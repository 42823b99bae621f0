//===- CpuRowDotKernels.cpp - accel-cpu-row-dot-kernels -------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// cpu-row-dot: an f32 matmul whose B is a linear layer's weight W stored
// [N, K] (accel.matmul transpose_b; accel-cpu-transpose-rhs made B a
// transposed copy of W, which the cpu-fma kernel reads as [K, N]) with few
// rows of A. Each C element is a dot product of a row of A and a row of W,
// both contiguous along K, so the kernel reads W where it is:
//
//   - a tile of mr rows of A x nr rows of W keeps mr x nr accumulators of
//     16 f32; each step of 16 K loads the mr A vectors once and each of the
//     nr W vectors once, for mr FMAs each;
//   - a K that is not a multiple of 16 ends with masked loads (zeros past K);
//   - at the end of K each accumulator is summed across its lanes and added
//     to C (to the initializing fill's value, whose fill then goes);
//   - the next tile's W rows are prefetched while this one streams its own;
//   - with several tiles of A's rows, K runs in blocks of kc (the config's
//     tile [0, 0, kc]): every tile runs over a block in turn, keeping its
//     accumulators in a slot in memory between blocks, so the block's W and
//     A rows are read from L1 by each tile rather than whole rows from L2.
//
// The transposed copy of W goes: at M = 1 a decode step reads W once, at
// the machine's bandwidth, instead of transposing it first (which read and
// wrote it once more and then read the copy). Rows of A past a whole mr
// and rows of W past a whole nr get 1-row tiles; with `threads` the tiles
// of nr weight rows are the tasks of an scf.forall.
//
//===----------------------------------------------------------------------===//

#include "BufferAccess.h"
#include "DotGemm.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUROWDOTKERNELSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

/// C[M, N] += A[M, K] * W[N, K]^T on f32 buffers of static sizes, W the
/// input of the transpose that made the contraction's B.
struct RowDotGemm {
  linalg::LinalgOp op;
  linalg::TransposeOp transpose;
  Value a, w, c;
  int64_t m, n, k;
};

/// Whether `v` is a static-shaped 2-D f32 buffer with contiguous rows.
bool f32Rows(Value v) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getRank() == 2 && t.hasStaticShape() &&
         t.getElementType().isF32() && accel::unitInnerStride(t);
}

std::optional<RowDotGemm> matchRowDot(linalg::LinalgOp op) {
  if (!accel::isPlainGemm(op))
    return std::nullopt;
  Value a = op.getDpsInputOperand(0)->get(),
        b = op.getDpsInputOperand(1)->get(), c = op.getDpsInitOperand(0)->get();
  if (!f32Rows(a) || !f32Rows(c) || !isa<MemRefType>(b.getType()))
    return std::nullopt;
  // The body is exactly `acc + a * b` in f32: no conversions.
  Block &body = op->getRegion(0).front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value acc = body.getArgument(2);
  Value other = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = other.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != acc && add.getRhs() != acc))
    return std::nullopt;
  Value x = body.getArgument(0), y = body.getArgument(1);
  if (!((mul.getLhs() == x && mul.getRhs() == y) ||
        (mul.getLhs() == y && mul.getRhs() == x)))
    return std::nullopt;
  linalg::TransposeOp transpose = accel::matchTransposeInto(op, b);
  if (!transpose || !f32Rows(transpose.getInput()))
    return std::nullopt;
  // W is read where it is while C is written: C may not share a buffer with
  // W or A (the copy made that safe), nor A be the copy itself.
  Value w = transpose.getInput();
  Value cRoot = accel::rootBuffer(c);
  if (a == b || c == b || cRoot == accel::rootBuffer(w) ||
      cRoot == accel::rootBuffer(a))
    return std::nullopt;
  auto at = cast<MemRefType>(a.getType());
  auto wt = cast<MemRefType>(transpose.getInput().getType());
  return RowDotGemm{op,
                    transpose,
                    a,
                    transpose.getInput(),
                    c,
                    at.getDimSize(0),
                    wt.getDimSize(0),
                    wt.getDimSize(1)};
}

struct RowDotBuilder {
  OpBuilder &b;
  Location loc;
  const RowDotGemm &g;
  accel::CpuRowDotTiles tiles;
  /// The initializing fill's value (C's elements start there), or null: C
  /// is read.
  Value fillValue;
  VectorType v16 = VectorType::get({16}, b.getF32Type());

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, idx(y));
  }

  /// One step of 16 K at `k`: every accumulator of the tile gains its
  /// products. `mask` (the K tail): lanes past K load zeros.
  void step(MutableArrayRef<Value> acc, Value m0, int64_t mr, Value n0,
            int64_t nr, Value k, Value mask) {
    auto load = [&](Value buffer, Value row) -> Value {
      if (!mask)
        return vector::LoadOp::create(b, loc, v16, buffer, ValueRange{row, k});
      return vector::MaskedLoadOp::create(b, loc, v16, buffer,
                                          ValueRange{row, k}, mask, zeros());
    };
    SmallVector<Value> rowsOfA;
    for (int64_t i = 0; i < mr; ++i)
      rowsOfA.push_back(load(g.a, add(m0, i)));
    for (int64_t j = 0; j < nr; ++j) {
      Value w = load(g.w, add(n0, j));
      for (int64_t i = 0; i < mr; ++i) {
        Value &c = acc[i * nr + j];
        c = vector::FMAOp::create(b, loc, rowsOfA[i], w, c);
      }
    }
  }

  /// Steps of 16 K over [kLo, kHi) (multiples of 16) from the accumulators
  /// `init`; with `prefetch`, the next tile's W rows are asked for while
  /// this tile streams its own (nr rows on, the same columns; rows past N
  /// ask for the last row), so 2 nr rows' lines are in flight.
  SmallVector<Value> sweep(ValueRange init, Value m0, int64_t mr, Value n0,
                           int64_t nr, Value kLo, Value kHi, bool prefetch) {
    auto kLoop = scf::ForOp::create(b, loc, kLo, kHi, idx(16), init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    if (prefetch)
      for (int64_t j = 0; j < nr; ++j) {
        Value ahead =
            arith::MinUIOp::create(b, loc, add(n0, nr + j), idx(g.n - 1));
        memref::PrefetchOp::create(b, loc, g.w, ValueRange{ahead, k},
                                   /*isWrite=*/false, /*localityHint=*/3,
                                   /*isDataCache=*/true);
      }
    SmallVector<Value> acc(kLoop.getRegionIterArgs());
    step(acc, m0, mr, n0, nr, k, Value());
    scf::YieldOp::create(b, loc, acc);
    return SmallVector<Value>(kLoop.getResults());
  }

  /// The K tail (one masked step when K is not a multiple of 16), then each
  /// accumulator summed across its lanes into C.
  void finish(SmallVector<Value> acc, Value m0, int64_t mr, Value n0,
              int64_t nr) {
    int64_t whole = g.k / 16 * 16;
    if (int64_t rest = g.k - whole) {
      Value mask = vector::ConstantMaskOp::create(
          b, loc, VectorType::get({16}, b.getI1Type()),
          ArrayRef<int64_t>{rest});
      step(acc, m0, mr, n0, nr, idx(whole), mask);
    }
    for (int64_t i = 0; i < mr; ++i)
      for (int64_t j = 0; j < nr; ++j) {
        Value sum = vector::ReductionOp::create(
            b, loc, b.getF32Type(), vector::CombiningKind::ADD, acc[i * nr + j],
            Value(), arith::FastMathFlags::reassoc);
        SmallVector<Value> at = {add(m0, i), add(n0, j)};
        Value start = fillValue
                          ? fillValue
                          : memref::LoadOp::create(b, loc, g.c, at).getResult();
        memref::StoreOp::create(
            b, loc, arith::AddFOp::create(b, loc, start, sum), g.c, at);
      }
  }

  Value zeros() {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v16, b.getF32FloatAttr(0.0f)));
  }

  /// C[m0 .. m0 + mr, n0 .. n0 + nr] += A[m0.., :] . W[n0.., :]^T, the whole
  /// K in registers.
  void tile(Value m0, int64_t mr, Value n0, int64_t nr) {
    SmallVector<Value> init(mr * nr, zeros());
    finish(sweep(init, m0, mr, n0, nr, idx(0), idx(g.k / 16 * 16),
                 /*prefetch=*/true),
           m0, mr, n0, nr);
  }

  /// Calls `body(m0, rows, slot)` for every tile of A's rows: whole tiles of
  /// mr rows (slots 0 ..), then the rows past them one by one. The first
  /// whole tile is peeled off when `peelFirst` (body(.., true)).
  void forEachRowTile(
      bool peelFirst,
      llvm::function_ref<void(Value m0, int64_t rows, Value slot, bool first)>
          body) {
    int64_t mr = tiles.mr, count = g.m / mr;
    int64_t from = 0;
    if (peelFirst && count > 0) {
      body(idx(0), mr, idx(0), true);
      from = 1;
    }
    if (from < count) {
      OpBuilder::InsertionGuard guard(b);
      auto loop = scf::ForOp::create(b, loc, idx(from), idx(count), idx(1));
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      body(mul(t, mr), mr, t, false);
    }
    if (count * mr < g.m) {
      OpBuilder::InsertionGuard guard(b);
      auto loop = scf::ForOp::create(b, loc, idx(count * mr), idx(g.m), idx(1));
      b.setInsertionPointToStart(loop.getBody());
      Value m = loop.getInductionVar();
      Value slot = add(m, count - count * mr);
      body(m, 1, slot, false);
    }
  }

  /// Every row of A against W rows n0 .. n0 + nr, K whole per tile.
  void rowBlock(Value n0, int64_t nr) {
    forEachRowTile(false, [&](Value m0, int64_t rows, Value, bool) {
      tile(m0, rows, n0, nr);
    });
  }

  /// The tiles of A's rows forEachRowTile visits: whole tiles of mr rows,
  /// then the rows past them one by one.
  int64_t rowTiles() const {
    int64_t count = g.m / tiles.mr;
    return count + (g.m - count * tiles.mr);
  }

  /// The accumulator slots of rowBlockInKBlocks for tiles of nr W rows: one
  /// per tile of A's rows.
  Value allocSlots(int64_t nr) {
    auto slotsType =
        MemRefType::get({rowTiles(), tiles.mr * nr, 16}, b.getF32Type());
    // (The buffer-deallocation pipeline frees it after its last use.)
    return memref::AllocOp::create(b, loc, slotsType, b.getI64IntegerAttr(64));
  }

  /// rowBlock with K in blocks of kc: per block every tile of A's rows runs
  /// over it, its accumulators kept in the slots `acc` between blocks, so
  /// the block's nr W rows and A's rows (kc values each) are read from L1 by
  /// every tile instead of whole rows from L2.
  void rowBlockInKBlocks(Value n0, int64_t nr, Value acc) {
    int64_t mr = tiles.mr, slots = rowTiles();
    auto load = [&](Value slot, int64_t n) {
      SmallVector<Value> v;
      for (int64_t i = 0; i < n; ++i)
        v.push_back(vector::LoadOp::create(b, loc, v16, acc,
                                           ValueRange{slot, idx(i), idx(0)}));
      return v;
    };
    auto store = [&](ValueRange v, Value slot) {
      for (auto [i, x] : llvm::enumerate(v))
        vector::StoreOp::create(b, loc, x, acc,
                                ValueRange{slot, idx(i), idx(0)});
    };
    int64_t whole = g.k / 16 * 16;
    {
      // Zeros in every slot.
      OpBuilder::InsertionGuard guard(b);
      auto loop = scf::ForOp::create(b, loc, idx(0), idx(slots), idx(1));
      b.setInsertionPointToStart(loop.getBody());
      store(SmallVector<Value>(mr * nr, zeros()), loop.getInductionVar());
    }
    {
      OpBuilder::InsertionGuard guard(b);
      auto kLoop =
          scf::ForOp::create(b, loc, idx(0), idx(whole), idx(tiles.kc));
      b.setInsertionPointToStart(kLoop.getBody());
      Value kLo = kLoop.getInductionVar();
      Value kHi =
          arith::MinUIOp::create(b, loc, add(kLo, tiles.kc), idx(whole));
      // Only the first tile asks for the next W rows: the others read this
      // block's from L1.
      forEachRowTile(true, [&](Value m0, int64_t rows, Value slot, bool first) {
        store(sweep(load(slot, rows * nr), m0, rows, n0, nr, kLo, kHi,
                    /*prefetch=*/first),
              slot);
      });
    }
    forEachRowTile(false, [&](Value m0, int64_t rows, Value slot, bool) {
      finish(load(slot, rows * nr), m0, rows, n0, nr);
    });
  }

  /// K in blocks of kc: with more than one tile of A's rows (one tile reads
  /// its rows once anyway) and more than kc of K.
  bool inKBlocks() const {
    return tiles.kc > 0 && g.m > tiles.mr && g.k / 16 * 16 > tiles.kc;
  }

  /// `threads` > 1: the tiles of nr W rows in that many tasks of
  /// consecutive tiles (an scf.forall), each with its own slots.
  void build(int64_t threads) {
    int64_t nr = tiles.nr, blocks = g.n / nr, rest = g.n % nr;
    bool slots = inKBlocks();
    if (blocks > 0) {
      int64_t tasks = std::max<int64_t>(1, std::min(threads, blocks));
      int64_t per = llvm::divideCeil(blocks, tasks);
      tasks = llvm::divideCeil(blocks, per);
      OpBuilder::InsertionGuard guard(b);
      Value task = accel::openLoop(b, loc, tasks, tasks > 1);
      Value acc = slots ? allocSlots(nr) : Value();
      Value first = mul(task, per);
      Value last = arith::MinUIOp::create(b, loc, add(first, per), idx(blocks));
      auto loop = scf::ForOp::create(b, loc, first, last, idx(1));
      b.setInsertionPointToStart(loop.getBody());
      Value n0 = mul(loop.getInductionVar(), nr);
      if (slots)
        rowBlockInKBlocks(n0, nr, acc);
      else
        rowBlock(n0, nr);
    }
    if (rest > 0) {
      OpBuilder::InsertionGuard guard(b);
      Value acc = slots ? allocSlots(1) : Value();
      Value j = accel::openLoop(b, loc, rest, false);
      if (slots)
        rowBlockInKBlocks(add(j, blocks * nr), 1, acc);
      else
        rowBlock(add(j, blocks * nr), 1);
    }
  }
};

struct AccelCpuRowDotKernelsPass
    : public accel::impl::AccelCpuRowDotKernelsPassBase<
          AccelCpuRowDotKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    accel::CpuIsa isa = accel::CpuIsa::resolve(features, func);
    SmallVector<std::pair<RowDotGemm, accel::CpuRowDotTiles>> gemms;
    bool failedConfig = false;
    func.walk([&](linalg::LinalgOp op) {
      // The configuration stage's choice; without a config (the pass run
      // on its own), the choice for the rows and the features.
      auto config = op->getAttrOfType<accel::LoweringConfigAttr>(
          accel::kLoweringConfigAttrName);
      if (config && config.getKernel() != "cpu-row-dot")
        return;
      std::optional<RowDotGemm> g = matchRowDot(op);
      // A config of cpu-row-dot whose B is not a transpose of an unchanged
      // [N, K] buffer (W written between the copy and the product) stays
      // with accel-cpu-vectorize-contractions, which reads the copy.
      if (!g)
        return;
      if (!config && configuredOnly)
        return;
      std::optional<accel::CpuRowDotTiles> t =
          config ? accel::getCpuRowDotTiles(config)
                 : accel::chooseCpuRowDotTiles(isa, g->m);
      if (config && !t) {
        op.emitOpError("accel-cpu-row-dot-kernels: cpu-row-dot takes an mma "
                       "[mr, nr, 16] and a tile [0, 0, Kc] or none");
        failedConfig = true;
        return;
      }
      if (!t)
        return;
      if (std::string why = accel::checkCpuRowDotTiles(*t, isa); !why.empty()) {
        op.emitOpError("accel-cpu-row-dot-kernels: ") << why;
        failedConfig = true;
        return;
      }
      gemms.push_back({*g, *t});
    });
    if (failedConfig)
      return signalPassFailure();
    OpBuilder builder(&getContext());
    for (auto &[g, tiles] : gemms) {
      builder.setInsertionPoint(g.op);
      linalg::FillOp fill = accel::initializingFill(g.op);
      Value fillValue;
      if (fill && fill.getInputs()[0].getType().isF32())
        fillValue = fill.getInputs()[0];
      RowDotBuilder kb{builder, g.op.getLoc(), g, tiles, fillValue};
      kb.build(accel::insideParallelLoop(g.op) ? 1 : threads);
      g.op->erase();
      // Every element of C is stored from the fill's value: the fill is
      // dead, and so is the transposed copy of W.
      if (fillValue)
        fill->erase();
      accel::eraseTransposeOfB(g.transpose);
    }
  }
};

} // namespace
