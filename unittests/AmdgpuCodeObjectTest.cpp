//===- AmdgpuCodeObjectTest.cpp - reading resources from a HSACO ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// readAmdgpuKernelResources on code objects made here, from text, by LLVM's
// yaml2obj library: a kernel descriptor and an NT_AMDGPU_METADATA note with
// known numbers, then the same object broken in each way the reader must
// refuse (not ELF, another machine, truncated, a missing kernel, a
// descriptor outside its section, malformed metadata). Real code objects
// from accel-compile are checked against LLVM's tools in
// test/Target/AMDGPU/hsaco.test. Also estimateAmdgpuWavesPerSimd's limits.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/AmdgpuCodeObject.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

using namespace mlir::accel;

namespace {

/// What goes into a made-up code object.
struct Spec {
  std::string machine = "EM_AMDGPU";
  std::string elfClass = "ELFCLASS64";
  std::string mach = "EF_AMDGPU_MACH_AMDGCN_GFX942";
  /// The kernel the descriptor symbol and the note name.
  std::string kdSymbol = "mm_0.kd";
  std::string noteKernel = "mm_0";
  /// Address of .rodata and the descriptor symbol's value.
  uint64_t rodataAddress = 0x540;
  uint64_t kdValue = 0x540;
  /// The descriptor's words.
  uint32_t groupSegment = 4096, privateSegment = 16, kernarg = 24;
  uint32_t rsrc1 = 6;  // GRANULATED_WORKITEM_VGPR_COUNT 6: 56 VGPRs
  uint32_t rsrc3 = 12; // ACCUM_OFFSET 12: AGPRs from 52
  /// The note: absent, not msgpack, or a map with these fields.
  bool note = true;
  bool noteIsMsgpack = true;
  bool kernelsArray = true;
  bool vgprIsString = false;
  int64_t vgprs = 49, agprs = 0, sgprs = 22, vgprSpills = 0, sgprSpills = 0;
  int64_t wave = 64, maxFlat = 256;
};

std::string descriptorHex(const Spec &s) {
  uint8_t kd[64] = {};
  llvm::support::endian::write32le(kd + 0, s.groupSegment);
  llvm::support::endian::write32le(kd + 4, s.privateSegment);
  llvm::support::endian::write32le(kd + 8, s.kernarg);
  llvm::support::endian::write32le(kd + 44, s.rsrc3);
  llvm::support::endian::write32le(kd + 48, s.rsrc1);
  return llvm::toHex(llvm::ArrayRef<uint8_t>(kd));
}

/// The msgpack of the note, as code object V5 has it.
std::string noteHex(const Spec &s) {
  if (!s.noteIsMsgpack)
    return "C1C1C1C1"; // 0xc1 is never used in msgpack
  llvm::msgpack::Document doc;
  auto root = doc.getRoot().getMap(/*Convert=*/true);
  root["amdhsa.version"] = doc.getArrayNode();
  root["amdhsa.version"].getArray().push_back(doc.getNode(uint64_t(1)));
  root["amdhsa.version"].getArray().push_back(doc.getNode(uint64_t(2)));
  root["amdhsa.target"] = doc.getNode("amdgcn-amd-amdhsa--gfx942");
  if (s.kernelsArray) {
    auto kernel = doc.getMapNode();
    kernel[".name"] = doc.getNode(s.noteKernel, /*Copy=*/true);
    kernel[".symbol"] = doc.getNode(s.noteKernel + ".kd", /*Copy=*/true);
    if (s.vgprIsString)
      kernel[".vgpr_count"] = doc.getNode("many");
    else
      kernel[".vgpr_count"] = doc.getNode(uint64_t(s.vgprs));
    kernel[".agpr_count"] = doc.getNode(uint64_t(s.agprs));
    kernel[".sgpr_count"] = doc.getNode(uint64_t(s.sgprs));
    kernel[".vgpr_spill_count"] = doc.getNode(uint64_t(s.vgprSpills));
    kernel[".sgpr_spill_count"] = doc.getNode(uint64_t(s.sgprSpills));
    kernel[".wavefront_size"] = doc.getNode(uint64_t(s.wave));
    kernel[".max_flat_workgroup_size"] = doc.getNode(uint64_t(s.maxFlat));
    // A kernel map before ours that describes another kernel.
    auto other = doc.getMapNode();
    other[".name"] = doc.getNode("other_kernel");
    other[".vgpr_count"] = doc.getNode(uint64_t(1));
    auto kernels = doc.getArrayNode();
    kernels.getArray().push_back(other);
    kernels.getArray().push_back(kernel);
    root["amdhsa.kernels"] = kernels;
  }
  std::string blob;
  doc.writeToBlob(blob);
  return llvm::toHex(blob);
}

std::string yamlOf(const Spec &s) {
  std::string note;
  if (s.note)
    note = llvm::formatv(R"(  - Name:            .note
    Type:            SHT_NOTE
    Flags:           [ SHF_ALLOC ]
    Address:         0x200
    AddressAlign:    0x4
    Notes:
      - Name:            AMDGPU
        Type:            NT_AMDGPU_METADATA
        Desc:            {0}
)",
                         noteHex(s))
               .str();
  return llvm::formatv(R"(--- !ELF
FileHeader:
  Class:           {0}
  Data:            ELFDATA2LSB
  OSABI:           ELFOSABI_AMDGPU_HSA
  ABIVersion:      0x4
  Type:            ET_DYN
  Machine:         {1}
  Flags:           [ {2} ]
Sections:
{3}  - Name:            .rodata
    Type:            SHT_PROGBITS
    Flags:           [ SHF_ALLOC ]
    Address:         {4:x}
    AddressAlign:    0x40
    Content:         {5}
Symbols:
  - Name:            {6}
    Type:            STT_OBJECT
    Section:         .rodata
    Binding:         STB_GLOBAL
    Value:           {7:x}
    Size:            0x40
)",
                       s.elfClass, s.machine, s.mach, note, s.rodataAddress,
                       descriptorHex(s), s.kdSymbol, s.kdValue)
      .str();
}

