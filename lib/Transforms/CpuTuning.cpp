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
#include <array>
#include <cmath>

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

const CpuKernelCalibration *
CpuTuningCache::findCalibration(llvm::StringRef cpu, llvm::StringRef kernel,
                                int64_t threads) const {
  for (const CpuKernelCalibration &c : calibrations)
    if (c.cpu == cpu && c.kernel == kernel && c.threads == threads)
      return &c;
  return nullptr;
}

void CpuTuningCache::putCalibration(const CpuKernelCalibration &c) {
  for (CpuKernelCalibration &old : calibrations)
    if (old.cpu == c.cpu && old.kernel == c.kernel &&
        old.threads == c.threads) {
      old = c;
      return;
    }
  calibrations.push_back(c);
}

double mlir::accel::predictCalibratedMs(const CpuKernelCalibration &c,
                                        double flops, double scores,
                                        double bytes) {
  double traffic = bytes > c.cacheBytes ? bytes : 0;
  return flops / (c.gflops * 1e6) + scores * c.nsPerScore * 1e-6 +
         traffic * c.nsPerByte * 1e-6 + c.usPerCall * 1e-3;
}

/// The terms of the fit: FLOPs, softmax elements, bytes, a call.
static constexpr int kTerms = 4;
using Row = std::array<double, kTerms>;

/// Solves the n x n system `a` x = `b` (n <= kTerms) by Gaussian
/// elimination with partial pivoting; false when it is singular.
static bool solveSmall(double a[kTerms][kTerms], double b[kTerms], int n,
                       double x[kTerms]) {
  double scale = 0;
  for (int i = 0; i < n; ++i)
    scale = std::max(scale, std::fabs(a[i][i]));
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col]))
        pivot = r;
    if (!(std::fabs(a[pivot][col]) > 1e-12 * scale))
      return false;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (int r = col + 1; r < n; ++r) {
      double f = a[r][col] / a[col][col];
      for (int c = col; c < n; ++c)
        a[r][c] -= f * a[col][c];
      b[r] -= f * b[col];
    }
  }
  for (int r = n - 1; r >= 0; --r) {
    double v = b[r];
    for (int c = r + 1; c < n; ++c)
      v -= a[r][c] * x[c];
    x[r] = v / a[r][r];
  }
  return true;
}

/// The least-squares solution over `rows` (but `skip`) of the terms in
/// `idx` (the others 0), or none when it is singular or a term is negative.
static std::optional<Row>
solveTerms(llvm::ArrayRef<Row> rows, llvm::ArrayRef<int> idx,
           std::optional<size_t> skip = std::nullopt) {
  int n = idx.size();
  double a[kTerms][kTerms] = {}, b[kTerms] = {}, x[kTerms] = {};
  for (auto [r, row] : llvm::enumerate(rows)) {
    if (skip && r == *skip)
      continue;
    for (int i = 0; i < n; ++i) {
      b[i] += row[idx[i]];
      for (int j = 0; j < n; ++j)
        a[i][j] += row[idx[i]] * row[idx[j]];
    }
  }
  if (!solveSmall(a, b, n, x))
    return std::nullopt;
  Row full{};
  for (int i = 0; i < n; ++i) {
    if (!(x[i] >= 0) || !std::isfinite(x[i]))
      return std::nullopt;
    full[idx[i]] = x[i];
  }
  if (!(full[0] > 0))
    return std::nullopt;
  return full;
}

static double predictRow(const Row &row, const Row &x) {
  double t = 0;
  for (int i = 0; i < kTerms; ++i)
    t += row[i] * x[i];
  return t;
}

