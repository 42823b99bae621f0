//===- accel-bench.cpp - accel kernels next to oneDNN and OpenBLAS --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Times accel's generated CPU kernels and the reference libraries on the
// same buffers in one process, interleaving their samples, and prints
// GFLOP/s and ratios. Run it through bench/run.sh, which pins the
// environment (shared/reference/anchors-performance.md §3.1).
//
//   gemm:      C = A·B (or A·Bᵀ), f32, accel vs dnnl_sgemm vs cblas_sgemm
//   attention: accel.attention (one kernel) vs the unfused OpenBLAS
//              baseline: S = Q·Kᵀ·scale (sgemm), row softmax, O = P·V
//
//===----------------------------------------------------------------------===//

#include "accel/InitAll.h"
#include "accel/Runtime/JitRunner.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cblas.h>
#include <immintrin.h>
#include <oneapi/dnnl/dnnl.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> mode("mode", cl::desc("gemm, attention or all"),
                                 cl::init("all"));
static cl::opt<int> benchThreads(
    "bench-threads", cl::desc("Threads for every library and for accel"),
    cl::init(1));
static cl::opt<int> samples("samples", cl::desc("Interleaved samples each"),
                            cl::init(7));
static cl::opt<double> minSampleMs(
    "min-sample-ms", cl::desc("Repeat calls until a sample lasts this long"),
    cl::init(50.0));
static cl::opt<bool> quick("quick",
                           cl::desc("Smaller shapes only (a smoke run)"),
                           cl::init(false));

namespace {
struct Timing {
  double best = 0, median = 0; // seconds per call
};

/// Times `fns` interleaved: each sample runs every function in turn for at
/// least --min-sample-ms, so drift (boost clocks, a neighbour) hits all.
std::vector<Timing> timeInterleaved(std::vector<std::function<void()>> fns) {
  std::vector<std::vector<double>> per(fns.size());
  std::vector<int> reps(fns.size(), 1);
  for (size_t f = 0; f < fns.size(); ++f) { // warm up and calibrate
    auto t0 = std::chrono::steady_clock::now();
    fns[f]();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             t0)
                   .count();
    reps[f] = std::max(1, int(minSampleMs / 1e3 / std::max(s, 1e-9)));
  }
  for (int s = 0; s < samples; ++s) {
    for (size_t f = 0; f < fns.size(); ++f) {
      auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps[f]; ++r)
        fns[f]();
      double t = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - t0)
                     .count();
      per[f].push_back(t / reps[f]);
    }
  }
  std::vector<Timing> out;
  for (auto &v : per) {
    std::sort(v.begin(), v.end());
    out.push_back({v.front(), v[v.size() / 2]});
  }
  return out;
}

std::vector<float> randomBuffer(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

/// A JIT-compiled accel function and its argument buffers.
struct AccelKernel {
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  accel::PackedCall call;
  std::string name;
  void operator()() {
    if (llvm::Error e = call.invoke(*engine, name)) {
      llvm::errs() << "accel-bench: " << llvm::toString(std::move(e)) << "\n";
      std::exit(1);
    }
  }
};

std::string shapeStr(std::initializer_list<int64_t> dims) {
  std::string s = "tensor<";
  for (int64_t d : dims)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

bool compile(MLIRContext &ctx, const std::string &text, AccelKernel &k) {
  k.module = parseSourceString<ModuleOp>(text, &ctx);
  if (!k.module)
    return false;
  accel::AccelCpuPipelineOptions options;
  options.threads = benchThreads;
  auto engine = accel::compileForHost(*k.module, options);
  if (!engine) {
    llvm::errs() << "accel-bench: " << llvm::toString(engine.takeError())
                 << "\n";
    return false;
  }
  k.engine = std::move(*engine);
  return true;
}

double gflops(double flop, double seconds) { return flop / seconds / 1e9; }

/// The f32 FMA roof of one core, measured: 16 independent 512-bit FMA
/// chains (more than latency x throughput on Zen 4/5). Zen 5 runs two
/// 512-bit FMAs a cycle (~222 GFLOP/s here); Zen 4 splits each in two
/// (~110): the roof has to be measured, not assumed.
__attribute__((target("avx512f"))) static double measureF32Roof() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(0.f);
  const __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  const long iters = 20000000;
  double best = 0;
  for (int s = 0; s < 3; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i)
      for (int j = 0; j < 16; ++j)
        acc[j] = _mm512_fmadd_ps(acc[j], x, y);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             t0)
                   .count();
    best = std::max(best, 16.0 * 16 * 2 * iters / t / 1e9);
  }
  float sink = 0;
  for (int j = 0; j < 16; ++j)
    sink += _mm512_reduce_add_ps(acc[j]);
  if (sink == 12345.f)
    llvm::outs() << "";
  return best;
}

