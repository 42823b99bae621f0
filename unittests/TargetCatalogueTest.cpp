//===- TargetCatalogueTest.cpp - the target catalogue ---------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Target/Catalogue.h"
#include "accel/Target/GpuIsa.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::accel;

namespace {

class TargetCatalogueTest : public ::testing::Test {
protected:
  TargetCatalogueTest() { ctx.getOrLoadDialect<AccelDialect>(); }
  MLIRContext ctx;
};

/// Builds `spec` through the verifier; returns the diagnostic, or "" when
/// the attribute verified.
static std::string verifyMessage(MLIRContext &ctx, const TargetSpec &spec) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&ctx)); };
  TargetAttr attr = getTargetAttr(&ctx, spec, emitError);
  if (!attr && message.empty())
    message = "null attribute without a diagnostic";
  return message;
}

TEST_F(TargetCatalogueTest, EveryEntryVerifies) {
  for (const TargetSpec &spec : getTargetCatalogue()) {
    SCOPED_TRACE(spec.name);
    EXPECT_EQ(verifyMessage(ctx, spec), "");
    EXPECT_TRUE(lookupTarget(&ctx, spec.name));
    EXPECT_NE(std::string(spec.description), "");
  }
}

TEST_F(TargetCatalogueTest, NamesAreUnique) {
  llvm::StringSet<> seen;
  for (const TargetSpec &spec : getTargetCatalogue())
    EXPECT_TRUE(seen.insert(spec.name).second) << spec.name;
}

TEST_F(TargetCatalogueTest, CoversTheSeedHardware) {
  for (const char *name :
       {"x86-64-avx512", "aarch64-neoverse-v2", "a100", "h100", "h200",
        "b200", "mi250x", "mi300x", "rx7900xtx", "tpu-v5p", "gaudi3", "wse-3",
        "groq-lpu", "apple-m2-ultra", "systolic-16x16"})
    EXPECT_TRUE(findTargetSpec(name)) << name;
}

// The GPU lowering takes its chips' figures from the catalogue: every chip
// it knows has an entry of its vendor, and the sizes the kernels were tuned
// with are the catalogue's.
TEST_F(TargetCatalogueTest, GpuIsaFollowsTheChipName) {
  auto isa = [](llvm::StringRef chip) { return *getGpuIsa(chip); };
  EXPECT_FALSE(getGpuIsa("tpu-v5p"));
  EXPECT_FALSE(getGpuIsa("sm_"));
  EXPECT_FALSE(getGpuIsa("sm_90x"));
  EXPECT_FALSE(getGpuIsa("gfxzz"));
  // NVIDIA: mma.sync from sm_80 (f16 from sm_70), fp8 from sm_89, wgmma on
  // sm_90a alone, PTX 8.4 where fp8 is.
  EXPECT_TRUE(isa("sm_70").f16MmaSync);
  EXPECT_FALSE(isa("sm_70").mmaSync);
  EXPECT_TRUE(isa("sm_80").mmaSync);
  EXPECT_FALSE(isa("sm_86").fp8MmaSync);
  EXPECT_STREQ(isa("sm_86").ptxFeatures, "+ptx80");
  EXPECT_TRUE(isa("sm_89").fp8MmaSync);
  EXPECT_STREQ(isa("sm_89").ptxFeatures, "+ptx84");
  EXPECT_FALSE(isa("sm_90").wgmma);
  EXPECT_TRUE(isa("sm_90a").wgmma);
  EXPECT_FALSE(isa("sm_100a").wgmma);
  EXPECT_FALSE(isa("sm_100a").isImplemented());
  EXPECT_EQ(isa("sm_90a").generation, GpuIsa::Generation::Hopper);
  // AMD: MFMA on CDNA with wave64, WMMA on RDNA 3 with wave32; fp8 on the
  // FNUZ formats on gfx94x, on the OCP ones from gfx950; i8 K = 32 from
  // CDNA 3.
  EXPECT_TRUE(isa("gfx90a").mfma);
  EXPECT_EQ(isa("gfx90a").i8MatrixK, 16);
  EXPECT_EQ(isa("gfx90a").waveSize, 64);
  EXPECT_FALSE(isa("gfx90a").fp8Fnuz);
  EXPECT_TRUE(isa("gfx942").fp8Fnuz);
  EXPECT_FALSE(isa("gfx942").fp8Ocp);
  EXPECT_EQ(isa("gfx942").i8MatrixK, 32);
  EXPECT_TRUE(isa("gfx1100").wmma);
  EXPECT_EQ(isa("gfx1100").waveSize, 32);
  EXPECT_TRUE(isa("gfx950").fp8Ocp);
  EXPECT_FALSE(isa("gfx950").isImplemented());
  EXPECT_FALSE(isa("gfx1030").mfma || isa("gfx1030").wmma);
}

