//===- GpuIsa.h - what a GPU chip's name says about its ISA -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The one place where a GPU chip name (sm_NN[a], gfxNNN) becomes the
// instruction-set facts the compiler acts on: its matrix instructions, fp8
// formats, wave size, PTX version. The chip's figures (SMs, shared memory,
// peaks) are the target catalogue's (Catalogue.h). Everything that needs
// one of these facts (GpuTargetInfo, the precision rules, the GPU
// pipelines) reads it here, so a new chip of a generation the back end
// implements is one catalogue row (docs/architecture.md, "Adding a chip").
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TARGET_GPUISA_H
#define ACCEL_TARGET_GPUISA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace accel {

struct GpuIsa {
  enum class Vendor { Nvidia, Amd };
  /// The generations the GPU back end implements, and Other for the rest.
  enum class Generation { Ampere, Ada, Hopper, Cdna2, Cdna3, Rdna3, Other };

  Vendor vendor = Vendor::Nvidia;
  Generation generation = Generation::Other;
  /// NVIDIA: NN of sm_NN (80, 86, 89, 90, 100); -1 for AMD.
  int smVersion = -1;
  /// NVIDIA: an arch-specific target (sm_90a), whose features (wgmma) do
  /// not carry to later chips.
  bool archSpecific = false;

  /// NVIDIA mma.sync: f16 from sm_70, bf16/tf32/i8 from sm_80, the OCP fp8
  /// formats (f8E4M3FN, f8E5M2) from sm_89.
  bool f16MmaSync = false, mmaSync = false, fp8MmaSync = false;
  /// NVIDIA Hopper's warpgroup MMA: sm_90a only.
  bool wgmma = false;
  /// AMD matrix cores: MFMA (CDNA: gfx908, gfx90a, gfx94x, gfx950), WMMA
  /// (RDNA 3 and 4: gfx11, gfx12).
  bool mfma = false, wmma = false;
  /// AMD fp8 matrix instructions: on the FNUZ formats (gfx94x) or the OCP
  /// formats (gfx950, gfx12).
  bool fp8Fnuz = false, fp8Ocp = false;
  /// AMD xf32 MFMA (v_mfma_f32_16x16x8_xf32: f32 registers read with
  /// TF32's 10 mantissa bits): CDNA 3 (gfx94x) only; gfx950 dropped it.
  bool xf32Mfma = false;
  /// K of the i8 MFMA 16x16 instruction: 32 from CDNA 3
  /// (v_mfma_i32_16x16x32_i8), 16 before; 16 for WMMA.
  int i8MatrixK = 16;
  /// Lanes of a warp or wavefront as the back end compiles it (RDNA:
  /// wave32).
  int waveSize = 32;
  /// NVIDIA: the PTX ISA the kernels are emitted for: 8.0 on Ampere (what
  /// older drivers still JIT), 8.4 from sm_89 (its f8 mma.sync needs it).
  const char *ptxFeatures = "";

  /// Whether accel's GPU back end compiles for this generation.
  bool isImplemented() const { return generation != Generation::Other; }
};

/// The ISA facts of `chip` (any sm_NN[a|f] or gfxNNN), or nullopt for a name
/// of neither form.
std::optional<GpuIsa> getGpuIsa(llvm::StringRef chip);

/// The chips the GPU back end compiles for: every NVIDIA and AMD chip of
/// the target catalogue whose generation it implements, and before each
/// arch-specific NVIDIA chip its portable sibling (sm_90 before sm_90a),
/// in catalogue order without repeats.
llvm::ArrayRef<std::string> getImplementedGpuChips();

} // namespace accel
} // namespace mlir

#endif // ACCEL_TARGET_GPUISA_H
