//===- FlashAttention.cpp - the mma.sync attention kernel
//-------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2 on NVIDIA tensor cores (sm_80 and newer): 4 warps of 16
// query rows, K/V blocks through a cp.async ring, ldmatrix and mma.sync,
// the online softmax in registers (AttentionKernel.cpp has the algorithm).
// softmaxStep and storeOutput are shared with the wgmma kernel, whose
// accumulators have the same row layout.
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

Value GpuAttentionBuilder::bFragment(Value quad, int64_t h) {
  auto fragB = VectorType::get({2, 4 / k.inBytes()}, k.inType);
  Value frag = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(fragB, b.getZeroAttr(k.inType)));
  for (int64_t j = 0; j < 2; ++j)
    frag = vector::InsertOp::create(
        b, loc,
        vector::ExtractOp::create(b, loc, quad, ArrayRef<int64_t>{2 * h + j}),
        frag, ArrayRef<int64_t>{j});
  return frag;
}

void GpuAttentionBuilder::copyTile(Value src, ValueRange srcPre, Value dst,
                                   ValueRange dstPre, int64_t rows,
                                   int64_t cols, Value row0, Value rowLimit,
                                   SmallVectorImpl<Value> &tokens) {
  const int64_t threads = kWarps * target.getWarpSize();
  const int64_t vec = 16 / k.inBytes();
  const int64_t perRow = cols / vec, total = rows * perRow;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t first = 0; first < total; first += threads) {
    auto [r, c] = copyCoord(rows, cols, first);
    Value gr = add(row0, r);
    Value n;
    if (rowLimit) {
      Value valid = cmp(arith::CmpIPredicate::ult, gr, rowLimit);
      n = arith::SelectOp::create(b, loc, valid, cst(vec), cst(0));
      gr = arith::SelectOp::create(b, loc, valid, gr, cst(0));
    }
    SmallVector<Value> srcIdx(srcPre), dstIdx(dstPre);
    srcIdx.append({gr, c});
    dstIdx.append({r, c});
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokenType, dst, dstIdx, src, srcIdx, b.getIndexAttr(vec), n,
        b.getUnitAttr()));
  }
}