TEST_F(TargetCatalogueTest, TheBackEndsChipsComeFromTheCatalogue) {
  // The catalogue's GPU chips of implemented generations (b200's sm_100a is
  // described but not compiled for), the portable sm_90 before sm_90a.
  std::vector<std::string> expected = {"sm_80",  "sm_86",  "sm_89",
                                       "sm_90",  "sm_90a", "gfx90a",
                                       "gfx942", "gfx1100"};
  EXPECT_EQ(std::vector<std::string>(getImplementedGpuChips().begin(),
                                     getImplementedGpuChips().end()),
            expected);
  for (llvm::StringRef chip : getKnownGpuChips()) {
    std::unique_ptr<GpuTargetInfo> info = createGpuTargetInfo(chip);
    ASSERT_TRUE(info) << chip.str();
    GpuIsa isa = *getGpuIsa(chip);
    // What the lowering acts on is what GpuIsa says.
    EXPECT_EQ(info->getWarpSize(), isa.waveSize) << chip.str();
    EXPECT_EQ(info->hasWarpgroupMma(), isa.wgmma) << chip.str();
    std::string why;
    EXPECT_EQ(info->findMma(GpuMmaType::F8E4M3FN, why).has_value(),
              isa.fp8MmaSync || isa.fp8Ocp)
        << chip.str();
    EXPECT_EQ(info->findMma(GpuMmaType::F8E4M3FNUZ, why).has_value(),
              isa.fp8Fnuz)
        << chip.str();
  }
}

TEST_F(TargetCatalogueTest, EveryGpuChipHasItsFigures) {
  for (llvm::StringRef chip : getKnownGpuChips()) {
    const TargetSpec *spec = findTargetSpecForChip(chip);
    ASSERT_TRUE(spec) << chip.str();
    EXPECT_EQ(spec->kind, chip.starts_with("gfx") ? TargetKind::AMDGPU
                                                  : TargetKind::NVPTX)
        << chip.str();
    std::unique_ptr<GpuTargetInfo> info = createGpuTargetInfo(chip);
    ASSERT_TRUE(info) << chip.str();
    EXPECT_EQ(info->getNumMultiprocessors(), spec->computeUnits);
  }
  EXPECT_STREQ(findTargetSpecForChip("sm_90")->name, "h100");
  EXPECT_EQ(findTargetSpecForChip("sm_70"), nullptr);
  EXPECT_EQ(createGpuTargetInfo("sm_70"), nullptr);
  // One GCD of an MI250X is the device a process sees.
  EXPECT_EQ(createGpuTargetInfo("gfx90a")->getNumMultiprocessors(), 110);
  // A block gets the SM's shared memory less the 1 KiB CUDA reserves.
  EXPECT_EQ(createGpuTargetInfo("sm_80")->getMaxSharedMemoryPerBlock(),
            163 * 1024);
  EXPECT_EQ(createGpuTargetInfo("sm_89")->getMaxSharedMemoryPerBlock(),
            99 * 1024);
  EXPECT_EQ(createGpuTargetInfo("sm_90a")->getMaxSharedMemoryPerBlock(),
            227 * 1024);
  EXPECT_EQ(createGpuTargetInfo("gfx942")->getMaxSharedMemoryPerBlock(),
            64 * 1024);
}

TEST_F(TargetCatalogueTest, UnknownNameGivesNull) {
  EXPECT_FALSE(lookupTarget(&ctx, "h1000"));
  EXPECT_FALSE(lookupTarget(&ctx, ""));
  EXPECT_EQ(findTargetSpec("H100"), nullptr);
}

TEST_F(TargetCatalogueTest, PeakPerElementType) {
  TargetAttr h100 = lookupTarget(&ctx, "h100");
  ASSERT_TRUE(h100);
  Builder b(&ctx);
  EXPECT_DOUBLE_EQ(h100.getPeakFlops(b.getBF16Type()), 989.4e12);
  EXPECT_DOUBLE_EQ(h100.getPeakFlops(b.getType<Float8E4M3FNType>()),
                   1978.9e12);
  EXPECT_DOUBLE_EQ(h100.getPeakFlops(b.getI32Type()), 0.0);
  EXPECT_TRUE(h100.hasFeature("wgmma"));
  EXPECT_FALSE(h100.hasFeature("mfma"));
  TargetAttr a100 = lookupTarget(&ctx, "a100");
  EXPECT_DOUBLE_EQ(a100.getPeakFlops(b.getType<Float8E5M2Type>()), 0.0);
}

TEST_F(TargetCatalogueTest, VerifierRejectsNonsense) {
  TargetSpec good = *findTargetSpec("a100");
  ASSERT_EQ(verifyMessage(ctx, good), "");

  TargetSpec zeroUnit = good;
  zeroUnit.matrixUnit[1] = 0;
  EXPECT_NE(verifyMessage(ctx, zeroUnit).find("'matrix_unit' entries must be "
                                              "positive"),
            std::string::npos);

  TargetSpec negativePeak = good;
  negativePeak.peakF32 = -1.0;
  EXPECT_NE(verifyMessage(ctx, negativePeak).find("'peak_f32'"),
            std::string::npos);

  TargetSpec amdChip = good;
  amdChip.chip = "gfx942";
  EXPECT_NE(verifyMessage(ctx, amdChip).find("sm_XX"), std::string::npos);

  TargetSpec noWarp = good;
  noWarp.warpSize = 0;
  EXPECT_NE(verifyMessage(ctx, noWarp).find("'warp_size' 32 or 64"),
            std::string::npos);

  TargetSpec noUnits = good;
  noUnits.computeUnits = 0;
  EXPECT_NE(verifyMessage(ctx, noUnits).find("'compute_units'"),
            std::string::npos);
}

} // namespace
