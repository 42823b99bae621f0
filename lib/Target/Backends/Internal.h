//===- Internal.h - what the back ends share --------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H
#define ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H

#include "accel/Runtime/KernelMetadata.h"
#include "accel/Target/Backend.h"
#include "accel/Target/CpuAbi.h"

namespace mlir {
namespace accel {

/// The chip of a GPU target: `options.chip`, or the target's default; an
/// error for a chip of the other vendor.
llvm::Expected<std::string> gpuChip(llvm::StringRef target,
                                    const BackendOptions &options);

/// Whether `name` is a C identifier.
bool isCIdentifier(llvm::StringRef name);
/// The module's C name: its symbol (`module @kernels`), else the input
/// file's stem with other characters than letters, digits and '_' made
/// '_'; an error when that is no C identifier.
llvm::Expected<std::string> cModuleName(ModuleOp module,
                                        const BackendOptions &opts);
/// `given` (the tool's --option), else the first of `names` on PATH, else
/// in LLVM 22's bin folder; an error names the option and the target.
llvm::Expected<std::string> findTool(llvm::StringRef given,
                                     llvm::ArrayRef<llvm::StringRef> names,
                                     llvm::StringRef option,
                                     llvm::StringRef target);
/// Runs a tool; its output goes into the error when it fails.
llvm::Error runTool(ArtifactSink &sink, llvm::StringRef what,
                    llvm::ArrayRef<llvm::StringRef> args);

/// Links `object` into the shared library `libraryName` in the sink with
/// ld.lld, exporting only the accel_* symbols, `libs` DT_NEEDED where used.
llvm::Error linkSharedLibrary(ArtifactSink &sink, llvm::StringRef lld,
                              llvm::StringRef libraryName,
                              llvm::StringRef object,
                              llvm::ArrayRef<std::string> libs);

/// libm, libc and the dynamic loader where Debian and most distributions
/// keep them (empty when they are elsewhere: their symbols then come from
/// the program that loads the library).
std::vector<std::string> systemCLibraries();

/// A sharded module (one with a shard.grid): partitions it in place
/// (accel-shard), so that each public function is one process's part with
/// local shapes. Returns the grid's shape; empty when the module is not
/// sharded.
llvm::Expected<std::vector<int64_t>>
partitionShardedModule(ModuleOp module, const BackendOptions &opts);
/// Fills each buffer's split axes and whole shape from the partitioned
/// function's `attr` (accel.arg_split_axes or accel.result_split_axes).
void describeShardedBlocks(Operation *func, llvm::ArrayRef<int64_t> grid,
                           std::vector<cpuabi::Buffer> &buffers,
                           llvm::StringRef attr);

/// A public function of a GPU module as its C host entry point sees it:
/// its name, MLIR function type and buffers (static shapes).
struct GpuHostSignature {
  std::string name, signature;
  std::vector<cpuabi::Buffer> args, results;
  /// In a sharded module: the grid's shape (the buffers say which block
  /// each is).
  std::vector<int64_t> grid;
  /// Why the host ABI cannot take the function (reported after the
  /// kernels are compiled, so that the pipeline's own errors come first).
  std::string problem;
};
/// What the host library of `module` needs to know before the module is
/// compiled: its C name (cModuleName) and its public functions.
struct GpuHostInputs {
  std::string module;
  std::vector<GpuHostSignature> signatures;
};
llvm::Expected<GpuHostInputs> collectGpuHostInputs(ModuleOp module,
                                                   const BackendOptions &opts);
/// The code of one gpu.module: nvptx: the cubin (`binary`, empty without
/// ptxas) and the PTX; amdgpu: the code object (`binary`).
struct GpuHostImage {
  std::string binary, ptx;
};
/// Writes the C host library of the functions (GpuHost.cpp): <module>.h,
/// <module>_host.c, <module>.o, lib<module>.so and <module>.json.
llvm::Error stageGpuHostLibrary(llvm::StringRef target, llvm::StringRef chip,
                                const GpuHostInputs &inputs,
                                llvm::ArrayRef<GpuKernel> kernels,
                                llvm::ArrayRef<GpuCollective> collectives,
                                const llvm::StringMap<GpuHostImage> &images,
                                ArtifactSink &sink, const BackendOptions &opts);

/// Checks `meta` and writes it as <kernel>.json.
llvm::Error stageKernelMetadata(const KernelMetadata &meta, ArtifactSink &sink);

/// A back end that is its name and its compile function (each target's
/// file defines one).
class FunctionBackend final : public TargetBackend {
public:
  using CompileFn = llvm::Error (*)(ModuleOp, ArtifactSink &,
                                    const BackendOptions &);
  FunctionBackend(llvm::StringRef name, CompileFn fn) : name(name), fn(fn) {}
  llvm::StringRef getName() const override { return name; }
  llvm::Error compile(ModuleOp module, ArtifactSink &sink,
                      const BackendOptions &options) const override {
    return fn(module, sink, options);
  }

private:
  llvm::StringRef name;
  CompileFn fn;
};

/// The back ends (one file each).
const TargetBackend &getCpuBackend();
const TargetBackend &getNvptxBackend();
const TargetBackend &getAmdgpuBackend();
const TargetBackend &getSystolicBackend();

} // namespace accel
} // namespace mlir

#endif // ACCEL_LIB_TARGET_BACKENDS_INTERNAL_H
