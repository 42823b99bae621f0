//===- WgmmaGemm.cpp - the wgmma GEMM kernel (sm_90a)
//-----------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Hopper's warpgroup-MMA GEMM: a swizzled cp.async ring that wgmma reads
// through shared-memory descriptors, asynchronous wgmma groups, and for
// 8-bit float inputs a per-slice promotion into the f32 accumulator.
//
//===----------------------------------------------------------------------===//

#include "../GemmKernel.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::accel;

void GemmKernelBuilder::copySwizzled(Value src, Value dst, Value base,
                                     int64_t rows, int64_t chunks, Value row0,
                                     Value col0, int64_t rowLimit,
                                     int64_t colLimit, bool checkRows,
                                     bool checkCols,
                                     SmallVectorImpl<Value> &tokens) {
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  const int64_t vec = 16 / k.shape.inBytes;
  const int64_t total = rows * chunks;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t first = 0; first < total; first += threads) {
    auto [it, inserted] = swizzledCoords.try_emplace({rows, chunks, first});
    if (inserted) {
      Value id = add(tid, first);
      if (first + threads > total)
        id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
      Value r = div(id, chunks), c = rem(id, chunks);
      it->second = {r, c, swizzledOffset(r, c, rows, vec)};
    }
    auto [r, c, offset] = it->second;
    Value gr = add(row0, r), gc = add(col0, mul(c, vec));
    Value n = clampSource(gr, gc, vec, checkRows ? rowLimit : -1,
                          checkCols ? colLimit : -1);
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokenType, dst, ValueRange{add(base, offset)}, src,
        global(gr, gc), b.getIndexAttr(vec), n, b.getUnitAttr()));
  }
}

