//===- KernelMetadataTest.cpp - kernel launch metadata JSON ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/KernelMetadata.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>
#include <gtest/gtest.h>

using namespace mlir::accel;

namespace {

/// A valid sm_90a kernel with every kind of argument and resources.
KernelMetadata sampleMetadata() {
  KernelMetadata m;
  m.chip = "sm_90a";
  m.features = "+ptx80";
  m.kernel = "matmul_kernel";
  m.grid = {16, 8, 2};
  m.block = {128, 2, 1};
  m.dynamicSharedBytes = 98304;
  KernelArgument a;
  a.name = "A";
  a.kind = KernelArgKind::Buffer;
  a.dtype = "f16";
  a.shape = {128, 64};
  a.byteSize = 128 * 64 * 2;
  a.access = BufferAccess::In;
  KernelArgument c = a;
  c.name = "C";
  c.dtype = "f32";
  c.shape = {128, 3};
  c.byteSize = 128 * 3 * 4;
  c.access = BufferAccess::Out;
  KernelArgument q = a;
  q.name = "Q";
  q.dtype = "f8E4M3FN";
  q.shape = {0, 5};
  q.byteSize = 0;
  q.access = BufferAccess::InOut;
  KernelArgument n;
  n.name = "n";
  n.kind = KernelArgKind::I32;
  n.byteSize = 4;
  KernelArgument stride = n;
  stride.name = "stride";
  stride.kind = KernelArgKind::I64;
  stride.byteSize = 8;
  KernelArgument scale = n;
  scale.name = "scale";
  scale.kind = KernelArgKind::F32;
  m.arguments = {a, n, c, stride, q, scale};
  m.resources = KernelResources{168, 1024, 0, std::nullopt};
  return m;
}

/// The error of parsing the sample after `edit` changed its JSON.
std::string errorAfter(const std::function<void(llvm::json::Object &)> &edit) {
  llvm::json::Value value = toJsonValue(sampleMetadata());
  edit(*value.getAsObject());
  llvm::Expected<KernelMetadata> parsed = parseKernelMetadataValue(value);
  if (parsed)
    return "<parsed>";
  return llvm::toString(parsed.takeError());
}

llvm::json::Object &argument(llvm::json::Object &root, size_t i) {
  return *(*root.getArray("arguments"))[i].getAsObject();
}

std::string verifyError(const KernelMetadata &m) {
  llvm::Error error = verifyKernelMetadata(m);
  return error ? llvm::toString(std::move(error)) : "<valid>";
}

constexpr const char *kPrefix = "invalid kernel metadata: ";

TEST(KernelMetadataTest, DeepNestingIsAnErrorNotACrash) {
  // llvm::json::parse recurses per level: 100000 levels would overflow the
  // stack (measured: it crashes).
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  llvm::Expected<KernelMetadata> parsed = parseKernelMetadata(deep);
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            std::string(kPrefix) + "nested 100000 levels deep (at most 64)");
  // Brackets inside strings do not count; 64 levels still parse (and are
  // refused as metadata, which is not an array).
  std::string shallow = std::string(64, '[') + "\"[[[[\\\"{{\"" +
                        std::string(64, ']');
  parsed = parseKernelMetadata(shallow);
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            std::string(kPrefix) + "expected a JSON object");
}

