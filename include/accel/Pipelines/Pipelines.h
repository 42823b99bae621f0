//===- Pipelines.h - accel pass pipelines -----------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Pipelines are ordinary functions so that accel-opt, accel-run and the AOT
// compiler build exactly the same pass list.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_PIPELINES_PIPELINES_H
#define ACCEL_PIPELINES_PIPELINES_H

#include "accel/Runtime/KernelMetadata.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringMap.h"
#include <vector>

namespace mlir {
class ModuleOp;
class OpPassManager;
namespace accel {

struct AccelCpuPipelineOptions
    : public PassPipelineOptions<AccelCpuPipelineOptions> {
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Split the work for this many threads and run parallel "
                     "loops on them: OpenMP's, or with parallel-for-calls "
                     "the library's (1: sequential code, no runtime needed)"),
      llvm::cl::init(1)};
  PassOptions::Option<std::string> tuningCache{
      *this, "tuning-cache",
      llvm::cl::desc("A tuning cache for accel-cpu-configure (accel-bench "
                     "--mode=tune writes one; docs/configure.md)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> parallelForCalls{
      *this, "parallel-for-calls",
      llvm::cl::desc(
          "With threads > 1: parallel loops call accel_parallel_for "
          "(accel-cpu-outline-parallel; an AOT library's C wrapper defines "
          "it) instead of becoming OpenMP regions"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile contractions for caches and registers and "
                     "vectorize them (accel-cpu-vectorize-contractions)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> decomposeAttention{
      *this, "decompose-attention",
      llvm::cl::desc("Lower attention as FlashAttention-2 over key/value "
                     "tiles (accel-decompose-attention); 0 keeps the "
                     "reference lowering"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> attentionTileQ{
      *this, "attention-tile-q",
      llvm::cl::desc("Query rows per tile of the decomposed attention (0: "
                     "the configuration stage's choice, accel-cpu-configure)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionTileKV{
      *this, "attention-tile-kv",
      llvm::cl::desc("Keys per tile of the decomposed attention (0: the "
                     "configuration stage's choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> pagedPages{
      *this, "paged-pages",
      llvm::cl::desc("Pages per step of a paged attention's flash-decoding "
                     "(0: the configuration stage's choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> pagedSplits{
      *this, "paged-splits",
      llvm::cl::desc("Splits of a paged attention's keys (flash-decoding; "
                     "0: the configuration stage's choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> pagedHeads{
      *this, "paged-heads",
      llvm::cl::desc("KV heads a paged attention task runs over the same "
                     "pages (0: the configuration stage's choice)"),
      llvm::cl::init(0)};
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc("Cache tile [Mc, Nc, Kc] for cpu-fma contractions "
                     "(empty: the configuration stage's choice)")};
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc("Register tile [mr, nr, kr] for cpu-fma contractions "
                     "(empty: the configuration stage's choice)")};
  PassOptions::Option<bool> packRhs{
      *this, "pack-rhs",
      llvm::cl::desc("Copy each cache block of B into panels of nr columns "
                     "before the M tiles that use it (GotoBLAS packing)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Fuse a matmul's elementwise consumers (bias, "
                     "activation, residual) into one in-place epilogue "
                     "applied to the C register tiles before their store "
                     "(accel-fuse-epilogues), and an attention's into the "
                     "write of each output tile (accel-decompose-attention)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseExpensiveEpilogues{
      *this, "fuse-expensive-epilogues",
      llvm::cl::desc("Apply epilogues with math functions or divisions "
                     "(GELU, SiLU) to the C register tiles too (by default "
                     "they stay a separate vectorized pass)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> prefetchC{
      *this, "prefetch-c",
      llvm::cl::desc("Prefetch the next register tile's C lines before each "
                     "tile's K loop"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> resultsInPlace{
      *this, "results-in-place",
      llvm::cl::desc("Results a function allocates become arguments the "
                     "caller's buffers are passed in "
                     "(accel-cpu-results-in-place; accel-compile sets it)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> parallelElementwise{
      *this, "parallel-elementwise",
      llvm::cl::desc("With threads > 1: elementwise and row ops (norms, "
                     "activations, copies) of 64 K elements and more outside "
                     "any parallel loop run their rows on the threads "
                     "(accel-cpu-vectorize-elementwise threads; 0: one "
                     "thread runs them)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> prefetchB{
      *this, "prefetch-b",
      llvm::cl::desc("In cpu-fma's register tiles, prefetch B's rows a few K "
                     "steps ahead when a tile reads more of B than L1 keeps"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("CPU features the code may use, comma separated (e.g. "
                     "avx512bf16 for the vdpbf16ps kernels of "
                     "accel-cpu-dot-kernels); empty: the module's "
                     "accel.target, or the host's when JIT-compiled")};
  PassOptions::Option<std::string> bf16Subnormals{
      *this, "bf16-subnormals",
      llvm::cl::desc(
          "flush: bf16 contractions may use vdpbf16ps (AVX512-BF16), "
          "which treats subnormal inputs and results as zero, as "
          "oneDNN does; keep: they run as widened f32 FMAs and "
          "keep subnormals"),
      llvm::cl::init("flush")};
  PassOptions::Option<bool> guardAllocations{
      *this, "guard-allocations",
      llvm::cl::desc(
          "Check the byte size of each dynamically sized allocation at run "
          "time (accel-cpu-guard-allocations: a call of "
          "accel_allocation_failed, which must not return) and allocate "
          "through _mlir_memref_to_llvm_alloc and _mlir_memref_to_llvm_free, "
          "which the code's caller defines; accel-compile does both, so a "
          "failed allocation returns ACCEL_ERR_ALLOC"),
      llvm::cl::init(false)};
  PassOptions::Option<uint64_t> maxAllocationBytes{
      *this, "max-allocation-bytes",
      llvm::cl::desc("With guard-allocations: the most bytes a dynamically "
                     "sized allocation may take (2^63 or more: no limit but "
                     "int64)"),
      llvm::cl::init(~uint64_t(0))};
};

/// accel (tensors) -> linalg -> bufferized memrefs -> loops -> LLVM dialect
/// for the host. Functions keep their names and results; an op whose `outs`
/// is a function argument writes into that argument's buffer, and the
/// returned memref aliases it.
void buildAccelCpuPipeline(OpPassManager &pm,
                           const AccelCpuPipelineOptions &options);
/// The CPU pipeline's first stages, up to and including the configuration
/// stage: the accel ops as they will be lowered, each with the
/// lowering_config (kernel and tiles) the pipeline gives it. What accel-run
/// --roofline prices with a calibrated time model.
void buildAccelCpuConfigurePipeline(OpPassManager &pm,
                                    const AccelCpuPipelineOptions &options);

/// The machine and schedule of accel-systolic-pipeline; each option is the
/// convert-accel-to-systolic option of the same name.
struct AccelSystolicPipelineOptions
    : public PassPipelineOptions<AccelSystolicPipelineOptions> {
  PassOptions::Option<int64_t> rows{*this, "rows",
                                    llvm::cl::desc("Processing-element rows"),
                                    llvm::cl::init(16)};
  PassOptions::Option<int64_t> cols{
      *this, "cols", llvm::cl::desc("Processing-element columns"),
      llvm::cl::init(16)};
  PassOptions::Option<int64_t> spadKib{*this, "spad-kib",
                                       llvm::cl::desc("Scratchpad size in KiB"),
                                       llvm::cl::init(256)};
  PassOptions::Option<int64_t> accKib{
      *this, "acc-kib", llvm::cl::desc("Accumulator SRAM size in KiB"),
      llvm::cl::init(64)};
  PassOptions::Option<int64_t> spadBanks{*this, "spad-banks",
                                         llvm::cl::desc("Scratchpad banks"),
                                         llvm::cl::init(4)};
  PassOptions::Option<int64_t> accBanks{*this, "acc-banks",
                                        llvm::cl::desc("Accumulator banks"),
                                        llvm::cl::init(2)};
  PassOptions::Option<double> dramBytesPerCycle{
      *this, "dram-bytes-per-cycle",
      llvm::cl::desc("DMA bandwidth (bytes per cycle)"), llvm::cl::init(16.0)};
  PassOptions::Option<int64_t> dramLatency{
      *this, "dram-latency", llvm::cl::desc("DMA latency (cycles)"),
      llvm::cl::init(100)};
  PassOptions::Option<int64_t> vectorLanes{
      *this, "vector-lanes", llvm::cl::desc("f32 lanes of the vector unit"),
      llvm::cl::init(16)};
  PassOptions::Option<std::string> dataflow{
      *this, "dataflow",
      llvm::cl::desc("Matmul dataflow: auto (the cost model's), ws, os, is"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> tileM{
      *this, "tile-m", llvm::cl::desc("Rows of A per block (0: model)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileN{
      *this, "tile-n", llvm::cl::desc("Columns of B per block (0: model)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileK{
      *this, "tile-k", llvm::cl::desc("Depth per block (0: model)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionTileQ{
      *this, "attention-tile-q",
      llvm::cl::desc("Query rows per attention block (0: as many as fit)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionTileKV{
      *this, "attention-tile-kv",
      llvm::cl::desc("Keys per attention block (0: 4 array widths)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Fuse a matmul's elementwise consumers into one "
                     "generic (accel-fuse-epilogues) and apply it to each "
                     "block of C in the accumulator (false: each generic a "
                     "kernel of the vector unit after the matmul)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> cBuffers{
      *this, "c-buffers",
      llvm::cl::desc("Buffers of a matmul's C blocks in the accumulator, 1 "
                     "or 2 (0: the cost model's choice)"),
      llvm::cl::init(0)};
};

/// accel ops (and the linalg chains accel-raise and accel-fuse-attention
/// recognise) -> systolic.program per function (convert-accel-to-systolic).
void buildAccelSystolicPipeline(OpPassManager &pm,
                                const AccelSystolicPipelineOptions &options);

/// accel-nvptx-pipeline's options: the chip and convert-accel-to-gpu's
/// block shape.
struct AccelNvptxPipelineOptions
    : public PassPipelineOptions<AccelNvptxPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("sm_80, sm_86, sm_89, sm_90 or sm_90a"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> mma{
      *this, "mma",
      llvm::cl::desc("GEMM matrix instruction: mma.sync, wgmma (sm_90a) or "
                     "auto (wgmma where it applies); empty: mma.sync"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> tileM{
      *this, "tile-m", llvm::cl::desc("Rows of C per block (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileN{
      *this, "tile-n", llvm::cl::desc("Columns of C per block (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileK{
      *this, "tile-k", llvm::cl::desc("Depth per shared slice (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warps{
      *this, "warps", llvm::cl::desc("Warps per block (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> stages{
      *this, "stages", llvm::cl::desc("Copy-ring stages (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Fuse a matmul's elementwise consumers (bias, "
                     "activation, residual, a cast) into one epilogue the "
                     "GEMM kernel applies to C in registers before the "
                     "store (accel-fuse-epilogues)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> allowTf32{
      *this, "allow-tf32",
      llvm::cl::desc("PyTorch's allow_tf32: f32 matmuls and attention take "
                     "their inputs rounded to TF32 (accel-lower-precision "
                     "compute=tf32 on the ops without an accel.precision), "
                     "and the matmuls and attention run on the chip's "
                     "TF32 matrix instruction where it has one"),
      llvm::cl::init(false)};
};

/// accel-amdgpu-pipeline's options: the chip, convert-accel-to-gpu's block
/// shape and what gpu-module-to-binary makes.
struct AccelAmdgpuPipelineOptions
    : public PassPipelineOptions<AccelAmdgpuPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("gfx90a, gfx942 or gfx1100"),
      llvm::cl::init("gfx942")};
  PassOptions::Option<std::string> mma{
      *this, "mma",
      llvm::cl::desc("GEMM matrix instruction: mfma (CDNA) or wmma (RDNA3); "
                     "empty: the chip's"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> tileM{
      *this, "tile-m", llvm::cl::desc("Rows of C per block (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileN{
      *this, "tile-n", llvm::cl::desc("Columns of C per block (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> tileK{
      *this, "tile-k", llvm::cl::desc("Depth per LDS slice (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warps{
      *this, "warps", llvm::cl::desc("Waves per workgroup (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Fuse a matmul's elementwise consumers (bias, "
                     "activation, residual, a cast) into one epilogue the "
                     "GEMM kernel applies to C in registers before the "
                     "store (accel-fuse-epilogues)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> allowTf32{
      *this, "allow-tf32",
      llvm::cl::desc("PyTorch's allow_tf32: f32 matmuls and attention take "
                     "their inputs rounded to TF32 (accel-lower-precision "
                     "compute=tf32 on the ops without an accel.precision), "
                     "and the matmuls and attention run on the chip's "
                     "TF32 matrix instruction where it has one"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (AMDGCN assembly) or bin (a HSACO code object, "
                     "which needs `toolkit`)"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("A ROCm-like folder with llvm/bin/ld.lld (and "
                     "amdgcn/bitcode when a device library is needed); the "
                     "build makes one: build/rocm-toolkit"),
      llvm::cl::init("")};
};

/// Whether `chip` is one of the AMD chips (gfx...) rather than NVIDIA's.
inline bool isAmdgpuChip(llvm::StringRef chip) {
  return chip.starts_with("gfx");
}

/// accel ops -> gpu.module kernels (convert-accel-to-gpu), each gpu.func
/// carrying its `accel.launch` attribute.
void buildAccelToGpuKernelsPipeline(OpPassManager &pm,
                                    const AccelNvptxPipelineOptions &options);

/// The same for an AMD chip.
void buildAccelToGpuKernelsPipeline(OpPassManager &pm,
                                    const AccelAmdgpuPipelineOptions &options);

/// gpu.module kernels -> gpu.binary holding PTX for `chip` (64-bit
/// indices, bare-pointer kernel arguments).
void buildGpuToPtxPipeline(OpPassManager &pm, llvm::StringRef chip);

/// gpu.module kernels -> gpu.binary holding AMDGCN assembly (`format` isa)
/// or a HSACO code object (bin, linked by `toolkit`/llvm/bin/ld.lld) for
/// `chip`: amdgpu and gpu ops to ROCDL with 64-bit indices and bare
/// pointers, wave64 on CDNA and wave32 on RDNA.
void buildGpuToHsacoPipeline(OpPassManager &pm, llvm::StringRef chip,
                             llvm::StringRef format, llvm::StringRef toolkit);

/// accel ops to AMDGCN / HSACO (`accel-amdgpu-pipeline`).
void buildAccelAmdgpuPipeline(OpPassManager &pm,
                              const AccelAmdgpuPipelineOptions &options);

/// One kernel that buildAccelToGpuKernelsPipeline made: the gpu.module it
/// lives in and its launch metadata (from its `accel.launch` attribute and
/// its argument types).
struct GpuKernel {
  std::string module;
  /// The function it came from (the gpu.module is `<function>_kernels`).
  std::string function;
  KernelMetadata metadata;
};
std::vector<GpuKernel> collectGpuKernels(ModuleOp module, llvm::StringRef chip);

/// A collective between a sharded function's kernels: a `shard.all_reduce`
/// that convert-accel-to-gpu left for the host (its `accel.collectives`
/// attribute on the function's gpu.module), which the GPU host library runs
/// as an NCCL (RCCL) call on the caller's stream (docs/distributed.md,
/// "NCCL and RCCL").
struct GpuCollective {
  /// The function it belongs to, and how many of its kernels run before it.
  std::string function;
  size_t position = 0;
  /// "all_reduce"; its reduction: sum, max, min, product or average.
  std::string kind, reduction;
  /// The buffers it reads and writes (argN, resultN, tmpN).
  std::string input, output;
  std::string dtype;
  int64_t count = 0, byteSize = 0;
  /// The grid's shape and the axes it reduces over.
  std::vector<int64_t> grid, gridAxes;
};
std::vector<GpuCollective> collectGpuCollectives(ModuleOp module);

/// The PTX of every gpu.binary after buildGpuToPtxPipeline, by name.
llvm::StringMap<std::string> collectPtx(ModuleOp module);

/// Both: accel ops to PTX (`accel-nvptx-pipeline`).
void buildAccelNvptxPipeline(OpPassManager &pm,
                             const AccelNvptxPipelineOptions &options);

/// Registers `accel-cpu-pipeline`, `accel-systolic-pipeline`,
/// `accel-nvptx-pipeline` and `accel-amdgpu-pipeline` for accel-opt and
/// friends.
void registerAccelPipelines();

} // namespace accel
} // namespace mlir

#endif // ACCEL_PIPELINES_PIPELINES_H
