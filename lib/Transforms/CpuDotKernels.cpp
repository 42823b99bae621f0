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

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUDOTKERNELSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {
/// A contraction the kernel handles: C[M, N] += A[M, K] * B[K, N].
struct Bf16Gemm {
  linalg::LinalgOp op;
  Value a, b, c;
  int64_t m, n, k;
};

/// Whether the last dimension of `t` is contiguous.
bool unitInnerStride(MemRefType t) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)))
    return false;
  return !strides.empty() && strides.back() == 1;
}

/// `op` as a row-major bf16 x bf16 -> f32 GEMM with static sizes, if it is
/// one: maps (m, k), (k, n), (m, n) over loops (m, n, k) and the body
/// `out + ext(a) * ext(b)`.
std::optional<Bf16Gemm> matchBf16Gemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> want = {AffineMap::get(3, 0, {m, k}, ctx),
                                 AffineMap::get(3, 0, {k, n}, ctx),
                                 AffineMap::get(3, 0, {m, n}, ctx)};
  if (op.getIndexingMapsArray() != ArrayRef<AffineMap>(want))
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (iters[2] != utils::IteratorType::reduction)
    return std::nullopt;
  Value a = op.getDpsInputOperand(0)->get(), b = op.getDpsInputOperand(1)->get(),
        c = op.getDpsInitOperand(0)->get();
  auto at = dyn_cast<MemRefType>(a.getType()),
       bt = dyn_cast<MemRefType>(b.getType()),
       ct = dyn_cast<MemRefType>(c.getType());
  if (!at || !bt || !ct || !at.hasStaticShape() || !bt.hasStaticShape() ||
      !ct.hasStaticShape() || !at.getElementType().isBF16() ||
      !bt.getElementType().isBF16() || !ct.getElementType().isF32() ||
      !unitInnerStride(at) || !unitInnerStride(bt) || !unitInnerStride(ct))
    return std::nullopt;
  // The body must widen both operands to f32 exactly (extf), multiply and
  // add to the accumulator: what vdpbf16ps computes.
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != acc && add.getRhs() != acc))
    return std::nullopt;
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  auto widened = [&](Value v, unsigned arg) {
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext && ext.getIn() == body.getArgument(arg);
  };
  if (!((widened(mul.getLhs(), 0) && widened(mul.getRhs(), 1)) ||
        (widened(mul.getLhs(), 1) && widened(mul.getRhs(), 0))))
    return std::nullopt;
  return Bf16Gemm{op, a, b, c, at.getDimSize(0), bt.getDimSize(1),
                  at.getDimSize(1)};
}