/// The bytes of the object `s` describes.
std::string makeObject(const Spec &s) {
  llvm::SmallString<0> storage;
  std::string errors;
  auto object = llvm::yaml::yaml2ObjectFile(
      storage, yamlOf(s), [&](const llvm::Twine &m) { errors += m.str(); });
  EXPECT_TRUE(object) << errors << "\n" << yamlOf(s);
  return std::string(storage.str());
}

std::string readError(llvm::StringRef elf, llvm::StringRef kernel = "mm_0",
                      llvm::StringRef chip = "gfx942") {
  auto r = readAmdgpuKernelResources(elf, kernel, chip);
  if (r)
    return "<no error>";
  return llvm::toString(r.takeError());
}

TEST(AmdgpuCodeObjectTest, ReadsTheDescriptorAndTheNote) {
  Spec s;
  std::string elf = makeObject(s);
  auto r = readAmdgpuKernelResources(elf, "mm_0", "gfx942");
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->groupSegmentBytes, 4096);
  EXPECT_EQ(r->privateSegmentBytes, 16);
  EXPECT_EQ(r->kernargBytes, 24);
  EXPECT_EQ(r->allocatedVgprs, 56); // (6 + 1) * 8
  EXPECT_EQ(r->accumOffset, 52);    // (12 + 1) * 4
  EXPECT_EQ(r->vgprs, 49);
  EXPECT_EQ(r->agprs, 0);
  EXPECT_EQ(r->sgprs, 22);
  EXPECT_EQ(r->vgprSpills, 0);
  EXPECT_EQ(r->sgprSpills, 0);
  EXPECT_EQ(r->wavefrontSize, 64);
  EXPECT_EQ(r->maxFlatWorkgroupSize, 256);
}

TEST(AmdgpuCodeObjectTest, GranulesAndFieldsOfEachChip) {
  // The VGPR granule is 8 on all three chips; only gfx90a and later have
  // ACCUM_OFFSET (bits 5:0 of COMPUTE_PGM_RSRC3, which gfx11 uses for
  // other fields). Bits above 5:0 of RSRC1 (the SGPR count, modes) are
  // not VGPRs.
  Spec s;
  s.rsrc1 = 0xFFFFFFC0u | 31; // 256 VGPRs
  s.rsrc3 = 0x3F;
  std::string elf = makeObject(s);
  for (llvm::StringRef chip : {"gfx90a", "gfx942"}) {
    auto r = readAmdgpuKernelResources(elf, "mm_0", chip);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(r->allocatedVgprs, 256) << chip.str();
    EXPECT_EQ(r->accumOffset, 256) << chip.str();
  }
  s.rsrc1 = 1; // 16 VGPRs
  s.mach = "EF_AMDGPU_MACH_AMDGCN_GFX1100";
  s.wave = 32;
  auto r = readAmdgpuKernelResources(makeObject(s), "mm_0", "gfx1100");
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->allocatedVgprs, 16);
  EXPECT_EQ(r->accumOffset, 0);
  EXPECT_EQ(r->wavefrontSize, 32);
}

