//===- PagedAttentionKernel.cpp - decode attention on the GPU -------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The kernels of accel.paged_attention (PagedAttentionKernel.h).
//
// Split kernel, block (split s, KV head h x row tile, sequence b):
//
//   1. Validity: the sequence's length must lie in [0, N * T] and its
//      pages below ceil(length / T) in [0, P). The threads check the table
//      entries side by side, each warp reduces its flags by xor shuffles
//      and writes one to shared memory; every thread reads them all. An
//      invalid sequence reads nothing of the pools.
//   2. Rows: the block's packed query rows (row g * Sq + i is query i of
//      query head h * G + g) are in registers, each lane holding its runs
//      of D, scaled by scale * log2(e) for exp2.
//   3. Keys: group q of `lanes` lanes takes keys kb + u * groups + q of each
//      step (u < unroll), from the split's first key to min(its last,
//      length): each key's page through the table, its K and V rows' runs
//      loaded where they lie (a key past the end reads the last key's and
//      is masked). The logits are the lanes' partial dot products summed by
//      a butterfly of xor shuffles over the group; keys past the length or
//      (causal) past the band of a row are -inf; the online softmax keeps
//      each row's maximum m, sum l and unnormalised O in the group's lanes.
//   4. The groups' states meet in shared memory; each thread merges the
//      groups for one (row, run of Dv) and writes O (one split: O / l, 0
//      when nothing was kept) or the split's (O, m, l).
//
// Combine kernel: O = sum_s 2^(m_s - M) O_s / sum_s 2^(m_s - M) l_s with
// M = max_s m_s (NaN-propagating, so an invalid sequence's NaN states give
// NaN), 0 when no split kept a key.
//
//===----------------------------------------------------------------------===//

#include "PagedAttentionKernel.h"
#include "KernelUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::accel;

namespace {

constexpr int64_t kCombineThreads = kGpuPagedCombineThreads;

class PagedKernelBuilder : public GpuIndexBuilder {
public:
  PagedKernelBuilder(OpBuilder &b, Location loc, Block *entry,
                     const GpuPagedPlan &k, const GpuTargetInfo &target)
      : GpuIndexBuilder(b, loc, entry), k(k), target(target) {}

