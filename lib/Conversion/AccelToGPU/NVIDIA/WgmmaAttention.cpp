//===- WgmmaAttention.cpp - the wgmma attention kernel (sm_90a)
//-------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// FlashAttention on Hopper's warpgroup MMA: two warpgroups of 64 query
// rows, K/V blocks in wgmma's 128-byte swizzle, Q.K^T and P.V as
// asynchronous wgmma groups.
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

void GpuAttentionBuilder::copySwizzled(Value src, ValueRange srcPre, Value dst,
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

Value GpuAttentionBuilder::issueSwizzledKeyBlock(Value j, Value stage) {
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

SmallVector<Value> GpuAttentionBuilder::wgmmaPV(ArrayRef<Value> o,
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

void GpuAttentionBuilder::emitWgmma(Value gQ, Value gMask, Value gO) {
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
    auto step =
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
