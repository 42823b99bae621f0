//===- AttentionKernel.cpp - accel.attention to a FlashAttention kernel ---===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The forward kernel of FlashAttention-2 (Dao, 2023) for accel.attention on
// NVIDIA tensor cores. A block of 4 warps owns 64 query rows of one
// (batch, query head), each warp 16 of them:
//
//   - the Q tile [64][D] is copied once to shared memory (cp.async) and from
//     there into registers as mma.sync A fragments (ldmatrix);
//   - the keys are visited in blocks of 64; a ring of `stages` shared
//     buffers holds K [64][D] and V [64][Dv] of the next blocks in flight
//     while the warps work on the oldest (one cp.async group per block);
//   - S = Q.K^T with mma.sync m16n8k16 (K rows are the col-major B operand:
//     ldmatrix without .trans), scaled by scale*log2(e) so that exp2
//     (ex2.approx) stands for exp;
//   - online softmax in registers: each row lives in the 4 lanes of a quad,
//     so its max and (at the end) its sum are reduced with two xor
//     shuffles; the running max m, the correction exp2(m_old - m_new) of
//     the O accumulators and of the row sum l, P = exp2(S - m);
//   - P, rounded to the input type, goes straight back into A fragments:
//     the C fragment of two adjacent m16n8 tiles is the A fragment of one
//     m16n8k16 (the FA2 register trick), so P never touches shared memory;
//   - O += P.V with mma.sync (V rows are the row-major B operand: ldmatrix
//     .trans);
//   - causal: the key blocks wholly above the band are never visited (the
//     loop bound depends on the query block) and the keys of the others
//     are masked by index; keys past Skv are masked too;
//   - O / l, with 0 for a row that kept no key (l = 0), rounded and stored
//     behind a row guard.
//
// MHA, GQA and MQA differ only in the K/V head a block reads. A mask (i1:
// keep the key; f32/f16/bf16: added to the scaled logits) of any shape
// that broadcasts to [B, Hq, Sq, Skv] is read from global memory per logit
// (an element of the thread's fragment each). Sequence lengths and windows
// are not compiled (located errors).
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "KernelConfig.h"
#include "KernelUtils.h"
#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include <cmath>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::accel;

namespace {

/// Query rows per block, keys per step, warps per block (16 rows each) of
/// the mma.sync and AMD kernels.
constexpr int64_t kBlockM = kGpuAttentionBlockM, kBlockN = kGpuAttentionBlockN,
                  kWarps = kGpuAttentionWarps;

/// Builds the body of one attention kernel.
class AttentionBuilder : public GpuIndexBuilder {
public:
  AttentionBuilder(OpBuilder &b, Location loc, const AttentionPlan &k,
                   const GpuTargetInfo &target, Block *entry)
      : GpuIndexBuilder(b, loc, entry), k(k), target(target) {}