  /// The split kernel's body (PagedAttentionKernel.h), writing O or the
  /// partial states `out`.
  void emitSplit(Value q, Value kPool, Value vPool, Value table, Value lengths,
                 Value out);
  /// The combine kernel's body.
  void emitCombine(Value partials, Value out);

private:
  const GpuPagedPlan &k;
  const GpuTargetInfo &target;
  Value f32(double v) { return constant(b.getF32FloatAttr(float(v))); }
  Value negInf() { return f32(-std::numeric_limits<double>::infinity()); }
  Value nan() { return f32(std::numeric_limits<double>::quiet_NaN()); }
  /// An integer constant of the table's or the lengths' type.
  Value intOf(Type t, int64_t v) { return constant(b.getIntegerAttr(t, v)); }
  VectorType f32Vec() { return VectorType::get({k.vec}, b.getF32Type()); }
  Value zeroVec() { return constant(DenseElementsAttr::get(f32Vec(), 0.0f)); }
  Value splat(Value s) {
    return vector::BroadcastOp::create(b, loc, f32Vec(), s);
  }
  Value addF(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value subF(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value maxF(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value cmpF(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value exp2(Value v) { return target.createExp2(b, loc, v); }
  Value shuffleXor(Value v, int64_t mask) {
    return gpu::ShuffleOp::create(b, loc, v, int32_t(mask),
                                  int32_t(target.getWarpSize()),
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// `m` made usable as the subtrahend of exp2: 0 while it is -inf (every
  /// key removed so far), so that exp2(-inf - 0) = 0, never NaN.
  Value usableMax(Value m) {
    return select(cmpF(arith::CmpFPredicate::OEQ, m, negInf()), f32(0), m);
  }
  /// A run of `vec` elements of `src` at `idx`, as f32.
  Value loadRun(Value src, ValueRange idx, Type elt) {
    const int64_t bytes = k.vec * elt.getIntOrFloatBitWidth() / 8;
    Value v = vector::LoadOp::create(b, loc, VectorType::get({k.vec}, elt), src,
                                     idx, false, llvm::MaybeAlign(bytes));
    if (!elt.isF32())
      v = arith::ExtFOp::create(b, loc, f32Vec(), v);
    return v;
  }
  /// The sum of a vector's elements.
  Value sumOf(Value v) {
    Value s;
    for (int64_t e = 0; e < k.vec; ++e) {
      Value x = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e});
      s = s ? addF(s, x) : x;
    }
    return s;
  }
  /// Stores the f32 run `v` of O at (batch, query head, query, col).
  void storeO(Value v, Value o, ValueRange idx) {
    if (!k.outType.isF32())
      v = arith::TruncFOp::create(b, loc, VectorType::get({k.vec}, k.outType),
                                  v);
    const int64_t bytes = k.vec * k.outType.getIntOrFloatBitWidth() / 8;
    vector::StoreOp::create(b, loc, v, o, idx, false, llvm::MaybeAlign(bytes));
  }
  /// Code after this runs where `cond` holds (a null cond: always), until
  /// the guard's scope ends.
  void enterIf(Value cond) {
    if (!cond)
      return;
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
};

void PagedKernelBuilder::emitSplit(Value gQ, Value gK, Value gV, Value gTable,
                                   Value gLengths, Value gOut) {
  MLIRContext *ctx = b.getContext();
  const int64_t warp = target.getWarpSize(), L = k.lanes, E = k.vec;
  const int64_t threads = k.warps * warp, groups = k.groups(warp);
  const int64_t R = k.rows(), Rb = k.rowsPerBlock, G = k.hq / k.hkv;
  const int64_t T = k.pageSize, N = k.maxPages;
  const int64_t runsK = k.runsK(), runsV = k.runsV();
  Type f32Type = b.getF32Type();

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = rem(tid, warp), warpId = div(tid, warp);
  Value li = rem(tid, L), gid = div(tid, L);
  Value split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value hr = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value h = div(hr, k.rowTiles()), rt = rem(hr, k.rowTiles());
  Value bIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);

  // Shared memory: each group's states [groups][Rb][Dv + 2], then a flag a
  // warp.
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value dyn = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), wg));
  auto statesType = MemRefType::get({groups, Rb, k.dv + 2}, f32Type,
                                    MemRefLayoutAttrInterface(), wg);
  auto flagsType =
      MemRefType::get({k.warps}, f32Type, MemRefLayoutAttrInterface(), wg);
  Value states =
      memref::ViewOp::create(b, loc, statesType, dyn, cst(0), ValueRange{});
  Value flags = memref::ViewOp::create(b, loc, flagsType, dyn,
                                       cst(statesType.getNumElements() * 4),
                                       ValueRange{});

  // 1. Validity of the sequence.
  Type lenType = k.lengthType, tabType = k.tableType;
  Value rawLen = memref::LoadOp::create(b, loc, gLengths, ValueRange{bIdx});
  Value lenOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, rawLen,
                                      intOf(lenType, 0));
  // N * T <= 2^31 (verifier): an i32 length is at most N * T unless that is
  // 2^31.
  const int64_t maxKeys = N * T;
  if (lenType.getIntOrFloatBitWidth() > 32 || maxKeys < (int64_t(1) << 31))
    lenOk = both(lenOk, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                              rawLen, intOf(lenType, maxKeys)));
  Value len = arith::IndexCastUIOp::create(
      b, loc, b.getIndexType(), select(lenOk, rawLen, intOf(lenType, 0)));
  Value nPages = div(add(len, T - 1), T);
  auto check = scf::ForOp::create(
      b, loc, cst(0), nPages, cst(threads), ValueRange{f32(0)},
      [&](OpBuilder &, Location, Value i0, ValueRange bad) {
        Value i = add(i0, tid);
        Value in = cmp(arith::CmpIPredicate::ult, i, nPages);
        Value e = memref::LoadOp::create(b, loc, gTable,
                                         ValueRange{bIdx, minS(i, cst(N - 1))});
        Value eBad = arith::OrIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, e,
                                  intOf(tabType, 0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, e,
                                  intOf(tabType, k.pages)));
        scf::YieldOp::create(
            b, loc, ValueRange{select(both(in, eBad), f32(1), bad[0])});
      });
  Value bad = check.getResult(0);
  for (int64_t m = 1; m < warp; m *= 2)
    bad = maxF(bad, shuffleXor(bad, m));
  {
    OpBuilder::InsertionGuard ig(b);
    enterIf(cmp(arith::CmpIPredicate::eq, lane, cst(0)));
    memref::StoreOp::create(b, loc, bad, flags, ValueRange{warpId});
  }
  gpu::BarrierOp::create(b, loc);
  Value anyBad = f32(0);
  for (int64_t w = 0; w < k.warps; ++w)
    anyBad =
        maxF(anyBad, memref::LoadOp::create(b, loc, flags, ValueRange{cst(w)}));
  Value valid = both(lenOk, cmpF(arith::CmpFPredicate::OEQ, anyBad, f32(0)));

  // The split's keys: [kBegin, kEnd), none for an invalid sequence.
  const int64_t splitKeys = k.pagesPerSplit * T;
  Value kBegin = mul(split, splitKeys);
  Value kEnd = minS(add(kBegin, splitKeys), len);
  kEnd = select(valid, kEnd, kBegin);

  // 2. The block's rows: query head, query, causal limit, Q runs.
  const double qScale = k.scale * (1.0 / std::log(2.0));
  SmallVector<Value> limitOf;
  SmallVector<SmallVector<Value>> qRuns;
  auto runValue = [&](int64_t x, int64_t runs) -> std::pair<Value, Value> {
    // Lane li's run x: li + L x, clamped to the last run (its lanes past
    // the row hold zeros or store nothing).
    Value run = add(li, L * x);
    if ((x + 1) * L <= runs)
      return {run, Value()};
    Value ok = ult(run, runs);
    return {select(ok, run, cst(runs - 1)), ok};
  };
  for (int64_t rho = 0; rho < Rb; ++rho) {
    Value r = add(mul(rt, Rb), rho);
    Value rc = R % Rb != 0 ? minS(r, cst(R - 1)) : r;
    Value g = div(rc, k.sq), i = rem(rc, k.sq);
    Value qh = add(mul(h, G), g);
    // Query i keeps key j when j < length - Sq + i + 1 (may be <= 0).
    if (k.causal)
      limitOf.push_back(
          arith::SubIOp::create(b, loc, add(len, add(i, 1)), cst(k.sq)));
    SmallVector<Value> runs;
    for (int64_t x = 0; x < k.kRunsPerLane(); ++x) {
      auto [run, ok] = runValue(x, runsK);
      Value v = loadRun(gQ, ValueRange{bIdx, qh, i, mul(run, E)}, k.inType);
      v = mulF(v, splat(f32(qScale)));
      if (ok)
        v = select(ok, v, zeroVec());
      runs.push_back(v);
    }
    qRuns.push_back(runs);
  }

  // 3. The key loop; per row: m, l, then the O runs.
  const int64_t vRuns = k.vRunsPerLane();
  const int64_t perRow = 2 + vRuns;
  SmallVector<Value> init;
  for (int64_t rho = 0; rho < Rb; ++rho) {
    init.append({negInf(), f32(0)});
    init.append(vRuns, zeroVec());
  }
  auto loop = scf::ForOp::create(
      b, loc, kBegin, kEnd, cst(groups * k.unroll), init,
      [&](OpBuilder &, Location, Value kb, ValueRange iter) {
        SmallVector<Value> state(iter.begin(), iter.end());
        SmallVector<Value> keys, keyOk;
        SmallVector<SmallVector<Value>> kRows, vRows;
        // The loads of every key of the step first.
        for (int64_t u = 0; u < k.unroll; ++u) {
          Value j = add(add(kb, u * groups), gid);
          Value ok = cmp(arith::CmpIPredicate::slt, j, kEnd);
          Value jc = select(ok, j, arith::SubIOp::create(b, loc, kEnd, cst(1)));
          Value entry = memref::LoadOp::create(b, loc, gTable,
                                               ValueRange{bIdx, div(jc, T)});
          Value page =
              arith::IndexCastUIOp::create(b, loc, b.getIndexType(), entry);
          Value slot = rem(jc, T);
          SmallVector<Value> kr, vr;
          for (int64_t x = 0; x < k.kRunsPerLane(); ++x)
            kr.push_back(loadRun(
                gK, ValueRange{page, slot, h, mul(runValue(x, runsK).first, E)},
                k.inType));
          for (int64_t x = 0; x < vRuns; ++x)
            vr.push_back(loadRun(
                gV, ValueRange{page, slot, h, mul(runValue(x, runsV).first, E)},
                k.inType));
          keys.push_back(j);
          keyOk.push_back(ok);
          kRows.push_back(kr);
          vRows.push_back(vr);
        }
        for (int64_t rho = 0; rho < Rb; ++rho) {
          Value m = state[rho * perRow], l = state[rho * perRow + 1];
          // Logits: the lanes' partial dot products, summed over the group.
          SmallVector<Value> s;
          Value blockMax;
          for (int64_t u = 0; u < k.unroll; ++u) {
            Value prod;
            for (int64_t x = 0; x < k.kRunsPerLane(); ++x)
              prod = prod ? fma(qRuns[rho][x], kRows[u][x], prod)
                          : mulF(qRuns[rho][x], kRows[u][x]);
            Value dot = sumOf(prod);
            for (int64_t off = 1; off < L; off *= 2)
              dot = addF(dot, shuffleXor(dot, off));
            Value keep = keyOk[u];
            if (k.causal)
              keep = both(
                  keep, cmp(arith::CmpIPredicate::slt, keys[u], limitOf[rho]));
            dot = select(keep, dot, negInf());
            s.push_back(dot);
            blockMax = blockMax ? maxF(blockMax, dot) : dot;
          }
          // The online softmax.
          Value mNew = maxF(m, blockMax);
          Value mUse = usableMax(mNew);
          Value alpha = exp2(subF(m, mUse));
          Value alphaV = splat(alpha);
          l = mulF(l, alpha);
          SmallVector<Value> acc;
          for (int64_t x = 0; x < vRuns; ++x)
            acc.push_back(mulF(state[rho * perRow + 2 + x], alphaV));
          for (int64_t u = 0; u < k.unroll; ++u) {
            Value p = exp2(subF(s[u], mUse));
            l = addF(l, p);
            Value pV = splat(p);
            for (int64_t x = 0; x < vRuns; ++x)
              acc[x] = fma(pV, vRows[u][x], acc[x]);
          }
          state[rho * perRow] = mNew;
          state[rho * perRow + 1] = l;
          for (int64_t x = 0; x < vRuns; ++x)
            state[rho * perRow + 2 + x] = acc[x];
        }
        scf::YieldOp::create(b, loc, state);
      });
  keepRolled(loop);

  // 4. The groups' states into shared memory (a lane its runs; lane 0 of
  // the group m and l).
  for (int64_t rho = 0; rho < Rb; ++rho) {
    for (int64_t x = 0; x < vRuns; ++x) {
      OpBuilder::InsertionGuard ig(b);
      auto [run, ok] = runValue(x, runsV);
      enterIf(ok);
      vector::StoreOp::create(b, loc, loop.getResult(rho * perRow + 2 + x),
                              states, ValueRange{gid, cst(rho), mul(run, E)},
                              false, llvm::MaybeAlign(4));
    }
    OpBuilder::InsertionGuard ig(b);
    enterIf(cmp(arith::CmpIPredicate::eq, li, cst(0)));
    memref::StoreOp::create(b, loc, loop.getResult(rho * perRow), states,
                            ValueRange{gid, cst(rho), cst(k.dv)});
    memref::StoreOp::create(b, loc, loop.getResult(rho * perRow + 1), states,
                            ValueRange{gid, cst(rho), cst(k.dv + 1)});
  }
  gpu::BarrierOp::create(b, loc);

  // Each thread merges the groups for (row, run) pairs and stores.
  const int64_t total = Rb * runsV;
  for (int64_t first = 0; first < total; first += threads) {
    OpBuilder::InsertionGuard ig(b);
    Value idx = add(tid, first);
    if (first + threads > total)
      enterIf(ult(idx, total));
    Value rho = div(idx, runsV), run = rem(idx, runsV);
    Value col = mul(run, E);
    // Rolled loops over the groups (up to 128 of them when a key takes one
    // lane: unrolled, sm_80 spilled).
    auto maxLoop = scf::ForOp::create(
        b, loc, cst(0), cst(groups), cst(1), ValueRange{negInf()},
        [&](OpBuilder &, Location, Value q, ValueRange mm) {
          Value mq = memref::LoadOp::create(b, loc, states,
                                            ValueRange{q, rho, cst(k.dv)});
          scf::YieldOp::create(b, loc, ValueRange{maxF(mm[0], mq)});
        });
    Value m = maxLoop.getResult(0);
    Value mUse = usableMax(m);
    auto sumLoop = scf::ForOp::create(
        b, loc, cst(0), cst(groups), cst(1), ValueRange{f32(0), zeroVec()},
        [&](OpBuilder &, Location, Value q, ValueRange sums) {
          Value mq = memref::LoadOp::create(b, loc, states,
                                            ValueRange{q, rho, cst(k.dv)});
          Value lq = memref::LoadOp::create(b, loc, states,
                                            ValueRange{q, rho, cst(k.dv + 1)});
          Value w = exp2(subF(mq, mUse));
          Value aq = vector::LoadOp::create(b, loc, f32Vec(), states,
                                            ValueRange{q, rho, col}, false,
                                            llvm::MaybeAlign(4));
          scf::YieldOp::create(
              b, loc,
              ValueRange{fma(w, lq, sums[0]), fma(splat(w), aq, sums[1])});
        });
    keepRolled(sumLoop);
    Value l = sumLoop.getResult(0), acc = sumLoop.getResult(1);
    // The block's row and its query head and query.
    Value r = add(mul(rt, Rb), rho);
    if (R % Rb != 0)
      enterIf(ult(r, R));
    if (k.splits == 1) {
      Value none = cmpF(arith::CmpFPredicate::OEQ, l, f32(0));
      Value inv =
          select(none, f32(0), arith::DivFOp::create(b, loc, f32(1), l));
      Value o = select(valid, mulF(acc, splat(inv)), splat(nan()));
      Value g = div(r, k.sq), i = rem(r, k.sq);
      storeO(o, gOut, ValueRange{bIdx, add(mul(h, G), g), i, col});
      continue;
    }
    Value o = select(valid, acc, splat(nan()));
    vector::StoreOp::create(b, loc, o, gOut, ValueRange{bIdx, h, split, r, col},
                            false, llvm::MaybeAlign(4));
    enterIf(cmp(arith::CmpIPredicate::eq, run, cst(0)));
    memref::StoreOp::create(b, loc, select(valid, m, nan()), gOut,
                            ValueRange{bIdx, h, split, r, cst(k.dv)});
    memref::StoreOp::create(b, loc, select(valid, l, nan()), gOut,
                            ValueRange{bIdx, h, split, r, cst(k.dv + 1)});
  }
}

