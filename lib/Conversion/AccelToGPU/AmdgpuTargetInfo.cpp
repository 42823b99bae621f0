//===- AmdgpuTargetInfo.cpp - AMD chips for the GPU lowering --------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The AMD implementation of GpuTargetInfo: CDNA2 (gfx90a, MI210/MI250X) and
// CDNA3 (gfx942, MI300X) with wave64 and MFMA, RDNA3 (gfx1100, RX 7900 XTX)
// with wave32 and WMMA. Instruction shapes and fragment layouts follow the
// AMD Instinct MI200/MI300 ISA references ("Matrix fused-multiply-add
// instructions", the operand layout tables of v_mfma_*_16x16x*) and the
// RDNA3 ISA reference ("Wave matrix multiply-accumulate"): the lowering
// emits `amdgpu.mfma` / `amdgpu.wmma`, which pick the intrinsic.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Target/GpuIsa.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::accel;

namespace {

class AmdgpuTargetInfo : public GpuTargetInfo {
public:
  AmdgpuTargetInfo(StringRef chip, const GpuIsa &isa,
                   const GpuChipFigures &figures)
      : chip(chip.str()), numCUs(figures.computeUnits),
        lds(figures.localMemoryKib * 1024), fp8Fnuz(isa.fp8Fnuz),
        waveSize(isa.waveSize) {
    rdna = isa.wmma;
    if (rdna) {
      // v_wmma_f32_16x16x16_{f16,bf16}, v_wmma_i32_16x16x16_iu8: 16 K of
      // one row (A) or column (B) per lane, lanes 16-31 repeating 0-15.
      instrs = {{GpuMmaType::F16, false, 16, 16, 16},
                {GpuMmaType::BF16, false, 16, 16, 16},
                {GpuMmaType::I8, true, 16, 16, 16}};
    } else {
      // v_mfma_f32_16x16x16_f16, v_mfma_f32_16x16x16_bf16 (bf16_1k), and
      // v_mfma_i32_16x16x16_i8 (gfx90a) / v_mfma_i32_16x16x32_i8 (gfx942).
      instrs = {{GpuMmaType::F16, false, 16, 16, 16},
                {GpuMmaType::BF16, false, 16, 16, 16},
                {GpuMmaType::I8, true, 16, 16, isa.i8MatrixK}};
      // gfx942: v_mfma_f32_16x16x32_{fp8_fp8,fp8_bf8,bf8_fp8,bf8_bf8} on
      // the FNUZ formats (fp8 = f8E4M3FNUZ, bf8 = f8E5M2FNUZ).
      if (isa.fp8Fnuz) {
        instrs.push_back({GpuMmaType::F8E4M3FNUZ, false, 16, 16, 32});
        instrs.push_back({GpuMmaType::F8E5M2FNUZ, false, 16, 16, 32});
      }
      // gfx942: v_mfma_f32_16x16x8_xf32, 2 K per lane, for f32 inputs that
      // are TF32 values (accel.tf32_inputs).
      if (isa.xf32Mfma)
        instrs.push_back({GpuMmaType::TF32, false, 16, 16, 8});
    }
  }

  StringRef getTargetName() const override { return "amdgpu"; }
  StringRef getChip() const override { return chip; }
  StringRef getSharedMemoryName() const override { return "LDS"; }
  ArrayRef<StringRef> getMmaFamilies() const override {
    static const StringRef mfma[] = {"mfma", "fma"}, wmma[] = {"wmma", "fma"};
    return rdna ? ArrayRef<StringRef>(wmma) : ArrayRef<StringRef>(mfma);
  }
  ArrayRef<StringRef> getVendorMmaFamilies() const override {
    static const StringRef all[] = {"mfma", "wmma", "fma"};
    return all;
  }
  int64_t getWarpSize() const override { return waveSize; }
  int64_t getMaxThreadsPerBlock() const override { return 1024; }
  /// A workgroup may use all of its CU's LDS (64 KiB on all three).
  int64_t getMaxSharedMemoryPerBlock() const override { return lds; }
  std::array<int64_t, 3> getMaxGridSize() const override {
    return {2147483647, 65535, 65535};
  }
  int64_t getNumMultiprocessors() const override { return numCUs; }
  bool hasAsyncCopy() const override { return false; }
  ArrayRef<GpuMmaInstr> getMmaInstrs() const override { return instrs; }