TEST(AmdgpuCodeObjectTest, RefusesWhatIsNotAnAmdgpuElf64) {
  const std::string notElf = "not an ELF64 little-endian code object";
  EXPECT_EQ(readError(""), notElf);
  // Text long enough for an ELF header, which ELFFile::create would take.
  EXPECT_EQ(readError(std::string(200, 'x')), notElf);
  // An x86-64 object (the same layout, another machine).
  Spec x86;
  x86.machine = "EM_X86_64";
  x86.mach = "";
  EXPECT_EQ(readError(makeObject(x86)),
            "not an AMDGPU code object (e_machine 62)");
  // A 32-bit AMDGPU object (R600): not read as ELF64.
  Spec r600;
  r600.elfClass = "ELFCLASS32";
  r600.mach = "EF_AMDGPU_MACH_R600_CAYMAN";
  EXPECT_EQ(readError(makeObject(r600)), notElf);
  // A big-endian ELF64 (no AMDGPU object is).
  std::string bigEndian = makeObject(Spec());
  bigEndian[llvm::ELF::EI_DATA] = llvm::ELF::ELFDATA2MSB;
  EXPECT_EQ(readError(bigEndian), notElf);
}

TEST(AmdgpuCodeObjectTest, EveryTruncationIsAnError) {
  // The section headers come last, so every proper prefix lacks some; each
  // is copied into a buffer of its own size so that a read past the end is
  // a read past an allocation.
  std::string elf = makeObject(Spec());
  ASSERT_TRUE(bool(readAmdgpuKernelResources(elf, "mm_0", "gfx942")));
  int malformed = 0;
  for (size_t size = 0; size < elf.size(); ++size) {
    std::unique_ptr<char[]> copy(new char[size ? size : 1]);
    std::memcpy(copy.get(), elf.data(), size);
    auto r = readAmdgpuKernelResources(llvm::StringRef(copy.get(), size),
                                       "mm_0", "gfx942");
    EXPECT_FALSE(bool(r)) << "a prefix of " << size << " of " << elf.size()
                          << " bytes was read";
    if (!r) {
      std::string message = llvm::toString(r.takeError());
      // Once the ELF header is whole, LLVM's reader refuses the missing
      // section headers: "malformed code object: the section headers
      // cannot be read (...)".
      if (llvm::StringRef(message).starts_with(
              "malformed code object: the section headers cannot be read ("))
        ++malformed;
    }
  }
  EXPECT_GT(malformed, 0);
  // Cut inside the header, after it, and in the section header table.
  EXPECT_EQ(readError(llvm::StringRef(elf).take_front(12)),
            "not an ELF64 little-endian code object");
  EXPECT_EQ(readError(llvm::StringRef(elf).take_front(40)),
            "not an ELF64 code object: invalid buffer: the size (40) is "
            "smaller than an ELF header (64)");
  std::string sections = readError(llvm::StringRef(elf).drop_back(10));
  EXPECT_NE(sections.find("malformed code object: the section headers cannot "
                          "be read (section table goes past the end of file)"),
            std::string::npos)
      << sections;
}

TEST(AmdgpuCodeObjectTest, MissingKernels) {
  std::string elf = makeObject(Spec());
  EXPECT_EQ(readError(elf, "other"),
            "no kernel descriptor other.kd in the code object");
  // A descriptor the note does not describe (the note names another).
  Spec s;
  s.noteKernel = "mm_1";
  EXPECT_EQ(readError(makeObject(s)),
            "the AMDGPU metadata note does not describe kernel 'mm_0'");
  // No note at all.
  Spec noNote;
  noNote.note = false;
  EXPECT_EQ(readError(makeObject(noNote)),
            "the AMDGPU metadata note does not describe kernel 'mm_0'");
  // A kernel whose descriptor is missing, though the note describes it.
  Spec noKd;
  noKd.kdSymbol = "something_else";
  EXPECT_EQ(readError(makeObject(noKd)),
            "no kernel descriptor mm_0.kd in the code object");
}

