//===- accel-run.cpp - run accel functions against the fp64 oracle --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-run loads a .mlir file, picks a function, makes its inputs (seeded
// random, the exact integer tier, or .npy files), computes the fp64
// reference of every result with the shared oracle (accel/Reference), lowers
// the function with the CPU pipeline, JIT-runs it on NaN-prefilled outputs,
// and checks each result against the numerics contract. Exit code 0 when
// every result passes, 1 on a failed check or bad input.
//
//===----------------------------------------------------------------------===//

#include "Mpi.h"
#include "Npy.h"
#include "RoundingOracle.h"
#include "StructuredOracle.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Dialect/Systolic/Translate.h"
#include "accel/InitAll.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Reference/AccelOps.h"
#include "accel/Reference/Reference.h"
#include "accel/Runtime/CudaLauncher.h"
#include "accel/Runtime/HipLauncher.h"
#include "accel/Runtime/JitRunner.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "accel/Systolic/Simulator.h"
#include "accel/Target/Backend.h"
#include "accel/Target/Catalogue.h"
#include "accel/Transforms/CpuTuning.h"
#include "accel/Transforms/LowerPrecision.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Roofline.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <unistd.h>

using namespace mlir;
using namespace mlir::accel;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory runCat("accel-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required, cl::cat(runCat));
static cl::opt<std::string>
    entry("entry", cl::desc("Function to run (default: the only public one)"),
          cl::cat(runCat));
static cl::opt<std::string>
    target("target",
           cl::desc("Where to run: cpu (JIT), systolic (compiled with "
                    "accel-systolic-pipeline and run on the cycle-level "
                    "simulator), nvptx (accel-nvptx-pipeline, run through "
                    "the CUDA driver when a GPU is present) or amdgpu "
                    "(accel-amdgpu-pipeline, run through HIP when an AMD "
                    "GPU is present)"),
           cl::init("cpu"), cl::cat(runCat));
static cl::opt<std::string> systolicOptions(
    "systolic-pipeline-options",
    cl::desc("Options of accel-systolic-pipeline, e.g. \"rows=32 cols=32 "
             "dataflow=os\""),
    cl::cat(runCat));
static cl::opt<std::string> nvptxOptions(
    "nvptx-pipeline-options",
    cl::desc("Options of accel-nvptx-pipeline for --target=nvptx, e.g. "
             "\"chip=sm_90a tile-m=128\""),
    cl::cat(runCat));
static cl::opt<std::string> amdgpuOptions(
    "amdgpu-pipeline-options",
    cl::desc("Options of accel-amdgpu-pipeline for --target=amdgpu, e.g. "
             "\"chip=gfx90a tile-m=64\""),
    cl::cat(runCat));
static cl::opt<std::string> rocmToolkit(
    "rocm-toolkit",
    cl::desc("--target=amdgpu: the folder with llvm/bin/ld.lld that links "
             "code objects (default: the build's, " ACCEL_ROCM_TOOLKIT_DIR ")"),
    cl::init(ACCEL_ROCM_TOOLKIT_DIR), cl::cat(runCat));
static cl::opt<std::string> recordDir(
    "record",
    cl::desc("--target=nvptx without a GPU: write each function's kernel "
             "(PTX and launch metadata), its argument buffers (outputs "
             "prefilled with NaN bytes) and a manifest.json to this folder, "
             "for a GPU machine to launch (bench/gpu/check.py); --replay "
             "then checks what the launches wrote against the fp64 "
             "reference (not computed when recording)"),
    cl::cat(runCat));
static cl::opt<std::string> replayDir(
    "replay",
    cl::desc("--target=nvptx: check the results that launches of a --record "
             "folder wrote there (<function>.b<N>.result.bin) instead of "
             "launching; same file, options, seed and inputs as the record"),
    cl::cat(runCat));
static cl::opt<std::string>
    simMode("sim-mode",
            cl::desc("Simulator timing model for --target=systolic: default "
                     "or scalesim"),
            cl::init("default"), cl::cat(runCat));
static cl::opt<unsigned> ranks(
    "ranks",
    cl::desc("Run a sharded module (one with a shard.grid) as N MPI "
             "processes on this machine (through --mpiexec): each checks its "
             "part of every result, rank 0 the gathered results, against the "
             "fp64 oracle of the unsharded function (docs/distributed.md). "
             "Under an MPI launcher (mpiexec -n N accel-run ...) the option "
             "is not needed"),
    cl::init(0), cl::cat(runCat));
static cl::opt<int> testAbortRank(
    "test-abort-rank",
    cl::desc("Testing only: this rank aborts before its first kernel call "
             "(a rank that dies)"),
    cl::init(-1), cl::Hidden, cl::cat(runCat));
static cl::opt<std::string>
    mpiexec("mpiexec", cl::desc("The MPI launcher --ranks uses"),
            cl::init("mpiexec.mpich"), cl::cat(runCat));
static cl::opt<unsigned> rankTimeout(
    "rank-timeout",
    cl::desc("Seconds a --ranks run may take before the launcher stops "
             "every rank (MPIEXEC_TIMEOUT)"),
    cl::init(300), cl::cat(runCat));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of the input generator"),
                              cl::init(1), cl::cat(runCat));
static cl::opt<std::string>
    dist("dist",
         cl::desc("Inputs: uniform (in [-1, 1]), normal (N(0, 1)), or exact "
                  "(integers in [-2, 2]; matmul results must be bit-exact)"),
         cl::init("uniform"), cl::cat(runCat));
static cl::list<std::string>
    npyInputs("input",
              cl::desc("A .npy file for the next tensor argument the "
                       "function reads, in order ('-' generates that one)"),
              cl::cat(runCat));
static cl::opt<double>
    maskDensity("i1-density",
                cl::desc("Fraction of true values in generated i1 tensors"),
                cl::init(0.8), cl::cat(runCat));
static cl::opt<int64_t> maskZeroRows(
    "i1-zero-rows",
    cl::desc("Make the first N rows (second-to-last dimension) of generated "
             "i1 tensors all false: fully masked attention rows"),
    cl::init(0), cl::cat(runCat));
static cl::list<std::string>
    poison("poison",
           cl::desc("ARG:INDEX:VALUE sets element INDEX (flat) of argument "
                    "ARG to VALUE (nan, inf, -inf or a number)"),
           cl::cat(runCat));
static cl::opt<int64_t> indexArg("index-value",
                                 cl::desc("Value given to index arguments"),
                                 cl::init(0), cl::cat(runCat));
static cl::opt<int64_t> threads("num-threads",
                                cl::desc("OpenMP threads (1: sequential)"),
                                cl::init(1), cl::cat(runCat));
static cl::opt<std::string>
    cpuOptions("cpu-pipeline-options",
               cl::desc("Options of accel-cpu-pipeline, e.g. "
                        "\"register-tile=8,32,1 cache-tile=256,1024,256\""),
               cl::cat(runCat));
static cl::opt<std::string> prePasses(
    "pre-passes",
    cl::desc("A pass pipeline run before accel-cpu-pipeline on what is "
             "compiled (not on what the oracle reads), e.g. "
             "\"transform-interpreter,canonicalize\" or \"accel-tile\""),
    cl::cat(runCat));
static cl::list<std::string> precisionReport(
    "precision-report",
    cl::desc("Also lower the functions with accel-lower-precision and these "
             "options (repeatable, one precision each, e.g. compute=bf16), "
             "run them on the same inputs and report each result's error "
             "against the f32 function's fp64 reference, with a normwise "
             "gate from a model of the lowering's roundings "
             "(docs/numerics.md)"),
    cl::cat(runCat));
static cl::opt<bool> gateDetails(
    "gate-details",
    cl::desc("Also print, for each result, the element whose error / gate "
             "is largest, with its error and its gate (read by "
             "scripts/gate-report.py)"),
    cl::init(false), cl::cat(runCat));
namespace {
enum class ProgramGateMode { Auto, On, Off };
} // namespace
static cl::opt<ProgramGateMode> programGate(
    "program-gate",
    cl::desc("The program gate (docs/numerics.md): each result of a function "
             "of several ops is also held, normwise and in its largest "
             "element, to what the ops' own errors, drawn at random within "
             "their bounds and carried through the fp64 program, make of "
             "it. auto: for functions of several ops and for results whose "
             "compounded per-element gate is unbounded (where that gate is "
             "then not applied); on: for every function; off"),
    cl::values(clEnumValN(ProgramGateMode::Auto, "auto", ""),
               clEnumValN(ProgramGateMode::On, "on", ""),
               clEnumValN(ProgramGateMode::Off, "off", "")),
    cl::init(ProgramGateMode::Auto), cl::cat(runCat));
static cl::opt<unsigned> repeat("repeat",
                                cl::desc("Timed runs after the checked one"),
                                cl::init(3), cl::cat(runCat));
static cl::opt<std::string> rooflineFile(
    "roofline",
    cl::desc("cpu: write an SVG roofline (FILE.svg) of the functions run: "
             "each one's measured FLOP/s (median of --repeat runs) beside the "
             "cost model's prediction, under the roof of the CPU's catalogue "
             "entry (the host's, or the module's accel.target) times "
             "--num-threads"),
    cl::value_desc("FILE.svg"), cl::cat(runCat));
static cl::opt<std::string>
    saveOutputs("save-outputs",
                cl::desc("Folder to write each result and its reference to "
                         "as float64 .npy files"),
                cl::cat(runCat));

static cl::opt<uint64_t> maxConstantBytes(
    "max-constant-bytes",
    cl::desc("Refuse a module whose constants hold more bytes than this in "
             "all (default: 1 GiB)"),
    cl::init(kDefaultMaxConstantBytes), cl::cat(runCat));
static cl::opt<uint64_t> maxTensorBytes(
    "max-tensor-bytes",
    cl::desc("Refuse a module with a statically shaped tensor, memref or "
             "vector of more bytes than this (default: 16 GiB)"),
    cl::init(kDefaultMaxTensorBytes), cl::cat(runCat));
static cl::opt<bool>
    allowBytecode("allow-bytecode",
                  cl::desc(mlir::accel::kAllowBytecodeDescription),
                  cl::init(false), cl::cat(runCat));

/// Whether the compiled bf16 matmuls may treat subnormals as zero (the
/// CPU's vdpbf16ps kernels, `bf16-subnormals=flush`): the oracle's matmul
/// gate then allows it. Set from the pipeline options before the oracle
/// runs.
static bool kernelsFlushBf16Subnormals = false;
/// The CPU pipeline's options (target cpu): which attention kernels round P
/// (hostKernelsRoundAttentionProbabilities).
static const AccelCpuPipelineOptions *cpuPipelineOptions = nullptr;

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "accel-run") << message << "\n";
  return 1;
}

//===----------------------------------------------------------------------===//
// The function's arguments
//===----------------------------------------------------------------------===//

namespace {
/// One argument of the entry function, with its data as doubles (rounded to
/// the element type) and its native bytes for the JIT.
struct Arg {
  Type type;
  Type elementType;
  SmallVector<int64_t> shape;
  ref::Tensor value;
  /// An `outs` that no op reads: NaN-prefilled so unwritten elements show.
  bool writeOnly = false;
  /// Sequence lengths of an attention, or the pages of a paged attention's
  /// block table: integers drawn from [0, lengthBound] (-1: neither).
  int64_t lengthBound = -1;
  /// The zero points of a dequant_matmul: integers drawn from the stored
  /// weights' range [zeroPointLo, zeroPointHi], as GPTQ/AWQ quantisers make
  /// them (hi < lo: not zero points).
  int64_t zeroPointLo = 0, zeroPointHi = -1;
  std::vector<uint8_t> bytes;
};
} // namespace

/// A row-major tensor of `type` read from native bytes (a device's or the
/// simulator's result buffer).
static ref::Tensor readBytes(const uint8_t *bytes, RankedTensorType type) {
  ref::Tensor t(SmallVector<int64_t>(type.getShape()));
  size_t width = ref::storageBytes(type.getElementType());
  for (size_t n = 0; n < t.data.size(); ++n)
    t.data[n] = ref::decodeElement(bytes + n * width, type.getElementType());
  return t;
}

/// Whether `value` is only ever used as the init of accel ops that do not
/// read their init, or of fills.
static bool onlyOverwritten(Value value) {
  if (value.use_empty())
    return false;
  for (OpOperand &use : value.getUses()) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    if (!dps || !dps.isDpsInit(&use) ||
        !(isa<AccelDialect>(dps->getDialect()) || isa<linalg::FillOp>(dps)))
      return false;
    if (auto mm = dyn_cast<MatmulOp>(use.getOwner()); mm && mm.getAccumulate())
      return false;
  }
  return true;
}

/// Makes every returned value's `outs` a function argument: a tensor.empty
/// init becomes a new trailing argument, so the kernel writes into a buffer
/// accel-run prefilled with NaN.
static void promoteEmptyInits(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value v : ret.getOperands()) {
    auto dps = v.getDefiningOp<DestinationStyleOpInterface>();
    if (!dps)
      continue;
    OpOperand *init = dps.getTiedOpOperand(cast<OpResult>(v));
    // Look through a fill of the init (linalg's C = 0; C += A·B).
    if (auto fill = init->get().getDefiningOp<linalg::FillOp>())
      init = fill.getDpsInitOperand(0);
    auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || !empty.getType().hasStaticShape())
      continue;
    unsigned idx = func.getNumArguments();
    if (failed(func.insertArgument(idx, empty.getType(), {}, empty.getLoc())))
      continue;
    init->set(func.getArgument(idx));
  }
}

//===----------------------------------------------------------------------===//
// The oracle: the function evaluated in fp64
//===----------------------------------------------------------------------===//

/// The values of a dense constant (i1 as 0/1, other integers signed).
static ref::Tensor denseValues(DenseElementsAttr d) {
  auto type = cast<RankedTensorType>(d.getType());
  ref::Tensor t(type.getShape());
  int64_t n = 0;
  if (isa<FloatType>(type.getElementType()))
    for (APFloat x : d.getValues<APFloat>())
      t.data[n++] = x.convertToDouble();
  else
    for (APInt x : d.getValues<APInt>())
      t.data[n++] = type.getElementType().isInteger(1)
                        ? double(x.getZExtValue())
                        : double(x.getSExtValue());
  return t;
}

/// How the kernel of a function sums its matmul's products when that is
/// not f32 accumulation: ref::MatmulSpec::tensorCoreChunk and
/// tensorCoreUnit (0: f32).
struct TensorCoreSums {
  int64_t chunk = 0;
  double unit = 0;
};

/// Adds to a matmul's bound `r` what its operands' bounds carry: the kernel
/// multiplies A and B as it holds them, each element within its bound of
/// the oracle's value (an RMSNorm's output rounded to bf16 before a
/// projection), so each element of the product moves by at most
/// sum_k |dA||B| + |A||dB| + |dA||dB|, plus C's bound when it accumulates.
/// Nothing to add for exact operands (function arguments).
static void carryMatmulInputBounds(ref::Result &r, const ref::Result &a,
                                   const ref::Result &b, const ref::Result *c,
                                   bool transposeB) {
  auto inexact = [](const ref::Result &x) {
    return x.bound.data.size() == x.value.data.size() &&
           llvm::any_of(x.bound.data, [](double e) { return e != 0.0; });
  };
  bool inA = inexact(a), inB = inexact(b), inC = c && inexact(*c);
  if (!inA && !inB && !inC)
    return;
  int64_t rank = a.value.rank();
  int64_t m = a.value.shape[rank - 2], k = a.value.shape[rank - 1];
  int64_t n = r.value.shape[rank - 1];
  int64_t batches = m * n == 0 ? 0 : r.value.numElements() / (m * n);
  if (r.bound.data.size() != r.value.data.size())
    r.bound.data.assign(r.value.data.size(), 0.0);
  auto boundOf = [](const ref::Result &x, bool has, int64_t i) {
    return has ? x.bound.data[i] : 0.0;
  };
  for (int64_t bt = 0; bt < batches; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double carried = 0;
        for (int64_t p = 0; p < k; ++p) {
          int64_t ai = bt * m * k + i * k + p;
          int64_t bi = bt * k * n + (transposeB ? j * k + p : p * n + j);
          double da = boundOf(a, inA, ai), db = boundOf(b, inB, bi);
          carried += da * std::fabs(b.value.data[bi]) +
                     std::fabs(a.value.data[ai]) * db + da * db;
        }
        int64_t o = bt * m * n + i * n + j;
        r.bound.data[o] += carried + (inC ? c->bound.data[o] : 0.0);
      }
}

