//===- KernelMetadata.cpp - Launch metadata of a GPU kernel ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Parsing is in two steps: the JSON is mapped onto KernelMetadata with type
// checks (missing, ill-typed and unknown fields), then verifyKernelMetadata
// checks the values (ranges, launch limits, consistency). The compiler calls
// the second step alone on what it is about to write, so both directions
// enforce the same rules.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/KernelMetadata.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

namespace {

/// The element types a buffer may have, with their widths in bytes. fp8
/// types are named as in MLIR so the compiler can print the element type.
struct DTypeInfo {
  const char *name;
  int64_t bytes;
};
constexpr DTypeInfo kDTypes[] = {
    {"f16", 2},      {"bf16", 2},   {"f32", 4},        {"f64", 8},
    {"i8", 1},       {"i16", 2},    {"i32", 4},        {"i64", 8},
    {"f8E4M3FN", 1}, {"f8E5M2", 1}, {"f8E4M3FNUZ", 1}, {"f8E5M2FNUZ", 1},
    {"i1", 1}, // a byte each (0 or 1), as numpy's bool
};

// Launch limits. CUDA's are the same on every chip from sm_50 on. AMD's
// dispatch packet holds the grid size in work-items as 32 bits.
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kCudaMaxBlock[3] = {1024, 1024, 64};
constexpr int64_t kCudaMaxGrid[3] = {2147483647, 65535, 65535};
constexpr int64_t kAmdMaxBlock[3] = {1024, 1024, 1024};
constexpr int64_t kAmdMaxGrid = 2147483647;
constexpr int64_t kAmdMaxWorkItems = 4294967295;
// The largest shared memory a block can opt into: 227 KiB on sm_90 and
// sm_100; 160 KiB of LDS on gfx950. The launcher checks the device's own
// limit at run time.
constexpr int64_t kCudaMaxDynamicShared = 232448;
constexpr int64_t kAmdMaxDynamicShared = 163840;

/// `path` names the field ("grid[1]", "arguments[0].dtype"); empty for the
/// top-level object.
llvm::Error fail(const llvm::Twine &path, const llvm::Twine &message) {
  std::string where = path.str();
  return llvm::createStringError(
      "invalid kernel metadata: " + (where.empty() ? "" : where + ": ") +
      message.str());
}

std::string dtypeList() {
  std::string list;
  for (const DTypeInfo &info : kDTypes)
    list += (list.empty() ? "" : ", ") + std::string(info.name);
  return list;
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

//===----------------------------------------------------------------------===//
// JSON -> structure
//===----------------------------------------------------------------------===//

/// Reads the fields of one JSON object, reporting errors with the path of
/// the object ("arguments[2]") in front of the field name.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &object, std::string path)
      : object(object), path(std::move(path)) {}

  std::string fieldPath(StringRef key) const {
    return path.empty() ? key.str() : path + "." + key.str();
  }

  /// Rejects any field not in `known`, so a misspelt optional field is not
  /// silently ignored. The first unknown name in sorted order is reported so
  /// the message does not depend on hash order.
  llvm::Error checkKnown(llvm::ArrayRef<StringRef> known) const {
    std::vector<std::string> unknown;
    for (const auto &entry : object)
      if (!llvm::is_contained(known, StringRef(entry.first)))
        unknown.push_back(entry.first.str());
    if (unknown.empty())
      return llvm::Error::success();
    std::sort(unknown.begin(), unknown.end());
    return fail(path, "unknown field '" + unknown.front() + "'");
  }

  const llvm::json::Value *get(StringRef key) const { return object.get(key); }
  bool has(StringRef key) const { return get(key) != nullptr; }

  llvm::Expected<const llvm::json::Value *> require(StringRef key) const {
    if (const llvm::json::Value *value = object.get(key))
      return value;
    return fail(path, "missing field '" + key + "'");
  }

  llvm::Error readInteger(StringRef key, int64_t &out) const {
    auto value = require(key);
    if (!value)
      return value.takeError();
    std::optional<int64_t> integer = (*value)->getAsInteger();
    if (!integer)
      return fail(fieldPath(key), "expected an integer");
    out = *integer;
    return llvm::Error::success();
  }

  /// Reads integer fields in order, stopping at the first error.
  llvm::Error
  readIntegers(llvm::ArrayRef<std::pair<StringRef, int64_t *>> fields) const {
    for (auto [key, out] : fields)
      if (llvm::Error error = readInteger(key, *out))
        return error;
    return llvm::Error::success();
  }

  llvm::Error readString(StringRef key, std::string &out) const {
    auto value = require(key);
    if (!value)
      return value.takeError();
    std::optional<StringRef> string = (*value)->getAsString();
    if (!string)
      return fail(fieldPath(key), "expected a string");
    out = string->str();
    return llvm::Error::success();
  }

  /// Reads a string field into `name` and the one of `choices` it names
  /// into `out` (`expected`: the names, for the error).
  template <typename T>
  llvm::Error readChoice(StringRef key, std::string &name, T &out,
                         llvm::ArrayRef<std::pair<StringRef, T>> choices,
                         StringRef expected) const {
    if (llvm::Error error = readString(key, name))
      return error;
    for (auto [choice, value] : choices)
      if (name == choice) {
        out = value;
        return llvm::Error::success();
      }
    return fail(fieldPath(key), "unknown " + key + " '" + name +
                                    "' (expected " + expected + ")");
  }

  llvm::Error readIntegerArray(StringRef key,
                               llvm::SmallVectorImpl<int64_t> &out) const {
    auto value = require(key);
    if (!value)
      return value.takeError();
    const llvm::json::Array *array = (*value)->getAsArray();
    if (!array)
      return fail(fieldPath(key), "expected an array of integers");
    out.clear();
    for (auto [i, element] : llvm::enumerate(*array)) {
      std::optional<int64_t> integer = element.getAsInteger();
      if (!integer)
        return fail(fieldPath(key) + "[" + llvm::Twine(i) + "]",
                    "expected an integer");
      out.push_back(*integer);
    }
    return llvm::Error::success();
  }

  llvm::Error readDim3(StringRef key, std::array<int64_t, 3> &out) const {
    llvm::SmallVector<int64_t> values;
    if (llvm::Error error = readIntegerArray(key, values))
      return error;
    if (values.size() != 3)
      return fail(fieldPath(key), "expected 3 integers [x, y, z], got " +
                                      llvm::Twine(values.size()));
    std::copy(values.begin(), values.end(), out.begin());
    return llvm::Error::success();
  }

private:
  const llvm::json::Object &object;
  std::string path;
};

/// A reader of `value`, which must be an object with none but the `known`
/// fields (`path`: where it is, for errors).
llvm::Expected<FieldReader> readObject(const llvm::json::Value &value,
                                       const std::string &path,
                                       llvm::ArrayRef<StringRef> known) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail(path, "expected an object");
  FieldReader reader(*object, path);
  if (llvm::Error error = reader.checkKnown(known))
    return std::move(error);
  return reader;
}

