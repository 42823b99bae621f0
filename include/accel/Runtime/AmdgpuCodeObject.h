//===- AmdgpuCodeObject.h - resources of a kernel in a HSACO ----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Reads what one kernel of an AMDGPU code object (HSACO, an ELF file) uses,
// from the two places the code object states it: the kernel descriptor
// (the 64-byte `<kernel>.kd` symbol the hardware reads at dispatch: LDS and
// scratch bytes, the granulated VGPR and SGPR blocks of COMPUTE_PGM_RSRC1,
// the AGPR offset of COMPUTE_PGM_RSRC3 on gfx90a and later) and the
// NT_AMDGPU_METADATA note (msgpack: exact VGPR/AGPR/SGPR counts, spills,
// the wavefront size). Layouts: LLVM's AMDGPUUsage ("Kernel Descriptor",
// "Code Object V3+ Metadata") and llvm/Support/AMDHSAKernelDescriptor.h.
// Also estimates the occupancy the resources allow.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_RUNTIME_AMDGPUCODEOBJECT_H
#define ACCEL_RUNTIME_AMDGPUCODEOBJECT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>

namespace mlir {
namespace accel {

struct AmdgpuKernelResources {
  /// From the kernel descriptor.
  int64_t groupSegmentBytes = 0;   // static LDS
  int64_t privateSegmentBytes = 0; // scratch per work-item
  int64_t kernargBytes = 0;
  /// VGPRs the descriptor allocates: (GRANULATED_WORKITEM_VGPR_COUNT + 1)
  /// times the encoding granule (8 on gfx90a/gfx942, where it covers VGPRs
  /// and AGPRs together, and on gfx11 in wave32).
  int64_t allocatedVgprs = 0;
  /// gfx90a and later: the first AGPR ((ACCUM_OFFSET + 1) * 4); 0 before.
  int64_t accumOffset = 0;
  /// From the metadata note. On gfx90a and later `vgprs` is the unified
  /// count, AGPRs included (`agprs` says how many of them are AGPRs).
  int64_t vgprs = 0, agprs = 0, sgprs = 0;
  int64_t vgprSpills = 0, sgprSpills = 0;
  int64_t wavefrontSize = 0;
  int64_t maxFlatWorkgroupSize = 0;
};

/// The resources of `kernel` in the code object `elf` for `chip` (which
/// fixes the VGPR granule). Fails with a message naming what is missing or
/// malformed; never reads outside `elf`.
llvm::Expected<AmdgpuKernelResources>
readAmdgpuKernelResources(llvm::StringRef elf, llvm::StringRef kernel,
                          llvm::StringRef chip);

/// Waves per SIMD that can be resident for a kernel with `resources`,
/// `ldsBytes` of LDS per workgroup (static + dynamic) and `workgroupSize`
/// work-items, on `chip`: the least of the hardware limit (8 waves per SIMD
/// on CDNA2/3, 16 on RDNA3), the register file (512 VGPRs a lane per SIMD
/// on CDNA2/3, unified with the AGPRs; 1536 in wave32 on RDNA3, allocated in
/// blocks of 8 and 24) and the LDS (64 KiB per CU shared by the workgroups
/// on it; 4 SIMDs per CU on CDNA, 2 on RDNA3). 0 when a workgroup cannot
/// fit at all.
int64_t estimateAmdgpuWavesPerSimd(const AmdgpuKernelResources &resources,
                                   llvm::StringRef chip, int64_t ldsBytes,
                                   int64_t workgroupSize);

} // namespace accel
} // namespace mlir

#endif // ACCEL_RUNTIME_AMDGPUCODEOBJECT_H