/// The same for a weight-only quantised matmul: A's bound carried through
/// the dequantised weights (exact: integers and scales are inputs, the
/// dequantisation the op's own rule), every batch row against the same W.
static void carryDequantInputBounds(ref::Result &r, const ref::Result &a,
                                    DequantMatmulOp dq,
                                    function_ref<const ref::Tensor &(Value)> get) {
  if (a.bound.data.size() != a.value.data.size() ||
      llvm::none_of(a.bound.data, [](double e) { return e != 0.0; }))
    return;
  const int64_t k = dq.getK(), n = dq.getN();
  const int64_t rows = k ? a.value.numElements() / k : 0;
  const ref::Tensor *z =
      dq.getZeroPoints() ? &get(dq.getZeroPoints()) : nullptr;
  ref::Result w{ref::dequantizeWeights(get(dq.getWeights()),
                                       get(dq.getScales()), z, k, dq.getBits(),
                                       dq.getGroup(), dq.getIsUnsigned()),
                ref::Tensor()};
  // As one [rows, K] x [N, K]ᵀ matmul (the batch dimensions flattened).
  ref::Result flatA = a;
  flatA.value.shape = flatA.bound.shape = {rows, k};
  SmallVector<int64_t> shape = r.value.shape;
  r.value.shape = r.bound.shape = {rows, n};
  carryMatmulInputBounds(r, flatA, w, nullptr, /*transposeB=*/true);
  r.value.shape = r.bound.shape = shape;
}

/// The same for a softmax along `dim`: inputs off by at most δ_k move
/// p_j = e^{x_j} / Σ_k e^{x_k} by a factor within e^{±(δ_j + max_k δ_k)},
/// so p_j's bound grows by (p_j + its own bound) · (e^{δ_j + max δ} - 1).
/// A non-finite δ of a finite input leaves the row unbounded (NaN).
static void carrySoftmaxInputBounds(ref::Result &r, const ref::Result &x,
                                    int64_t dim) {
  if (x.bound.data.size() != x.value.data.size() ||
      llvm::none_of(x.bound.data, [](double e) { return e != 0.0; }))
    return;
  const ref::Tensor &v = x.value;
  int64_t len = v.shape[dim], inner = 1;
  for (int64_t d = dim + 1; d < v.rank(); ++d)
    inner *= v.shape[d];
  const int64_t outer = len * inner == 0 ? 0 : v.numElements() / (len * inner);
  if (r.bound.data.size() != r.value.data.size())
    r.bound.data.assign(r.value.data.size(), 0.0);
  auto delta = [&](int64_t i) {
    // A masked (-inf) or otherwise non-finite input moves nothing that a
    // bound describes: its probability is what it is.
    return std::isfinite(v.data[i]) ? x.bound.data[i] : 0.0;
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) { return (o * len + j) * inner + in; };
      double most = 0;
      bool unbounded = false;
      for (int64_t j = 0; j < len; ++j) {
        double d = delta(at(j));
        unbounded |= !std::isfinite(d);
        most = std::max(most, d);
      }
      for (int64_t j = 0; j < len; ++j) {
        int64_t i = at(j);
        double grow = unbounded ? std::nan("") : std::expm1(delta(i) + most);
        r.bound.data[i] +=
            (std::fabs(r.value.data[i]) + r.bound.data[i]) * grow;
      }
    }
}

/// The maxima over the keys a head group reads that the attention carry
/// needs (carryAttentionRows): per feature the largest |K|, δK, |V| and
/// δV over the keys whose K and V are finite, and whether an operand bound
/// is not finite.
struct KeyMaxima {
  std::vector<double> kMax, kErr, vMax, vErr;
  bool unbounded = false;

  KeyMaxima(int64_t d, int64_t dv)
      : kMax(d), kErr(d), vMax(dv), vErr(dv) {}
  /// Adds one key: K's d elements from `kAt`, V's dv from `vAt`.
  void add(const ref::Result &k, bool inK, int64_t kAt, const ref::Result &v,
           bool inV, int64_t vAt) {
    const int64_t d = kMax.size(), dv = vMax.size();
    for (int64_t c = 0; c < d; ++c)
      if (!std::isfinite(k.value.data[kAt + c]))
        return;
    for (int64_t c = 0; c < dv; ++c)
      if (!std::isfinite(v.value.data[vAt + c]))
        return;
    for (int64_t c = 0; c < d; ++c) {
      double e = inK ? k.bound.data[kAt + c] : 0.0;
      unbounded |= !std::isfinite(e);
      kMax[c] = std::max(kMax[c], std::fabs(k.value.data[kAt + c]));
      kErr[c] = std::max(kErr[c], e);
    }
    for (int64_t c = 0; c < dv; ++c) {
      double e = inV ? v.bound.data[vAt + c] : 0.0;
      unbounded |= !std::isfinite(e);
      vMax[c] = std::max(vMax[c], std::fabs(v.value.data[vAt + c]));
      vErr[c] = std::max(vErr[c], e);
    }
  }
};

/// Adds to attention's bound `r` (O [B, Hq, Sq, Dv]) what its operands'
/// bounds carry into query row (b, h, row) whose keys `m` describes
/// (masked keys too: an upper bound; a non-finite key or value that a row
/// keeps makes its output non-finite, beyond any bound): a score moves by
/// at most e = |scale| Σ_d (δQ_d max|K_d| + |Q_d| max δK_d + δQ_d max δK_d)
/// + maskErr, so each probability by a factor within e^{±2e} (the
/// softmax's rule), and O_d, a convex combination of V's rows, by at most
/// (e^{2e} - 1) max|V_d| + max δV_d (times 1 + 2^-7 for P's and O's own
/// roundings at the moved values). A NaN or infinite operand bound leaves
/// the row unbounded (NaN); a row that keeps no key (exactly 0, bound 0)
/// stays exact.
static void carryAttentionRow(ref::Result &r, const ref::Result &q, bool inQ,
                              const KeyMaxima &m, int64_t b, int64_t h,
                              int64_t row, double scale, double maskErr,
                              bool unboundedMask) {
  const int64_t hq = q.value.shape[1], sq = q.value.shape[2],
                d = q.value.shape[3], dv = m.vMax.size();
  const int64_t oAt = ((b * hq + h) * sq + row) * dv;
  bool keepsNothing = true;
  for (int64_t c = 0; c < dv; ++c)
    keepsNothing &= r.value.data[oAt + c] == 0.0 && r.bound.data[oAt + c] == 0.0;
  if (keepsNothing)
    return;
  double e = 0;
  for (int64_t c = 0; c < d; ++c) {
    int64_t i = ((b * hq + h) * sq + row) * d + c;
    double dq = inQ ? q.bound.data[i] : 0.0;
    if (!std::isfinite(dq))
      e = std::nan("");
    e += dq * m.kMax[c] + std::fabs(q.value.data[i]) * m.kErr[c] +
         dq * m.kErr[c];
  }
  e = e * std::fabs(scale) + maskErr;
  const bool unbounded = m.unbounded || unboundedMask || std::isnan(e);
  const double grow = std::expm1(2 * e);
  for (int64_t c = 0; c < dv; ++c)
    r.bound.data[oAt + c] +=
        unbounded ? std::nan("")
                  : (grow * m.vMax[c] + m.vErr[c]) * (1 + 0x1p-7);
}

static bool hasBound(const ref::Result &x) {
  return x.bound.data.size() == x.value.data.size() &&
         llvm::any_of(x.bound.data, [](double e) { return e != 0.0; });
}

/// The same for attention (Q [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B,
/// Hkv, Skv, Dv], an additive mask's largest bound over its finite
/// entries): carryAttentionRow over each head group's keys.
static void carryAttentionInputBounds(ref::Result &r, const ref::Result &q,
                                      const ref::Result &k,
                                      const ref::Result &v,
                                      const ref::Result *mask, double scale) {
  bool inQ = hasBound(q), inK = hasBound(k), inV = hasBound(v),
       inM = mask && hasBound(*mask);
  if (!inQ && !inK && !inV && !inM)
    return;
  const int64_t nB = q.value.shape[0], hq = q.value.shape[1],
                sq = q.value.shape[2], d = q.value.shape[3];
  const int64_t hkv = k.value.shape[1], skv = k.value.shape[2],
                dv = v.value.shape[3];
  if (hkv == 0 || r.value.numElements() == 0)
    return;
  if (r.bound.data.size() != r.value.data.size())
    r.bound.data.assign(r.value.data.size(), 0.0);
  double maskErr = 0;
  bool unboundedMask = false;
  if (inM)
    for (auto [x, e] : llvm::zip(mask->value.data, mask->bound.data))
      if (std::isfinite(x)) {
        unboundedMask |= !std::isfinite(e);
        maskErr = std::max(maskErr, e);
      }
  for (int64_t b = 0; b < nB; ++b)
    for (int64_t g = 0; g < hkv; ++g) {
      KeyMaxima m(d, dv);
      for (int64_t j = 0; j < skv; ++j)
        m.add(k, inK, ((b * hkv + g) * skv + j) * d, v, inV,
              ((b * hkv + g) * skv + j) * dv);
      for (int64_t h = g * (hq / hkv); h < (g + 1) * (hq / hkv); ++h)
        for (int64_t row = 0; row < sq; ++row)
          carryAttentionRow(r, q, inQ, m, b, h, row, scale, maskErr,
                            unboundedMask);
    }
}

/// The same for paged attention (pools [P, T, Hkv, D] and [P, T, Hkv,
/// Dv]), over every token of the pool (the pages a sequence reads are some
/// of them: an upper bound).
static void carryPagedAttentionInputBounds(ref::Result &r, const ref::Result &q,
                                           const ref::Result &k,
                                           const ref::Result &v,
                                           double scale) {
  bool inQ = hasBound(q), inK = hasBound(k), inV = hasBound(v);
  if (!inQ && !inK && !inV)
    return;
  const int64_t nB = q.value.shape[0], hq = q.value.shape[1],
                sq = q.value.shape[2], d = q.value.shape[3];
  const int64_t tokens = k.value.shape[0] * k.value.shape[1],
                hkv = k.value.shape[2], dv = v.value.shape[3];
  if (hkv == 0 || r.value.numElements() == 0)
    return;
  if (r.bound.data.size() != r.value.data.size())
    r.bound.data.assign(r.value.data.size(), 0.0);
  for (int64_t g = 0; g < hkv; ++g) {
    KeyMaxima m(d, dv);
    for (int64_t t = 0; t < tokens; ++t)
      m.add(k, inK, (t * hkv + g) * d, v, inV, (t * hkv + g) * dv);
    for (int64_t b = 0; b < nB; ++b)
      for (int64_t h = g * (hq / hkv); h < (g + 1) * (hq / hkv); ++h)
        for (int64_t row = 0; row < sq; ++row)
          carryAttentionRow(r, q, inQ, m, b, h, row, scale, 0.0, false);
  }
}

/// One draw of the program gate's model (programGates): every op's own
/// error, its bound on exact operands, made real with a random size and sign.
struct Perturbation {
  std::mt19937_64 &rng;
  /// Set when an op's own bound is not finite: no draw models it.
  bool unbounded = false;
  /// A uniform draw in [-1, 1): the engine's top 54 bits on a grid of
  /// 2^-53. What std::uniform_real_distribution<double>(-1, 1) gives up to
  /// the last bit, without libstdc++'s generate_canonical, which evaluates
  /// a long-double logarithm on every call: that was 50 % of accel-run's
  /// time on an attention program (hundreds of millions of draws).
  double draw() {
    return double(int64_t(rng() >> 10) - (int64_t(1) << 53)) * 0x1p-53;
  }
};

/// Turns the bounds of `op`'s results into errors of the values: each
/// element moves by a uniform draw within its bound, and is then exact for
/// the ops after it (which see it as the kernel would hold it).
static void perturbResults(Operation &op, DenseMap<Value, ref::Result> &env,
                           Perturbation &perturb) {
  for (Value v : op.getResults()) {
    auto it = env.find(v);
    if (it == env.end())
      continue;
    ref::Result &r = it->second;
    if (r.bound.data.size() != r.value.data.size())
      continue;
    for (auto [x, e] : llvm::zip(r.value.data, r.bound.data)) {
      if (e == 0.0 || !std::isfinite(x))
        continue;
      if (!std::isfinite(e)) {
        perturb.unbounded = true;
        continue;
      }
      x += perturb.draw() * e;
    }
    std::fill(r.bound.data.begin(), r.bound.data.end(), 0.0);
  }
}