llvm::Error parseArgument(const llvm::json::Value &value,
                          const std::string &path, KernelArgument &arg) {
  llvm::Expected<FieldReader> object = readObject(
      value, path, {"name", "kind", "dtype", "shape", "access", "byte_size"});
  if (!object)
    return object.takeError();
  const FieldReader &reader = *object;
  if (llvm::Error error = reader.readString("name", arg.name))
    return error;
  std::string kind;
  if (llvm::Error error =
          reader.readChoice<KernelArgKind>("kind", kind, arg.kind,
                                           {{"buffer", KernelArgKind::Buffer},
                                            {"i32", KernelArgKind::I32},
                                            {"i64", KernelArgKind::I64},
                                            {"f32", KernelArgKind::F32}},
                                           "buffer, i32, i64 or f32"))
    return error;

  if (arg.kind == KernelArgKind::Buffer) {
    if (llvm::Error error = reader.readString("dtype", arg.dtype))
      return error;
    if (llvm::Error error = reader.readIntegerArray("shape", arg.shape))
      return error;
    std::string access;
    if (llvm::Error error =
            reader.readChoice<BufferAccess>("access", access, arg.access,
                                            {{"in", BufferAccess::In},
                                             {"out", BufferAccess::Out},
                                             {"inout", BufferAccess::InOut}},
                                            "in, out or inout"))
      return error;
  } else {
    for (StringRef key : {"dtype", "shape", "access"})
      if (reader.has(key))
        return fail(path,
                    "a scalar " + kind + " argument has no '" + key + "'");
  }
  return reader.readInteger("byte_size", arg.byteSize);
}