Value GpuAttentionBuilder::issueKeyBlock(Value j, Value stage) {
  SmallVector<Value> tokens;
  Value n0 = mul(j, k.blockN);
  copyTile(gK, {batchIdx, kvHead}, sK, {stage}, k.blockN, k.d, n0, kvLimit,
           tokens);
  copyTile(gV, {batchIdx, kvHead}, sV, {stage}, k.blockN, k.dv, n0, kvLimit,
           tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void GpuAttentionBuilder::softmaxStep(ArrayRef<Value> s, Value n0,
                                      Value rowBase, Value colBase, Value head,
                                      Value gMask, Value rowMax[2],
                                      Value sum[2], SmallVectorImpl<Value> &p,
                                      Value alpha[2]) {
  Type f32Type = b.getF32Type();
  const double negInf = -std::numeric_limits<double>::infinity();
  const int64_t tiles = s.size();
  const bool maskTail = k.skv % k.blockN != 0;
  const double scaleLog2 = k.scale * 1.4426950408889634 /* log2(e) */;
  // Scaled logits (log2 domain), the removed keys as -inf. Key
  // colStart + c of row rowBase + 8h is kept when colStart + c <
  // Skv and (causal) colStart - rowBase <= offset + 8h - c: each
  // test compares one register with a constant, which keeps the
  // 64-bit index arithmetic out of the register budget.
  Value colStart = add(n0, colBase);
  Value diag =
      k.causal ? arith::SubIOp::create(b, loc, colStart, rowBase).getResult()
               : Value();
  SmallVector<Value> x(4 * tiles);
  Value blockMax[2];
  // The mask element of query row `row` and key `col`, both clamped
  // into the tensor: a clamped key is past Skv and removed anyway,
  // and a clamped row is never stored. Dimensions of size 1
  // broadcast (index 0); a mask of rank r gives the last r of
  // [B, Hq, Sq, Skv].
  auto maskAt = [&](Value row, Value col) {
    return loadMask(gMask, head, row, col);
  };
  const bool boolMask = gMask && k.maskType.isInteger(1);
  for (int64_t nt = 0; nt < tiles; ++nt)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t e = 0; e < 2; ++e) {
        Value v = arith::MulFOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, s[nt], ArrayRef<int64_t>{h, e}),
            f32(scaleLog2));
        const int64_t c = nt * 8 + e;
        Value m;
        if (gMask)
          m = maskAt(add(rowBase, 8 * h), add(colStart, c));
        if (gMask && !boolMask) {
          // An additive mask joins the logits before the softmax
          // (in the log2 domain: times log2(e)).
          Value mf =
              m.getType().isF32()
                  ? m
                  : arith::ExtFOp::create(b, loc, f32Type, m).getResult();
          v = arith::AddFOp::create(
              b, loc, v,
              arith::MulFOp::create(b, loc, mf, f32(1.4426950408889634)));
        }
        const bool tail = bandMask && maskTail, band = bandMask && k.causal;
        if (tail || band || boolMask) {
          Value keep = both(
              tail ? cmp(arith::CmpIPredicate::slt, colStart, cst(k.skv - c))
                   : Value(),
              band ? cmp(arith::CmpIPredicate::sle, diag,
                         cst(k.offset + 8 * h - c))
                   : Value());
          keep = both(keep, boolMask ? m : Value());
          v = arith::SelectOp::create(b, loc, keep, v, f32(negInf));
        }
        x[(nt * 2 + h) * 2 + e] = v;
        blockMax[h] = blockMax[h] ? maxF(blockMax[h], v) : v;
      }

  // Online softmax: the quad's max, the correction of what was
  // summed so far, P and its partial row sums (each lane sums its
  // own columns; the quad's sums are added at the end).
  p.assign(4 * tiles, Value());
  for (int64_t h = 0; h < 2; ++h) {
    Value mx = blockMax[h];
    mx = maxF(mx, shuffleXor(mx, 1));
    mx = maxF(mx, shuffleXor(mx, 2));
    Value mNew = maxF(rowMax[h], mx);
    // A row with no key so far keeps m = -inf; subtracting 0 then
    // gives P = 0 and a correction of 0 instead of NaN.
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mNew,
                                        f32(negInf));
    Value base = arith::SelectOp::create(b, loc, empty, f32(0), mNew);
    alpha[h] = exp2(arith::SubFOp::create(b, loc, rowMax[h], base));
    Value blockSum;
    for (int64_t nt = 0; nt < tiles; ++nt)
      for (int64_t e = 0; e < 2; ++e) {
        p[(nt * 2 + h) * 2 + e] =
            exp2(arith::SubFOp::create(b, loc, x[(nt * 2 + h) * 2 + e], base));
        blockSum = blockSum ? arith::AddFOp::create(b, loc, blockSum,
                                                    p[(nt * 2 + h) * 2 + e])
                            : p[(nt * 2 + h) * 2 + e];
      }
    sum[h] = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, sum[h], alpha[h]), blockSum);
    rowMax[h] = mNew;
  }
}