/// error naming the op. With `perturb`, each op's result is drawn within
/// its own bound (perturbResults) and its operands taken as exact, so the
/// results carry one draw of the program's errors instead of bounds.
static FailureOr<SmallVector<ref::Result>>
evaluate(func::FuncOp func, ArrayRef<ref::Tensor> args,
         TensorCoreSums tensorCore = {}, Perturbation *perturb = nullptr) {
  DenseMap<Value, ref::Result> env;
  auto exact = [](ref::Tensor t) {
    ref::Tensor zero(t.shape, 0.0);
    return ref::Result{std::move(t), std::move(zero)};
  };
  for (auto [arg, value] : llvm::zip(func.getArguments(), args))
    env[arg] = exact(value);
  auto get = [&](Value v) -> const ref::Tensor & { return env[v].value; };

  // With `perturb`, sums draw their roundings (MatmulSpec::drawRounding).
  std::function<double()> drawRounding;
  if (perturb)
    drawRounding = [perturb] { return perturb->draw(); };
  Operation *previous = nullptr;
  for (Operation &op : func.getBody().front()) {
    // The previous op's results, drawn before anything reads them.
    if (perturb && previous)
      perturbResults(*previous, env, *perturb);
    previous = &op;
    // Sharding annotations say where values live, not what they are.
    if (isa<shard::ShardingOp>(op))
      continue;
    if (auto annotation = dyn_cast<shard::ShardOp>(op)) {
      env[annotation.getResult()] = env[annotation.getSrc()];
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<ref::Result> results;
      for (Value v : ret.getOperands())
        results.push_back(env[v]);
      return results;
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      if (!empty.getType().hasStaticShape())
        return op.emitOpError("the fp64 oracle needs static shapes");
      env[empty] = exact(ref::Tensor(empty.getType().getShape(),
                                     std::numeric_limits<double>::quiet_NaN()));
      continue;
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      Attribute attr = cst.getValue();
      if (auto f = dyn_cast<FloatAttr>(attr)) {
        env[cst] = exact(ref::Tensor({}, f.getValueAsDouble()));
      } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
        env[cst] = exact(ref::Tensor({}, double(i.getValue().getSExtValue())));
      } else if (auto d = dyn_cast<DenseElementsAttr>(attr)) {
        env[cst] = exact(denseValues(d));
      } else {
        return op.emitOpError("the fp64 oracle does not model this constant");
      }
      continue;
    }
    // Elementwise arithmetic on tensors (the scale and mask steps of an
    // unfused attention chain, an epilogue after a matmul): the operands'
    // bounds carried through, one rounding of the result.
    if (isa<arith::MulFOp, arith::DivFOp, arith::AddFOp, arith::SubFOp,
            arith::SelectOp>(op) &&
        isa<RankedTensorType>(op.getResult(0).getType())) {
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      ref::Tensor out(type.getShape()), bound(type.getShape());
      // The same scalar rules as in a generic's body.
      auto at = [&](Value v, int64_t n) {
        const ref::Result &r = env[v];
        return accel_run::ScalarBound{
            r.value.data[n],
            r.bound.data.size() == r.value.data.size() ? r.bound.data[n] : 0.0};
      };
      SmallVector<accel_run::ScalarBound> in(op.getNumOperands());
      for (int64_t n = 0; n < out.numElements(); ++n) {
        for (auto [i, v] : llvm::enumerate(op.getOperands()))
          in[i] = at(v, n);
        FailureOr<accel_run::ScalarBound> r = accel_run::evaluateScalar(op, in);
        if (failed(r)) // evaluateScalar models the five ops above
          llvm_unreachable("an elementwise tensor op the scalar rules lack");
        out.data[n] = r->value;
        bound.data[n] = r->err;
      }
      env[op.getResult(0)] = ref::Result{std::move(out), std::move(bound)};
      continue;
    }
    if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
      env[castOp.getResult()] = env[castOp.getSource()];
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (!fill.hasPureTensorSemantics())
        return op.emitOpError("the fp64 oracle models fills on tensors only");
      auto fillType = cast<RankedTensorType>(fill.getResultTypes()[0]);
      ref::Tensor t(fillType.getShape(),
                    ref::roundTo(get(fill.getInputs()[0]).data[0],
                                 fillType.getElementType()));
      env[fill.getResult(0)] = exact(std::move(t));
      continue;
    }
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
        accel_run::isMulAddGeneric(op)) {
      // linalg's semantics: C += A·B, with B possibly transposed.
      auto lop = cast<linalg::LinalgOp>(op);
      SmallVector<AffineMap> maps = lop.getIndexingMapsArray();
      unsigned nl = lop.getNumLoops(), nb = nl - 3;
      auto dim = [&](AffineMap m, unsigned r) {
        auto e = dyn_cast<AffineDimExpr>(m.getResult(r));
        return e ? int64_t(e.getPosition()) : int64_t(-1);
      };
      // (b.., m, k) x (b.., k, n) or (b.., n, k) -> (b.., m, n), every
      // operand carrying every batch dimension.
      auto batchOk = [&](AffineMap m) {
        if (m.getNumResults() != nb + 2)
          return false;
        for (unsigned i = 0; i < nb; ++i)
          if (dim(m, i) != int64_t(i))
            return false;
        return true;
      };
      bool transposeB = batchOk(maps[1]) && dim(maps[1], nb) == nb + 1 &&
                        dim(maps[1], nb + 1) == nb + 2;
      bool plainB = batchOk(maps[1]) && dim(maps[1], nb) == nb + 2 &&
                    dim(maps[1], nb + 1) == nb + 1;
      if (!batchOk(maps[0]) || !batchOk(maps[2]) || dim(maps[0], nb) != nb ||
          dim(maps[0], nb + 1) != nb + 2 || dim(maps[2], nb) != nb ||
          dim(maps[2], nb + 1) != nb + 1 || (!transposeB && !plainB))
        return op.emitOpError("the fp64 oracle models matmuls of the form "
                              "(b.., m, k) x (b.., k, n) or (b.., n, k) "
                              "only");
      auto castAttr = op.getAttrOfType<linalg::TypeFnAttr>("cast");
      if (castAttr && castAttr.getValue() != linalg::TypeFn::cast_signed)
        return op.emitOpError("the fp64 oracle models signed casts only");
      ref::MatmulSpec spec;
      spec.transposeB = transposeB;
      spec.accumulate = true;
      Value a = lop.getDpsInputs()[0], b = lop.getDpsInputs()[1],
            c = lop.getDpsInits()[0];
      spec.inputType = getElementTypeOrSelf(a.getType());
      spec.accType = getElementTypeOrSelf(c.getType());
      spec.flushBf16Subnormals = kernelsFlushBf16Subnormals;
      spec.tensorCoreChunk = tensorCore.chunk;
      spec.tensorCoreUnit = tensorCore.unit;
      spec.drawRounding = drawRounding;
      ref::Result r = ref::matmul(get(a), get(b), get(c), spec);
      carryMatmulInputBounds(r, env[a], env[b], &env[c], transposeB);
      env[op.getResult(0)] = std::move(r);
      continue;
    }
    if (auto tm = dyn_cast<tosa::MatMulOp>(op)) {
      auto zero = [&](Value v) {
        return llvm::all_of(get(v).data, [](double x) { return x == 0.0; });
      };
      if (!zero(tm.getAZp()) || !zero(tm.getBZp()))
        return op.emitOpError("the fp64 oracle models tosa.matmul with zero "
                              "zero points only");
      ref::MatmulSpec spec;
      spec.inputType = getElementTypeOrSelf(tm.getA().getType());
      spec.accType = getElementTypeOrSelf(tm.getType());
      spec.flushBf16Subnormals = kernelsFlushBf16Subnormals;
      spec.tensorCoreChunk = tensorCore.chunk;
      spec.tensorCoreUnit = tensorCore.unit;
      spec.drawRounding = drawRounding;
      ref::Tensor none;
      env[tm.getResult()] =
          ref::matmul(get(tm.getA()), get(tm.getB()), none, spec);
      continue;
    }
    if (auto tc = dyn_cast<tosa::ConstOp>(op)) {
      env[tc.getResult()] =
          exact(denseValues(cast<DenseElementsAttr>(tc.getValues())));
      continue;
    }
    if (ref::isAccelOracleOp(&op)) {
      // The systolic array rounds attention's P to its input type (the
      // scratchpad's), and so does the GPU's FlashAttention kernel (P is
      // the A operand of the P.V mma.sync); the CPU pipeline keeps P in f32
      // except for bf16 attention on AMX tiles (cpu-flash-amx).
      ref::AccelOpOptions options;
      options.roundProbabilities =
          target != "cpu" ||
          (cpuPipelineOptions &&
           hostKernelsRoundAttentionProbabilities(*cpuPipelineOptions, &op));
      options.tf32Probabilities = target == "nvptx" || target == "amdgpu";
      options.flushBf16Subnormals = kernelsFlushBf16Subnormals;
      options.tensorCoreChunk = tensorCore.chunk;
      options.tensorCoreUnit = tensorCore.unit;
      options.drawRounding = drawRounding;
      FailureOr<ref::Result> r = ref::evaluateAccelOp(&op, get, options);
      if (failed(r))
        return failure();
      if (auto mm = dyn_cast<MatmulOp>(op))
        carryMatmulInputBounds(*r, env[mm.getLhs()], env[mm.getRhs()],
                               mm.getAccumulate() ? &env[mm.getInit()]
                                                  : nullptr,
                               mm.getTransposeB());
      if (auto dq = dyn_cast<DequantMatmulOp>(op))
        carryDequantInputBounds(*r, env[dq.getLhs()], dq, get);
      if (auto sm = dyn_cast<SoftmaxOp>(op))
        carrySoftmaxInputBounds(*r, env[sm.getInput()], sm.getDimension());
      if (auto at = dyn_cast<AttentionOp>(op))
        carryAttentionInputBounds(
            *r, env[at.getQuery()], env[at.getKey()], env[at.getValue()],
            at.getMask() && !cast<RankedTensorType>(at.getMask().getType())
                                 .getElementType()
                                 .isInteger(1)
                ? &env[at.getMask()]
                : nullptr,
            at.getEffectiveScale().value_or(1.0));
      if (auto pa = dyn_cast<PagedAttentionOp>(op))
        carryPagedAttentionInputBounds(*r, env[pa.getQuery()],
                                       env[pa.getKeyCache()],
                                       env[pa.getValueCache()],
                                       pa.getEffectiveScale());
      env[op.getResult(0)] = std::move(*r);
      continue;
    }
    // Casts, scales and max reductions on exact operands (what
    // accel-lower-precision puts before a matmul) are replayed bit for bit.
    auto lookup = [&](Value v) -> const ref::Result & { return env[v]; };
    if (accel_run::isReplayable(op, lookup)) {
      FailureOr<ref::Result> r = accel_run::evaluateReplayed(op, lookup);
      if (failed(r))
        return failure();
      env[op.getResult(0)] = std::move(*r);
      continue;
    }
    if (accel_run::isStructured(op)) {
      FailureOr<ref::Result> r = accel_run::evaluateStructured(
          op, [&](Value v) -> const ref::Result & { return env[v]; },
          drawRounding);
      if (failed(r))
        return failure();
      env[op.getResult(0)] = std::move(*r);
      continue;
    }
    return op.emitOpError("is not modelled by the fp64 oracle (it knows "
                          "accel ops, linalg.fill/matmul/batch_matmul/"
                          "transpose/softmax, elementwise, sum and multiply-add "
                          "linalg.generic, tosa.matmul, tensor.empty/cast/"
                          "expand_shape/collapse_shape/extract_slice/"
                          "insert_slice/concat, elementwise arith on "
                          "tensors and constants)");
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Fills `arg` from the generator chosen by --dist (NaN for write-only outs).
static void generate(Arg &arg, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> small(-2, 2);
  std::bernoulli_distribution keep(maskDensity);
  Type t = arg.elementType;
  for (double &v : arg.value.data) {
    if (arg.writeOnly) {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (arg.lengthBound >= 0) {
      v = std::uniform_int_distribution<int64_t>(0, arg.lengthBound)(rng);
    } else if (arg.zeroPointHi >= arg.zeroPointLo) {
      v = std::uniform_int_distribution<int64_t>(arg.zeroPointLo,
                                                 arg.zeroPointHi)(rng);
    } else if (t.isInteger(1)) {
      v = keep(rng) ? 1.0 : 0.0;
    } else if (t.isIndex()) {
      v = double(indexArg);
    } else if (isa<IntegerType>(t)) {
      v = dist == "exact" ? small(rng)
                          : std::uniform_int_distribution<int>(-128, 127)(rng);
    } else if (dist == "exact") {
      v = small(rng);
    } else if (dist == "normal") {
      v = normal(rng);
    } else {
      v = uniform(rng);
    }
  }
  // Scalars (per-tensor scales) stay positive and near 1.
  if (arg.shape.empty() && isa<FloatType>(t))
    arg.value.data[0] = 0.5 + std::fabs(arg.value.data[0]);
  // (A mask broadcast along its rows, [.., 1, Skv], has no rows to clear.)
  if (t.isInteger(1) && maskZeroRows > 0 && arg.shape.size() >= 2 &&
      arg.shape[arg.shape.size() - 2] > 1) {
    int64_t cols = arg.shape.back(), rows = arg.shape[arg.shape.size() - 2];
    for (int64_t base = 0; base < arg.value.numElements(); base += rows * cols)
      for (int64_t r = 0; r < std::min(rows, int64_t(maskZeroRows)); ++r)
        for (int64_t c = 0; c < cols; ++c)
          arg.value.data[base + r * cols + c] = 0.0;
  }
}

/// Takes `arg` from a .npy file, checking shape and dtype.
static LogicalResult load(Arg &arg, unsigned index, StringRef path) {
  auto array = accel_run::readNpy(path);
  if (!array) {
    fail("argument #" + Twine(index) + ": " + toString(array.takeError()));
    return failure();
  }
  if (ArrayRef<int64_t>(array->shape) != ArrayRef<int64_t>(arg.shape)) {
    std::string want, got;
    llvm::raw_string_ostream(want) << arg.type;
    for (int64_t d : array->shape)
      got += std::to_string(d) + "x";
    fail("argument #" + Twine(index) + " is " + want + " but '" + path +
         "' has shape " + (got.empty() ? "()" : got.substr(0, got.size() - 1)));
    return failure();
  }
  StringRef kind = StringRef(array->descr).take_back(2);
  Type t = arg.elementType;
  bool ok = isa<FloatType>(t) ? kind[0] == 'f'
            : t.isInteger(1)  ? kind == "b1"
                              : (kind[0] == 'i' || kind[0] == 'u');
  if (!ok) {
    std::string want;
    llvm::raw_string_ostream(want) << t;
    fail("argument #" + Twine(index) + " has element type " + want + " but '" +
         path + "' holds '" + array->descr + "'");
    return failure();
  }
  arg.value.data = std::move(array->data);
  return success();
}

static LogicalResult applyPoison(MutableArrayRef<Arg> args) {
  for (StringRef spec : poison) {
    SmallVector<StringRef> parts;
    spec.split(parts, ':');
    unsigned argIdx;
    int64_t elt;
    double value;
    if (parts.size() != 3 || parts[0].getAsInteger(10, argIdx) ||
        parts[1].getAsInteger(10, elt)) {
      fail("--poison expects ARG:INDEX:VALUE, got '" + spec + "'");
      return failure();
    }
    if (parts[2] == "nan")
      value = std::numeric_limits<double>::quiet_NaN();
    else if (parts[2] == "inf")
      value = std::numeric_limits<double>::infinity();
    else if (parts[2] == "-inf")
      value = -std::numeric_limits<double>::infinity();
    else if (parts[2].getAsDouble(value)) {
      fail("--poison value '" + parts[2] + "' is not a number");
      return failure();
    }
    if (argIdx >= args.size() || elt < 0 ||
        elt >= args[argIdx].value.numElements()) {
      fail("--poison '" + spec + "' is out of range");
      return failure();
    }
    args[argIdx].value.data[elt] = value;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Calling the JIT-compiled function
//===----------------------------------------------------------------------===//

/// Reads a returned memref descriptor (allocated, aligned, offset, sizes,
/// strides) of `type` into doubles.
static ref::Tensor readDescriptor(const int64_t *desc, RankedTensorType type) {
  int64_t rank = type.getRank();
  auto *base = reinterpret_cast<const uint8_t *>(desc[1]);
  int64_t offset = desc[2];
  const int64_t *sizes = desc + 3, *strides = desc + 3 + rank;
  ref::Tensor t(type.getShape());
  size_t width = ref::storageBytes(type.getElementType());
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t n = 0; n < t.numElements(); ++n) {
    int64_t rem = n, pos = offset;
    for (int64_t d = rank - 1; d >= 0; --d) {
      pos += (rem % sizes[d]) * strides[d];
      rem /= sizes[d];
    }
    t.data[n] = ref::decodeElement(base + pos * width, type.getElementType());
  }
  return t;
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

static std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

namespace {
/// The program gate of one result: bounds on ‖y − r‖_F and max |y − r|
/// (programGates); `unbounded` when an op's own bound is not finite.
struct ProgramGate {
  double normwise = 0, maxAbs = 0;
  bool unbounded = false;
};

/// A function to run: its arguments, their packed form and the reference.
struct Job {
  func::FuncOp func;
  std::string name;
  SmallVector<Arg> args;
  SmallVector<ref::Result> expected;
  PackedCall call;
  /// The function's roofline point (--roofline), taken before prepare()
  /// adds arguments; its measured time once timed.
  std::optional<RooflinePoint> roofline = std::nullopt;
  /// With a tuning cache's calibrations: the calibrated time of its ops
  /// (each with the kernel the configuration stage gives it), or why none.
  std::optional<double> calibratedSeconds = std::nullopt;
  std::string noCalibration = {};
  /// How the GPU kernel sums its matmuls' products (the oracle's model of
  /// them; f32 elsewhere).
  TensorCoreSums tensorCore = {};
  /// The program gate of each result (programGates), once computed.
  std::optional<SmallVector<ProgramGate>> programGates = std::nullopt;
};
} // namespace

/// --roofline with a tuning cache (--cpu-pipeline-options=tuning-cache=F):
/// each job's calibrated time. A copy of the module runs the CPU pipeline's
/// stages up to the configuration stage, so each op is priced with the
/// kernel it will run; an op of a kernel the cache has no calibration of
/// (on this CPU kind and thread count) leaves its function without one,
/// saying why.
static LogicalResult priceCalibrated(ModuleOp module, MutableArrayRef<Job> jobs,
                                     const AccelCpuPipelineOptions &options) {
  auto cache = loadCpuTuningCache(options.tuningCache);
  if (!cache) {
    llvm::errs() << "accel-run: tuning cache '" << options.tuningCache
                 << "': " << toString(cache.takeError()) << "\n";
    return failure();
  }
  AccelCpuPipelineOptions configured;
  configured.copyOptionValuesFrom(options);
  configured.cpuFeatures = hostCompileFeatures(options);
  std::string cpu = cpuTuningCpu(configured.cpuFeatures, module);
  OwningOpRef<ModuleOp> copy(module.clone());
  PassManager pm(module.getContext());
  buildAccelCpuConfigurePipeline(pm, configured);
  if (failed(pm.run(*copy)))
    return failure();
  TargetAttr target = lookupTarget(module.getContext(), cpu);
  if (!target) {
    llvm::errs() << "accel-run: the host's CPU kind '" << cpu
                 << "' has no catalogue entry\n";
    return failure();
  }
  for (Job &job : jobs) {
    auto fn = copy->lookupSymbol<func::FuncOp>(job.func.getSymName());
    if (!fn || !job.roofline)
      continue;
    double ms = 0;
    std::string why;
    fn.walk([&](Operation *op) {
      std::optional<RooflineCost> cost = getKernelCost(op);
      if (!cost || !why.empty())
        return;
      auto config =
          op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
      if (!config) {
        why = op->getName().getStringRef().str() + " has no kernel";
        return;
      }
      const CpuKernelCalibration *cal = cache->findCalibration(
          cpu, config.getKernel(), int64_t(options.threads));
      if (!cal) {
        why = llvm::formatv("no calibration of {0} on {1} with {2} thread(s) "
                            "in {3}",
                            config.getKernel(), cpu, int64_t(options.threads),
                            options.tuningCache)
                  .str();
        return;
      }
      ms += getCalibratedSeconds(*cost, *cal, target, options.threads) * 1e3;
    });
    if (why.empty())
      job.calibratedSeconds = ms * 1e-3;
    else
      job.noCalibration = why;
  }
  return success();
}

/// Whether `type` has more elements than the fp64 oracle holds (2^31: it
/// keeps every tensor as doubles); an overflowing count would otherwise
/// abort in the allocator.
static bool exceedsOracle(RankedTensorType type) {
  constexpr int64_t kMaxElements = int64_t(1) << 31;
  int64_t elements = 1;
  for (int64_t d : type.getShape()) {
    std::optional<int64_t> n = llvm::checkedMul(elements, d);
    if (!n || *n > kMaxElements)
      return true;
    elements = *n;
  }
  return false;
}

/// Checks `func`'s signature, makes its inputs and computes its reference.
static LogicalResult prepare(Job &job, bool useNpy, MLIRContext &context) {
  func::FuncOp func = job.func;
  const std::string &name = job.name;
  if (func.getBody().getBlocks().size() != 1)
    return fail("@" + name + " must have a single block"), failure();
  // Elements the reference and the buffers hold: integers and floats (an
  // index or complex tensor has no byte layout here).
  auto elementsHeld = [](RankedTensorType rt) {
    return rt.getElementType().isIntOrFloat();
  };
  for (Type t : func.getResultTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return fail("@" + name + " must return statically shaped tensors, got " +
                  typeStr(t)),
             failure();
    if (!elementsHeld(rt))
      return fail("@" + name + " returns " + typeStr(rt) +
                  "; accel-run runs tensors of integers and floats only"),
             failure();
    if (exceedsOracle(rt))
      return fail("@" + name + " returns " + typeStr(rt) +
                  ", more than 2^31 elements, the most accel-run's fp64 "
                  "reference holds"),
             failure();
  }
  unsigned declaredArgs = func.getNumArguments();
  promoteEmptyInits(func);

  for (BlockArgument a : func.getArguments()) {
    Arg arg;
    arg.type = a.getType();
    if (auto rt = dyn_cast<RankedTensorType>(arg.type)) {
      if (!rt.hasStaticShape())
        return fail("argument #" + Twine(a.getArgNumber()) + " of @" + name +
                    " has a dynamic shape (" + typeStr(rt) +
                    "); accel-run needs static shapes"),
               failure();
      if (!elementsHeld(rt))
        return fail("argument #" + Twine(a.getArgNumber()) + " of @" + name +
                    " is " + typeStr(rt) +
                    "; accel-run runs tensors of integers and floats only"),
               failure();
      arg.elementType = rt.getElementType();
      arg.shape.assign(rt.getShape().begin(), rt.getShape().end());
      if (exceedsOracle(rt))
        return fail("argument #" + Twine(a.getArgNumber()) + " of @" + name +
                    " (" + typeStr(rt) + ") has more than 2^31 elements, " +
                    "the most accel-run's fp64 reference holds"),
               failure();
      arg.writeOnly = onlyOverwritten(a);
      for (Operation *user : a.getUsers())
        if (auto at = dyn_cast<AttentionOp>(user)) {
          if (at.getKvLengths() == a)
            arg.lengthBound = at.getKey().getType().getDimSize(2);
          else if (at.getQLengths() == a)
            arg.lengthBound = at.getQuery().getType().getDimSize(2);
        } else if (auto dq = dyn_cast<DequantMatmulOp>(user)) {
          if (dq.getZeroPoints() == a) {
            int64_t levels = int64_t(1) << dq.getBits();
            arg.zeroPointLo = dq.getIsUnsigned() ? 0 : -levels / 2;
            arg.zeroPointHi = arg.zeroPointLo + levels - 1;
          }
        } else if (auto pa = dyn_cast<PagedAttentionOp>(user)) {
          // Lengths the table can hold; pages of the pool (a pool of
          // static size: accel-run needs static shapes).
          if (pa.getKvLengths() == a)
            arg.lengthBound = pa.getMaxPages() * pa.getPageSize();
          else if (pa.getBlockTable() == a)
            arg.lengthBound =
                std::max<int64_t>(pa.getKeyCache().getType().getDimSize(0), 1) -
                1;
        }
    } else if (isa<FloatType, IntegerType, IndexType>(arg.type)) {
      arg.elementType = arg.type;
    } else {
      return fail("argument #" + Twine(a.getArgNumber()) + " of @" + name +
                  " has unsupported type " + typeStr(arg.type)),
             failure();
    }
    arg.value = ref::Tensor(arg.shape);
    job.args.push_back(std::move(arg));
  }
  // Each function draws from its own stream, so adding a function to a file
  // does not change the inputs of the others.
  std::mt19937_64 rng(seed ^ llvm::xxh3_64bits(name));
  // --input files feed, in order, the declared tensor arguments that are
  // read (outputs that are only written are always NaN-prefilled).
  unsigned tensorIndex = 0;
  for (auto [i, arg] : llvm::enumerate(job.args)) {
    bool readTensor =
        isa<RankedTensorType>(arg.type) && !arg.writeOnly && i < declaredArgs;
    if (useNpy && readTensor && tensorIndex < npyInputs.size() &&
        npyInputs[tensorIndex] != "-") {
      if (failed(load(arg, i, npyInputs[tensorIndex])))
        return failure();
    } else {
      generate(arg, rng);
    }
    tensorIndex += readTensor;
  }
  if (useNpy && npyInputs.size() > tensorIndex)
    return fail("got " + Twine(npyInputs.size()) + " --input files but @" +
                name + " reads " + Twine(tensorIndex) + " tensor arguments"),
           failure();
  if (failed(applyPoison(job.args)))
    return failure();
  // Round to the element type: the reference sees what the kernel sees.
  for (Arg &arg : job.args) {
    Type storage = arg.elementType.isIndex()
                       ? Type(IntegerType::get(&context, 64))
                       : arg.elementType;
    for (double &v : arg.value.data)
      v = ref::roundTo(v, storage);
    arg.bytes.resize(std::max<size_t>(1, arg.value.data.size()) *
                     ref::storageBytes(storage));
    for (auto [n, v] : llvm::enumerate(arg.value.data))
      ref::encodeElement(v, storage,
                         arg.bytes.data() + n * ref::storageBytes(storage));
  }

  // The fp64 reference, unless recording: --record checks nothing (the
  // --replay of the record computes it from the same inputs).
  if (recordDir.empty()) {
    SmallVector<ref::Tensor> inputs;
    for (Arg &arg : job.args)
      inputs.push_back(arg.value);
    FailureOr<SmallVector<ref::Result>> expected = evaluate(func, inputs);
    if (failed(expected))
      return failure();
    job.expected = std::move(*expected);
  }

  for (Arg &arg : job.args) {
    if (isa<RankedTensorType>(arg.type))
      job.call.addMemref(arg.bytes.data(), arg.shape);
    else
      job.call.addScalar(arg.bytes.data());
  }
  SmallVector<int64_t> ranks;
  for (Type t : func.getResultTypes())
    ranks.push_back(cast<RankedTensorType>(t).getRank());
  job.call.addResults(ranks);
  return success();
}

namespace {
/// How far a result is from a reference it was not computed to match.
struct Distance {
  double maxAbs = 0, maxRel = 0;
  /// ‖y − r‖_F and ‖r‖_F over the finite reference elements.
  double errorNorm = 0, referenceNorm = 0;
  /// errorNorm / referenceNorm (0 when both vanish).
  double normwise = 0;
  /// Whether the non-finite reference elements are met (NaN by NaN, an
  /// infinity by the same one) and the finite ones by finite values.
  bool specialsAgree = true;
};
} // namespace

/// With `allowed`: a NaN where `allowed->mayBeNaN` is correct too (an
/// attention's row with a non-finite V at a masked key) and not counted.
static Distance distance(const ref::Tensor &actual, const ref::Tensor &expected,
                         const ref::Result *allowed = nullptr) {
  Distance d;
  double diff = 0, norm = 0;
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(actual.data, expected.data))) {
    auto [y, r] = pair;
    if (allowed && std::isnan(y) && allowed->mayBeNaN(int64_t(i)))
      continue;
    if (!std::isfinite(r)) {
      d.specialsAgree &= std::isnan(r) ? std::isnan(y) : y == r;
      continue;
    }
    if (!std::isfinite(y)) {
      d.specialsAgree = false;
      continue;
    }
    double err = std::fabs(y - r);
    d.maxAbs = std::max(d.maxAbs, err);
    if (r != 0.0)
      d.maxRel = std::max(d.maxRel, err / std::fabs(r));
    diff += err * err;
    norm += r * r;
  }
  d.errorNorm = std::sqrt(diff);
  d.referenceNorm = std::sqrt(norm);
  d.normwise = norm > 0.0    ? std::sqrt(diff / norm)
               : diff == 0.0 ? 0.0
                             : std::numeric_limits<double>::infinity();
  return d;
}

/// Whether `func` is a program: more than one op that computes (views,
/// fills, constants and empties do not count).
static bool isProgram(func::FuncOp func) {
  int computing = 0;
  for (Operation &op : func.getBody().front())
    computing +=
        !isa<tensor::EmptyOp, arith::ConstantOp, linalg::FillOp, tensor::CastOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
             linalg::TransposeOp, shard::ShardingOp, shard::ShardOp,
             tosa::ConstOp, func::ReturnOp>(op);
  return computing > 1;
}

/// 1.5·(m + 3·s) of draws' distances (mean m, standard deviation s): the
/// statistical gates' (programGates, precisionGates) common form.
static double statisticalGate(ArrayRef<double> d) {
  constexpr double kMargin = 1.5, kDeviations = 3.0;
  double mean = 0, var = 0;
  for (double x : d)
    mean += x / double(d.size());
  for (double x : d)
    var += (x - mean) * (x - mean) / double(d.size() - 1);
  return kMargin * (mean + kDeviations * std::sqrt(var));
}

/// The program gate of each result of `job` (docs/numerics.md, "The
/// program gate"), the one place it is computed. The per-element gate
/// compounds each op's worst case through the program (59000 times the
/// error at a Llama block's output, unbounded in its bf16 version); this
/// gate instead takes each op's own error as a uniform draw within its
/// bound on exact operands (its roundings, its sums' worst case, its
/// functions' allowances) and carries the draws through the fp64 program,
/// so that they cancel and grow as the kernel's own errors do. S draws
/// (S = ceil(4096 / n) in [3, 32], n the smallest result's element count)
/// give the mean m and standard deviation s of ‖f~ − f‖_F and of
/// max |f~ − f|; each gate is 1.5·(m + 3·s), as the precision report's.
static FailureOr<SmallVector<ProgramGate>> programGates(Job &job) {
  unsigned numResults = job.func.getNumResults();
  int64_t smallest = std::numeric_limits<int64_t>::max();
  for (const ref::Result &r : job.expected)
    if (r.value.numElements() > 0)
      smallest = std::min(smallest, r.value.numElements());
  int64_t samples =
      smallest == std::numeric_limits<int64_t>::max()
          ? 3
          : std::clamp<int64_t>((4096 + smallest - 1) / smallest, 3, 32);
  std::mt19937_64 rng(seed ^ llvm::xxh3_64bits(job.name) ^
                      llvm::xxh3_64bits("program-gate"));
  SmallVector<ref::Tensor> inputs;
  for (Arg &arg : job.args)
    inputs.push_back(arg.value);
  SmallVector<SmallVector<double>> norms(numResults), maxima(numResults);
  bool unbounded = false;
  for (int64_t s = 0; s < samples; ++s) {
    Perturbation perturb{rng};
    FailureOr<SmallVector<ref::Result>> drawn =
        evaluate(job.func, inputs, job.tensorCore, &perturb);
    if (failed(drawn))
      return failure();
    unbounded |= perturb.unbounded;
    for (unsigned i = 0; i < numResults; ++i) {
      Distance d = distance((*drawn)[i].value, job.expected[i].value);
      norms[i].push_back(d.errorNorm);
      maxima[i].push_back(d.maxAbs);
    }
  }
  SmallVector<ProgramGate> gates;
  for (unsigned i = 0; i < numResults; ++i)
    gates.push_back(
        {statisticalGate(norms[i]), statisticalGate(maxima[i]), unbounded});
  return gates;
}

/// A per-element gate whose unbounded elements (NaN, inf) check nothing,
/// left to the program gate: a result's in checkResults, a rank's block of
/// one (whose gathered whole rank 0 checks).
static ref::Tensor uncheckedWhereUnbounded(const ref::Tensor &bound) {
  ref::Tensor t = bound;
  if (programGate != ProgramGateMode::Off)
    for (double &b : t.data)
      if (!std::isfinite(b))
        b = std::numeric_limits<double>::infinity();
  return t;
}

/// Compares each result of `job` (read by `actualOf`) with its reference
/// and prints the verdicts; false when one fails.
static FailureOr<bool>
checkResults(Job &job, llvm::function_ref<ref::Tensor(unsigned)> actualOf) {
  bool allPassed = true;
  bool program = programGate == ProgramGateMode::On ||
                 (programGate == ProgramGateMode::Auto && isProgram(job.func));
  for (auto [i, type] : llvm::enumerate(job.func.getResultTypes())) {
    auto rt = cast<RankedTensorType>(type);
    ref::Tensor actual = actualOf(i);
    // A per-element gate compounded to no bound at all (NaN, inf) checks
    // nothing there: with the program gate, that element is left to it.
    bool unboundedElements = llvm::any_of(
        job.expected[i].bound.data, [](double b) { return !std::isfinite(b); });
    // An exact result (every element's gate 0) is already checked bit
    // for bit.
    bool exact = llvm::all_of(job.expected[i].bound.data,
                              [](double b) { return b == 0.0; });
    bool gated = programGate != ProgramGateMode::Off && !exact &&
                 (program || unboundedElements);
    ref::Result relaxed;
    if (gated && unboundedElements) {
      relaxed = job.expected[i];
      relaxed.bound = uncheckedWhereUnbounded(relaxed.bound);
    }
    const ref::Result &expected =
        gated && unboundedElements ? relaxed : job.expected[i];
    ref::Comparison c = ref::compare(actual, expected);
    bool passed = c.passed();
    // The result line judges the per-element gate, the program gate's line
    // its own; the result passes when both do.
    bool elementsPassed = passed;
    std::string programLine;
    if (gated) {
      if (!job.programGates) {
        FailureOr<SmallVector<ProgramGate>> gates = programGates(job);
        if (failed(gates))
          return failure();
        job.programGates = std::move(*gates);
      }
      const ProgramGate &g = (*job.programGates)[i];
      Distance d = distance(actual, expected.value, &expected);
      auto ratio = [](double err, double gate) {
        return err == 0.0   ? 0.0
               : gate > 0.0 ? err / gate
                            : std::numeric_limits<double>::infinity();
      };
      double worst = g.unbounded ? std::numeric_limits<double>::infinity()
                                 : std::max(ratio(d.errorNorm, g.normwise),
                                            ratio(d.maxAbs, g.maxAbs));
      bool ok = d.specialsAgree && worst <= 1.0;
      passed &= ok;
      double scale = d.referenceNorm > 0.0 ? d.referenceNorm : 1.0;
      programLine =
          g.unbounded
              ? std::string("    program gate: an op's own bound is not "
                            "finite -> FAIL\n")
              : llvm::formatv("    program gate: normwise err {0:e2}, gate "
                              "{1:e2}; max abs err {2:e2}, gate {3:e2}; "
                              "err/gate {4:f3} -> {5}\n",
                              d.normwise, g.normwise / scale, d.maxAbs,
                              g.maxAbs, worst, ok ? "PASS" : "FAIL")
                    .str();
    }
    allPassed &= passed;
    llvm::outs() << llvm::formatv(
        "  result #{0} {1}: max abs err {2:e2}, max rel err {3:e2}, "
        "worst err/gate {4:f3} -> {5}\n",
        i, typeStr(rt), c.maxAbsError, c.maxRelError, c.worstRatio,
        elementsPassed ? "PASS" : "FAIL");
    if (gateDetails && actual.numElements() > 0) {
      int64_t at = 0;
      double worst = -1;
      for (int64_t n = 0, e = actual.numElements(); n < e; ++n)
        if (double ratio = ref::elementRatio(actual.data[n], expected, n);
            ratio > worst) {
          worst = ratio;
          at = n;
        }
      double y = actual.data[at], r = expected.value.data[at];
      llvm::outs() << llvm::formatv(
          "    tightest element {0}: err {1:e2}, gate {2:e2}\n", at,
          std::isfinite(y) && std::isfinite(r) ? std::fabs(y - r) : 0.0,
          expected.bound.data[at]);
    }
    if (!c.passed()) {
      int64_t at = c.firstFailure;
      llvm::outs() << llvm::formatv(
          "    {0} of {1} elements out of gate; first at flat index {2}: got "
          "{3:e9}, expected {4:e9} (gate {5:e2})\n",
          c.failures, actual.numElements(), at, actual.data[at],
          expected.value.data[at], expected.bound.data[at]);
    }
    llvm::outs() << programLine;
    if (!saveOutputs.empty()) {
      // The function name becomes a file name: nothing that leaves the
      // folder ("../x", "a/b") or hides in it.
      if (!isPlainFileName(job.name + ".npy"))
        return fail("@" + job.name + " cannot name files in '" + saveOutputs +
                    "' (--save-outputs)"),
               failure();
      std::string base = saveOutputs + "/" + job.name + "." + std::to_string(i);
      if (llvm::Error e =
              accel_run::writeNpy(base + ".npy", actual.shape, actual.data))
        return fail(toString(std::move(e))), failure();
      if (llvm::Error e = accel_run::writeNpy(base + ".ref.npy", actual.shape,
                                              expected.value.data))
        return fail(toString(std::move(e))), failure();
      // The gate per element, so that a result computed elsewhere (a GPU
      // host library's, gathered from its ranks) is checked the same way.
      // (As computed: NaN where it is unbounded, which the program gate,
      // not a reader of this file, checks.)
      if (llvm::Error e = accel_run::writeNpy(base + ".bound.npy", actual.shape,
                                              job.expected[i].bound.data))
        return fail(toString(std::move(e))), failure();
    }
  }
  return allPassed;
}

/// Runs `job` once and checks it, then times it; false when a check fails.
static FailureOr<bool> runAndCheck(Job &job, ExecutionEngine &engine) {
  auto invoke = [&]() -> llvm::Error {
    return job.call.invoke(engine, job.name);
  };
  if (llvm::Error err = invoke())
    return fail("running @" + job.name +
                " failed: " + toString(std::move(err))),
           failure();
  llvm::outs() << "@" << job.name << "\n";
  FailureOr<bool> checked = checkResults(job, [&](unsigned i) {
    return readDescriptor(job.call.result(i),
                          cast<RankedTensorType>(job.func.getResultTypes()[i]));
  });
  if (failed(checked))
    return failure();
  bool allPassed = *checked;
  // Timing: the median of the repeated runs (outputs are not re-prefilled).
  if (repeat > 0) {
    std::vector<double> times;
    for (unsigned r = 0; r < repeat; ++r) {
      auto start = std::chrono::steady_clock::now();
      if (llvm::Error err = invoke())
        return fail("running @" + job.name +
                    " failed: " + toString(std::move(err))),
               failure();
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    llvm::outs() << llvm::formatv("  time: {0:f3} ms (median of {1})\n", median,
                                  times.size());
    if (job.roofline) {
      job.roofline->measuredSeconds = median * 1e-3;
      double measured = job.roofline->cost.flops / (median * 1e-3) / 1e9;
      double predicted =
          job.roofline->cost.flops / job.roofline->predictedSeconds / 1e9;
      llvm::outs() << llvm::formatv(
          "  roofline: {0:f2} GFLOP/s measured, {1:f2} predicted (measured / "
          "predicted time {2:f2})\n",
          measured, predicted, median * 1e-3 / job.roofline->predictedSeconds);
      if (job.calibratedSeconds)
        llvm::outs() << llvm::formatv(
            "  calibrated model: {0:f3} ms predicted (predicted / measured "
            "time {1:f2})\n",
            *job.calibratedSeconds * 1e3,
            *job.calibratedSeconds / (median * 1e-3));
      else if (!job.noCalibration.empty())
        llvm::outs() << "  calibrated model: none (" << job.noCalibration
                     << ")\n";
    }
  }
  llvm::outs() << "  " << (allPassed ? "PASS" : "FAIL") << "\n";
  return allPassed;
}

//===----------------------------------------------------------------------===//
// Precision report
//===----------------------------------------------------------------------===//

/// The value of `key=` in a pass option string, or "".
static StringRef optionValue(StringRef options, StringRef key) {
  SmallVector<StringRef> parts;
  options.split(parts, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts)
    if (part.consume_front(key) && part.consume_front("="))
      return part;
  return "";
}

/// The policy a --precision-report option string gives the ops without an
/// accel.precision attribute; none without `compute`. The string has parsed
/// as accel-lower-precision's options already.
static std::optional<PrecisionPolicy> reportPolicy(StringRef spec,
                                                   MLIRContext *context) {
  auto type = [&](StringRef key) {
    StringRef v = optionValue(spec, key);
    return v.empty() ? Type() : mlir::parseType(v, context);
  };
  Type compute = type("compute");
  if (!compute)
    return std::nullopt;
  std::optional<ScaleMode> scales;
  if (StringRef v = optionValue(spec, "scales"); !v.empty())
    scales = symbolizeScaleMode(v);
  std::optional<OverflowMode> overflow;
  if (StringRef v = optionValue(spec, "overflow"); !v.empty())
    overflow = symbolizeOverflowMode(v);
  SmallVector<StringRef> parts;
  optionValue(spec, "scale-values").split(parts, ',', -1, /*KeepEmpty=*/false);
  SmallVector<double> values;
  for (StringRef part : parts) {
    double v;
    if (!part.trim().getAsDouble(v))
      values.push_back(v);
  }
  FailureOr<PrecisionPolicy> policy = resolvePrecisionPolicy(
      [&] { return mlir::emitError(UnknownLoc::get(context)); }, compute,
      type("accumulate"), type("output"), scales, values, overflow);
  if (failed(policy))
    return std::nullopt;
  return *policy;
}

/// The size of the error that rounding `x` to `type`, with the per-tensor
/// `scale` (x / scale is rounded, then multiplied back), makes: round to
/// nearest even, saturating at the largest finite value (127 for i8).
static double roundingError(double x, Type type, double scale) {
  if (!std::isfinite(x) || x == 0.0)
    return 0.0;
  double y = x / scale, q;
  if (auto f = dyn_cast<FloatType>(type)) {
    double largest =
        llvm::APFloat::getLargest(f.getFloatSemantics()).convertToDouble();
    q = std::fabs(y) > largest ? std::copysign(largest, y)
                               : ref::roundTo(y, type);
  } else {
    q = std::clamp(std::nearbyint(y), -127.0, 127.0);
  }
  return std::fabs(q - y) * scale;
}

namespace {
/// What accel-lower-precision rounds in a function, for the precision
/// report's model of its error: how large each rounding error is.
struct RoundingModel {
  /// Per argument: the size of each element's rounding error (empty: the
  /// argument is not rounded).
  SmallVector<std::vector<double>> inputs;
  /// Per result: the types it is rounded to, in order (an f16 or bf16
  /// accumulator, the `output` type).
  SmallVector<SmallVector<Type>> results;
};
} // namespace

/// The arguments of `func` that `root` is computed from.
static SmallVector<unsigned> argumentsOf(func::FuncOp func, Value root) {
  SmallVector<unsigned> args;
  SmallVector<Value> work = {root};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() == func)
        args.push_back(arg.getArgNumber());
      continue;
    }
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return args;
}

