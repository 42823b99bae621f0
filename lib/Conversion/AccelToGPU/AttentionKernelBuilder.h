//===- AttentionKernelBuilder.h - the attention kernel builder --*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The builder of convert-accel-to-gpu's attention kernels. The common part
// (thread indexing, constants, the mask and length guards, the dispatch in
// AttentionKernel.cpp) is shared; each algorithm's body is in its vendor's
// file:
//
//   NVIDIA/FlashAttention.cpp   cp.async ring, ldmatrix, mma.sync (sm_80+)
//   NVIDIA/WgmmaAttention.cpp   swizzled ring, wgmma (sm_90a)
//   AMD/FlashAttention.cpp      register-staged LDS, MFMA / WMMA
//   FmaAttention.cpp            f32 by fused multiply-adds, both vendors
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNELBUILDER_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNELBUILDER_H

#include "Epilogue.h"
#include "KernelConfig.h"
#include "KernelUtils.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include <array>
#include <map>

namespace mlir::accel {

/// Builds the body of one attention kernel: the common part and the
/// dispatch in AttentionKernel.cpp, one kernel body per algorithm in its
/// vendor's folder.
class GpuAttentionBuilder : public GpuIndexBuilder {
public:
  GpuAttentionBuilder(OpBuilder &b, Location loc, const AttentionPlan &k,
                      const GpuTargetInfo &target, Block *entry)
      : GpuIndexBuilder(b, loc, entry), k(k), target(target) {}

  /// The kernel the configuration chose, on these buffers.
  void emit(Value gQ, Value gK, Value gV, Value gMask, Value gO);

  /// Query rows per block, keys per step, warps per block (16 rows each) of
  /// the mma.sync and AMD kernels.
  static constexpr int64_t kBlockM = kGpuAttentionBlockM,
                           kWarps = kGpuAttentionWarps;

  /// The mma.sync kernel (NVIDIA/FlashAttention.cpp).
  void emitMmaSync(Value gQ, Value gMask, Value gO);
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
  /// exp2 as the chip computes it fastest, exp2(-inf) = +0
  /// (GpuTargetInfo::createExp2).
  Value exp2(Value v) { return target.createExp2(b, loc, v); }
  Value maxF(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  /// An f32 rounded to the nearest TF32 value (ties to even), held in f32:
  /// P before a TF32 / xf32 P.V, whose matrix units would drop its low 13
  /// bits (the GPU pipelines expand the round trip to integer arithmetic,
  /// accel-expand-f8-casts).
  Value roundToTf32(Value v) {
    Value t =
        arith::TruncFOp::create(b, loc, FloatTF32Type::get(b.getContext()), v);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), t);
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

  /// The key blocks, from the first, in which no key is removed for any
  /// row of the query block from `m0`: none past Skv (the padding of a
  /// last partial block) and, causal, none past the band (block j's last
  /// key (j + 1)·blockN - 1 at most m0 + offset). `nBlocks` is
  /// keyBlocks(m0). The kernels run these blocks without the band's
  /// compares and selects (bandMask false), the rest with them: as
  /// FlashAttention-2 and -3 do, only the blocks on the diagonal pay.
  Value unmaskedKeyBlocks(Value m0, Value nBlocks) {
    Value full = nBlocks;
    if (k.skv % k.blockN != 0)
      full = maxS(cst(0), arith::SubIOp::create(b, loc, nBlocks, cst(1)));
    if (k.causal)
      full = minS(full, div(maxS(cst(0), add(m0, k.offset + 1)), k.blockN));
    return full;
  }
  /// Whether softmaxStep removes the keys past Skv and (causal) past the
  /// band; a bool or additive mask applies either way.
  bool bandMask = true;
  /// The loop over key blocks [0, nBlocks) of the query block from `m0`,
  /// its body built by `step` (induction variable, iter_args) from `init`:
  /// where the band or a partial last block removes keys, two loops over
  /// the same body, the unmaskedKeyBlocks without the band's compares
  /// (bandMask false), then the rest with them. The last loop.
  scf::ForOp
  keyLoop(Value m0, Value nBlocks, ValueRange init,
          function_ref<void(OpBuilder &, Location, Value, ValueRange)> step);

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
    return GpuIndexBuilder::copyCoord(tid, k.warps() * target.getWarpSize(),
                                      rows, cols, 16 / k.inBytes(), first);
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

  /// The f32 kernel of every chip (FmaAttention.cpp): emit()'s body for
  /// f32 Q, K and V.
  void emitFma(Value gQ, Value gMask, Value gO);

  /// The scaled logit (log2 domain, for exp2) of query `qRow` and key
  /// `keyBase + c` from its dot product `dot`, shared by the kernels whose
  /// lanes own whole logits (AMD, fma): an additive mask added (read per
  /// logit), and -inf for a key past Skv (when Skv has a tail), outside the
  /// band (`diag` = keyBase - qRow, causal only) or dropped by a bool mask.
  Value maskedLogit(Value dot, Value keyBase, int64_t c, Value qRow,
                    Value head, Value gMask, Value diag);
  /// One key block of the online softmax of a query: from the lane's
  /// logits `x`, the query's maximum over the block `blockMax` (reduced
  /// over its lanes), the running maximum `rowMax` and the lane's partial
  /// sum `sum`: the new maximum, the correction alpha = exp2(old - new)
  /// of what was summed (1 while every key so far is removed), P =
  /// exp2(x - max) and the corrected partial sum.
  struct SoftmaxStep {
    Value rowMax, alpha, sum;
    SmallVector<Value> p;
  };
  SoftmaxStep onlineSoftmax(ArrayRef<Value> x, Value blockMax, Value rowMax,
                            Value sum);

  /// The kernel of chips with lane-layout fragments and no asynchronous
  /// copies (AMD MFMA): emit()'s body there.
  void emitLds(const GpuLaneLayout &layout, Value gQ, Value gMask, Value gO);
  /// This thread's part of key block `j`: K [blockN][D] and V [blockN][Dv]
  /// in vectors of 16 bytes from global memory, zeros past kvLimit.
  SmallVector<Value> loadKeyBlock(Value j);
  /// Stores loadKeyBlock's registers into LDS: K as [blockN][D + pad], V
  /// transposed as [Dv][blockN + pad].
  void storeKeyBlock(ArrayRef<Value> regs);

  const AttentionPlan &k;
  const GpuTargetInfo &target;
  std::map<double, Value> floats;

  /// The elementwise epilogue applied to each element of O before it is
  /// stored (a residual add, a cast: the only user of the attention's
  /// result, findGpuEpilogue), and its buffers; gO is then its result.
  const GpuEpilogue *epilogue = nullptr;
  SmallVector<Value> gEpilogue;
  /// Stores `v` (a vector of O's type: columns col0, col0 + colStride, ...
  /// of query row `row` of `head`) into gO: one vector store of `alignBytes`
  /// alignment when the columns are consecutive and there is no epilogue,
  /// else element by element, each through the epilogue when there is one.
  void storeO(Value v, Value gO, Value head, Value row, Value col0,
              int64_t colStride, int64_t alignBytes);

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

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_ATTENTIONKERNELBUILDER_H
