//===- Catalogue.h - catalogue of hardware targets --------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The hardware the compiler knows by name (docs/targets.md gives the source
// of every figure). Each entry becomes an #accel.target attribute.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TARGET_CATALOGUE_H
#define ACCEL_TARGET_CATALOGUE_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace mlir {
class InFlightDiagnostic;
class MLIRContext;
namespace accel {

/// One catalogue entry: the parameters of #accel.target, as plain data.
struct TargetSpec {
  const char *name;
  TargetKind kind;
  const char *chip;
  /// Comma-separated ISA features; empty for none.
  const char *features;
  int64_t computeUnits;
  double clockGhz;
  double peakF32, peakTf32, peakF16, peakBf16, peakF8, peakI8;
  double memoryGib, memoryGbps;
  int64_t localMemoryKib, l2Kib, llcKib;
  int64_t matrixUnit[3];
  int64_t warpSize;
  /// One line saying what the entry describes (docs/targets.md cites it).
  const char *description;
  /// The interconnect collectives run over (docs/distributed.md): the link
  /// bandwidth per device and direction within a scale-up domain of
  /// `scaleUpDevices` devices (NVLink, ICI, Infinity Fabric, PCIe), the
  /// NIC's beyond it, and a per-step latency; zeros when not catalogued.
  const char *linkName = "";
  double linkGBps = 0, scaleOutGBps = 0, linkLatencyUs = 0;
  int64_t scaleUpDevices = 0;
};

/// Every entry, in catalogue order.
llvm::ArrayRef<TargetSpec> getTargetCatalogue();

/// The entry called `name`, or nullptr.
const TargetSpec *findTargetSpec(llvm::StringRef name);

/// The first entry of the catalogue with `chip` as its chip (for a
/// portable NVIDIA chip such as sm_90, its arch-specific sibling's, sm_90a),
/// or nullptr: the figures a back end assumes for a chip given by name.
const TargetSpec *findTargetSpecForChip(llvm::StringRef chip);

/// The CPU entry a CPU with `features` (LLVM's names, comma separated, `+`
/// optional) is: x86-64-sapphirerapids with AMX bf16 tiles, x86-64-avx512
/// with AVX-512, else x86-64-avx2.
const TargetSpec *cpuTargetForFeatures(llvm::StringRef features);

/// The attribute for `spec`. With `emitError`, a spec that fails the
/// attribute's verifier is reported there and gives a null attribute.
TargetAttr getTargetAttr(
    MLIRContext *ctx, const TargetSpec &spec,
    llvm::function_ref<InFlightDiagnostic()> emitError = nullptr);

/// The attribute for the entry called `name`, or a null attribute.
TargetAttr lookupTarget(MLIRContext *ctx, llvm::StringRef name);

/// The module attribute that holds a module's target (accel-attach-target).
inline constexpr llvm::StringLiteral kTargetAttrName = "accel.target";

/// The target a pass works for: the catalogue entry `name` when given, else
/// the module's `accel.target`, else the entry `fallback` (a null attribute
/// when `fallback` is empty). An unknown `name` is a located error at
/// `module` that names `pass`.
FailureOr<TargetAttr> resolveTarget(ModuleOp module, llvm::StringRef name,
                                    llvm::StringRef pass,
                                    llvm::StringRef fallback = "");

} // namespace accel
} // namespace mlir

#endif // ACCEL_TARGET_CATALOGUE_H
