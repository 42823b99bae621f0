//===- FmaAttention.cpp - the f32 attention kernel of fused multiply-adds -===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's online softmax for f32 Q, K and V on any chip, by
// scalar FMAs (tensor cores take f32 only as TF32). A block owns 64 query
// rows of one (batch, query head); 4 neighbouring lanes share a query, lane
// g holding the 16-byte runs 4g, 4g + 16, ... of its Q row and of its O row
// in registers, so the 4 lanes of a query read 64 contiguous bytes of a
// shared row at once. Per block of 32 keys, loaded into one shared buffer
// of K [32][D + 4] and V [32][Dv + 4]:
//
//   - each lane takes partial dot products of its quarter of D with all 32
//     keys, and a reduce-scatter over the 4 lanes (xor 2, then xor 1)
//     leaves lane g the full logits of keys 8g .. 8g + 7;
//   - those are scaled (by scale * log2 e, for exp2), masked (the band,
//     the tail past Skv, a bool or additive mask read per logit) and go
//     through the online softmax: the row maximum by two xor shuffles, the
//     correction of O and of the lane's partial row sum, P = exp2(S - m);
//   - an all-gather (xor 1, 2, 3) gives every lane the 32 P of its query,
//     and O += P.V with FMAs on 16-byte runs of V rows.
//
// The causal band bounds the key loop as in the other kernels; a row that
// kept no key is 0. GQA and MQA differ in the K/V head a block reads.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <limits>

using namespace mlir;
using namespace mlir::accel;