TEST(KernelMetadataTest, RoundTrip) {
  KernelMetadata m = sampleMetadata();
  std::string json = toJson(m);
  llvm::Expected<KernelMetadata> parsed = parseKernelMetadata(json);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, m);
  EXPECT_EQ(toJson(*parsed), json);
  EXPECT_EQ(parsed->compiler, getAccelCompilerId());
  EXPECT_EQ(parsed->arguments[4].shape, (llvm::SmallVector<int64_t>{0, 5}));
  EXPECT_EQ(parsed->arguments[2].access, BufferAccess::Out);
  EXPECT_EQ(parsed->arguments[4].access, BufferAccess::InOut);
  EXPECT_EQ(parsed->arguments[5].kind, KernelArgKind::F32);
  EXPECT_EQ(parsed->resources->registers, 168);

  // Without resources, and an AMD kernel with no arguments.
  m.resources.reset();
  m.target = "amdgpu";
  m.chip = "gfx942";
  m.dynamicSharedBytes = 65536;
  parsed = parseKernelMetadata(toJson(m));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, m);
  EXPECT_FALSE(parsed->resources.has_value());
  EXPECT_EQ(toJson(m).find("resources"), std::string::npos);
  m.arguments.clear();
  parsed = parseKernelMetadata(toJson(m));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, m);

  // An AMD kernel with its code object and resource report.
  KernelResources::Amdgpu amd;
  amd.vgprs = 54;
  amd.agprs = 4;
  amd.sgprs = 21;
  amd.allocatedVgprs = 64;
  amd.scratchBytes = 16;
  amd.wavefrontSize = 64;
  amd.wavesPerSimd = 3;
  m.resources = KernelResources{58, 0, 16, amd};
  m.hsaco = "mm_kernels.hsaco";
  parsed = parseKernelMetadata(toJson(m));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, m);
  EXPECT_EQ(parsed->resources->amdgpu->wavesPerSimd, 3);
  EXPECT_EQ(parsed->hsaco, "mm_kernels.hsaco");
  // Every field counts in the comparison.
  KernelMetadata other = *parsed;
  other.resources->amdgpu->sgprs = 22;
  EXPECT_NE(other, m);
  // A code object name must stay next to the metadata.
  m.hsaco = "../x.hsaco";
  EXPECT_NE(verifyError(m).find("hsaco: '../x.hsaco' is not a plain file name"),
            std::string::npos)
      << verifyError(m);
}

TEST(KernelMetadataTest, Artifacts) {
  // The PTX and cubin that accel-compile writes next to the metadata.
  KernelMetadata m = sampleMetadata();
  m.ptx = "gemm_kernels.ptx";
  llvm::Expected<KernelMetadata> parsed = parseKernelMetadata(toJson(m));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, m);
  EXPECT_NE(toJson(m).find("\"cubin\": null"), std::string::npos);
  m.cubin = "gemm_kernels.cubin";
  parsed = parseKernelMetadata(toJson(m));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->cubin, "gemm_kernels.cubin");
  // Names that would leave the folder, and ill-typed ones.
  EXPECT_EQ(errorAfter([](auto &o) { o["ptx"] = "../x.ptx"; }),
            std::string(kPrefix) +
                "ptx: '../x.ptx' is not a plain file name (letters, digits, "
                "'_', '.', '-', not starting with '.')");
  EXPECT_EQ(errorAfter([](auto &o) { o["cubin"] = "/abs/k.cubin"; }),
            std::string(kPrefix) +
                "cubin: '/abs/k.cubin' is not a plain file name (letters, "
                "digits, '_', '.', '-', not starting with '.')");
  EXPECT_EQ(errorAfter([](auto &o) { o["ptx"] = 3; }),
            std::string(kPrefix) + "ptx: expected a file name or null");
}

