//===- PrecisionSupport.cpp - which precisions a target computes in -------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The rules are the instruction sets' (sources in docs/precision.md): what
// the chip's matrix or dot instructions take as inputs.
//
//===----------------------------------------------------------------------===//

#include "accel/Target/PrecisionSupport.h"
#include "accel/Target/GpuIsa.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::accel;

namespace {
/// The precision being asked for, as the rules see it.
enum class Kind { F32, F16, BF16, F8, I8 };
} // namespace

static Kind kindOf(Type t) {
  if (t.isF16())
    return Kind::F16;
  if (t.isBF16())
    return Kind::BF16;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return Kind::F8;
  if (t.isInteger(8))
    return Kind::I8;
  return Kind::F32;
}

static PrecisionSupport needs(std::string requirement, std::string note = "") {
  return PrecisionSupport{false, std::move(requirement), std::move(note)};
}

static PrecisionSupport cpuSupport(TargetAttr target, Kind kind) {
  bool aarch64 = target.hasFeature("neon") || target.hasFeature("sve");
  switch (kind) {
  case Kind::F32:
  case Kind::F16:
    // f16 is a storage format on CPUs: converted to f32 for compute.
    return {};
  case Kind::BF16:
    if (aarch64)
      return target.hasFeature("bf16") ? PrecisionSupport{}
                                       : needs("bf16 (BFDOT/BFMMLA)");
    return target.hasFeature("avx512bf16") ? PrecisionSupport{}
                                           : needs("avx512bf16 (vdpbf16ps)");
  case Kind::I8:
    if (aarch64)
      return target.hasFeature("i8mm") || target.hasFeature("dotprod")
                 ? PrecisionSupport{}
                 : needs("i8mm or dotprod (SMMLA/SDOT)");
    return target.hasFeature("avx512vnni") || target.hasFeature("avxvnni")
               ? PrecisionSupport{}
               : needs("avx512vnni (VNNI vpdpbusd)");
  case Kind::F8:
    if (aarch64)
      return target.hasFeature("fp8dot4") ? PrecisionSupport{}
                                          : needs("fp8dot4 (FP8 dot products)");
    return needs("fp8 arithmetic, which x86 CPUs do not have");
  }
  return {};
}

static PrecisionSupport nvptxSupport(TargetAttr target, Kind kind) {
  // The chip's matrix instructions (GpuIsa.h); a chip of no sm_NN form
  // has none.
  GpuIsa isa = getGpuIsa(target.getChip()).value_or(GpuIsa{});
  auto needing = [&](bool has, int min, StringRef what) {
    return has ? PrecisionSupport{}
               : needs(("sm_" + Twine(min) + " or newer (" + what + ")").str());
  };
  switch (kind) {
  case Kind::F32:
    return {};
  case Kind::F16:
    return needing(isa.f16MmaSync, 70, "f16 mma");
  case Kind::BF16:
    return needing(isa.mmaSync, 80, "bf16 mma");
  case Kind::I8:
    return needing(isa.mmaSync, 80, "int8 mma");
  case Kind::F8:
    return needing(isa.fp8MmaSync, 89, "fp8 mma: e4m3/e5m2");
  }
  return {};
}

static PrecisionSupport amdgpuSupport(TargetAttr target, Kind kind) {
  StringRef chip = target.getChip();
  GpuIsa isa = getGpuIsa(chip).value_or(GpuIsa{});
  bool mfma = isa.mfma, wmma = isa.wmma, ocpF8 = isa.fp8Ocp;
  switch (kind) {
  case Kind::F32:
    return {};
  case Kind::F16:
  case Kind::BF16:
  case Kind::I8:
    return mfma || wmma ? PrecisionSupport{}
                        : needs("matrix instructions (MFMA on gfx908, gfx90a, "
                                "gfx94x, gfx950; WMMA on gfx11, gfx12)");
  case Kind::F8:
    if (ocpF8)
      return {};
    if (isa.fp8Fnuz)
      return needs("OCP fp8 (f8E4M3FN, f8E5M2) matrix instructions",
                   (chip + "'s fp8 is the FNUZ variants (f8E4M3FNUZ, "
                           "f8E5M2FNUZ), which accel ops do not accept yet")
                       .str());
    return needs("OCP fp8 matrix instructions (gfx950, gfx12)");
  }
  return {};
}

/// Systolic arrays and described-only targets: the catalogue's peak for the
/// precision says whether the hardware has it (0: unsupported).
static PrecisionSupport peakSupport(TargetAttr target, Type compute,
                                    Kind kind) {
  if (kind == Kind::F32 || target.getPeakFlops(compute) > 0.0)
    return {};
  StringRef field = kind == Kind::F16    ? "peak_f16"
                    : kind == Kind::BF16 ? "peak_bf16"
                    : kind == Kind::F8   ? "peak_f8"
                                         : "peak_i8";
  return needs(("a positive " + field + " (the description has none)").str());
}

PrecisionSupport mlir::accel::getPrecisionSupport(TargetAttr target,
                                                  Type compute) {
  Kind kind = kindOf(compute);
  switch (target.getKind()) {
  case TargetKind::CPU:
    return cpuSupport(target, kind);
  case TargetKind::NVPTX:
    return nvptxSupport(target, kind);
  case TargetKind::AMDGPU:
    return amdgpuSupport(target, kind);
  case TargetKind::Systolic:
  case TargetKind::Model:
    return peakSupport(target, compute, kind);
  }
  return {};
}
