//===- Backend.cpp - the target back ends behind one interface
//--------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "accel/Pipelines/Pipelines.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::accel;

ArtifactSink::~ArtifactSink() = default;
TargetBackend::~TargetBackend() = default;

llvm::ArrayRef<const TargetBackend *> mlir::accel::getTargetBackends() {
  static const TargetBackend *const backends[] = {
      &getSystolicBackend(), &getNvptxBackend(), &getAmdgpuBackend(),
      &getCpuBackend()};
  return backends;
}

const TargetBackend *mlir::accel::lookupTargetBackend(llvm::StringRef name) {
  for (const TargetBackend *backend : getTargetBackends())
    if (backend->getName() == name)
      return backend;
  return nullptr;
}

llvm::Error mlir::accel::backendError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error mlir::accel::writeFileOrError(llvm::StringRef path,
                                          llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return backendError("cannot write '" + path + "': " + ec.message());
  os << text;
  os.close();
  // A failed write is cleared from the stream: raw_fd_ostream would
  // otherwise end the process with "LLVM ERROR" when destroyed, skipping
  // the clean-up of the caller's staging folder.
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    (void)llvm::sys::fs::remove(path);
    return backendError("cannot write '" + path + "': " + message);
  }
  return llvm::Error::success();
}

/// Checks `meta` and stages it as <kernel>.json.
llvm::Error mlir::accel::stageKernelMetadata(const KernelMetadata &meta,
                                             ArtifactSink &sink) {
  if (llvm::Error e = accel::verifyKernelMetadata(meta))
    return e;
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", accel::toJsonValue(meta)) << "\n";
  return sink.add(meta.kernel + ".json", json);
}

/// The chip of a GPU target: --chip, or the target's default; an error for
/// a chip of the other vendor.
llvm::Expected<std::string>
mlir::accel::gpuChip(llvm::StringRef target, const BackendOptions &options) {
  bool amd = target == "amdgpu";
  llvm::StringRef chip = options.chip;
  if (chip.empty())
    return std::string(amd ? "gfx942" : "sm_80");
  if (accel::isAmdgpuChip(chip) != amd)
    return backendError(
        options.chipFlag + "=" + chip + " is not " +
        (amd ? "an AMD chip (gfx...)" : "an NVIDIA chip (sm_...)") +
        ", as --target=" + target + " needs");
  return chip.str();
}

namespace {
/// accel ops to kernels, the hook, kernels to images: the two GPU back ends'
/// shared flow, with their pipeline options type.
template <typename PipelineOptions>
llvm::Expected<GpuKernelSet>
compileKernels(llvm::StringRef target, llvm::StringRef pipeline,
               ModuleOp module, const BackendOptions &opts, GpuKernelHook hook,
               llvm::function_ref<llvm::Error()> check,
               llvm::function_ref<void(PassManager &, llvm::StringRef)> lower,
               llvm::StringRef image) {
  llvm::Expected<std::string> chip = gpuChip(target, opts);
  if (!chip)
    return chip.takeError();
  PipelineOptions options;
  if (failed(options.parseFromString(opts.pipelineOptions)))
    return backendError("bad --options '" + opts.pipelineOptions + "' for " +
                        pipeline);
  options.chip = *chip;
  if (llvm::Error e = check())
    return std::move(e);
  MLIRContext *ctx = module.getContext();
  GpuKernelSet set;
  set.chip = *chip;
  {
    PassManager pm(ctx);
    buildAccelToGpuKernelsPipeline(pm, options);
    if (failed(pm.run(module)))
      return backendError("cannot compile '" + opts.inputName + "' for " +
                          *chip);
  }
  set.kernels = collectGpuKernels(module, *chip);
  if (hook)
    hook(module);
  {
    PassManager pm(ctx);
    lower(pm, *chip);
    if (failed(pm.run(module)))
      return backendError("cannot lower the kernels of '" + opts.inputName +
                          "' to " + image + " for " + *chip);
  }
  set.images = collectPtx(module);
  return set;
}
} // namespace

llvm::Expected<GpuKernelSet>
mlir::accel::compileGpuKernels(llvm::StringRef target, ModuleOp module,
                               const BackendOptions &opts, GpuKernelHook hook) {
  if (target == "nvptx")
    return compileKernels<AccelNvptxPipelineOptions>(
        target, "accel-nvptx-pipeline", module, opts, hook,
        [] { return llvm::Error::success(); },
        [](PassManager &pm, llvm::StringRef chip) {
          buildGpuToPtxPipeline(pm, chip);
        },
        "PTX");
  if (target != "amdgpu")
    return backendError("'" + target + "' is not a GPU target");
  std::string toolkit = opts.rocmToolkit;
  // ld.lld links the code object; checked before compiling anything.
  auto checkLinker = [&]() -> llvm::Error {
    llvm::SmallString<256> lld(toolkit);
    llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
    if (llvm::sys::fs::can_execute(lld))
      return llvm::Error::success();
    return backendError(
        "the ROCm toolkit folder '" + toolkit +
        "' has no executable llvm/bin/ld.lld to link code objects "
        "(give one with --rocm-toolkit=DIR; a symbolic link to LLVM "
        "22's ld.lld is enough)");
  };
  return compileKernels<AccelAmdgpuPipelineOptions>(
      target, "accel-amdgpu-pipeline", module, opts, hook, checkLinker,
      [&](PassManager &pm, llvm::StringRef chip) {
        buildGpuToHsacoPipeline(pm, chip, "bin", toolkit);
      },
      "a code object");
}
