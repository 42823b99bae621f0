//===- FlashAttention.cpp - the AMD MFMA / WMMA attention kernel
//------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// FlashAttention on AMD matrix cores: no asynchronous copies, so each key
// block is loaded into registers while the previous one is multiplied and
// stored into LDS (V transposed); fragments follow the chip's lane layout,
// the softmax reductions run over the lanes of a query.
//
//===----------------------------------------------------------------------===//

#include "../AttentionKernelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::accel;

SmallVector<Value> GpuAttentionBuilder::loadKeyBlock(Value j) {
  const int64_t threads = kWarps * target.getWarpSize();
  const int64_t vec = 16 / k.inBytes();
  auto vecType = VectorType::get({vec}, k.inType);
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vecType, b.getZeroAttr(k.inType)));
  Value n0 = mul(j, k.blockN);
  SmallVector<Value> regs;
  for (auto [src, cols] : {std::pair<Value, int64_t>{gK, k.d}, {gV, k.dv}}) {
    for (int64_t first = 0; first < k.blockN * (cols / vec); first += threads) {
      auto [r, c] = copyCoord(k.blockN, cols, first);
      // Keys past kvLimit read a clamped row and become zeros.
      Value key = add(n0, r);
      Value valid = cmp(arith::CmpIPredicate::ult, key, kvLimit);
      key = arith::SelectOp::create(b, loc, valid, key, cst(0));
      Value v = vector::LoadOp::create(b, loc, vecType, src,
                                       ValueRange{batchIdx, kvHead, key, c},
                                       false, llvm::MaybeAlign(16));
      regs.push_back(arith::SelectOp::create(b, loc, valid, v, zeros));
    }
  }
  return regs;
}

void GpuAttentionBuilder::storeKeyBlock(ArrayRef<Value> regs) {
  const int64_t threads = kWarps * target.getWarpSize();
  const int64_t vec = 16 / k.inBytes();
  size_t next = 0;
  for (int64_t first = 0; first < k.blockN * (k.d / vec); first += threads) {
    auto [r, c] = copyCoord(k.blockN, k.d, first);
    vector::StoreOp::create(b, loc, regs[next++], sK, ValueRange{r, c});
  }
  // V transposed, element by element: a fragment of V^T is then 4
  // consecutive keys of one column.
  for (int64_t first = 0; first < k.blockN * (k.dv / vec); first += threads) {
    auto [r, c] = copyCoord(k.blockN, k.dv, first);
    Value v = regs[next++];
    for (int64_t i = 0; i < vec; ++i)
      memref::StoreOp::create(
          b, loc, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}),
          sV, ValueRange{add(c, i), r});
  }
}

