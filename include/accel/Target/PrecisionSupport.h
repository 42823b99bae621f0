//===- PrecisionSupport.h - precisions a target computes in -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Whether a target has matrix or dot instructions for an input precision
// (docs/precision.md has the table): accel-lower-precision's legality rules.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TARGET_PRECISIONSUPPORT_H
#define ACCEL_TARGET_PRECISIONSUPPORT_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include <string>

namespace mlir::accel {

/// What `target` lacks to compute with inputs of `compute` natively.
struct PrecisionSupport {
  /// The target has the instructions.
  bool native = true;
  /// When not: the feature or chip it would need ("avx512bf16", "sm_89 or
  /// newer", ...).
  std::string requirement;
  /// When not, and there is more to say (gfx942's fp8 is FNUZ): a note.
  std::string note;
};

/// The support `target` has for matmul/attention inputs of `compute` (f32,
/// f16, bf16, f8E4M3FN, f8E5M2 or i8; f32 is always native). CPUs: x86 needs
/// avx512bf16 for bf16 and avx512vnni (or avxvnni) for i8, AArch64 bf16 and
/// i8mm (or dotprod); f16 is a storage format converted for compute; no CPU
/// has fp8. NVIDIA: f16 from sm_70, bf16 and i8 from sm_80, fp8 from sm_89.
/// AMD: MFMA (gfx908, gfx90a, gfx94x, gfx950) or WMMA (gfx11, gfx12) for
/// f16/bf16/i8; OCP fp8 on gfx950 and gfx12 (gfx94x has the FNUZ variants
/// only). Systolic and model targets: a positive peak for the precision.
PrecisionSupport getPrecisionSupport(TargetAttr target, Type compute);

} // namespace mlir::accel

#endif // ACCEL_TARGET_PRECISIONSUPPORT_H
