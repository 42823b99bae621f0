//===- FmaGemm.cpp - the f32 GEMM kernel of fused multiply-adds -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The GEMM of f32 inputs on any chip (the SIMT kernel of cuBLAS's SGEMM and
// of CUTLASS's SIMT GEMMs): tensor cores take f32 only as TF32 (10-bit
// mantissa) or xf32, so exact f32 is scalar FMAs. Each thread owns a
// micro tile of C (8 x 8 on tiles of 64 and 128, 4 x 4 on 32) held in
// registers; per K it reads its rows of A and its columns of B from
// shared memory as 16-byte vectors (A and B both stored K-major,
// [tileK][tile + pad], A transposed on the way in) and does an outer
// product of FMAs. Slices pass through registers into two LDS buffers
// while the previous one is multiplied, as the AMD kernel does (no
// cp.async: it cannot transpose), one barrier per slice.
//
//===----------------------------------------------------------------------===//

#include "GemmKernel.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::accel;

void GemmKernelBuilder::storeSliceToLdsByK(ArrayRef<Value> regs, Value stage) {
  const GpuGemmShape &s = k.shape;
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  size_t next = 0;
  // The copies in loadSliceToRegisters's order: a tile of rows x cols in
  // vectors of `vec` along the columns.
  auto each = [&](int64_t rows, int64_t cols, int64_t vec,
                  llvm::function_ref<void(Value, Value, Value)> store) {
    for (int64_t first = 0; first < rows * (cols / vec); first += threads) {
      auto [r, c] = copyCoord(rows, cols, vec, first);
      store(regs[next++], r, c);
    }
  };
  // A vector of consecutive K of one row (A, and B as [N, K]) goes into
  // one column of the K-major buffer, element by element.
  auto transposed = [&](Value buffer, int64_t vec) {
    return [&, buffer, vec](Value v, Value r, Value c) {
      for (int64_t i = 0; i < vec; ++i)
        memref::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}),
            buffer, ValueRange{stage, add(c, i), r});
    };
  };
  each(cfg.tileM, cfg.tileK, k.vecA, transposed(sA, k.vecA));
  if (s.transposeB) {
    each(cfg.tileN, cfg.tileK, k.vecB, transposed(sB, k.vecB));
    return;
  }
  // B as [K, N] is K-major already: a vector of N is one store.
  each(cfg.tileK, cfg.tileN, k.vecB, [&](Value v, Value r, Value c) {
    vector::StoreOp::create(b, loc, v, sB, ValueRange{stage, r, c}, false,
                            llvm::MaybeAlign(k.vecB * 4));
  });
}