llvm::Error parseResources(const llvm::json::Value &value,
                           KernelResources &resources) {
  llvm::Expected<FieldReader> reader =
      readObject(value, "resources",
                 {"registers", "static_shared_bytes", "spill_bytes", "amdgpu"});
  if (!reader)
    return reader.takeError();
  if (llvm::Error error = reader->readIntegers(
          {{"registers", &resources.registers},
           {"static_shared_bytes", &resources.staticSharedBytes},
           {"spill_bytes", &resources.spillBytes}}))
    return error;
  const llvm::json::Value *amd = reader->get("amdgpu");
  if (!amd)
    return llvm::Error::success();
  llvm::Expected<FieldReader> amdReader =
      readObject(*amd, "resources.amdgpu",
                 {"vgprs", "agprs", "sgprs", "allocated_vgprs", "scratch_bytes",
                  "wavefront_size", "waves_per_simd"});
  if (!amdReader)
    return amdReader.takeError();
  KernelResources::Amdgpu a;
  if (llvm::Error error =
          amdReader->readIntegers({{"vgprs", &a.vgprs},
                                   {"agprs", &a.agprs},
                                   {"sgprs", &a.sgprs},
                                   {"allocated_vgprs", &a.allocatedVgprs},
                                   {"scratch_bytes", &a.scratchBytes},
                                   {"wavefront_size", &a.wavefrontSize},
                                   {"waves_per_simd", &a.wavesPerSimd}}))
    return error;
  resources.amdgpu = a;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Value checks
//===----------------------------------------------------------------------===//

/// "sm_<digits>" with an optional "a" or "f" suffix, at least two digits.
bool isNvidiaChip(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return false;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  return chip.size() >= 2 && llvm::all_of(chip, llvm::isDigit);
}

/// "gfx<hex digits>", e.g. gfx90a, gfx942, gfx1100.
bool isAmdChip(StringRef chip) {
  if (!chip.consume_front("gfx"))
    return false;
  return chip.size() >= 3 && llvm::all_of(chip, llvm::isHexDigit);
}

llvm::Error checkRange(const llvm::Twine &path, int64_t value, int64_t low,
                       int64_t high) {
  if (value >= low && value <= high)
    return llvm::Error::success();
  return fail(path, llvm::Twine(value) + " is out of range [" +
                        llvm::Twine(low) + ", " + llvm::Twine(high) + "]");
}

llvm::Error verifyLaunch(const KernelMetadata &m) {
  bool cuda = m.target == "nvptx";
  for (int i = 0; i < 3; ++i) {
    std::string index = "[" + std::to_string(i) + "]";
    if (llvm::Error error =
            checkRange("block" + index, m.block[i], 1,
                       cuda ? kCudaMaxBlock[i] : kAmdMaxBlock[i]))
      return error;
    if (llvm::Error error = checkRange("grid" + index, m.grid[i], 1,
                                       cuda ? kCudaMaxGrid[i] : kAmdMaxGrid))
      return error;
  }
  int64_t threads = m.block[0] * m.block[1] * m.block[2];
  if (threads > kMaxThreadsPerBlock)
    return fail("block", llvm::Twine(m.block[0]) + "x" +
                             llvm::Twine(m.block[1]) + "x" +
                             llvm::Twine(m.block[2]) + " = " +
                             llvm::Twine(threads) + " threads exceeds " +
                             llvm::Twine(kMaxThreadsPerBlock) + " per block");
  if (!cuda) {
    for (int i = 0; i < 3; ++i) {
      int64_t items = m.grid[i] * m.block[i];
      if (items > kAmdMaxWorkItems)
        return fail("grid[" + llvm::Twine(i) + "]",
                    llvm::Twine(m.grid[i]) + " workgroups of " +
                        llvm::Twine(m.block[i]) + " = " + llvm::Twine(items) +
                        " work-items exceeds " + llvm::Twine(kAmdMaxWorkItems));
    }
  }
  return checkRange("dynamic_shared_bytes", m.dynamicSharedBytes, 0,
                    cuda ? kCudaMaxDynamicShared : kAmdMaxDynamicShared);
}

llvm::Error verifyArgument(const KernelArgument &arg, const std::string &path) {
  if (arg.name.empty())
    return fail(path + ".name", "empty argument name");
  if (arg.kind != KernelArgKind::Buffer) {
    StringRef kind = stringifyKernelArgKind(arg.kind);
    if (!arg.dtype.empty() || !arg.shape.empty())
      return fail(path, "a scalar " + kind + " argument has no dtype or shape");
    int64_t expected = arg.kind == KernelArgKind::I64 ? 8 : 4;
    if (arg.byteSize != expected)
      return fail(path + ".byte_size", "a scalar " + kind + " argument has " +
                                           llvm::Twine(expected) +
                                           " bytes, not " +
                                           llvm::Twine(arg.byteSize));
    return llvm::Error::success();
  }
  std::optional<int64_t> width = getDTypeByteWidth(arg.dtype);
  if (!width)
    return fail(path + ".dtype", "unknown dtype '" + arg.dtype +
                                     "' (expected one of " + dtypeList() + ")");
  int64_t bytes = *width;
  for (auto [i, dim] : llvm::enumerate(arg.shape)) {
    if (dim < 0)
      return fail(path + ".shape[" + llvm::Twine(i) + "]",
                  "negative dimension " + llvm::Twine(dim));
    std::optional<int64_t> product = llvm::checkedMul(bytes, dim);
    if (!product)
      return fail(path + ".shape", "the size of " + shapeString(arg.shape) +
                                       " x " + arg.dtype +
                                       " overflows 64 bits");
    bytes = *product;
  }
  if (arg.byteSize != bytes)
    return fail(path + ".byte_size",
                llvm::Twine(arg.byteSize) + " does not match shape " +
                    shapeString(arg.shape) + " of " + arg.dtype + " (" +
                    llvm::Twine(bytes) + " bytes)");
  return llvm::Error::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

StringRef accel::stringifyKernelArgKind(KernelArgKind kind) {
  switch (kind) {
  case KernelArgKind::Buffer:
    return "buffer";
  case KernelArgKind::I32:
    return "i32";
  case KernelArgKind::I64:
    return "i64";
  case KernelArgKind::F32:
    return "f32";
  }
  llvm_unreachable("unknown KernelArgKind");
}

StringRef accel::stringifyBufferAccess(BufferAccess access) {
  switch (access) {
  case BufferAccess::In:
    return "in";
  case BufferAccess::Out:
    return "out";
  case BufferAccess::InOut:
    return "inout";
  }
  llvm_unreachable("unknown BufferAccess");
}

std::optional<int64_t> accel::getDTypeByteWidth(StringRef dtype) {
  for (const DTypeInfo &info : kDTypes)
    if (dtype == info.name)
      return info.bytes;
  return std::nullopt;
}

bool KernelArgument::operator==(const KernelArgument &other) const {
  // Buffer-only fields do not distinguish scalars.
  bool buffer = kind == KernelArgKind::Buffer;
  return name == other.name && kind == other.kind &&
         byteSize == other.byteSize &&
         (!buffer || (dtype == other.dtype && shape == other.shape &&
                      access == other.access));
}

bool KernelResources::operator==(const KernelResources &other) const {
  return registers == other.registers &&
         staticSharedBytes == other.staticSharedBytes &&
         spillBytes == other.spillBytes && amdgpu == other.amdgpu;
}

bool KernelMetadata::operator==(const KernelMetadata &other) const {
  return formatVersion == other.formatVersion && compiler == other.compiler &&
         target == other.target && chip == other.chip &&
         features == other.features && kernel == other.kernel &&
         grid == other.grid && block == other.block &&
         dynamicSharedBytes == other.dynamicSharedBytes &&
         arguments == other.arguments && resources == other.resources &&
         ptx == other.ptx && cubin == other.cubin && hsaco == other.hsaco &&
         ptxSha256 == other.ptxSha256 && cubinSha256 == other.cubinSha256 &&
         hsacoSha256 == other.hsacoSha256;
}

std::string accel::computeSha256Hex(StringRef bytes) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

bool accel::isPlainFileName(StringRef name) {
  return !name.empty() && name.front() != '.' && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
  });
}