/// Where lowering `job`'s function with `policy` rounds: each op that
/// accel-lower-precision rewrites (its plan, accel.precision attributes
/// included) rounds the arguments its inputs come from to its compute type,
/// with a dynamic scale (amax / largest), a given one or none, and rounds
/// the results computed from it to an f16/bf16 accumulator (unscaled
/// matmuls) and to its output type.
static RoundingModel
modelRoundings(Job &job, const std::optional<PrecisionPolicy> &policy) {
  RoundingModel model;
  model.inputs.resize(job.args.size());
  model.results.resize(job.func.getNumResults());
  LowerPrecisionOptions options;
  options.policy = policy;
  options.emulate = true;
  auto ret = cast<func::ReturnOp>(job.func.getBody().front().getTerminator());
  job.func.walk([&](Operation *op) {
    if (!isa<MatmulOp, AttentionOp>(op))
      return;
    FailureOr<std::optional<PrecisionPlan>> plan =
        planLowerPrecision(op, options, /*diagnose=*/false);
    if (failed(plan) || !*plan)
      return;
    const PrecisionPolicy &p = (*plan)->policy;
    auto matmul = dyn_cast<MatmulOp>(op);
    SmallVector<Value> inputs =
        matmul ? SmallVector<Value>{matmul.getLhs(), matmul.getRhs()}
               : SmallVector<Value>{cast<AttentionOp>(op).getQuery(),
                                    cast<AttentionOp>(op).getKey(),
                                    cast<AttentionOp>(op).getValue()};
    for (auto [index, input] : llvm::enumerate(inputs))
      for (unsigned a : argumentsOf(job.func, input)) {
        if (!model.inputs[a].empty() ||
            !isa<FloatType>(job.args[a].elementType))
          continue;
        double scale = 1.0;
        if (p.scales == ScaleMode::Given) {
          scale = p.scaleValues[p.scaleValues.size() == 1 ? 0 : index];
        } else if (p.scales == ScaleMode::Dynamic) {
          double amax = 0;
          for (double x : job.args[a].value.data)
            amax = std::max(amax, std::fabs(x));
          scale = amax / getLargestQuantised(p.compute);
          if (!(scale > 0) || !std::isfinite(scale))
            scale = 1.0;
        }
        for (double x : job.args[a].value.data)
          model.inputs[a].push_back(roundingError(x, p.compute, scale));
      }
    SmallVector<Type> roundings;
    if (matmul && !(*plan)->emulate && !p.isScaled() &&
        (p.accumulate.isF16() || p.accumulate.isBF16()))
      roundings.push_back(p.accumulate);
    // (Rounding to the accumulator's type again changes nothing.)
    if (!p.output.isF32() && (roundings.empty() || roundings[0] != p.output))
      roundings.push_back(p.output);
    for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
      if (!model.results[i].empty())
        continue;
      SmallVector<Value> work = {result};
      DenseSet<Value> seen;
      bool fromOp = false;
      while (!work.empty() && !fromOp) {
        Value v = work.pop_back_val();
        Operation *def = v.getDefiningOp();
        if (!def || !seen.insert(v).second)
          continue;
        fromOp = def == op;
        llvm::append_range(work, def->getOperands());
      }
      if (fromOp)
        model.results[i] = roundings;
    }
  });
  return model;
}