TEST(KernelMetadataTest, ArtifactHashes) {
  // The sha256 of each artifact: computeSha256Hex of its bytes (FIPS 180-2's
  // "abc" vector), round-tripped, and refused when malformed or when it
  // hashes an artifact the metadata does not name.
  EXPECT_EQ(computeSha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  KernelMetadata m = sampleMetadata();
  m.ptx = "gemm_kernels.ptx";
  m.cubin = "gemm_kernels.cubin";
  m.ptxSha256 = computeSha256Hex("ptx text");
  m.cubinSha256 = computeSha256Hex("cubin bytes");
  llvm::Expected<KernelMetadata> parsed = parseKernelMetadata(toJson(m));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, m);
  KernelMetadata other = m;
  other.ptxSha256 = computeSha256Hex("other ptx text");
  EXPECT_NE(other, m);
  auto withHashes = [&](llvm::StringRef key, std::string hash) {
    llvm::json::Value v = toJsonValue(m);
    (*v.getAsObject())["sha256"] = llvm::json::Object{{key, hash}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << v;
    llvm::Expected<KernelMetadata> p = parseKernelMetadata(text);
    return p ? std::string("<parsed>") : llvm::toString(p.takeError());
  };
  EXPECT_EQ(withHashes("ptx", "ABC"),
            std::string(kPrefix) + "sha256.ptx: expected 64 lowercase hex digits");
  EXPECT_EQ(withHashes("ptx", std::string(64, 'A')),
            std::string(kPrefix) + "sha256.ptx: expected 64 lowercase hex digits");
  EXPECT_EQ(withHashes("hsaco", std::string(64, 'a')),
            std::string(kPrefix) +
                "sha256.hsaco: hashes no artifact: 'hsaco' names no file");
  EXPECT_EQ(withHashes("elf", std::string(64, 'a')),
            std::string(kPrefix) + "sha256: unknown field 'elf'");
}

TEST(KernelMetadataTest, JsonShape) {
  // The exact text of a small kernel, so a change of the format is noticed.
  KernelMetadata m;
  m.compiler = "accel 9.9";
  m.chip = "sm_80";
  m.kernel = "k";
  m.grid = {2, 1, 1};
  m.block = {64, 1, 1};
  KernelArgument x;
  x.name = "x";
  x.dtype = "bf16";
  x.shape = {3};
  x.byteSize = 6;
  x.access = BufferAccess::Out;
  KernelArgument n;
  n.name = "n";
  n.kind = KernelArgKind::I64;
  n.byteSize = 8;
  m.arguments = {x, n};
  m.resources = KernelResources{32, 0, 8, std::nullopt};
  EXPECT_EQ(toJson(m), R"({
  "arguments": [
    {
      "access": "out",
      "byte_size": 6,
      "dtype": "bf16",
      "kind": "buffer",
      "name": "x",
      "shape": [
        3
      ]
    },
    {
      "byte_size": 8,
      "kind": "i64",
      "name": "n"
    }
  ],
  "block": [
    64,
    1,
    1
  ],
  "chip": "sm_80",
  "compiler": "accel 9.9",
  "dynamic_shared_bytes": 0,
  "features": "",
  "format_version": 1,
  "grid": [
    2,
    1,
    1
  ],
  "kernel": "k",
  "resources": {
    "registers": 32,
    "spill_bytes": 8,
    "static_shared_bytes": 0
  },
  "target": "nvptx"
}
)");
}

TEST(KernelMetadataTest, Equality) {
  KernelMetadata a = sampleMetadata(), b = sampleMetadata();
  EXPECT_EQ(a, b);
  b.arguments[0].shape[1] = 65;
  EXPECT_NE(a, b);
  b = a;
  b.resources->spillBytes = 4;
  EXPECT_NE(a, b);
  b = a;
  b.block[2] = 2;
  EXPECT_NE(a, b);
  b = a;
  b.arguments[0].access = BufferAccess::InOut;
  EXPECT_NE(a, b);
  // Buffer-only fields do not matter for scalars.
  b = a;
  b.arguments[1].access = BufferAccess::Out;
  EXPECT_EQ(a, b);
}