llvm::Error accel::verifyKernelMetadata(const KernelMetadata &m) {
  if (m.formatVersion != kKernelMetadataFormatVersion)
    return fail("format_version",
                "unsupported version " + llvm::Twine(m.formatVersion) +
                    " (this accel reads version " +
                    llvm::Twine(kKernelMetadataFormatVersion) + ")");
  // A loader opens these next to the metadata: they must not escape its
  // folder.
  for (auto [key, name] :
       {std::pair<StringRef, const std::string *>{"ptx", &m.ptx},
        {"cubin", &m.cubin},
        {"hsaco", &m.hsaco}})
    if (!name->empty() && !isPlainFileName(*name))
      return fail(key, "'" + *name +
                           "' is not a plain file name (letters, digits, "
                           "'_', '.', '-', not starting with '.')");
  for (auto [key, name, hash] :
       {std::tuple<StringRef, const std::string *, const std::string *>{
            "ptx", &m.ptx, &m.ptxSha256},
        {"cubin", &m.cubin, &m.cubinSha256},
        {"hsaco", &m.hsaco, &m.hsacoSha256}})
    if (!hash->empty() && name->empty())
      return fail(("sha256." + key).str(),
                  "hashes no artifact: '" + key + "' names no file");
  if (m.target == "nvptx") {
    if (!isNvidiaChip(m.chip))
      return fail("chip", "'" + m.chip +
                              "' is not an NVIDIA chip (expected "
                              "sm_<major><minor>, optionally with an a or f "
                              "suffix)");
  } else if (m.target == "amdgpu") {
    if (!isAmdChip(m.chip))
      return fail("chip",
                  "'" + m.chip +
                      "' is not an AMD GPU chip (expected gfx<version>)");
  } else {
    return fail("target",
                "unknown target '" + m.target + "' (expected nvptx or amdgpu)");
  }
  if (m.kernel.empty())
    return fail("kernel", "empty kernel name");
  if (llvm::Error error = verifyLaunch(m))
    return error;
  llvm::StringSet<> names;
  for (auto [i, arg] : llvm::enumerate(m.arguments)) {
    std::string path = "arguments[" + std::to_string(i) + "]";
    if (llvm::Error error = verifyArgument(arg, path))
      return error;
    if (!names.insert(arg.name).second)
      return fail(path + ".name", "duplicate argument name '" + arg.name + "'");
  }
  if (m.resources) {
    const KernelResources &r = *m.resources;
    std::pair<const char *, int64_t> fields[] = {
        {"registers", r.registers},
        {"static_shared_bytes", r.staticSharedBytes},
        {"spill_bytes", r.spillBytes}};
    for (auto [name, value] : fields)
      if (value < 0)
        return fail("resources." + llvm::Twine(name),
                    "negative value " + llvm::Twine(value));
  }
  return llvm::Error::success();
}

