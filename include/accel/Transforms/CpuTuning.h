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
// It also holds calibrated time models (docs/configure.md, "Calibrated time
// model"): per CPU kind, kernel and thread count, the rates fitted to the
// times the tuner measured, which accel-roofline and accel-run --roofline
// use in place of the catalogue's peaks.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_CPUTUNING_H
#define ACCEL_TRANSFORMS_CPUTUNING_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
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

/// One measured call of a kernel: a tuner case's work and median time.
struct CpuTimingSample {
  std::string label; // the tuner's case, e.g. "f32 GEMM 512³"
  double flops = 0;  // RooflineCost::flops
  double scores = 0; // RooflineCost::scores (softmax elements)
  double bytes = 0;  // RooflineCost::bytes (operands read, results written)
  double ms = 0;     // the median time of one call
};

/// A kernel's time on a CPU kind and thread count, fitted to samples:
///   time = flops / rate + scores x perScore + bytes' x perByte + perCall
/// where bytes' are the op's bytes when they exceed `cacheBytes` (the
/// cores' L2 at calibration), else 0: operands in cache cost no traffic
/// (each term >= 0; getCalibratedSeconds adds the bandwidth bound of an op
/// larger than the cores' L2). The fit minimises the squared relative
/// error over the samples, so small and large calls weigh alike, and keeps
/// only the terms that predict each sample best from the others
/// (leave-one-out), so a term the samples do not need does not fit noise.
struct CpuKernelCalibration {
  std::string cpu, kernel;
  int64_t threads = 1;
  double gflops = 0;     // the rate of its products, GFLOP/s (> 0)
  double nsPerScore = 0; // each softmax element: exp and row statistics
  double nsPerByte = 0;  // each operand byte: packing, copies, first reads
  double usPerCall = 0;  // a call's fixed cost: threads, set-up
  double cacheBytes = 0; // operands up to this size: no byte term
  std::vector<CpuTimingSample> samples;
};

/// The calibration of `kernel` fitted to `samples` (at least one with
/// flops > 0 and a time > 0); none when they do not determine a rate.
std::optional<CpuKernelCalibration>
fitCpuKernelCalibration(llvm::StringRef cpu, llvm::StringRef kernel,
                        int64_t threads, double cacheBytes,
                        llvm::ArrayRef<CpuTimingSample> samples);
/// The calibrated time in ms of a call with this work (the fitted terms
/// only; getCalibratedSeconds adds the bandwidth bound).
double predictCalibratedMs(const CpuKernelCalibration &c, double flops,
                           double scores, double bytes);

struct CpuTuningCache {
  std::vector<CpuTuningEntry> entries;
  std::vector<CpuKernelCalibration> calibrations;
  /// The calibration of `kernel` on `cpu` with `threads` threads, if any.
  const CpuKernelCalibration *findCalibration(llvm::StringRef cpu,
                                              llvm::StringRef kernel,
                                              int64_t threads) const;
  /// Adds `c`, replacing the one of the same CPU, kernel and threads.
  void putCalibration(const CpuKernelCalibration &c);
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
/// "entries": [...], "calibrations": [...]}, the last optional), or an error
/// saying what is wrong and where.
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