/// The precision report's gate on ‖y − r‖_F for each result of `job`
/// lowered as `model` says: the one place it is computed (docs/numerics.md,
/// "The precision report's gate"). The model: each rounding the lowering
/// makes (of the inputs, with their scales, and of the results) is an error
/// of its exact size (roundingError) and a random sign, independent of the
/// others. accel-run draws S sets of such errors (S = ⌈4096 / n⌉ in
/// [3, 32], n the smallest result's element count, so that small results
/// still get a good estimate), evaluates the f32 function's fp64 reference
/// on each, and takes the mean m and the standard deviation s of their
/// distances d = ‖f(x + ε) + η − f(x)‖_F from the reference. The gate is
///   1.5·(m + 3·s) + 2^-18·‖r‖_F:
/// the lowering's real error is one more draw of d, which m + 3·s covers for
/// large results (s ≪ m) and for one element (d is one |Gaussian|, s ≈
/// 0.75·m) alike; 1.5 is room for what the model leaves out (signs that are
/// not independent), 2^-18·‖r‖ for the f32 arithmetic of both functions.
/// On random inputs the gate is 1.5-2.4 times the error, so a scale 10 %
/// off (normwise error 0.1) fails in fp8 E4M3 (gate about 0.06) and int8
/// (about 0.01-0.025).
static FailureOr<SmallVector<double>>
precisionGates(Job &job, const RoundingModel &model, StringRef spec) {
  const double kFloor = std::ldexp(1.0, -18);
  unsigned numResults = job.func.getNumResults();
  int64_t smallest = std::numeric_limits<int64_t>::max();
  for (const ref::Result &r : job.expected)
    smallest = std::min(smallest, std::max<int64_t>(1, r.value.numElements()));
  int64_t samples =
      std::clamp<int64_t>((4096 + smallest - 1) / smallest, 3, 32);
  std::mt19937_64 rng(seed ^ llvm::xxh3_64bits(job.name) ^
                      llvm::xxh3_64bits(spec));
  std::bernoulli_distribution sign;
  SmallVector<SmallVector<double>> norms(numResults);
  for (int64_t s = 0; s < samples; ++s) {
    SmallVector<ref::Tensor> inputs;
    for (auto [arg, errors] : llvm::zip(job.args, model.inputs)) {
      inputs.push_back(arg.value);
      for (auto [x, e] : llvm::zip(inputs.back().data, errors))
        x += sign(rng) ? e : -e;
    }
    FailureOr<SmallVector<ref::Result>> perturbed = evaluate(job.func, inputs);
    if (failed(perturbed))
      return failure();
    for (unsigned i = 0; i < numResults; ++i) {
      const ref::Tensor &r = job.expected[i].value;
      const ref::Tensor &y = (*perturbed)[i].value;
      double sum = 0;
      for (auto [yi, ri] : llvm::zip(y.data, r.data)) {
        if (!std::isfinite(ri) || !std::isfinite(yi))
          continue;
        double d = yi - ri, rounded = yi;
        for (Type t : model.results[i]) {
          double e = roundingError(rounded, t, 1.0);
          d += sign(rng) ? e : -e;
          rounded = ref::roundTo(rounded, t);
        }
        sum += d * d;
      }
      norms[i].push_back(std::sqrt(sum));
    }
  }
  SmallVector<double> gates;
  for (unsigned i = 0; i < numResults; ++i) {
    double reference = 0;
    for (double r : job.expected[i].value.data)
      if (std::isfinite(r))
        reference += r * r;
    reference = std::sqrt(reference);
    gates.push_back(statisticalGate(norms[i]) + kFloor * reference);
  }
  return gates;
}

/// Lowers `selected` (the f32 functions as compiled) with each
/// --precision-report option string, runs every job on its original inputs
/// (`pristine`: the argument bytes before any run) and compares its results
/// with the f32 function's fp64 reference: the normwise error
/// ‖y − r‖_F / ‖r‖_F, gated by what the lowering's roundings are expected
/// to cost (precisionGates), so that a lowering that changes what is
/// computed (a scale off by 10 %, a lost scale, a wrong cast) fails. The
/// rounding itself is checked by the contract gates of the lowered ops.
/// Prints each result's error, gate and error / gate; false when a gate
/// fails.
static FailureOr<bool>
reportPrecisions(ModuleOp selected, std::vector<Job> &jobs,
                 ArrayRef<std::vector<std::vector<uint8_t>>> pristine,
                 const AccelCpuPipelineOptions &options) {
  bool allPassed = true;
  for (const std::string &spec : precisionReport) {
    OwningOpRef<ModuleOp> lowered = selected.clone();
    PassManager pm(selected.getContext());
    std::string pipeline =
        "accel-lower-precision{" + spec + "},accel-expand-f8-casts";
    if (!prePasses.empty())
      pipeline += "," + prePasses;
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(parsePassPipeline(pipeline, pm, errorStream)))
      return fail("bad --precision-report '" + spec + "': " + errors),
             failure();
    if (failed(pm.run(*lowered)))
      return fail("--precision-report '" + spec + "' cannot lower '" +
                  inputFile + "'"),
             failure();
    auto engine = compileForHost(*lowered, options);
    if (!engine)
      return fail("cannot compile '" + inputFile + "' with '" + spec +
                  "' for the host: " + toString(engine.takeError())),
             failure();
    std::optional<PrecisionPolicy> policy =
        reportPolicy(spec, selected.getContext());
    llvm::outs() << "precision " << spec
                 << " (normwise error against each f32 reference; gate from "
                    "the modelled roundings)\n";
    for (auto [job, bytes] : llvm::zip(jobs, pristine)) {
      for (auto [arg, saved] : llvm::zip(job.args, bytes))
        std::copy(saved.begin(), saved.end(), arg.bytes.begin());
      if (llvm::Error err = job.call.invoke(**engine, job.name))
        return fail("running @" + job.name + " with '" + spec +
                    "' failed: " + toString(std::move(err))),
               failure();
      FailureOr<SmallVector<double>> gates =
          precisionGates(job, modelRoundings(job, policy), spec);
      if (failed(gates))
        return failure();
      for (auto [i, type] : llvm::enumerate(job.func.getResultTypes())) {
        auto rt = cast<RankedTensorType>(type);
        ref::Tensor actual = readDescriptor(job.call.result(i), rt);
        Distance d = distance(actual, job.expected[i].value);
        double gate = (*gates)[i];
        bool ok = d.specialsAgree && d.errorNorm <= gate;
        allPassed &= ok;
        double ratio = d.errorNorm == 0.0 ? 0.0
                       : gate > 0.0       ? d.errorNorm / gate
                                    : std::numeric_limits<double>::infinity();
        double normwiseGate =
            d.referenceNorm > 0.0 ? gate / d.referenceNorm : gate;
        llvm::outs() << llvm::formatv(
            "  @{0} result #{1}: max abs err {2:e2}, max rel err {3:e2}, "
            "normwise rel err {4:e2}, gate {5:e2}, err/gate {6:f3} -> {7}\n",
            job.name, i, d.maxAbs, d.maxRel, d.normwise, normwiseGate, ratio,
            ok ? "PASS" : "FAIL");
      }
    }
  }
  return allPassed;
}

//===----------------------------------------------------------------------===//
// The NVIDIA target
//===----------------------------------------------------------------------===//

/// The bytes of the file at `path`, or an error naming it.
static llvm::Expected<std::vector<uint8_t>> readFileBytes(const Twine &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read '" + path.str() +
                                       "': " + file.getError().message());
  StringRef b = (*file)->getBuffer();
  return std::vector<uint8_t>(b.bytes_begin(), b.bytes_end());
}

/// Writes `bytes` to `path`, or an error naming it.
/// Writes a file of a --record folder; a symlink planted under its name is
/// replaced, not followed, and a failure leaves no partial file.
static llvm::Error writeFileBytes(const Twine &path, StringRef bytes) {
  return accel_run::writeFileReplacing(
      path.str(), [&](llvm::raw_ostream &os) { os << bytes; });
}