/// Emits the kernel of one GEMM in place of its op.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  const Bf16Gemm &g;
  int64_t mr, nr, kc;
  Value packed; // [K/2 rounded up, N rounded up to 16, 2] bf16

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }

  /// Bp[kk, n, t] = B[2 kk + t, n], zeros past N and past K.
  void pack() {
    Type bf16 = b.getBF16Type();
    int64_t pairs = (g.k + 1) / 2, cols = (g.n + 15) / 16 * 16;
    packed = memref::AllocOp::create(
        b, loc, MemRefType::get({pairs, cols, 2}, bf16),
        b.getI64IntegerAttr(64));
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
    int64_t fullPairs = g.k / 2, fullCols = g.n / 16 * 16;
    Value c0 = idx(0), c1 = idx(1), c2 = idx(2);
    // Whole pairs of rows, 16 columns at a time: interleave two rows.
    if (fullPairs > 0 && fullCols > 0) {
      auto kLoop = scf::ForOp::create(b, loc, c0, idx(fullPairs), c1);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      Value k0 = arith::MulIOp::create(b, loc, kk, c2);
      Value k1 = arith::AddIOp::create(b, loc, k0, c1);
      auto nLoop = scf::ForOp::create(b, loc, c0, idx(fullCols), idx(16));
      b.setInsertionPointToStart(nLoop.getBody());
      Value col = nLoop.getInductionVar();
      Value r0 = vector::LoadOp::create(b, loc, vec(16, bf16), g.b,
                                        ValueRange{k0, col});
      Value r1 = vector::LoadOp::create(b, loc, vec(16, bf16), g.b,
                                        ValueRange{k1, col});
      Value both = vector::InterleaveOp::create(b, loc, r0, r1);
      vector::StoreOp::create(b, loc, both, packed, ValueRange{kk, col, c0});
    }
    // The columns past the last whole 16 (and the padding), one at a time;
    // the last pair of an odd K has a zero partner.
    auto scalarCols = [&](int64_t colBegin, int64_t rowPairBegin,
                          int64_t rowPairEnd) {
      if (colBegin >= cols || rowPairBegin >= rowPairEnd)
        return;
      OpBuilder::InsertionGuard guard(b);
      auto kLoop = scf::ForOp::create(b, loc, idx(rowPairBegin),
                                      idx(rowPairEnd), c1);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      auto nLoop = scf::ForOp::create(b, loc, idx(colBegin), idx(cols), c1);
      b.setInsertionPointToStart(nLoop.getBody());
      Value col = nLoop.getInductionVar();
      for (int64_t t = 0; t < 2; ++t) {
        // k = 2 kk + t, read only when k < K and col < N.
        Value k = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, kk, c2), idx(t));
        Value inK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          k, idx(g.k));
        Value inN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          col, idx(g.n));
        Value in = arith::AndIOp::create(b, loc, inK, inN);
        auto read = scf::IfOp::create(b, loc, TypeRange{bf16}, in,
                                      /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(read.thenBlock());
          Value v = memref::LoadOp::create(b, loc, g.b, ValueRange{k, col});
          scf::YieldOp::create(b, loc, v);
          b.setInsertionPointToStart(read.elseBlock());
          scf::YieldOp::create(b, loc, zero);
        }
        memref::StoreOp::create(b, loc, read.getResult(0), packed,
                                ValueRange{kk, col, idx(t)});
      }
    };
    scalarCols(fullCols, 0, fullPairs);
    scalarCols(0, fullPairs, pairs);
  }

  /// The rows [m0, m0 + rows) x columns [n0, n0 + 16 groups) of C over the k
  /// pairs [kb, ke); `lastCols` < 16 masks the last group.
  void microKernel(Value m0, int64_t rows, Value n0, int64_t groups,
                   int64_t lastCols, Value kb, Value ke, bool oddTail) {
    Type f32 = b.getF32Type(), bf16 = b.getBF16Type(), i32 = b.getI32Type();
    VectorType accT = vec(16, f32), pairT = vec(32, bf16);
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
        b, loc, DenseElementsAttr::get(accT, b.getF32FloatAttr(0.0f)));
    SmallVector<Value> acc;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < groups; ++j) {
        SmallVector<Value> at = {rowOf(i), colOf(j)};
        if (mask && j == groups - 1)
          acc.push_back(vector::MaskedLoadOp::create(b, loc, accT, g.c, at,
                                                     mask, zeroAcc));
        else
          acc.push_back(vector::LoadOp::create(b, loc, accT, g.c, at));
      }
    // One k pair: broadcast A's pair of each row, one vdpbf16ps per group.
    auto step = [&](Value kk, ArrayRef<Value> in,
                    function_ref<Value(int64_t)> pairOfRow) {
      SmallVector<Value> bv;
      for (int64_t j = 0; j < groups; ++j)
        bv.push_back(vector::LoadOp::create(b, loc, pairT, packed,
                                            ValueRange{kk, colOf(j), idx(0)}));
      SmallVector<Value> out;
      for (int64_t i = 0; i < rows; ++i) {
        Value pair = pairOfRow(i); // vector<2xbf16>
        Value word = vector::BitCastOp::create(b, loc, vec(1, i32), pair);
        Value scalar = vector::ExtractOp::create(b, loc, word, 0);
        Value splat = vector::BroadcastOp::create(b, loc, vec(16, i32), scalar);
        Value aPairs = vector::BitCastOp::create(b, loc, pairT, splat);
        for (int64_t j = 0; j < groups; ++j)
          out.push_back(x86vector::DotBF16Op::create(
              b, loc, accT, in[i * groups + j], aPairs, bv[j]));
      }
      return out;
    };
    auto kLoop = scf::ForOp::create(b, loc, kb, ke, idx(1), acc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      Value k0 = arith::MulIOp::create(b, loc, kk, idx(2));
      SmallVector<Value> next = step(
          kk, SmallVector<Value>(kLoop.getRegionIterArgs()), [&](int64_t i) {
            return vector::LoadOp::create(b, loc, vec(2, bf16), g.a,
                                          ValueRange{rowOf(i), k0})
                .getResult();
          });
      scf::YieldOp::create(b, loc, next);
    }
    acc.assign(kLoop.getResults().begin(), kLoop.getResults().end());
    if (oddTail) {
      // K odd: the last column of A pairs with a zero (Bp's partner row is
      // zero too); A is not read past K.
      Value last = idx(g.k - 1);
      Value zeroPair = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vec(2, bf16), b.getZeroAttr(bf16)));
      acc = step(idx(g.k / 2), acc, [&](int64_t i) {
        Value v = memref::LoadOp::create(b, loc, g.a, ValueRange{rowOf(i), last});
        return vector::InsertOp::create(b, loc, v, zeroPair, 0).getResult();
      });
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < groups; ++j) {
        SmallVector<Value> at = {rowOf(i), colOf(j)};
        if (mask && j == groups - 1)
          vector::MaskedStoreOp::create(b, loc, g.c, at, mask,
                                        acc[i * groups + j]);
        else
          vector::StoreOp::create(b, loc, acc[i * groups + j], g.c, at);
      }
  }

  /// Rows in tiles of mr (then the remainder) for the columns [n0, n0 +
  /// groups x 16) and the k pairs [kb, ke).
  void rowTiles(Value n0, int64_t groups, int64_t lastCols, Value kb,
                Value ke, Value oddTail) {
    int64_t fullRows = g.m / mr * mr, restRows = g.m % mr;
    auto tile = [&](Value m0, int64_t rows) {
      if (!oddTail) {
        microKernel(m0, rows, n0, groups, lastCols, kb, ke, false);
        return;
      }
      // The odd tail belongs to the last K block only.
      auto branch = scf::IfOp::create(b, loc, TypeRange{}, oddTail,
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      microKernel(m0, rows, n0, groups, lastCols, kb, ke, true);
      b.setInsertionPointToStart(branch.elseBlock());
      microKernel(m0, rows, n0, groups, lastCols, kb, ke, false);
    };
    if (fullRows > 0) {
      auto mLoop = scf::ForOp::create(b, loc, idx(0), idx(fullRows), idx(mr));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(mLoop.getBody());
      tile(mLoop.getInductionVar(), mr);
    }
    if (restRows > 0)
      tile(idx(fullRows), restRows);
  }

  /// Columns [n0, n0 + groups x 16) of C over every K block of kc values:
  /// the B panel [kc, nr] stays in L1/L2 while the rows of A stream past
  /// it. The k-pair range of a block is [kb, ke).
  void columnTile(Value n0, int64_t groups, int64_t lastCols) {
    int64_t fullPairs = g.k / 2, kcPairs = std::max<int64_t>(1, kc / 2);
    int64_t blocksEnd = std::max<int64_t>(fullPairs, 1);
    auto kLoop = scf::ForOp::create(b, loc, idx(0), idx(blocksEnd),
                                    idx(kcPairs));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kb = kLoop.getInductionVar();
    Value next = arith::AddIOp::create(b, loc, kb, idx(kcPairs));
    Value ke = arith::MinSIOp::create(b, loc, next, idx(fullPairs));
    Value oddTail;
    if (g.k % 2 != 0)
      oddTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, next,
                                      idx(blocksEnd));
    rowTiles(n0, groups, lastCols, kb, ke, oddTail);
  }

  void build(bool parallel) {
    pack();
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
        n0 = arith::MulIOp::create(b, loc, forall.getInductionVar(0),
                                   idx(nr));
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

/// Whether `features` (comma-separated, with or without '+') has `name`.
bool hasFeature(StringRef features, StringRef name) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  return llvm::any_of(parts, [&](StringRef f) {
    return f.trim().ltrim('+') == name;
  });
}