TEST(AmdgpuCodeObjectTest, DescriptorsOutsideTheirSection) {
  // .rodata holds exactly one 64-byte descriptor: one byte further, or
  // before the section, or so far that offset + 64 wraps around, is out.
  Spec s;
  s.kdValue = s.rodataAddress + 1;
  EXPECT_EQ(readError(makeObject(s)), "mm_0.kd lies outside its section");
  s.kdValue = s.rodataAddress - 8;
  EXPECT_EQ(readError(makeObject(s)), "mm_0.kd lies outside its section");
  s.rodataAddress = 0;
  s.kdValue = ~uint64_t(0) - 15;
  EXPECT_EQ(readError(makeObject(s)), "mm_0.kd lies outside its section");
}

TEST(AmdgpuCodeObjectTest, MalformedMetadata) {
  Spec garbage;
  garbage.noteIsMsgpack = false;
  EXPECT_EQ(readError(makeObject(garbage)),
            "the AMDGPU metadata note is not valid msgpack");
  Spec noKernels;
  noKernels.kernelsArray = false;
  EXPECT_EQ(readError(makeObject(noKernels)),
            "the AMDGPU metadata note has no amdhsa.kernels");
  Spec text;
  text.vgprIsString = true;
  EXPECT_EQ(readError(makeObject(text)),
            "metadata field .vgpr_count of mm_0 is not an integer");
}

AmdgpuKernelResources resources(int64_t vgprs, int64_t wave,
                                int64_t agprs = 0) {
  AmdgpuKernelResources r;
  r.vgprs = vgprs;
  r.agprs = agprs;
  r.wavefrontSize = wave;
  return r;
}

TEST(AmdgpuCodeObjectTest, OccupancyOnCdna) {
  // The hardware's 8 waves per SIMD.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(32, 64), "gfx942", 0, 256), 8);
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(0, 64), "gfx942", 0, 64), 8);
  // Register-bound: 512 VGPRs a lane per SIMD in blocks of 8.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(64, 64), "gfx942", 0, 256), 8);
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(65, 64), "gfx942", 0, 256),
            7); // 72
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(200, 64), "gfx90a", 0, 256),
            2);
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(256, 64), "gfx942", 0, 256),
            2);
  // LDS-bound: 64 KiB a CU; 3 workgroups of 20 KiB and 4 waves over 4
  // SIMDs.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(32, 64), "gfx942", 20480, 256),
            3);
  EXPECT_EQ(
      estimateAmdgpuWavesPerSimd(resources(32, 64), "gfx942", 65536, 1024), 4);
  // One workgroup of 2 waves fits: a SIMD has one of them, not none.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(32, 64), "gfx942", 40960, 128),
            1);
  // The least of the limits.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(200, 64), "gfx942", 8192, 256),
            2);
  // More LDS than a CU has: nothing runs.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(32, 64), "gfx942", 65537, 256),
            0);
  EXPECT_EQ(
      estimateAmdgpuWavesPerSimd(resources(32, 64), "gfx90a", 147456, 256), 0);
}

TEST(AmdgpuCodeObjectTest, OccupancyOnRdna3) {
  // 16 waves per SIMD; 1536 VGPRs in wave32, in blocks of 24.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(92, 32), "gfx1100", 0, 128),
            16);
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(97, 32), "gfx1100", 0, 128),
            12); // 120
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(158, 32), "gfx1100", 0, 128),
            9); // 168
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(256, 32), "gfx1100", 0, 128),
            5); // 264
  // The wave size defaults to the chip's when the note has none.
  EXPECT_EQ(estimateAmdgpuWavesPerSimd(resources(92, 0), "gfx1100", 20480, 128),
            6);
  // LDS: 3 workgroups of 4 waves over 2 SIMDs.
  EXPECT_EQ(
      estimateAmdgpuWavesPerSimd(resources(92, 32), "gfx1100", 20480, 128), 6);
  EXPECT_EQ(
      estimateAmdgpuWavesPerSimd(resources(92, 32), "gfx1100", 65537, 128), 0);
}

} // namespace