void PagedKernelBuilder::emitCombine(Value gPart, Value gOut) {
  const int64_t R = k.rows(), G = k.hq / k.hkv;
  const int64_t total = k.batch * k.hkv * R * k.dv;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value idx = add(mul(blk, kCombineThreads), tid);
  OpBuilder::InsertionGuard ig(b);
  if (total % kCombineThreads != 0)
    enterIf(ult(idx, total));
  Value c = rem(idx, k.dv), t = div(idx, k.dv);
  Value r = rem(t, R), t2 = div(t, R);
  Value h = rem(t2, k.hkv), bIdx = div(t2, k.hkv);
  auto load = [&](Value s, Value col) {
    return memref::LoadOp::create(b, loc, gPart,
                                  ValueRange{bIdx, h, s, r, col});
  };
  // M: NaN when a split is (an invalid sequence), -inf when none kept a key.
  auto maxLoop = scf::ForOp::create(
      b, loc, cst(0), cst(k.splits), cst(1), ValueRange{negInf()},
      [&](OpBuilder &, Location, Value s, ValueRange m) {
        scf::YieldOp::create(b, loc,
                             ValueRange{maxF(m[0], load(s, cst(k.dv)))});
      });
  Value m = maxLoop.getResult(0);
  Value mUse = usableMax(m);
  auto sumLoop = scf::ForOp::create(
      b, loc, cst(0), cst(k.splits), cst(1), ValueRange{f32(0), f32(0)},
      [&](OpBuilder &, Location, Value s, ValueRange sums) {
        Value w = exp2(subF(load(s, cst(k.dv)), mUse));
        scf::YieldOp::create(
            b, loc,
            ValueRange{fma(w, load(s, c), sums[0]),
                       fma(w, load(s, cst(k.dv + 1)), sums[1])});
      });
  Value none = cmpF(arith::CmpFPredicate::OEQ, m, negInf());
  Value o = select(none, f32(0),
                   arith::DivFOp::create(b, loc, sumLoop.getResult(0),
                                         sumLoop.getResult(1)));
  if (!k.outType.isF32())
    o = arith::TruncFOp::create(b, loc, k.outType, o);
  memref::StoreOp::create(
      b, loc, o, gOut,
      ValueRange{bIdx, add(mul(h, G), div(r, k.sq)), rem(r, k.sq), c});
}

} // namespace

