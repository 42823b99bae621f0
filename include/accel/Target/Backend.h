//===- Backend.h - the target back ends behind one interface ----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A back end takes a module of accel ops to the artifacts of one target and
// their metadata (docs/architecture.md, "Back ends"):
//
//   cpu       lib/Target/Backends/CPU      x86-64 object, shared library, C
//                                          header, JSON (docs/aot.md)
//   nvptx     lib/Target/Backends/NVPTX    PTX, cubin (ptxas), launch
//                                          metadata (docs/gpu-runtime.md)
//   amdgpu    lib/Target/Backends/AMDGPU   HSACO code object, launch
//                                          metadata with the resource report
//   systolic  lib/Target/Backends/Systolic the binary of
//                                          docs/systolic-binary.md, JSON
//
// Each runs its target's pipeline (lib/Pipelines, which runs the
// configuration stage first) and serializes what it made into an
// ArtifactSink; accel-compile is option parsing, the input front door
// (ToolInput.h), a staging folder as the sink, and a dispatch through
// lookupTargetBackend. Adding a target is one back end and one line in
// getTargetBackends.
//
// The back ends' errors name accel-compile's options (--chip, --options,
// --features, ...): BackendOptions is those options.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TARGET_BACKEND_H
#define ACCEL_TARGET_BACKEND_H

#include "accel/Pipelines/Pipelines.h"
#include "accel/Systolic/ISA.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace accel {

/// Where a back end puts its files. accel-compile's is a staging folder that
/// is moved into place only when every target succeeded.
class ArtifactSink {
public:
  virtual ~ArtifactSink();
  /// Writes the artifact `name` (a plain file name: letters, digits, '_',
  /// '.', '-', not starting with '.'; names from the IR are checked here).
  virtual llvm::Error add(llvm::StringRef name, llvm::StringRef bytes) = 0;
  llvm::Error add(llvm::StringRef name, llvm::ArrayRef<uint8_t> bytes) {
    return add(name,
               llvm::StringRef(reinterpret_cast<const char *>(bytes.data()),
                               bytes.size()));
  }
  /// Where the artifact `name` is written, for a program that writes it
  /// itself (ptxas, ld.lld); adopt() then makes it an artifact.
  virtual std::string pathOf(llvm::StringRef name) const = 0;
  virtual void adopt(llvm::StringRef name) = 0;
  /// A scratch file, removed whatever happens.
  virtual std::string temporary(llvm::StringRef name) = 0;
};

/// accel-compile's options, as the back ends read them.
struct BackendOptions {
  /// The input's name, for messages (and the CPU library's default name).
  std::string inputName;
  /// --options: the target pipeline's options ("rows=32 cols=32").
  std::string pipelineOptions;
  /// --chip: a GPU chip, empty for the target's default.
  std::string chip;
  /// How the user gave the chip, for messages ("--chip").
  std::string chipFlag = "--chip";
  /// nvptx: --cubin (auto, yes, no) and --ptxas.
  std::string cubin = "auto";
  std::string ptxas;
  /// amdgpu: --rocm-toolkit, the folder with llvm/bin/ld.lld.
  std::string rocmToolkit;
  /// cpu: --features, --clang, --ld-lld.
  std::string cpuFeatures, clang, lld;
  /// cpu: --max-constant-bytes (checked again after folding) and
  /// --max-tensor-bytes (the most a temporary sized at run time may take).
  uint64_t maxConstantBytes = 0;
  uint64_t maxTensorBytes = 0;
};

/// One target's pipeline and serialization.
class TargetBackend {
public:
  virtual ~TargetBackend();
  /// The --target name.
  virtual llvm::StringRef getName() const = 0;
  /// Lowers `module` in place and writes its artifacts and their metadata
  /// into `sink`; an error names what failed.
  virtual llvm::Error compile(ModuleOp module, ArtifactSink &sink,
                              const BackendOptions &options) const = 0;
};

/// What a GPU back end makes before it writes anything: each kernel's
/// launch metadata and, by gpu.module name, the kernel module's image (PTX
/// text for nvptx, an AMDGPU code object for amdgpu).
struct GpuKernelSet {
  std::string chip;
  std::vector<GpuKernel> kernels;
  /// A sharded function's collectives between its kernels.
  std::vector<GpuCollective> collectives;
  llvm::StringMap<std::string> images;
};

/// Called on the module once its kernels are formed (gpu.module kernels with
/// their launch attributes), before they are lowered to images.
using GpuKernelHook = llvm::function_ref<void(ModuleOp)>;

/// The first half of the nvptx and amdgpu back ends (`target`): accel ops to
/// kernel images in memory, for `options.chip` (the target's default when
/// empty) and `options.pipelineOptions`. The back end's compile() writes
/// them with their metadata; accel-run launches them.
llvm::Expected<GpuKernelSet> compileGpuKernels(llvm::StringRef target,
                                               ModuleOp module,
                                               const BackendOptions &options,
                                               GpuKernelHook hook = nullptr);

/// A program of the systolic back end, before it is written: the decoded
/// program (machine, buffers, instructions) and the schedule model's
/// prediction of its cycles, when it made one, and the bytes of its scratch
/// values before they share buffers.
struct SystolicProgram {
  sysarray::Program program;
  std::optional<int64_t> predictedCycles;
  std::optional<int64_t> scratchTensorBytes;
};

/// The first half of the systolic back end: accel ops to programs in memory
/// (`options.pipelineOptions` are accel-systolic-pipeline's). The back end's
/// compile() writes them; accel-run simulates them.
llvm::Expected<std::vector<SystolicProgram>>
compileSystolicPrograms(ModuleOp module, const BackendOptions &options);

/// Every back end, in the order of the --target help.
llvm::ArrayRef<const TargetBackend *> getTargetBackends();
/// The back end called `name`, or null.
const TargetBackend *lookupTargetBackend(llvm::StringRef name);

/// An llvm::Error with `message`.
llvm::Error backendError(const llvm::Twine &message);
/// Writes `text` to `path`; a failed write (a full disk, a file past the
/// size limit) is an error, and what was written of the file is removed.
llvm::Error writeFileOrError(llvm::StringRef path, llvm::StringRef text);

} // namespace accel
} // namespace mlir

#endif // ACCEL_TARGET_BACKEND_H
