//===- GpuTargetInfo.cpp - NVIDIA chips for the GPU lowering --------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The NVIDIA implementation of GpuTargetInfo: the instruction set of the
// Ampere, Ada and Hopper chips (the mma.sync instructions of the PTX ISA,
// "Warp-level matrix multiply-accumulate instructions"; per-block limits of
// the CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability"), with the figures of a part (multiprocessors, shared memory)
// from the target catalogue.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Target/GpuIsa.h"
#include "accel/Target/Catalogue.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::accel;

GpuTargetInfo::~GpuTargetInfo() = default;

StringRef mlir::accel::stringifyGpuMmaType(GpuMmaType type) {
  switch (type) {
  case GpuMmaType::F16:
    return "f16";
  case GpuMmaType::BF16:
    return "bf16";
  case GpuMmaType::TF32:
    return "tf32";
  case GpuMmaType::F8E4M3FN:
    return "f8E4M3FN";
  case GpuMmaType::F8E5M2:
    return "f8E5M2";
  case GpuMmaType::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case GpuMmaType::F8E5M2FNUZ:
    return "f8E5M2FNUZ";
  case GpuMmaType::I8:
    return "i8";
  }
  return "?";
}

std::optional<GpuMmaType> mlir::accel::getGpuMmaType(Type type) {
  if (type.isF16())
    return GpuMmaType::F16;
  if (type.isBF16())
    return GpuMmaType::BF16;
  if (type.isF32())
    return GpuMmaType::TF32;
  if (isa<Float8E4M3FNType>(type))
    return GpuMmaType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return GpuMmaType::F8E5M2;
  if (isa<Float8E4M3FNUZType>(type))
    return GpuMmaType::F8E4M3FNUZ;
  if (isa<Float8E5M2FNUZType>(type))
    return GpuMmaType::F8E5M2FNUZ;
  if (type.isSignlessInteger(8))
    return GpuMmaType::I8;
  return std::nullopt;
}

std::optional<GpuMmaInstr> GpuTargetInfo::findMma(GpuMmaType input,
                                                  std::string &why) const {
  for (const GpuMmaInstr &instr : getMmaInstrs())
    if (instr.input == input)
      return instr;
  why = (getChip() + " has no matrix instruction for " +
         stringifyGpuMmaType(input) + " inputs")
            .str();
  why += getMissingMmaHint(input);
  return std::nullopt;
}

namespace {

/// Ampere (sm_80, sm_86), Ada (sm_89) and Hopper (sm_90, sm_90a). mma.sync
/// runs on every one of them; sm_90a also has wgmma (hasWarpgroupMma: the
/// GEMM kernel emits it itself, AccelToGPU.cpp).
class NvidiaTargetInfo : public GpuTargetInfo {
public:
  NvidiaTargetInfo(StringRef chip, const GpuIsa &isa,
                   const GpuChipFigures &figures)
      : chip(chip.str()), wgmma(isa.wgmma) {
    // The instruction each input type uses (f32 accumulation; i32 for i8).
    instrs = {{GpuMmaType::F16, false, 16, 8, 16},
              {GpuMmaType::BF16, false, 16, 8, 16},
              {GpuMmaType::TF32, false, 16, 8, 8},
              {GpuMmaType::I8, true, 16, 8, 32}};
    if (isa.fp8MmaSync) {
      instrs.push_back({GpuMmaType::F8E4M3FN, false, 16, 8, 32});
      instrs.push_back({GpuMmaType::F8E5M2, false, 16, 8, 32});
    }
    // The opt-in maximum of shared memory per block: the SM's, less the
    // 1 KiB the CUDA runtime reserves per block (CUDA C++ Programming
    // Guide, "Shared Memory" of compute capabilities 8.x and 9.0: 164 KiB
    // an SM and 163 a block on sm_80, 100 and 99 on sm_86/sm_89, 228 and
    // 227 on sm_90).
    maxShared = (figures.localMemoryKib - 1) * 1024;
    numSMs = figures.computeUnits;
  }