static double roofF32 = 0;

void benchGemm(MLIRContext &ctx) {
  struct Shape {
    int64_t m, n, k;
    bool transB;
  };
  std::vector<Shape> shapes = {{256, 256, 256, false},
                               {512, 512, 512, false},
                               {1024, 1024, 1024, false},
                               {2048, 2048, 2048, false},
                               {4096, 4096, 64, true},
                               {4096, 4096, 128, true},
                               {4096, 64, 4096, false},
                               {4096, 128, 4096, false}};
  if (quick)
    shapes = {{256, 256, 256, false}, {512, 512, 512, false},
              {1024, 1024, 64, true}};
  llvm::outs() << "\nf32 GEMM, row-major, " << benchThreads
               << " thread(s); GFLOP/s best (median)\n";
  llvm::outs() << llvm::formatv("{0,-22} {1,15} {2,15} {3,15} {4,9} {5,9} "
                                "{6,7}\n",
                                "M x N x K", "accel", "oneDNN", "OpenBLAS",
                                "/oneDNN", "/OpenBLAS", "%roof");
  for (const Shape &s : shapes) {
    auto a = randomBuffer(s.m * s.k, 1), b = randomBuffer(s.k * s.n, 2);
    std::vector<float> c(s.m * s.n), cRef(s.m * s.n);
    std::string tb = s.transB ? "transpose_b " : "";
    std::string ta = shapeStr({s.m, s.k});
    std::string tbt =
        s.transB ? shapeStr({s.n, s.k}) : shapeStr({s.k, s.n});
    std::string tc = shapeStr({s.m, s.n});
    std::string text = "func.func @mm(%a: " + ta + ", %b: " + tbt +
                       ", %c: " + tc + ") -> " + tc +
                       " {\n  %0 = accel.matmul " + tb + "ins(%a, %b : " + ta +
                       ", " + tbt + ") outs(%c : " + tc + ") -> " + tc +
                       "\n  return %0 : " + tc + "\n}\n";
    AccelKernel k;
    k.name = "mm";
    if (!compile(ctx, text, k))
      std::exit(1);
    k.call.addMemref(a.data(), {s.m, s.k});
    k.call.addMemref(b.data(),
                     s.transB ? ArrayRef<int64_t>{s.n, s.k}
                              : ArrayRef<int64_t>{s.k, s.n});
    k.call.addMemref(c.data(), {s.m, s.n});
    k.call.addResults({2});
    char tr = s.transB ? 'T' : 'N';
    int64_t ldb = s.transB ? s.k : s.n;
    auto dnnl = [&] {
      dnnl_sgemm('N', tr, s.m, s.n, s.k, 1.f, a.data(), s.k, b.data(), ldb,
                 0.f, cRef.data(), s.n);
    };
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans,
                  s.transB ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.f,
                  a.data(), s.k, b.data(), ldb, 0.f, cRef.data(), s.n);
    };
    std::vector<Timing> t = timeInterleaved({std::ref(k), dnnl, blas});
    // A sanity check that the kernels computed the same product.
    k();
    dnnl();
    double maxDiff = 0;
    for (size_t i = 0; i < c.size(); ++i)
      maxDiff = std::max(maxDiff, double(std::fabs(c[i] - cRef[i])));
    double flop = 2.0 * s.m * s.n * s.k;
    double g0 = gflops(flop, t[0].best), g1 = gflops(flop, t[1].best),
           g2 = gflops(flop, t[2].best);
    llvm::outs() << llvm::formatv(
        "{0,-22} {1,6:f1} ({2,6:f1}) {3,6:f1} ({4,6:f1}) {5,6:f1} ({6,6:f1}) "
        "{7,9:f2} {8,9:f2} {9,6:f0}%{10}\n",
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
            std::to_string(s.k) + (s.transB ? " Bt" : ""),
        g0, gflops(flop, t[0].median), g1, gflops(flop, t[1].median), g2,
        gflops(flop, t[2].median), g0 / g1, g0 / g2,
        100.0 * g0 / (roofF32 * benchThreads),
        maxDiff > 1e-3 * s.k ? "  MISMATCH" : "");
  }
}

