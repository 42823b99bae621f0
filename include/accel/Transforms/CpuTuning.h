//===- CpuTuning.h - the CPU configuration stage's tuning cache -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A tuning cache holds configurations measured on a CPU (`accel-bench
// --mode=tune` writes it; docs/configure.md, "Tuning cache"): per CPU kind,
// op and shape class, the kernel the model chose and the tiles that ran
// fastest. accel-cpu-configure reads it (its `tuning-cache` option): an op
// without a config whose CPU kind and shape class have an entry, and for
// which the model chooses that entry's kernel, gets the entry's tiles as a
// given config, completed and checked like any other. Without a cache the
// choice is the model's alone.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_CPUTUNING_H
#define ACCEL_TRANSFORMS_CPUTUNING_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace mlir::accel {

/// One measured configuration.
struct CpuTuningEntry {
  std::string cpu;    // the catalogue CPU entry (x86-64-sapphirerapids, ...)
  std::string key;    // cpuTuningKey of the op
  std::string kernel; // the lowering_config kernel the tiles are for
  llvm::SmallVector<int64_t, 3> tile, mma;
  /// Informational, written by the tuner: the model's and the best
  /// candidate's median times in ms (0: not given).
  double untunedMs = 0, tunedMs = 0, predictedMs = 0;
  /// The threads it was measured on (0: not given, for any thread count).
  /// Part of the entry's identity: tiles tuned on one thread are not the
  /// best on two (each thread's share of a cache block differs).
  int64_t threads = 0;
};

struct CpuTuningCache {
  std::vector<CpuTuningEntry> entries;
  /// The entry for `cpu` and `key` measured on `threads` threads, else one
  /// that names no thread count (a parsed cache has at most one of each);
  /// an entry measured on another thread count never applies.
  const CpuTuningEntry *find(llvm::StringRef cpu, llvm::StringRef key,
                             int64_t threads) const;
  /// Adds `e`, replacing the entry of the same CPU, key and threads.
  void put(const CpuTuningEntry &e);
  /// Removes the entry of `cpu`, `key` and `threads`, if any.
  void erase(llvm::StringRef cpu, llvm::StringRef key, int64_t threads);
};

/// The cache in `text` (JSON: {"format": "accel-cpu-tuning", "version": 1,
/// "entries": [...]}), or an error saying what is wrong and where.
llvm::Expected<CpuTuningCache> parseCpuTuningCache(llvm::StringRef text);
/// The same for the file at `path`.
llvm::Expected<CpuTuningCache> loadCpuTuningCache(llvm::StringRef path);
/// The cache as JSON text (what parseCpuTuningCache reads).
std::string printCpuTuningCache(const CpuTuningCache &cache);

/// The shape class of an accel.matmul or accel.attention: op, element types
/// and each size rounded up to a power of two, e.g. "matmul f32xf32->f32
/// m512 n512 k512" or "attention f32 b1 h8 q1024 kv1024 d64 causal"; ""
/// when a size is dynamic or the op is neither.
std::string cpuTuningKey(Operation *op);

/// The CPU kind a cache is keyed by: the catalogue entry of `features`
/// (cpuTargetForFeatures), else of the module's CPU accel.target (its
/// name); "" when neither says.
std::string cpuTuningCpu(llvm::StringRef features, ModuleOp module);

} // namespace mlir::accel

#endif // ACCEL_TRANSFORMS_CPUTUNING_H