void mlir::accel::emitGpuPagedAttentionKernels(
    OpBuilder &b, PagedAttentionOp op, StringRef name, const GpuPagedPlan &k,
    StringRef partials, const llvm::DenseMap<Value, std::string> &bufferOf,
    const GpuTargetInfo &target) {
  if (k.batch == 0 || k.hq == 0 || k.sq == 0 || k.dv == 0)
    return; // an empty O: nothing to launch
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  auto memref = [](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return MemRefType::get(t.getShape(), t.getElementType());
  };
  SmallVector<Value> read = {op.getQuery(), op.getKeyCache(),
                             op.getValueCache(), op.getBlockTable(),
                             op.getKvLengths()};
  SmallVector<Type> params;
  SmallVector<Attribute> args, access;
  for (Value v : read) {
    params.push_back(memref(v));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
    access.push_back(StringAttr::get(ctx, "in"));
  }
  StringAttr out = StringAttr::get(ctx, bufferOf.lookup(op.getResult()));
  MemRefType oType = memref(op.getResult());
  auto partType = MemRefType::get(
      {k.batch, k.hkv, k.splits, k.rows(), k.dv + 2}, b.getF32Type());
  if (k.splits == 1) {
    params.push_back(oType);
    args.push_back(out);
  } else {
    params.push_back(partType);
    args.push_back(StringAttr::get(ctx, partials));
  }
  access.push_back(StringAttr::get(ctx, "out"));

  const int64_t warp = target.getWarpSize();
  NamedAttribute extra[] = {
      // [packed rows a block, lanes a key, keys a group a step]
      b.getNamedAttr(
          "tile", b.getDenseI64ArrayAttr({k.rowsPerBlock, k.lanes, k.unroll})),
      b.getNamedAttr("splits", b.getI64IntegerAttr(k.splits))};
  auto split = createGpuKernel(b, loc, name, params, k.grid(), k.warps * warp,
                               k.sharedBytes(warp), target.getChip(), args,
                               access, "paged", extra);
  {
    Block *entry = &split.getBody().front();
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    PagedKernelBuilder kb(body, loc, entry, k, target);
    kb.emitSplit(entry->getArgument(0), entry->getArgument(1),
                 entry->getArgument(2), entry->getArgument(3),
                 entry->getArgument(4), entry->getArgument(5));
    gpu::ReturnOp::create(body, loc);
  }
  if (k.splits == 1)
    return;

  const int64_t total = k.batch * k.hkv * k.rows() * k.dv;
  std::array<int64_t, 3> grid = {
      (total + kCombineThreads - 1) / kCombineThreads, 1, 1};
  auto combine = createGpuKernel(
      b, loc, (name + "_combine").str(), {partType, oType}, grid,
      kCombineThreads, 0, target.getChip(),
      {StringAttr::get(ctx, partials), out},
      {StringAttr::get(ctx, "in"), StringAttr::get(ctx, "out")},
      "paged_combine",
      {b.getNamedAttr("splits", b.getI64IntegerAttr(k.splits))});
  Block *entry = &combine.getBody().front();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  PagedKernelBuilder kb(body, loc, entry, k, target);
  kb.emitCombine(entry->getArgument(0), entry->getArgument(1));
  gpu::ReturnOp::create(body, loc);
}
