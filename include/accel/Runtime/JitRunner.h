//===- JitRunner.h - JIT-compile and call accel functions -------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Shared by accel-run and the benchmarks: lower a module with the CPU
// pipeline, JIT it for the host (its CPU and features), and call functions
// with the packed calling convention of the MLIR ExecutionEngine.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_JITRUNNER_H
#define ACCEL_RUNTIME_JITRUNNER_H

#include "accel/Pipelines/Pipelines.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
namespace accel {

/// Lowers a clone of `module` with accel-cpu-pipeline and JIT-compiles it at
/// -O3 for the host CPU. OpenMP code (threads > 1) loads libomp.
llvm::Expected<std::unique_ptr<ExecutionEngine>>
compileForHost(ModuleOp module, const AccelCpuPipelineOptions &options);

/// The CPU features compileForHost compiles for: `options.cpuFeatures`, or
/// the host's when that is empty (comma separated).
std::string hostCompileFeatures(const AccelCpuPipelineOptions &options);

/// The features of `features` (comma separated, `+` optional, `-` ones and
/// names LLVM does not list for this host skipped) this CPU lacks, comma
/// separated; empty when it has them all.
std::string missingHostFeatures(StringRef features);

/// Asks Linux for AMX's tile data (arch_prctl ARCH_REQ_XCOMP_PERM), which a
/// process must hold before its first tile instruction; an error when the
/// OS refuses.
llvm::Error requestAmxPermission();

/// Whether the kernels compileForHost makes may treat bf16 subnormals as
/// zero: bf16 contractions become vdpbf16ps or tdpbf16ps kernels
/// (vectorized, `bf16-subnormals=flush`, features with avx512bf16 or
/// amx-tile and amx-bf16), which flush subnormal
/// inputs and results whatever MXCSR says. The fp64 oracle's matmul gate
/// then allows it (ref::MatmulSpec::flushBf16Subnormals).
bool hostKernelsFlushBf16Subnormals(const AccelCpuPipelineOptions &options);

/// Whether the kernel compileForHost makes for the accel.attention `op`
/// rounds its probabilities P to bf16 before P·V (cpu-flash-amx: bf16
/// attention on AMX tiles, accel::cpuFlashOnAmx on the host's features);
/// the fp64 oracle's attention gate then allows it.
bool hostKernelsRoundAttentionProbabilities(
    const AccelCpuPipelineOptions &options, Operation *op);

/// The packed arguments of a function lowered to LLVM: each memref is
/// (allocated, aligned, offset, sizes..., strides...), each scalar a pointer
/// to its value, and last a pointer to where returned memref descriptors go.
class PackedCall {
public:
  /// A contiguous row-major buffer of `shape`.
  void addMemref(void *data, llvm::ArrayRef<int64_t> shape);
  /// A scalar whose value lives at `value` (kept alive by the caller).
  void addScalar(void *value);
  /// Space for returned memrefs of the given ranks (call after arguments).
  void addResults(llvm::ArrayRef<int64_t> ranks);
  /// The descriptor of returned memref `i`: allocated, aligned, offset,
  /// sizes[rank], strides[rank].
  const int64_t *result(unsigned i) const;

  llvm::Error invoke(ExecutionEngine &engine, llvm::StringRef name);

private:
  std::deque<int64_t> words;
  std::deque<void *> pointers;
  llvm::SmallVector<void *> args;
  std::vector<int64_t> resultStorage;
  llvm::SmallVector<size_t> resultOffsets;
};

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_JITRUNNER_H