llvm::Expected<KernelMetadata>
accel::parseKernelMetadataValue(const llvm::json::Value &json) {
  const llvm::json::Object *object = json.getAsObject();
  if (!object)
    return fail("", "expected a JSON object");
  FieldReader reader(*object, "");
  if (llvm::Error error = reader.checkKnown(
          {"format_version", "compiler", "target", "chip", "features", "kernel",
           "grid", "block", "dynamic_shared_bytes", "arguments", "resources",
           "ptx", "cubin", "hsaco", "sha256"}))
    return std::move(error);

  KernelMetadata m;
  // The version first: a newer format may differ in anything else, and
  // "unsupported version" is the message that helps then.
  if (llvm::Error error = reader.readInteger("format_version", m.formatVersion))
    return std::move(error);
  if (m.formatVersion != kKernelMetadataFormatVersion)
    return verifyKernelMetadata(m);

  if (llvm::Error error = reader.readString("compiler", m.compiler))
    return std::move(error);
  if (llvm::Error error = reader.readString("target", m.target))
    return std::move(error);
  if (llvm::Error error = reader.readString("chip", m.chip))
    return std::move(error);
  if (llvm::Error error = reader.readString("features", m.features))
    return std::move(error);
  if (llvm::Error error = reader.readString("kernel", m.kernel))
    return std::move(error);
  if (llvm::Error error = reader.readDim3("grid", m.grid))
    return std::move(error);
  if (llvm::Error error = reader.readDim3("block", m.block))
    return std::move(error);
  if (llvm::Error error =
          reader.readInteger("dynamic_shared_bytes", m.dynamicSharedBytes))
    return std::move(error);

  auto arguments = reader.require("arguments");
  if (!arguments)
    return arguments.takeError();
  const llvm::json::Array *argArray = (*arguments)->getAsArray();
  if (!argArray)
    return fail("arguments", "expected an array of objects");
  for (auto [i, value] : llvm::enumerate(*argArray)) {
    KernelArgument arg;
    if (llvm::Error error =
            parseArgument(value, "arguments[" + std::to_string(i) + "]", arg))
      return std::move(error);
    m.arguments.push_back(std::move(arg));
  }

  if (const llvm::json::Value *resources = object->get("resources")) {
    KernelResources r;
    if (llvm::Error error = parseResources(*resources, r))
      return std::move(error);
    m.resources = r;
  }

  // The artifacts: plain file names next to the metadata, or null.
  for (auto [key, out] : {std::pair<StringRef, std::string *>{"ptx", &m.ptx},
                          {"cubin", &m.cubin},
                          {"hsaco", &m.hsaco}}) {
    const llvm::json::Value *value = object->get(key);
    if (!value || value->getAsNull())
      continue;
    std::optional<StringRef> name = value->getAsString();
    if (!name)
      return fail(key, "expected a file name or null");
    *out = name->str();
  }

  // {"ptx": hex, "cubin": hex, "hsaco": hex}, each of an artifact named
  // above.
  if (const llvm::json::Value *hashes = object->get("sha256")) {
    const llvm::json::Object *h = hashes->getAsObject();
    if (!h)
      return fail("sha256", "expected an object of artifact hashes");
    FieldReader hashReader(*h, "sha256");
    if (llvm::Error error = hashReader.checkKnown({"ptx", "cubin", "hsaco"}))
      return std::move(error);
    for (auto [key, out] :
         {std::pair<StringRef, std::string *>{"ptx", &m.ptxSha256},
          {"cubin", &m.cubinSha256},
          {"hsaco", &m.hsacoSha256}}) {
      const llvm::json::Value *value = h->get(key);
      if (!value)
        continue;
      std::optional<StringRef> hex = value->getAsString();
      if (!hex || hex->size() != 64 ||
          !llvm::all_of(*hex, [](char c) {
            return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
          }))
        return fail(("sha256." + key).str(),
                    "expected 64 lowercase hex digits");
      *out = hex->str();
    }
  }

  if (llvm::Error error = verifyKernelMetadata(m))
    return std::move(error);
  return m;
}

