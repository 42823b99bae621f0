//===- CpuTuning.cpp - the CPU configuration stage's tuning cache ---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/CpuTuning.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::accel;

static constexpr llvm::StringLiteral kFormat = "accel-cpu-tuning";
static constexpr int64_t kVersion = 1;

const CpuTuningEntry *CpuTuningCache::find(llvm::StringRef cpu,
                                           llvm::StringRef key,
                                           int64_t threads) const {
  const CpuTuningEntry *any = nullptr;
  for (const CpuTuningEntry &e : entries)
    if (e.cpu == cpu && e.key == key) {
      if (e.threads == threads)
        return &e;
      if (e.threads == 0)
        any = &e;
    }
  return any;
}

void CpuTuningCache::erase(llvm::StringRef cpu, llvm::StringRef key,
                           int64_t threads) {
  llvm::erase_if(entries, [&](const CpuTuningEntry &e) {
    return e.cpu == cpu && e.key == key && e.threads == threads;
  });
}

void CpuTuningCache::put(const CpuTuningEntry &e) {
  for (CpuTuningEntry &old : entries)
    if (old.cpu == e.cpu && old.key == e.key && old.threads == e.threads) {
      old = e;
      return;
    }
  entries.push_back(e);
}

static llvm::Error cacheError(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

llvm::Expected<CpuTuningCache>
mlir::accel::parseCpuTuningCache(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return cacheError("not JSON: " + llvm::toString(value.takeError()));
  const llvm::json::Object *root = value->getAsObject();
  if (!root || root->getString("format") != std::optional<llvm::StringRef>(
                                                 kFormat))
    return cacheError(llvm::Twine("not a tuning cache (no \"format\": \"") +
                      kFormat + "\")");
  if (root->getInteger("version") != kVersion)
    return cacheError("version " +
                      llvm::Twine(root->getInteger("version").value_or(-1)) +
                      ", this compiler reads version " + llvm::Twine(kVersion));
  const llvm::json::Array *list = root->getArray("entries");
  if (!list)
    return cacheError("no \"entries\" array");
  CpuTuningCache cache;
  for (auto [i, item] : llvm::enumerate(*list)) {
    auto bad = [&, i = i](const llvm::Twine &why) {
      return cacheError("entry " + llvm::Twine(i) + ": " + why);
    };
    const llvm::json::Object *o = item.getAsObject();
    if (!o)
      return bad("not an object");
    CpuTuningEntry e;
    for (auto [field, into] :
         {std::pair<llvm::StringRef, std::string *>{"cpu", &e.cpu},
          {"key", &e.key},
          {"kernel", &e.kernel}}) {
      std::optional<llvm::StringRef> s = o->getString(field);
      if (!s || s->empty())
        return bad("no \"" + field + "\" string");
      *into = s->str();
    }
    for (auto [field, into] :
         {std::pair<llvm::StringRef, llvm::SmallVector<int64_t, 3> *>{
              "tile", &e.tile},
          {"mma", &e.mma}}) {
      const llvm::json::Array *sizes = o->getArray(field);
      if (!sizes) {
        if (field == "tile")
          return bad("no \"tile\" array");
        continue;
      }
      for (const llvm::json::Value &v : *sizes) {
        std::optional<int64_t> n = v.getAsInteger();
        if (!n || *n < 0)
          return bad("\"" + field + "\" holds something other than sizes");
        into->push_back(*n);
      }
    }
    std::optional<int64_t> threads = o->getInteger("threads");
    if (o->get("threads") && (!threads || *threads < 1))
      return bad("\"threads\" is not a thread count (1 or more)");
    e.threads = threads.value_or(0);
    if (llvm::any_of(cache.entries, [&](const CpuTuningEntry &old) {
          return old.cpu == e.cpu && old.key == e.key &&
                 old.threads == e.threads;
        }))
      return bad("a second entry for \"" + e.key + "\" on " + e.cpu +
                 (e.threads ? " with " + std::to_string(e.threads) +
                                  " thread(s)"
                            : std::string()));
    e.untunedMs = o->getNumber("untuned_ms").value_or(0);
    e.tunedMs = o->getNumber("tuned_ms").value_or(0);
    e.predictedMs = o->getNumber("predicted_ms").value_or(0);
    cache.entries.push_back(std::move(e));
  }
  return cache;
}

llvm::Expected<CpuTuningCache>
mlir::accel::loadCpuTuningCache(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return cacheError("cannot read it: " + file.getError().message());
  return parseCpuTuningCache((*file)->getBuffer());
}

std::string mlir::accel::printCpuTuningCache(const CpuTuningCache &cache) {
  llvm::json::Array entries;
  for (const CpuTuningEntry &e : cache.entries) {
    llvm::json::Object o{{"cpu", e.cpu},
                         {"key", e.key},
                         {"kernel", e.kernel},
                         {"tile", llvm::json::Array(e.tile)}};
    if (!e.mma.empty())
      o["mma"] = llvm::json::Array(e.mma);
    if (e.untunedMs > 0)
      o["untuned_ms"] = e.untunedMs;
    if (e.tunedMs > 0)
      o["tuned_ms"] = e.tunedMs;
    if (e.predictedMs > 0)
      o["predicted_ms"] = e.predictedMs;
    if (e.threads > 0)
      o["threads"] = e.threads;
    entries.push_back(std::move(o));
  }
  llvm::json::Object root{{"format", kFormat},
                          {"version", kVersion},
                          {"entries", std::move(entries)}};
  return llvm::formatv("{0:2}", llvm::json::Value(std::move(root))).str() +
         "\n";
}

/// `size` rounded up to a power of two, after `prefix`; nothing when it is
/// dynamic.
static std::optional<std::string> sizeClass(llvm::StringRef prefix,
                                            int64_t size) {
  if (ShapedType::isDynamic(size) || size < 0)
    return std::nullopt;
  return (" " + prefix + llvm::Twine(llvm::PowerOf2Ceil(size))).str();
}

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string mlir::accel::cpuTuningKey(Operation *op) {
  std::string key;
  auto add = [&](llvm::StringRef prefix, int64_t size) {
    std::optional<std::string> c = sizeClass(prefix, size);
    if (!c)
      return false;
    key += *c;
    return true;
  };
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    auto a = cast<ShapedType>(mm.getLhs().getType()),
         b = cast<ShapedType>(mm.getRhs().getType()),
         c = cast<ShapedType>(mm.getInit().getType());
    int64_t r = a.getRank();
    key = "matmul " + typeName(a.getElementType()) + "x" +
          typeName(b.getElementType()) + "->" + typeName(c.getElementType());
    int64_t batch = 1;
    for (int64_t d : a.getShape().drop_back(2)) {
      if (ShapedType::isDynamic(d))
        return "";
      batch *= d;
    }
    if (r > 2 && !add("b", batch))
      return "";
    int64_t n = mm.getTransposeB() ? b.getDimSize(r - 2) : b.getDimSize(r - 1);
    if (!add("m", a.getDimSize(r - 2)) || !add("n", n) ||
        !add("k", a.getDimSize(r - 1)))
      return "";
    if (mm.getTransposeB())
      key += " transpose_b";
    return key;
  }
  if (auto at = dyn_cast<AttentionOp>(op)) {
    auto q = cast<ShapedType>(at.getQuery().getType()),
         k = cast<ShapedType>(at.getKey().getType());
    if (q.getRank() != 4 || k.getRank() != 4)
      return "";
    key = "attention " + typeName(q.getElementType());
    if (!add("b", q.getDimSize(0)) || !add("h", q.getDimSize(1)) ||
        !add("q", q.getDimSize(2)) || !add("kv", k.getDimSize(2)) ||
        !add("d", q.getDimSize(3)))
      return "";
    if (at.getCausal())
      key += " causal";
    return key;
  }
  return "";
}

std::string mlir::accel::cpuTuningCpu(llvm::StringRef features,
                                      ModuleOp module) {
  if (!features.empty())
    return cpuTargetForFeatures(features)->name;
  auto target =
      module ? module->getAttrOfType<TargetAttr>(kTargetAttrName) : TargetAttr();
  if (target && target.getKind() == TargetKind::CPU)
    return target.getName().str();
  return "";
}