  StringRef getTargetName() const override { return "nvptx"; }
  StringRef getChip() const override { return chip; }
  int64_t getWarpSize() const override { return 32; }
  int64_t getMaxThreadsPerBlock() const override { return 1024; }
  int64_t getMaxSharedMemoryPerBlock() const override { return maxShared; }
  std::array<int64_t, 3> getMaxGridSize() const override {
    return {2147483647, 65535, 65535};
  }
  int64_t getNumMultiprocessors() const override { return numSMs; }
  bool hasAsyncCopy() const override { return true; }
  bool hasWarpgroupMma() const override { return wgmma; }
  /// wgmma is accepted on every chip: the GEMM planner reports per matmul
  /// why it does not apply (not sm_90a, rows 16-byte copies cannot fill).
  ArrayRef<StringRef> getMmaFamilies() const override {
    return getVendorMmaFamilies();
  }
  ArrayRef<StringRef> getVendorMmaFamilies() const override {
    static const StringRef all[] = {"mma.sync", "wgmma", "fma"};
    return all;
  }
  ArrayRef<GpuMmaInstr> getMmaInstrs() const override { return instrs; }

  Value createMma(OpBuilder &b, Location loc, const GpuMmaInstr &instr, Value a,
                  Value bFrag, Value c) const override {
    bool k16 = instr.m == 16 && instr.n == 8 && instr.k == 16;
    bool k32 = instr.m == 16 && instr.n == 8 && instr.k == 32;
    bool k8 = instr.m == 16 && instr.n == 8 && instr.k == 8;
    if (k16 && instr.input == GpuMmaType::F16)
      return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, c,
                                      ArrayRef<int64_t>{16, 8, 16});
    bool f8 = instr.input == GpuMmaType::F8E4M3FN ||
              instr.input == GpuMmaType::F8E5M2;
    bool tf32 = k8 && instr.input == GpuMmaType::TF32;
    if (!(k16 && instr.input == GpuMmaType::BF16) &&
        !(k32 && instr.input == GpuMmaType::I8) && !(k32 && f8) && !tf32)
      return {};
    // The other inputs go to NVVM (or PTX) on the registers themselves,
    // each holding 32 bits of a fragment row (two bf16, four i8 or f8).
    auto registers = [&](Value v, int64_t count) {
      SmallVector<Value> regs;
      auto word = VectorType::get({1}, b.getI32Type());
      for (int64_t i = 0; i < count; ++i) {
        // Row by row: n-D vector.bitcast does not lower to LLVM.
        Value row = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i});
        Value w = vector::BitCastOp::create(b, loc, word, row);
        regs.push_back(
            vector::ExtractOp::create(b, loc, w, ArrayRef<int64_t>{0}));
      }
      return regs;
    };
    SmallVector<Value> aRegs = registers(a, 4), bRegs = registers(bFrag, 2);
    SmallVector<Value> cRegs;
    for (int64_t i = 0; i < 4; ++i)
      cRegs.push_back(vector::ExtractOp::create(
          b, loc, c, ArrayRef<int64_t>{i / 2, i % 2}));
    Type acc = instr.accumulatesInInt ? Type(b.getI32Type()) : b.getF32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {acc, acc, acc, acc});
    Value d;
    if (f8) {
      // nvvm.mma.sync has no dense e4m3/e5m2 shape (MLIR 22): the PTX
      // instruction itself (PTX ISA 8.4, sm_89).
      auto ptxType = [](GpuMmaType t) {
        return t == GpuMmaType::F8E4M3FN ? "e4m3" : "e5m2";
      };
      std::string asmString =
          (Twine("mma.sync.aligned.m16n8k32.row.col.f32.") +
           ptxType(instr.input) + "." +
           ptxType(instr.inputB.value_or(instr.input)) +
           ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};")
              .str();
      SmallVector<Value> operands(aRegs);
      llvm::append_range(operands, bRegs);
      llvm::append_range(operands, cRegs);
      d = LLVM::InlineAsmOp::create(
              b, loc, resultType, operands, asmString,
              "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", /*has_side_effects=*/false,
              /*is_align_stack=*/false, LLVM::TailCallKind::None,
              LLVM::AsmDialectAttr::get(b.getContext(),
                                        LLVM::AsmDialect::AD_ATT),
              /*operand_attrs=*/ArrayAttr())
              .getResult(0);
    } else if (tf32 || instr.input == GpuMmaType::BF16) {
      // bf16 m16n8k16: two bf16 per register. tf32 m16n8k8: one f32 per
      // register, whose low 13 bits the tensor cores ignore (the inputs
      // are TF32 values: accel-lower-precision rounded them to nearest
      // even).
      NVVM::MMATypes type = tf32 ? NVVM::MMATypes::tf32 : NVVM::MMATypes::bf16;
      d = NVVM::MmaOp::create(b, loc, resultType, aRegs, bRegs, cRegs,
                              ArrayRef<int64_t>{16, 8, tf32 ? 8 : 16},
                              std::nullopt, std::nullopt,
                              std::array<NVVM::MMATypes, 2>{type, type},
                              std::array<NVVM::MMALayout, 2>{
                                  NVVM::MMALayout::row, NVVM::MMALayout::col});
    } else {
      // i8: s32 sums that wrap on overflow (accel.matmul's i32 contract;
      // nvgpu.mma.sync would saturate).
      d = NVVM::MmaOp::create(
          b, loc, resultType, aRegs, bRegs, cRegs, ArrayRef<int64_t>{16, 8, 32},
          std::nullopt, NVVM::MMAIntOverflow::wrapped,
          std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::s8, NVVM::MMATypes::s8},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
    }
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i)
      elems.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return vector::FromElementsOp::create(b, loc, c.getType(), elems);
  }

  /// ex2.approx.ftz.f32 through the NVVM intrinsic, as convert-gpu-to-nvvm
  /// would turn llvm.intr.exp2 and math.exp2 into libdevice calls.
  Value createExp2(OpBuilder &b, Location loc, Value v) const override {
    return LLVM::CallIntrinsicOp::create(
               b, loc, v.getType(),
               b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{v})
        .getResult(0);
  }