std::optional<CpuKernelCalibration> mlir::accel::fitCpuKernelCalibration(
    llvm::StringRef cpu, llvm::StringRef kernel, int64_t threads,
    double cacheBytes, llvm::ArrayRef<CpuTimingSample> samples) {
  // time = x0 * flops + x1 * scores + x2 * bytes + x3, every x >= 0,
  // minimising sum((predicted / measured - 1)^2): a least-squares problem
  // in the features divided by the measured time, against 1. Features
  // scaled to O(1): FLOPs in GFLOP, scores in G, bytes in GB, time in ms.
  std::vector<Row> rows;
  for (const CpuTimingSample &s : samples) {
    if (!(s.ms > 0) || !(s.flops > 0) || s.scores < 0 || s.bytes < 0)
      continue;
    double traffic = s.bytes > cacheBytes ? s.bytes : 0;
    rows.push_back({s.flops * 1e-9 / s.ms, s.scores * 1e-9 / s.ms,
                    traffic * 1e-9 / s.ms, 1 / s.ms});
  }
  if (rows.empty())
    return std::nullopt;
  // Which terms: the rate, with any of the others, whichever predicts each
  // sample best from the rest (leave-one-out error; the fewer terms on a
  // tie). A term the samples do not need would fit their noise and
  // extrapolate badly (a call's cost of 0.6 ms fitted to attention at
  // L >= 1024 and applied at L 64). With no sample to spare, the rate
  // alone.
  std::optional<Row> best;
  double bestLoo = INFINITY;
  size_t bestTerms = 0;
  for (unsigned mask = 0; mask < (1u << (kTerms - 1)); ++mask) {
    llvm::SmallVector<int, kTerms> idx = {0};
    bool unused = false;
    for (int t = 1; t < kTerms; ++t)
      if (mask & (1u << (t - 1))) {
        idx.push_back(t);
        unused |= llvm::none_of(rows, [&](const Row &r) { return r[t] > 0; });
      }
    if (unused || (idx.size() > 1 && rows.size() <= idx.size()))
      continue;
    std::optional<Row> all = solveTerms(rows, idx);
    if (!all)
      continue;
    double loo = 0;
    if (rows.size() > idx.size()) {
      for (size_t i = 0; i < rows.size(); ++i) {
        std::optional<Row> x = solveTerms(rows, idx, i);
        if (!x) {
          loo = INFINITY;
          break;
        }
        double e = predictRow(rows[i], *x) - 1;
        loo += e * e;
      }
    }
    if (!std::isfinite(loo))
      continue;
    bool better = !best || loo < bestLoo * (1 - 1e-9) ||
                  (loo <= bestLoo * (1 + 1e-9) && idx.size() < bestTerms);
    if (better) {
      bestLoo = loo;
      bestTerms = idx.size();
      best = all;
    }
  }
  if (!best)
    return std::nullopt;
  CpuKernelCalibration c;
  c.cpu = cpu.str();
  c.kernel = kernel.str();
  c.threads = threads;
  // x0 is ms per GFLOP: GFLOP/s = 1e3 / x0; x1 ms per G scores and x2 ms
  // per GB = 1e-3 ns each; x3 ms = 1e3 us.
  c.gflops = 1e3 / (*best)[0];
  c.nsPerScore = (*best)[1] * 1e-3;
  c.nsPerByte = (*best)[2] * 1e-3;
  c.usPerCall = (*best)[3] * 1e3;
  c.cacheBytes = cacheBytes;
  c.samples.assign(samples.begin(), samples.end());
  return c;
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
  if (root->get("calibrations") && !root->getArray("calibrations"))
    return cacheError("\"calibrations\" is not an array");
  if (const llvm::json::Array *cals = root->getArray("calibrations")) {
    for (auto [i, item] : llvm::enumerate(*cals)) {
      auto bad = [&, i = i](const llvm::Twine &why) {
        return cacheError("calibration " + llvm::Twine(i) + ": " + why);
      };
      const llvm::json::Object *o = item.getAsObject();
      if (!o)
        return bad("not an object");
      CpuKernelCalibration c;
      for (auto [field, into] :
           {std::pair<llvm::StringRef, std::string *>{"cpu", &c.cpu},
            {"kernel", &c.kernel}}) {
        std::optional<llvm::StringRef> s = o->getString(field);
        if (!s || s->empty())
          return bad("no \"" + field + "\" string");
        *into = s->str();
      }
      std::optional<int64_t> threads = o->getInteger("threads");
      if (!threads || *threads < 1)
        return bad("no \"threads\" count (1 or more)");
      c.threads = *threads;
      std::optional<double> gflops = o->getNumber("gflops");
      if (!gflops || !(*gflops > 0) || !std::isfinite(*gflops))
        return bad("no \"gflops\" rate (> 0)");
      c.gflops = *gflops;
      for (auto [field, into] :
           {std::pair<llvm::StringRef, double *>{"ns_per_score", &c.nsPerScore},
            {"ns_per_byte", &c.nsPerByte},
            {"cache_bytes", &c.cacheBytes},
            {"us_per_call", &c.usPerCall}}) {
        std::optional<double> v = o->getNumber(field);
        if (o->get(field) && (!v || !(*v >= 0) || !std::isfinite(*v)))
          return bad("\"" + field + "\" is not a time (>= 0)");
        *into = v.value_or(0);
      }
      if (const llvm::json::Array *list = o->getArray("samples"))
        for (const llvm::json::Value &v : *list) {
          const llvm::json::Object *so = v.getAsObject();
          std::optional<llvm::StringRef> label =
              so ? so->getString("case") : std::nullopt;
          std::optional<double> flops =
              so ? so->getNumber("flops") : std::nullopt;
          std::optional<double> ms = so ? so->getNumber("ms") : std::nullopt;
          if (!label || !flops || !ms || *flops < 0 || !(*ms > 0))
            return bad("a sample without \"case\", \"flops\" >= 0 and "
                       "\"ms\" > 0");
          c.samples.push_back({label->str(), *flops,
                               so->getNumber("scores").value_or(0),
                               so->getNumber("bytes").value_or(0), *ms});
        }
      if (cache.findCalibration(c.cpu, c.kernel, c.threads))
        return bad("a second calibration of " + c.kernel + " on " + c.cpu +
                   " with " + llvm::Twine(c.threads) + " thread(s)");
      cache.calibrations.push_back(std::move(c));
    }
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
  if (!cache.calibrations.empty()) {
    llvm::json::Array cals;
    for (const CpuKernelCalibration &c : cache.calibrations) {
      llvm::json::Array samples;
      for (const CpuTimingSample &s : c.samples) {
        llvm::json::Object so{{"case", s.label}, {"flops", s.flops}};
        if (s.scores > 0)
          so["scores"] = s.scores;
        if (s.bytes > 0)
          so["bytes"] = s.bytes;
        so["ms"] = s.ms;
        samples.push_back(std::move(so));
      }
      cals.push_back(llvm::json::Object{{"cpu", c.cpu},
                                        {"kernel", c.kernel},
                                        {"threads", c.threads},
                                        {"gflops", c.gflops},
                                        {"ns_per_score", c.nsPerScore},
                                        {"ns_per_byte", c.nsPerByte},
                                        {"cache_bytes", c.cacheBytes},
                                        {"us_per_call", c.usPerCall},
                                        {"samples", std::move(samples)}});
    }
    root["calibrations"] = std::move(cals);
  }
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