void GpuAttentionBuilder::storeOutput(ArrayRef<Value> accs, Value rowSum[2],
                                      Value rowBase, Value colBase, Value head,
                                      Value gO) {
  auto pairF32 = VectorType::get({2}, b.getF32Type());
  // O / l: the quad's partial sums added up; a row that kept no key has
  // l = 0 and O = 0, and stays 0.
  Value inv[2];
  for (int64_t h = 0; h < 2; ++h) {
    Value l = rowSum[h];
    l = arith::AddFOp::create(b, loc, l, shuffleXor(l, 1));
    l = arith::AddFOp::create(b, loc, l, shuffleXor(l, 2));
    Value none =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, f32(0));
    inv[h] = arith::SelectOp::create(b, loc, none, f32(0),
                                     arith::DivFOp::create(b, loc, f32(1), l));
  }
  auto pairOut = VectorType::get({2}, k.outType);
  const int64_t outBytes = k.outType.getIntOrFloatBitWidth() / 8;
  for (int64_t h = 0; h < 2; ++h) {
    Value row = add(rowBase, 8 * h);
    Value invPair = vector::FromElementsOp::create(b, loc, pairF32,
                                                   ValueRange{inv[h], inv[h]});
    Value guard = k.sq % k.blockM != 0 ? ult(row, k.sq) : Value();
    OpBuilder::InsertionGuard g(b);
    if (guard) {
      auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    for (int64_t dt = 0; dt < int64_t(accs.size()); ++dt) {
      Value v =
          vector::ExtractOp::create(b, loc, accs[dt], ArrayRef<int64_t>{h});
      v = arith::MulFOp::create(b, loc, v, invPair);
      if (!k.outType.isF32())
        v = arith::TruncFOp::create(b, loc, pairOut, v);
      storeO(v, gO, head, row, add(colBase, dt * 8), 1, 2 * outBytes);
    }
  }
}