protected:
  std::string getMissingMmaHint(GpuMmaType input) const override {
    if (input == GpuMmaType::F8E4M3FNUZ || input == GpuMmaType::F8E5M2FNUZ)
      return " (the FNUZ fp8 formats are AMD's; NVIDIA's fp8 is f8E4M3FN "
             "and f8E5M2)";
    StringRef first =
        input == GpuMmaType::F8E4M3FN || input == GpuMmaType::F8E5M2 ? "sm_89"
                                                                     : "sm_80";
    return (" (" + stringifyGpuMmaType(input) + " needs " + first +
            " or newer)")
        .str();
  }

private:
  std::string chip;
  bool wgmma = false;
  SmallVector<GpuMmaInstr> instrs;
  int64_t maxShared = 0;
  int64_t numSMs = 0;
};

} // namespace

ArrayRef<StringRef> mlir::accel::getKnownGpuChips() {
  // The catalogue's chips of the generations this back end implements
  // (GpuIsa.h): a new chip of one of them is a catalogue row.
  static const std::vector<StringRef> chips(getImplementedGpuChips().begin(),
                                            getImplementedGpuChips().end());
  return chips;
}

std::unique_ptr<GpuTargetInfo>
mlir::accel::createGpuTargetInfo(StringRef chip,
                                 const GpuChipFigures &figures) {
  if (!llvm::is_contained(getKnownGpuChips(), chip))
    return nullptr;
  GpuIsa isa = *getGpuIsa(chip);
  if (isa.vendor == GpuIsa::Vendor::Amd)
    return createAmdgpuTargetInfo(chip, figures);
  return std::make_unique<NvidiaTargetInfo>(chip, isa, figures);
}

std::unique_ptr<GpuTargetInfo>
mlir::accel::createGpuTargetInfo(StringRef chip) {
  const TargetSpec *spec = findTargetSpecForChip(chip);
  if (!spec || !llvm::is_contained(getKnownGpuChips(), chip))
    return nullptr;
  return createGpuTargetInfo(
      chip, {spec->computeUnits, spec->localMemoryKib});
}
