//===- Catalogue.cpp - catalogue of hardware targets ----------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The figures below are vendor datasheet numbers (dense, no sparsity), figures
// derived from them (marked "derived" below and in the doc) or, for the
// x86-64-avx512 entry, measurements on this project's machine. A size of 0
// means unknown or none; a peak of 0 means unsupported or not published.
// docs/targets.md gives the source of every figure; change both together.
//
//===----------------------------------------------------------------------===//

#include "accel/Target/Catalogue.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <string>

using namespace mlir;
using namespace mlir::accel;

// clang-format off
static const TargetSpec kCatalogue[] = {
  // name, kind, chip, features,
  // compute units, clock GHz,
  // peak f32, tf32, f16, bf16, f8, i8 (TFLOP/s, TOPS),
  // memory GiB, GB/s, local KiB, L2 KiB, LLC KiB, matrix unit, warp size,
  // description
  // Measured on the project's VM: 1-thread FMA/BF16/VNNI probes at ~3.45 GHz,
  // 1-thread STREAM triad 35-37 GB/s, 24 GiB RAM; LLC = one Zen 5 CCD.
  {"x86-64-avx512", TargetKind::CPU, "znver5",
   "avx512f,avx512bw,avx512vl,avx512bf16,avx512vnni,fma",
   1, 3.45,
   0.222, 0.0, 0.0, 0.445, 0.0, 0.889,
   24.0, 36.0, 48, 1024, 32768, {1, 16, 1}, 0,
   "one AMD Zen 5 core with AVX-512 BF16/VNNI (the project's machine)"},
  // Derived: 2 FMA x 8 lanes x 2 x 3.0 GHz; int8 = VPMADDUBSW issue rate.
  // Clock and bandwidth are nominal class figures, not one SKU's.
  {"x86-64-avx2", TargetKind::CPU, "haswell",
   "avx2,fma,f16c",
   1, 3.0,
   0.096, 0.0, 0.0, 0.0, 0.0, 0.192,
   0.0, 20.0, 32, 256, 8192, {1, 8, 1}, 0,
   "one Haswell-class x86-64 core with AVX2 and FMA (the AVX2 fallback)"},
  // Derived: 4 x 128-bit pipes (FMLA, BFMMLA, SMMLA each 4/cycle) x 3.1 GHz
  // (Grace base clock); caches are Grace's (1 MiB L2, 117 MiB L3 per chip).
  // The 30 GB/s per-core bandwidth is an estimate, not a vendor figure.
  {"aarch64-neoverse-v2", TargetKind::CPU, "neoverse-v2",
   "neon,sve,sve2,bf16,i8mm,fullfp16",
   1, 3.1,
   0.099, 0.0, 0.198, 0.397, 0.0, 0.794,
   0.0, 30.0, 64, 1024, 119808, {1, 4, 1}, 0,
   "one Arm Neoverse V2 core as in NVIDIA Grace (Graviton4: 2.8 GHz, 2 MiB L2)"},
  {"a100", TargetKind::NVPTX, "sm_80",
   "mma.sync,cp.async,bf16,tf32,int8",
   108, 1.41,
   19.5, 156.0, 312.0, 312.0, 0.0, 624.0,
   80.0, 2039.0, 164, 40960, 0, {16, 8, 16}, 32,
   "NVIDIA A100 SXM4 80GB (Ampere)"},
  // The GPUs of sm_86 and sm_89: an Ampere data-centre part with sm_80's
  // mma.sync and 100 KiB of shared memory per SM, and an Ada part with
  // fp8 mma.sync. Ada's tensor peaks with f32 accumulation (the kernels'
  // accumulator) are half the f16-accumulation ones.
  {"a40", TargetKind::NVPTX, "sm_86",
   "mma.sync,cp.async,bf16,tf32,int8",
   84, 1.74,
   37.4, 74.8, 149.7, 149.7, 0.0, 299.3,
   48.0, 696.0, 100, 6144, 0, {16, 8, 16}, 32,
   "NVIDIA A40 (Ampere GA102), 48 GB GDDR6"},
  {"rtx4090", TargetKind::NVPTX, "sm_89",
   "mma.sync,cp.async,bf16,tf32,fp8,int8",
   128, 2.52,
   82.6, 82.6, 165.2, 165.2, 330.3, 660.6,
   24.0, 1008.0, 100, 73728, 0, {16, 8, 16}, 32,
   "NVIDIA GeForce RTX 4090 (Ada AD102), 24 GB GDDR6X"},
  {"h100", TargetKind::NVPTX, "sm_90a",
   "mma.sync,cp.async,wgmma,tma,bf16,tf32,fp8,int8",
   132, 1.83,
   67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9,
   80.0, 3352.0, 228, 51200, 0, {64, 256, 16}, 32,
   "NVIDIA H100 SXM5 80GB (Hopper)"},
  {"h200", TargetKind::NVPTX, "sm_90a",
   "mma.sync,cp.async,wgmma,tma,bf16,tf32,fp8,int8",
   132, 1.83,
   67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9,
   141.0, 4800.0, 228, 51200, 0, {64, 256, 16}, 32,
   "NVIDIA H200 SXM 141GB (Hopper with HBM3e)"},
  // Clock derived from the tensor peaks (2250 TFLOP/s / (148 SMs x 8192));
  // L2 and SM count as reported by the CUDA driver on a B200.
  {"b200", TargetKind::NVPTX, "sm_100a",
   "mma.sync,cp.async,tma,tcgen05,bf16,tf32,fp8,fp4,int8",
   148, 1.86,
   75.0, 1100.0, 2250.0, 2250.0, 4500.0, 4500.0,
   180.0, 7700.0, 228, 129536, 0, {128, 256, 16}, 32,
   "NVIDIA B200 (Blackwell), one GPU of an HGX B200"},
  // One GCD: the device a process sees (the package holds two, 220 CUs and
  // 128 GB in all); the package's figures halved.
  {"mi250x", TargetKind::AMDGPU, "gfx90a",
   "mfma,bf16,int8",
   110, 1.7,
   47.85, 0.0, 191.5, 191.5, 0.0, 191.5,
   64.0, 1638.4, 64, 8192, 0, {32, 32, 8}, 64,
   "AMD Instinct MI250X (CDNA 2), one GCD (one of the package's two dies)"},
  {"mi300x", TargetKind::AMDGPU, "gfx942",
   "mfma,bf16,fp8-fnuz,int8,xf32",
   304, 2.1,
   163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9,
   192.0, 5300.0, 64, 32768, 262144, {32, 32, 8}, 64,
   "AMD Instinct MI300X (CDNA 3)"},
  {"rx7900xtx", TargetKind::AMDGPU, "gfx1100",
   "wmma,bf16,int8",
   96, 2.5,
   61.4, 0.0, 122.8, 122.8, 0.0, 122.8,
   24.0, 960.0, 64, 6144, 98304, {16, 16, 16}, 32,
   "AMD Radeon RX 7900 XTX (RDNA 3), wave32"},
  // Clock derived: 459 TFLOP/s / (8 MXUs x 128 x 128 x 2). Google lists FP8
  // at the BF16 rate (no speed-up).
  {"tpu-v5p", TargetKind::Systolic, "tpu-v5p",
   "bf16,int8",
   8, 1.75,
   0.0, 0.0, 0.0, 459.0, 459.0, 918.0,
   95.0, 2765.0, 0, 0, 0, {128, 128, 1}, 0,
   "Google Cloud TPU v5p chip: 2 TensorCores x 4 MXUs of 128x128"},
  // Clock derived: 1835 TFLOP/s / (8 MMEs x 256 x 256 x 2). f32 derived as
  // half the TPC BF16 vector rate (28.7); Intel publishes no MME FP32 or FP16
  // matrix rate, so f16 is 0 here.
  {"gaudi3", TargetKind::Model, "hl-325",
   "mme,tpc,bf16,fp8",
   8, 1.75,
   14.3, 0.0, 0.0, 1835.0, 1835.0, 0.0,
   128.0, 3670.0, 0, 0, 98304, {256, 256, 1}, 0,
   "Intel Gaudi 3 (8 MMEs, 64 TPCs, 96 MB SRAM)"},
  // 125 PFLOP/s is Cerebras' "peak AI" figure (dense/sparse not stated); the
  // clock is not published. SRAM: 44 GB (decimal) = 42,968,750 KiB;
  // memory_gbps is the on-wafer SRAM bandwidth.
  {"wse-3", TargetKind::Model, "wse-3",
   "sram-only,f16",
   900000, 1.1,
   0.0, 0.0, 125000.0, 125000.0, 0.0, 0.0,
   0.0, 21000000.0, 48, 0, 42968750, {1, 8, 1}, 0,
   "Cerebras WSE-3 wafer-scale engine (44 GB on-wafer SRAM; not an FPGA)"},
  // SRAM: 230 MB = 220 MiB; memory_gbps is the on-die SRAM bandwidth.
  {"groq-lpu", TargetKind::Model, "lpu-v1",
   "sram-only,f16,int8",
   1, 0.9,
   0.0, 0.0, 188.0, 0.0, 0.0, 750.0,
   0.0, 80000.0, 0, 0, 225280, {320, 320, 1}, 0,
   "Groq LPU (GroqChip): 230 MB SRAM, no off-chip memory"},
  // Peaks derived: 76 cores x 128 FP32 ALUs x 2 x ~1.4 GHz (Apple gives no
  // GPU clock); f16/bf16 assumed at the FP32 rate. The system-level cache
  // size is not published.
  {"apple-m2-ultra", TargetKind::Model, "apple-m2-ultra-gpu",
   "unified-memory,f16,bf16",
   76, 1.4,
   27.2, 0.0, 27.2, 27.2, 0.0, 0.0,
   192.0, 800.0, 32, 0, 0, {8, 8, 8}, 0,
   "Apple M2 Ultra GPU (76 cores), M-series Ultra class"},
  // Model parameters: 16x16 PEs x 2 x 1 GHz; 16 GB/s = a 128-bit bus at 1 GHz.
  {"systolic-16x16", TargetKind::Systolic, "gemmini-16x16",
   "int8,bf16,f32,ws,os",
   1, 1.0,
   0.512, 0.0, 0.0, 0.512, 0.0, 0.512,
   4.0, 16.0, 256, 64, 0, {16, 16, 1}, 0,
   "the parameterised systolic array, Gemmini's default 16x16 shape"},
};
// clang-format on