void GemmKernelBuilder::emitFma() {
  MLIRContext *ctx = b.getContext();
  const GpuGemmShape &s = k.shape;
  const int64_t tm = getGpuFmaMicroTile(cfg.tileM, cfg.tileN), tn = tm;
  const int64_t threadsN = cfg.tileN / tn;
  const int64_t pad = kGpuFmaRowPad;
  Type f32 = b.getF32Type();

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  blockCol = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), cfg.tileN);
  blockRow = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), cfg.tileM);
  if (k.batched)
    batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  // Thread (ty, tx) owns rows 4 ty + i and 4 ty + tileM / 2 + i (i < 4)
  // and the columns alike: the runs of 4 of neighbouring threads are
  // neighbouring 16-byte vectors in shared memory (a warp reads 16 of B and
  // 2 of A, broadcast), and its stores of C are 16-byte runs.
  Value tx = rem(tid, threadsN), ty = div(tid, threadsN);
  Value row0 = mul(ty, 4), col0 = mul(tx, 4);
  auto rowOf = [&](int64_t i) {
    return add(row0, (i / 4) * (cfg.tileM / 2) + i % 4);
  };
  auto colOf = [&](int64_t j) {
    return add(col0, (j / 4) * (cfg.tileN / 2) + j % 4);
  };

  const int64_t numK = ceilDiv(s.k, cfg.tileK);
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto aType = MemRefType::get({cfg.stages, cfg.tileK, cfg.tileM + pad}, f32,
                               MemRefLayoutAttrInterface(), wg);
  auto bType = MemRefType::get({cfg.stages, cfg.tileK, cfg.tileN + pad}, f32,
                               MemRefLayoutAttrInterface(), wg);
  if (numK > 0) {
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    sA = memref::ViewOp::create(b, loc, aType, dyn, cst(0), ValueRange{});
    sB = memref::ViewOp::create(b, loc, bType, dyn,
                                cst(aType.getNumElements() * 4), ValueRange{});
  }

  auto guard = [&](Value r, Value c) {
    return both(s.m % cfg.tileM != 0 ? ult(r, s.m) : Value(),
                s.n % cfg.tileN != 0 ? ult(c, s.n) : Value());
  };
  // The accumulators, acc[i * tn + j] for C's (rowOf(i), colOf(j)).
  SmallVector<Value> accs;
  for (int64_t i = 0; i < tm; ++i)
    for (int64_t j = 0; j < tn; ++j) {
      if (!k.accumulate) {
        accs.push_back(zeroOf(f32));
        continue;
      }
      Value r = add(blockRow, rowOf(i)), c = add(blockCol, colOf(j));
      accs.push_back(readIf(
          guard(r, c), f32,
          [&] { return memref::LoadOp::create(b, loc, gCin, global(r, c)); },
          [&] { return zeroOf(f32); }));
    }

  if (numK > 0) {
    SmallVector<Value> regs = loadSliceToRegisters(cst(0));
    storeSliceToLdsByK(regs, cst(0));
    gpu::BarrierOp::create(b, loc);
    auto vec4 = VectorType::get({4}, f32);
    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(numK), cst(1), accs,
        [&](OpBuilder &, Location, Value kt, ValueRange iterAccs) {
          SmallVector<Value> cur(iterAccs.begin(), iterAccs.end());
          Value next = add(kt, 1);
          // The next slice is in flight from global memory while this
          // one is multiplied (loads past K read zeros).
          SmallVector<Value> nextRegs = loadSliceToRegisters(next);
          Value stage = rem(kt, cfg.stages);
          for (int64_t kk = 0; kk < cfg.tileK; ++kk) {
            auto read = [&](Value buffer, Value at, int64_t count) {
              SmallVector<Value> elems;
              for (int64_t run = 0; run < count / 4; ++run) {
                Value v = vector::LoadOp::create(
                    b, loc, vec4, buffer,
                    ValueRange{stage, cst(kk),
                               add(at, run * (buffer == sA ? cfg.tileM / 2
                                                           : cfg.tileN / 2))},
                    false, llvm::MaybeAlign(16));
                for (int64_t e = 0; e < 4; ++e)
                  elems.push_back(vector::ExtractOp::create(
                      b, loc, v, ArrayRef<int64_t>{e}));
              }
              return elems;
            };
            SmallVector<Value> as = read(sA, row0, tm), bs = read(sB, col0, tn);
            for (int64_t i = 0; i < tm; ++i)
              for (int64_t j = 0; j < tn; ++j) {
                Value &acc = cur[i * tn + j];
                acc = math::FmaOp::create(b, loc, as[i], bs[j], acc);
              }
          }
          storeSliceToLdsByK(nextRegs, rem(next, cfg.stages));
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, cur);
        });
    keepRolled(loop);
    accs.assign(loop.getResults().begin(), loop.getResults().end());
  }

  // The store: each run of 4 columns as one vector where N keeps it
  // aligned and inside C (N a multiple of 4), else element by element.
  Type outElt = storeElement();
  const bool vectorStore = s.n % 4 == 0;
  const int64_t outBytes = outElt.getIntOrFloatBitWidth() / 8;
  for (int64_t i = 0; i < tm; ++i) {
    Value r = add(blockRow, rowOf(i));
    for (int64_t j0 = 0; j0 < tn; j0 += 4) {
      Value c0 = add(blockCol, colOf(j0));
      if (vectorStore) {
        OpBuilder::InsertionGuard ig(b);
        if (Value g = guard(r, c0)) {
          auto ifOp = scf::IfOp::create(b, loc, g, /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifOp.thenBlock());
        }
        SmallVector<Value> elems;
        for (int64_t j = j0; j < j0 + 4; ++j)
          elems.push_back(finishElement(accs[i * tn + j], r, add(c0, j - j0)));
        Value v = vector::FromElementsOp::create(
            b, loc, VectorType::get({4}, outElt), elems);
        vector::StoreOp::create(b, loc, v, gC, global(r, c0), false,
                                llvm::MaybeAlign(4 * outBytes));
        continue;
      }
      for (int64_t j = j0; j < j0 + 4; ++j) {
        Value c = add(c0, j - j0);
        OpBuilder::InsertionGuard ig(b);
        if (Value g = guard(r, c)) {
          auto ifOp = scf::IfOp::create(b, loc, g, /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifOp.thenBlock());
        }
        memref::StoreOp::create(b, loc, finishElement(accs[i * tn + j], r, c),
                                gC, global(r, c));
      }
    }
  }
  gpu::ReturnOp::create(b, loc);
}