  std::optional<GpuLaneLayout>
  getLaneLayout(const GpuMmaInstr &instr) const override {
    GpuLaneLayout l;
    if (rdna) {
      // WMMA (wave32): all 16 K per lane; C element e of lane l at row
      // 2e + l / 16.
      l.kPerLane = instr.k;
      l.kGroups = 1;
      l.accPerLane = 8;
      l.accRowStep = 2;
      l.accLaneRowStep = 1;
    } else {
      // MFMA 16x16xk (wave64): the 4 lane groups split K; C element e of
      // lane l at row 4 (l / 16) + e.
      l.kPerLane = instr.k / 4;
      l.kGroups = 4;
      l.accPerLane = 4;
      l.accRowStep = 1;
      l.accLaneRowStep = 4;
    }
    return l;
  }

  Value createMma(OpBuilder &b, Location loc, const GpuMmaInstr &instr, Value a,
                  Value bFrag, Value c) const override {
    if (rdna)
      // Signed i8 (unsignedA/B unset); no clamp, so i32 sums wrap.
      return amdgpu::WMMAOp::create(b, loc, c.getType(), instr.m, instr.n,
                                    instr.k, a, bFrag, c);
    // i8 products wrap in i32, as accel.matmul's contract says.
    auto mfma = amdgpu::MFMAOp::create(b, loc, c.getType(), instr.m, instr.n,
                                       instr.k, /*blocks=*/1, a, bFrag, c);
    // f32 inputs (TF32 values): the xf32 instruction, which the MFMA
    // wrapper selects with reducePrecision.
    if (instr.input == GpuMmaType::TF32)
      mfma.setReducePrecision(true);
    return mfma;
  }

  /// llvm.amdgcn.exp2, the v_exp_f32 instruction (no device library;
  /// convert-gpu-to-rocdl would send llvm.exp2 to ocml).
  Value createExp2(OpBuilder &b, Location loc, Value v) const override {
    return LLVM::CallIntrinsicOp::create(b, loc, v.getType(),
                                         b.getStringAttr("llvm.amdgcn.exp2"),
                                         ValueRange{v})
        .getResult(0);
  }

protected:
  std::string getMissingMmaHint(GpuMmaType input) const override {
    if (input == GpuMmaType::F8E4M3FNUZ || input == GpuMmaType::F8E5M2FNUZ)
      return " (AMD fp8 matrix instructions start with gfx942)";
    if (input == GpuMmaType::F8E4M3FN || input == GpuMmaType::F8E5M2)
      return !fp8Fnuz
                 ? " (AMD fp8 matrix instructions start with gfx942)"
                 : " (gfx942's fp8 MFMA takes the FNUZ formats, f8E4M3FNUZ "
                   "and f8E5M2FNUZ; the OCP formats need gfx950)";
    if (input == GpuMmaType::TF32)
      return rdna ? " (RDNA3 has no f32 WMMA)"
                  : " (xf32 MFMA is CDNA 3's, gfx94x, only)";
    return "";
  }

private:
  std::string chip;
  bool rdna = false;
  SmallVector<GpuMmaInstr> instrs;
  int64_t numCUs = 0;
  int64_t lds = 0;
  bool fp8Fnuz = false;
  int64_t waveSize = 64;
};

} // namespace

std::unique_ptr<GpuTargetInfo>
mlir::accel::createAmdgpuTargetInfo(StringRef chip,
                                    const GpuChipFigures &figures) {
  std::optional<GpuIsa> isa = getGpuIsa(chip);
  if (!isa || isa->vendor != GpuIsa::Vendor::Amd || !isa->isImplemented())
    return nullptr;
  return std::make_unique<AmdgpuTargetInfo>(chip, *isa, figures);
}
