//===- GpuIsa.cpp - what a GPU chip's name says about its ISA -------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Sources: CUDA C++ Programming Guide (compute capabilities; mma.sync and
// wgmma availability in the PTX ISA 8.4 manual), the LLVM AMDGPU backend's
// processor table (AMDGPUUsage: MFMA on gfx908/gfx90a/gfx94x/gfx950, WMMA
// on gfx11/gfx12, FNUZ fp8 on gfx94x, OCP fp8 on gfx950/gfx12).
//
//===----------------------------------------------------------------------===//

#include "accel/Target/GpuIsa.h"
#include "accel/Target/Catalogue.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

static std::optional<GpuIsa> nvidiaIsa(StringRef chip) {
  StringRef digits =
      chip.take_while([](char c) { return c >= '0' && c <= '9'; });
  unsigned sm;
  if (digits.empty() || digits.getAsInteger(10, sm))
    return std::nullopt;
  StringRef suffix = chip.drop_front(digits.size());
  if (!suffix.empty() && suffix != "a" && suffix != "f")
    return std::nullopt;
  GpuIsa isa;
  isa.vendor = GpuIsa::Vendor::Nvidia;
  isa.smVersion = int(sm);
  isa.archSpecific = suffix == "a";
  isa.f16MmaSync = sm >= 70;
  isa.mmaSync = sm >= 80;
  isa.fp8MmaSync = sm >= 89;
  isa.wgmma = sm == 90 && isa.archSpecific;
  isa.waveSize = 32;
  isa.ptxFeatures = sm >= 89 ? "+ptx84" : "+ptx80";
  isa.generation = sm == 80 || sm == 86 ? GpuIsa::Generation::Ampere
                   : sm == 89           ? GpuIsa::Generation::Ada
                   : sm == 90           ? GpuIsa::Generation::Hopper
                                        : GpuIsa::Generation::Other;
  return isa;
}

static std::optional<GpuIsa> amdIsa(StringRef chip) {
  if (chip.empty() || !llvm::all_of(chip, [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      }))
    return std::nullopt;
  GpuIsa isa;
  isa.vendor = GpuIsa::Vendor::Amd;
  std::string gfx = ("gfx" + chip).str();
  bool cdna3 = chip.starts_with("94");
  isa.mfma = chip == "908" || chip == "90a" || chip == "950" || cdna3;
  isa.wmma = chip.starts_with("11") || chip.starts_with("12");
  isa.fp8Fnuz = cdna3;
  isa.xf32Mfma = cdna3;
  isa.fp8Ocp = chip == "950" || chip.starts_with("12");
  isa.i8MatrixK = cdna3 || chip == "950" ? 32 : 16;
  // CDNA has wave64 only; RDNA 3 is compiled for wave32.
  isa.waveSize = chip.starts_with("11") ? 32 : 64;
  isa.generation = chip == "90a"    ? GpuIsa::Generation::Cdna2
                   : chip == "942"  ? GpuIsa::Generation::Cdna3
                   : chip == "1100" ? GpuIsa::Generation::Rdna3
                                    : GpuIsa::Generation::Other;
  return isa;
}

std::optional<GpuIsa> mlir::accel::getGpuIsa(StringRef chip) {
  if (chip.consume_front("sm_"))
    return nvidiaIsa(chip);
  if (chip.consume_front("gfx"))
    return amdIsa(chip);
  return std::nullopt;
}

llvm::ArrayRef<std::string> mlir::accel::getImplementedGpuChips() {
  static const std::vector<std::string> chips = [] {
    std::vector<std::string> out;
    auto add = [&](StringRef chip) {
      if (!llvm::is_contained(out, chip.str()))
        out.push_back(chip.str());
    };
    for (const TargetSpec &spec : getTargetCatalogue()) {
      if (spec.kind != TargetKind::NVPTX && spec.kind != TargetKind::AMDGPU)
        continue;
      std::optional<GpuIsa> isa = getGpuIsa(spec.chip);
      if (!isa || !isa->isImplemented())
        continue;
      StringRef chip = spec.chip;
      if (isa->archSpecific)
        add(chip.drop_back());
      add(chip);
    }
    return out;
  }();
  return chips;
}