/// The unfused baseline: per head S = scale·Q·Kᵀ, row softmax, O = P·V.
void unfusedAttention(const float *q, const float *k, const float *v, float *s,
                      float *o, int64_t L, int64_t d) {
  float scale = 1.f / std::sqrt(float(d));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, L, d, scale, q, d,
              k, d, 0.f, s, L);
  for (int64_t i = 0; i < L; ++i) {
    float *row = s + i * L;
    float mx = *std::max_element(row, row + L), sum = 0;
    for (int64_t j = 0; j < L; ++j)
      sum += (row[j] = std::exp(row[j] - mx));
    float inv = 1.f / sum;
    for (int64_t j = 0; j < L; ++j)
      row[j] *= inv;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, d, L, 1.f, s, L,
              v, d, 0.f, o, d);
}

void benchAttention(MLIRContext &ctx) {
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1024, 64}, {1024, 128}, {2048, 64}, {2048, 128},
      {4096, 64}, {4096, 128}, {8192, 64}, {8192, 128}};
  if (quick)
    shapes = {{256, 64}};
  llvm::outs() << "\nf32 attention, one head, L x L, " << benchThreads
               << " thread(s); GFLOP/s (4·L²·d) best (median)\n";
  llvm::outs() << llvm::formatv("{0,-14} {1,15} {2,15} {3,9} {4,11}\n",
                                "L, d", "accel", "unfused BLAS", "ratio",
                                "max |diff|");
  for (auto [L, d] : shapes) {
    auto q = randomBuffer(L * d, 3), k = randomBuffer(L * d, 4),
         v = randomBuffer(L * d, 5);
    std::vector<float> o(L * d), oRef(L * d), s(L * L);
    std::string t4 = shapeStr({1, 1, L, d});
    std::string text = "func.func @attn(%q: " + t4 + ", %k: " + t4 +
                       ", %v: " + t4 + ", %o: " + t4 + ") -> " + t4 +
                       " {\n  %0 = accel.attention ins(%q, %k, %v : " + t4 +
                       ", " + t4 + ", " + t4 + ") outs(%o : " + t4 + ") -> " +
                       t4 + "\n  return %0 : " + t4 + "\n}\n";
    AccelKernel kern;
    kern.name = "attn";
    if (!compile(ctx, text, kern))
      std::exit(1);
    for (float *p : {q.data(), k.data(), v.data(), o.data()})
      kern.call.addMemref(p, {1, 1, L, d});
    kern.call.addResults({4});
    auto base = [&] {
      unfusedAttention(q.data(), k.data(), v.data(), s.data(), oRef.data(), L,
                       d);
    };
    std::vector<Timing> t = timeInterleaved({std::ref(kern), base});
    kern();
    base();
    double maxDiff = 0;
    for (size_t i = 0; i < o.size(); ++i)
      maxDiff = std::max(maxDiff, double(std::fabs(o[i] - oRef[i])));
    double flop = 4.0 * L * L * d;
    llvm::outs() << llvm::formatv(
        "{0,-14} {1,6:f1} ({2,6:f1}) {3,6:f1} ({4,6:f1}) {5,9:f3} {6,11:e1}\n",
        std::to_string(L) + ", " + std::to_string(d), gflops(flop, t[0].best),
        gflops(flop, t[0].median), gflops(flop, t[1].best),
        gflops(flop, t[1].median), t[1].best / t[0].best, maxDiff);
  }
}
} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "accel-bench: accel kernels next to oneDNN and "
                              "OpenBLAS in one run\n");
  openblas_set_num_threads(benchThreads);
  DialectRegistry registry;
  accel::registerAllAccelDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  roofF32 = measureF32Roof();
  llvm::outs() << "accel-bench: OpenBLAS core " << openblas_get_corename()
               << ", oneDNN " << dnnl_version()->major << "."
               << dnnl_version()->minor << "." << dnnl_version()->patch
               << llvm::formatv(", measured f32 FMA roof {0:f1} GFLOP/s per "
                                "core\n",
                                roofF32);
  if (mode == "gemm" || mode == "all")
    benchGemm(ctx);
  if (mode == "attention" || mode == "all")
    benchAttention(ctx);
  return 0;
}