TEST(KernelMetadataTest, DTypeWidths) {
  EXPECT_EQ(getDTypeByteWidth("f16"), 2);
  EXPECT_EQ(getDTypeByteWidth("bf16"), 2);
  EXPECT_EQ(getDTypeByteWidth("f32"), 4);
  EXPECT_EQ(getDTypeByteWidth("f64"), 8);
  EXPECT_EQ(getDTypeByteWidth("i8"), 1);
  EXPECT_EQ(getDTypeByteWidth("i16"), 2);
  EXPECT_EQ(getDTypeByteWidth("i32"), 4);
  EXPECT_EQ(getDTypeByteWidth("i64"), 8);
  EXPECT_EQ(getDTypeByteWidth("f8E4M3FN"), 1);
  EXPECT_EQ(getDTypeByteWidth("f8E5M2"), 1);
  EXPECT_EQ(getDTypeByteWidth("f8e4m3fn"), std::nullopt);
  // Booleans (attention masks) take a byte each, as numpy and accel-run
  // store them.
  EXPECT_EQ(getDTypeByteWidth("i1"), 1);
  EXPECT_EQ(getDTypeByteWidth("i4"), std::nullopt);
}

TEST(KernelMetadataTest, SyntaxAndTypeErrors) {
  auto parseError = [](llvm::StringRef json) {
    llvm::Expected<KernelMetadata> parsed = parseKernelMetadata(json);
    return parsed ? "<parsed>" : llvm::toString(parsed.takeError());
  };
  EXPECT_EQ(parseError("{\"format_version\": 1,"),
            std::string(kPrefix) +
                "not valid JSON: [1:21, byte=21]: Expected object key");
  EXPECT_EQ(parseError("[1, 2]"),
            std::string(kPrefix) + "expected a JSON object");

  EXPECT_EQ(errorAfter([](auto &o) { o["gird"] = 1; }),
            std::string(kPrefix) + "unknown field 'gird'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 1)["dtyp"] = "f32"; }),
            std::string(kPrefix) + "arguments[1]: unknown field 'dtyp'");
  EXPECT_EQ(
      errorAfter([](auto &o) { (*o.getObject("resources"))["regs"] = 1; }),
      std::string(kPrefix) + "resources: unknown field 'regs'");
  EXPECT_EQ(errorAfter([](auto &o) { o.erase("chip"); }),
            std::string(kPrefix) + "missing field 'chip'");
  EXPECT_EQ(errorAfter([](auto &o) { o.erase("format_version"); }),
            std::string(kPrefix) + "missing field 'format_version'");
  EXPECT_EQ(errorAfter([](auto &o) { o.erase("arguments"); }),
            std::string(kPrefix) + "missing field 'arguments'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 0).erase("kind"); }),
            std::string(kPrefix) + "arguments[0]: missing field 'kind'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 2).erase("access"); }),
            std::string(kPrefix) + "arguments[2]: missing field 'access'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 3).erase("byte_size"); }),
            std::string(kPrefix) + "arguments[3]: missing field 'byte_size'");
  EXPECT_EQ(errorAfter([](auto &o) {
              o.getObject("resources")->erase("spill_bytes");
            }),
            std::string(kPrefix) + "resources: missing field 'spill_bytes'");

  EXPECT_EQ(errorAfter([](auto &o) { o["format_version"] = "1"; }),
            std::string(kPrefix) + "format_version: expected an integer");
  EXPECT_EQ(errorAfter([](auto &o) { o["dynamic_shared_bytes"] = 1.5; }),
            std::string(kPrefix) + "dynamic_shared_bytes: expected an integer");
  EXPECT_EQ(errorAfter([](auto &o) { o["chip"] = 90; }),
            std::string(kPrefix) + "chip: expected a string");
  EXPECT_EQ(errorAfter([](auto &o) { o["grid"] = "16,8,2"; }),
            std::string(kPrefix) + "grid: expected an array of integers");
  EXPECT_EQ(
      errorAfter([](auto &o) { o["block"] = llvm::json::Array{128, "2", 1}; }),
      std::string(kPrefix) + "block[1]: expected an integer");
  EXPECT_EQ(errorAfter([](auto &o) { o["grid"] = llvm::json::Array{16, 8}; }),
            std::string(kPrefix) +
                "grid: expected 3 integers [x, y, z], got 2");
  EXPECT_EQ(errorAfter([](auto &o) { o["arguments"] = llvm::json::Object{}; }),
            std::string(kPrefix) + "arguments: expected an array of objects");
  EXPECT_EQ(errorAfter([](auto &o) { (*o.getArray("arguments"))[1] = 4; }),
            std::string(kPrefix) + "arguments[1]: expected an object");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 2)["shape"] = 4; }),
            std::string(kPrefix) +
                "arguments[2].shape: expected an array of integers");
  EXPECT_EQ(errorAfter([](auto &o) {
              argument(o, 0)["shape"] = llvm::json::Array{128, nullptr};
            }),
            std::string(kPrefix) +
                "arguments[0].shape[1]: expected an integer");
  EXPECT_EQ(errorAfter([](auto &o) { o["resources"] = 3; }),
            std::string(kPrefix) + "resources: expected an object");
}

