//===- AmdgpuBackend.cpp - the AMD GPU back end
//-----------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-amdgpu-pipeline's kernels, linked into a HSACO code object by the
// ROCm toolkit folder's ld.lld, with launch metadata and the resource report
// read from the code object (VGPRs, SGPRs, LDS, occupancy; also printed).
//
//===----------------------------------------------------------------------===//

#include "../Internal.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Runtime/AmdgpuCodeObject.h"
#include "accel/Runtime/KernelMetadata.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::accel;

namespace {

/// The code object of every gpu.binary, with the launch metadata and the
/// resource report of its kernels.
llvm::Error compileAmdgpu(ModuleOp module, ArtifactSink &sink,
                          const BackendOptions &opts) {
  llvm::Expected<GpuHostInputs> host = collectGpuHostInputs(module, opts);
  if (!host)
    return host.takeError();
  llvm::Expected<GpuKernelSet> compiled =
      compileGpuKernels("amdgpu", module, opts);
  if (!compiled)
    return compiled.takeError();
  const std::string *gfx = &compiled->chip;
  std::vector<GpuKernel> &kernels = compiled->kernels;
  if (kernels.empty())
    return backendError("'" + opts.inputName + "' has no function to compile");
  llvm::StringMap<GpuHostImage> hostImages;
  for (auto &[name, object] : compiled->images) {
    hostImages[name].binary = object;
    std::string hsacoName = (name + ".hsaco").str();
    if (llvm::Error e = sink.add(
            hsacoName, llvm::ArrayRef<uint8_t>(
                           reinterpret_cast<const uint8_t *>(object.data()),
                           object.size())))
      return e;
    for (accel::GpuKernel &kernel : kernels) {
      if (kernel.module != name)
        continue;
      accel::KernelMetadata &meta = kernel.metadata;
      llvm::Expected<accel::AmdgpuKernelResources> res =
          accel::readAmdgpuKernelResources(object, meta.kernel, *gfx);
      if (!res)
        return backendError("the code object of @" + meta.kernel + ": " +
                            llvm::toString(res.takeError()));
      int64_t threads = meta.block[0] * meta.block[1] * meta.block[2];
      int64_t lds = res->groupSegmentBytes + meta.dynamicSharedBytes;
      accel::KernelResources r;
      // The note's VGPR count includes the AGPRs on CDNA.
      r.registers = res->vgprs;
      r.staticSharedBytes = res->groupSegmentBytes;
      r.spillBytes = res->privateSegmentBytes;
      accel::KernelResources::Amdgpu a;
      a.vgprs = res->vgprs;
      a.agprs = res->agprs;
      a.sgprs = res->sgprs;
      a.allocatedVgprs = res->allocatedVgprs;
      a.scratchBytes = res->privateSegmentBytes;
      a.wavefrontSize = res->wavefrontSize;
      a.wavesPerSimd =
          accel::estimateAmdgpuWavesPerSimd(*res, *gfx, lds, threads);
      r.amdgpu = a;
      meta.resources = r;
      meta.hsaco = hsacoName;
      meta.hsacoSha256 = accel::computeSha256Hex(object);
      if (llvm::Error e = stageKernelMetadata(meta, sink))
        return e;
      // The resource report, one line per kernel.
      llvm::outs() << llvm::formatv(
          "{0} ({1}, wave{2}): {3} VGPRs ({4} allocated, {5} of them AGPRs), "
          "{6} "
          "SGPRs, {7} bytes LDS ({8} static + {9} dynamic), {10} bytes "
          "scratch, {11} spilled VGPRs, occupancy {12} waves/SIMD\n",
          meta.kernel, *gfx, res->wavefrontSize, res->vgprs,
          res->allocatedVgprs, res->agprs, res->sgprs, lds,
          res->groupSegmentBytes, meta.dynamicSharedBytes,
          res->privateSegmentBytes, res->vgprSpills, a.wavesPerSimd);
    }
  }
  // The C host library that runs each function's kernels in order.
  return stageGpuHostLibrary("amdgpu", *gfx, *host, kernels,
                             compiled->collectives, hostImages, sink, opts);
}

} // namespace

const TargetBackend &mlir::accel::getAmdgpuBackend() {
  static const FunctionBackend backend("amdgpu", compileAmdgpu);
  return backend;
}
