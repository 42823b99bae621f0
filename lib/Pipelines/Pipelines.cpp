//===- Pipelines.cpp - accel pass pipelines -------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Pipelines/Pipelines.h"
#include "accel/Conversion/Passes.h"
#include "accel/Target/GpuIsa.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void accel::buildAccelCpuConfigurePipeline(
    OpPassManager &pm, const AccelCpuPipelineOptions &options) {
  // Frontends' linalg/tosa matmuls enter as accel ops; unfused attention
  // chains become one accel.attention.
  pm.addPass(accel::createAccelRaisePass());
  pm.addPass(accel::createAccelFuseAttentionPass());
  // A module with a shard.grid: each annotated function becomes one
  // process's part, its collectives MPI calls (docs/distributed.md). The
  // stages below see the local shapes.
  pm.addPass(accel::createAccelShardPass());
  pm.addPass(accel::createAccelLowerShardToMpiPass());
  // A matmul's elementwise consumers (linalg or arith on tensors) become
  // one epilogue updating its result in place, which the contraction
  // kernels apply to C in registers.
  if (options.fuseEpilogues) {
    pm.addPass(createConvertElementwiseToLinalgPass());
    pm.addPass(accel::createAccelFuseEpiloguesPass());
  }
  // The configuration stage makes every kernel and tile choice; the passes
  // below read it.
  accel::AccelCpuConfigurePassOptions configure;
  configure.features = options.cpuFeatures;
  configure.cacheTile.assign(options.cacheTile.begin(),
                             options.cacheTile.end());
  configure.registerTile.assign(options.registerTile.begin(),
                                options.registerTile.end());
  configure.attentionTileQ = options.attentionTileQ;
  configure.attentionTileKV = options.attentionTileKV;
  configure.pagedPages = options.pagedPages;
  configure.pagedSplits = options.pagedSplits;
  configure.pagedHeads = options.pagedHeads;
  configure.bf16Subnormals = options.bf16Subnormals;
  configure.tuningCache = options.tuningCache;
  configure.threads = options.threads;
  pm.addPass(accel::createAccelCpuConfigurePass(configure));
}