  void emit(Value gQ, Value gK, Value gV, Value gMask, Value gO);

private:
  Value f32(double v) {
    auto it = floats.find(v);
    if (it != floats.end())
      return it->second;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    return floats[v] = arith::ConstantOp::create(
               b, loc, b.getF32FloatAttr(static_cast<float>(v)));
  }
  Value shuffleXor(Value v, int32_t mask) {
    return gpu::ShuffleOp::create(b, loc, v, mask,
                                  static_cast<int32_t>(target.getWarpSize()),
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// ex2.approx.ftz.f32, FlashAttention's exp (exp2(-inf) = +0): through
  /// the NVVM intrinsic, as convert-gpu-to-nvvm would turn llvm.intr.exp2
  /// and math.exp2 into libdevice calls.
  /// On AMD: llvm.amdgcn.exp2, the v_exp_f32 instruction (exp2(-inf) =
  /// +0; no device library; convert-gpu-to-rocdl would send llvm.exp2 to
  /// ocml).
  Value exp2(Value v) {
    if (k.lanes)
      return LLVM::CallIntrinsicOp::create(b, loc, v.getType(),
                                           b.getStringAttr("llvm.amdgcn.exp2"),
                                           ValueRange{v})
          .getResult(0);
    return LLVM::CallIntrinsicOp::create(
               b, loc, v.getType(),
               b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{v})
        .getResult(0);
  }
  Value maxF(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  /// Extracts rows 2h, 2h+1 of an ldmatrix x4 result: the two b registers
  /// of one n8 B fragment.
  Value bFragment(Value quad, int64_t h);

  /// cp.async of a tileRows x tileCols slice of `src[srcPre..., row, col]`
  /// starting at row `row0` into `dst[dstPre..., r, c]`, 16 bytes a copy.
  /// Rows at or beyond `rowLimit` (when given) copy 0 elements from a
  /// clamped address: their shared bytes are zero-filled.
  void copyTile(Value src, ValueRange srcPre, Value dst, ValueRange dstPre,
                int64_t rows, int64_t cols, Value row0, Value rowLimit,
                SmallVectorImpl<Value> &tokens);
  /// The cp.async group of key block `j` (K and V) into ring buffer `stage`.
  Value issueKeyBlock(Value j, Value stage);
  /// The key blocks of k.blockN keys that the query block from row `m0`
  /// visits (all of them, or with the band those up to its last row's
  /// kvEnd = min(Skv, lastRow + offset + 1) >= 0), setting kvLimit, the key
  /// past which copies zero-fill.
  Value keyBlocks(Value m0) {
    if (!k.causal) {
      kvLimit = cst(k.skv);
      return cst((k.skv + k.blockN - 1) / k.blockN);
    }
    Value lastRow = add(m0, k.blockM - 1);
    if (k.sq % k.blockM != 0)
      lastRow = minS(lastRow, cst(k.sq - 1));
    kvLimit = maxS(cst(0), minS(cst(k.skv), add(lastRow, k.offset + 1)));
    return div(add(kvLimit, k.blockN - 1), k.blockN);
  }

  /// One key block of the online softmax on S = Q.K^T, given as n8 tiles
  /// of mma.sync's C layout (element {h, e} of tile nt: row rowBase + 8h,
  /// key n0 + colBase + 8nt + e): the scaled logits with the removed keys
  /// at -inf, the row maxima of the quad, the correction `alpha` of what
  /// was summed so far and P (element {h, e} of tile nt at p[4nt + 2h + e]);
  /// updates rowMax and sum.
  void softmaxStep(ArrayRef<Value> s, Value n0, Value rowBase, Value colBase,
                   Value head, Value gMask, Value rowMax[2], Value sum[2],
                   SmallVectorImpl<Value> &p, Value alpha[2]);
  /// O / l into gO: accs[dt] holds columns colBase + 8dt and + 1 of rows
  /// rowBase and rowBase + 8; rowSum the lane's partial sums of those rows.
  void storeOutput(ArrayRef<Value> accs, Value rowSum[2], Value rowBase,
                   Value colBase, Value head, Value gO);

  /// The sm_90a kernel: emit()'s body there (FlashAttention-3's
  /// warpgroup-MMA structure without producer warps).
  void emitWgmma(Value gQ, Value gMask, Value gO);
  /// cp.async of rows [row0, row0 + rows) x cols of `src[srcPre..., row,
  /// col]` into the shared tile at element `dst` of sAll, in the 128-byte
  /// swizzle ([cols / 64][rows][128 B]; 16-byte chunk c of a row at chunk
  /// c ^ (row % 8)); rows at or past `rowLimit` (when given) are
  /// zero-filled.
  void copySwizzled(Value src, ValueRange srcPre, Value dst, int64_t rows,
                    int64_t cols, Value row0, Value rowLimit,
                    SmallVectorImpl<Value> &tokens);
  /// The cp.async group of key block `j` into ring buffer `stage` (wgmma).
  Value issueSwizzledKeyBlock(Value j, Value stage);
  /// O += P.V for 16 keys on wgmma with A (P) from registers: `o` holds
  /// the Dv / 2 accumulators of the thread, `pRegs` P's four 32-bit
  /// registers (mma.sync's A fragment), `descV` V's descriptor.
  SmallVector<Value> wgmmaPV(ArrayRef<Value> o, ArrayRef<Value> pRegs,
                             Value descV);

  /// The (row, column) in a rows x cols tile of copy `first` + tid of 16
  /// bytes: computed once, at the first copy of that shape, and shared by
  /// every tile of it. A last round with fewer copies than threads has the
  /// extra threads repeat the last copy (same bytes, same place).
  std::pair<Value, Value> copyCoord(int64_t rows, int64_t cols, int64_t first) {
    const int64_t threads = k.warps() * target.getWarpSize();
    const int64_t vec = 16 / k.inBytes();
    const int64_t perRow = cols / vec, total = rows * perRow;
    auto [it, inserted] = copyCoords.try_emplace({rows, cols, first});
    if (inserted) {
      Value id = add(tid, first);
      if (first + threads > total)
        id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
      it->second = {div(id, perRow), mul(rem(id, perRow), vec)};
    }
    return it->second;
  }

  /// The mask element of query row `row` and key `col`, both clamped into
  /// the tensor: a clamped key is past Skv and removed anyway, and a
  /// clamped row is never stored. Dimensions of size 1 broadcast (index 0);
  /// a mask of rank r gives the last r of [B, Hq, Sq, Skv].
  Value loadMask(Value gMask, Value head, Value row, Value col) {
    Value full[4] = {batchIdx, head, minS(row, cst(k.sq - 1)),
                     minS(col, cst(k.skv - 1))};
    SmallVector<Value> idx;
    const int64_t r = k.maskShape.size();
    for (int64_t i = 0; i < r; ++i)
      idx.push_back(k.maskShape[i] == 1 ? cst(0) : full[4 - r + i]);
    return memref::LoadOp::create(b, loc, gMask, idx);
  }

  /// The kernel of chips with lane-layout fragments and no asynchronous
  /// copies (AMD MFMA): emit()'s body there.
  void emitLds(const GpuLaneLayout &layout, Value gQ, Value gMask, Value gO);
  /// This thread's part of key block `j`: K [64][D] and V [64][Dv] in
  /// vectors of 16 bytes from global memory, zeros past kvLimit.
  SmallVector<Value> loadKeyBlock(Value j);
  /// Stores loadKeyBlock's registers into LDS: K as [64][D + pad], V
  /// transposed as [Dv][64 + pad].
  void storeKeyBlock(ArrayRef<Value> regs);

  const AttentionPlan &k;
  const GpuTargetInfo &target;
  std::map<double, Value> floats;
  std::map<std::array<int64_t, 3>, std::pair<Value, Value>> copyCoords;

  Value gK, gV, sK, sV;
  Value tid, batchIdx, kvHead, kvLimit;
  /// wgmma: the shared memory as one array of the input type, and where
  /// the K and V rings start in it (elements).
  Value sAll;
  int64_t kOffset = 0, vOffset = 0;
  /// copySwizzled's (row, column, offset in the tile) of this thread, by
  /// (rows, chunks, first copy of the round).
  std::map<std::array<int64_t, 3>, std::array<Value, 3>> swizzledCoords;
};

Value AttentionBuilder::bFragment(Value quad, int64_t h) {
  auto fragB = VectorType::get({2, 2}, k.inType);
  Value frag = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(fragB, b.getZeroAttr(k.inType)));
  for (int64_t j = 0; j < 2; ++j)
    frag = vector::InsertOp::create(
        b, loc,
        vector::ExtractOp::create(b, loc, quad, ArrayRef<int64_t>{2 * h + j}),
        frag, ArrayRef<int64_t>{j});
  return frag;
}

void AttentionBuilder::copyTile(Value src, ValueRange srcPre, Value dst,
                                ValueRange dstPre, int64_t rows, int64_t cols,
                                Value row0, Value rowLimit,
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

Value AttentionBuilder::issueKeyBlock(Value j, Value stage) {
  SmallVector<Value> tokens;
  Value n0 = mul(j, kBlockN);
  copyTile(gK, {batchIdx, kvHead}, sK, {stage}, kBlockN, k.d, n0, kvLimit,
           tokens);
  copyTile(gV, {batchIdx, kvHead}, sV, {stage}, kBlockN, k.dv, n0, kvLimit,
           tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void AttentionBuilder::softmaxStep(ArrayRef<Value> s, Value n0, Value rowBase,
                                   Value colBase, Value head, Value gMask,
                                   Value rowMax[2], Value sum[2],
                                   SmallVectorImpl<Value> &p, Value alpha[2]) {
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
        if (maskTail || k.causal || boolMask) {
          Value keep = both(maskTail ? cmp(arith::CmpIPredicate::slt, colStart,
                                           cst(k.skv - c))
                                     : Value(),
                            k.causal ? cmp(arith::CmpIPredicate::sle, diag,
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

void AttentionBuilder::storeOutput(ArrayRef<Value> accs, Value rowSum[2],
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
      vector::StoreOp::create(
          b, loc, v, gO, ValueRange{batchIdx, head, row, add(colBase, dt * 8)},
          false, llvm::MaybeAlign(2 * outBytes));
    }
  }
}

void AttentionBuilder::emit(Value gQ, Value gKArg, Value gVArg, Value gMask,
                            Value gO) {
  gK = gKArg;
  gV = gVArg;
  if (k.lanes)
    return emitLds(*k.lanes, gQ, gMask, gO);
  if (k.wgmma)
    return emitWgmma(gQ, gMask, gO);
  MLIRContext *ctx = b.getContext();
  const int64_t warp = target.getWarpSize();
  const int64_t pad = kGpuSharedRowPad;
  const int64_t S = k.stages;
  const int64_t fragsO = k.dv / 8;
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
  Value l16 = rem(lane, 16), half8 = mul(div(lane, 16), 8);

  Value zeroAcc =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> accs(fragsO, zeroAcc);
  Value rowSum[2] = {f32(0), f32(0)};

  if (k.skv > 0) {
    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto qType = MemRefType::get({kBlockM, k.d + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    auto kType = MemRefType::get({S, kBlockN, k.d + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    auto vType = MemRefType::get({S, kBlockN, k.dv + pad}, k.inType,
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
    auto fragA = VectorType::get({4, 2}, k.inType);
    SmallVector<Value> qFrags;
    for (int64_t kd = 0; kd < k.d; kd += 16)
      qFrags.push_back(nvgpu::LdMatrixOp::create(
          b, loc, fragA, sQ, ValueRange{add(warpRow, l16), add(half8, kd)},
          /*transpose=*/false, /*numTiles=*/4));

    // ldmatrix row offsets: K as [n][k] (matrices (n 0-7, k 0-7),
    // (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15)).
    Value kRow = add(half8, rem(lane, 8));
    Value kCol = mul(rem(div(lane, 8), 2), 8);

    SmallVector<Value> init(accs);
    init.append({f32(negInf), f32(negInf), f32(0), f32(0)});
    auto loop = scf::ForOp::create(
        b, loc, cst(0), nBlocks, cst(1), init,
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
          Value n0 = mul(j, kBlockN);

          // S = Q.K^T: 8 n8 tiles of keys.
          SmallVector<Value> s(kBlockN / 8, zeroAcc);
          for (int64_t kd = 0; kd < k.d; kd += 16) {
            SmallVector<Value> kFrags;
            for (int64_t np = 0; np < kBlockN / 16; ++np) {
              Value quad = nvgpu::LdMatrixOp::create(
                  b, loc, fragA, sK,
                  ValueRange{stage, add(kRow, np * 16), add(kCol, kd)},
                  /*transpose=*/false, /*numTiles=*/4);
              kFrags.push_back(bFragment(quad, 0));
              kFrags.push_back(bFragment(quad, 1));
            }
            for (auto [nt, acc] : llvm::enumerate(s))
              acc = target.createMma(b, loc, k.mma, qFrags[kd / 16], kFrags[nt],
                                     acc);
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

          // O += P.V, 16 keys at a time. The C fragments of key tiles 2kc
          // and 2kc + 1 are the A fragment of keys 16kc .. 16kc + 15.
          auto fragAF32 = VectorType::get({4, 2}, f32Type);
          for (int64_t kc = 0; kc < kBlockN / 16; ++kc) {
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
          SmallVector<Value> yield(o);
          yield.append({rowMax[0], rowMax[1], sum[0], sum[1]});
          scf::YieldOp::create(b, loc, yield);
        });
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

//===----------------------------------------------------------------------===//
// The warpgroup-MMA kernel (sm_90a)
//===----------------------------------------------------------------------===//

void AttentionBuilder::copySwizzled(Value src, ValueRange srcPre, Value dst,
                                    int64_t rows, int64_t cols, Value row0,
                                    Value rowLimit,
                                    SmallVectorImpl<Value> &tokens) {
  const int64_t threads = k.warps() * target.getWarpSize();
  const int64_t vec = 16 / k.inBytes();
  const int64_t chunks = cols / vec, total = rows * chunks;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t first = 0; first < total; first += threads) {
    // Computed once per tile shape and shared by every tile of it; a last
    // round with fewer copies than threads repeats the last copy.
    auto [it, inserted] = swizzledCoords.try_emplace({rows, chunks, first});
    if (inserted) {
      Value id = add(tid, first);
      if (first + threads > total)
        id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
      Value r = div(id, chunks), c = rem(id, chunks);
      it->second = {r, mul(c, vec), swizzledOffset(r, c, rows, vec)};
    }
    auto [r, col, offset] = it->second;
    Value gr = add(row0, r);
    Value n;
    if (rowLimit) {
      Value valid = cmp(arith::CmpIPredicate::ult, gr, rowLimit);
      n = arith::SelectOp::create(b, loc, valid, cst(vec), cst(0));
      gr = arith::SelectOp::create(b, loc, valid, gr, cst(0));
    }
    SmallVector<Value> srcIdx(srcPre);
    srcIdx.append({gr, col});
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokenType, sAll, ValueRange{add(dst, offset)}, src, srcIdx,
        b.getIndexAttr(vec), n, b.getUnitAttr()));
  }
}

Value AttentionBuilder::issueSwizzledKeyBlock(Value j, Value stage) {
  SmallVector<Value> tokens;
  Value n0 = mul(j, k.blockN);
  copySwizzled(gK, {batchIdx, kvHead},
               add(cst(kOffset), mul(stage, k.blockN * k.d)), k.blockN, k.d, n0,
               kvLimit, tokens);
  copySwizzled(gV, {batchIdx, kvHead},
               add(cst(vOffset), mul(stage, k.blockN * k.dv)), k.blockN, k.dv,
               n0, kvLimit, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

SmallVector<Value> AttentionBuilder::wgmmaPV(ArrayRef<Value> o,
                                             ArrayRef<Value> pRegs,
                                             Value descV) {
  // MLIR 22's nvvm.wgmma.mma_async takes A from shared memory only: the
  // register-A form is the PTX instruction itself. V is N-major (B as
  // [K = keys][N = Dv], wgmma's transposed B: imm-trans-b = 1).
  const int64_t n = o.size();
  StringRef type = k.inType.isBF16() ? "bf16" : "f16";
  std::string asmString;
  llvm::raw_string_ostream os(asmString);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << n + 5 << ", 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << 2 * n << "k16.f32." << type
     << "." << type << " {";
  for (int64_t i = 0; i < n; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, {$" << n << ", $" << n + 1 << ", $" << n + 2 << ", $" << n + 3
     << "}, $" << n + 4 << ", p, 1, 1, 1;\n}";
  std::string constraints;
  for (int64_t i = 0; i < n; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l,r";
  for (int64_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(pRegs);
  operands.push_back(descV);
  operands.push_back(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1)));
  llvm::append_range(operands, o);
  Type f32Type = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(n, f32Type));
  Value d =
      LLVM::InlineAsmOp::create(
          b, loc, resultType, operands, asmString, constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr())
          .getResult(0);
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return out;
}

void AttentionBuilder::emitWgmma(Value gQ, Value gMask, Value gO) {
  MLIRContext *ctx = b.getContext();
  const int64_t S = k.stages, BM = k.blockM, BN = k.blockN;
  const int64_t fragsO = k.dv / 8;
  const int64_t rowBytes = 128, inBytes = k.inBytes();
  Type f32Type = b.getF32Type();
  auto accType = VectorType::get({2, 2}, f32Type);
  const double negInf = -std::numeric_limits<double>::infinity();

  // Warp w of the block (warpgroup w / 4) holds rows 16w .. 16w + 15 of
  // the block's 128 in wgmma's accumulators, which are mma.sync's m16n8 C
  // fragments per warp: lane l has rows l / 4 and l / 4 + 8, columns
  // 2 (l % 4) and + 1 of each n8 tile.
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = rem(tid, 32);
  Value group = div(tid, 128);
  Value m0 = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), BM);
  Value head = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  kvHead = div(head, k.hq / k.hkv);
  Value rowBase = add(add(m0, mul(div(tid, 32), 16)), div(lane, 4));
  Value colBase = mul(rem(lane, 4), 2);

  Value zeroAcc =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> accs(fragsO, zeroAcc);
  Value rowSum[2] = {f32(0), f32(0)};

  if (k.skv > 0) {
    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    // Q [D/64][BM][128 B], then S stages of K [D/64][BN][128 B], then S
    // stages of V [Dv/64][BN][128 B] from the first swizzle atom: every
    // tile a multiple of 1 KiB.
    auto [dyn, start, pad] = swizzleAlignedSharedMemory();
    kOffset = BM * k.d;
    vOffset = kOffset + S * BN * k.d;
    const int64_t elements = vOffset + S * BN * k.dv;
    sAll = memref::ViewOp::create(
        b, loc,
        MemRefType::get({elements}, k.inType, MemRefLayoutAttrInterface(), wg),
        dyn, pad, ValueRange{});
    Value base = add(start, pad);

    // The keys this block visits: all of them, or (causal) those up to the
    // band of its last row, kvEnd = min(Skv, lastRow + offset + 1) >= 0.
    Value nBlocks = keyBlocks(m0);

    // Q once, then the first S - 1 key blocks in flight. Q's group is the
    // oldest: the loop's first wait covers it.
    SmallVector<Value> qTokens;
    copySwizzled(gQ, {batchIdx, head}, cst(0), BM, k.d, m0,
                 k.sq % BM != 0 ? cst(k.sq) : Value(), qTokens);
    nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(ctx), qTokens);
    Value lastGroup;
    for (int64_t i = 0; i + 1 < S; ++i)
      lastGroup = issueSwizzledKeyBlock(cst(i), cst(i));

    NVVM::WGMMATypes type =
        k.inType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    auto sType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(BN / 2, f32Type));
    auto sShape = NVVM::MMAShapeAttr::get(ctx, 64, BN, 16);
    // Warpgroup g's 64 rows of Q start 64 rows into each 64-column block.
    Value qStart = add(base, mul(group, 64 * rowBytes));
    auto fragAF32 = VectorType::get({4, 2}, f32Type);
    auto fragA = VectorType::get({4, 2}, k.inType);
    auto word = VectorType::get({1}, b.getI32Type());

    SmallVector<Value> init(accs);
    init.append({f32(negInf), f32(negInf), f32(0), f32(0)});
    auto loop = scf::ForOp::create(
        b, loc, cst(0), nBlocks, cst(1), init,
        [&](OpBuilder &, Location, Value j, ValueRange iter) {
          SmallVector<Value> o(iter.begin(), iter.begin() + fragsO);
          Value rowMax[2] = {iter[fragsO], iter[fragsO + 1]};
          Value sum[2] = {iter[fragsO + 2], iter[fragsO + 3]};
          // Block j (and Q) have landed once at most S - 2 newer groups
          // are pending; the proxy fence makes the copies' generic-proxy
          // writes visible to wgmma's async-proxy reads; the barrier makes
          // every thread's visible and says that both warpgroups are done
          // with block j - 1 (its wgmmas completed at the end of the last
          // step), whose buffers the next copy refills.
          nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup,
                                           b.getI32IntegerAttr(S - 2));
          NVVM::FenceProxyOp::create(
              b, loc, NVVM::ProxyKind::async_shared,
              NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
          gpu::BarrierOp::create(b, loc);
          Value next = add(j, S - 1);
          issueSwizzledKeyBlock(next, rem(next, S));
          Value stage = rem(j, S);
          Value n0 = mul(j, BN);
          Value kStart =
              add(base, mul(add(cst(kOffset), mul(stage, BN * k.d)), inBytes));
          Value vStart =
              add(base, mul(add(cst(vOffset), mul(stage, BN * k.dv)), inBytes));

          // S = Q.K^T: Q (A) and K (B as [N = keys][K = D]) both K-major;
          // a step of 16 in D moves the start by 32 bytes inside the
          // swizzled row, a 64-column block by the tile's rows x 128.
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
          Value acc = LLVM::ZeroOp::create(b, loc, sType);
          for (int64_t kk = 0; kk < k.d; kk += 16) {
            const int64_t within = (kk % 64) * inBytes;
            Value descQ = wgmmaDescriptor(
                add(qStart, (kk / 64) * BM * rowBytes + within), 16, 1024);
            Value descK = wgmmaDescriptor(
                add(kStart, (kk / 64) * BN * rowBytes + within), 16, 1024);
            acc = NVVM::WgmmaMmaAsyncOp::create(
                b, loc, sType, acc, descQ, descK, sShape, type, type,
                NVVM::WGMMATypes::f32,
                kk == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
                NVVM::MMALayout::row, NVVM::MMALayout::col,
                NVVM::MMAIntOverflowAttr());
          }
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
          SmallVector<Value> s;
          for (int64_t nt = 0; nt < BN / 8; ++nt) {
            SmallVector<Value> e;
            for (int64_t q = 0; q < 4; ++q)
              e.push_back(
                  LLVM::ExtractValueOp::create(b, loc, acc, 4 * nt + q));
            s.push_back(vector::FromElementsOp::create(b, loc, accType, e));
          }

          Value alpha[2];
          SmallVector<Value> p;
          softmaxStep(s, n0, rowBase, colBase, head, gMask, rowMax, sum, p,
                      alpha);
          Value scaleO = vector::FromElementsOp::create(
              b, loc, accType,
              ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
          SmallVector<Value> oRegs;
          for (Value &a : o) {
            a = arith::MulFOp::create(b, loc, a, scaleO);
            for (int64_t q = 0; q < 4; ++q)
              oRegs.push_back(vector::ExtractOp::create(
                  b, loc, a, ArrayRef<int64_t>{q / 2, q % 2}));
          }

          // O += P.V, 16 keys at a time: P from registers (the C
          // fragments of key tiles 2kc and 2kc + 1 are the A fragment of
          // keys 16kc .. 16kc + 15, as in the mma.sync kernel), V N-major:
          // 16 keys are 16 rows of 128 bytes, the 64-column blocks of Dv
          // BN x 128 bytes apart.
          // All of P's registers first: a register written between two
          // wgmmas would need a fence of its own (ptxas injects one).
          SmallVector<SmallVector<Value>> pRegs;
          for (int64_t kc = 0; kc < BN / 16; ++kc) {
            SmallVector<Value> pe;
            for (int64_t t = 0; t < 2; ++t)
              for (int64_t h = 0; h < 2; ++h)
                for (int64_t e = 0; e < 2; ++e)
                  pe.push_back(p[((2 * kc + t) * 2 + h) * 2 + e]);
            Value pa = arith::TruncFOp::create(
                b, loc, fragA,
                vector::FromElementsOp::create(b, loc, fragAF32, pe));
            SmallVector<Value> &regs = pRegs.emplace_back();
            for (int64_t r = 0; r < 4; ++r)
              regs.push_back(vector::ExtractOp::create(
                  b, loc,
                  vector::BitCastOp::create(
                      b, loc, word,
                      vector::ExtractOp::create(b, loc, pa,
                                                ArrayRef<int64_t>{r})),
                  ArrayRef<int64_t>{0}));
          }
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
          for (int64_t kc = 0; kc < BN / 16; ++kc) {
            Value descV = wgmmaDescriptor(add(vStart, kc * 16 * rowBytes),
                                          BN * rowBytes, 1024);
            oRegs = wgmmaPV(oRegs, pRegs[kc], descV);
          }
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
          for (int64_t dt = 0; dt < fragsO; ++dt)
            o[dt] = vector::FromElementsOp::create(
                b, loc, accType, ArrayRef<Value>(oRegs).slice(4 * dt, 4));

          SmallVector<Value> yield(o);
          yield.append({rowMax[0], rowMax[1], sum[0], sum[1]});
          scf::YieldOp::create(b, loc, yield);
        });
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

//===----------------------------------------------------------------------===//
// The AMD (MFMA) kernel
//===----------------------------------------------------------------------===//

SmallVector<Value> AttentionBuilder::loadKeyBlock(Value j) {
  const int64_t threads = kWarps * target.getWarpSize();
  const int64_t vec = 16 / k.inBytes();
  auto vecType = VectorType::get({vec}, k.inType);
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vecType, b.getZeroAttr(k.inType)));
  Value n0 = mul(j, kBlockN);
  SmallVector<Value> regs;
  for (auto [src, cols] : {std::pair<Value, int64_t>{gK, k.d}, {gV, k.dv}}) {
    for (int64_t first = 0; first < kBlockN * (cols / vec); first += threads) {
      auto [r, c] = copyCoord(kBlockN, cols, first);
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

void AttentionBuilder::storeKeyBlock(ArrayRef<Value> regs) {
  const int64_t threads = kWarps * target.getWarpSize();
  const int64_t vec = 16 / k.inBytes();
  size_t next = 0;
  for (int64_t first = 0; first < kBlockN * (k.d / vec); first += threads) {
    auto [r, c] = copyCoord(kBlockN, k.d, first);
    vector::StoreOp::create(b, loc, regs[next++], sK, ValueRange{r, c});
  }
  // V transposed, element by element: a fragment of V^T is then 4
  // consecutive keys of one column.
  for (int64_t first = 0; first < kBlockN * (k.dv / vec); first += threads) {
    auto [r, c] = copyCoord(kBlockN, k.dv, first);
    Value v = regs[next++];
    for (int64_t i = 0; i < vec; ++i)
      memref::StoreOp::create(
          b, loc, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}),
          sV, ValueRange{add(c, i), r});
  }
}

void AttentionBuilder::emitLds(const GpuLaneLayout &layout, Value gQ,
                               Value gMask, Value gO) {
  MLIRContext *ctx = b.getContext();
  const int64_t wave = target.getWarpSize();
  const int64_t pad = kGpuSharedRowPad;
  const int64_t kp = layout.kPerLane;   // D, Dv or keys per lane and tile
  const int64_t na = layout.accPerLane; // keys or Dv per accumulator
  const int64_t keyTiles = kBlockN / 16, oTiles = k.dv / 16;
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
    auto kType = MemRefType::get({kBlockN, k.d + pad}, k.inType,
                                 MemRefLayoutAttrInterface(), wg);
    auto vType = MemRefType::get({k.dv, kBlockN + pad}, k.inType,
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
      for (int64_t kd = 0; kd < k.d; kd += 16)
        qFrags.push_back(loadQ(kd));

    const bool maskTail = k.skv % kBlockN != 0;
    const double scaleLog2 = k.scale * 1.4426950408889634 /* log2(e) */;
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
    auto loop = scf::ForOp::create(
        b, loc, cst(0), nBlocks, cst(1), init,
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
          Value n0 = mul(j, kBlockN);

          // S^T: 4 tiles of 16 keys; lane holds keys 16t + e * accRowStep
          // + accRow of its query.
          SmallVector<Value> s(keyTiles, zeroAcc);
          for (int64_t kd = 0; kd < k.d; kd += 16)
            for (int64_t t = 0; t < keyTiles; ++t) {
              Value kFrag = vector::LoadOp::create(
                  b, loc, fragType, sK,
                  ValueRange{add(laneR, t * 16), add(kRun, kd)});
              if (!qInRegisters && t == 0)
                qFrags.push_back(loadQ(kd));
              s[t] =
                  target.createMma(b, loc, k.mma, kFrag, qFrags[kd / 16], s[t]);
            }

          // Scaled logits (log2 domain); removed keys -inf.
          Value keyBase = add(n0, accRow);
          Value diag =
              k.causal
                  ? arith::SubIOp::create(b, loc, keyBase, qRow).getResult()
                  : Value();
          const bool boolMask = gMask && k.maskType.isInteger(1);
          SmallVector<Value> x;
          Value blockMax;
          for (int64_t t = 0; t < keyTiles; ++t)
            for (int64_t e = 0; e < na; ++e) {
              const int64_t c = t * 16 + e * layout.accRowStep;
              Value v = arith::MulFOp::create(
                  b, loc,
                  vector::ExtractOp::create(b, loc, s[t], ArrayRef<int64_t>{e}),
                  f32(scaleLog2));
              Value m;
              if (gMask)
                m = loadMask(gMask, head, qRow, add(keyBase, c));
              if (gMask && !boolMask) {
                Value mf =
                    m.getType().isF32()
                        ? m
                        : arith::ExtFOp::create(b, loc, f32Type, m).getResult();
                v = arith::AddFOp::create(
                    b, loc, v,
                    arith::MulFOp::create(b, loc, mf, f32(1.4426950408889634)));
              }
              if (maskTail || k.causal || boolMask) {
                Value keep = both(maskTail ? cmp(arith::CmpIPredicate::slt,
                                                 keyBase, cst(k.skv - c))
                                           : Value(),
                                  k.causal ? cmp(arith::CmpIPredicate::sle,
                                                 diag, cst(k.offset - c))
                                           : Value());
                keep = both(keep, boolMask ? m : Value());
                v = arith::SelectOp::create(b, loc, keep, v, f32(negInf));
              }
              x.push_back(v);
              blockMax = blockMax ? maxF(blockMax, v) : v;
            }

          // Online softmax for this lane's query.
          Value mNew = maxF(rowMax, shuffleSum(blockMax, /*isMax=*/true));
          Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              mNew, f32(negInf));
          Value base = arith::SelectOp::create(b, loc, empty, f32(0), mNew);
          Value alpha = exp2(arith::SubFOp::create(b, loc, rowMax, base));
          SmallVector<Value> p;
          Value blockSum;
          for (Value v : x) {
            p.push_back(exp2(arith::SubFOp::create(b, loc, v, base)));
            blockSum = blockSum
                           ? arith::AddFOp::create(b, loc, blockSum, p.back())
                           : p.back();
          }
          sum = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, sum, alpha), blockSum);
          Value alphaVec = vector::BroadcastOp::create(b, loc, accType, alpha);
          for (Value &acc : o)
            acc = arith::MulFOp::create(b, loc, acc, alphaVec);

          // O^T += V^T.P^T: P rounded to the input type is the B operand.
          Value lowHalf =
              exchange ? cmp(arith::CmpIPredicate::eq, laneG, cst(0)) : Value();
          for (int64_t t = 0; t < keyTiles; ++t) {
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
        });
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
      Value col0 = add(accRow, u * 16);
      if (layout.accRowStep == 1) {
        // Consecutive columns: one vector store.
        vector::StoreOp::create(b, loc, v, gO,
                                ValueRange{batchIdx, head, qRow, col0}, false,
                                llvm::MaybeAlign(na * outBytes));
        continue;
      }
      for (int64_t e = 0; e < na; ++e)
        memref::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e}),
            gO,
            ValueRange{batchIdx, head, qRow, add(col0, e * layout.accRowStep)});
    }
  }
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// Planning and the function
//===----------------------------------------------------------------------===//

void emitKernel(OpBuilder &b, AttentionOp op, StringRef name,
                const AttentionPlan &k,
                const DenseMap<Value, std::string> &bufferOf,
                const GpuTargetInfo &target) {
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  SmallVector<Type> params;
  SmallVector<Attribute> args, access;
  auto addParam = [&](Value v, StringRef how) {
    params.push_back(MemRefType::get(cast<ShapedType>(v.getType()).getShape(),
                                     getElementTypeOrSelf(v.getType())));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
    access.push_back(StringAttr::get(ctx, how));
  };
  // Without keys nothing is read (a bare pointer cannot stand for an empty
  // memref): the kernel only writes zeros.
  if (k.skv > 0) {
    addParam(op.getQuery(), "in");
    addParam(op.getKey(), "in");
    addParam(op.getValue(), "in");
    if (op.getMask())
      addParam(op.getMask(), "in");
  }
  addParam(op.getResult(), "out");

  auto func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(params, {}));
  int64_t threads = k.warps() * target.getWarpSize();
  std::array<int64_t, 3> grid = k.grid();
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  func.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(
      {int32_t(grid[0]), int32_t(grid[1]), int32_t(grid[2])}));
  SmallVector<NamedAttribute> launch = {
      b.getNamedAttr("grid", b.getDenseI64ArrayAttr(grid)),
      b.getNamedAttr("block", b.getDenseI64ArrayAttr({threads, 1, 1})),
      b.getNamedAttr("dynamic_shared_memory",
                     b.getI64IntegerAttr(k.skv > 0 ? k.sharedBytes() : 0)),
      b.getNamedAttr("chip", b.getStringAttr(target.getChip())),
      b.getNamedAttr("args", b.getArrayAttr(args)),
      b.getNamedAttr("access", b.getArrayAttr(access)),
      b.getNamedAttr("kind", b.getStringAttr("attention")),
      b.getNamedAttr("tile", b.getDenseI64ArrayAttr({k.blockM, k.blockN})),
      b.getNamedAttr("stages", b.getI64IntegerAttr(k.stages)),
      b.getNamedAttr("scale", b.getF64FloatAttr(k.scale))};
  if (!k.lanes)
    launch.push_back(
        b.getNamedAttr("mma", b.getStringAttr(k.wgmma ? "wgmma" : "mma.sync")));
  if (k.causal)
    launch.push_back(
        b.getNamedAttr("causal_offset", b.getI64IntegerAttr(k.offset)));
  if (k.maskType)
    launch.push_back(b.getNamedAttr(
        "mask",
        b.getStringAttr(k.maskType.isInteger(1) ? "bool" : "additive")));
  func->setAttr("accel.launch", b.getDictionaryAttr(launch));

  Block *entry = &func.getBody().front();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  AttentionBuilder builder(body, loc, k, target, entry);
  if (k.skv > 0)
    builder.emit(entry->getArgument(0), entry->getArgument(1),
                 entry->getArgument(2),
                 k.maskType ? entry->getArgument(3) : Value(),
                 entry->getArgument(k.maskType ? 4 : 3));
  else
    builder.emit(Value(), Value(), Value(), Value(), entry->getArgument(0));
}

} // namespace

bool mlir::accel::hasGpuAttention(func::FuncOp func) {
  return !func.getBody().empty() &&
         llvm::any_of(func.getBody().front(),
                      [](Operation &op) { return isa<AttentionOp>(op); });
}

LogicalResult
mlir::accel::convertGpuAttentionFunction(func::FuncOp func,
                                         const GpuTargetInfo &target,
                                         const GpuConfigOverrides &options) {
  // checkGpuKernelFunction has admitted the function's ops.
  SmallVector<AttentionOp> ops(func.getBody().front().getOps<AttentionOp>());

  SmallVector<Operation *> computed(ops.begin(), ops.end());
  FailureOr<DenseMap<Value, std::string>> buffers =
      nameKernelBuffers(func, computed, "accel.attention");
  if (failed(buffers))
    return failure();
  DenseMap<Value, std::string> &bufferOf = *buffers;

  // Check everything before building anything.
  SmallVector<AttentionPlan, 1> plans;
  for (AttentionOp op : ops) {
    FailureOr<AttentionPlan> k = planGpuAttention(op, target, options);
    if (failed(k))
      return failure();
    if (k->skv > 0)
      for (Value v : {op.getQuery(), op.getKey(), op.getValue(), op.getMask()})
        if (v && !bufferOf.count(v))
          return op.emitOpError("reads a value that is not a kernel buffer "
                                "(a function argument or an "
                                "accel.attention result)");
    plans.push_back(*k);
  }

  std::string moduleName = (func.getSymName() + "_kernels").str();
  auto parent = func->getParentOfType<ModuleOp>();
  if (parent.lookupSymbol(moduleName))
    return func.emitOpError("cannot place its kernels: the symbol @")
           << moduleName << " already exists";
  OpBuilder b(func);
  auto gpuModule = gpu::GPUModuleOp::create(b, func.getLoc(), moduleName);
  b.setInsertionPointToStart(gpuModule.getBody());
  for (auto [i, op] : llvm::enumerate(ops)) {
    const AttentionPlan &k = plans[i];
    if (k.batch == 0 || k.hq == 0 || k.sq == 0)
      continue; // an empty O: nothing to launch
    emitKernel(b, op, (func.getSymName() + "_" + Twine(i)).str(), k, bufferOf,
               target);
  }
  func.erase();
  return success();
}