struct AccelCpuDotKernelsPass
    : public accel::impl::AccelCpuDotKernelsPassBase<AccelCpuDotKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (nr <= 0 || nr % 16 != 0 || mr <= 0 || kc < 2 || kc % 2 != 0) {
      func.emitError() << "accel-cpu-dot-kernels: mr must be positive, nr a "
                          "positive multiple of 16 and kc even and >= 2 "
                          "(got mr="
                       << int64_t(mr) << " nr=" << int64_t(nr)
                       << " kc=" << int64_t(kc) << ")";
      return signalPassFailure();
    }
    bool bf16Dot = hasFeature(features, "avx512bf16");
    if (features.empty())
      if (auto module = func->getParentOfType<ModuleOp>())
        if (auto target = module->getAttrOfType<accel::TargetAttr>(
                accel::kTargetAttrName);
            target && target.getKind() == accel::TargetKind::CPU)
          bf16Dot = target.hasFeature("avx512bf16");
    if (!bf16Dot)
      return;
    SmallVector<Bf16Gemm> gemms;
    func.walk([&](linalg::LinalgOp op) {
      if (std::optional<Bf16Gemm> g = matchBf16Gemm(op))
        gemms.push_back(*g);
    });
    OpBuilder builder(&getContext());
    for (Bf16Gemm &g : gemms) {
      if (g.m == 0 || g.n == 0 || g.k == 0)
        continue;
      builder.setInsertionPoint(g.op);
      KernelBuilder kb{builder, g.op.getLoc(), g, mr, nr, kc, Value()};
      // Threads over column tiles, unless the GEMM already runs inside a
      // parallel loop (e.g. FlashAttention's heads).
      bool nested = g.op->getParentOfType<scf::ForallOp>() ||
                    g.op->getParentOfType<scf::ParallelOp>();
      kb.build(threads > 1 && !nested);
      g.op->erase();
    }
  }
};
} // namespace
