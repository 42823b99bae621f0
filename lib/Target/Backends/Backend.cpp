//===- Backend.cpp - the target back ends behind one interface
//--------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "accel/Pipelines/Pipelines.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
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
llvm::Expected<std::string> mlir::accel::gpuChip(llvm::StringRef target,
                                                 llvm::StringRef chip) {
  bool amd = target == "amdgpu";
  if (chip.empty())
    return std::string(amd ? "gfx942" : "sm_80");
  if (accel::isAmdgpuChip(chip) != amd)
    return backendError(
        "--chip=" + chip + " is not " +
        (amd ? "an AMD chip (gfx...)" : "an NVIDIA chip (sm_...)") +
        ", as --target=" + target + " needs");
  return chip.str();
}
