//===- NvptxBackend.cpp - the NVIDIA GPU back end
//---------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-nvptx-pipeline's kernels as PTX, a cubin assembled by ptxas when it
// is found (its register, shared-memory and spill report read into the
// metadata), and the launch metadata of docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#include "../Internal.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Runtime/KernelMetadata.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

using namespace mlir;
using namespace mlir::accel;

namespace {

/// The PTX of every gpu.binary, with the launch metadata of its kernels.
llvm::Error compileNvptx(ModuleOp module, ArtifactSink &sink,
                         const BackendOptions &opts) {
  if (opts.cubin != "auto" && opts.cubin != "yes" && opts.cubin != "no")
    return backendError("--cubin must be auto, yes or no, got '" + opts.cubin +
                        "'");
  // The public functions, for their host entry points.
  llvm::Expected<GpuHostInputs> host = collectGpuHostInputs(module, opts);
  if (!host)
    return host.takeError();
  // 1. accel ops -> kernels -> PTX.
  llvm::Expected<GpuKernelSet> compiled =
      compileGpuKernels("nvptx", module, opts);
  if (!compiled)
    return compiled.takeError();
  const std::string &chip = compiled->chip;
  std::vector<GpuKernel> &kernels = compiled->kernels;
  if (kernels.empty())
    return backendError("'" + opts.inputName + "' has no function to compile");
  // 2. PTX, cubin and metadata per kernel module.
  std::string ptxas;
  if (opts.cubin != "no") {
    if (!opts.ptxas.empty())
      ptxas = opts.ptxas;
    else if (auto found = llvm::sys::findProgramByName("ptxas"))
      ptxas = *found;
    else if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
      ptxas = "/usr/local/cuda/bin/ptxas";
    if (ptxas.empty() && opts.cubin == "yes")
      return backendError(
          "--cubin=yes needs ptxas, which is not on PATH nor in "
          "/usr/local/cuda/bin (give it with --ptxas=PATH)");
    if (!ptxas.empty() && !llvm::sys::fs::can_execute(ptxas))
      return backendError("ptxas '" + ptxas + "' is not an executable");
  }
  llvm::StringMap<GpuHostImage> hostImages;
  for (auto &[name, text] : compiled->images) {
    GpuHostImage &hostImage = hostImages[name];
    hostImage.ptx = text;
    std::string ptxName = (name + ".ptx").str(), cubinName;
    if (llvm::Error e = sink.add(ptxName, text))
      return e;
    // ptxas's figures per entry function, by name.
    llvm::StringMap<accel::KernelResources> resourcesOf;
    std::string cubinSha256;
    if (!ptxas.empty()) {
      cubinName = (name + ".cubin").str();
      std::string out = sink.pathOf(cubinName);
      std::string log = sink.pathOf((name + ".ptxas.log").str());
      std::string arch = "-arch=" + chip;
      std::string in = sink.pathOf(ptxName);
      llvm::StringRef args[] = {ptxas, arch, "-v", in, "-o", out};
      std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
      std::string message;
      int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/120, 0, &message);
      auto text = llvm::MemoryBuffer::getFile(log);
      std::string logText = text ? (*text)->getBuffer().str() : "";
      llvm::sys::fs::remove(log);
      if (rc != 0) {
        llvm::sys::fs::remove(out);
        return backendError(
            "ptxas failed on the PTX of @" + name.str() + " for " + chip +
            (message.empty() ? "" : ": " + message) + "\n" + logText);
      }
      sink.adopt(cubinName);
      auto cubinBytes = llvm::MemoryBuffer::getFile(out, /*IsText=*/false,
                                                    /*RequiresNullTerminator=*/false);
      if (!cubinBytes)
        return backendError("cannot read ptxas's cubin '" + out +
                            "': " + cubinBytes.getError().message());
      cubinSha256 = accel::computeSha256Hex((*cubinBytes)->getBuffer());
      hostImage.binary = (*cubinBytes)->getBuffer().str();
      // One section per entry function, from "Compiling entry function
      // 'NAME'" to the next: "... 0 bytes spill stores, ..." and "Used 66
      // registers, used 0 barriers, 19456 bytes smem, ..." on lines of
      // their own. Other lines may say "registers" too (sm_90a:
      // "warpgroup.arrive is injected ... to allow use of registers in
      // GMMA"): each number is read on its line.
      const llvm::StringRef marker = "Compiling entry function '";
      llvm::StringRef ptxasLog(logText);
      for (size_t at = ptxasLog.find(marker); at != llvm::StringRef::npos;) {
        llvm::StringRef entry = ptxasLog.drop_front(at + marker.size());
        llvm::StringRef kernelName = entry.take_until([](char c) {
          return c == '\'';
        });
        size_t next = ptxasLog.find(marker, at + marker.size());
        llvm::StringRef section = ptxasLog.slice(at, next);
        auto number = [&](llvm::StringRef before) -> int64_t {
          size_t end = section.find(before);
          if (end == llvm::StringRef::npos)
            return 0;
          llvm::StringRef head = section.take_front(end).rtrim();
          size_t space = head.find_last_of(" ");
          int64_t v = 0;
          (void)head.substr(space + 1).getAsInteger(10, v);
          return v;
        };
        accel::KernelResources r;
        r.registers = number(" registers,");
        r.staticSharedBytes = number(" bytes smem");
        r.spillBytes = number(" bytes spill stores");
        resourcesOf[kernelName] = r;
        at = next;
      }
    }
    for (accel::GpuKernel &kernel : kernels) {
      if (kernel.module != name)
        continue;
      accel::KernelMetadata &meta = kernel.metadata;
      auto found = resourcesOf.find(meta.kernel);
      if (found != resourcesOf.end())
        meta.resources = found->second;
      else if (!ptxas.empty())
        return backendError("ptxas reported nothing of @" + meta.kernel +
                            " (in the PTX of @" + name.str() + ")");
      meta.ptx = ptxName;
      meta.cubin = cubinName;
      meta.ptxSha256 = accel::computeSha256Hex(text);
      meta.cubinSha256 = cubinSha256;
      if (llvm::Error e = stageKernelMetadata(meta, sink))
        return e;
    }
  }
  // 3. The C host library that runs each function's kernels in order.
  return stageGpuHostLibrary("nvptx", chip, *host, kernels,
                             compiled->collectives, hostImages, sink, opts);
}

} // namespace

const TargetBackend &mlir::accel::getNvptxBackend() {
  static const FunctionBackend backend("nvptx", compileNvptx);
  return backend;
}
