//===- Passes.td - accel conversion passes -----------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_PASSES_TD
#define ACCEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertAccelToLinalgPass : Pass<"convert-accel-to-linalg"> {
  let summary = "Lower accel ops to a straightforward linalg reference";
  let description = [{
    Rewrites `accel.matmul`, `accel.softmax` and `accel.attention` into
    `linalg.generic`/`linalg.fill` on tensors, following the ops' semantics
    literally. This is the correctness baseline every target is compared
    with, not a fast path:

    - matmul: one contraction generic over `[batch..., M, N, K]` computing in
      the type of C (products of the inputs extended to it); without
      `accumulate` C is first filled with zeros. With scales, the exact dot
      product (i32 for i8, f32 for f8) is formed first, then
      `C' = (accumulate ? C : 0) + sa * sb * dot` in f32.
    - softmax: row maximum, sum of `exp(x - max)`, quotient, all in f32; a row
      of `-inf` gives zeros.
    - attention: `S = Q·Kᵀ` (query head h reads KV head h floordiv (Hq/Hkv)),
      scale, additive or i1 mask, causal band `j <= i + diagonal`, row max,
      `P = exp(S - max)`, `O = P·V / sum(P)`, all in f32; a row with every key
      removed gives zeros. GQA needs static head counts.

    `linalg.softmax` on tensors that `accel-raise` did not raise (element
    types accel.softmax lacks, such as f64) is decomposed too, by upstream's
    decomposition in its own element type (a row of all `-inf` gives NaN
    there), since nothing after this pass lowers it; on buffers it is an
    error.
  }];
  let options = [
    Option<"indexFailureCallee", "index-failure-callee", "std::string",
           "\"\"",
           "A function `() -> ()` that must not return, called when an "
           "accel.paged_attention's block table or lengths are invalid "
           "(empty: the sequence gets NaN outputs)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AccelDecomposeSoftmaxPass : Pass<"accel-decompose-softmax"> {
  let summary = "accel.softmax as the reference lowering's reductions "
                "(for the GPU row kernels)";
  let description = [{
    Rewrites each `accel.softmax` into the generics of
    `convert-accel-to-linalg`'s softmax and nothing else: the row maximum
    (`arith.maximumf`, from -inf), the sum of `exp(x - m)` (with m = 0 where
    the row is all -inf) and the quotient (0 where the sum is 0), in f32,
    the result in the op's element type. The other accel ops stay. The GPU
    pipelines run it before the configuration stage, so that
    `convert-accel-to-gpu` computes a softmax as one row kernel with the
    generics around it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AccelDecomposeAttentionPass : Pass<"accel-decompose-attention"> {
  let summary = "FlashAttention-2: accel.attention as an online softmax "
                "over key/value tiles";
  let description = [{
    Rewrites each statically shaped `accel.attention` into loops over batch,
    query heads and query tiles of `tile-q` rows; inside, a loop over key /
    value tiles of `tile-kv` keys keeps the running row maximum `m`, the
    running sum `l` and the output accumulator in f32 (FlashAttention-2):

    ```
    S    = Q_t · K_jᵀ                             (accel.matmul, f32)
    S    = -inf where the mask, the causal band, the window or the
           sequence lengths remove a key (indices are global)
    c    = scale · log2(e)
    r    = c · rowmax(S)
    m'   = r where r > m + 8, else m   (per row; -inf: nothing kept yet)
    P    = exp2(fma(S, c, -m'))
    a    = exp2(m - m');       l = a·l + rowsum(P)
    acc  = a·acc (only when some row's m moved) + P · V_j
                                                  (accel.matmul accumulate)
    O_t  = acc / l   (0 where l = 0: a row with no key left)
    ```

    The score matrix never exists beyond one tile. log2(e) is folded into
    the scale so the exponentials are exp2. A positive scale is applied
    where the logits are read (the row max of the raw logits is scaled;
    exp2 takes one fma), not in a pass of its own; a negative one, or an
    explicit mask, takes a pass over the tile. The running max lags the
    true one by at most 2^8 (FlashAttention-4's conditional rescale): P,
    l and acc then stay under 2^8 times their usual size, far from f32's
    range, acc / l is unchanged, and after the first key tiles most tiles
    move no row's max and skip the rescale of the accumulator, which is
    done in place when it happens. Key tiles no row of the query
    tile keeps are never visited: the key loop stops at the last key the
    tile's last query sees (causal band, `kv_lengths`) and starts at the
    first key of the first query's window (`window`); a query tile at or
    past `q_lengths` visits none. Partially kept tiles are masked by
    index. The lengths are read once per (batch, head). K is transposed
    once per K/V head, tile by tile ([B, Hkv, Skv / tile-kv, D, tile-kv]
    for the whole key tiles, [B, Hkv, D, Skv mod tile-kv] for the rest), so
    each key tile's Kᵀ is one contiguous block the contraction kernel reads
    without packing it; the query heads of a GQA group read that shared
    copy and V in place. A running max of -inf (nothing kept yet) subtracts
    0, so fully masked rows give 0, not NaN.

    P stays f32 and a narrower V tile is widened for P · V, except under a
    `cpu-flash-amx` config (bf16 attention on AMX tiles, chosen by
    accel-cpu-configure): P is rounded to V's type (bf16) instead, as
    FlashAttention does on GPUs, so both tile products are bf16 x bf16 ->
    f32 contractions for accel-cpu-amx-kernels; the fp64 oracle's gate then
    allows the rounding of P (u_bf16 · max|v|). The pass that computes P
    writes it rounded (its row sums add the unrounded values), and its
    exp2 may err by 2^-17 (a shorter polynomial, FastExp2.cpp).

    An epilogue (with `fuse-epilogues`): when the op's only user is an
    elementwise `linalg.generic` over the output's [B, H, Sq, Dv] (every
    loop parallel, its output indexed by the identity, the op's result read
    through the identity, its other inputs through maps whose results are
    loops or constants, no `linalg.index`), that generic is applied to each
    output tile as it is written: a cast to bf16, a residual or bias add,
    a scale, an activation, as torch-mlir and IREE emit them, cost no pass
    over O. The tile's slice of each other input is read where the tile
    lies; the generic's output becomes the loops' destination, and the
    generic goes. The op's value enters the body in its own type (a bf16
    result first rounded to bf16, as it would be without the fusion).

    `accel.paged_attention` (decode over a paged KV cache) becomes
    flash-decoding: the `G = Hq / Hkv` query heads of a KV head and the
    `Sq` queries are packed into `G · Sq` rows of one query tile, so each
    key is read once per KV head, not once per query head; the keys of a
    sequence are split into `splits` ranges of whole steps, and an
    `scf.forall` over (batch, group of `heads` KV heads, split) runs the
    online softmax above over its range, a step at a time: `pages` pages
    read where they lie in the pool through the block table (pages past the
    sequence's end are never read), each KV head of the group in turn on
    them (the heads of a token lie together in the pool: a step reads one
    contiguous block a page), the logits as dot products along D of each
    key row, P · V page by page; the pages of the next step are
    prefetched. Each split leaves its
    running max, sum and accumulator; a combine scales them by
    `exp2(m_s - max_s m_s)` and divides. The block table and lengths are
    checked first (the op's "valid run-time data"): an invalid sequence
    reads nothing and gets NaN outputs, and with `index-failure-callee` the
    function calls that function (which must not return; accel-compile's
    libraries return ACCEL_ERR_INDEX) before any kernel runs. `pages`,
    `splits` and `heads` come from a `cpu-paged-flash` accel.lowering_config
    (accel-cpu-configure; tile [pages, splits] or [pages, splits, heads]),
    else the options below. P · V runs on each page where it lies, in
    register tiles of `pv-tile` = [rows, columns] (the config's `mma`): each
    row's columns of the accumulator one f32 vector kept in registers over
    the page's keys up to the length (V widened in registers; the keys past
    the length never read). The tile is fitted to the op: rows a divisor of
    `G · Sq`, columns the greatest power of two dividing Dv; under 8
    columns V is widened into a copy, its rows past the length zeroed, and
    contracted by accel.matmul.
  }];
  let options = [
    Option<"pagesPerStep", "pages", "int64_t", "4",
           "Pages per key tile of accel.paged_attention, for an op without a "
           "cpu-paged-flash accel.lowering_config">,
    Option<"splits", "splits", "int64_t", "1",
           "Ranges the keys of a sequence are split into (flash-decoding), "
           "for an op without a cpu-paged-flash accel.lowering_config">,
    Option<"headsPerTask", "heads", "int64_t", "0",
           "KV heads one task runs over the same pages (0: all of them, "
           "else the greatest common divisor with Hkv), for an op without a "
           "cpu-paged-flash accel.lowering_config">,
    ListOption<"pvTile", "pv-tile", "int64_t",
               "P · V's register tile [rows, columns] of accel.paged_attention "
               "(empty: 4,64), for an op whose cpu-paged-flash "
               "accel.lowering_config has no mma">,
    Option<"indexFailureCallee", "index-failure-callee", "std::string",
           "\"\"",
           "A function `() -> ()` that must not return, called when a paged "
           "attention's block table or lengths are invalid (empty: the "
           "sequence gets NaN outputs)">,
    Option<"tileQ", "tile-q", "int64_t", "64",
           "Query rows per tile, for an op without a cpu-flash or "
           "cpu-flash-amx accel.lowering_config (accel-cpu-configure), whose "
           "tile it uses">,
    Option<"tileKV", "tile-kv", "int64_t", "64",
           "Keys per tile, for an op without a cpu-flash or cpu-flash-amx "
           "accel.lowering_config">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Apply the elementwise linalg.generic that is an accel.attention's "
           "only user to each output tile as it is written">
  ];
  let dependentDialects = ["::mlir::accel::AccelDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

// The machine and the choices of the systolic configuration stage and
// conversion (one list: both passes take the same options).
defvar SystolicOptions = [
    Option<"rows", "rows", "int64_t", "16", "Processing-element rows (R)">,
    Option<"cols", "cols", "int64_t", "16",
           "Processing-element columns (C)">,
    Option<"spadKib", "spad-kib", "int64_t", "256",
           "Scratchpad size in KiB">,
    Option<"accKib", "acc-kib", "int64_t", "64",
           "Accumulator SRAM size in KiB">,
    Option<"spadBanks", "spad-banks", "int64_t", "4",
           "Scratchpad banks">,
    Option<"accBanks", "acc-banks", "int64_t", "2",
           "Accumulator banks">,
    Option<"dramBytesPerCycle", "dram-bytes-per-cycle", "double", "16.0",
           "DMA bandwidth between DRAM and the SRAMs (bytes per cycle)">,
    Option<"dramLatency", "dram-latency", "int64_t", "100",
           "Cycles from a DMA request to its first data">,
    Option<"vectorLanes", "vector-lanes", "int64_t", "16",
           "f32 lanes of the vector unit">,
    Option<"dataflow", "dataflow", "std::string", "\"auto\"",
           "Matmul dataflow: auto, ws, os or is">,
    Option<"tileM", "tile-m", "int64_t", "0",
           "Rows of A per block (0: the cost model's choice)">,
    Option<"tileN", "tile-n", "int64_t", "0",
           "Columns of B per block, a multiple of the array's columns "
           "(0: the cost model's choice)">,
    Option<"tileK", "tile-k", "int64_t", "0",
           "Depth per block, a multiple of the array's rows for ws and is "
           "(os takes any depth) (0: the cost model's choice)">,
    Option<"attentionTileQ", "attention-tile-q", "int64_t", "0",
           "Query rows per attention block (0: as many as fit)">,
    Option<"attentionTileKV", "attention-tile-kv", "int64_t", "0",
           "Keys per attention block, a multiple of min(rows, cols) (0: "
           "as many as fit)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Apply the elementwise kernel that reads a matmul's result to "
           "each block of C while it is in the accumulator (false: a "
           "kernel of its own after the matmul)">,
    Option<"cBuffers", "c-buffers", "int64_t", "0",
           "Buffers of a matmul's C blocks in the accumulator: 2 (the next "
           "block's computes overlap this one's stores), 1 (blocks twice "
           "the rows, the next block waiting for this one's stores) (0: "
           "the cost model's choice)">
  ];

def AccelSystolicConfigurePass
    : Pass<"accel-systolic-configure", "::mlir::ModuleOp"> {
  let summary = "Choose the dataflow and blocks of each matmul and attention "
                "on the systolic array (#accel.lowering_config)";
  let description = [{
    The configuration stage of the systolic target (docs/configure.md).
    Every `accel.matmul` and `accel.attention` that
    `convert-accel-to-systolic` compiles gets an `accel.lowering_config`
    with `kernel = "systolic"`: for a matmul the dataflow (`ws`, `os`,
    `is`) and the block tile `[M, N, K]` the schedule model
    (SystolicSchedule.cpp, docs/systolic.md) predicts fastest on the
    machine the options describe; for attention the blocks `[query rows,
    keys]` that fit the scratchpad and the accumulator. A matmul with an
    empty C or K = 0 needs no schedule and gets none.

    A matmul whose result an elementwise kernel reads is scheduled with
    that kernel's accumulator slots when the model predicts applying it
    to C's blocks (or seeding C with its first add) faster than the matmul
    and the kernel on its own; the conversion repeats that choice from the
    written config. An op that already carries a config keeps it,
    completed and checked against the machine; `dataflow` and the tile
    options override the model for the ops without one. The conversion
    reads the configs and chooses nothing itself. Deterministic.
  }];
  let options = SystolicOptions;
}

def ConvertAccelToSystolicPass
    : Pass<"convert-accel-to-systolic", "::mlir::ModuleOp"> {
  let summary = "Compile accel matmul and attention functions to systolic "
                "array programs";
  let description = [{
    Replaces every public function whose body is `accel.matmul`,
    `accel.attention` and `accel.softmax` ops, elementwise
    `linalg.generic` ops and `linalg.fill` on statically shaped tensors
    (plus `tensor.empty` and constants) with a `systolic.program` of the
    same name. Function
    arguments and results become DRAM buffers (`arg n`, `result n`);
    intermediate tensors become scratch buffers.

    Matmul: tiled to the array and the SRAMs. Blocks of `Mt x Kt` of A and
    `Kt x Nt` of B fill half the scratchpad each step and the next step's
    blocks go to the other half, so the DMA of step i+1 overlaps the
    computes of step i; the `Mt x Nt` output block alternates between two
    halves of the accumulator the same way. Remainders are smaller
    instructions (no padding). Dataflows:

    - `ws` (weight-stationary): `R x C` tiles of B are preloaded, rows of A
      stream through them.
    - `os` (output-stationary): an `R x C` output tile stays in the array
      while A and B stream.
    - `is` (input-stationary): WS on the transposed problem
      `Cᵀ = Bᵀ·Aᵀ` (tiles of A stay, B streams), with transposing DMA.
    - `auto`: the cost model (docs/systolic.md) predicts the cycles of each
      dataflow and its best tiles and picks the fastest.

    Attention (WS, f32 vector unit): per (batch, head) and block of query
    rows, `S = Q·Kᵀ` on the array for a block of keys (Kᵀ loaded by a
    transposing DMA), the online softmax on the vector unit (scale, causal
    mask on diagonal tiles, running max and sum, rescaling of the output),
    `P` rounded into the scratchpad and `O += P·V` on the array; key tiles
    above the causal band are skipped; `O / l` at the end (0 for a row
    with no key). An additive f32 or bf16 mask (a function argument, any
    numpy broadcast) is widened into the accumulator by the DMA, a block
    per score strip (a broadcast query dimension is a 0 stride, a
    broadcast key dimension one column added per row), and added after
    the scale.

    Elementwise ops (a matmul's bias, activation, residual and cast):
    kernels of the vector unit, block by block of rows x the
    accumulator's width: each input moved into an accumulator slot (a
    bias over the columns read as one row and doubled by vector copies, a
    per-row value as one column applied with `bcast row`), the body as
    add/sub/mul/div/max/exp (negation, a ReLU's select and constants
    mapped onto them; a bf16 result rounded by mvout), two sets of slots
    alternating so loads overlap the previous block (docs/systolic.md).
    The kernel that reads a matmul's result is applied to each strip of C
    in the accumulator after its last compute (fused; C is stored only
    when something else reads it), or its first `C + X` becomes C's
    initial value (seeded: X moved into C's rows a block ahead, the first
    preload accumulating onto it), or it runs after the matmul as a
    kernel of its own: the configuration's choice (`fuse-epilogues`).

    Softmax over the last dimension (f32 or bf16): a kernel of the vector
    unit, blocks of whole rows in the accumulator (a row's strips side by
    side): rowmax and rowsum accumulated across the strips, `x - max` with
    a `-inf` max read as 0 and the division with a 0 sum giving 0 (a row of
    `-inf` gives zeros), two sets of rows alternating between blocks.

    Row reductions (a generic reducing its last loop by `addf` or
    `maximumf`, from a constant fill): per block of rows, strip by strip,
    the term's vector program and `rowsum` / `rowmax` into the rows'
    column, the initial value combined at the end; with `math.rsqrt` on the
    unit, RMSNorm, LayerNorm and a written-out softmax run as such kernels
    and elementwise ones. A static `tensor.extract_slice` that keeps the
    rank is a view of its source; a `tensor.concat` along the last
    dimension of elementwise results read only by it is written in place
    by them (RoPE's halves).

    Inputs are i8 (i32 accumulation, exact), bf16 or f32 (f32
    accumulation); one input type per program. Boolean or constant masks,
    sequence lengths, sliding windows, f16/f8 and scaled matmuls are
    reported as errors.

    The dataflow and the blocks of each op come from its
    `accel.lowering_config` (`accel-systolic-configure`, which
    `accel-systolic-pipeline` runs first); an op without one is configured
    by the same stage with this pass's options, so running the conversion
    alone is the configuration stage followed by the conversion.
  }];
  let options = SystolicOptions;
  let dependentDialects = ["::mlir::systolic::SystolicDialect"];
}

def AccelGpuConfigurePass
    : Pass<"accel-gpu-configure", "::mlir::ModuleOp"> {
  let summary = "Choose how each matmul and attention becomes a GPU kernel "
                "(#accel.lowering_config)";
  let description = [{
    The configuration stage of the GPU targets (docs/configure.md). Every
    `accel.matmul` and `accel.attention` of a public function gets an
    `accel.lowering_config` attribute: the kernel strategy (`mma.sync` or
    `wgmma` on NVIDIA, `mfma` or `wmma` on AMD, `fma` for f32 inputs on
    both), the block tile, the warps,
    the matrix instruction and the stages of the copy ring, chosen from the
    chip (`GpuTargetInfo`) and the op's shapes and types.
    `convert-accel-to-gpu` reads the attribute and chooses nothing itself.
    An `accel.dequant_matmul` gets no attribute: its kernel follows from
    the shape and the chip alone (the same function chooses it for both
    passes); it is checked here, with the same located errors.

    An op that already carries a config (written by hand or by a tuner)
    keeps it, completed with what it leaves out and checked against the chip
    by the rules the conversion applies; the options below override the
    model's choice for every op without one. The choice is deterministic: it
    depends on the op, the chip and the options only.

    Errors: an unknown chip, an `mma` the chip does not have, negative
    sizes, and an op whose config does not fit the chip (the same located
    errors `convert-accel-to-gpu` gives).

    Example: `accel-opt --accel-gpu-configure="chip=sm_90a" in.mlir` prints
    the module with the configs, without emitting a kernel.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_80\"",
           "GPU chip: NVIDIA sm_80, sm_86, sm_89, sm_90 or sm_90a; AMD "
           "gfx90a, gfx942 or gfx1100">,
    Option<"mma", "mma", "std::string", "\"\"",
           "Kernel strategy: mma.sync, wgmma, auto (NVIDIA), mfma, wmma (AMD), "
           "fma (f32 inputs, both); empty: the chip's own (auto on NVIDIA)">,
    Option<"tileM", "tile-m", "int64_t", "0",
           "Rows of C per block (0: chosen)">,
    Option<"tileN", "tile-n", "int64_t", "0",
           "Columns of C per block (0: chosen)">,
    Option<"tileK", "tile-k", "int64_t", "0",
           "Depth of a shared-memory slice (0: chosen)">,
    Option<"warps", "warps", "int64_t", "0",
           "Warps per block (0: chosen)">,
    Option<"stages", "stages", "int64_t", "0",
           "Buffers of the copy ring (0: chosen)">
  ];
}

def AccelGpuApproximateMathPass
    : Pass<"accel-gpu-approximate-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Rewrite the math functions of GPU kernels that would need "
                "a device library into arith (exp, tanh, erf, rsqrt)";
  let description = [{
    The GPU lowerings turn math functions into calls of a device library:
    `convert-gpu-to-nvvm` into CUDA's libdevice (`__nv_expf`,
    `__nv_tanhf`, ...), which `gpu-module-to-binary` links only when it
    finds a CUDA toolkit (the `CUDA_HOME` environment variable or the like;
    without one the PTX keeps unresolved calls), and `convert-gpu-to-rocdl`
    into ROCm's OCML, which a code object needs linked from a ROCm
    device-library folder. Epilogues use these functions (GELU with tanh or
    erf, SiLU's exp, norms' rsqrt), and a kernel should not depend on where
    it was compiled. This pass rewrites them inside a `gpu.module`: exp,
    tanh and erf into upstream MLIR's f32 polynomial approximations (the
    ones the CPU pipeline's vector epilogues use, so the targets share their
    error: docs/numerics.md), rsqrt into `1 / sqrt`, f16 and bf16 through
    f32. Of what the polynomials leave, floor would be a library call on
    both vendors: it becomes exact arithmetic (truncate, step down where
    that rose, x itself from 2^23 on, the sign of x kept), and so do ceil,
    round, roundeven and trunc (a quantised output's rounding: the
    magnitude truncated through i32, raised by one where the fraction says,
    the sign kept). absf, sqrt and
    fma the ROCDL conversion makes LLVM intrinsics; the NVVM conversion
    makes them libdevice calls (and takes no LLVM math intrinsics: it marks
    them illegal), so with `nvvm` the pass rewrites them on f32 too: a
    sign-bit mask, the NVVM intrinsic `llvm.nvvm.sqrt.rn.f` (correctly
    rounded) and `llvm.intr.fma`.

    Both GPU pipelines run it before their NVVM / ROCDL conversion. An op
    it cannot rewrite (an f64 one) is an error rather than a library call.

    Example: `accel-opt --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math))" kernels.mlir`.
  }];
  let options = [
    Option<"nvvm", "nvvm", "bool", "false",
           "Also rewrite f32 absf, sqrt and fma for the NVVM conversion "
           "(which would make them libdevice calls)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def ConvertAccelToGPUPass : Pass<"convert-accel-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Compile accel matmul functions to GPU kernels (NVIDIA: "
                "cp.async, ldmatrix, mma.sync, wgmma on sm_90a; AMD: LDS, "
                "MFMA, WMMA)";
  let description = [{
    Every choice (kernel strategy, block tile, warps, stages) comes from the
    op's `accel.lowering_config` (`accel-gpu-configure`, which the GPU
    pipelines run first), checked against the chip; an op without one is
    configured by the same stage with this pass's options, so running the
    conversion alone is the configuration stage followed by the conversion.

    Replaces every public function whose body is `accel.matmul` ops on
    statically shaped tensors (plus `tensor.empty`, constants, `linalg.fill`,
    and
    `tensor.expand_shape` / `collapse_shape`, whose result names the buffer
    of its source, viewed in the reshaped type) with a
    `gpu.module @<func>_kernels` holding one kernel `gpu.func @<func>_<i>`
    per matmul (i counts the function's matmuls; a matmul with an empty C
    gets none). The host function is erased: the ahead-of-time launcher is
    the host, and it reads the launch from the kernel's `accel.launch`
    attribute:

    ```mlir
    accel.launch = {grid = array<i64: gx, gy, gz>, block = array<i64: t, 1, 1>,
                    dynamic_shared_memory = bytes, chip = "sm_80",
                    args = ["arg0", "arg1", "result0"],
                    access = ["in", "in", "out"]}
    ```

    `args` names the host buffer behind each kernel parameter: `argN` the
    function's argument N, `resultN` its result N, `tmpN` an intermediate
    matmul result. Parameters are static memrefs in global memory passed as
    bare pointers (`convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}`):
    A, B, the C that is read (`accumulate` only) and the C written, with the
    batch dimensions collapsed into one. The grid is
    `[ceil(N / tileN), ceil(M / tileM), batch]`; the shared memory is
    dynamic (above 48 KiB the launcher raises the kernel's limit).

    Inputs: A `[batch..., M, K]` and B `[batch..., K, N]` (or `[N, K]` with
    `transpose_b`) of f16 or bf16; C of f32, or of the input type (the f32
    accumulators are rounded in the epilogue). 8-bit inputs, with B as
    `[N, K]` (`transpose_b`) only, since ldmatrix cannot transpose 8-bit
    elements: i8 with an i32 C (i32 accumulators, sums wrap on overflow:
    `nvvm.mma.sync` m16n8k32 s8 `wrapped`, every chip), and f8E4M3FN /
    f8E5M2 in any mix with an f32, f16 or bf16 C (f32 accumulators:
    mma.sync m16n8k32 e4m3/e5m2 as inline PTX, PTX ISA 8.4, sm_89 and
    newer). The 8-bit kernels have the same structure, with 16-byte rows of
    32-bit fragment registers holding 4 elements instead of 2, 32-deep steps
    and tileK a multiple of 32 (chosen: 32 or 64). The kernel of a block:

    - a ring of `stages` shared buffers holds tileK-deep slices of A
      (`[tileM][tileK + 8]`) and B (`[tileK][tileN + 8]`, or
      `[tileN][tileK + 8]` transposed); the 8 padding elements (16 bytes; 16 elements for 8-bit inputs) put the rows
      one ldmatrix reads in different banks. `stages - 1` slices are in
      flight (`nvgpu.device_async_copy` = cp.async, 16 bytes a copy,
      committed as one group per slice) while the warps multiply the
      oldest; one barrier per slice.
    - each warp owns a `(tileM / warpsM) x (tileN / warpsN)` part of C, as
      16x8 fragments of f32 accumulators in registers; per 16-deep step it
      loads A with `ldmatrix` x4 and B with `ldmatrix` x4 (`.trans` for
      row-major B) and issues mma.sync m16n8k16 (`nvgpu.mma.sync` for f16,
      `nvvm.mma.sync` with bf16 operands for bf16).
    - the epilogue converts the accumulators to C's type and stores pairs
      (`vector.store`, or single elements when N is odd).

    Epilogues: when a matmul's result has one user and it is an elementwise
    `linalg.generic` over C (what `accel-fuse-epilogues` makes of bias,
    activation, residual, scale and cast chains, in place or out of place),
    the kernel applies that generic's body to each element of C in
    registers, inside the store's guard, and writes the generic's result
    (of its own element type) instead of C. Its other operands become
    kernel parameters between C's initial value and the written buffer,
    each read at the element's indices through its indexing map (loop
    indices or constants: a bias row, a per-row scale, a residual); splat
    constants and scalar constants the body captures are materialised in
    the kernel. The body may hold scalar arith and math ops and
    `linalg.index`. `accel.launch` then carries `epilogue = <number of
    those parameters>`. A generic that is not elementwise over C, reads C
    twice or through another map, reads a value that is no kernel buffer,
    holds other ops, or shares C with other users is a located error.
    With several batch dimensions (collapsed into the grid's z) the
    epilogue's indices split the batch index again. Epilogues of attention
    are not done yet.

    Elementwise kernels: an elementwise `linalg.generic` that is no
    matmul's epilogue (a residual add, SwiGLU's product, a cast) becomes a
    kernel of its own, `gpu.func @<func>_elementwise<j>`, with the same
    operand and body rules: one thread per element of its static result in
    blocks of 256 threads on a 1-D grid (the last block guarded), the loop
    indices from the thread's linear index, `accel.launch` with
    `kind = "elementwise"`.

    Paged decode attention: an `accel.paged_attention` on static shapes
    becomes flash-decoding on the CUDA cores (PagedAttentionKernel.h):
    `@<func>_paged<j>` (kind "paged"; a block per split of the keys, KV head
    x tile of packed GQA rows and sequence; the sequence's table and length
    checked first, NaN outputs for invalid data; K and V rows read in place
    through the block table) and, with several splits, `<that>_combine`
    (kind "paged_combine") reading the splits' states from a `tmpN`
    workspace buffer. The splits, rows a block and lanes a key are the
    stage's choice (no lowering_config); docs/decode-attention.md.

    Row kernels (the ops around attention: RMSNorm, LayerNorm, softmax):
    a `linalg.generic` that reduces over one loop (its result indexed by
    the other loops in order; the body yields `addf`, `mulf`, `maximumf`,
    `minimumf`, `maxnumf` or `minnumf` of its f32, f16 or bf16
    accumulator, used once) becomes a kernel `@<func>_row<k>` with the
    generics that read its per-row result through the rows' projection,
    the reductions and elementwise generics over the same loops that read
    those, the elementwise generics over the rows alone (a 1-D mean), and
    the elementwise generics whose only readers are members (evaluated
    where they are read, never stored). `accel.softmax` takes this path
    once `accel-decompose-softmax` (which the GPU pipelines run first) has
    made it the linalg lowering's generics (a max, a sum of exp(x - max),
    the quotient; 0 for an all -inf row). One block a row (a 1-D grid over
    the rows): each reduction is a loop of the block's threads over the
    row's columns (strided, so consecutive threads read consecutive
    elements when the reduced loop is the last), a butterfly of xor
    shuffles across each warp, and the warps' values through shared
    memory after one barrier, combined in warp order so every thread holds
    the same row value; the members read outside the group (or returned)
    are stored last, row values by thread 0. Threads: whole warps, 4
    columns a thread before another warp joins, at most 256.
    `accel.launch` says `kind = "row"` and `columns`. A generic joins a
    group only when nothing it reads outside the group is computed from
    the group, so one kernel can compute it; reductions over several
    loops, other combinations and integer accumulators are located errors.

    Weight-only quantised matmuls: an `accel.dequant_matmul` (int4 or int8
    weights with group scales and optional zero points, f32/f16/bf16
    activations) becomes `gpu.func @<func>_dequant<j>` (DequantKernel.h),
    a SIMT kernel for decode-sized M on every chip of both vendors: its
    parameters A `[rows, K]` (batch dimensions and M flattened), W
    `[N, K * bits / 8]` i8, the scales and zero points `[N, K / group]`,
    C `[rows, N]`. A block is 128 threads (two waves of 64 on CDNA) and up
    to 16 rows of A; a warp takes R rows of W (4 for up to 4 rows of A, 2
    for 5-8, 1 for 9-16: at most 16 sums a lane), the grid
    `[ceil(N / (R x warps)), ceil(rows / 16)]`; each lane `chunk`
    consecutive weights per step in one load of up to 16 bytes (the chunk
    divides the group; smaller for a K shorter than the warp's step). Each
    weight is dequantised in registers as the op defines,
    `f32(f32(q - z) * s)`, the integer made f32 by or-ing it into 2^23's
    bits and subtracting 2^23 (full-rate integer and float ops, no
    int-to-float conversion), multiplied into f32 sums by `math.fma`; a
    butterfly of xor shuffles sums the lanes and lane 0 stores. Rows past
    the ends are read clamped and never stored; a last partial K step is
    guarded. `accel.launch` says `kind = "dequant"` and
    `tile = [rows of A, rows of W, chunk]`. The configuration stage
    chooses it from the shape alone: dynamic shapes, a lowering_config on
    the op and a grid past the chip's are located errors. Its elementwise
    consumers are kernels of their own.

    The kernels of a function are ordered by what they read: each after
    the kernels that write its inputs, otherwise in the order of their
    first ops. A function may mix matmuls, attention (its kernels numbered
    after the matmuls'), elementwise and row kernels: a transformer block
    without RoPE is one gpu.module of kernels in launch order. A generic
    that reads several matmuls' results is the epilogue of the last of
    them.

    f32 inputs (with an f32 C) are multiplied exactly by the FMA kernel
    (`fma`, on every chip of both vendors; no matrix instruction: tensor
    cores take f32 only rounded to TF32): each thread owns 8 x 8 of C
    (4 x 4 on 32-wide tiles) in registers, two runs of 4 rows and of 4
    columns half a tile apart; slices of A and B pass through registers
    into two shared buffers, both K-major (`[tileK][tile + 4]`, A and a
    `[N, K]` B transposed on the way in), and per K each thread reads its
    runs of A and B as 16-byte vectors and issues its 64 `math.fma`. Tiles
    32, 64 or 128 (threads follow: 256 on 128 x 128), tileK a multiple of 4
    up to 64 (chosen: 8); stores of 4 columns as one
    vector where N is a multiple of 4. Epilogues apply as for the other
    kernels. `accel.lowering_config` records `kernel = "fma"` and the
    micro tile as `mma = [8, 8, 1]`. f32 attention likewise takes the
    `fma` attention kernel: 64 query rows a block, 4 lanes a query (each a
    quarter of D and Dv), 32 keys a step through one shared buffer, the
    logits reduce-scattered and P all-gathered by xor shuffles. TF32 / xf32
    kernels are not done.

    Remainders: M, N and K need not be multiples of the tile. A copy
    whose row or column lies outside A or B copies 0 source elements (its
    16 bytes of shared memory are zero-filled, so the tail of the last
    K-slice multiplies zeros) and stores outside C are guarded per element
    pair; the checks are only emitted along dimensions with a remainder.
    A copy moves 8 elements when the row length (K of A, and K or N of B)
    is a multiple of 8, else 4 or 2 (4- and 8-byte cp.async); an odd row
    length is an error. All global address arithmetic is 64-bit (`index`).

    Tiles (0: chosen): 128x128x32 with 8 warps when that grid still has a
    block for every multiprocessor of the chip, else 64x64x32 with 4 warps,
    halved towards small problems; 3 stages (2 when K fits one slice). With
    a given tile and no `warps`, the warps follow the tile (each owns at most
    64x64 of C). Given tiles must be multiples of 16, the warps must split
    the tile into parts that are multiples of 16x16, and the buffers must
    fit the chip's shared memory.

    With `mma=wgmma` (or `mma=auto` where it applies) on sm_90a the GEMM
    kernel is the warpgroup-MMA kind instead: each warpgroup of 4 warps
    owns 64 rows of the block tile (tileM = 64, 128, 192 or 256; 4 warps
    per 64 rows) and tileN columns (up to 256) as one `wgmma.mma_async`
    m64nNk16 (k32 for 8-bit inputs) accumulator of tileN / 2 registers a
    thread (`nvvm.wgmma.mma_async`). tileK is 128 bytes of K (64 16-bit or
    128 8-bit elements): the ring's tiles are unpadded 128-byte rows in the
    128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8)), which
    cp.async fills chunk by chunk and wgmma reads through shared-memory
    matrix descriptors (stride offset 1024 bytes between 8-row groups; for
    B as `[K, N]`, read N-major as wgmma's transposed B (16-bit types
    only), the 64-column blocks tileK * 128 bytes apart); the ring is
    aligned to the 1024-byte swizzle atom at run time (1 KiB of slack in
    the launch's shared memory). A as `[M, K]` is K-major, B as `[N, K]`
    (`transpose_b`) too. Per slice: wait for its copies, `fence.proxy.async`
    (the copies are generic-proxy writes, wgmma reads through the async
    proxy), barrier, refill the buffer of slice kt - 2, `wgmma.fence`, the
    slice's wgmmas, commit, and wait until one group is in flight (with 3 or
    more stages; none with 2). The epilogue is the mma.sync one (the
    accumulator fragment of a warp is mma.sync's m16n8 C layout). Default
    tile 128 x 256 when that grid still has a block for every
    multiprocessor, else 128 x 128 (narrower towards small N), as many
    stages as fit up to 4. wgmma needs rows of A and B that 16-byte copies
    fill (K, and N for B as `[K, N]`, multiples of 8 16-bit or 16 8-bit
    elements), tileN a multiple of 16 (64 for B as `[K, N]`), and a block
    within the registers of a multiprocessor; `mma=auto` falls back to
    mma.sync when any of that fails, `mma=wgmma` reports it. The default
    (`mma` empty) is `auto`: these kernels ran on an H200 against the fp64
    oracle (docs/gpu.md).

    AMD chips (gfx90a and gfx942: wave64 and MFMA; gfx1100: wave32 and
    WMMA) get the same block structure from the same planner, with what
    GpuTargetInfo says about them: no asynchronous copies, so each thread
    loads its part of slice kt + 1 from global memory into registers
    (vector loads of up to 16 bytes, zeros outside A and B by a select on a
    clamped address) while the waves multiply slice kt out of one of two
    LDS buffers, then stores it into the other one; one barrier per slice.
    A is stored `[tileM][tileK + pad]` and B always `[tileN][tileK + pad]`
    (B as `[K, N]` is transposed on its way into LDS, element by element),
    so every fragment is one vector load: the lane layout of the chip's
    16x16 instruction (`amdgpu.mfma` 16x16x16 f16/bf16, 16x16x16 i8 on
    gfx90a and 16x16x32 on gfx942, 4 K per lane in 4 lane groups;
    `amdgpu.wmma` 16x16x16 f16/bf16/i8 with all 16 K per lane). The
    epilogue stores element by element (16 lanes write 16 consecutive
    elements of a row). Defaults: 256-thread workgroups (4 waves of 64 or
    8 of 32) on 128x128x32 tiles (64 deep for 8-bit inputs), 64x64 towards
    small grids; 8-bit B may be `[K, N]`; odd row lengths are loaded
    element by element. Errors: fp8 (gfx942's MFMA takes the FNUZ formats,
    which accel.matmul does not accept yet; none before gfx942),
    `mma` naming the other family, tiles beyond 64 KiB of LDS or 192
    accumulator registers a lane, stages other than 2, and accel.attention
    (no AMD attention kernel yet).

    Errors (located): unknown chips, f32 inputs with a tensor-core kernel
    asked for (TF32 kernels are not implemented), f8 before sm_89, 8-bit inputs with B as `[K, N]`, scales,
    dynamic shapes, odd row lengths (8-bit: K not a multiple of 4), tiles
    the warps cannot split or the shared memory cannot hold, grids beyond
    the chip's limits, ops other than matmul.

    A function of `accel.attention` ops (no matmuls) gets one
    FlashAttention-2 forward kernel per attention (AttentionKernel.cpp):
    Q `[B, Hq, Sq, D]`, K/V `[B, Hkv, Skv, D/Dv]` of f16 or bf16, O of
    f32, f16 or bf16, MHA/GQA/MQA, causal (bottom-right or a constant
    `diagonal`) or not, the scale or `1/sqrt(D)`; D and Dv multiples of 16
    up to 128; any Sq and Skv. Grid `[ceil(Sq / 64), Hq, B]`, 4 warps of 16
    query rows; Q copied once to shared memory and held as ldmatrix
    fragments; K and V in blocks of 64 keys through a ring of `stages`
    (default 2) shared buffers; S = Q·Kᵀ and O += P·V with mma.sync
    m16n8k16; the online softmax in registers (row max and sum over the 4
    lanes of a row by xor shuffles, exp2 as `ex2.approx.ftz.f32` on logits
    scaled by scale·log2(e)); P rounded to the input type and re-packed
    from C into A fragments without shared memory; causal key blocks above
    the band skipped, the diagonal ones and keys past Skv masked to -inf;
    O / l at the end (0 for a row that kept no key). A mask (a function
    argument of any shape that broadcasts to [B, Hq, Sq, Skv]) is one more
    parameter between V and O, read per logit from global memory (row and
    key clamped into it, broadcast dimensions at 0): an i1 mask removes the
    keys it is false for, an f32/f16/bf16 one is added to the scaled
    logits. The tile options and `warps` do not apply to it. Errors: masks
    that are not kernel buffers or not statically shaped, sequence lengths,
    windows,
    a non-constant diagonal, dynamic shapes, other input types or head
    dimensions, buffers beyond the chip's shared memory, matmuls in the
    same function.

    Lower the result with (chip and features to taste; f8 kernels need
    `+ptx84`, which `buildGpuToPtxPipeline` uses for sm_89 and newer):

    ```
    builtin.module(gpu.module(convert-nvgpu-to-nvvm, lower-affine,
      convert-scf-to-cf, convert-nvvm-to-llvm, expand-strided-metadata,
      convert-gpu-to-nvvm{index-bitwidth=64 use-bare-ptr-memref-call-conv=1},
      canonicalize, cse, reconcile-unrealized-casts),
      nvvm-attach-target{chip=sm_80 features=+ptx80 O=3},
      gpu-module-to-binary{format=isa})
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_80\"",
           "GPU chip: NVIDIA sm_80, sm_86, sm_89, sm_90 or sm_90a; AMD "
           "gfx90a, gfx942 or gfx1100">,
    Option<"mma", "mma", "std::string", "\"\"",
           "Matrix instruction of the GEMM kernels. NVIDIA: mma.sync (every "
           "chip), wgmma (sm_90a; an error where it does not apply) or auto "
           "(wgmma where the chip, the operands and the tile options allow "
           "it, else mma.sync). AMD: mfma (CDNA: gfx90a, gfx942), wmma "
           "(RDNA3: gfx1100); naming the other family is an error. Empty "
           "(the default): the chip's own family; auto on NVIDIA">,
    Option<"tileM", "tile-m", "int64_t", "0",
           "Rows of C per block, a multiple of 16 (0: chosen)">,
    Option<"tileN", "tile-n", "int64_t", "0",
           "Columns of C per block, a multiple of 16 (0: chosen)">,
    Option<"tileK", "tile-k", "int64_t", "0",
           "Depth of a shared-memory slice, a multiple of 16 (32 for 8-bit "
           "inputs; 0: chosen)">,
    Option<"warps", "warps", "int64_t", "0",
           "Warps per block (0: chosen)">,
    Option<"stages", "stages", "int64_t", "0",
           "Shared-memory buffers of the copy ring, at least 2 (0: chosen)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // ACCEL_CONVERSION_PASSES_TD