TEST(KernelMetadataTest, EnumErrors) {
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 1)["kind"] = "f64"; }),
            std::string(kPrefix) + "arguments[1].kind: unknown kind 'f64' "
                                   "(expected buffer, i32, i64 or f32)");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 0)["access"] = "rw"; }),
            std::string(kPrefix) + "arguments[0].access: unknown access 'rw' "
                                   "(expected in, out or inout)");
  EXPECT_EQ(errorAfter([](auto &o) {
              argument(o, 1)["shape"] = llvm::json::Array{1};
            }),
            std::string(kPrefix) +
                "arguments[1]: a scalar i32 argument has no 'shape'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 5)["access"] = "in"; }),
            std::string(kPrefix) +
                "arguments[5]: a scalar f32 argument has no 'access'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 3)["dtype"] = "i64"; }),
            std::string(kPrefix) +
                "arguments[3]: a scalar i64 argument has no 'dtype'");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 0)["dtype"] = "f4"; }),
            std::string(kPrefix) +
                "arguments[0].dtype: unknown dtype 'f4' (expected one of f16, "
                "bf16, f32, f64, i8, i16, i32, i64, f8E4M3FN, f8E5M2, "
                "f8E4M3FNUZ, f8E5M2FNUZ, i1)");
  EXPECT_EQ(errorAfter([](auto &o) { o["target"] = "cpu"; }),
            std::string(kPrefix) +
                "target: unknown target 'cpu' (expected nvptx or amdgpu)");
}

TEST(KernelMetadataTest, VersionErrors) {
  EXPECT_EQ(errorAfter([](auto &o) { o["format_version"] = 2; }),
            std::string(kPrefix) + "format_version: unsupported version 2 "
                                   "(this accel reads version 1)");
  // A newer format is reported as such even when other fields changed.
  EXPECT_EQ(errorAfter([](auto &o) {
              o["format_version"] = 0;
              o.erase("grid");
            }),
            std::string(kPrefix) + "format_version: unsupported version 0 "
                                   "(this accel reads version 1)");
}

TEST(KernelMetadataTest, ChipErrors) {
  for (const char *chip :
       {"gfx942", "sm_9", "sm_", "sm_90x", "sm_9a0", "SM_90", "sm_90af"})
    EXPECT_EQ(errorAfter([&](auto &o) { o["chip"] = chip; }),
              std::string(kPrefix) + "chip: '" + chip +
                  "' is not an NVIDIA chip (expected sm_<major><minor>, "
                  "optionally with an a or f suffix)")
        << chip;
  for (const char *chip : {"sm_80", "sm_90a", "sm_100f", "sm_120"})
    EXPECT_EQ(errorAfter([&](auto &o) { o["chip"] = chip; }), "<parsed>")
        << chip;
  for (const char *chip : {"sm_80", "gfx", "gfx9z0", "gfx94"})
    EXPECT_EQ(errorAfter([&](auto &o) {
                o["target"] = "amdgpu";
                o["chip"] = chip;
              }),
              std::string(kPrefix) + "chip: '" + chip +
                  "' is not an AMD GPU chip (expected gfx<version>)")
        << chip;
  for (const char *chip : {"gfx90a", "gfx942", "gfx1100"})
    EXPECT_EQ(errorAfter([&](auto &o) {
                o["target"] = "amdgpu";
                o["chip"] = chip;
                o["dynamic_shared_bytes"] = 0;
              }),
              "<parsed>")
        << chip;
  EXPECT_EQ(errorAfter([](auto &o) { o["kernel"] = ""; }),
            std::string(kPrefix) + "kernel: empty kernel name");
}