static StringRef asChars(ArrayRef<uint8_t> bytes) {
  return StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

/// A function's kernels as one program, in launch order: their order in
/// the function's gpu.module, where convert-accel-to-gpu places each kernel
/// after the kernels whose results it reads.
struct KernelProgram {
  SmallVector<const GpuKernel *> kernels;
  /// The buffers of all its kernels, by the names of their metadata: argN
  /// is the job's argument N; resultN (its result N) and tmpN (an
  /// intermediate) are prefilled with NaN bytes (all ones: NaN in every
  /// float type, -1 in the integer ones), so that an element no kernel
  /// writes fails.
  std::vector<std::string> names;
  std::vector<std::vector<uint8_t>> storage;
  /// The result each buffer holds, if any.
  SmallVector<std::optional<unsigned>> resultOf;
  /// Whether some kernel writes the buffer.
  std::vector<bool> written;
  /// Per kernel, per parameter: the index of its buffer.
  std::vector<std::vector<unsigned>> params;

  /// The host buffers of kernel `k`'s parameters.
  SmallVector<HostBuffer> hostBuffers(size_t k) {
    SmallVector<HostBuffer> out;
    for (unsigned b : params[k])
      out.push_back(HostBuffer{storage[b]});
    return out;
  }
};

/// The program of `job` among `all` kernels; a located failure when two
/// kernels see one buffer with different sizes.
static FailureOr<KernelProgram> prepareProgram(const Job &job,
                                               ArrayRef<GpuKernel> all) {
  // The number after `prefix` in a buffer name ("arg2", "result0").
  auto indexAfter = [](StringRef name,
                       StringRef prefix) -> std::optional<unsigned> {
    unsigned index;
    if (!name.consume_front(prefix) || name.getAsInteger(10, index))
      return std::nullopt;
    return index;
  };
  KernelProgram p;
  for (const GpuKernel &k : all)
    if (k.function == job.name)
      p.kernels.push_back(&k);
  for (const GpuKernel *k : p.kernels) {
    std::vector<unsigned> params;
    for (const KernelArgument &arg : k->metadata.arguments) {
      auto it = llvm::find(p.names, arg.name);
      unsigned b = it - p.names.begin();
      if (it == p.names.end()) {
        std::vector<uint8_t> bytes(arg.byteSize, 0xFF);
        if (std::optional<unsigned> a = indexAfter(arg.name, "arg");
            a && *a < job.args.size())
          std::memcpy(bytes.data(), job.args[*a].bytes.data(),
                      std::min(bytes.size(), job.args[*a].bytes.size()));
        p.names.push_back(arg.name);
        p.resultOf.push_back(indexAfter(arg.name, "result"));
        p.storage.push_back(std::move(bytes));
        p.written.push_back(false);
      } else if (static_cast<int64_t>(p.storage[b].size()) != arg.byteSize) {
        fail("@" + job.name + ": kernel " + k->metadata.kernel +
             " sees buffer '" + arg.name + "' as " + Twine(arg.byteSize) +
             " bytes; an earlier kernel as " + Twine(p.storage[b].size()));
        return failure();
      }
      if (arg.access != BufferAccess::In)
        p.written[b] = true;
      params.push_back(b);
    }
    p.params.push_back(std::move(params));
  }
  return p;
}

/// checkResults on what the kernel left in its buffers.
static FailureOr<bool>
checkKernelResults(Job &job, ArrayRef<std::vector<uint8_t>> storage,
                   ArrayRef<std::optional<unsigned>> resultOf) {
  return checkResults(job, [&](unsigned i) {
    auto rt = cast<RankedTensorType>(job.func.getResultTypes()[i]);
    for (auto [b, r] : llvm::enumerate(resultOf))
      if (r == i)
        return readBytes(storage[b].data(), rt);
    return ref::Tensor(SmallVector<int64_t>(rt.getShape()));
  });
}

/// Adds a kernel's timed launches to its program's: launch i of the program
/// is launch i of every kernel, so a program's time is their sum.
static void addKernelTimes(std::vector<float> &program,
                           ArrayRef<float> kernel) {
  if (program.empty())
    program.assign(kernel.begin(), kernel.end());
  else
    for (auto [p, k] : llvm::zip(program, kernel))
      p += k;
}

/// The median of `millis` as accel-run prints it, or "" for none.
static std::string formatTiming(std::vector<float> millis, StringRef device) {
  if (millis.empty())
    return "";
  std::sort(millis.begin(), millis.end());
  return llvm::formatv("  time: {0:f4} ms (median of {1}, {2})\n",
                       millis[millis.size() / 2], millis.size(), device);
}

/// Compiles `module` with accel-amdgpu-pipeline to code objects, then for
/// each job launches its kernel through the HIP module API (libamdhip64,
/// opened at run time) and checks the results. The process exit code.
static int runAmdgpu(std::vector<Job> &jobs, ModuleOp module,
                     MLIRContext &context) {
  AccelAmdgpuPipelineOptions options;
  if (failed(options.parseFromString(amdgpuOptions)))
    return fail("bad --amdgpu-pipeline-options '" + amdgpuOptions + "'");
  // The amdgpu back end compiles (include/accel/Target/Backend.h), in
  // memory; this tool launches.
  BackendOptions backend;
  backend.inputName = inputFile;
  backend.pipelineOptions = amdgpuOptions;
  backend.chip = options.chip;
  backend.chipFlag = "--amdgpu-pipeline-options chip";
  backend.rocmToolkit = rocmToolkit;
  llvm::Expected<GpuKernelSet> compiled =
      compileGpuKernels("amdgpu", module, backend);
  if (!compiled)
    return fail(toString(compiled.takeError()));
  const std::string &chip = compiled->chip;
  std::vector<GpuKernel> &kernels = compiled->kernels;
  llvm::StringMap<std::string> &objects = compiled->images;
  llvm::Expected<std::unique_ptr<HipRuntime>> opened = HipRuntime::open();
  if (!opened)
    return fail("--target=amdgpu needs an AMD GPU with ROCm: " +
                toString(opened.takeError()));
  std::unique_ptr<GpuRuntime> runtime = std::move(*opened);
  llvm::outs() << "accel-run: " << inputFile << " on amdgpu (" << chip
               << "), seed " << seed << ", " << dist << " inputs\n";
  unsigned passed = 0;
  for (Job &job : jobs) {
    // The function's kernels in order, on buffers they share.
    FailureOr<KernelProgram> program = prepareProgram(job, kernels);
    if (failed(program))
      return 1;
    LaunchOptions launch;
    launch.timedLaunches = repeat;
    std::vector<float> millis;
    std::string device;
    for (auto [k, kernel] : llvm::enumerate(program->kernels)) {
      const std::string &image = objects[kernel->module];
      GpuImage object{
          ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(image.data()),
                            image.size()),
          GpuImage::Kind::CodeObject};
      SmallVector<HostBuffer> buffers = program->hostBuffers(k);
      llvm::Expected<GpuLaunchResult> result = runtime->launchKernel(
          kernel->metadata, object, buffers, {}, launch);
      if (!result)
        return fail("running @" + job.name + ": " +
                    toString(result.takeError()));
      addKernelTimes(millis, result->launchMillis);
      device = result->deviceName;
    }
    llvm::outs() << "@" << job.name << "\n";
    FailureOr<bool> ok =
        checkKernelResults(job, program->storage, program->resultOf);
    if (failed(ok))
      return 1;
    llvm::outs() << formatTiming(millis, device) << "  "
                 << (*ok ? "PASS" : "FAIL") << "\n";
    passed += *ok;
  }
  llvm::outs() << "accel-run: " << passed << " of " << jobs.size()
               << " functions passed\n";
  return passed == jobs.size() ? 0 : 1;
}

