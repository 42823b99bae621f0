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
// Named fields (TargetSpec in Catalogue.h: peaks in TFLOP/s or TOPS, dense;
// memory in GiB and GB/s; caches in KiB; matrix unit [m, n, k]). Designated
// initializers are C++20; clang and GCC take them in C++17 as an extension.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++20-designator"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
static const TargetSpec kCatalogue[] = {
  // Measured on the project's VM: 1-thread FMA/BF16/VNNI probes at ~3.45 GHz,
  // 1-thread STREAM triad 35-37 GB/s, 24 GiB RAM; LLC = one Zen 5 CCD.
  {.name = "x86-64-avx512", .kind = TargetKind::CPU, .chip = "znver5",
   .features = "avx512f,avx512bw,avx512vl,avx512bf16,avx512vnni,fma",
   .computeUnits = 1, .clockGhz = 3.45,
   .peakF32 = 0.222, .peakTf32 = 0.0, .peakF16 = 0.0, .peakBf16 = 0.445,
   .peakF8 = 0.0, .peakI8 = 0.889,
   .memoryGib = 24.0, .memoryGbps = 36.0,
   .localMemoryKib = 48, .l2Kib = 1024, .llcKib = 32768,
   .matrixUnit = {1, 16, 1}, .warpSize = 0,
   .description = "one AMD Zen 5 core with AVX-512 BF16/VNNI (the project's machine)",
   .linkName = "shared memory between the processes (cores) of one 64-core socket, at the core's bandwidth; 400 Gb/s NIC beyond",
   .linkGBps = 36.0, .scaleOutGBps = 50.0, .linkLatencyUs = 1.0,
   .scaleUpDevices = 64},
  // Measured on one core of a KVM guest on a Sapphire Rapids Xeon (CPUID
  // family 6 reports model 167 in the guest): 1-thread f32 FMA probe 239
  // GFLOP/s, AMX tdpbf16ps 3.26-3.41 TFLOP/s and tdpbssd 6.4-6.8 TOPS with
  // four C tiles in registers (1024 bf16 flops a cycle: ~3.3 GHz; accel-bench
  // --mode=precision's probe since b6d355e read 3.69 / 7.48), 1-thread
  // STREAM triad 15 GB/s; L1D 48 KiB, L2 2 MiB (lscpu); LLC per core 1.875
  // MiB (Intel: Xeon Scalable 4th generation), docs/targets.md.
  {.name = "x86-64-sapphirerapids", .kind = TargetKind::CPU,
   .chip = "sapphirerapids",
   .features = "avx512f,avx512bw,avx512vl,avx512bf16,avx512fp16,avx512vnni,"
               "amx-tile,amx-bf16,amx-int8,fma",
   .computeUnits = 1, .clockGhz = 3.3,
   .peakF32 = 0.239, .peakTf32 = 0.0, .peakF16 = 0.0, .peakBf16 = 3.4,
   .peakF8 = 0.0, .peakI8 = 6.8,
   .memoryGib = 0.0, .memoryGbps = 15.0,
   .localMemoryKib = 48, .l2Kib = 2048, .llcKib = 1920,
   .matrixUnit = {16, 16, 32}, .warpSize = 0,
   .description = "one Intel Sapphire Rapids core with AMX (bf16, int8) and AVX-512",
   .linkName = "shared memory between the processes (cores) of one socket; 400 Gb/s NIC beyond",
   .linkGBps = 15.0, .scaleOutGBps = 50.0, .linkLatencyUs = 1.0,
   .scaleUpDevices = 56},
  // Derived: 2 FMA x 8 lanes x 2 x 3.0 GHz; int8 = VPMADDUBSW issue rate.
  // Clock and bandwidth are nominal class figures, not one SKU's.
  {.name = "x86-64-avx2", .kind = TargetKind::CPU, .chip = "haswell",
   .features = "avx2,fma,f16c",
   .computeUnits = 1, .clockGhz = 3.0,
   .peakF32 = 0.096, .peakTf32 = 0.0, .peakF16 = 0.0, .peakBf16 = 0.0,
   .peakF8 = 0.0, .peakI8 = 0.192,
   .memoryGib = 0.0, .memoryGbps = 20.0,
   .localMemoryKib = 32, .l2Kib = 256, .llcKib = 8192,
   .matrixUnit = {1, 8, 1}, .warpSize = 0,
   .description = "one Haswell-class x86-64 core with AVX2 and FMA (the AVX2 fallback)",
   .linkName = "shared memory between the processes (cores) of one 16-core socket; 200 Gb/s NIC beyond",
   .linkGBps = 20.0, .scaleOutGBps = 25.0, .linkLatencyUs = 1.0,
   .scaleUpDevices = 16},
  // Derived: 4 x 128-bit pipes (FMLA, BFMMLA, SMMLA each 4/cycle) x 3.1 GHz
  // (Grace base clock); caches are Grace's (1 MiB L2, 117 MiB L3 per chip).
  // The 30 GB/s per-core bandwidth is an estimate, not a vendor figure.
  {.name = "aarch64-neoverse-v2", .kind = TargetKind::CPU, .chip = "neoverse-v2",
   .features = "neon,sve,sve2,bf16,i8mm,fullfp16",
   .computeUnits = 1, .clockGhz = 3.1,
   .peakF32 = 0.099, .peakTf32 = 0.0, .peakF16 = 0.198, .peakBf16 = 0.397,
   .peakF8 = 0.0, .peakI8 = 0.794,
   .memoryGib = 0.0, .memoryGbps = 30.0,
   .localMemoryKib = 64, .l2Kib = 1024, .llcKib = 119808,
   .matrixUnit = {1, 4, 1}, .warpSize = 0,
   .description = "one Arm Neoverse V2 core as in NVIDIA Grace (Graviton4: 2.8 GHz, 2 MiB L2)",
   .linkName = "shared memory between the processes (cores) of one 72-core Grace; 400 Gb/s NIC beyond",
   .linkGBps = 30.0, .scaleOutGBps = 50.0, .linkLatencyUs = 1.0,
   .scaleUpDevices = 72},
  {.name = "a100", .kind = TargetKind::NVPTX, .chip = "sm_80",
   .features = "mma.sync,cp.async,bf16,tf32,int8",
   .computeUnits = 108, .clockGhz = 1.41,
   .peakF32 = 19.5, .peakTf32 = 156.0, .peakF16 = 312.0, .peakBf16 = 312.0,
   .peakF8 = 0.0, .peakI8 = 624.0,
   .memoryGib = 80.0, .memoryGbps = 2039.0,
   .localMemoryKib = 164, .l2Kib = 40960, .llcKib = 0,
   .matrixUnit = {16, 8, 16}, .warpSize = 32,
   .description = "NVIDIA A100 SXM4 80GB (Ampere)",
   .linkName = "NVLink 3 (600 GB/s per GPU, both directions), HGX 8; 200 Gb/s HDR IB",
   .linkGBps = 300.0, .scaleOutGBps = 25.0, .linkLatencyUs = 3.0,
   .scaleUpDevices = 8},
  // The GPUs of sm_86 and sm_89: an Ampere data-centre part with sm_80's
  // mma.sync and 100 KiB of shared memory per SM, and an Ada part with
  // fp8 mma.sync. Ada's tensor peaks with f32 accumulation (the kernels'
  // accumulator) are half the f16-accumulation ones.
  {.name = "a40", .kind = TargetKind::NVPTX, .chip = "sm_86",
   .features = "mma.sync,cp.async,bf16,tf32,int8",
   .computeUnits = 84, .clockGhz = 1.74,
   .peakF32 = 37.4, .peakTf32 = 74.8, .peakF16 = 149.7, .peakBf16 = 149.7,
   .peakF8 = 0.0, .peakI8 = 299.3,
   .memoryGib = 48.0, .memoryGbps = 696.0,
   .localMemoryKib = 100, .l2Kib = 6144, .llcKib = 0,
   .matrixUnit = {16, 8, 16}, .warpSize = 32,
   .description = "NVIDIA A40 (Ampere GA102), 48 GB GDDR6",
   .linkName = "NVLink bridge (pairs, 112.5 GB/s both directions); 200 Gb/s NIC",
   .linkGBps = 56.25, .scaleOutGBps = 25.0, .linkLatencyUs = 3.0,
   .scaleUpDevices = 2},
  {.name = "rtx4090", .kind = TargetKind::NVPTX, .chip = "sm_89",
   .features = "mma.sync,cp.async,bf16,tf32,fp8,int8",
   .computeUnits = 128, .clockGhz = 2.52,
   .peakF32 = 82.6, .peakTf32 = 82.6, .peakF16 = 165.2, .peakBf16 = 165.2,
   .peakF8 = 330.3, .peakI8 = 660.6,
   .memoryGib = 24.0, .memoryGbps = 1008.0,
   .localMemoryKib = 100, .l2Kib = 73728, .llcKib = 0,
   .matrixUnit = {16, 8, 16}, .warpSize = 32,
   .description = "NVIDIA GeForce RTX 4090 (Ada AD102), 24 GB GDDR6X",
   .linkName = "PCIe 4.0 x16; 200 Gb/s NIC",
   .linkGBps = 32.0, .scaleOutGBps = 25.0, .linkLatencyUs = 5.0,
   .scaleUpDevices = 8},
  {.name = "h100", .kind = TargetKind::NVPTX, .chip = "sm_90a",
   .features = "mma.sync,cp.async,wgmma,tma,bf16,tf32,fp8,int8",
   .computeUnits = 132, .clockGhz = 1.83,
   .peakF32 = 67.0, .peakTf32 = 494.7, .peakF16 = 989.4, .peakBf16 = 989.4,
   .peakF8 = 1978.9, .peakI8 = 1978.9,
   .memoryGib = 80.0, .memoryGbps = 3352.0,
   .localMemoryKib = 228, .l2Kib = 51200, .llcKib = 0,
   .matrixUnit = {64, 256, 16}, .warpSize = 32,
   .description = "NVIDIA H100 SXM5 80GB (Hopper)",
   .linkName = "NVLink 4 (900 GB/s per GPU, both directions), HGX 8; 400 Gb/s NDR IB",
   .linkGBps = 450.0, .scaleOutGBps = 50.0, .linkLatencyUs = 3.0,
   .scaleUpDevices = 8},
  {.name = "h200", .kind = TargetKind::NVPTX, .chip = "sm_90a",
   .features = "mma.sync,cp.async,wgmma,tma,bf16,tf32,fp8,int8",
   .computeUnits = 132, .clockGhz = 1.83,
   .peakF32 = 67.0, .peakTf32 = 494.7, .peakF16 = 989.4, .peakBf16 = 989.4,
   .peakF8 = 1978.9, .peakI8 = 1978.9,
   .memoryGib = 141.0, .memoryGbps = 4800.0,
   .localMemoryKib = 228, .l2Kib = 51200, .llcKib = 0,
   .matrixUnit = {64, 256, 16}, .warpSize = 32,
   .description = "NVIDIA H200 SXM 141GB (Hopper with HBM3e)",
   .linkName = "NVLink 4 (900 GB/s per GPU, both directions), HGX 8; 400 Gb/s NDR IB",
   .linkGBps = 450.0, .scaleOutGBps = 50.0, .linkLatencyUs = 3.0,
   .scaleUpDevices = 8},
  // Clock derived from the tensor peaks (2250 TFLOP/s / (148 SMs x 8192));
  // L2 and SM count as reported by the CUDA driver on a B200.
  {.name = "b200", .kind = TargetKind::NVPTX, .chip = "sm_100a",
   .features = "mma.sync,cp.async,tma,tcgen05,bf16,tf32,fp8,fp4,int8",
   .computeUnits = 148, .clockGhz = 1.86,
   .peakF32 = 75.0, .peakTf32 = 1100.0, .peakF16 = 2250.0, .peakBf16 = 2250.0,
   .peakF8 = 4500.0, .peakI8 = 4500.0,
   .memoryGib = 180.0, .memoryGbps = 7700.0,
   .localMemoryKib = 228, .l2Kib = 129536, .llcKib = 0,
   .matrixUnit = {128, 256, 16}, .warpSize = 32,
   .description = "NVIDIA B200 (Blackwell), one GPU of an HGX B200",
   .linkName = "NVLink 5 (1.8 TB/s per GPU, both directions), HGX 8; 400 Gb/s NIC",
   .linkGBps = 900.0, .scaleOutGBps = 50.0, .linkLatencyUs = 3.0,
   .scaleUpDevices = 8},
  // One GCD: the device a process sees (the package holds two, 220 CUs and
  // 128 GB in all); the package's figures halved.
  {.name = "mi250x", .kind = TargetKind::AMDGPU, .chip = "gfx90a",
   .features = "mfma,bf16,int8",
   .computeUnits = 110, .clockGhz = 1.7,
   .peakF32 = 47.85, .peakTf32 = 0.0, .peakF16 = 191.5, .peakBf16 = 191.5,
   .peakF8 = 0.0, .peakI8 = 191.5,
   .memoryGib = 64.0, .memoryGbps = 1638.4,
   .localMemoryKib = 64, .l2Kib = 8192, .llcKib = 0,
   .matrixUnit = {32, 32, 8}, .warpSize = 64,
   .description = "AMD Instinct MI250X (CDNA 2), one GCD (one of the package's two dies)"},
  {.name = "mi300x", .kind = TargetKind::AMDGPU, .chip = "gfx942",
   .features = "mfma,bf16,fp8-fnuz,int8,xf32",
   .computeUnits = 304, .clockGhz = 2.1,
   .peakF32 = 163.4, .peakTf32 = 653.7, .peakF16 = 1307.4, .peakBf16 = 1307.4,
   .peakF8 = 2614.9, .peakI8 = 2614.9,
   .memoryGib = 192.0, .memoryGbps = 5300.0,
   .localMemoryKib = 64, .l2Kib = 32768, .llcKib = 262144,
   .matrixUnit = {32, 32, 8}, .warpSize = 64,
   .description = "AMD Instinct MI300X (CDNA 3)",
   .linkName = "Infinity Fabric (7 links, 896 GB/s per GPU both directions), 8 per node; 400 Gb/s NIC",
   .linkGBps = 448.0, .scaleOutGBps = 50.0, .linkLatencyUs = 3.0,
   .scaleUpDevices = 8},
  {.name = "rx7900xtx", .kind = TargetKind::AMDGPU, .chip = "gfx1100",
   .features = "wmma,bf16,int8",
   .computeUnits = 96, .clockGhz = 2.5,
   .peakF32 = 61.4, .peakTf32 = 0.0, .peakF16 = 122.8, .peakBf16 = 122.8,
   .peakF8 = 0.0, .peakI8 = 122.8,
   .memoryGib = 24.0, .memoryGbps = 960.0,
   .localMemoryKib = 64, .l2Kib = 6144, .llcKib = 98304,
   .matrixUnit = {16, 16, 16}, .warpSize = 32,
   .description = "AMD Radeon RX 7900 XTX (RDNA 3), wave32",
   .linkName = "PCIe 4.0 x16; 200 Gb/s NIC",
   .linkGBps = 32.0, .scaleOutGBps = 25.0, .linkLatencyUs = 5.0,
   .scaleUpDevices = 8},
  // Clock derived: 459 TFLOP/s / (8 MXUs x 128 x 128 x 2). Google lists FP8
  // at the BF16 rate (no speed-up).
  {.name = "tpu-v5p", .kind = TargetKind::Systolic, .chip = "tpu-v5p",
   .features = "bf16,int8",
   .computeUnits = 8, .clockGhz = 1.75,
   .peakF32 = 0.0, .peakTf32 = 0.0, .peakF16 = 0.0, .peakBf16 = 459.0,
   .peakF8 = 459.0, .peakI8 = 918.0,
   .memoryGib = 95.0, .memoryGbps = 2765.0,
   .localMemoryKib = 0, .l2Kib = 0, .llcKib = 0,
   .matrixUnit = {128, 128, 1}, .warpSize = 0,
   .description = "Google Cloud TPU v5p chip: 2 TensorCores x 4 MXUs of 128x128",
   .linkName = "ICI (4800 Gb/s per chip), 3D torus up to 8960 chips; DCN beyond",
   .linkGBps = 300.0, .scaleOutGBps = 25.0, .linkLatencyUs = 2.0,
   .scaleUpDevices = 8960},
  // Clock derived: 1835 TFLOP/s / (8 MMEs x 256 x 256 x 2). f32 derived as
  // half the TPC BF16 vector rate (28.7); Intel publishes no MME FP32 or FP16
  // matrix rate, so f16 is 0 here.
  {.name = "gaudi3", .kind = TargetKind::Model, .chip = "hl-325",
   .features = "mme,tpc,bf16,fp8",
   .computeUnits = 8, .clockGhz = 1.75,
   .peakF32 = 14.3, .peakTf32 = 0.0, .peakF16 = 0.0, .peakBf16 = 1835.0,
   .peakF8 = 1835.0, .peakI8 = 0.0,
   .memoryGib = 128.0, .memoryGbps = 3670.0,
   .localMemoryKib = 0, .l2Kib = 0, .llcKib = 98304,
   .matrixUnit = {256, 256, 1}, .warpSize = 0,
   .description = "Intel Gaudi 3 (8 MMEs, 64 TPCs, 96 MB SRAM)"},
  // 125 PFLOP/s is Cerebras' "peak AI" figure (dense/sparse not stated); the
  // clock is not published. SRAM: 44 GB (decimal) = 42,968,750 KiB;
  // memory_gbps is the on-wafer SRAM bandwidth.
  {.name = "wse-3", .kind = TargetKind::Model, .chip = "wse-3",
   .features = "sram-only,f16",
   .computeUnits = 900000, .clockGhz = 1.1,
   .peakF32 = 0.0, .peakTf32 = 0.0, .peakF16 = 125000.0, .peakBf16 = 125000.0,
   .peakF8 = 0.0, .peakI8 = 0.0,
   .memoryGib = 0.0, .memoryGbps = 21000000.0,
   .localMemoryKib = 48, .l2Kib = 0, .llcKib = 42968750,
   .matrixUnit = {1, 8, 1}, .warpSize = 0,
   .description = "Cerebras WSE-3 wafer-scale engine (44 GB on-wafer SRAM; not an FPGA)"},
  // SRAM: 230 MB = 220 MiB; memory_gbps is the on-die SRAM bandwidth.
  {.name = "groq-lpu", .kind = TargetKind::Model, .chip = "lpu-v1",
   .features = "sram-only,f16,int8",
   .computeUnits = 1, .clockGhz = 0.9,
   .peakF32 = 0.0, .peakTf32 = 0.0, .peakF16 = 188.0, .peakBf16 = 0.0,
   .peakF8 = 0.0, .peakI8 = 750.0,
   .memoryGib = 0.0, .memoryGbps = 80000.0,
   .localMemoryKib = 0, .l2Kib = 0, .llcKib = 225280,
   .matrixUnit = {320, 320, 1}, .warpSize = 0,
   .description = "Groq LPU (GroqChip): 230 MB SRAM, no off-chip memory"},
  // Peaks derived: 76 cores x 128 FP32 ALUs x 2 x ~1.4 GHz (Apple gives no
  // GPU clock); f16/bf16 assumed at the FP32 rate. The system-level cache
  // size is not published.
  {.name = "apple-m2-ultra", .kind = TargetKind::Model, .chip = "apple-m2-ultra-gpu",
   .features = "unified-memory,f16,bf16",
   .computeUnits = 76, .clockGhz = 1.4,
   .peakF32 = 27.2, .peakTf32 = 0.0, .peakF16 = 27.2, .peakBf16 = 27.2,
   .peakF8 = 0.0, .peakI8 = 0.0,
   .memoryGib = 192.0, .memoryGbps = 800.0,
   .localMemoryKib = 32, .l2Kib = 0, .llcKib = 0,
   .matrixUnit = {8, 8, 8}, .warpSize = 0,
   .description = "Apple M2 Ultra GPU (76 cores), M-series Ultra class"},
  // Model parameters: 16x16 PEs x 2 x 1 GHz; 16 GB/s = a 128-bit bus at 1 GHz.
  {.name = "systolic-16x16", .kind = TargetKind::Systolic, .chip = "gemmini-16x16",
   .features = "int8,bf16,f32,ws,os",
   .computeUnits = 1, .clockGhz = 1.0,
   .peakF32 = 0.512, .peakTf32 = 0.0, .peakF16 = 0.0, .peakBf16 = 0.512,
   .peakF8 = 0.0, .peakI8 = 0.512,
   .memoryGib = 4.0, .memoryGbps = 16.0,
   .localMemoryKib = 256, .l2Kib = 64, .llcKib = 0,
   .matrixUnit = {16, 16, 1}, .warpSize = 0,
   .description = "the parameterised systolic array, Gemmini's default 16x16 shape"},
};
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
// clang-format on

ArrayRef<TargetSpec> mlir::accel::getTargetCatalogue() { return kCatalogue; }

const TargetSpec *mlir::accel::cpuTargetForFeatures(StringRef features) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  auto has = [&](StringRef name) {
    return llvm::any_of(
        parts, [&](StringRef f) { return f.trim().ltrim('+') == name; });
  };
  if (has("amx-tile") && has("amx-bf16"))
    return findTargetSpec("x86-64-sapphirerapids");
  if (has("avx512f"))
    return findTargetSpec("x86-64-avx512");
  return findTargetSpec("x86-64-avx2");
}

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