/// The deepest nesting of arrays and objects in `json` (outside strings).
/// llvm::json::parse recurses once per level without a bound, so deeply
/// nested input (an untrusted --replay folder's metadata) would overflow the
/// stack; metadata itself nests 3 levels.
static int64_t jsonNestingDepth(StringRef json) {
  int64_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

llvm::Expected<KernelMetadata> accel::parseKernelMetadata(StringRef json) {
  constexpr int64_t kMaxJsonNesting = 64;
  if (int64_t depth = jsonNestingDepth(json); depth > kMaxJsonNesting)
    return fail("", "nested " + llvm::Twine(depth) + " levels deep (at most " +
                        llvm::Twine(kMaxJsonNesting) + ")");
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return fail("", "not valid JSON: " + llvm::toString(value.takeError()));
  return parseKernelMetadataValue(*value);
}

llvm::json::Value accel::toJsonValue(const KernelMetadata &m) {
  llvm::json::Array arguments;
  for (const KernelArgument &arg : m.arguments) {
    llvm::json::Object object{{"name", arg.name},
                              {"kind", stringifyKernelArgKind(arg.kind)},
                              {"byte_size", arg.byteSize}};
    if (arg.kind == KernelArgKind::Buffer) {
      object["dtype"] = arg.dtype;
      object["shape"] = llvm::json::Array(arg.shape);
      object["access"] = stringifyBufferAccess(arg.access);
    }
    arguments.push_back(std::move(object));
  }
  llvm::json::Object object{
      {"format_version", m.formatVersion},
      {"compiler", m.compiler},
      {"target", m.target},
      {"chip", m.chip},
      {"features", m.features},
      {"kernel", m.kernel},
      {"grid", llvm::json::Array(m.grid)},
      {"block", llvm::json::Array(m.block)},
      {"dynamic_shared_bytes", m.dynamicSharedBytes},
      {"arguments", std::move(arguments)},
  };
  if (!m.ptx.empty() || !m.cubin.empty()) {
    object["ptx"] =
        m.ptx.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(m.ptx);
    object["cubin"] = m.cubin.empty() ? llvm::json::Value(nullptr)
                                      : llvm::json::Value(m.cubin);
  }
  if (!m.hsaco.empty())
    object["hsaco"] = m.hsaco;
  llvm::json::Object hashes;
  for (auto [key, hash] : {std::pair<StringRef, const std::string *>{
                               "ptx", &m.ptxSha256},
                           {"cubin", &m.cubinSha256},
                           {"hsaco", &m.hsacoSha256}})
    if (!hash->empty())
      hashes[key] = *hash;
  if (!hashes.empty())
    object["sha256"] = std::move(hashes);
  if (m.resources) {
    llvm::json::Object r{
        {"registers", m.resources->registers},
        {"static_shared_bytes", m.resources->staticSharedBytes},
        {"spill_bytes", m.resources->spillBytes}};
    if (const std::optional<KernelResources::Amdgpu> &a = m.resources->amdgpu)
      r["amdgpu"] = llvm::json::Object{{"vgprs", a->vgprs},
                                       {"agprs", a->agprs},
                                       {"sgprs", a->sgprs},
                                       {"allocated_vgprs", a->allocatedVgprs},
                                       {"scratch_bytes", a->scratchBytes},
                                       {"wavefront_size", a->wavefrontSize},
                                       {"waves_per_simd", a->wavesPerSimd}};
    object["resources"] = std::move(r);
  }
  return object;
}

std::string accel::toJson(const KernelMetadata &m) {
  // llvm::json::Object prints its keys sorted, which keeps the output
  // deterministic; two-space indentation keeps it reviewable.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", toJsonValue(m)) << "\n";
  return text;
}