void GpuAttentionBuilder::emitMmaSync(Value gQ, Value gMask, Value gO) {
  MLIRContext *ctx = b.getContext();
  const int64_t warp = target.getWarpSize();
  // Rows padded by 16 bytes (8 16-bit elements, 4 f32): the 8 rows one
  // ldmatrix reads, and (TF32) the rows of V a quad reads, fall in
  // different banks.
  const int64_t pad = getGpuSharedRowPad(k.inBytes());
  const int64_t S = k.stages;
  const int64_t blockN = k.blockN;
  const int64_t fragsO = k.dv / 8;
  // K of one mma.sync: 16 (f16, bf16) or 8 (TF32); elements of a 16-byte
  // ldmatrix row and of a 32-bit fragment register.
  const int64_t kStep = k.mma.k, rowElems = 16 / k.inBytes(),
                perReg = 4 / k.inBytes();
  Type f32Type = b.getF32Type();
  auto accType = VectorType::get({2, 2}, f32Type);
  const double negInf = -std::numeric_limits<double>::infinity();

  // Who this thread is: lane g = lane / 4 holds rows g and g + 8 of its
  // warp's 16, columns 2 (lane % 4) and 2 (lane % 4) + 1 of each n8 tile.
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = rem(tid, warp);
  Value warpRow = mul(div(tid, warp), 16);
  Value m0 = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), kBlockM);
  Value head = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  kvHead = div(head, k.hq / k.hkv);
  Value rowBase = add(add(m0, warpRow), div(lane, 4));
  Value colBase = mul(rem(lane, 4), 2);
  Value l16 = rem(lane, 16), half8 = mul(div(lane, 16), rowElems);

  Value zeroAcc =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> accs(fragsO, zeroAcc);
  Value rowSum[2] = {f32(0), f32(0)};

  if (k.skv > 0) {
    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto qType = MemRefType::get({kBlockM, k.d + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    auto kType = MemRefType::get({S, blockN, k.d + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    auto vType = MemRefType::get({S, blockN, k.dv + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    int64_t kOffset = qType.getNumElements() * k.inBytes();
    Value sQ = memref::ViewOp::create(b, loc, qType, dyn, cst(0), ValueRange{});
    sK = memref::ViewOp::create(b, loc, kType, dyn, cst(kOffset), ValueRange{});
    sV = memref::ViewOp::create(
        b, loc, vType, dyn, cst(kOffset + kType.getNumElements() * k.inBytes()),
        ValueRange{});

    // The keys this block visits: all of them, or (causal) those up to the
    // band of its last row, kvEnd = min(Skv, lastRow + offset + 1) >= 0.
    Value nBlocks = keyBlocks(m0);

    // Q once, then the first S - 1 key blocks in flight.
    SmallVector<Value> qTokens;
    copyTile(gQ, {batchIdx, head}, sQ, {}, kBlockM, k.d, m0,
             k.sq % kBlockM != 0 ? cst(k.sq) : Value(), qTokens);
    Value qGroup = nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(ctx), qTokens);
    Value lastGroup;
    for (int64_t i = 0; i + 1 < S; ++i)
      lastGroup = issueKeyBlock(cst(i), cst(i));
    nvgpu::DeviceAsyncWaitOp::create(b, loc, qGroup,
                                     b.getI32IntegerAttr(S - 1));
    gpu::BarrierOp::create(b, loc);
    // Q's A fragments, one ldmatrix x4 per mma K: matrices (rows 0-7, the
    // first 16 bytes of K), (rows 8-15, the first), (rows 0-7, the
    // second), (rows 8-15, the second).
    auto fragA = VectorType::get({4, perReg}, k.inType);
    SmallVector<Value> qFrags;
    for (int64_t kd = 0; kd < k.d; kd += kStep)
      qFrags.push_back(nvgpu::LdMatrixOp::create(
          b, loc, fragA, sQ, ValueRange{add(warpRow, l16), add(half8, kd)},
          /*transpose=*/false, /*numTiles=*/4));

    // ldmatrix row offsets: K as [n][k] (matrices (n 0-7, 16 bytes of k),
    // (n 0-7, the next 16 bytes), (n 8-15, the first), (n 8-15, the next)):
    // the b0, b1 registers of two n8 tiles.
    Value kRow = add(mul(div(lane, 16), 8), rem(lane, 8));
    Value kCol = mul(rem(div(lane, 8), 2), rowElems);

    SmallVector<Value> init(accs);
    init.append({f32(negInf), f32(negInf), f32(0), f32(0)});
    auto step =
        [&](OpBuilder &, Location, Value j, ValueRange iter) {
          SmallVector<Value> o(iter.begin(), iter.begin() + fragsO);
          Value rowMax[2] = {iter[fragsO], iter[fragsO + 1]};
          Value sum[2] = {iter[fragsO + 2], iter[fragsO + 3]};
          // Block j has landed once at most S - 2 newer groups are pending;
          // the barrier also says every warp is done with block j - 1,
          // whose buffer the next copy refills.
          nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup,
                                           b.getI32IntegerAttr(S - 2));
          gpu::BarrierOp::create(b, loc);
          Value next = add(j, S - 1);
          issueKeyBlock(next, rem(next, S));
          Value stage = rem(j, S);
          Value n0 = mul(j, blockN);

          // S = Q.K^T: blockN / 8 n8 tiles of keys.
          SmallVector<Value> s(blockN / 8, zeroAcc);
          for (int64_t kd = 0; kd < k.d; kd += kStep) {
            SmallVector<Value> kFrags;
            for (int64_t np = 0; np < blockN / 16; ++np) {
              Value quad = nvgpu::LdMatrixOp::create(
                  b, loc, fragA, sK,
                  ValueRange{stage, add(kRow, np * 16), add(kCol, kd)},
                  /*transpose=*/false, /*numTiles=*/4);
              kFrags.push_back(bFragment(quad, 0));
              kFrags.push_back(bFragment(quad, 1));
            }
            for (auto [nt, acc] : llvm::enumerate(s))
              acc = target.createMma(b, loc, k.mma, qFrags[kd / kStep],
                                     kFrags[nt], acc);
          }

          Value alpha[2];
          SmallVector<Value> p;
          softmaxStep(s, n0, rowBase, colBase, head, gMask, rowMax, sum, p,
                      alpha);
          auto P = [&](int64_t nt, int64_t h, int64_t e) {
            return p[(nt * 2 + h) * 2 + e];
          };
          Value scaleO = vector::FromElementsOp::create(
              b, loc, accType,
              ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
          for (Value &acc : o)
            acc = arith::MulFOp::create(b, loc, acc, scaleO);

          if (k.tf32) {
            // O += P.V on m16n8k8 .tf32, 8 keys at a time. The C fragment
            // of key tile nt holds keys 2t and 2t + 1 (t = lane % 4) of
            // rows g and g + 8; the A fragment wants K t and t + 4: the
            // keys are summed in the order 0, 2, 4, 6, 1, 3, 5, 7, so K t
            // is key 2t and K t + 4 key 2t + 1, and V's B fragment reads
            // the same keys (b0 = V[2t][g], b1 = V[2t + 1][g]). P is
            // rounded to TF32 (to nearest even) first: the tensor cores
            // would drop its low 13 bits.
            auto fragAF32 = VectorType::get({4, 1}, f32Type);
            auto fragBF32 = VectorType::get({2, 1}, f32Type);
            Value quadRow = mul(rem(lane, 4), 2), quadCol = div(lane, 4);
            for (int64_t nt = 0; nt < blockN / 8; ++nt) {
              Value pa = vector::FromElementsOp::create(
                  b, loc, fragAF32,
                  ValueRange{roundToTf32(P(nt, 0, 0)), roundToTf32(P(nt, 1, 0)),
                             roundToTf32(P(nt, 0, 1)),
                             roundToTf32(P(nt, 1, 1))});
              Value key = add(quadRow, nt * 8);
              for (int64_t dt = 0; dt < fragsO; ++dt) {
                Value col = add(quadCol, dt * 8);
                Value v0 = memref::LoadOp::create(b, loc, sV,
                                                  ValueRange{stage, key, col});
                Value v1 = memref::LoadOp::create(
                    b, loc, sV, ValueRange{stage, add(key, 1), col});
                Value vb = vector::FromElementsOp::create(b, loc, fragBF32,
                                                          ValueRange{v0, v1});
                o[dt] = target.createMma(b, loc, k.mma, pa, vb, o[dt]);
              }
            }
          } else {
            // O += P.V, 16 keys at a time. The C fragments of key tiles
            // 2kc and 2kc + 1 are the A fragment of keys 16kc .. 16kc + 15.
            auto fragAF32 = VectorType::get({4, 2}, f32Type);
            for (int64_t kc = 0; kc < blockN / 16; ++kc) {
              Value pa = vector::FromElementsOp::create(
                  b, loc, fragAF32,
                  ValueRange{P(2 * kc, 0, 0), P(2 * kc, 0, 1), P(2 * kc, 1, 0),
                             P(2 * kc, 1, 1), P(2 * kc + 1, 0, 0),
                             P(2 * kc + 1, 0, 1), P(2 * kc + 1, 1, 0),
                             P(2 * kc + 1, 1, 1)});
              pa = arith::TruncFOp::create(b, loc, fragA, pa);
              for (int64_t np = 0; np < k.dv / 16; ++np) {
                // V as [k][n], read transposed: matrices (k 0-7, n 0-7),
                // (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15).
                Value quad = nvgpu::LdMatrixOp::create(
                    b, loc, fragA, sV,
                    ValueRange{stage, add(l16, kc * 16), add(half8, np * 16)},
                    /*transpose=*/true, /*numTiles=*/4);
                for (int64_t h = 0; h < 2; ++h) {
                  Value &acc = o[2 * np + h];
                  acc = target.createMma(b, loc, k.mma, pa, bFragment(quad, h),
                                         acc);
                }
              }
            }
          }
          SmallVector<Value> yield(o);
          yield.append({rowMax[0], rowMax[1], sum[0], sum[1]});
          scf::YieldOp::create(b, loc, yield);
        };
    scf::ForOp loop = keyLoop(m0, nBlocks, init, step);
    accs.assign(loop.getResults().begin(), loop.getResults().begin() + fragsO);
    rowSum[0] = loop.getResult(fragsO + 2);
    rowSum[1] = loop.getResult(fragsO + 3);
    // The groups issued past the last block only zero-fill; they finish
    // before the block's shared memory goes away.
    nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup, b.getI32IntegerAttr(0));
  }

  storeOutput(accs, rowSum, rowBase, colBase, head, gO);
  gpu::ReturnOp::create(b, loc);
}