ArrayRef<TargetSpec> mlir::accel::getTargetCatalogue() { return kCatalogue; }

const TargetSpec *mlir::accel::findTargetSpec(StringRef name) {
  for (const TargetSpec &spec : kCatalogue)
    if (name == spec.name)
      return &spec;
  return nullptr;
}

TargetAttr
mlir::accel::getTargetAttr(MLIRContext *ctx, const TargetSpec &spec,
                           function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<StringAttr> features;
  SmallVector<StringRef> parts;
  StringRef(spec.features).split(parts, ',', /*MaxSplit=*/-1,
                                 /*KeepEmpty=*/false);
  for (StringRef f : parts)
    features.push_back(StringAttr::get(ctx, f.trim()));
  auto f64 = [](double v) { return APFloat(v); };
  ctx->getOrLoadDialect<AccelDialect>();
  if (emitError)
    return TargetAttr::getChecked(
        emitError, ctx, StringRef(spec.name), spec.kind, StringRef(spec.chip),
        ArrayRef<StringAttr>(features),
        spec.computeUnits, f64(spec.clockGhz), f64(spec.peakF32),
        f64(spec.peakTf32), f64(spec.peakF16), f64(spec.peakBf16),
        f64(spec.peakF8), f64(spec.peakI8), f64(spec.memoryGib),
        f64(spec.memoryGbps), spec.localMemoryKib, spec.l2Kib, spec.llcKib,
        ArrayRef<int64_t>(spec.matrixUnit), spec.warpSize);
  return TargetAttr::get(
      ctx, StringRef(spec.name), spec.kind, StringRef(spec.chip),
      ArrayRef<StringAttr>(features), spec.computeUnits,
      f64(spec.clockGhz), f64(spec.peakF32), f64(spec.peakTf32),
      f64(spec.peakF16), f64(spec.peakBf16), f64(spec.peakF8),
      f64(spec.peakI8), f64(spec.memoryGib), f64(spec.memoryGbps),
      spec.localMemoryKib, spec.l2Kib, spec.llcKib,
      ArrayRef<int64_t>(spec.matrixUnit), spec.warpSize);
}