/// Compiles `module` with accel-nvptx-pipeline, then for each job launches
/// its kernel through the CUDA driver (libcuda, opened at run time), or
/// (--record) writes the kernel and its buffers for a launch elsewhere, or
/// (--replay) reads the results such a launch wrote; checks the results
/// (not when recording). The process exit code.
static int runNvptx(std::vector<Job> &jobs, ModuleOp module,
                    MLIRContext &context) {
  AccelNvptxPipelineOptions options;
  if (failed(options.parseFromString(nvptxOptions)))
    return fail("bad --nvptx-pipeline-options '" + nvptxOptions + "'");
  if (!recordDir.empty() && !replayDir.empty())
    return fail("--record and --replay exclude each other");
  // The nvptx back end compiles (include/accel/Target/Backend.h), in
  // memory; this tool launches, records or replays.
  BackendOptions backend;
  backend.inputName = inputFile;
  backend.pipelineOptions = nvptxOptions;
  backend.chip = options.chip;
  backend.chipFlag = "--nvptx-pipeline-options chip";
  // The wgmma kernels of 8-bit float inputs sum each K slice (tile[2]
  // elements) in Hopper's fp8 tensor cores, which keep about 14 bits
  // (ref::kHopperFp8TensorCoreUnit), and promote it into f32: their
  // references get the gate of that (docs/numerics.md). Read from the
  // kernels before they become PTX.
  llvm::StringMap<TensorCoreSums> tensorCoreOf;
  auto readTensorCoreSums = [&](ModuleOp module) {
    module.walk([&](gpu::GPUFuncOp kernel) {
      auto launch = kernel->getAttrOfType<DictionaryAttr>("accel.launch");
      auto mma = launch ? launch.getAs<StringAttr>("mma") : StringAttr();
      auto tile = launch ? launch.getAs<DenseI64ArrayAttr>("tile")
                         : DenseI64ArrayAttr();
      if (!mma || mma.getValue() != "wgmma" || !tile || tile.size() != 3 ||
          kernel.getArgumentTypes().empty())
        return;
      auto a = dyn_cast<MemRefType>(kernel.getArgumentTypes().front());
      if (!a || !isa<Float8E4M3FNType, Float8E5M2Type>(a.getElementType()))
        return;
      StringRef function = kernel->getParentOfType<gpu::GPUModuleOp>()
                               .getSymName()
                               .rsplit("_kernels")
                               .first;
      tensorCoreOf[function] =
          TensorCoreSums{tile[2], ref::kHopperFp8TensorCoreUnit};
    });
  };
  llvm::Expected<GpuKernelSet> compiled =
      compileGpuKernels("nvptx", module, backend, readTensorCoreSums);
  if (!compiled)
    return fail(toString(compiled.takeError()));
  const std::string &chip = compiled->chip;
  std::vector<GpuKernel> &kernels = compiled->kernels;
  for (Job &job : jobs) {
    auto it = tensorCoreOf.find(job.name);
    if (it == tensorCoreOf.end() || !recordDir.empty())
      continue;
    SmallVector<ref::Tensor> inputs;
    for (Arg &arg : job.args)
      inputs.push_back(arg.value);
    FailureOr<SmallVector<ref::Result>> expected =
        evaluate(job.func, inputs, it->second);
    if (failed(expected))
      return 1;
    job.expected = std::move(*expected);
    job.tensorCore = it->second;
    job.programGates.reset();
  }
  llvm::StringMap<std::string> &ptx = compiled->images;
  std::unique_ptr<GpuRuntime> driver;
  StringRef how = "launched";
  // The folder --record created (the topmost of it and its parents that did
  // not exist), removed again when a later step fails, so that a failed run
  // leaves no half-written record behind. A folder that existed is kept.
  std::string createdRecordDir;
  llvm::scope_exit removeFailedRecord([&] {
    if (!createdRecordDir.empty())
      (void)llvm::sys::fs::remove_directories(createdRecordDir);
  });
  if (!recordDir.empty()) {
    how = "recorded";
    std::string missing;
    llvm::sys::fs::file_status st;
    // Up while status fails (the path does not exist). Links are not
    // followed: a dangling symlink exists, makes create_directories fail
    // below and is never removed.
    for (StringRef p = recordDir;
         !p.empty() && llvm::sys::fs::status(p, st, /*follow=*/false);
         p = llvm::sys::path::parent_path(p))
      missing = p.str();
    if (std::error_code ec = llvm::sys::fs::create_directories(recordDir))
      return fail("cannot create '" + recordDir + "': " + ec.message());
    createdRecordDir = missing;
  } else if (!replayDir.empty()) {
    how = "replayed";
  } else {
    llvm::Expected<std::unique_ptr<CudaDriver>> opened = CudaDriver::open();
    if (!opened)
      return fail("--target=nvptx needs an NVIDIA GPU (or --record): " +
                  toString(opened.takeError()));
    driver = std::move(*opened);
  }
  llvm::outs() << "accel-run: " << inputFile << " on nvptx (" << chip
               << " PTX, " << how << "), seed " << seed << ", " << dist
               << " inputs\n";
  llvm::json::Array manifestFunctions;
  unsigned passed = 0;
  for (Job &job : jobs) {
    // The function's kernels in order, on buffers they share.
    FailureOr<KernelProgram> program = prepareProgram(job, kernels);
    if (failed(program))
      return 1;
    KernelProgram &p = *program;
    // All of a function's kernels are in its gpu.module: one PTX image.
    std::string image;
    if (!p.kernels.empty())
      image = ptx[p.kernels.front()->module];
    for (const GpuKernel *k : p.kernels)
      if (k->module != p.kernels.front()->module)
        return fail("@" + job.name + " has kernels in two modules");
    // Record and replay share the file names. One kernel: <job>.json,
    // <job>.ptx and <job>.b<N>.bin (buffer N as launched),
    // <job>.b<N>.result.bin (buffer N after the launch, for those the
    // kernel writes). Several (a program): <job>.k<i>.json per kernel in
    // launch order, one <job>.ptx, and the buffers by name,
    // <job>.<name>.bin and <job>.<name>.result.bin.
    if (!isPlainFileName(job.name + ".json"))
      return fail("@" + job.name + " cannot name files in a record folder");
    const bool single = p.kernels.size() == 1;
    auto metaFile = [&](size_t k) {
      return single ? job.name + ".json"
                    : (job.name + ".k" + Twine(k) + ".json").str();
    };
    auto bufferFile = [&](unsigned n, StringRef suffix) {
      return single ? (job.name + ".b" + Twine(n) + suffix).str()
                    : (job.name + "." + p.names[n] + suffix).str();
    };
    auto recordedMeta = [&](size_t k) {
      KernelMetadata meta = p.kernels[k]->metadata;
      meta.ptx = job.name + ".ptx";
      meta.cubin.clear();
      meta.ptxSha256 = computeSha256Hex(image);
      meta.cubinSha256.clear();
      return meta;
    };
    if (!recordDir.empty()) {
      llvm::json::Array metaFiles;
      for (size_t k = 0; k < p.kernels.size(); ++k) {
        metaFiles.push_back(metaFile(k));
        if (llvm::Error e = writeFileBytes(recordDir + "/" + metaFile(k),
                                           toJson(recordedMeta(k)) + "\n"))
          return fail(toString(std::move(e)));
      }
      if (llvm::Error e =
              writeFileBytes(recordDir + "/" + job.name + ".ptx", image))
        return fail(toString(std::move(e)));
      llvm::json::Array files;
      llvm::json::Object named;
      for (auto [n, bytes] : llvm::enumerate(p.storage)) {
        files.push_back(bufferFile(n, ".bin"));
        named[p.names[n]] = bufferFile(n, ".bin");
        if (llvm::Error e = writeFileBytes(
                recordDir + "/" + bufferFile(n, ".bin"), asChars(bytes)))
          return fail(toString(std::move(e)));
      }
      if (single)
        manifestFunctions.push_back(
            llvm::json::Object{{"name", job.name},
                               {"metadata", metaFile(0)},
                               {"buffers", std::move(files)}});
      else
        manifestFunctions.push_back(
            llvm::json::Object{{"name", job.name},
                               {"kernels", std::move(metaFiles)},
                               {"buffers", std::move(named)}});
      llvm::outs() << "@" << job.name << ": recorded ";
      for (auto [k, kernel] : llvm::enumerate(p.kernels))
        llvm::outs() << (k ? ", " : "") << kernel->metadata.kernel;
      llvm::outs() << " (" << p.storage.size() << " buffers)\n";
      continue;
    }
    std::string timing;
    if (!replayDir.empty()) {
      // The record must be of this compiler, these options and these
      // inputs, or the results would be checked against other references.
      for (size_t k = 0; k < p.kernels.size(); ++k) {
        llvm::Expected<std::vector<uint8_t>> recorded =
            readFileBytes(replayDir + "/" + metaFile(k));
        if (!recorded)
          return fail(toString(recorded.takeError()));
        llvm::Expected<KernelMetadata> recordedMeta =
            parseKernelMetadata(asChars(*recorded));
        if (!recordedMeta)
          return fail(replayDir + "/" + metaFile(k) + ": " +
                      toString(recordedMeta.takeError()));
        // Evidence of this compiler only: the same compiler id (version
        // and git commit), and the very PTX it makes, byte for byte.
        KernelMetadata meta = p.kernels[k]->metadata;
        const std::string where = "@" + job.name + " in '" + replayDir + "'";
        if (recordedMeta->compiler != meta.compiler)
          return fail(where + " was recorded by '" + recordedMeta->compiler +
                      "'; this is '" + meta.compiler +
                      "': record it again with this build");
        if (recordedMeta->ptx.empty() || recordedMeta->ptxSha256.empty())
          return fail(where + " records no PTX with its sha256");
        llvm::Expected<std::vector<uint8_t>> recordedPtx =
            readFileBytes(replayDir + "/" + recordedMeta->ptx);
        if (!recordedPtx)
          return fail(toString(recordedPtx.takeError()));
        if (computeSha256Hex(asChars(*recordedPtx)) !=
            recordedMeta->ptxSha256)
          return fail("'" + replayDir + "/" + recordedMeta->ptx +
                      "' does not match the sha256 of its metadata (the file "
                      "was changed after the recording)");
        const std::string ptxSha256 = computeSha256Hex(image);
        if (recordedMeta->ptxSha256 != ptxSha256)
          return fail(where + " ran PTX with sha256 " +
                      StringRef(recordedMeta->ptxSha256).take_front(12) +
                      "...; this compiler makes " +
                      StringRef(ptxSha256).take_front(12) +
                      "... for it: record it again");
        recordedMeta->ptx.clear();
        recordedMeta->cubin.clear();
        recordedMeta->ptxSha256.clear();
        recordedMeta->cubinSha256.clear();
        meta.ptx.clear();
        meta.cubin.clear();
        meta.ptxSha256.clear();
        meta.cubinSha256.clear();
        if (*recordedMeta != meta)
          return fail("@" + job.name + " in '" + replayDir +
                      "' was recorded from another kernel (another compiler, "
                      "file or --nvptx-pipeline-options)");
      }
      for (auto [n, name] : llvm::enumerate(p.names)) {
        llvm::Expected<std::vector<uint8_t>> in =
            readFileBytes(replayDir + "/" + bufferFile(n, ".bin"));
        if (!in)
          return fail(toString(in.takeError()));
        if (*in != p.storage[n])
          return fail("@" + job.name + " buffer " + Twine(n) + " ('" + name +
                      "') in '" + replayDir +
                      "' holds other inputs than --seed/--dist/--input give");
      }
      for (auto [n, name] : llvm::enumerate(p.names)) {
        if (!p.written[n])
          continue;
        std::string path = replayDir + "/" + bufferFile(n, ".result.bin");
        llvm::Expected<std::vector<uint8_t>> out = readFileBytes(path);
        if (!out)
          return fail(toString(out.takeError()) +
                      " (not launched on a GPU yet?)");
        if (out->size() != p.storage[n].size())
          return fail("'" + path + "' holds " + Twine(out->size()) +
                      " bytes; buffer '" + name + "' has " +
                      Twine(p.storage[n].size()));
        p.storage[n] = std::move(*out);
      }
    } else {
      LaunchOptions launch;
      launch.timedLaunches = repeat;
      // The PTX text with its terminating NUL, which the driver's JIT
      // needs.
      GpuImage ptxImage{
          ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(image.data()),
                            image.size() + 1),
          GpuImage::Kind::Ptx};
      std::vector<float> millis;
      std::string device;
      for (auto [k, kernel] : llvm::enumerate(p.kernels)) {
        SmallVector<HostBuffer> buffers = p.hostBuffers(k);
        llvm::Expected<GpuLaunchResult> result = driver->launchKernel(
            kernel->metadata, ptxImage, buffers, {}, launch);
        if (!result)
          return fail("running @" + job.name + ": " +
                      toString(result.takeError()));
        addKernelTimes(millis, result->launchMillis);
        device = result->deviceName;
      }
      timing = formatTiming(millis, device);
    }
    llvm::outs() << "@" << job.name << "\n";
    FailureOr<bool> ok = checkKernelResults(job, p.storage, p.resultOf);
    if (failed(ok))
      return 1;
    llvm::outs() << timing << "  " << (*ok ? "PASS" : "FAIL") << "\n";
    passed += *ok;
  }
  if (!recordDir.empty()) {
    llvm::json::Object manifest{{"format_version", 1},
                                {"compiler", getAccelCompilerId()},
                                {"source", inputFile},
                                {"nvptx_pipeline_options", nvptxOptions},
                                {"seed", int64_t(seed)},
                                {"dist", dist},
                                {"functions", std::move(manifestFunctions)}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
       << "\n";
    if (llvm::Error e = writeFileBytes(recordDir + "/manifest.json", text))
      return fail(toString(std::move(e)));
    createdRecordDir.clear();
    llvm::outs() << "accel-run: recorded " << jobs.size() << " functions in '"
                 << recordDir << "'\n";
    return 0;
  }
  llvm::outs() << "accel-run: " << passed << " of " << jobs.size()
               << " functions passed\n";
  return passed == jobs.size() ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// The systolic target
//===----------------------------------------------------------------------===//

/// Compiles `module` (the selected functions) with accel-systolic-pipeline,
/// runs each job's program on the simulator with the job's inputs and checks
/// the results; the process exit code.
static int runSystolic(std::vector<Job> &jobs, ModuleOp module,
                       MLIRContext &context) {
  sysarray::SimOptions sim;
  if (simMode == "scalesim")
    sim.mode = sysarray::TimingMode::ScaleSim;
  else if (simMode != "default")
    return fail("--sim-mode must be default or scalesim, got '" + simMode +
                "'");
  AccelSystolicPipelineOptions options;
  if (failed(options.parseFromString(systolicOptions)))
    return fail("bad --systolic-pipeline-options '" + systolicOptions + "'");
  // The systolic back end compiles (include/accel/Target/Backend.h), in
  // memory; this tool simulates.
  BackendOptions backend;
  backend.inputName = inputFile;
  backend.pipelineOptions = systolicOptions;
  llvm::Expected<std::vector<SystolicProgram>> compiled =
      compileSystolicPrograms(module, backend);
  if (!compiled)
    return fail(toString(compiled.takeError()));
  llvm::StringMap<const SystolicProgram *> programOf;
  for (const SystolicProgram &p : *compiled)
    programOf[p.program.name] = &p;

  llvm::outs() << "accel-run: " << inputFile << " on the systolic simulator ("
               << sysarray::timingModeName(sim.mode) << " timing), seed "
               << seed << ", " << dist << " inputs\n";
  unsigned passed = 0;
  for (Job &job : jobs) {
    const SystolicProgram *compiledProgram = programOf.lookup(job.name);
    if (!compiledProgram)
      return fail("accel-systolic-pipeline made no program for @" + job.name);
    const sysarray::Program *program = &compiledProgram->program;
    // Arguments from the job; results prefilled with a pattern no kernel
    // writes by accident (NaN for floats); scratch zeroed.
    std::vector<std::vector<uint8_t>> buffers;
    for (const sysarray::Buffer &buffer : program->buffers) {
      std::vector<uint8_t> bytes(buffer.sizeBytes(), 0);
      if (buffer.role == sysarray::BufferRole::Arg) {
        const Arg &arg = job.args[buffer.position];
        // std::copy_n, not memcpy: an empty buffer's data() may be null,
        // which memcpy must not get even for 0 bytes (UBSan's nonnull check).
        std::copy_n(arg.bytes.begin(), std::min(bytes.size(), arg.bytes.size()),
                    bytes.begin());
      } else if (buffer.role == sysarray::BufferRole::Result) {
        bool isFloat = buffer.type == sysarray::ElemType::F32 ||
                       buffer.type == sysarray::ElemType::BF16;
        std::fill(bytes.begin(), bytes.end(), isFloat ? 0xFF : 0xA5);
      }
      buffers.push_back(std::move(bytes));
    }
    llvm::Expected<sysarray::SimStats> stats =
        sysarray::simulate(*program, buffers, sim);
    if (!stats)
      return fail("simulating @" + job.name + ": " +
                  toString(stats.takeError()));
    llvm::outs() << "@" << job.name << "\n";
    FailureOr<bool> ok = checkResults(job, [&](unsigned i) {
      auto rt = cast<RankedTensorType>(job.func.getResultTypes()[i]);
      for (auto [b, buffer] : llvm::enumerate(program->buffers))
        if (buffer.role == sysarray::BufferRole::Result && buffer.position == i)
          return readBytes(buffers[b].data(), rt);
      return ref::Tensor(SmallVector<int64_t>(rt.getShape()));
    });
    if (failed(ok))
      return 1;
    llvm::outs() << "  " << sysarray::formatStats(*program, *stats, sim.mode)
                 << "\n";
    if (std::optional<int64_t> predicted = compiledProgram->predictedCycles;
        predicted && sim.mode == sysarray::TimingMode::Default)
      llvm::outs() << llvm::formatv(
          "  schedule model: {0} cycles predicted, {1:f3} of the simulated\n",
          *predicted,
          stats->cycles ? double(*predicted) / double(stats->cycles) : 0.0);
    llvm::outs() << "  " << (*ok ? "PASS" : "FAIL") << "\n";
    passed += *ok;
  }
  llvm::outs() << "accel-run: " << passed << " of " << jobs.size()
               << " functions passed\n";
  return passed == jobs.size() ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Sharded modules: one MPI process per grid element
//===----------------------------------------------------------------------===//

/// The shape of the module's shard.grid (the first, if several: accel-shard
/// refuses those), and its name; none without a grid.
static std::optional<SmallVector<int64_t>> moduleGrid(ModuleOp module,
                                                      std::string &name) {
  for (auto grid : module.getOps<shard::GridOp>()) {
    name = grid.getSymName().str();
    return llvm::to_vector(grid.getShape());
  }
  return std::nullopt;
}

namespace {
/// Where one process's part of a tensor lies in the whole.
struct ShardBlock {
  SmallVector<int64_t> offsets, sizes;
};
} // namespace

/// The part of a `shape` tensor, split as `axes` (accel-shard's split axes: per
/// dimension the grid axes it is split over, the first axis major), that
/// process `rank` of `grid` (row-major over the grid's axes) holds.
static ShardBlock blockOf(ArrayRef<int64_t> shape, ArrayAttr axes,
                     ArrayRef<int64_t> grid, int rank) {
  SmallVector<int64_t> index(grid.size());
  for (int64_t a = int64_t(grid.size()) - 1, r = rank; a >= 0; --a) {
    index[a] = r % grid[a];
    r /= grid[a];
  }
  ShardBlock b;
  b.sizes.assign(shape.begin(), shape.end());
  b.offsets.assign(shape.size(), 0);
  if (!axes)
    return b;
  for (auto [d, attr] : llvm::enumerate(axes)) {
    int64_t part = 0, parts = 1;
    for (int64_t a : cast<DenseI64ArrayAttr>(attr).asArrayRef()) {
      part = part * grid[a] + index[a];
      parts *= grid[a];
    }
    b.sizes[d] = shape[d] / parts;
    b.offsets[d] = part * b.sizes[d];
  }
  return b;
}

/// Entry `i` of a function's accel.arg_split_axes or
/// accel.result_split_axes (accel-shard), or null.
static ArrayAttr splitAxesOf(func::FuncOp func, StringRef name, unsigned i) {
  auto all = func->getAttrOfType<ArrayAttr>(name);
  if (!all || i >= all.size())
    return nullptr;
  return dyn_cast<ArrayAttr>(all[i]);
}

/// Calls `f(fullIndex, blockIndex, n)` for each run of `n` contiguous
/// elements (a row of the last dimension) of block `b` of `shape`.
static void forEachRow(ArrayRef<int64_t> shape, const ShardBlock &b,
                       llvm::function_ref<void(int64_t, int64_t, int64_t)> f) {
  int64_t rank = shape.size();
  if (rank == 0)
    return f(0, 0, 1);
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= b.sizes[d];
  int64_t n = b.sizes[rank - 1];
  if (n == 0)
    return;
  for (int64_t row = 0; row < rows; ++row) {
    int64_t rem = row, stride = shape[rank - 1];
    int64_t fullPos = b.offsets[rank - 1];
    for (int64_t d = rank - 2; d >= 0; --d) {
      fullPos += (rem % b.sizes[d] + b.offsets[d]) * stride;
      rem /= b.sizes[d];
      stride *= shape[d];
    }
    f(fullPos, row * n, n);
  }
}

static ref::Tensor extractBlock(const ref::Tensor &whole, const ShardBlock &b) {
  ref::Tensor part(b.sizes);
  forEachRow(whole.shape, b, [&](int64_t from, int64_t to, int64_t n) {
    std::copy_n(whole.data.begin() + from, n, part.data.begin() + to);
  });
  return part;
}

static void insertBlock(ref::Tensor &whole, const ref::Tensor &part,
                        const ShardBlock &b) {
  forEachRow(whole.shape, b, [&](int64_t to, int64_t from, int64_t n) {
    std::copy_n(part.data.begin() + from, n, whole.data.begin() + to);
  });
}

/// Starts `--ranks` copies of this command under the MPI launcher and
/// waits; 1 when a rank fails, dies or the run times out.
static int launchRanks(int argc, char **argv) {
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(mpiexec);
  if (!program)
    return fail("cannot find the MPI launcher '" + mpiexec +
                "' (--mpiexec); scripts/setup.sh installs mpich");
  std::string self =
      llvm::sys::fs::getMainExecutable(argv[0], (void *)&launchRanks);
  SmallVector<std::string> args = {*program, "-n", std::to_string(ranks),
                                   self};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  SmallVector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (!StringRef(*e).starts_with("MPIEXEC_TIMEOUT="))
      env.push_back(*e);
  env.push_back("MPIEXEC_TIMEOUT=" + std::to_string(rankTimeout));
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  SmallVector<StringRef> envRefs(env.begin(), env.end());
  llvm::outs().flush();
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, argRefs, envRefs, {}, 0, 0,
                                     &message);
  if (rc < 0)
    return fail("the MPI launcher '" + *program + "' failed: " + message);
  if (rc != 0)
    return fail(Twine(ranks) + " ranks: a rank failed, died or ran past "
                "--rank-timeout=" + Twine(rankTimeout) +
                " s (launcher exit code " + Twine(rc) + ")");
  return 0;
}

/// The native bytes of `t` as `elementType` (index as i64).
static std::vector<uint8_t> encodeTensor(const ref::Tensor &t,
                                         Type elementType) {
  Type storage = elementType.isIndex()
                     ? Type(IntegerType::get(elementType.getContext(), 64))
                     : elementType;
  size_t width = ref::storageBytes(storage);
  std::vector<uint8_t> bytes(std::max<size_t>(1, t.data.size()) * width);
  for (auto [n, v] : llvm::enumerate(t.data))
    ref::encodeElement(v, storage, bytes.data() + n * width);
  return bytes;
}

/// This process's part of a --ranks run (docs/distributed.md): partitions
/// the selected functions (accel-shard), runs each on this rank's block of
/// the generated inputs, checks its block of every result against the
/// oracle's, and gathers the results on rank 0, which checks the whole.
/// Every rank agrees on the exit code.
static int runSharded(std::vector<Job> &jobs, ModuleOp selected,
                      const AccelCpuPipelineOptions &options,
                      ArrayRef<int64_t> grid, StringRef gridName) {
  namespace mpi = accel_run::mpi;
  int64_t processes = 1;
  for (int64_t g : grid)
    processes *= g;
  if (llvm::Error e = mpi::initialize())
    return fail(toString(std::move(e)));
  int rank = mpi::rank();
  // One write per message: the ranks share the launcher's stderr, and
  // separate writes of prefix and text would interleave.
  auto rankFail = [&](const Twine &message) {
    std::string line =
        ("accel-run: error: rank " + Twine(rank) + ": " + message + "\n")
            .str();
    llvm::errs() << line;
    llvm::errs().flush();
    return 1;
  };
  if (mpi::size() != processes) {
    mpi::finalize();
    return rankFail("the module's grid @" + gridName + " has " +
                    Twine(processes) + " processes but MPI started " +
                    Twine(mpi::size()) + "; run with --ranks=" +
                    Twine(processes));
  }
  // Errors below are this rank's alone: it leaves without MPI_Finalize and
  // the launcher stops the others.
  PassManager pm(selected.getContext());
  pm.addPass(createAccelShardPass());
  if (failed(pm.run(selected)))
    return rankFail("cannot partition '" + inputFile + "' over grid @" +
                    gridName);
  auto engine = compileForHost(selected, options);
  if (!engine)
    return rankFail("cannot compile '" + inputFile +
                    "' for the host: " + toString(engine.takeError()));
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto &entry : mpi::interposedSymbols())
      symbols[interner(entry.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(entry.getValue()),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });

  bool lead = rank == 0;
  if (lead)
    llvm::outs() << "accel-run: " << inputFile << " on cpu, " << processes
                 << " ranks (grid @" << gridName << "), " << options.threads
                 << (options.threads == 1 ? " thread" : " threads")
                 << " each, seed " << seed << ", " << dist << " inputs\n";
  unsigned passed = 0;
  for (Job &job : jobs) {
    auto local = selected.lookupSymbol<func::FuncOp>(job.name);
    if (!local)
      return rankFail("@" + job.name + " vanished in partitioning");
    PackedCall call;
    std::deque<std::vector<uint8_t>> storage;
    for (auto [i, arg] : llvm::enumerate(job.args)) {
      if (!isa<RankedTensorType>(arg.type)) {
        call.addScalar(arg.bytes.data());
        continue;
      }
      ShardBlock b = blockOf(arg.shape,
                        splitAxesOf(local, "accel.arg_split_axes", i),
                        grid, rank);
      auto localType = dyn_cast<RankedTensorType>(local.getArgumentTypes()[i]);
      if (!localType || localType.getShape() != ArrayRef<int64_t>(b.sizes))
        return rankFail("argument #" + Twine(i) + " of @" + job.name +
                        ": the partitioned function takes " +
                        typeStr(local.getArgumentTypes()[i]) +
                        ", not this rank's block");
      storage.push_back(encodeTensor(extractBlock(arg.value, b),
                                     arg.elementType));
      call.addMemref(storage.back().data(), b.sizes);
    }
    SmallVector<int64_t> resultRanks;
    for (Type t : local.getResultTypes())
      resultRanks.push_back(cast<RankedTensorType>(t).getRank());
    call.addResults(resultRanks);

    mpi::traffic() = {};
    if (testAbortRank == rank)
      std::abort();
    if (llvm::Error err = call.invoke(**engine, job.name))
      return rankFail("running @" + job.name +
                      " failed: " + toString(std::move(err)));
    mpi::Traffic perCall = mpi::traffic();

    // This rank's blocks against the oracle's, then the whole on rank 0.
    bool partsPassed = true;
    SmallVector<ref::Tensor> wholes;
    for (auto [i, type] : llvm::enumerate(job.func.getResultTypes())) {
      auto wholeType = cast<RankedTensorType>(type);
      auto localType = cast<RankedTensorType>(local.getResultTypes()[i]);
      ref::Tensor mine = readDescriptor(call.result(i), localType);
      const ref::Result &expected = job.expected[i];
      ShardBlock b = blockOf(
          wholeType.getShape(),
          splitAxesOf(local, "accel.result_split_axes", i), grid,
          rank);
      if (mine.shape != b.sizes)
        return rankFail("result #" + Twine(i) + " of @" + job.name +
                        " is " + typeStr(localType) +
                        ", not this rank's block");
      ref::Result part{
          extractBlock(expected.value, b),
          extractBlock(uncheckedWhereUnbounded(expected.bound), b)};
      partsPassed &= ref::compare(mine, part).passed();
      std::vector<double> all;
      if (llvm::Error e = mpi::gather(mine.data, all))
        return rankFail(toString(std::move(e)));
      ref::Tensor whole(wholeType.getShape(),
                        std::numeric_limits<double>::quiet_NaN());
      if (lead)
        for (int r = 0; r < processes; ++r) {
          ShardBlock rb = blockOf(
              wholeType.getShape(),
              splitAxesOf(local, "accel.result_split_axes", i),
              grid, r);
          ref::Tensor theirs(rb.sizes);
          std::copy_n(all.begin() + size_t(r) * mine.data.size(),
                      mine.data.size(), theirs.data.begin());
          insertBlock(whole, theirs, rb);
        }
      wholes.push_back(std::move(whole));
    }
    bool wholePassed = true;
    if (lead) {
      llvm::outs() << "@" << job.name << "\n";
      FailureOr<bool> checked =
          checkResults(job, [&](unsigned i) { return wholes[i]; });
      if (failed(checked))
        return 1;
      wholePassed = *checked;
    }
    llvm::Expected<double> partsFailed = mpi::allSum(partsPassed ? 0 : 1);
    llvm::Expected<int> allPassed = mpi::allMin(partsPassed && wholePassed);
    if (!partsFailed || !allPassed)
      return rankFail(toString(llvm::joinErrors(
          partsFailed.takeError(), allPassed.takeError())));
    if (lead) {
      llvm::outs() << llvm::formatv(
          "  ranks: {0} of {1} local parts within the gate\n",
          processes - int64_t(*partsFailed), processes);
      llvm::outs() << llvm::formatv(
          "  communication (rank 0, one call): {0} bytes all-reduced in {1} "
          "MPI_Allreduce, {2} bytes sent, {3} received, {4} "
          "communicator splits\n",
          perCall.allreduceBytes, perCall.allreduceCalls, perCall.sendBytes,
          perCall.recvBytes, perCall.commSplits);
    }
    if (repeat > 0) {
      std::vector<double> times;
      for (unsigned r = 0; r < repeat; ++r) {
        // Every rank starts together; a call ends with its collectives.
        if (llvm::Error e = mpi::barrier())
          return rankFail(toString(std::move(e)));
        auto start = std::chrono::steady_clock::now();
        if (llvm::Error err = call.invoke(**engine, job.name))
          return rankFail("running @" + job.name +
                          " failed: " + toString(std::move(err)));
        times.push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
      }
      std::sort(times.begin(), times.end());
      if (lead)
        llvm::outs() << llvm::formatv(
            "  time: {0:f3} ms (median of {1}, rank 0)\n"
            "  communicator splits over {2} calls (rank 0): {3}\n",
            times[times.size() / 2], times.size(), times.size() + 1,
            mpi::traffic().commSplits);
      // The last call ran on communicators the first one made (cached
      // splits): its blocks are checked again, unless a matmul accumulates
      // into an argument the calls changed.
      bool accumulates = false;
      job.func.walk([&](MatmulOp mm) { accumulates |= mm.getAccumulate(); });
      if (!accumulates) {
        bool lastPassed = true;
        for (auto [i, type] : llvm::enumerate(job.func.getResultTypes())) {
          auto wholeType = cast<RankedTensorType>(type);
          auto localType = cast<RankedTensorType>(local.getResultTypes()[i]);
          ShardBlock b = blockOf(
              wholeType.getShape(),
              splitAxesOf(local, "accel.result_split_axes", i), grid, rank);
          ref::Result part{
              extractBlock(job.expected[i].value, b),
              extractBlock(uncheckedWhereUnbounded(job.expected[i].bound), b)};
          lastPassed &=
              ref::compare(readDescriptor(call.result(i), localType), part)
                  .passed();
        }
        llvm::Expected<int> allLast = mpi::allMin(lastPassed);
        if (!allLast)
          return rankFail(toString(allLast.takeError()));
        if (lead)
          llvm::outs() << "  call " << times.size() + 1 << ": "
                       << (*allLast ? "every part within the gate"
                                    : "a part out of the gate")
                       << "\n";
        *allPassed = *allPassed && *allLast;
      }
    }
    if (lead)
      llvm::outs() << "  " << (*allPassed ? "PASS" : "FAIL") << "\n";
    passed += *allPassed;
  }
  if (lead)
    llvm::outs() << "accel-run: " << passed << " of " << jobs.size()
                 << " functions passed on " << processes << " ranks\n";
  llvm::outs().flush();
  mpi::finalize();
  return passed == jobs.size() ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCat);
  // --version prints the compiler id (version and git commit), which
  // records, metadata and results carry.
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << getAccelCompilerId() << "\n"; });
  cl::ParseCommandLineOptions(
      argc, argv,
      "accel-run: JIT-run accel functions and check them against the fp64 "
      "oracle\n");
  if (target != "cpu" && target != "systolic" && target != "nvptx" &&
      target != "amdgpu")
    return fail("--target=" + target +
                " cannot run here (cpu, systolic and, with an NVIDIA or AMD "
                "GPU, nvptx and amdgpu execute)");
  if ((!recordDir.empty() || !replayDir.empty()) && target != "nvptx")
    return fail("--record and --replay go with --target=nvptx");
  if (dist != "uniform" && dist != "normal" && dist != "exact")
    return fail("--dist must be uniform, normal or exact, got '" + dist + "'");
  if (threads < 1)
    return fail("--num-threads must be at least 1");
  if (!rooflineFile.empty()) {
    if (target != "cpu")
      return fail("--roofline goes with --target=cpu");
    if (!StringRef(rooflineFile).ends_with(".svg"))
      return fail("--roofline writes an SVG file (FILE.svg), got '" +
                  rooflineFile + "'");
    if (repeat == 0)
      return fail("--roofline needs timed runs (--repeat of at least 1)");
  }

  DialectRegistry registry;
  registerAllAccelDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &message);
  if (!file)
    return fail(message);
  // Input that would crash MLIR or exhaust the memory of the JIT or of the
  // run is refused with a located error (ToolInput.h).
  ToolInputOptions inputOptions;
  inputOptions.allowBytecode = allowBytecode;
  inputOptions.sizeLimits =
      TensorSizeLimits{uint64_t(maxConstantBytes), uint64_t(maxTensorBytes)};
  OwningOpRef<ModuleOp> module = loadToolInput(
      std::move(file), sourceMgr, context, llvm::errs(), inputOptions);
  if (!module)
    return 1;

  // A sharded module runs as one MPI process per grid element: --ranks
  // starts them (each runs this same command under the launcher).
  std::string gridName;
  std::optional<SmallVector<int64_t>> grid = moduleGrid(*module, gridName);
  if (ranks > 0 && !grid)
    return fail("--ranks runs a sharded module; '" + inputFile +
                "' has no shard.grid");
  if (grid) {
    int64_t processes = 1;
    for (int64_t g : *grid)
      processes = g > 0 ? processes * g : 0;
    if (target != "cpu")
      return fail("a sharded module runs on --target=cpu (one MPI process "
                  "per grid element on this machine); for " +
                  target +
                  ", accel-compile makes a host library whose all-reduces "
                  "call NCCL (docs/distributed.md, \"NCCL and RCCL\")");
    if (processes < 1)
      return fail("grid @" + gridName + " needs static, positive sizes");
    if (!precisionReport.empty())
      return fail("--precision-report does not run sharded modules");
    if (!accel_run::mpi::launchedByMpi()) {
      if (ranks == 0)
        return fail("'" + inputFile + "' is sharded over grid @" + gridName +
                    " (" + Twine(processes) +
                    " processes): run it with --ranks=" + Twine(processes));
      if (int64_t(ranks) != processes)
        return fail("grid @" + gridName + " has " + Twine(processes) +
                    " processes; --ranks=" + Twine(ranks) + " does not match");
      return launchRanks(argc, argv);
    }
  }

  // allow-tf32 in the GPU pipeline's options: the program run is the one
  // accel-lower-precision{compute=tf32} makes (the pipeline runs it too),
  // so that the oracle reads the inputs' rounding to TF32 as the kernels
  // compute it, and holds them to the f32 gates.
  if (target == "nvptx" || target == "amdgpu") {
    bool tf32 = false;
    if (target == "nvptx") {
      AccelNvptxPipelineOptions o;
      tf32 = succeeded(o.parseFromString(nvptxOptions)) && o.allowTf32;
    } else {
      AccelAmdgpuPipelineOptions o;
      tf32 = succeeded(o.parseFromString(amdgpuOptions)) && o.allowTf32;
    }
    if (tf32) {
      mlir::accel::registerAllAccelPasses();
      PassManager pm(&context);
      if (failed(parsePassPipeline("accel-raise,accel-fuse-attention,"
                                   "accel-lower-precision{compute=tf32}",
                                   pm)) ||
          failed(pm.run(*module)))
        return fail("allow-tf32: accel-lower-precision failed on '" +
                    inputFile + "'");
    }
  }

  // The functions to run: those named by --entry, else every public one.
  std::vector<Job> jobs; // not moved once prepared: calls point into them
  if (!entry.empty()) {
    SmallVector<StringRef> names;
    StringRef(entry).split(names, ',', -1, /*KeepEmpty=*/false);
    for (StringRef n : names) {
      auto f = module->lookupSymbol<func::FuncOp>(n);
      if (!f || f.isExternal())
        return fail("no function @" + n + " with a body in '" + inputFile +
                    "'");
      jobs.push_back(Job{f, n.str(), {}, {}, {}});
    }
  } else {
    for (auto f : module->getOps<func::FuncOp>())
      if (!f.isExternal() && f.isPublic())
        jobs.push_back(Job{f, f.getSymName().str(), {}, {}, {}});
  }
  if (jobs.empty())
    return fail("'" + inputFile + "' has no public function to run");
  if (!npyInputs.empty() && jobs.size() != 1)
    return fail("--input files need exactly one function; choose it with "
                "--entry");
  // The CPU pipeline's options, before the oracle runs: they decide
  // whether bf16 subnormals may be flushed.
  AccelCpuPipelineOptions options;
  if (failed(options.parseFromString(cpuOptions)))
    return fail("bad --cpu-pipeline-options '" + cpuOptions + "'");
  options.threads = threads;
  kernelsFlushBf16Subnormals =
      target == "cpu" && hostKernelsFlushBf16Subnormals(options);
  if (target == "cpu")
    cpuPipelineOptions = &options;
  // --roofline: the CPU's catalogue entry (the module's CPU accel.target,
  // else the host's by its features) and each function's point.
  TargetAttr rooflineTarget;
  if (!rooflineFile.empty()) {
    auto declared = (*module)->getAttrOfType<TargetAttr>(kTargetAttrName);
    if (declared && declared.getKind() == TargetKind::CPU)
      rooflineTarget = declared;
    else
      rooflineTarget = getTargetAttr(
          &context, *cpuTargetForFeatures(hostCompileFeatures(options)));
    for (Job &job : jobs)
      job.roofline = getFunctionRoofline(job.func, rooflineTarget);
    if (llvm::none_of(jobs, [](const Job &j) { return j.roofline; }))
      return fail("--roofline: no function of '" + inputFile +
                  "' has an accel op with static shapes that the cost "
                  "model prices on " +
                  rooflineTarget.getName().str());
    if (!options.tuningCache.empty())
      if (failed(priceCalibrated(*module, jobs, options)))
        return 1;
  }
  for (Job &job : jobs)
    if (failed(prepare(job, /*useNpy=*/!npyInputs.empty(), context)))
      return 1;

  // Lower the module once and JIT it.
  // Compile the selected functions (and the private ones they may call),
  // not what else the file holds.
  OwningOpRef<ModuleOp> selected = module->clone();
  for (auto f : llvm::make_early_inc_range(selected->getOps<func::FuncOp>()))
    if (f.isPublic() && llvm::none_of(jobs, [&](const Job &j) {
          return j.name == f.getSymName();
        }))
      f.erase();
  // The precision report lowers what the user's functions are, before any
  // --pre-passes.
  OwningOpRef<ModuleOp> unlowered = selected->clone();
  if (!prePasses.empty()) {
    mlir::accel::registerAllAccelPasses();
    PassManager pm(&context);
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(parsePassPipeline(prePasses, pm, errorStream)))
      return fail("bad --pre-passes '" + prePasses + "': " + errors);
    if (failed(pm.run(*selected)))
      return fail("--pre-passes '" + prePasses + "' failed on '" + inputFile +
                  "'");
  }
  if (grid)
    return runSharded(jobs, *selected, options, *grid, gridName);
  if (target != "cpu") {
    if (!precisionReport.empty())
      return fail("--precision-report runs on the cpu target only");
    return target == "systolic" ? runSystolic(jobs, *selected, context)
           : target == "nvptx"  ? runNvptx(jobs, *selected, context)
                                : runAmdgpu(jobs, *selected, context);
  }
  auto engine = compileForHost(*selected, options);
  if (!engine)
    return fail("cannot compile '" + inputFile +
                "' for the host: " + toString(engine.takeError()));

  // The inputs as generated, for the precision report (runs write the
  // outputs in place, and accumulating ones read them).
  std::vector<std::vector<std::vector<uint8_t>>> pristine;
  for (Job &job : jobs) {
    pristine.emplace_back();
    for (Arg &arg : job.args)
      pristine.back().push_back(arg.bytes);
  }

  llvm::outs() << "accel-run: " << inputFile << " on cpu (" << threads
               << (threads == 1 ? " thread" : " threads") << "), seed " << seed
               << ", " << dist << " inputs"
               << (npyInputs.empty() ? "" : " (or from .npy)") << "\n";
  unsigned passed = 0;
  for (Job &job : jobs) {
    FailureOr<bool> ok = runAndCheck(job, **engine);
    if (failed(ok))
      return 1;
    passed += *ok;
  }
  llvm::outs() << "accel-run: " << passed << " of " << jobs.size()
               << " functions passed\n";
  if (rooflineTarget) {
    SmallVector<RooflinePoint> points;
    for (Job &job : jobs)
      if (job.roofline)
        points.push_back(*job.roofline);
    std::string note =
        llvm::formatv("accel-run {0}: {1} {2}, median of {3} "
                      "runs; {4}",
                      llvm::sys::path::filename(inputFile), threads,
                      threads == 1 ? "thread" : "threads", unsigned(repeat),
                      getAccelCompilerId())
            .str();
    if (llvm::Error err =
            llvm::writeToOutput(rooflineFile, [&](raw_ostream &os) {
              writeRooflineSvg(os, getCatalogueRoofs(rooflineTarget, threads),
                               points, note);
              return llvm::Error::success();
            }))
      return fail("cannot write --roofline '" + rooflineFile +
                  "': " + toString(std::move(err)));
    llvm::outs() << "accel-run: roofline of " << points.size()
                 << (points.size() == 1 ? " function" : " functions") << " on "
                 << rooflineTarget.getName() << " written to " << rooflineFile
                 << "\n";
  }
  bool precisionsPassed = true;
  if (!precisionReport.empty()) {
    mlir::accel::registerAllAccelPasses();
    FailureOr<bool> ok = reportPrecisions(*unlowered, jobs, pristine, options);
    if (failed(ok))
      return 1;
    precisionsPassed = *ok;
    llvm::outs() << "accel-run: precision report "
                 << (precisionsPassed ? "passed" : "failed") << "\n";
  }
  return passed == jobs.size() && precisionsPassed ? 0 : 1;
}