void GpuAttentionBuilder::emitLds(const GpuLaneLayout &layout, Value gQ,
                                  Value gMask, Value gO) {
  MLIRContext *ctx = b.getContext();
  const int64_t wave = target.getWarpSize();
  const int64_t pad = getGpuSharedRowPad(k.inBytes());
  const int64_t kp = layout.kPerLane;   // D, Dv or keys per lane and tile
  const int64_t na = layout.accPerLane; // keys or Dv per accumulator
  const int64_t keyTiles = k.blockN / 16, oTiles = k.dv / 16;
  // K of one instruction: 16, or 8 on xf32 MFMA 16x16x8 (TF32 values),
  // whose lanes hold 2 K of an operand but 4 keys of the S^T accumulator:
  // those feed two MFMAs of P.V (`pairs`).
  const int64_t kStep = kp * layout.kGroups;
  const bool pairs = na == 2 * kp && layout.accRowStep == 1;
  // MFMA: the S^T accumulators are laid out as the B operand; WMMA: a
  // lane holds every other key of its query (rows 2e + l / 16) and needs
  // all 16 as the B operand, so the two half-waves exchange theirs.
  const bool exchange = layout.accRowStep != 1;
  Type f32Type = b.getF32Type();
  auto accType = VectorType::get({layout.accPerLane}, f32Type);
  auto fragType = VectorType::get({kp}, k.inType);
  const double negInf = -std::numeric_limits<double>::infinity();

  // Each wave owns 16 queries of the block's 64. Lane l works for query
  // R = l % 16 of its wave; G = l / 16 picks the run of D, Dv or keys it
  // holds in each operand fragment and the rows of its accumulators. The
  // kernel computes S^T = K.Q^T and O^T = V^T.P^T: the S^T accumulators of
  // a lane are keys of its own query, the B operand P^T of the second
  // product (on MFMA exactly; on WMMA after a half-wave exchange), and the
  // O^T accumulators columns of its own query, so the online softmax is
  // lane-local but for the reductions over the wave / 16 lanes of a query.
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = rem(tid, wave);
  Value laneR = rem(lane, 16), laneG = div(lane, 16);
  Value kRun = mul(rem(laneG, layout.kGroups), kp);
  // Accumulator element e of lane l is row e * accRowStep + accRow.
  Value accRow = mul(laneG, layout.accLaneRowStep);
  Value m0 = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), kBlockM);
  Value head = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  kvHead = div(head, k.hq / k.hkv);
  Value qRow = add(add(m0, mul(div(tid, wave), 16)), laneR);

  Value zeroAcc =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> accs(oTiles, zeroAcc);
  Value rowSum = f32(0);
  auto shuffleSum = [&](Value v, bool isMax) {
    // Over the lanes of a query: R, R + 16, ... (4 on wave64, 2 on wave32).
    for (int32_t m = 16; m < wave; m *= 2) {
      Value o = shuffleXor(v, m);
      v = isMax ? maxF(v, o) : arith::AddFOp::create(b, loc, v, o).getResult();
    }
    return v;
  };

  if (k.skv > 0) {
    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto kType = MemRefType::get({k.blockN, k.d + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    auto vType = MemRefType::get({k.dv, k.blockN + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    sK = memref::ViewOp::create(b, loc, kType, dyn, cst(0), ValueRange{});
    sV = memref::ViewOp::create(b, loc, vType, dyn,
                                cst(kType.getNumElements() * k.inBytes()),
                                ValueRange{});
    Value nBlocks = keyBlocks(m0);

    // Q: this lane's fragments (B operand of S^T = K.Q^T), straight from
    // global memory; a query row past Sq reads row Sq - 1 and is never
    // stored.
    Value qClamped = k.sq % kBlockM != 0 ? minS(qRow, cst(k.sq - 1)) : qRow;
    auto loadQ = [&](int64_t kd) -> Value {
      return vector::LoadOp::create(
          b, loc, fragType, gQ,
          ValueRange{batchIdx, head, qClamped, add(kRun, kd)}, false,
          llvm::MaybeAlign(kp * k.inBytes()));
    };
    // Held in registers for the whole kernel, except on wave32 with D + Dv
    // > 128 (gfx1100), where each lane's 16 D per fragment would take 64
    // registers at D = 128 and the kernel would spill: there they are
    // loaded again (from the caches) for every key block.
    const bool qInRegisters = !(wave == 32 && k.d + k.dv > 128);
    SmallVector<Value> qFrags;
    if (qInRegisters)
      for (int64_t kd = 0; kd < k.d; kd += kStep)
        qFrags.push_back(loadQ(kd));

    // The next key block is prefetched into registers while the waves
    // compute, except where those registers would not fit: on wave32 a
    // thread holds twice the share of a wave64 thread, and with D + Dv >
    // 128 the kernel would spill (gfx1100, measured); it then loads each
    // block right before storing it.
    const bool prefetch = !(wave == 32 && k.d + k.dv > 128);
    SmallVector<Value> init(accs);
    init.append({f32(negInf), f32(0)});
    if (prefetch)
      init.append(loadKeyBlock(cst(0)));
    auto step =
        [&](OpBuilder &, Location, Value j, ValueRange iter) {
          SmallVector<Value> o(iter.begin(), iter.begin() + oTiles);
          Value rowMax = iter[oTiles], sum = iter[oTiles + 1];
          // Every wave is done with block j - 1 before it is overwritten;
          // block j is in LDS for all after the second barrier. The next
          // block's loads are in flight while the waves compute.
          if (prefetch) {
            gpu::BarrierOp::create(b, loc);
            storeKeyBlock(
                SmallVector<Value>(iter.begin() + oTiles + 2, iter.end()));
          } else {
            SmallVector<Value> cur = loadKeyBlock(j);
            gpu::BarrierOp::create(b, loc);
            storeKeyBlock(cur);
          }
          gpu::BarrierOp::create(b, loc);
          SmallVector<Value> nextRegs;
          if (prefetch)
            nextRegs = loadKeyBlock(add(j, 1));
          Value n0 = mul(j, k.blockN);

          // S^T: blockN / 16 tiles of 16 keys; lane holds keys 16t + e *
          // accRowStep + accRow of its query.
          SmallVector<Value> s(keyTiles, zeroAcc);
          // Q's fragments of this block where they are not kept in
          // registers (the body is built twice, once a key loop).
          SmallVector<Value> qBlock;
          for (int64_t kd = 0; kd < k.d; kd += kStep)
            for (int64_t t = 0; t < keyTiles; ++t) {
              Value kFrag = vector::LoadOp::create(
                  b, loc, fragType, sK,
                  ValueRange{add(laneR, t * 16), add(kRun, kd)});
              if (!qInRegisters && t == 0)
                qBlock.push_back(loadQ(kd));
              Value qFrag =
                  qInRegisters ? qFrags[kd / kStep] : qBlock[kd / kStep];
              s[t] = target.createMma(b, loc, k.mma, kFrag, qFrag, s[t]);
            }

          // Scaled logits (log2 domain); removed keys -inf.
          Value keyBase = add(n0, accRow);
          Value diag =
              k.causal
                  ? arith::SubIOp::create(b, loc, keyBase, qRow).getResult()
                  : Value();
          SmallVector<Value> x;
          Value blockMax;
          for (int64_t t = 0; t < keyTiles; ++t)
            for (int64_t e = 0; e < na; ++e) {
              Value v = maskedLogit(
                  vector::ExtractOp::create(b, loc, s[t], ArrayRef<int64_t>{e}),
                  keyBase, t * 16 + e * layout.accRowStep, qRow, head, gMask,
                  diag);
              x.push_back(v);
              blockMax = blockMax ? maxF(blockMax, v) : v;
            }

          // Online softmax for this lane's query.
          SoftmaxStep step = onlineSoftmax(
              x, shuffleSum(blockMax, /*isMax=*/true), rowMax, sum);
          Value mNew = step.rowMax, alpha = step.alpha;
          sum = step.sum;
          SmallVector<Value> p = step.p;
          Value alphaVec = vector::BroadcastOp::create(b, loc, accType, alpha);
          for (Value &acc : o)
            acc = arith::MulFOp::create(b, loc, acc, alphaVec);

          // O^T += V^T.P^T: P rounded to the input type (TF32 for f32
          // inputs, to nearest even: xf32 MFMA would not round it) is the
          // B operand.
          Value lowHalf =
              exchange ? cmp(arith::CmpIPredicate::eq, laneG, cst(0)) : Value();
          for (int64_t t = 0; t < keyTiles && pairs; ++t)
            for (int64_t half = 0; half < na / kp; ++half) {
              // Keys 4G + 2 half, + 1 of tile t as K 2G, 2G + 1.
              SmallVector<Value> keys;
              for (Value x : ArrayRef<Value>(p).slice(t * na + half * kp, kp))
                keys.push_back(roundToTf32(x));
              Value pFrag = vector::FromElementsOp::create(
                  b, loc, VectorType::get({kp}, f32Type), keys);
              for (int64_t u = 0; u < oTiles; ++u) {
                Value vFrag = vector::LoadOp::create(
                    b, loc, fragType, sV,
                    ValueRange{add(laneR, u * 16),
                               add(accRow, t * 16 + half * kp)});
                o[u] = target.createMma(b, loc, k.mma, vFrag, pFrag, o[u]);
              }
            }
          for (int64_t t = 0; t < keyTiles && !pairs; ++t) {
            ArrayRef<Value> mine = ArrayRef<Value>(p).slice(t * na, na);
            SmallVector<Value> keys(mine);
            if (exchange) {
              // Key 2e + G is this lane's element e; key 2e + 1 - G the
              // other half-wave's (lane l ^ 16).
              keys.clear();
              for (int64_t e = 0; e < na; ++e) {
                Value other = shuffleXor(mine[e], 16);
                keys.push_back(
                    arith::SelectOp::create(b, loc, lowHalf, mine[e], other));
                keys.push_back(
                    arith::SelectOp::create(b, loc, lowHalf, other, mine[e]));
              }
            }
            Value pFrag = vector::FromElementsOp::create(
                b, loc, VectorType::get({kp}, f32Type), keys);
            pFrag = arith::TruncFOp::create(b, loc, fragType, pFrag);
            for (int64_t u = 0; u < oTiles; ++u) {
              Value vFrag = vector::LoadOp::create(
                  b, loc, fragType, sV,
                  ValueRange{add(laneR, u * 16), add(kRun, t * 16)});
              o[u] = target.createMma(b, loc, k.mma, vFrag, pFrag, o[u]);
            }
          }
          SmallVector<Value> yield(o);
          yield.append({mNew, sum});
          yield.append(nextRegs);
          scf::YieldOp::create(b, loc, yield);
        };
    // The prefetched registers carry over from one loop to the next.
    scf::ForOp loop = keyLoop(m0, nBlocks, init, step);
    accs.assign(loop.getResults().begin(), loop.getResults().begin() + oTiles);
    rowSum = loop.getResult(oTiles + 1);
  }

  // O = O^T / l (element e of tile u is column 16 u + e * accRowStep +
  // accRow); a row that kept no key has l = 0 and stays 0.
  Value l = shuffleSum(rowSum, /*isMax=*/false);
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, f32(0));
  Value inv = arith::SelectOp::create(b, loc, none, f32(0),
                                      arith::DivFOp::create(b, loc, f32(1), l));
  Value invVec = vector::BroadcastOp::create(b, loc, accType, inv);
  auto outType = VectorType::get({na}, k.outType);
  const int64_t outBytes = k.outType.getIntOrFloatBitWidth() / 8;
  {
    OpBuilder::InsertionGuard g(b);
    if (k.sq % kBlockM != 0) {
      auto ifOp =
          scf::IfOp::create(b, loc, ult(qRow, k.sq), /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    for (int64_t u = 0; u < oTiles; ++u) {
      Value v = arith::MulFOp::create(b, loc, accs[u], invVec);
      if (!k.outType.isF32())
        v = arith::TruncFOp::create(b, loc, outType, v);
      // Consecutive columns: one vector store (element by element with
      // an epilogue, or RDNA's columns accRowStep apart).
      storeO(v, gO, head, qRow, add(accRow, u * 16), layout.accRowStep,
             na * outBytes);
    }
  }
  gpu::ReturnOp::create(b, loc);
}
