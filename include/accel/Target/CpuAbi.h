//===- CpuAbi.h - C ABI of ahead-of-time compiled CPU kernels ---*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The text accel-compile --target=cpu generates around the lowered kernels:
// the C header, the C wrapper (shape, layout and CPU-feature checks, then
// the call of `_mlir_ciface_<f>`) and the JSON metadata. docs/aot.md is the
// specification; this file and that document change together.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_COMPILE_CPUABI_H
#define ACCEL_TOOLS_ACCEL_COMPILE_CPUABI_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::accel::cpuabi {

/// Bumped whenever the header's declarations, accel_tensor or the status
/// codes change meaning; a header and a library must agree on it.
/// 2: each kernel is also exported as accel_<name>_h<hash>, and the header
/// makes callers use that name (hashedSymbol).
/// 3: ACCEL_ERR_ALLOC, a temporary that cannot be allocated.
/// 4: threads: accel_<module>_set_num_threads, _num_threads,
/// _set_parallel_for (a caller's parallel-for), ACCEL_ERR_THREADS.
/// 5: ACCEL_ERR_DEVICE, for the GPU host libraries that share the header's
/// common part (docs/aot.md, "GPU host libraries").
/// 6: ACCEL_ERR_COMM; a sharded GPU module's functions take an NCCL (RCCL)
/// communicator after the workspace.
/// 7: ACCEL_ERR_INDEX (a paged attention's block table or lengths out of
/// range).
constexpr int kAbiVersion = 7;
/// Version of the JSON metadata layout.
constexpr int kFormatVersion = 1;
/// accel_tensor holds at most this many dimensions.
constexpr int64_t kMaxRank = 8;

/// An x86-64 feature the wrapper can test before running the kernels:
/// CPUID(leaf, subleaf) register `reg` (0 eax, 1 ebx, 2 ecx, 3 edx) bit
/// `bit`, and the XCR0 bits the OS must have enabled for its registers.
struct Feature {
  const char *name; // LLVM's name, as given to --features
  unsigned leaf, subleaf, reg, bit;
  uint64_t xcr0;
};
llvm::ArrayRef<Feature> knownFeatures();
const Feature *lookupFeature(llvm::StringRef name);

/// One argument or result buffer: dims < 0 are dynamic.
struct Buffer {
  std::string dtype;
  unsigned elemBytes = 0;
  std::vector<int64_t> shape;
  /// In a sharded module (Artifact::grid): per dimension, the grid axes it
  /// is split over (empty: replicated), and the whole tensor's shape this
  /// buffer is one process's block of.
  std::vector<std::vector<int64_t>> splitAxes;
  std::vector<int64_t> wholeShape;
};

/// A size the wrapper compares: dimension `dim` of argument (or result)
/// `index`, or the constant `value` when `index` < 0.
struct SizeRef {
  bool result = false;
  int64_t index = -1, dim = 0, value = 0;
};

/// A run-time condition between the dynamic sizes of a call that the ops
/// require (a matmul's K of A and of B, ...): `lhs == rhs`. The wrapper
/// refuses a call that breaks one with ACCEL_ERR_SHAPE.
struct SizeCheck {
  SizeRef lhs, rhs;
};

struct Kernel {
  std::string name;
  std::vector<Buffer> args, results;
  std::string signature; // the function type as MLIR prints it
  std::vector<SizeCheck> sizeChecks;
  /// Results the kernel writes into a buffer it takes as an argument
  /// appended after `args`, in this order (accel.result_args of
  /// accel-cpu-results-in-place): the caller's buffer where it can be.
  std::vector<int64_t> resultArgs;
  /// The alignment in bytes the kernel's accesses assume of each of those
  /// buffers (accel.result_arg_alignments; 1: the element's).
  std::vector<int64_t> resultArgAlignments;
};

struct Artifact {
  std::string module, triple, cpu;
  std::vector<std::string> features;
  std::vector<Kernel> kernels;
  /// The shard.grid a sharded module was partitioned over (empty: not
  /// sharded): the library is one MPI process's part (docs/distributed.md).
  std::vector<int64_t> grid;
  /// The pipeline's `threads`: 1 is sequential code; N > 1 splits the
  /// parallel loops for N threads, the library's default number of them.
  int64_t threads = 1;
};

/// The functions the lowered kernels call for their temporaries (the CPU
/// pipeline's guard-allocations: MLIR's generic allocation functions and
/// accel-cpu-guard-allocations' callee), each with the suffix of the name
/// the wrapper defines it under (runtimeSymbol).
struct RuntimeFunction {
  llvm::StringRef lowered, suffix;
};
llvm::ArrayRef<RuntimeFunction> runtimeFunctions();
/// `__accel_<module>_<suffix>`: of the module, so that the objects of two
/// modules link into one program, and not `accel_*`, so that the library
/// does not export it.
std::string runtimeSymbol(const Artifact &a, llvm::StringRef suffix);

/// The identity string `accel_<module>_info()` returns (a JSON object).
std::string infoString(const Artifact &a);
std::string headerText(const Artifact &a);
/// What every generated header (CPU and GPU) starts with, under the guard
/// ACCEL_AOT_ABI: accel_tensor, the status codes, accel_status_string.
std::string sharedHeaderText();
/// `s` as a C string literal.
std::string cString(llvm::StringRef s);
/// `text` (from the IR) inside a C comment: every "*/" is broken up.
std::string commentText(llvm::StringRef text);
/// A sharded buffer's block in words, " of f32[32x64] split [[], [0]]"
/// ("" when it is the whole tensor).
std::string blockText(const Buffer &b);
std::string wrapperText(const Artifact &a);
llvm::json::Value metadata(const Artifact &a);
/// A stable hash of a kernel's signature (xxh3 of its text).
uint64_t signatureHash(const Kernel &k);
/// `accel_<name>_h<16 hex digits of signatureHash>`: the kernel's entry
/// point under a name that carries its specialisation. The library exports
/// it beside `accel_<name>`, and the header `#define`s `accel_<name>` to it,
/// so code compiled against one header cannot link with (or load) a library
/// whose kernel of that name has another signature.
std::string hashedSymbol(const Kernel &k);

} // namespace mlir::accel::cpuabi

#endif // ACCEL_TOOLS_ACCEL_COMPILE_CPUABI_H