void accel::buildAccelCpuPipeline(OpPassManager &pm,
                                  const AccelCpuPipelineOptions &options) {
  buildAccelCpuConfigurePipeline(pm, options);
  if (options.decomposeAttention) {
    // A paged attention's invalid block table or lengths: the wrapper of
    // an accel-compile'd library returns ACCEL_ERR_INDEX.
    accel::AccelDecomposeAttentionPassOptions decompose;
    decompose.fuseEpilogues = options.fuseEpilogues;
    if (options.guardAllocations)
      decompose.indexFailureCallee = "accel_index_out_of_range";
    pm.addPass(accel::createAccelDecomposeAttentionPass(decompose));
  }
  {
    accel::ConvertAccelToLinalgPassOptions toLinalg;
    if (options.guardAllocations)
      toLinalg.indexFailureCallee = "accel_index_out_of_range";
    pm.addPass(accel::createConvertAccelToLinalgPass(toLinalg));
  }
  // What is left on tensors elementwise (scales, masks) becomes linalg.
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Casts to and from fp8 (the precision lowering's) as integer arithmetic:
  // LLVM has no fp8 types on CPUs.
  pm.addPass(accel::createAccelExpandF8CastsPass());
  pm.addPass(createCanonicalizerPass());
  if (options.vectorize)
    pm.addPass(accel::createAccelCpuTransposeRhsPass());

  // Tensors to buffers; `outs` that are function arguments are written in
  // place (and still returned, so the signature keeps its results).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loops that carry freshly computed tensors (FlashAttention's running
  // max, sum and accumulator) yield new buffers.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());

  // bf16 and int8 contractions on AMX tiles (Intel CPUs with AMX), then
  // the rest on AVX512-BF16 / VNNI dot micro-kernels.
  if (options.vectorize) {
    accel::AccelCpuAmxKernelsPassOptions amx;
    amx.features = options.cpuFeatures;
    amx.threads = options.threads;
    amx.bf16Subnormals = options.bf16Subnormals;
    amx.fuseEpilogues = options.fuseEpilogues;
    pm.addNestedPass<func::FuncOp>(accel::createAccelCpuAmxKernelsPass(amx));
    accel::AccelCpuDotKernelsPassOptions dot;
    dot.features = options.cpuFeatures;
    dot.threads = options.threads;
    dot.prefetchC = options.prefetchC;
    dot.bf16Subnormals = options.bf16Subnormals;
    dot.fuseEpilogues = options.fuseEpilogues;
    dot.fuseExpensiveEpilogues = options.fuseExpensiveEpilogues;
    pm.addNestedPass<func::FuncOp>(accel::createAccelCpuDotKernelsPass(dot));
    // Weight-only quantised matmuls: weights dequantised in registers.
    accel::AccelCpuDequantKernelsPassOptions dequant;
    dequant.threads = options.threads;
    pm.addNestedPass<func::FuncOp>(
        accel::createAccelCpuDequantKernelsPass(dequant));
    // f32 with B as [N, K] and few rows of A: dot products along W's rows,
    // no transposed copy.
    accel::AccelCpuRowDotKernelsPassOptions rowDot;
    rowDot.threads = options.threads;
    rowDot.features = options.cpuFeatures;
    // cpu-fma tiles given as options: the configuration stage chose cpu-fma
    // for the configured contractions; the others keep it too.
    rowDot.configuredOnly =
        !options.cacheTile.empty() || !options.registerTile.empty();
    pm.addNestedPass<func::FuncOp>(
        accel::createAccelCpuRowDotKernelsPass(rowDot));
  }

  // Contractions: cache and register tiles, vectorized (other ops become
  // loops below).
  if (options.vectorize) {
    accel::AccelCpuVectorizeContractionsPassOptions tiles;
    tiles.cacheTile.assign(options.cacheTile.begin(), options.cacheTile.end());
    tiles.registerTile.assign(options.registerTile.begin(),
                              options.registerTile.end());
    tiles.features = options.cpuFeatures;
    tiles.threads = options.threads;
    tiles.packRhs = options.packRhs;
    tiles.prefetchC = options.prefetchC;
    tiles.prefetchB = options.prefetchB;
    tiles.fuseEpilogues = options.fuseEpilogues;
    tiles.fuseExpensiveEpilogues = options.fuseExpensiveEpilogues;
    pm.addNestedPass<func::FuncOp>(
        accel::createAccelCpuVectorizeContractionsPass(tiles));
    // B as [N, K] (a linear layer's weight) that a kernel above still reads
    // transposed (the cpu-fma kernel packs its panels from [N, K] where it
    // packs): blocks transposed in registers instead of loops reading a row
    // apart per element.
    accel::AccelCpuTransposeKernelsPassOptions transposeKernels;
    transposeKernels.threads = options.threads;
    pm.addNestedPass<func::FuncOp>(
        accel::createAccelCpuTransposeKernelsPass(transposeKernels));
    accel::AccelCpuVectorizeElementwisePassOptions elementwise;
    elementwise.threads = options.parallelElementwise ? options.threads : 1;
    pm.addNestedPass<func::FuncOp>(
        accel::createAccelCpuVectorizeElementwisePass(elementwise));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }

  // Temporaries (the reference lowering's logits, FlashAttention's per-tile
  // scratch) leave the loops that do not change their sizes and are freed
  // after their last use; returned out-arguments are not copied.
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // Each temporary freed after its last use, not at the function's end: a
  // whole program's peak is then not the sum of its temporaries.
  pm.addNestedPass<func::FuncOp>(accel::createAccelFreeEarlyPass());
  pm.addNestedPass<func::FuncOp>(accel::createAccelReturnArgumentsPass());
  if (options.resultsInPlace)
    pm.addPass(accel::createAccelCpuResultsInPlacePass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Strided copies (insert_slice, concat) as loops, not memrefCopy calls.
  pm.addPass(accel::createAccelCpuLowerCopiesPass());
  pm.addPass(accel::createAccelCpuLowerDotPass());
  // Every allocation exists by now; none is lowered yet.
  if (options.guardAllocations) {
    accel::AccelCpuGuardAllocationsPassOptions guard;
    guard.maxBytes = options.maxAllocationBytes;
    pm.addPass(accel::createAccelCpuGuardAllocationsPass(guard));
  }

  if (options.threads > 1) {
    pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    if (options.parallelForCalls) {
      pm.addPass(accel::createAccelCpuOutlineParallelPass());
    } else {
      // One level of OpenMP regions: nested loops run inside their task.
      pm.addPass(accel::createAccelCpuSerializeNestedParallelPass());
      ConvertSCFToOpenMPPassOptions omp;
      omp.numThreads = options.threads;
      pm.addPass(createConvertSCFToOpenMPPass(omp));
    }
  } else {
    pm.addNestedPass<func::FuncOp>(createForallToForLoopPass());
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  }
  // bf16 casts on the f32 bit pattern: LLVM's vcvtneps2bf16 (AVX512-BF16
  // hosts) flushes subnormal results to zero.
  pm.addPass(accel::createAccelExpandBf16CastsPass());
  // Down to LLVM. Memrefs are lowered while loops are still structured:
  // OpenMP's per-iteration memref.alloca_scope must keep a single block.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // n-D transfers (batch dims give vectors leading unit dims) are unrolled
  // rather than staged through stack temporaries, which would pile up in
  // loops and overflow OpenMP workers' stacks.
  VectorTransferToSCFOptions vectorToSCF;
  vectorToSCF.enableFullUnroll();
  pm.addPass(createConvertVectorToSCFPass(vectorToSCF));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  // What LLVM has no intrinsic for (erf, tanh left scalar) calls libm.
  pm.addPass(createConvertMathToLibmPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  // C += a_i (x) b_k: one broadcast and one FMA per row of the tile.
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.x86Vector = true;
  vectorToLLVM.amx = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.guardAllocations;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // A sharded module's communicator splits: once per process and site.
  pm.addPass(accel::createAccelCacheMpiCommsPass());
  pm.addPass(createCanonicalizerPass());
}

void accel::buildAccelSystolicPipeline(
    OpPassManager &pm, const AccelSystolicPipelineOptions &options) {
  pm.addPass(accel::createAccelRaisePass());
  pm.addPass(accel::createAccelFuseAttentionPass());
  pm.addPass(createCanonicalizerPass());
  // A matmul's elementwise consumers become one generic (in place on C
  // where it keeps C's type), which the conversion applies to C's blocks
  // in the accumulator; other chains of elementwise generics become one
  // kernel of the vector unit.
  if (options.fuseEpilogues) {
    pm.addPass(createConvertElementwiseToLinalgPass());
    pm.addPass(accel::createAccelFuseEpiloguesPass());
    pm.addPass(createLinalgElementwiseOpFusionPass());
  }
  // Both passes take the machine and the choice options (the conversion
  // uses the latter only for ops the configuration stage left without a
  // config: none it can schedule).
  auto fill = [&](auto &o) {
    o.rows = options.rows;
    o.cols = options.cols;
    o.spadKib = options.spadKib;
    o.accKib = options.accKib;
    o.spadBanks = options.spadBanks;
    o.accBanks = options.accBanks;
    o.dramBytesPerCycle = options.dramBytesPerCycle;
    o.dramLatency = options.dramLatency;
    o.vectorLanes = options.vectorLanes;
    o.dataflow = options.dataflow;
    o.tileM = options.tileM;
    o.tileN = options.tileN;
    o.tileK = options.tileK;
    o.attentionTileQ = options.attentionTileQ;
    o.attentionTileKV = options.attentionTileKV;
    o.fuseEpilogues = options.fuseEpilogues;
    o.cBuffers = options.cBuffers;
    return o;
  };
  accel::AccelSystolicConfigurePassOptions configure;
  pm.addPass(accel::createAccelSystolicConfigurePass(fill(configure)));
  accel::ConvertAccelToSystolicPassOptions convert;
  pm.addPass(accel::createConvertAccelToSystolicPass(fill(convert)));
}

/// accel-raise, attention and epilogue fusion, the configuration stage with the options both GPU
/// pipelines share (`stages` only NVIDIA's has; 0: chosen), then
/// convert-accel-to-gpu.
template <typename Options>
static void addGpuKernelPasses(OpPassManager &pm, const Options &options,
                               int64_t stages) {
  // As the CPU pipeline: named linalg ops to accel ops, and a frontend's
  // unfused attention chain (matmul, scale, mask, softmax, matmul) to
  // accel.attention.
  pm.addPass(accel::createAccelRaisePass());
  pm.addPass(accel::createAccelFuseAttentionPass());
  // allow-tf32: the f32 ops' inputs rounded to TF32 in the program (the
  // oracle of accel-run reads the same rounding) and the matmuls and
  // attention marked for the TF32 matrix instructions (docs/precision.md).
  if (options.allowTf32) {
    accel::AccelLowerPrecisionPassOptions tf32;
    tf32.compute = "tf32";
    pm.addPass(accel::createAccelLowerPrecisionPass(tf32));
  }
  // A module with a shard.grid: each annotated function becomes one
  // process's part (local shapes); its all-reduces stay between the kernels
  // and become NCCL (RCCL) calls of the host library (docs/distributed.md).
  pm.addPass(accel::createAccelShardPass());
  // A matmul's elementwise consumers become one generic, which the GEMM
  // kernel applies to C in registers (Epilogue.h of convert-accel-to-gpu).
  if (options.fuseEpilogues) {
    pm.addPass(createConvertElementwiseToLinalgPass());
    pm.addPass(accel::createAccelFuseEpiloguesPass());
    // Chains of elementwise generics with no matmul under them become one
    // elementwise kernel (upstream's producer-consumer fusion).
    pm.addPass(createLinalgElementwiseOpFusionPass());
  }
  // RoPE's slices, halves and concatenation: one elementwise generic;
  // transposes generics, fused with their neighbours where upstream's
  // elementwise fusion can (a head transpose with GQA's repeat of K and V).
  pm.addPass(accel::createAccelFuseSlicesPass());
  if (options.fuseEpilogues)
    pm.addPass(createLinalgElementwiseOpFusionPass());
  // A softmax of its own: the reductions a GPU row kernel computes.
  pm.addPass(accel::createAccelDecomposeSoftmaxPass());
  // The configuration stage makes every choice; the conversion reads it.
  accel::AccelGpuConfigurePassOptions o;
  o.chip = options.chip;
  o.mma = options.mma;
  o.tileM = options.tileM;
  o.tileN = options.tileN;
  o.tileK = options.tileK;
  o.warps = options.warps;
  o.stages = stages;
  pm.addPass(accel::createAccelGpuConfigurePass(o));
  accel::ConvertAccelToGPUPassOptions convert;
  convert.chip = options.chip;
  pm.addPass(accel::createConvertAccelToGPUPass(convert));
}

void accel::buildAccelToGpuKernelsPipeline(
    OpPassManager &pm, const AccelNvptxPipelineOptions &options) {
  addGpuKernelPasses(pm, options, options.stages);
}

void accel::buildAccelToGpuKernelsPipeline(
    OpPassManager &pm, const AccelAmdgpuPipelineOptions &options) {
  addGpuKernelPasses(pm, options, /*stages=*/0);
}

void accel::buildGpuToHsacoPipeline(OpPassManager &pm, StringRef chip,
                                    StringRef format, StringRef toolkit) {
  // As for PTX: 64-bit indices keep all global address arithmetic in 64
  // bits; bare pointers make a kernel's arguments one pointer per buffer.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Epilogues' math without OCML (no device library); fp8 outputs' casts
  // as integer arithmetic (LLVM's AMDGPU back end has no fp8 types).
  kernels.addPass(accel::createAccelGpuApproximateMathPass());
  kernels.addPass(accel::createAccelExpandF8CastsPass());
  ConvertAMDGPUToROCDLPassOptions amdgpu;
  amdgpu.chipset = chip.str();
  kernels.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = chip.str();
  rocdl.indexBitwidth = 64;
  rocdl.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuROCDLAttachTargetOptions target;
  target.chip = chip.str();
  target.optLevel = 3;
  // RDNA runs wave32, CDNA wave64 (the only size it has): GpuIsa.h.
  std::optional<GpuIsa> isa = getGpuIsa(chip);
  target.wave64Flag = !isa || isa->waveSize == 64;
  pm.addPass(createGpuROCDLAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  binary.toolkitPath = toolkit.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void accel::buildAccelAmdgpuPipeline(
    OpPassManager &pm, const AccelAmdgpuPipelineOptions &options) {
  buildAccelToGpuKernelsPipeline(pm, options);
  buildGpuToHsacoPipeline(pm, options.chip, options.format, options.toolkit);
}

void accel::buildGpuToPtxPipeline(OpPassManager &pm, StringRef chip) {
  // nvgpu and nvvm ops to LLVM inside the kernels; 64-bit indices keep all
  // global address arithmetic in 64 bits; bare pointers make a kernel's
  // parameters one pointer per buffer (what the launcher packs).
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Epilogues' math without libdevice (which gpu-module-to-binary links
  // only where it finds a CUDA toolkit).
  accel::AccelGpuApproximateMathPassOptions math;
  math.nvvm = true;
  kernels.addPass(accel::createAccelGpuApproximateMathPass(math));
  // fp8 outputs' casts as integer arithmetic (the same bits as APFloat, on
  // every chip; sm_89's cvt.rn.satfinite would saturate instead).
  kernels.addPass(accel::createAccelExpandF8CastsPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  // PTX ISA 8.0 is the oldest with sm_90a; the f8 mma.sync (sm_89 and
  // newer) needs 8.4 (CUDA 12.4). Ampere keeps 8.0, which older drivers
  // still JIT (GpuIsa.h).
  std::optional<GpuIsa> isa = getGpuIsa(chip);
  target.features = isa ? isa->ptxFeatures : "+ptx84";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

std::vector<accel::GpuKernel> accel::collectGpuKernels(ModuleOp module,
                                                       StringRef chip) {
  std::vector<GpuKernel> kernels;
  module.walk([&](gpu::GPUFuncOp func) {
    auto launch = func->getAttrOfType<DictionaryAttr>("accel.launch");
    if (!launch)
      return;
    KernelMetadata meta;
    meta.target = isAmdgpuChip(chip) ? "amdgpu" : "nvptx";
    meta.chip = chip.str();
    meta.kernel = func.getName().str();
    auto triple = [&](StringRef key, std::array<int64_t, 3> &out) {
      if (auto a = launch.getAs<DenseI64ArrayAttr>(key))
        for (auto [i, v] : llvm::enumerate(a.asArrayRef()))
          if (i < 3)
            out[i] = v;
    };
    triple("grid", meta.grid);
    triple("block", meta.block);
    if (auto smem = launch.getAs<IntegerAttr>("dynamic_shared_memory"))
      meta.dynamicSharedBytes = smem.getInt();
    auto names = launch.getAs<ArrayAttr>("args");
    auto access = launch.getAs<ArrayAttr>("access");
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref)
        continue;
      KernelArgument arg;
      arg.name = names && i < names.size() ? cast<StringAttr>(names[i]).str()
                                           : ("arg" + Twine(i)).str();
      arg.kind = KernelArgKind::Buffer;
      llvm::raw_string_ostream ds(arg.dtype);
      ds << memref.getElementType();
      arg.shape.assign(memref.getShape().begin(), memref.getShape().end());
      // Whole bytes per element: an i1 (a boolean mask) takes one.
      arg.byteSize =
          memref.getNumElements() * ((memref.getElementTypeBitWidth() + 7) / 8);
      StringRef a = access && i < access.size()
                        ? cast<StringAttr>(access[i]).getValue()
                        : "in";
      arg.access = a == "out"     ? BufferAccess::Out
                   : a == "inout" ? BufferAccess::InOut
                                  : BufferAccess::In;
      meta.arguments.push_back(std::move(arg));
    }
    GpuKernel kernel;
    kernel.module =
        func->getParentOfType<gpu::GPUModuleOp>().getSymName().str();
    kernel.function = StringRef(kernel.module).rsplit("_kernels").first.str();
    kernel.metadata = std::move(meta);
    kernels.push_back(std::move(kernel));
  });
  return kernels;
}

std::vector<accel::GpuCollective>
accel::collectGpuCollectives(ModuleOp module) {
  std::vector<GpuCollective> out;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    auto steps = gpuModule->getAttrOfType<ArrayAttr>("accel.collectives");
    if (!steps)
      continue;
    for (auto step : steps.getAsRange<DictionaryAttr>()) {
      GpuCollective c;
      c.function = gpuModule.getSymName().rsplit("_kernels").first.str();
      auto str = [&](StringRef key) {
        auto a = step.getAs<StringAttr>(key);
        return a ? a.str() : std::string();
      };
      auto num = [&](StringRef key) {
        auto a = step.getAs<IntegerAttr>(key);
        return a ? a.getInt() : int64_t(0);
      };
      auto list = [&](StringRef key) {
        auto a = step.getAs<DenseI64ArrayAttr>(key);
        return a ? std::vector<int64_t>(a.asArrayRef().begin(),
                                        a.asArrayRef().end())
                 : std::vector<int64_t>();
      };
      c.position = num("position");
      c.kind = str("kind");
      c.reduction = str("reduction");
      c.input = str("input");
      c.output = str("output");
      c.dtype = str("dtype");
      c.count = num("count");
      c.byteSize = num("byte_size");
      c.grid = list("grid");
      c.gridAxes = list("grid_axes");
      out.push_back(std::move(c));
    }
  }
  return out;
}

llvm::StringMap<std::string> accel::collectPtx(ModuleOp module) {
  llvm::StringMap<std::string> ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    if (!binary.getObjects().empty())
      ptx[binary.getSymName()] =
          cast<gpu::ObjectAttr>(binary.getObjects()[0]).getObject().str();
  return ptx;
}

void accel::buildAccelNvptxPipeline(OpPassManager &pm,
                                    const AccelNvptxPipelineOptions &options) {
  buildAccelToGpuKernelsPipeline(pm, options);
  buildGpuToPtxPipeline(pm, options.chip);
}

void accel::registerAccelPipelines() {
  PassPipelineRegistration<AccelNvptxPipelineOptions>(
      "accel-nvptx-pipeline",
      "Compile accel matmuls to PTX kernels for an NVIDIA chip "
      "(convert-accel-to-gpu, then nvgpu/gpu to NVVM, "
      "gpu-module-to-binary{format=isa})",
      buildAccelNvptxPipeline);
  PassPipelineRegistration<AccelAmdgpuPipelineOptions>(
      "accel-amdgpu-pipeline",
      "Compile accel matmuls to AMD GPU kernels (convert-accel-to-gpu, then "
      "amdgpu/gpu to ROCDL, gpu-module-to-binary{format=isa|bin})",
      buildAccelAmdgpuPipeline);
  PassPipelineRegistration<AccelSystolicPipelineOptions>(
      "accel-systolic-pipeline",
      "Compile accel functions to systolic-array programs "
      "(convert-accel-to-systolic after raising and fusing)",
      buildAccelSystolicPipeline);
  PassPipelineRegistration<AccelCpuPipelineOptions>(
      "accel-cpu-pipeline",
      "Lower accel ops on tensors to LLVM for the host CPU (JIT or object "
      "code)",
      buildAccelCpuPipeline);
}