void GpuAttentionBuilder::emitFma(Value gQ, Value gMask, Value gO) {
  MLIRContext *ctx = b.getContext();
  const int64_t lanes = kGpuFmaAttentionLanes;
  const int64_t bm = k.blockM, bn = k.blockN;
  const int64_t dRuns = k.d / (4 * lanes), vRuns = k.dv / (4 * lanes);
  const int64_t keysPerLane = bn / lanes;
  const int64_t threads = k.warps() * target.getWarpSize();
  const int64_t pad = kGpuFmaRowPad;
  Type f32Type = b.getF32Type();
  auto vec4 = VectorType::get({4}, f32Type);
  const double negInf = -std::numeric_limits<double>::infinity();

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value g = rem(tid, lanes);
  Value m0 = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), bm);
  Value head = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  kvHead = div(head, k.hq / k.hkv);
  Value qRow = add(m0, div(tid, lanes));
  // Lane g's runs of a row of D (or Dv) elements: 4g + 16r.
  Value runBase = mul(g, 4);
  auto runCol = [&](int64_t r) { return add(runBase, r * 4 * lanes); };

  Value zero4 =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec4, 0.0f));
  SmallVector<Value> o(vRuns, zero4);
  Value rowSum = f32(0);
  auto reduce = [&](Value v, bool isMax) {
    for (int32_t m = 1; m < lanes; m *= 2) {
      Value other = shuffleXor(v, m);
      v = isMax ? maxF(v, other)
                : arith::AddFOp::create(b, loc, v, other).getResult();
    }
    return v;
  };

  if (k.skv > 0) {
    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto kType = MemRefType::get({bn, k.d + pad}, f32Type,
                                 MemRefLayoutAttrInterface(), wg);
    auto vType = MemRefType::get({bn, k.dv + pad}, f32Type,
                                 MemRefLayoutAttrInterface(), wg);
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    sK = memref::ViewOp::create(b, loc, kType, dyn, cst(0), ValueRange{});
    sV = memref::ViewOp::create(b, loc, vType, dyn,
                                cst(kType.getNumElements() * 4), ValueRange{});
    Value nBlocks = keyBlocks(m0);

    // A query row past Sq reads row Sq - 1 and is never stored.
    Value qClamped = k.sq % bm != 0 ? minS(qRow, cst(k.sq - 1)) : qRow;

    SmallVector<Value> init(o);
    init.append({f32(negInf), f32(0)});
    auto step =
        [&](OpBuilder &, Location, Value j, ValueRange iter) {
          SmallVector<Value> acc(iter.begin(), iter.begin() + vRuns);
          Value rowMax = iter[vRuns], sum = iter[vRuns + 1];
          Value n0 = mul(j, bn);
          // K and V rows of block j into registers (zeros past kvLimit),
          // then, once every thread is done with block j - 1, into the
          // shared buffer.
          SmallVector<std::pair<Value, std::pair<Value, Value>>> copies;
          for (auto [src, cols] :
               {std::pair<Value, int64_t>{gK, k.d}, {gV, k.dv}}) {
            for (int64_t first = 0; first < bn * (cols / 4);
                 first += threads) {
              auto [r, c] = copyCoord(bn, cols, first);
              Value key = add(n0, r);
              Value valid = cmp(arith::CmpIPredicate::ult, key, kvLimit);
              key = arith::SelectOp::create(b, loc, valid, key, cst(0));
              Value v = vector::LoadOp::create(
                  b, loc, vec4, src, ValueRange{batchIdx, kvHead, key, c},
                  false, llvm::MaybeAlign(16));
              v = arith::SelectOp::create(b, loc, valid, v, zero4);
              copies.push_back({v, {r, c}});
            }
          }
          gpu::BarrierOp::create(b, loc);
          size_t next = 0;
          for (auto [dst, cols] :
               {std::pair<Value, int64_t>{sK, k.d}, {sV, k.dv}})
            for (int64_t first = 0; first < bn * (cols / 4); first += threads) {
              auto &[v, rc] = copies[next++];
              vector::StoreOp::create(b, loc, v, dst,
                                      ValueRange{rc.first, rc.second}, false,
                                      llvm::MaybeAlign(16));
            }
          gpu::BarrierOp::create(b, loc);

          // Partial dot products of this lane's quarter of D with every
          // key of the block, run by run of Q (read again from global
          // memory, where the caches hold it): a rolled loop, so that the
          // back ends cannot hoist the K loads of all runs (gfx1100 spilled
          // at D = 128 with Q in registers and the runs unrolled).
          SmallVector<Value> zeros(bn, f32(0));
          auto sLoop = scf::ForOp::create(
              b, loc, cst(0), cst(dRuns), cst(1), zeros,
              [&](OpBuilder &, Location, Value r, ValueRange part) {
                Value col = add(runBase, mul(r, 4 * lanes));
                Value qv = vector::LoadOp::create(
                    b, loc, vec4, gQ,
                    ValueRange{batchIdx, head, qClamped, col}, false,
                    llvm::MaybeAlign(16));
                SmallVector<Value> sums;
                for (int64_t key = 0; key < bn; ++key) {
                  Value kv = vector::LoadOp::create(
                      b, loc, vec4, sK, ValueRange{cst(key), col}, false,
                      llvm::MaybeAlign(16));
                  Value dot = math::FmaOp::create(b, loc, qv, kv, zero4);
                  Value sum = part[key];
                  for (int64_t e = 0; e < 4; ++e)
                    sum = arith::AddFOp::create(
                        b, loc, sum,
                        vector::ExtractOp::create(b, loc, dot,
                                                  ArrayRef<int64_t>{e}));
                  sums.push_back(sum);
                }
                scf::YieldOp::create(b, loc, sums);
              });
          keepRolled(sLoop);
          SmallVector<Value> partial(sLoop.getResults().begin(),
                                     sLoop.getResults().end());
          // Reduce-scatter over the 4 lanes: with xor 2 a lane keeps the
          // half of the keys its bit 1 picks, with xor 1 the quarter its
          // bit 0 picks: lane g ends with keys 8g .. 8g + 7.
          for (int64_t bit = lanes / 2; bit >= 1; bit /= 2) {
            const int64_t half = int64_t(partial.size()) / 2;
            Value upper = cmp(arith::CmpIPredicate::ne,
                              arith::AndIOp::create(b, loc, g, cst(bit)),
                              cst(0));
            SmallVector<Value> kept;
            for (int64_t i = 0; i < half; ++i) {
              Value lo = partial[i], hi = partial[half + i];
              Value keep = arith::SelectOp::create(b, loc, upper, hi, lo);
              Value give = arith::SelectOp::create(b, loc, upper, lo, hi);
              kept.push_back(arith::AddFOp::create(
                  b, loc, keep, shuffleXor(give, static_cast<int32_t>(bit))));
            }
            partial = kept;
          }

          // Scaled logits (log2 domain); removed keys -inf.
          Value keyBase = add(n0, mul(g, keysPerLane));
          Value diag =
              k.causal
                  ? arith::SubIOp::create(b, loc, keyBase, qRow).getResult()
                  : Value();
          SmallVector<Value> x;
          Value blockMax;
          for (int64_t i = 0; i < keysPerLane; ++i) {
            Value v =
                maskedLogit(partial[i], keyBase, i, qRow, head, gMask, diag);
            x.push_back(v);
            blockMax = blockMax ? maxF(blockMax, v) : v;
          }

          // Online softmax of the query.
          SoftmaxStep step = onlineSoftmax(
              x, reduce(blockMax, /*isMax=*/true), rowMax, sum);
          Value mNew = step.rowMax, alpha = step.alpha;
          sum = step.sum;
          SmallVector<Value> p = step.p;
          Value alpha4 = vector::BroadcastOp::create(b, loc, vec4, alpha);
          for (Value &a : acc)
            a = arith::MulFOp::create(b, loc, a, alpha4);

          // O += P.V: lane g ^ t holds keys 8 (g ^ t) + i; every lane gets
          // them by an xor-t shuffle and multiplies its runs of those V
          // rows. A rolled loop over t: unrolled, the back ends hoisted the
          // V loads of all 32 keys above Q.K^T (gfx1100 spilled).
          auto pv = scf::ForOp::create(
              b, loc, cst(0), cst(lanes), cst(1), acc,
              [&](OpBuilder &, Location, Value t, ValueRange part) {
                SmallVector<Value> a(part.begin(), part.end());
                Value offset = arith::IndexCastUIOp::create(
                    b, loc, b.getI32Type(), t);
                Value width = arith::ConstantOp::create(
                    b, loc, b.getI32IntegerAttr(target.getWarpSize()));
                Value owner = arith::XOrIOp::create(b, loc, g, t);
                for (int64_t i = 0; i < keysPerLane; ++i) {
                  Value pi = gpu::ShuffleOp::create(b, loc, p[i], offset,
                                                    width,
                                                    gpu::ShuffleMode::XOR)
                                 .getShuffleResult();
                  Value p4 = vector::BroadcastOp::create(b, loc, vec4, pi);
                  Value key = add(mul(owner, keysPerLane), i);
                  for (int64_t r = 0; r < vRuns; ++r) {
                    Value vv = vector::LoadOp::create(
                        b, loc, vec4, sV, ValueRange{key, runCol(r)}, false,
                        llvm::MaybeAlign(16));
                    a[r] = math::FmaOp::create(b, loc, p4, vv, a[r]);
                  }
                }
                scf::YieldOp::create(b, loc, a);
              });
          keepRolled(pv);
          acc.assign(pv.getResults().begin(), pv.getResults().end());
          SmallVector<Value> yield(acc);
          yield.append({mNew, sum});
          scf::YieldOp::create(b, loc, yield);
        };
    // One loop over every key block, the band's compares in each: split as
    // the tensor-core kernels are (unmaskedKeyBlocks), this kernel spilled
    // on sm_80 (ptxas-fma.test), and its scalar FMAs, not the compares,
    // take its time.
    auto loop = scf::ForOp::create(b, loc, cst(0), nBlocks, cst(1), init, step);
    keepRolled(loop);
    o.assign(loop.getResults().begin(), loop.getResults().begin() + vRuns);
    rowSum = loop.getResult(vRuns + 1);
  }

  // O / l; a row that kept no key has l = 0 and stays 0.
  Value l = reduce(rowSum, /*isMax=*/false);
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, f32(0));
  Value inv = arith::SelectOp::create(b, loc, none, f32(0),
                                      arith::DivFOp::create(b, loc, f32(1), l));
  Value inv4 = vector::BroadcastOp::create(b, loc, vec4, inv);
  auto outType = VectorType::get({4}, k.outType);
  const int64_t outBytes = k.outType.getIntOrFloatBitWidth() / 8;
  {
    OpBuilder::InsertionGuard ig(b);
    if (k.sq % bm != 0) {
      auto ifOp =
          scf::IfOp::create(b, loc, ult(qRow, k.sq), /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    for (int64_t r = 0; r < vRuns; ++r) {
      Value v = arith::MulFOp::create(b, loc, o[r], inv4);
      if (!k.outType.isF32())
        v = arith::TruncFOp::create(b, loc, outType, v);
      storeO(v, gO, head, qRow, runCol(r), 1, 4 * outBytes);
    }
  }
  gpu::ReturnOp::create(b, loc);
}