const TargetSpec *mlir::accel::findTargetSpecForChip(StringRef chip) {
  if (chip.empty())
    return nullptr;
  for (const TargetSpec &spec : kCatalogue)
    if (chip == spec.chip)
      return &spec;
  // A portable chip is its arch-specific sibling's silicon (sm_90 of the
  // sm_90a parts): the figures are the same.
  std::string specific = (chip + "a").str();
  for (const TargetSpec &spec : kCatalogue)
    if (specific == spec.chip)
      return &spec;
  return nullptr;
}

TargetAttr mlir::accel::lookupTarget(MLIRContext *ctx, StringRef name) {
  const TargetSpec *spec = findTargetSpec(name);
  if (!spec)
    return {};
  return getTargetAttr(ctx, *spec);
}

FailureOr<TargetAttr> accel::resolveTarget(ModuleOp module, StringRef name,
                                           StringRef pass, StringRef fallback) {
  MLIRContext *ctx = module.getContext();
  if (!name.empty()) {
    if (TargetAttr target = lookupTarget(ctx, name))
      return target;
    mlir::emitError(module.getLoc())
        << pass << ": unknown target '" << name << "'";
    return failure();
  }
  if (auto attr = module->getAttrOfType<TargetAttr>(kTargetAttrName))
    return attr;
  return fallback.empty() ? TargetAttr() : lookupTarget(ctx, fallback);
}