TEST(KernelMetadataTest, LaunchLimits) {
  auto dims = [](int64_t x, int64_t y, int64_t z) {
    return llvm::json::Array{x, y, z};
  };
  auto range = [](const char *field, int64_t value, int64_t high) {
    return std::string(kPrefix) + field + ": " + std::to_string(value) +
           " is out of range [1, " + std::to_string(high) + "]";
  };
  EXPECT_EQ(errorAfter([&](auto &o) { o["grid"] = dims(0, 1, 1); }),
            range("grid[0]", 0, 2147483647));
  EXPECT_EQ(errorAfter([&](auto &o) { o["grid"] = dims(-4, 1, 1); }),
            range("grid[0]", -4, 2147483647));
  EXPECT_EQ(errorAfter([&](auto &o) { o["grid"] = dims(2147483648, 1, 1); }),
            range("grid[0]", 2147483648, 2147483647));
  EXPECT_EQ(errorAfter([&](auto &o) { o["grid"] = dims(1, 65536, 1); }),
            range("grid[1]", 65536, 65535));
  EXPECT_EQ(errorAfter([&](auto &o) { o["grid"] = dims(1, 1, 65536); }),
            range("grid[2]", 65536, 65535));
  EXPECT_EQ(errorAfter([&](auto &o) { o["block"] = dims(1025, 1, 1); }),
            range("block[0]", 1025, 1024));
  EXPECT_EQ(errorAfter([&](auto &o) { o["block"] = dims(1, 0, 1); }),
            range("block[1]", 0, 1024));
  EXPECT_EQ(errorAfter([&](auto &o) { o["block"] = dims(1, 1, 65); }),
            range("block[2]", 65, 64));
  EXPECT_EQ(errorAfter([&](auto &o) { o["block"] = dims(32, 32, 2); }),
            std::string(kPrefix) +
                "block: 32x32x2 = 2048 threads exceeds 1024 per block");
  // The largest legal configuration passes.
  EXPECT_EQ(errorAfter([&](auto &o) {
              o["grid"] = dims(2147483647, 65535, 65535);
              o["block"] = dims(1024, 1, 1);
            }),
            "<parsed>");
  EXPECT_EQ(errorAfter([&](auto &o) { o["block"] = dims(4, 4, 64); }),
            "<parsed>");

  // AMD: z may be as large as x and y, but the grid counts work-items in 32
  // bits.
  auto amd = [&](llvm::json::Object &o) {
    o["target"] = "amdgpu";
    o["chip"] = "gfx942";
  };
  EXPECT_EQ(errorAfter([&](auto &o) {
              amd(o);
              o["block"] = dims(1, 1, 256);
              o["grid"] = dims(1, 65536, 16777215);
            }),
            "<parsed>");
  EXPECT_EQ(errorAfter([&](auto &o) {
              amd(o);
              o["block"] = dims(1, 1, 1025);
            }),
            range("block[2]", 1025, 1024));
  EXPECT_EQ(errorAfter([&](auto &o) {
              amd(o);
              o["block"] = dims(256, 1, 1);
              o["grid"] = dims(16777216, 1, 1);
            }),
            std::string(kPrefix) + "grid[0]: 16777216 workgroups of 256 = "
                                   "4294967296 work-items exceeds 4294967295");

  auto shared = [](int64_t value, int64_t high) {
    return std::string(kPrefix) +
           "dynamic_shared_bytes: " + std::to_string(value) +
           " is out of range [0, " + std::to_string(high) + "]";
  };
  EXPECT_EQ(errorAfter([](auto &o) { o["dynamic_shared_bytes"] = -1; }),
            shared(-1, 232448));
  EXPECT_EQ(errorAfter([](auto &o) { o["dynamic_shared_bytes"] = 232449; }),
            shared(232449, 232448));
  EXPECT_EQ(errorAfter([](auto &o) { o["dynamic_shared_bytes"] = 232448; }),
            "<parsed>");
  EXPECT_EQ(errorAfter([&](auto &o) {
              amd(o);
              o["dynamic_shared_bytes"] = 163841;
            }),
            shared(163841, 163840));
}