Value GemmKernelBuilder::issueSwizzledSlice(Value kt, Value stage) {
  const GpuGemmShape &s = k.shape;
  const int64_t rowElems = 128 / s.inBytes;
  Value k0 = mul(kt, cfg.tileK);
  SmallVector<Value> tokens;
  copySwizzled(gA, sA, mul(stage, cfg.tileM * rowElems), cfg.tileM, 8, blockRow,
               k0, s.m, s.k, s.m % cfg.tileM != 0, true, tokens);
  Value baseB = mul(stage, cfg.tileN * rowElems);
  if (k.bMnMajor)
    // [tileK] rows of N: tileN / 64 blocks of 128 bytes of N.
    copySwizzled(gB, sB, baseB, cfg.tileK, cfg.tileN * s.inBytes / 16, k0,
                 blockCol, s.k, s.n, true, s.n % cfg.tileN != 0, tokens);
  else
    copySwizzled(gB, sB, baseB, cfg.tileN, 8, blockCol, k0, s.n, s.k,
                 s.n % cfg.tileN != 0, true, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void GemmKernelBuilder::emitWgmma() {
  MLIRContext *ctx = b.getContext();
  const GpuGemmShape &s = k.shape;
  const int64_t S = cfg.stages;
  const int64_t rowBytes = 128;
  const int64_t rowElems = rowBytes / s.inBytes;
  // One wgmma is 16 deep for 16-bit inputs, 32 for 8-bit: 32 bytes of K.
  const int64_t instrK = 32 / s.inBytes;
  const bool promote = promotesWgmmaAccumulation(k);
  // wgmma groups in flight while the next one is issued: with 3 or more
  // stages the copy of slice kt + S - 2 overwrites the buffer of slice
  // kt - 2, whose wgmma has completed. A promoting kernel waits for every
  // slice's group before it adds the slice up (wgmma.wait_group 0): none
  // is in flight, and the copy of slice kt + S - 1 refills the buffer of
  // slice kt - 1, which every warpgroup has finished reading by the
  // barrier.
  const int64_t inFlight = S >= 3 && !promote ? 1 : 0;

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = rem(tid, 32);
  Value group = div(tid, 128), warpInGroup = div(rem(tid, 128), 32);
  blockCol = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), cfg.tileN);
  blockRow = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), cfg.tileM);
  if (k.batched)
    batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);

  const int64_t numK = ceilDiv(s.k, cfg.tileK);
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value baseA, baseB;
  if (numK > 0) {
    auto [dyn, start, pad] = swizzleAlignedSharedMemory();
    auto ring = [&](int64_t rows, Type elt) {
      return MemRefType::get({S * rows * rowElems}, elt,
                             MemRefLayoutAttrInterface(), wg);
    };
    Value offsetB = add(pad, S * cfg.tileM * rowBytes);
    sA = memref::ViewOp::create(b, loc, ring(cfg.tileM, k.inType), dyn, pad,
                                ValueRange{});
    sB = memref::ViewOp::create(b, loc, ring(cfg.tileN, k.inTypeB), dyn,
                                offsetB, ValueRange{});
    baseA = add(start, pad);
    baseB = add(start, offsetB);
  }

  // The accumulators of a warpgroup's 64 x tileN part of C: tileN / 2 per
  // thread, as wgmma's D struct. Element 4j + q of a thread of warp w
  // (lane l) of its group is C[64 g + 16 w + l / 4 + 8 (q / 2)]
  // [8 j + 2 (l % 4) + q % 2]: mma.sync's m16n8 C fragment per warp.
  const int64_t perThread = cfg.tileN / 2;
  Type accElt = accElement();
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(perThread, accElt));
  Value fragRow = add(add(add(blockRow, mul(group, 64)), mul(warpInGroup, 16)),
                      div(lane, 4));
  Value fragCol = add(blockCol, mul(rem(lane, 4), 2));
  Value acc = LLVM::ZeroOp::create(b, loc, accType);
  if (k.accumulate) {
    for (int64_t j = 0; j < cfg.tileN / 8; ++j) {
      Value pairs = loadAccumulator(fragRow, add(fragCol, 8 * j));
      for (int64_t q = 0; q < 4; ++q)
        acc = LLVM::InsertValueOp::create(
            b, loc, acc,
            vector::ExtractOp::create(b, loc, pairs,
                                      ArrayRef<int64_t>{q / 2, q % 2}),
            4 * j + q);
    }
  }

  if (numK > 0) {
    auto mmaType = [&](Type t) {
      if (t.isF16())
        return NVVM::WGMMATypes::f16;
      if (t.isBF16())
        return NVVM::WGMMATypes::bf16;
      if (isa<Float8E4M3FNType>(t))
        return NVVM::WGMMATypes::e4m3;
      if (isa<Float8E5M2Type>(t))
        return NVVM::WGMMATypes::e5m2;
      // f32 A and B holding TF32 values (accel.tf32_inputs): m64nNk8 .tf32.
      if (t.isF32())
        return NVVM::WGMMATypes::tf32;
      return NVVM::WGMMATypes::s8;
    };
    NVVM::WGMMATypes typeA = mmaType(k.inType), typeB = mmaType(k.inTypeB);
    NVVM::WGMMATypes typeD =
        k.mma.accumulatesInInt ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32;
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, cfg.tileN, instrK);
    // A is K-major ("row"); B K-major ("col") as [N, K], N-major ("row",
    // wgmma's transposed B) as [K, N].
    NVVM::MMALayout layoutB =
        k.bMnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;

    Value lastGroup;
    for (int64_t i = 0; i + 1 + inFlight < S; ++i)
      lastGroup = issueSwizzledSlice(cst(i), cst(i));
    // Promoting: the loop also carries the slice accumulator, whose value
    // is never read (each slice's first wgmma has scale-d zero); carried,
    // it needs no zeroing.
    SmallVector<Value> iterInit = {acc};
    if (promote)
      iterInit.push_back(LLVM::ZeroOp::create(b, loc, accType));
    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(numK), cst(1), iterInit,
        [&](OpBuilder &, Location, Value kt, ValueRange iterAcc) {
          Value cur = iterAcc.front();
          Value slice = promote ? iterAcc[1] : Value();
          // Slice kt has landed (this thread's copies); the proxy fence
          // makes the copies' generic-proxy writes visible to wgmma's
          // async-proxy reads, and the barrier makes every thread's visible
          // and tells that every warpgroup is done with slice
          // kt - 1 - inFlight, whose buffer the next copy refills.
          nvgpu::DeviceAsyncWaitOp::create(
              b, loc, lastGroup, b.getI32IntegerAttr(S - 2 - inFlight));
          NVVM::FenceProxyOp::create(
              b, loc, NVVM::ProxyKind::async_shared,
              NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
          gpu::BarrierOp::create(b, loc);
          Value next = add(kt, S - 1 - inFlight);
          issueSwizzledSlice(next, rem(next, S));
          Value stage = rem(kt, S);
          Value aStart = add(add(baseA, mul(stage, cfg.tileM * rowBytes)),
                             mul(group, 64 * rowBytes));
          Value bStart = add(baseB, mul(stage, cfg.tileN * rowBytes));
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
          for (int64_t kk = 0; kk < cfg.tileK; kk += instrK) {
            // K-major: the 8-row groups of 128 bytes are 1024 bytes apart
            // (the stride offset; the leading one is unused), and a step
            // of K moves the start within the swizzled row. N-major: the
            // 8-row groups of K are 1024 bytes apart, the 64-element blocks
            // of N tileK * 128 bytes (the leading offset).
            Value descA =
                wgmmaDescriptor(add(aStart, kk * s.inBytes), 16, 1024);
            Value descB =
                k.bMnMajor
                    ? wgmmaDescriptor(add(bStart, (kk / 8) * 1024),
                                      cfg.tileK * rowBytes, 1024)
                    : wgmmaDescriptor(add(bStart, kk * s.inBytes), 16, 1024);
            // Promoting: the slice's sum starts at its first wgmma (D =
            // A.B, scale-d zero) and leaves `cur` alone.
            Value &d = promote ? slice : cur;
            d = NVVM::WgmmaMmaAsyncOp::create(
                b, loc, accType, d, descA, descB, shape, typeA, typeB, typeD,
                promote && kk == 0 ? NVVM::WGMMAScaleOut::zero
                                   : NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
                NVVM::MMALayout::row, layoutB,
                k.mma.accumulatesInInt ? NVVM::MMAIntOverflowAttr::get(
                                             ctx, NVVM::MMAIntOverflow::wrapped)
                                       : NVVM::MMAIntOverflowAttr());
          }
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          // Promoting, inFlight is 0: the slice's registers are complete
          // before they are read.
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, inFlight);
          if (!promote) {
            scf::YieldOp::create(b, loc, cur);
            return;
          }
          // The promotion: the slice's sum added into the f32 accumulator
          // with f32 additions.
          for (int64_t i = 0; i < perThread; ++i) {
            Value sum = arith::AddFOp::create(
                b, loc, LLVM::ExtractValueOp::create(b, loc, cur, i),
                LLVM::ExtractValueOp::create(b, loc, slice, i));
            cur = LLVM::InsertValueOp::create(b, loc, cur, sum, i);
          }
          scf::YieldOp::create(b, loc, ValueRange{cur, slice});
        });
    acc = loop.getResult(0);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup, b.getI32IntegerAttr(0));
  }

  auto pairType = VectorType::get({2, 2}, accElt);
  for (int64_t j = 0; j < cfg.tileN / 8; ++j) {
    SmallVector<Value> elems;
    for (int64_t q = 0; q < 4; ++q)
      elems.push_back(LLVM::ExtractValueOp::create(b, loc, acc, 4 * j + q));
    storeAccumulator(vector::FromElementsOp::create(b, loc, pairType, elems),
                     fragRow, add(fragCol, 8 * j));
  }
  gpu::ReturnOp::create(b, loc);
}
