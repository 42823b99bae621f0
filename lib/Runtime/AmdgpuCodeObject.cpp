//===- AmdgpuCodeObject.cpp - resources of a kernel in a HSACO ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/AmdgpuCodeObject.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A part of the ELF file that LLVM's reader refuses (`what`: "the symbol
/// table", ...), with the reader's reason.
static llvm::Error malformed(const llvm::Twine &what, llvm::Error reason) {
  return fail("malformed code object: " + what + " cannot be read (" +
              llvm::toString(std::move(reason)) + ")");
}

namespace {
/// Byte offsets in the 64-byte kernel descriptor (AMDHSAKernelDescriptor.h).
constexpr uint64_t kGroupSegmentOffset = 0;
constexpr uint64_t kPrivateSegmentOffset = 4;
constexpr uint64_t kKernargSizeOffset = 8;
constexpr uint64_t kPgmRsrc3Offset = 44;
constexpr uint64_t kPgmRsrc1Offset = 48;
constexpr uint64_t kDescriptorBytes = 64;

bool isGfx9Cdna(StringRef chip) { return chip == "gfx90a" || chip == "gfx942"; }
} // namespace

llvm::Expected<AmdgpuKernelResources>
accel::readAmdgpuKernelResources(StringRef elf, StringRef kernel,
                                 StringRef chip) {
  using ELFT = llvm::object::ELF64LE;
  // ELFFile::create checks only the size: the identification first.
  if (elf.size() < llvm::ELF::EI_NIDENT ||
      !elf.starts_with(llvm::ELF::ElfMagic) ||
      elf[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      elf[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return fail("not an ELF64 little-endian code object");
  auto file = llvm::object::ELFFile<ELFT>::create(elf);
  if (!file)
    return fail("not an ELF64 code object: " +
                llvm::toString(file.takeError()));
  if (file->getHeader().e_machine != llvm::ELF::EM_AMDGPU)
    return fail("not an AMDGPU code object (e_machine " +
                llvm::Twine(file->getHeader().e_machine) + ")");
  auto sections = file->sections();
  if (!sections)
    return malformed("the section headers", sections.takeError());

  AmdgpuKernelResources r;
  // 1. The kernel descriptor: the symbol <kernel>.kd.
  std::string kdName = (kernel + ".kd").str();
  bool foundDescriptor = false;
  for (const auto &sec : *sections) {
    if (sec.sh_type != llvm::ELF::SHT_SYMTAB)
      continue;
    auto symbols = file->symbols(&sec);
    if (!symbols)
      return malformed("the symbol table", symbols.takeError());
    auto strtab = file->getStringTableForSymtab(sec);
    if (!strtab)
      return malformed("the string table", strtab.takeError());
    for (const auto &sym : *symbols) {
      auto name = sym.getName(*strtab);
      if (!name || *name != kdName)
        continue;
      auto owner = file->getSection(sym.st_shndx);
      if (!owner)
        return malformed("the section of " + kdName, owner.takeError());
      auto contents = file->getSectionContents(**owner);
      if (!contents)
        return malformed("the section of " + kdName, contents.takeError());
      uint64_t offset = sym.st_value - (*owner)->sh_addr;
      if (sym.st_value < (*owner)->sh_addr || offset > contents->size() ||
          contents->size() - offset < kDescriptorBytes)
        return fail(kdName + " lies outside its section");
      const uint8_t *kd = contents->data() + offset;
      auto word = [&](uint64_t at) {
        return llvm::support::endian::read32le(kd + at);
      };
      r.groupSegmentBytes = word(kGroupSegmentOffset);
      r.privateSegmentBytes = word(kPrivateSegmentOffset);
      r.kernargBytes = word(kKernargSizeOffset);
      uint32_t rsrc1 = word(kPgmRsrc1Offset), rsrc3 = word(kPgmRsrc3Offset);
      // GRANULATED_WORKITEM_VGPR_COUNT: bits 5:0 of COMPUTE_PGM_RSRC1, in
      // blocks of the encoding granule (8 on all three chips here).
      r.allocatedVgprs = ((rsrc1 & 0x3f) + 1) * 8;
      // ACCUM_OFFSET: bits 5:0 of COMPUTE_PGM_RSRC3, gfx90a and later.
      if (isGfx9Cdna(chip))
        r.accumOffset = ((rsrc3 & 0x3f) + 1) * 4;
      foundDescriptor = true;
    }
  }
  if (!foundDescriptor)
    return fail("no kernel descriptor " + kdName + " in the code object");

  // 2. The metadata note (NT_AMDGPU_METADATA, owner "AMDGPU", msgpack).
  bool foundKernel = false;
  for (const auto &sec : *sections) {
    if (sec.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : file->notes(sec, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(4), false))
        return fail("the AMDGPU metadata note is not valid msgpack");
      llvm::msgpack::DocNode &root = doc.getRoot();
      if (!root.isMap())
        return fail("the AMDGPU metadata note is not a map");
      auto &rootMap = root.getMap();
      auto kernelsIt = rootMap.find(doc.getNode("amdhsa.kernels"));
      if (kernelsIt == rootMap.end() || !kernelsIt->second.isArray())
        return fail("the AMDGPU metadata note has no amdhsa.kernels");
      for (llvm::msgpack::DocNode &k : kernelsIt->second.getArray()) {
        if (!k.isMap())
          continue;
        auto &map = k.getMap();
        auto field = [&](StringRef key) -> llvm::msgpack::DocNode * {
          auto it = map.find(doc.getNode(key));
          return it == map.end() ? nullptr : &it->second;
        };
        llvm::msgpack::DocNode *name = field(".name");
        if (!name || !name->isString() || name->getString() != kernel)
          continue;
        auto integer = [&](StringRef key, int64_t &out) -> llvm::Error {
          llvm::msgpack::DocNode *n = field(key);
          if (!n)
            return llvm::Error::success(); // optional in the format
          if (n->getKind() == llvm::msgpack::Type::UInt)
            out = int64_t(std::min<uint64_t>(n->getUInt(), INT64_MAX));
          else if (n->getKind() == llvm::msgpack::Type::Int)
            out = n->getInt();
          else
            return fail("metadata field " + key + " of " + kernel +
                        " is not an integer");
          return llvm::Error::success();
        };
        for (auto [key, out] :
             {std::pair<StringRef, int64_t *>{".vgpr_count", &r.vgprs},
              {".agpr_count", &r.agprs},
              {".sgpr_count", &r.sgprs},
              {".vgpr_spill_count", &r.vgprSpills},
              {".sgpr_spill_count", &r.sgprSpills},
              {".wavefront_size", &r.wavefrontSize},
              {".max_flat_workgroup_size", &r.maxFlatWorkgroupSize}})
          if (llvm::Error e = integer(key, *out))
            return std::move(e);
        foundKernel = true;
      }
    }
    if (err)
      return malformed("a note section", std::move(err));
  }
  if (!foundKernel)
    return fail("the AMDGPU metadata note does not describe kernel '" + kernel +
                "'");
  return r;
}

int64_t accel::estimateAmdgpuWavesPerSimd(const AmdgpuKernelResources &r,
                                          StringRef chip, int64_t ldsBytes,
                                          int64_t workgroupSize) {
  const bool rdna = chip.starts_with("gfx11");
  const int64_t maxWaves = rdna ? 16 : 8;
  const int64_t simdsPerCU = rdna ? 2 : 4;
  const int64_t wave = r.wavefrontSize > 0 ? r.wavefrontSize : (rdna ? 32 : 64);
  // Registers: CDNA2/3 allocate VGPRs and AGPRs from one 512-entry file in
  // blocks of 8, and the note's .vgpr_count there already counts both (the
  // AGPRs after the 4-aligned ACCUM_OFFSET); RDNA3 in wave32 has 1536 in
  // blocks of 24.
  int64_t regs = rdna ? llvm::alignTo(std::max<int64_t>(r.vgprs, 1), 24)
                      : llvm::alignTo(std::max<int64_t>(r.vgprs, 1), 8);
  int64_t byRegs = (rdna ? 1536 : 512) / regs;
  // LDS: 64 KiB per CU; the workgroups that fit spread their waves over
  // the CU's SIMDs.
  int64_t wavesPerGroup = (workgroupSize + wave - 1) / wave;
  int64_t byLds = maxWaves;
  if (ldsBytes > 64 * 1024)
    return 0;
  if (ldsBytes > 0) {
    int64_t groups = (64 * 1024) / ldsBytes;
    // Rounded up: one workgroup of 2 waves on a 4-SIMD CU still puts a
    // wave on a SIMD.
    byLds = llvm::divideCeil(groups * wavesPerGroup, simdsPerCU);
  }
  return std::max<int64_t>(0, std::min({maxWaves, byRegs, byLds}));
}