TEST(KernelMetadataTest, ArgumentErrors) {
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 1)["name"] = ""; }),
            std::string(kPrefix) + "arguments[1].name: empty argument name");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 2)["name"] = "A"; }),
            std::string(kPrefix) +
                "arguments[2].name: duplicate argument name 'A'");
  EXPECT_EQ(errorAfter([](auto &o) {
              argument(o, 0)["shape"] = llvm::json::Array{128, -3};
            }),
            std::string(kPrefix) +
                "arguments[0].shape[1]: negative dimension -3");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 0)["byte_size"] = 100; }),
            std::string(kPrefix) + "arguments[0].byte_size: 100 does not match "
                                   "shape [128, 64] of f16 (16384 bytes)");
  EXPECT_EQ(errorAfter([](auto &o) {
              argument(o, 0)["shape"] =
                  llvm::json::Array{int64_t(1) << 40, int64_t(1) << 22};
            }),
            std::string(kPrefix) + "arguments[0].shape: the size of "
                                   "[1099511627776, 4194304] x f16 overflows "
                                   "64 bits");
  // A rank-0 buffer holds one element.
  EXPECT_EQ(errorAfter([](auto &o) {
              argument(o, 0)["shape"] = llvm::json::Array{};
              argument(o, 0)["byte_size"] = 2;
            }),
            "<parsed>");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 1)["byte_size"] = 8; }),
            std::string(kPrefix) +
                "arguments[1].byte_size: a scalar i32 argument has 4 bytes, "
                "not 8");
  EXPECT_EQ(errorAfter([](auto &o) { argument(o, 3)["byte_size"] = 4; }),
            std::string(kPrefix) +
                "arguments[3].byte_size: a scalar i64 argument has 8 bytes, "
                "not 4");
  EXPECT_EQ(errorAfter([](auto &o) {
              (*o.getObject("resources"))["spill_bytes"] = -1;
            }),
            std::string(kPrefix) + "resources.spill_bytes: negative value -1");
  EXPECT_EQ(errorAfter(
                [](auto &o) { (*o.getObject("resources"))["registers"] = -2; }),
            std::string(kPrefix) + "resources.registers: negative value -2");
}

TEST(KernelMetadataTest, VerifyInMemory) {
  KernelMetadata m = sampleMetadata();
  EXPECT_EQ(verifyError(m), "<valid>");
  // Only reachable in memory: the parser rejects these fields earlier.
  m.arguments[1].shape = {2};
  EXPECT_EQ(verifyError(m),
            std::string(kPrefix) +
                "arguments[1]: a scalar i32 argument has no dtype or shape");
  m = sampleMetadata();
  m.arguments[5].dtype = "f32";
  EXPECT_EQ(verifyError(m),
            std::string(kPrefix) +
                "arguments[5]: a scalar f32 argument has no dtype or shape");
  m = sampleMetadata();
  m.resources->staticSharedBytes = -1;
  EXPECT_EQ(verifyError(m),
            std::string(kPrefix) +
                "resources.static_shared_bytes: negative value -1");
  m = sampleMetadata();
  m.formatVersion = 3;
  EXPECT_EQ(verifyError(m), std::string(kPrefix) +
                                "format_version: unsupported version 3 "
                                "(this accel reads version 1)");
}

} // namespace
