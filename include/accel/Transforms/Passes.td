//===- Passes.td - accel transformation passes -------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_PASSES_TD
#define ACCEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The greedy pattern driver's sweep limit, for the passes that run pattern
// sets greedily: rewrites still changing the IR after that many sweeps fail
// the pass with "pattern rewrites did not converge in the <stage> stage of
// <pass> within N sweeps" at the op, so an oscillating pattern set never
// hangs and never fails silently (docs/bad-input-catalogue.md, row 12).
// (accel-cpu-vectorize-elementwise's exp stage works through a list of ops,
// which the sweep limit does not bound: there it allows max-iterations x 64
// rewrites per exp.)
defvar MaxIterationsOption =
    Option<"maxIterations", "max-iterations", "unsigned", "10",
           "Sweeps of the greedy pattern driver before rewrites that have "
           "not converged fail the pass with an error">;

def AccelAttachTargetPass : Pass<"accel-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach a catalogue target description to the module";
  let description = [{
    Sets the `accel.target` attribute of the module to the `#accel.target`
    of a catalogue entry (docs/targets.md lists them with their sources).
    Later passes (tiling, precision lowering, the roofline report) read
    their figures from it. An existing `accel.target` is replaced.

    ```
    accel-opt --accel-attach-target=name=h100 in.mlir
    ```

    An unknown name is an error that lists the known ones.
  }];
  let options = [
    Option<"targetName", "name", "std::string", "\"x86-64-avx512\"",
           "Catalogue name of the target (h100, mi300x, x86-64-avx512, ...)">
  ];
  let dependentDialects = ["::mlir::accel::AccelDialect"];
}

def AccelRaisePass : Pass<"accel-raise"> {
  let summary = "Raise linalg and tosa matmuls and linalg.softmax to accel ops";
  let description = [{
    What frontends emit enters the compiler as accel ops:

    - `linalg.matmul` and `linalg.batch_matmul` on tensors, in the default
      layout or with B transposed through `indexing_maps` (the form of the
      old `matmul_transpose_b`), become `accel.matmul` (`transpose_b`).
      A B that is a `linalg.transpose` of its last two dimensions (what
      torch-mlir makes of `nn.Linear`: `matmul(x, t(W))`, W `[N, K]`) is
      read through it: the op takes W with `transpose_b` toggled, so every
      target reads the weight in its own layout (the CPU's kernels without
      a copy of it); the transpose stays only for other users.
      linalg accumulates into its init, so the accel op gets `accumulate`,
      unless the init is a `linalg.fill` with zero: then the fill's
      destination becomes the init and the op computes C = A·B.
    - `tosa.matmul` with zero points that are constant zeros becomes
      `accel.matmul` into a `tensor.empty`.
    - `linalg.softmax` on tensors becomes `accel.softmax` over the same
      dimension, so softmax that is not part of a fused attention chain gets
      accel.softmax's lowering. Both subtract the maximum; a row of all
      `-inf` becomes zeros (accel.softmax's rule, which the fp64 oracle and
      `accel-fuse-attention` also apply to linalg.softmax).

    Ops the accel op cannot express are left alone: a transposed A,
    unsigned casts, element types outside its table (a softmax in f64),
    non-zero zero points.
  }];
  let options = [MaxIterationsOption];
  let dependentDialects = ["::mlir::accel::AccelDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AccelRooflinePass : Pass<"accel-roofline", "::mlir::ModuleOp"> {
  let summary = "Report each accel op's place on a target's roofline";
  let description = [{
    For every accel op with static shapes, on the chosen catalogue target:
    FLOPs, the bytes it must move at least (each operand read once, each
    result written once: the traffic of an ideal fused kernel), arithmetic
    intensity, whether it is compute- or memory-bound (intensity against the
    target's ridge point, peak / bandwidth), and the predicted time
    max(FLOPs / peak, bytes / bandwidth). The peak is the target's for the
    op's input precision; attention counts only the (query, key) pairs the
    causal band keeps.

    Each op gets a remark; `report=FILE` (`-` for stdout) also writes the
    table, and `svg=FILE` a log-log roofline plot with the ops on it (the
    roof drawn is the first op's precision). Each remark has a note with
    the tiles `accel-tile` would choose on the target and why (the cost
    model of docs/tiling.md: footprints against capacities, threads,
    registers); the table lists them in its last column.

    With `tuning-cache` (a CPU target; docs/configure.md, "Calibrated time
    model"), an op that carries a `lowering_config` (run
    `accel-cpu-configure` first) whose kernel has a calibration on the
    target and `threads` also gets the calibrated time: flops / rate +
    softmax elements x their cost + a call's fixed cost, the rates fitted
    to the tuner's measurements, bounded below by the bytes at the
    bandwidth of `threads` cores. The table gains a column for it.

    ```
    accel-opt --accel-roofline=target=h100 model.mlir -o /dev/null
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", "\"\"",
           "Catalogue target (default: the module's accel.target, else "
           "x86-64-avx512)">,
    Option<"reportFile", "report", "std::string", "\"\"",
           "Write the table to this file ('-': stdout)">,
    Option<"svgFile", "svg", "std::string", "\"\"",
           "Write a roofline plot (SVG) to this file">,
    Option<"tuningCache", "tuning-cache", "std::string", "\"\"",
           "A tuning cache with calibrated time models (accel-bench "
           "--mode=tune): ops configured for a kernel it has a calibration "
           "of (this CPU, `threads`) also get the calibrated time">,
    Option<"threads", "threads", "int64_t", "1",
           "The threads the calibrated time is for (the calibration "
           "measured on as many)">
  ];
}

def AccelTilePass : Pass<"accel-tile", "::mlir::ModuleOp"> {
  let summary = "Tile accel ops in two levels with sizes from the target's "
                "cost model";
  let description = [{
    Tiles every `accel.matmul`, `accel.attention` and `accel.softmax` on
    tensors through `TilingInterface` (upstream `scf::tileUsingSCF`) in two
    levels. The outer level's parallel loops form an `scf.forall` (one task
    or thread block per tile; `forall=0` gives `scf.for`), its reduction
    loop (matmul K) an `scf.for` inside; the inner level is `scf.for`
    loops. Tiles of K accumulate into C (a matmul that overwrites C first
    gets a `linalg.fill` of zeros), so the reduction is exact;
    remainders are the last, smaller tiles (`affine.min` sizes), and a tile
    at least as large as its dimension keeps the dimension whole. Batch
    dimensions are tiled by 1.

    Sizes come from the target (`target=`, else the module's
    `accel.target`, else `x86-64-avx512`) by the cost model of
    docs/tiling.md, chosen from the inside out; each level takes, among the
    tiles that fit, the one with the most FLOPs per byte of working set:

    | target kind | outer level | inner level |
    |---|---|---|
    | `cpu` | `l2`: A + B + C tiles in 1/2 of L2 | `l1`: A + B + C in 1/2 of L1D, M and N multiples of the register tile (mr rows x nr lanes: the most multiply-adds per load the vector registers hold, 6 x 64 for f32 on AVX-512) |
    | `nvptx`, `amdgpu` | `block`: `stages` x (A + B) in shared memory per block, at most 256 threads | `warp` (`warpgroup` with wgmma/tcgen05): multiples of the MMA shape, C accumulators at most 128 registers per thread |
    | `systolic` | `sram`: A + B in 1/2 of the scratchpad, C in 1/2 of the accumulator | `array`: one pass of the array (rows x cols x rows) |

    Attention is tiled over query heads (divisors of the GQA group) and
    query rows; its working set counts Q, a key/value block and the f32
    logits and output, and the key/value block chosen is reported for
    `accel-decompose-attention`'s `tile-kv`. Softmax is tiled over rows,
    the softmax dimension whole.

    Sizes given as options replace the model's, per op kind and level, in
    the op's terms: `matmul-outer=M,N,K`, `attention-outer=H,Sq,Skv`,
    `softmax-outer=ROWS` (and `-inner`); a 0 keeps a dimension whole. Given
    tiles that exceed a hard limit (shared memory, scratchpad or
    accumulator SRAM, registers or threads per block) are errors that give
    the numbers; a cache they overflow is a warning. `model` targets have
    no rules: they need the sizes of every level.

    ```
    accel-opt --accel-tile=target=h100 in.mlir
    accel-opt --accel-tile="target=x86-64-avx512 matmul-outer=192,256,128 levels=1" in.mlir
    ```

    `accel-roofline` reports the same tiles and why for each op.
  }];
  let options = [
    Option<"targetName", "target", "std::string", "\"\"",
           "Catalogue target (default: the module's accel.target, else "
           "x86-64-avx512)">,
    ListOption<"matmulOuter", "matmul-outer", "int64_t",
               "Outer matmul tile [M, N, K] (0: whole) instead of the "
               "model's">,
    ListOption<"matmulInner", "matmul-inner", "int64_t",
               "Inner matmul tile [M, N, K] (on GPUs the K of a warp tile "
               "is the block's)">,
    ListOption<"attentionOuter", "attention-outer", "int64_t",
               "Outer attention tile [query heads, Sq, Skv block]">,
    ListOption<"attentionInner", "attention-inner", "int64_t",
               "Inner attention tile [query heads, Sq, Skv block]">,
    ListOption<"softmaxOuter", "softmax-outer", "int64_t",
               "Outer softmax tile [rows]">,
    ListOption<"softmaxInner", "softmax-inner", "int64_t",
               "Inner softmax tile [rows]">,
    Option<"levels", "levels", "int64_t", "2",
           "Levels to tile: 1 (outer only) or 2">,
    Option<"stages", "stages", "int64_t", "0",
           "GPU shared-memory pipeline stages (0: 3 with cp.async or TMA, "
           "else 2)">,
    Option<"forall", "forall", "bool", "true",
           "Outer level's parallel loops as scf.forall (else scf.for)">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AccelFuseAttentionPass : Pass<"accel-fuse-attention"> {
  let summary = "Fuse an unfused attention chain of accel or linalg ops into "
                "accel.attention";
  let description = [{
    Rewrites

    ```
    S = matmul (Q, Kᵀ)                         // [B, H, Sq, Skv]
    S = S * c   or   S = S / c                 // optional, c a constant
    S = S + M   or   S = select(M, S, -inf)    // optional mask
    P = softmax over the keys (S)
    O = matmul (P, V)                          // [B, H, Sq, Dv]
    ```

    into `accel.attention` with `scale(c)` (or `1/c`, or 1 without a scale
    step) and the mask, so the score matrix is never materialised. Each
    step may be written as frontends (torch-mlir, IREE) emit it:

    - the products: `accel.matmul`, or what `accel-raise` raises
      (`linalg.matmul`, `linalg.batch_matmul`, B transposed through
      `indexing_maps`), or a `linalg.generic` whose body is
      `out + ext(a) * ext(b)` with the same indexing maps; a linalg product
      must start from a zero `linalg.fill`;
    - Kᵀ: `transpose_b` (or transposed indexing maps), or K through a
      `linalg.transpose` (or a transposing `linalg.generic`) of its last two
      dimensions; the scores may also be the transpose of K·Qᵀ;
    - scale and mask: `arith` ops on tensors, or `linalg.generic` bodies
      (one step each, or both in one body) whose constant is a splat
      operand, a scalar operand or a captured scalar constant, and whose
      mask operand is read through a broadcast `tensor.expand_shape` can
      express (loops in order, unit dimensions read at 0);
    - the softmax: `accel.softmax` or `linalg.softmax` over the last
      dimension.

    The scores may have rank 2 (`[S, S]`), 3 (`[B·H, S, S]`, what
    `linalg.batch_matmul` gives) or 4. The products may also run on
    batch-collapsed operands: a `tensor.expand_shape` of Q·Kᵀ and a
    `tensor.collapse_shape` of P that merge only batch dimensions (the
    torch-mlir lowering of a 4-D `matmul`). The fused op works in 4-D:
    Q, K, V, the output and the mask get leading unit dimensions (and the
    scores' batch dimensions) through `tensor.expand_shape`, and the result
    is collapsed back to the P·V product's type.

    The pass only fires when the chain means exactly that: every
    intermediate has one user, neither product accumulates (a linalg
    product's init is a zero fill) or is scaled, K is transposed in its last
    two dimensions, the softmax runs over the keys, the scale is a finite
    constant applied before the mask, the generic bodies are exactly the
    steps above, Q, K and V share one float element type, and the shapes
    (and the mask's broadcast) line up. A chain that does not match is left
    as it is (and still runs, unfused). torch-mlir's decomposed softmax
    (max, sub, exp, sum, div generics) is not matched.

    A mask that is a causal band in disguise becomes `causal`: an
    accel.attention (fused here or written so) whose static mask is a dense
    constant or a `linalg.generic` that reads no tensor and computes each
    element from `linalg.index` with scalar arith (torch's triu, JAX's iota
    compare-and-select), at most 2^24 elements, is evaluated; when every
    slice keeps exactly the keys `j <= i + d` (0 added or true) and removes
    the others (-inf, the mask type's lowest finite value, or false), the
    mask is dropped for `causal` with diagonal `d` (an explicit `diagonal`
    when `d` is not `Skv - Sq`), and the kernels skip the blocks above the
    band. A finite "removal" is taken only when every row keeps a key (a
    row it removes wholly would be a uniform softmax, not the band's 0).

    Grouped-query attention's `repeat_kv` is folded: an accel.attention
    whose K and V both repeat each of Hkv heads r times in a row (r > 1, the
    same for both) reads the unrepeated `[B, Hkv, S, D]` K and V, since the
    op maps query head h to key/value head h / (Hq / Hkv) itself; the
    repeated copies are never built. The repeat is matched as frontends
    write it: a copying `linalg.generic` that reads `(b, h floordiv r, s,
    d)`, or `tensor.collapse_shape [[0], [1, 2], [3], [4]]` of a
    `linalg.broadcast` (or copying generic) along a new dimension 2. A
    module with a `shard.grid` keeps the repeat (accel-shard splits K's and
    V's heads as the queries').
  }];
  let options = [MaxIterationsOption];
  let dependentDialects = ["::mlir::accel::AccelDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AccelShardPass : Pass<"accel-shard", "::mlir::ModuleOp"> {
  let summary = "Split annotated functions over a device grid (upstream "
                "sharding propagation and partitioning) and record each "
                "argument's and result's sharding";
  let description = [{
    For a module with one `shard.grid` (mlir/Dialect/Shard), every function
    that holds `shard.shard` annotations is completed by upstream's
    `sharding-propagation` and rewritten into per-process (SPMD) form by
    `shard-partition`: accel.matmul, accel.attention and accel.softmax
    implement the sharding interface (a split K becomes a partial sum and a
    `shard.all_reduce`; docs/distributed.md). The function then takes and
    returns each process's local shard. What each process holds is kept on
    the function, for the runner, the AOT header and the cost model:

    - `accel.grid = array<i64: ...>`: the grid's shape (its product is the
      number of processes);
    - `accel.arg_split_axes` and `accel.result_split_axes`: for each
      argument and result, per dimension, the grid axes it is split over
      (`[array<i64>, array<i64: 0>]`: columns split over axis 0; `[]`:
      replicated).

    Refused with a located error: more than one grid, a grid with a dynamic
    or zero size, a split that does not divide a dimension (local shards
    would differ in size), halo or uneven shardings, and what an op's
    `partition` refuses. A module without a grid is left as it is, and so
    is a function without annotations.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def AccelLowerShardToMpiPass
    : Pass<"accel-lower-shard-to-mpi", "::mlir::ModuleOp"> {
  let summary = "Lower a partitioned module's collectives to the mpi dialect "
                "(upstream convert-shard-to-mpi) for the CPU target";
  let description = [{
    Runs upstream's `convert-shard-to-mpi` on a module that `accel-shard`
    partitioned (a module without `accel.grid` functions is left as it is),
    then:

    - replaces `mpi.comm_split(comm_world, color, key)` with a constant
      `color` by `comm_world`. Upstream splits the world communicator on
      every call of a collective over all grid axes (and never frees it;
      MPICH runs out of communicators after about 2000 calls). Under accel's
      contract (the program runs on exactly as many processes as the grid
      has: accel-run checks it on every rank, docs/distributed.md) such a
      split has every process, ranked as in the world, so it is the world.
      Splits over some of the axes of a multi-axis grid remain.
    - erases the `shard.grid` symbols once nothing refers to them;
    - names the MPI ABI for the LLVM lowering (`dlti.map` with
      `"MPI:Implementation" = "MPICH"`, Debian's libmpich) unless the module
      has a `dlti.map` already.

    The mpi ops' memory effects (what buffer deallocation needs to know)
    are declared by accel's registration (registerMpiMemoryEffects).
  }];
  let dependentDialects = ["::mlir::mpi::MPIDialect",
                           "::mlir::DLTIDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AccelScaleModelPass : Pass<"accel-scale-model", "::mlir::ModuleOp"> {
  let summary = "Predict a sharded module's step time per process from the "
                "catalogue's compute peaks and interconnects";
  let description = [{
    For each function that carries sharding annotations over the module's
    `shard.grid` (docs/distributed.md):

    1. its time on one device: the roofline of its accel ops, whole
       (`accel-roofline`'s max(FLOPs / peak, bytes / bandwidth));
    2. `accel-shard` (propagation and partitioning), then per process:
       - compute: the roofline of its local ops;
       - each collective's payload (the bytes one process hands to it: what
         `accel-run --ranks` counts at the MPI boundary) and its bytes on the
         wire with a ring algorithm (all-reduce 2(p-1)/p x payload,
         all-gather (p-1) x payload, p the processes of its grid axes);
       - communication time: wire bytes / link bandwidth + the ring's steps x
         latency, with the target's scale-up link (NVLink, ICI, Infinity
         Fabric, PCIe, shared memory) when p fits its scale-up domain, else
         its NIC (the catalogue's `linkGBps`, `scaleUpDevices`,
         `scaleOutGBps`, `linkLatencyUs`);
    3. step = compute + communication (no overlap), speedup = one device /
       step.

    A remark per function; `report=FILE` (`-`: stdout) writes one
    tab-separated row per function. A target without interconnect figures
    predicts the bytes but no communication time (a located warning).
  }];
  let options = [
    Option<"targetName", "target", "std::string", "\"\"",
           "Catalogue target (default: the module's accel.target, else "
           "x86-64-avx512)">,
    Option<"reportFile", "report", "std::string", "\"\"",
           "Write the rows to this file ('-': stdout)">
  ];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def AccelCacheMpiCommsPass
    : Pass<"accel-cache-mpi-comms", "::mlir::ModuleOp"> {
  let summary = "Split each communicator once per process, not on every "
                "call (lowered MPICH code)";
  let description = [{
    Upstream's shard-to-MPI lowering splits the world communicator on every
    call of a collective over some axes of a grid (on a 2 x 2 grid, the
    tensor-parallel all-reduce within each row) and never frees it; MPICH
    runs out of communicators after about 2000 calls.
    `accel-lower-shard-to-mpi` turns the splits over every axis into the
    world; this pass, on the LLVM dialect, gives each remaining
    `MPI_Comm_split` call site a module global (MPICH's `MPI_COMM_NULL` at
    first): the first call splits and stores the communicator, later calls
    load it. The color and key of a site are functions of the process's
    rank, so the communicator is the same on every call. A process that
    calls one library from several threads at once must serialize the first
    call (MPI collectives need an order across processes anyway). Only
    MPICH's ABI (an i32 communicator) is rewritten.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AccelCpuConfigurePass
    : Pass<"accel-cpu-configure", "::mlir::ModuleOp"> {
  let summary = "Attach the CPU target's #accel.lowering_config to every "
                "matmul and attention";
  let description = [{
    The configuration stage of the CPU target (docs/configure.md): each
    `accel.matmul` and `accel.attention` gets an `accel.lowering_config`
    chosen from its shapes, element types and the CPU's features
    (include/accel/Transforms/CpuConfig.h; one function per choice):

    | op | kernel | `tile` | `mma` |
    |---|---|---|---|
    | matmul, bf16 x bf16 -> f32 sums, AMX (amx-tile, amx-bf16) | `cpu-amx-bf16` (`accel-cpu-amx-kernels`) | `[Mc, 0, Kc]` | `[mr, nr, 32]` (C block, k per tile multiply) |
    | matmul, i8 x i8 -> i32 sums, AMX (amx-tile, amx-int8) | `cpu-amx-int8` (same) | `[Mc, 0, Kc]` | `[mr, nr, 64]` |
    | matmul, bf16 x bf16 -> f32 sums, AVX512-BF16 | `cpu-avx512bf16` (`accel-cpu-dot-kernels`) | `[Mc, 0, Kc]` (A rows per M block, N whole, K per block) | `[mr, nr, 2]` |
    | matmul, i8 x i8 -> i32 sums, AVX512-VNNI | `cpu-avx512vnni` (same) | `[Mc, 0, Kc]` | `[mr, nr, 4]` |
    | other matmuls | `cpu-fma` (`accel-cpu-vectorize-contractions`) | cache tile `[Mc, Nc, Kc]` | register tile `[mr, nr, kr]` |
    | attention, bf16 Q/K/V, AMX bf16 tiles (and bf16-subnormals=flush) | `cpu-flash-amx` (`accel-decompose-attention`; P rounded to bf16, both products on AMX) | `[query rows, keys per step]` | — |
    | other attention | `cpu-flash` (`accel-decompose-attention`) | `[query rows, keys per step]` | — |
    | paged_attention (decode over a paged KV cache) | `cpu-paged-flash` (`accel-decompose-attention`: flash-decoding) | `[pages per step, splits, KV heads per task]` | P · V's register tile `[rows, columns]` (4 x 64 with AVX-512, else 2 x 32) |

    The dot kernels are chosen only where they apply (static sizes, no
    batch dimension, both operands of the same type, nonempty) and, for
    bf16, with `bf16-subnormals=flush`. Later passes read the attribute
    (convert-accel-to-linalg carries a matmul's onto its contraction) and
    choose nothing for a configured op; the options below apply to ops
    without a config. An op that has a config keeps it, completed (fields
    it leaves out are chosen) and checked: a kernel the op or the CPU
    cannot use, or tiles the kernel cannot take, is a located error.
    Deterministic: no host probing (the pipeline passes the host's features
    when it JIT-compiles).

    With `tuning-cache`, measured choices replace the model's tiles: the
    cache (JSON, include/accel/Transforms/CpuTuning.h) is keyed by the CPU
    kind (the catalogue entry of `features`, else the module's CPU
    accel.target) and the op's shape class (op, element types, each size
    rounded up to a power of two: `matmul f32xf32->f32 m512 n512 k512`). An
    op without a config whose key has an entry, and for which the model
    picks the entry's kernel, gets the entry's tiles as a given config:
    completed and checked as above (tiles the kernel cannot take are an
    error at the op). An entry for another kernel is ignored (the kernel
    stays the model's: a cache from another CPU of the same kind cannot
    pick an instruction this one lacks). A cache that cannot be read or
    parsed is an error.
  }];
  let options = [
    Option<"features", "features", "std::string", "\"\"",
           "CPU features, comma separated (e.g. avx512f,avx512bf16); empty: "
           "the module's accel.target, else none">,
    ListOption<"cacheTile", "cache-tile", "int64_t",
               "cpu-fma cache tile [Mc, Nc, Kc] (empty: chosen)">,
    ListOption<"registerTile", "register-tile", "int64_t",
               "cpu-fma register tile [mr, nr, kr] (empty: chosen)">,
    Option<"attentionTileQ", "attention-tile-q", "int64_t", "0",
           "Query rows per attention tile (0: chosen)">,
    Option<"attentionTileKV", "attention-tile-kv", "int64_t", "0",
           "Keys per attention tile (0: chosen)">,
    Option<"pagedPages", "paged-pages", "int64_t", "0",
           "Pages per step of a paged attention (0: chosen: the pages that "
           "hold attention-tile-kv keys)">,
    Option<"pagedSplits", "paged-splits", "int64_t", "0",
           "Splits of a paged attention's keys (0: chosen: enough tasks for "
           "every thread)">,
    Option<"pagedHeads", "paged-heads", "int64_t", "0",
           "KV heads a paged attention task runs over the same pages (0: "
           "chosen: all)">,
    Option<"bf16Subnormals", "bf16-subnormals", "std::string", "\"flush\"",
           "flush: bf16 matmuls may use vdpbf16ps, which treats subnormal "
           "inputs and results as zero; keep: they use cpu-fma">,
    Option<"tuningCache", "tuning-cache", "std::string", "\"\"",
           "A tuning cache (accel-bench --mode=tune; docs/configure.md): an "
           "op without a config whose CPU kind and shape class it has, and "
           "for which the model picks its kernel, takes its tiles">,
    Option<"threads", "threads", "int64_t", "1",
           "The threads the kernels run on (the CPU pipeline's `threads`): "
           "a tuning cache entry measured on another thread count does not "
           "apply; one that names none applies to all">
  ];
  let dependentDialects = ["::mlir::accel::AccelDialect"];
}

def AccelCpuVectorizeContractionsPass
    : Pass<"accel-cpu-vectorize-contractions", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg contractions on buffers for caches and registers "
                "and vectorize the register tiles";
  let description = [{
    For every linalg contraction on memrefs with one M, one N and one K
    dimension (matmul, batched, transposed, mixed precision), in the
    GotoBLAS loop order:

    1. cache tiles `[Mc, Nc, Kc]`, loops ordered N, K, M, so a Kc x Nc panel
       of B and an Mc x Kc block of A stay in L2 while C streams (with
       `threads` > 1, the M and N cache tiles form an `scf.forall` whose
       iterations own disjoint blocks of C, and K loops inside; or, when B
       is packed (below) and M alone gives each thread 2 blocks, N and K
       stay sequential loops and an `scf.forall` over the M blocks shares
       each packed B block, whose panels the threads copy in an
       `scf.forall` of their own: BLIS's parallel ic loop);
    2. register tiles `[mr, nr, kr]`, loops ordered N, M, K, so the mr x nr
       block of C lives in vector registers across the whole K loop;
    3. the register tile is vectorized (masked where a remainder tile is
       smaller), and the C reads/writes are hoisted out of the K loop.

    `vector.contract` is then lowered to FMAs by the pipeline. Batch
    dimensions are tiled by 1. The sizes are a contraction's cpu-fma
    `accel.lowering_config` (`tile` the cache tile, `mma` the register
    tile: the configuration stage's, accel-cpu-configure, carried by
    convert-accel-to-linalg), else the options, else the stage's choice for
    `features` (include/accel/Transforms/CpuConfig.h):
    `cache-tile=132,1024,1024 register-tile=6,64,1` for AVX-512 f32 (four
    16-lane registers per row and 6 rows make 24 accumulators; 22 such
    rows of A over Kc = 1024 and a Kc x nr panel of B share L2, and C is
    read and written once per 1024 of K), `register-tile=6,16,1` on a CPU
    without AVX-512 (12 of its 16 registers). `nr` must
    be a power of two (it is refused otherwise: an 8 x 48 tile ran 20x slower,
    the x86 back end assembling its <48 x float> rows lane by lane). Every register tile is vectorized: the full ones and the
    static remainder tiles left by peeling as they are, remainder tiles of
    unknown size (a partial cache tile, dynamic shapes) to the register
    tile's vector shape with masks. The C block of each register tile is
    read before its K loop and written after it whenever the loop has no
    other access to C (checked in the loop only; upstream's hoisting also
    refuses buffers with a view-like user anywhere, which lost it to the
    remainder tiles' subviews).

    With `pack-rhs` (the default), each Kc x Nc block of a B whose rows are
    further apart than the configuration stage's threshold for `features`
    (2 KiB with AVX-512, measured on Zen 5 with nr = 64; 256 bytes without,
    measured on Zen 3 with nr = 16) is copied once per block (before the M cache loop;
    with threads, only in the shared form of step 1) into panels of nr
    columns, and the register tiles read B from there:
    their K loop then reads B at a stride of nr elements instead of N (a
    power-of-two N aliased L1/L2 sets, and every k step touched another
    page; with closer rows, B read in place measured as fast). A B that
    a `linalg.transpose` (permutation [1, 0]) made from a 32-bit buffer
    W `[N, K]` with contiguous rows (`accel-cpu-transpose-rhs`'s copy of
    a linear layer's weight; nothing else reading the copy, nothing
    writing W in between) is packed whatever its row stride and M, from W
    itself: per nr columns, 16 rows of W along the block's K at a time,
    each 16 x 16 square loaded row by row, transposed by shuffles and
    stored as 16 panel rows (K rounded up to 16 in the panels, squares
    past N or K masked); when every register tile reads the panels the
    copy and its transpose go (not when C or a fused epilogue's output is
    W's buffer: the copy is made before the product writes it). 4096 x
    4096, M 1-512 (with cpu-row-dot up to 24 rows): `[N, K]` ÷ `[K, N]`
    0.90-1.04 on one thread, 0.93-1.20 on two; 1.14-1.76 with the copy
    (docs/cpu-performance.md). `C = fill; C += A B` with a static
    K > 0: the register tiles of the first K block start from the fill
    value (a per-tile fill, forwarded into registers) and the fill of the
    whole C is dropped, so C is written once and never read back. Operands
    must not alias the output (the C tile lives in registers).

    Epilogues (`fuse-epilogues`, the default): when the next op that
    touches C's buffer is an elementwise `linalg.generic` updating exactly
    C in place (what `accel-fuse-epilogues` makes of a bias, activation or
    residual chain; every loop parallel, identity output map, inputs in
    other buffers indexed by dimensions only, no `linalg.index`), the last
    K cache block is peeled off its loop and each of its register tiles
    applies the generic to its C tile (with the tiles of the generic's
    other inputs) right after its K loop. Vectorized with the C tile's
    shape, the epilogue reads the accumulators the K loop leaves in
    registers and C is stored once; the generic itself goes. Applied to
    every last-K tile or to none. Out of place too: a generic that reads C
    through the identity and writes another buffer (a cast to bf16) is
    applied the same way, each tile writing its block of the output (an
    output allocated after the GEMM moves before it); C's last-block
    stores go when C is an allocation nothing reads after the epilogue.

    Only cheap epilogues are fused by default (arithmetic without division,
    compares, selects, absolute values: bias, ReLU, residual, scales). One
    with math functions or a division (GELU, SiLU) stays a separate
    vectorized pass unless `fuse-expensive-epilogues`: in the register tile
    its polynomial's constants and the other rows' accumulators overflow
    the register file, and it measured 0.88-1.01 of the separate pass. An
    integer division is never fused (masked remainder lanes would divide
    padding).
  }];
  let options = [
    ListOption<"cacheTile", "cache-tile", "int64_t",
               "Cache tile sizes [Mc, Nc, Kc] (0 leaves a dimension whole)">,
    ListOption<"registerTile", "register-tile", "int64_t",
               "Register tile sizes [mr, nr, kr] (vector lanes along N, kr "
               "K steps unrolled per iteration)">,
    Option<"threads", "threads", "int64_t", "1",
           "With more than 1, the M and N cache tiles form an scf.forall "
           "(one task per block of C), with the K tiles a sequential loop "
           "inside; when B is packed and M alone gives each thread 2 "
           "blocks, the N and K loops stay sequential and each B block, its "
           "panels copied by an scf.forall, is shared by an scf.forall over "
           "the M blocks">,
    Option<"features", "features", "std::string", "\"\"",
           "CPU features, comma separated, for the tiles of contractions "
           "without a cpu-fma accel.lowering_config (empty: the module's "
           "accel.target; unknown: the AVX-512 tiles)">,
    Option<"packRhs", "pack-rhs", "bool", "true",
           "Copy each Kc x Nc block of B into [Nc / nr, Kc, nr] panels "
           "before the M cache loop (one thread, matmuls without batch "
           "dimensions, B indexed [k, n] with rows further apart than the "
           "threshold for the features (2 KiB with AVX-512, else 256 B), at "
           "least 4 mr rows of A)">,
    Option<"prefetchC", "prefetch-c", "bool", "true",
           "Before each register tile's K loop, prefetch for writing the C "
           "lines of the next tile down the M loop">,
    Option<"prefetchB", "prefetch-b", "bool", "true",
           "In each register tile's K loop, prefetch B's row a few K steps "
           "ahead when the tile reads more of B than stays in L1 (the "
           "steps and the limit: chooseCpuFmaTiles, from the features' L1D)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Apply the elementwise epilogue after the GEMM (in place, as "
           "accel-fuse-epilogues makes it, or out of place) to each "
           "register tile of the last K block">,
    Option<"fuseExpensiveEpilogues", "fuse-expensive-epilogues", "bool",
           "false",
           "Fuse epilogues with math functions or divisions too (by "
           "default they stay a separate vectorized pass, which measured as "
           "fast or faster)">,
    MaxIterationsOption
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def AccelCpuAmxKernelsPass
    : Pass<"accel-cpu-amx-kernels", "::mlir::func::FuncOp"> {
  let summary = "bf16 and int8 contractions on Intel AMX tiles";
  let description = [{
    Rewrites each 2-D contraction on buffers that `accel-cpu-dot-kernels`
    takes (`C[m, n] += ext(A[m, k]) * ext(B[k, n])`, row-major, unit inner
    strides, static sizes) into AMX tile code through upstream's `amx`
    dialect, when the CPU has AMX:

    | A, B | C | features | instruction | tiles (A, B -> C) |
    |---|---|---|---|---|
    | bf16 | f32 | `amx-tile`, `amx-bf16` | `tdpbf16ps` (`amx.tile_mulf`) | 16x32, 32x16 -> 16x16 |
    | i8 | i32 | `amx-tile`, `amx-int8` | `tdpbssd` (`amx.tile_muli`) | 16x64, 64x16 -> 16x16 |

    - B is packed once per call into 16-column blocks of K groups (pairs of
      bf16, quads of i8: AMX's "VNNI" layout) and A into 16-row tiles of the
      instruction's 32 (bf16) or 64 (i8) k values, zeros past M, N and K:
      every A and B tile is 1 KiB contiguous, rows 64 bytes apart (A read
      in place has its 16 rows K elements apart, in one L1 set when K
      is a multiple of 2048 bytes). An A whose rows are at most 256 bytes
      apart, with whole 16-row tiles and k steps (FlashAttention's P and
      query tile, K <= 128 bf16 or 256 i8), is read in place: its 16 rows
      lie in 16 L1 sets, like a packed tile's;
    - a B that a `linalg.transpose` (permutation [1, 0]) made from a buffer
      stored `[N, K]` just before the GEMM (a linear layer's weight in
      PyTorch's layout, transposed by `accel-cpu-transpose-rhs`; only
      allocations and fills of fresh buffers between them, nothing else
      reading the copy) is packed from that buffer, and the transpose and
      its copy go: a group of a column is one 32-bit word of the weight's
      row, so per 16 columns and 16 groups 16 row loads and a 16 x 16
      transpose of words (Shuffle16x16) give 16 panels, the rest one by
      one. bf16 4096 x 4096 with one row of A: 122 ms with the copy made by
      loops, 6.4 ms this way, 5.5 ms with B stored `[K, N]`
      (bench/results/transpose-b-amx-1t-2026-12-05.txt);
    - a register block of `mr x nr` C values (default 32 x 32: four C tiles,
      two A and two B tiles, AMX's 8 tile registers) stays in tile
      registers across a K block of `kc` values; each A tile is multiplied
      by every B tile of the block and each B tile by every A tile;
    - loops: M blocks of `mc` rows, K blocks, column panels of `nr`, row
      tiles of `mr`; with `threads` (GEMMs of at least 2^26 multiply-adds:
      below, the parallel regions' start and join cost more than a second
      core saves), the packing loops are `scf.forall`s and one `scf.forall`
      of `threads` tasks runs contiguous chunks of column panels, each over
      every M and K block; when the full panels cover N exactly, each task
      packs its own panels of B at its start (no core reads B the other
      packed);
    - B packed once before the loops around the GEMM when it is a slab of
      a buffer nothing in them writes and the GEMM runs more often than
      the buffer has slabs (FlashAttention's key and value tiles: packed
      whole once per call, not per query block);
    - C is written in place when 16 divides M and N, else through a padded
      copy (copied in, unless the GEMM starts from zero, and back);
    - a zero `linalg.fill` of C right before the GEMM becomes the first K
      block's `tile_zero` (C written once); another fill stays and C is
      loaded;
    - with `fuse-epilogues`, the elementwise `linalg.generic` that reads C
      next (accel-fuse-epilogues's form: bias, activation, residual, scale
      in place on C, or a cast to another type into another buffer of C's
      shape) runs on each C block: the last K block's tiles go to a
      `[2, mr, nr]` scratch (per task) instead of C, and along a panel's
      row blocks the previous block's epilogue is applied inside the next
      block's K loop, a row or two per K step (one-row generics on the
      scratch slot and the output, vectorized by
      `accel-cpu-vectorize-elementwise`), with the block's output and
      residual rows prefetched across its K loop; the whole-C generic
      goes. With a padded C it reads the padded copy and writes the result
      in place of the copy back; out of place with C read afterwards, C is
      stored and the epilogue reads each row strip from it.

    The tile configuration (`ldtilecfg`, palette 1, each tile's rows and
    bytes) is inserted by LLVM's X86 back end from the shapes the `amx`
    intrinsics carry. Linux hands out AMX's tile state only after the
    process asks for it (`arch_prctl(ARCH_REQ_XCOMP_PERM,
    XFEATURE_XTILEDATA)`); the JIT runner asks before it runs code compiled
    for `amx-tile`, and an AOT library's CPU check asks before any kernel
    runs (an OS that refuses is reported as a missing feature, never a
    SIGILL).

    Numerics: bf16 products are exact in f32 and summed in f32 (another
    order than the f32 FMA path: within the contract's f32 accumulation
    bound); like `vdpbf16ps`, `tdpbf16ps` treats bf16 subnormal inputs as
    zero and flushes subnormal results (`bf16-subnormals=keep` leaves bf16
    to the f32 path). int8: `tdpbssd` multiplies signed by signed bytes and
    sums in i32, wrapping: bit-exact against the reference.

    A contraction with a CPU `accel.lowering_config` becomes an AMX kernel
    exactly when its config names one (`cpu-amx-bf16`, `cpu-amx-int8`),
    with the config's tiles (`tile = [mc, 0, kc]`, `mma = [mr, nr, 32 | 64]`).
    The others are chosen here: `features` lists the CPU features (empty:
    the module's `accel.target`, else none), and the tile options (0: the
    configuration stage's choice) apply to them. Runs before
    `accel-cpu-dot-kernels`, which takes what is left.
  }];
  let options = [
    Option<"features", "features", "std::string", "\"\"",
           "CPU features, comma separated (e.g. amx-tile,amx-bf16); empty: "
           "the module's accel.target">,
    Option<"mr", "mr", "int64_t", "0",
           "Rows of the register block, a multiple of 16 (0: chosen, "
           "include/accel/Transforms/CpuConfig.h: 32)">,
    Option<"nr", "nr", "int64_t", "0",
           "Columns of the register block, a multiple of 16 (0: chosen: 32); "
           "(mr/16)(nr/16) + mr/16 + nr/16 tiles must fit in 8">,
    Option<"mc", "mc", "int64_t", "0",
           "Rows of A per M block (rounded down to a multiple of mr; 0 or "
           "more than M: one block; 0: chosen: 256)">,
    Option<"kc", "kc", "int64_t", "0",
           "K values per block, a multiple of 32 (bf16) or 64 (i8) (0: "
           "chosen: 2048 bf16, 4096 i8)">,
    Option<"threads", "threads", "int64_t", "1",
           "Above 1: the packing loops and one region over `threads` chunks "
           "of column panels are scf.foralls, for GEMMs of at least 2^26 "
           "multiply-adds not inside another parallel loop">,
    Option<"bf16Subnormals", "bf16-subnormals", "std::string", "\"flush\"",
           "flush: bf16 contractions use tdpbf16ps, which treats subnormal "
           "inputs and results as zero; keep: they are left to the f32 path">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Apply the elementwise epilogue that follows a GEMM (in place, or "
           "a cast out of place) to each C block after its last K block, "
           "instead of as a second pass over C">
  ];
  let dependentDialects = ["::mlir::amx::AMXDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def AccelCpuRowDotKernelsPass
    : Pass<"accel-cpu-row-dot-kernels", "::mlir::func::FuncOp"> {
  let summary = "f32 matmuls with B as [N, K] and few rows of A as dot "
                "products along the rows of the weight";
  let description = [{
    An f32 contraction `C[m, n] += A[m, k] * B[k, n]` on buffers of static
    sizes whose B is an allocation that a `linalg.transpose` fills from a
    buffer W `[N, K]` (what `accel-cpu-transpose-rhs` makes of
    `accel.matmul transpose_b`, a linear layer's weight in PyTorch's layout;
    W not written between them) and whose `accel.lowering_config` is
    `cpu-row-dot` (`mma = [mr, nr, 16]`, from `accel-cpu-configure`: up to
    24 rows of A, `cpuRowDotMaxRows`; from 25 rows cpu-fma with its panels
    packed from W is faster), becomes a register-tiled kernel that
    reads W where it is, each C element a dot product of a row of A and a
    row of W:

    - a tile of `mr` rows of A and `nr` rows of W keeps `mr x nr`
      accumulators of 16 f32; each step of 16 K loads `mr` A vectors and
      `nr` W vectors, `mr x nr` FMAs;
    - a K not a multiple of 16 ends with one masked step (zeros past K);
    - each accumulator is summed across its lanes and added to C, or to the
      value of C's initializing fill, which then goes;
    - the next tile's `nr` W rows are prefetched while a tile reads its own;
    - with a K block (`tile = [0, 0, kc]`; chosen as 256 for the 4 x 4 and
      4 x 6 tiles past one tile of A's rows) and more than one tile of A's
      rows, each block of K is run
      by every tile of rows in turn, each tile's accumulators kept in a
      slot in memory between blocks, so that a block's W and A rows (kc
      values each) are read from L1 by every tile (only the first tile
      prefetches); the slots are summed into C after the last block.

    The transpose and its copy go: W is read once per `mr` rows of A
    (at M = 1, once), instead of transposed per call and read again. Rows of
    A past a whole `mr` and rows of W past a whole `nr` get 1-row tiles. The
    sum order differs from the reference loops (16 lanes, then across
    lanes): within the f32 matmul gate. With `threads`, the tiles of `nr`
    weight rows are shared by that many tasks of an `scf.forall` (not
    inside another parallel loop), each with its own slots. A C that shares
    a buffer with W or A is left alone (W is read in place). Contractions
    with another config are left alone; one without a config takes the
    choice for its rows and `features` (not with `configured-only`). A
    `cpu-row-dot` config the kernel cannot take (mma not `[mr, nr, 16]`,
    tile not `[0, 0, kc]`, more vectors than the registers hold) is a
    located error. A
    `cpu-row-dot` contraction whose B is not such a transpose stays with
    `accel-cpu-vectorize-contractions` (it reads the copy).
  }];
  let options = [
    Option<"threads", "threads", "int64_t", "1",
           "Above 1: the tiles of nr weight rows in an scf.forall">,
    Option<"features", "features", "std::string", "\"\"",
           "CPU features, comma separated, for the tiles of contractions "
           "without an accel.lowering_config (empty: the module's "
           "accel.target; unknown: the AVX-512 tiles)">,
    Option<"configuredOnly", "configured-only", "bool", "false",
           "Only contractions whose accel.lowering_config is cpu-row-dot "
           "(accel-cpu-pipeline sets it when cpu-fma tiles are given as "
           "options)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def AccelCpuTransposeKernelsPass
    : Pass<"accel-cpu-transpose-kernels", "::mlir::func::FuncOp"> {
  let summary = "Transpose the two innermost dimensions of buffers in "
                "16-row blocks in registers";
  let description = [{
    A `linalg.transpose` on buffers whose permutation swaps the two
    innermost dimensions and keeps the others (what
    `accel-cpu-transpose-rhs` makes of a contraction's B as `[N, K]`, a
    linear layer's weight in PyTorch's layout), of 8-, 16- or 32-bit
    elements with contiguous rows, becomes loops over blocks of 64 bytes
    square (16 x 16 f32, 32 x 32 bf16 or f16, 64 x 64 i8): per 16 source
    rows of a block, 16 row loads and one 16 x 16 transpose of 32-bit words
    (lowered to 4 rounds of shuffles, upstream's `Shuffle16x16`); each
    destination row of the block gathered from those by shuffles (none for
    32-bit elements) and stored as one 64-byte line. Blocks go in tiles of
    8 x 8, tiles of destination rows outermost (each destination row
    written left to right, each source line read once); the source lines
    of the block after the next are prefetched (a block's lines are a row
    apart, which the hardware prefetchers do not follow); a destination of
    4 MiB or more (static) is written with non-temporal stores (no read
    for ownership of lines a row apart). Rows and columns past the last
    whole block are copied element by element; the leading dimensions are
    loops. Other transposes are left to the loops of the rest of the
    pipeline, which read the source a row apart per element.

    Measured (bench/results/transpose-b-1t-2026-12-05.txt, one Sapphire
    Rapids core): a bf16 4096 x 4096 transpose 155 -> 16.5 ms; bf16
    linear layers with B as `[N, K]` 3.5-8.2x faster, f32 1.8-7.2x, still
    1.1-2.6x the same GEMM with B as `[K, N]` (the copy per call). The CPU
    pipeline runs it after the kernels, which read most such B from
    `[N, K]` themselves (AMX, dot, cpu-row-dot, and cpu-fma where it
    packs B): what is left is a transpose written by the program, and the
    copies of the kernels that do not (cpu-fma reading B in place: batched
    products, two threads with several M blocks that do not share panels).

    Example: `%t = linalg.transpose ins(%w : memref<4096x4096xbf16>)
    outs(%o : memref<4096x4096xbf16>) permutation = [1, 0]` becomes 128 x
    128 blocks of 32 x 32.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", "1",
           "Above 1 (and outside other parallel loops, without leading "
           "dimensions): the blocks of destination rows in an scf.forall of "
           "`threads` tasks">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def AccelCpuDequantKernelsPass
    : Pass<"accel-cpu-dequant-kernels", "::mlir::func::FuncOp"> {
  let summary = "accel.dequant_matmul as a vectorised kernel that "
                "dequantises int4/int8 weights in registers";
  let description = [{
    Replaces each linalg.generic that convert-accel-to-linalg made of an
    `accel.dequant_matmul` (marked `accel.dequant_matmul`, on buffers with
    unit inner strides, K and the group multiples of 32) whose
    `accel.lowering_config` is `cpu-dequant` (`mma = [mr, nr, 32]`, from
    `accel-cpu-configure`) with a register-tiled kernel in the vector
    dialect:

    - A is converted once to an f32 copy `[M, K]`; for int4 each chunk of 32
      K is stored as its 16 even then its 16 odd elements, the order in
      which the low and high nibbles of 16 packed bytes come out;
    - a tile of `mr` rows of A and `nr` rows of W holds `mr x nr`
      accumulators of 16 f32; each group's `nr` scales (and zero points)
      are broadcast once; each chunk of 32 K loads every weight row's 16
      (int4) or 32 (int8) bytes, unpacks them (`andi`/shifts),
      converts them to f32 and dequantises them by the op's rule,
      `w = f32(f32(q - z) * s)`, then two FMAs per accumulator;
    - each accumulator is summed across its lanes into C (f32) at the end.

    The weights are never dequantised into memory: at M = 1 the kernel
    reads 4 (int4) or 8 (int8) bits a weight plus the scales. Rows of A
    past a whole `mr` and rows of W past a whole `nr` get 1-row tiles. The
    sum order differs from the reference loops (16 lanes, then across
    lanes): within the f32 matmul gate. With `threads`, the tiles of `nr`
    weight rows are tasks of an `scf.forall` (not inside another parallel
    loop). A config of `cpu-loops` or none leaves the generic to the loops.

    `cpu-dequant-amx` (`tile = [rows, 16]`, int4 or int8 weights, bf16 A;
    chosen on CPUs with AMX bf16 tiles and AVX512-BW): when A has at least
    `rows` rows, every zero point is an integer in the weights' own range
    (as GPTQ and AWQ store them), so that each `q - z` is an integer bf16
    holds exactly (at most 255 in magnitude), and every scale is finite and
    at most 2^120 in magnitude (checked once a call), the weights are
    multiplied on AMX tiles with W as the tile product's left operand:

    - A is packed once per call, per block of 16 rows, into AMX's pair
      layout (`[K / 2, 16]` pairs of bf16, zeros past M; a 16 x 16
      transpose of 32-bit pairs per 32 K): the right operand;
    - per chunk of K (4 x 32, a 64-byte line of each weight row, never past
      a group), each of 16 weight rows' bytes become bf16 `q - z` in memory:
      a byte zero-extended to 32 bits and or-ed with itself shifted left by
      12 holds its low nibble (weight k) in its low 16 bits and its high
      nibble (weight k + 1) in bits 16-19, the pair in AMX's order; masked,
      plus `16 - z` (signed: xor 8, plus `8 - z`), it indexes a 32-entry
      table of bf16 `i - 16` in one
      `accel.x86_permute_i16` (vpermw); without zero points the table
      holds the nibbles' values, repeated after 16; int8: 32 bytes
      extended, converted to f32, less z, rounded to bf16 (exactly);
    - the chunk's tdpbf16ps add into a zeroed 16 x 16 f32 tile (weight rows
      by rows of A), stored, and each of its 16 rows, times the row's scale
      for the chunk's group, is added to 16 f32 accumulators: the products
      are exact and the sums f32, so the result stays within the f32
      matmul gate (a scale multiplies a chunk's sum, not each weight:
      another rounding order than `f32(f32(q - z) * s)`, the same gate);
    - a chunk is scaled into the accumulators while the next one is
      unpacked and multiplied (two slots of each buffer), so that the vector
      loads do not wait for the tile store just issued;
    - at the end the accumulators (C transposed) go to C by a gather per
      row of A; the next 16 weight rows are prefetched into L2 while a
      tile works.

    Fewer rows, or a zero point or scale that fails the check, run the `mma` kernel
    instead (the table for int4, converting for int8; an `scf.if` on the
    call's rows and zero points).
  }];
  let options = [
    Option<"threads", "threads", "int64_t", "1",
           "Above 1: the tiles of nr weight rows in an scf.forall">
  ];
  let dependentDialects = [
    "::mlir::amx::AMXDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def AccelCpuDotKernelsPass
    : Pass<"accel-cpu-dot-kernels", "::mlir::func::FuncOp"> {
  let summary = "bf16 and int8 contractions through AVX512-BF16 / VNNI "
                "dot micro-kernels";
  let description = [{
    Rewrites each 2-D contraction on buffers, row-major with unit inner
    strides and static sizes, `C[m, n] += ext(A[m, k]) * ext(B[k, n])`,
    into a micro-kernel of dot instructions, when the CPU has them:

    | A, B | C | feature | instruction | k values per f32/i32 lane |
    |---|---|---|---|---|
    | bf16 | f32 | `avx512bf16` | `vdpbf16ps` (`x86vector.avx512.dot`) | 2 |
    | i8 | i32 | `avx512vnni` | `vpdpbusd` (`accel.x86_dot_u8s8`) | 4 |

    - B is packed once per call into groups of G = 2 or 4 K rows
      interleaved, `Bp[K/G, N16, G]` (N padded to 16 columns and K to a
      whole group, with zeros), so one 512-bit load gives 16 columns x G;
      a B that a `linalg.transpose` made from a buffer stored `[N, K]`
      (a linear layer's weight) is packed from that buffer and the
      transpose goes, as in `accel-cpu-amx-kernels` (a group of a column
      is a 32-bit word of the weight's row: 16 x 16 word transposes);
    - the C tile `mr x nr` (default 6 x 64: 24 zmm accumulators) stays in
      registers over a block of `kc` K values; each k group broadcasts A's
      32-bit group of the row across the lanes and issues one dot per 16
      columns; with `threads`, whole column tiles are tasks of an
      `scf.forall`;
    - M and N remainders are static smaller kernels (the last 16 columns
      masked); a partial last k group reads A's remaining values and zeros.
    - int8: vpdpbusd multiplies unsigned by signed bytes, so A enters as
      `a xor 0x80` (= a + 128), through a copy whose K is padded to whole
      groups (each group then broadcasts straight from memory), and the C
      tiles loaded in the first K block get `-128 x` the column sums of B
      (summed from the packed panels, whichever layout B had);
      the i32 result is bit-exact (wrapping like the reference).

    bf16 products are exact in f32 and summed in f32, as the widened f32
    FMA would (in a different order: within the contract's f32
    accumulation bound), with one difference: `vdpbf16ps` treats bf16
    subnormal inputs as zero and flushes subnormal results, whatever MXCSR
    says (|x| < 2^-126 contributes 0, where the f32 path keeps it). That is
    the default, `bf16-subnormals=flush` (oneDNN's bf16 kernels do the
    same), and the fp64 oracle's gate allows it (docs/numerics.md,
    "Subnormals"); `bf16-subnormals=keep` leaves bf16 contractions to the
    widened f32 path, which keeps subnormals, at about half the speed.

    When a `linalg.fill` of C precedes the GEMM (no other access to C
    between), the first K block's accumulators start from the fill value
    instead of loading C, and the fill is removed: C is written once.

    With `fuse-epilogues`, the elementwise `linalg.generic` that reads C
    next (in place: bias, ReLU, residual, scale; out of place: a cast to
    bf16/f16/int8, an int8 dequantisation) is applied to the accumulators
    of the last K block in registers, before they are stored: one vector
    of a row's 16 columns at a time, its bias or residual loaded (masked
    past N), the result stored to C or the cast output. Only cheap bodies
    (arithmetic without division, compares, selects; the f32 path's rule)
    unless `fuse-expensive-epilogues`; never an integer division. C of an
    out-of-place epilogue is then written only by the earlier K blocks, and
    not at all when it has one (unless something reads it afterwards).

    A contraction with a CPU `accel.lowering_config` (the configuration
    stage's, `accel-cpu-configure`, carried by convert-accel-to-linalg)
    becomes a dot kernel exactly when its config names one
    (`cpu-avx512bf16`, `cpu-avx512vnni`), with the config's tiles
    (`tile = [mc, 0, kc]`, `mma = [mr, nr, G]`). The others are chosen
    here by the same rules: `features` lists the CPU features (empty: the
    module's `accel.target`, else none: they stay as they are), and the
    tile options (0: the stage's choice) apply to them;
    `accel-cpu-pipeline` passes the host's features when it JIT-compiles.
  }];
  let options = [
    Option<"features", "features", "std::string", "\"\"",
           "CPU features, comma separated (e.g. avx512bf16); empty: the "
           "module's accel.target">,
    Option<"mr", "mr", "int64_t", "0",
           "Rows of the register tile (0: chosen, include/accel/Transforms/"
           "CpuConfig.h: 6)">,
    Option<"nr", "nr", "int64_t", "0",
           "Columns of the register tile, a multiple of 16 (0: chosen: 64)">,
    Option<"mc", "mc", "int64_t", "0",
           "Rows of A per M block (rounded down to a multiple of mr; fewer "
           "than mr: all rows; 0: chosen: 132): each block runs over every "
           "column tile and K block before the next, so its [mc, kc] of A "
           "stays in L2 (132 x 2048: 528 KiB of bf16) instead of all of A "
           "streaming past each B panel">,
    Option<"kc", "kc", "int64_t", "0",
           "K values per block, even (0: chosen: 2048): the B panel [kc, nr] "
           "kept in cache (2048: 128 KiB of i8, 256 KiB of bf16 at nr = 64; "
           "each further block reloads C, which cost int8 2048^3 8 % at "
           "kc = 512)">,
    Option<"threads", "threads", "int64_t", "1",
           "Above 1: column tiles in an scf.forall (not inside another "
           "parallel loop)">,
    Option<"prefetchC", "prefetch-c", "bool", "true",
           "Prefetch the next row tile's C lines before each tile's K loop">,
    Option<"bf16Subnormals", "bf16-subnormals", "std::string", "\"flush\"",
           "flush: bf16 contractions use vdpbf16ps, which treats subnormal "
           "inputs and results as zero; keep: they are left to the f32 path">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Apply the cheap elementwise epilogue that follows a GEMM (in "
           "place, or a cast out of place) to the last K block's "
           "accumulators in registers">,
    Option<"fuseExpensiveEpilogues", "fuse-expensive-epilogues", "bool",
           "false",
           "Also epilogues with math functions or float divisions (GELU, "
           "SiLU), which otherwise stay a separate vectorized pass">
  ];
  let dependentDialects = ["::mlir::accel::AccelDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def AccelCpuLowerDotPass : Pass<"accel-cpu-lower-dot"> {
  let summary = "accel.x86_dot_u8s8, accel.x86_permute_f32 and "
                "accel.x86_permute_i16 to their AVX-512 intrinsics";
  let description = [{
    Replaces each `accel.x86_dot_u8s8` (emitted by `accel-cpu-dot-kernels`)
    with `llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"`, each
    `accel.x86_permute_f32` (emitted by `accel-cpu-dequant-kernels`) with
    `llvm.call_intrinsic "llvm.x86.avx512.permvar.sf.512"`, and each
    `accel.x86_permute_i16` with
    `llvm.call_intrinsic "llvm.x86.avx512.permvar.hi.512"`. It runs
    after buffer deallocation, which refuses ops whose memory effects are
    unknown, such as intrinsic calls.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AccelCpuVectorizeElementwisePass
    : Pass<"accel-cpu-vectorize-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Vectorize statically shaped elementwise and row-reduction "
                "linalg ops on buffers";
  let description = [{
    For linalg ops on memrefs that are not contractions, have static loop
    ranges, and are parallel except possibly for their innermost loop: the
    outer loops are tiled by 1 and the innermost by `width` lanes (kept whole
    when it is a reduction of at most `max-row` elements), remainders are
    peeled, and the tiles are vectorized. `math.exp2` on f32 vectors
    becomes 13 x86 instructions (a degree-6 polynomial and an exponent
    assembled by a magic-number add; under 2 ulp, exactly 0 at or below
    -125.5); an exp2 marked `accel.exp2_bounded` (operand at most 128)
    drops the upper clamp, and one marked `accel.exp2_tolerance` (the
    relative error its users allow) takes a degree-4 polynomial (2.7e-6)
    when that is within it: FlashAttention's softmax, whose P is rounded
    to bf16 next, runs 10. Other `math.exp2` are expanded to `math.exp`, and `math.exp` on
    vectors becomes upstream's polynomial, so softmax rows run as vector
    code instead of scalar libm calls. Float sum and product reductions made
    here get `fastmath<reassoc>`, so LLVM adds a row's vectors and reduces
    the lanes as a tree instead of one dependent scalar add per element
    (every numerics gate on a sum bounds any summation order).

    With `threads` > 1, an op of at least `min-parallel-elements` elements
    that no parallel loop encloses first has its rows (every loop but the
    innermost) tiled by 1 into an `scf.forall`, which becomes an OpenMP
    loop (or the library's parallel-for); each row is then tiled and
    vectorized as above. An AMX GEMM's padded C copied back, a norm or an
    activation over a whole activation tensor then use every thread.
  }];
  let options = [
    Option<"width", "width", "int64_t", "16",
           "Vector lanes along the innermost parallel loop">,
    Option<"maxRow", "max-row", "int64_t", "256",
           "Longest innermost reduction vectorized whole">,
    Option<"threads", "threads", "int64_t", "1",
           "With more than 1: an op of at least `min-parallel-elements` "
           "outside any parallel loop runs its rows as an scf.forall">,
    Option<"minParallelElements", "min-parallel-elements", "int64_t",
           "65536",
           "The fewest elements an op needs for its rows to run on "
           "`threads` threads (a parallel region's start and join cost "
           "about what a thread copies 64 K elements in)">,
    MaxIterationsOption
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect"];
}

def AccelCpuSerializeNestedParallelPass
    : Pass<"accel-cpu-serialize-nested-parallel"> {
  let summary = "Parallel loops inside parallel loops, or of one iteration, "
                "as sequential loops";
  let description = [{
    An `scf.parallel` (without results) nested in another `scf.parallel`,
    or whose static trip count is 1, becomes nested `scf.for` loops
    (upstream's `parallelForToNestedFors`). The CPU pipeline runs it before
    `convert-scf-to-openmp` when the JIT's kernels use OpenMP threads:
    every `scf.parallel` would otherwise open an `omp.parallel` region, and
    a region inside a parallel task runs on one thread anyway but is paid
    for each time (a two-thread paged attention opened 44 a call and ran
    4x slower than on one thread). The AOT libraries'
    `accel-cpu-outline-parallel` already keeps nested loops sequential.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def AccelCpuLowerCopiesPass : Pass<"accel-cpu-lower-copies"> {
  let summary = "Strided memref copies as linalg.copy (loops), not memrefCopy";
  let description = [{
    A `memref.copy` whose source or target is not one contiguous block (an
    identity layout, or a static shape laid out row-major without gaps)
    becomes a `linalg.copy`, which the CPU pipeline lowers to loops. Such
    copies come from bufferizing `tensor.insert_slice` with strides and
    `tensor.concat` (RoPE's halves or interleaved pairs); memref-to-llvm
    would turn them into calls of `memrefCopy` from libmlir_c_runner_utils,
    which neither the JIT nor the AOT libraries link. Contiguous copies stay
    `memref.copy` (an `llvm.memcpy`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AccelReturnArgumentsPass
    : Pass<"accel-return-arguments", "::mlir::func::FuncOp"> {
  let summary = "Return out-arguments without the clones buffer deallocation "
                "adds";
  let description = [{
    accel functions write their `outs` arguments in place and return them;
    the returned memref is the caller's own buffer. Ownership-based buffer
    deallocation assumes results are owned by the caller and clones a
    returned argument, copying the result into a buffer nobody frees. This
    pass removes a `bufferization.clone` of a function argument (or a view
    of one) whose only use is `func.return`. Run it after the deallocation
    pipeline and before `bufferization.clone` is lowered.
  }];
}

def AccelCpuResultsInPlacePass
    : Pass<"accel-cpu-results-in-place", "::mlir::ModuleOp"> {
  let summary = "Write results the function allocates into the caller's "
                "buffers (AOT libraries)";
  let description = [{
    A function whose result is a buffer it allocates (a `tensor.empty`
    result, as frontends write one) makes an AOT library copy it into the
    caller's buffer after every call (a GEMM's whole C). For each such
    result of a public function that nothing in the module calls (a
    `memref.alloc` in the entry block with a static shape and the identity
    layout, returned once and never freed), this pass appends an argument
    of its type, replaces the allocation with it (the function still
    returns it), and lists the results moved, in the order of the new
    arguments, in `accel.result_args`, with the largest `alignment` the
    function's accesses to each assume (through views) in
    `accel.result_arg_alignments`. accel-compile's C wrapper passes the
    caller's buffer there when it has that alignment and overlaps no other
    buffer of the call, else a temporary that it copies out as before
    (docs/aot.md). Run after the deallocation pipeline;
    `accel-cpu-pipeline{results-in-place=1}`, which accel-compile sets.
  }];
}

def AccelFreeEarlyPass : Pass<"accel-free-early", "::mlir::func::FuncOp"> {
  let summary = "Free each temporary right after its last use in its block";
  let description = [{
    Ownership-based buffer deallocation frees a block's temporaries at the
    end of the block: in a whole program (a decoder block) every temporary
    then lives until the function returns and the peak is their sum. This
    pass moves the `memref.dealloc` of a `memref.alloc` of its block up to
    just after the op of the block that holds (itself or in its regions) the
    last use of the buffer or of an alias of it, when it can see every use
    (an allow-list): aliases are followed forward through views, casts and
    `extract_strided_metadata`'s base, and through the SCF ops the buffer
    enters or is yielded to (every memref block argument and result of
    theirs); every other use must be a memory effect the op declares on
    that operand (loads, stores to it, linalg ops, copies, tile loads),
    nested only in SCF or linalg ops. Anything else (a call, the buffer
    stored as a value, an address taken, an asynchronous region, another
    block, a dealloc of a view) keeps the dealloc where it is. Run after
    the deallocation pipeline (`memref.dealloc` ops).

    ```mlir
    %a = memref.alloc() : memref<1024xf32>
    linalg.fill ins(%x : f32) outs(%a : memref<1024xf32>)
    "use"(%a) : (memref<1024xf32>) -> ()
    %b = memref.alloc() : memref<1024xf32>
    ...
    memref.dealloc %a : memref<1024xf32>
    ```

    becomes `... "use"(%a); memref.dealloc %a; %b = memref.alloc() ...`: %a's
    block can serve %b.
  }];
}

def AccelFuseEpiloguesPass : Pass<"accel-fuse-epilogues"> {
  let summary = "A matmul's elementwise consumers as one in-place epilogue";
  let description = [{
    Finds the elementwise `linalg.generic`s (every loop parallel, the output
    indexed by the identity) that consume an `accel.matmul`'s result one
    after another, each the only user of the value before it: bias add
    (broadcast inputs), activations (ReLU, GELU with `math.erf` or
    `math.tanh`, SiLU), residual add, scales, as torch-mlir and IREE emit
    them. The chain becomes one generic (upstream's elementwise fusion),
    and when its result has the matmul's type it updates the matmul's
    result in place: `outs` is the matmul's result, and the body reads the
    accumulator through its output argument instead of an input.

    ```mlir
    %mm = accel.matmul ins(%a, %b : ...) outs(%c : tensor<64x64xf32>) -> ...
    %r = linalg.generic {maps = [(i, j) -> (j), (i, j) -> (i, j)], ...}
           ins(%bias : tensor<64xf32>) outs(%mm : tensor<64x64xf32>) {
         ^bb0(%b: f32, %acc: f32):
           %s = arith.addf %acc, %b : f32
           %y = arith.maximumf %s, %zero : f32
           linalg.yield %y : f32 } -> tensor<64x64xf32>
    ```

    After bufferization the epilogue writes C's own buffer right after the
    matmul, which `accel-cpu-vectorize-contractions` applies to the C
    register tile before its only store. A chain whose result has another
    element type (a cast to bf16) or shape, or a matmul result with more
    than one user, is fused into one generic but left out of place.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AccelFuseSlicesPass : Pass<"accel-fuse-slices"> {
  let summary = "Static slices into the generics that read them; elementwise "
                "generics put together by concat or inserts as one generic "
                "(RoPE)";
  let description = [{
    RoPE as frontends write it is slices, two elementwise generics and a
    concatenation: the half-split form reads `x[..., :d/2]` and
    `x[..., d/2:]` through `tensor.extract_slice` and joins the rotated
    halves with `tensor.concat`; the interleaved form reads `x[..., 0::2]`
    and `x[..., 1::2]` and writes them back with stride-2
    `tensor.insert_slice`s into a `tensor.empty`; a `linalg.transpose`
    takes the heads to attention's layout. Four patterns
    (`populateAccelFuseSlicesPatterns`):

    - a `linalg.generic` input that is a static, rank-keeping
      `tensor.extract_slice` is read from the slice's source through
      `offset + stride * map`;
    - a `tensor.concat` whose inputs are elementwise generics (all loops
      parallel, identity output map, output not read, used only there)
      becomes one generic over the whole result; so does a chain of static
      `tensor.insert_slice`s of such generics into a `tensor.empty` that
      splits one dimension and writes every element exactly once;
    - a `linalg.transpose` on tensors becomes the generic it names (a copy
      through the permutation, which upstream's elementwise fusion can fold
      into its producer or consumer).

    The fused generic computes every piece's body for each element and
    keeps the value of the piece the element lies in (`linalg.index`,
    compares, `arith.select`); each piece's inputs are read at the piece's
    own index wrapped into its size, `(d floordiv stride + c) mod size` with
    `c` the non-negative constant that cancels `offset floordiv stride`:
    every read is in bounds, no index is ever negative, and the pieces of
    one split read their inputs through the same maps (one load each):

    ```mlir
    // out[s, h, d] = d < 32 ? x[.., d] c - x[.., d + 32] s
    //                       : x[.., d] c + x[.., d - 32] s   (c, s at d mod 32)
    %r = linalg.generic {indexing_maps = [(s, h, d) -> (s, h, d mod 32),
           (s, h, d) -> (s, h, d mod 32 + 32), (s, h, d) -> (s, d mod 32), ...]}
    ```

    Twice the arithmetic of the pieces for a tenth of the traffic (no copy
    of a half, no concatenation): RoPE is bound by memory. The GPU
    pipelines run it after epilogue fusion, so that RoPE is one elementwise
    kernel (maps of sums, multiples, quotients and remainders of loop
    indices are in its reach). A piece whose body reads `linalg.index`
    along the split dimension is left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AccelCpuTransposeRhsPass : Pass<"accel-cpu-transpose-rhs"> {
  let summary = "Give contractions a [.., K, N] right-hand side on tensors";
  let description = [{
    The CPU register kernel streams rows of B along N. A contraction whose
    B is indexed [.., N, K] (`transpose_b`, Q·Kᵀ) is rewritten to read a
    `linalg.transpose`d copy [.., K, N] instead: O(K·N) moved once against
    O(M·N·K) of compute, where reading B across its rows in the inner loop
    would cost a gather per element. Runs on tensors, before bufferization.
  }];
  let options = [MaxIterationsOption];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AccelLowerPrecisionPass
    : Pass<"accel-lower-precision", "::mlir::ModuleOp"> {
  let summary = "Compute f32 matmuls and attention in TF32, bf16, f16, fp8 "
                "or int8";
  let description = [{
    Rewrites each f32 `accel.matmul` and `accel.attention` to take its
    inputs in the `compute` type (docs/precision.md has the whole policy):

    - the inputs are rounded to `compute` by elementwise `linalg.generic`s
      (`arith.truncf`; fp8 and int8 first divided by a per-tensor scale
      and saturated, int8 rounded to nearest even into [-127, 127]);
    - scales are `dynamic` (amax / largest finite value, computed at run
      time by a max-|x| reduction; 0 becomes 1), `given` (`scale-values`),
      or `none`. A matmul receives them as its `scales(...)` operands, so
      its result is dequantised; an fp8 attention folds the Q and K scales
      into its constant `scale` and multiplies its output by V's, so it
      needs given scales (or none);
    - the matmul accumulates in `accumulate` (f32, i32 for int8; f16 or
      bf16 only when asked, with a warning when K·u > 1/2, past K = 1024
      for f16); attention always accumulates and keeps its softmax
      statistics in f32;
    - the result is rounded to `output` and converted back to the op's f32.

    `compute = tf32` (PyTorch's allow_tf32) keeps the op in f32: its inputs
    are rounded to TF32 values held in f32 (`arith.truncf` to tf32 and
    `arith.extf` back, which `accel-expand-f8-casts` turns into integer
    arithmetic), and the op is marked `accel.tf32_inputs`, which puts it
    on NVIDIA's TF32 tensor cores (mma.sync m16n8k8; a matmul also on
    wgmma m64nNk8) and gfx942's xf32 MFMA (attention there rounds P to
    TF32 before P·V); every other target multiplies the same values exactly
    in f32.
    No target refuses it.

    An op's `accel.precision` attribute (`#accel.precision<...>`) replaces
    the options for that op; `compute = f32` keeps it in f32. Without
    `compute` only such ops are rewritten. Ops that are not f32 are left
    alone.

    Legality: the target (`target=`, else the module's `accel.target`, else
    none: no check) must have instructions for `compute`: fp8 on sm_89+,
    gfx950, gfx12 (gfx942's fp8 is the FNUZ variants, which the ops do not
    accept), bf16 on x86 with avx512bf16, int8 on x86 with avx512vnni,
    NVIDIA sm_80+, AMD MFMA/WMMA chips. Where it has not,
    `on-unsupported=error` reports the target and the missing feature, and
    `on-unsupported=emulate` rounds the inputs to `compute` (quantising
    and dequantising fp8 and int8 with their scales) and runs the op in f32.
    The same option covers what the ops cannot express: int8 attention and
    fp8 attention with dynamic scales.

    ```
    accel-opt --accel-lower-precision="compute=bf16" in.mlir
    accel-opt --accel-lower-precision="compute=tf32" in.mlir
    accel-opt --accel-lower-precision="compute=f8E4M3FN scales=given scale-values=0.02,0.01" in.mlir
    accel-opt --accel-lower-precision="compute=i8 target=x86-64-avx2 on-unsupported=emulate" in.mlir
    ```

    fp8 on CPUs has no arithmetic: the casts to fp8 that this pass emits are
    lowered by `accel-expand-f8-casts`.
  }];
  let options = [
    Option<"compute", "compute", "std::string", "\"\"",
           "Input type: tf32, bf16, f16, f8E4M3FN, f8E5M2 or i8 (empty: only "
           "ops "
           "with an accel.precision attribute are rewritten)">,
    Option<"accumulate", "accumulate", "std::string", "\"\"",
           "Matmul accumulator: f32 (default), i32 (i8, default), f16 (with "
           "f16), bf16 (with bf16)">,
    Option<"output", "output", "std::string", "\"\"",
           "Type the result is rounded to before it returns to f32: f32 "
           "(default), f16 or bf16">,
    Option<"scales", "scales", "std::string", "\"\"",
           "fp8/int8 per-tensor scales: dynamic (default; amax at run time), "
           "given (scale-values) or none">,
    ListOption<"scaleValues", "scale-values", "double",
               "Given scales in operand order (A, B; Q, K, V), or one for "
               "every input">,
    Option<"overflow", "overflow", "std::string", "\"\"",
           "fp8 values beyond the largest finite one after scaling: "
           "saturate (default) or nan">,
    Option<"targetName", "target", "std::string", "\"\"",
           "Catalogue target whose legality rules apply (default: the "
           "module's accel.target, else no check)">,
    Option<"onUnsupported", "on-unsupported", "std::string", "\"error\"",
           "Where the target or the op lacks the precision: error, or "
           "emulate (round the inputs, compute in f32)">,
    Option<"weightOnly", "weight-only", "std::string", "\"\"",
           "int4 or int8: matmuls whose weights are constants become "
           "accel.dequant_matmul with the weights quantised now, group-wise "
           "by round to nearest (docs/quantization.md); not with compute">,
    Option<"weightGroup", "weight-group", "int64_t", "128",
           "weight-only: K values per scale (0: per channel, the whole row)">,
    Option<"weightSymmetric", "weight-symmetric", "bool", "false",
           "weight-only: signed weights, s = max|w| / (2^(bits-1) - 1), no "
           "zero points (default: unsigned with min/max zero points)">,
    Option<"debugScaleError", "debug-scale-error", "double", "0.0",
           "Test only, a deliberate bug: dequantise the last input (B of a "
           "matmul, V of an attention) with its scale times 1 + this "
           "factor, so the result is off by that factor; accel-run "
           "--precision-report must fail it (test/Tools/accel-run/"
           "precision-report.mlir). 0, the default, leaves the scales "
           "alone; unscaled inputs (bf16, f16, scales=none) have none to "
           "change">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AccelExpandF8CastsPass : Pass<"accel-expand-f8-casts"> {
  let summary = "Lower casts to and from the fp8 formats to integer "
                "arithmetic";
  let description = [{
    LLVM has no fp8 types on CPUs. This pass rewrites `arith.truncf` from
    f32 (or f16, bf16) to f8E4M3FN, f8E5M2, f8E4M3FNUZ or f8E5M2FNUZ and
    `arith.extf` from them to f32 (or wider), on scalars and vectors, into
    operations on the f32 bit pattern and an `arith.bitcast` to or from i8.
    The results are those of the casts' definition (IEEE round to nearest
    even; f8E5M2 overflows to ±inf, f8E4M3FN, which has no infinity, to
    NaN; the FNUZ formats, which have neither infinities nor -0, overflow to
    their one NaN, 0x80, and round negative values to +0; subnormals kept),
    bit for bit, as APFloat computes them.

    It also expands accel-lower-precision's TF32 round trip, `arith.extf`
    to f32 of an `arith.truncf` from f32 to tf32 (scalars and vectors):
    the f32 bits rounded to TF32's 10 mantissa bits to nearest even,
    `(bits + 0xFFF + bit 13) & 0xFFFFE000`, a NaN quieted with its low 13
    bits cleared; the truncf, left
    without uses, is erased.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AccelExpandBf16CastsPass : Pass<"accel-expand-bf16-casts"> {
  let summary = "Lower casts to and from bf16 to integer arithmetic";
  let description = [{
    Rewrites `arith.truncf` from f32 to bf16 and `arith.extf` from bf16 to
    f32, on scalars and vectors, into operations on the f32 bit pattern
    (upstream's arith BF16 expansion): round to nearest even, subnormals
    kept, NaN stays NaN. The CPU pipeline runs it after vectorization:
    otherwise LLVM lowers the cast to `vcvtneps2bf16` on hosts with
    AVX512-BF16, an instruction that flushes subnormal results to zero.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AccelCpuGuardAllocationsPass
    : Pass<"accel-cpu-guard-allocations", "::mlir::ModuleOp"> {
  let summary = "Check the byte size of dynamically sized allocations at "
                "run time";
  let description = [{
    A `memref.alloc` with dynamic sizes allocates
    size_0 * ... * size_n * element bytes, which the memref-to-LLVM lowering
    multiplies in 64 bits and lets wrap: sizes from a caller (a `tensor.dim`
    of an argument whose other dimension is 0) can turn a buffer of 2^64
    bytes into a request for a few, which the kernel then writes past.
    Before each such allocation this pass computes the product with
    overflow checks (`arith.mului_extended`) and calls `callee` (declared
    `() -> ()` if the module has no such function) when a size is negative,
    when the product does not fit in int64 and no size is 0, or when it is
    over `max-bytes`. The callee must not return; accel-compile's C wrapper
    makes the call return ACCEL_ERR_ALLOC (docs/aot.md). The size is the
    lowering's: an element takes its LLVM allocation size (a vector's
    innermost dimension rounded up to a power of 2); an element type whose
    size this pass does not know is an error. Allocations of static shape
    are left alone: their size is known when compiling, where accel-compile
    and accel-run limit it. A `memref.alloca` with dynamic sizes is an
    error: it is on the stack, whose room no byte limit here knows. The
    callee is declared in the symbol table (module) that holds each
    allocation. Run it on memrefs, before they are lowered to LLVM.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "uint64_t", "~uint64_t(0)",
           "Call the callee for a non-empty dynamically sized allocation of "
           "more bytes than this (2^63 or more: only for overflow and "
           "negative sizes)">,
    Option<"callee", "callee", "std::string", "\"accel_allocation_failed\"",
           "The function called, with no arguments, for an allocation that "
           "cannot be made; it must not return">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
}

def AccelCpuOutlineParallelPass
    : Pass<"accel-cpu-outline-parallel", "::mlir::ModuleOp"> {
  let summary = "Turn parallel loops into calls of a parallel-for the "
                "library's runtime provides";
  let description = [{
    An ahead-of-time CPU library cannot assume an OpenMP runtime in the
    program that loads it, and an application that embeds it has a thread
    pool of its own. This pass makes each `scf.parallel` without
    results that is in a `func.func`, in no other parallel loop, and inside
    sequential `scf.for` loops (if any) of at most 1024 iterations in all,
    known when compiling, a call of `callee`, declared
    `(fn, !llvm.ptr, index) -> ()`: `callee(body, context, count)` must run
    `body(context, begin, end)` over disjoint ranges that cover
    [0, count) (on any threads) and return when all have returned.
    `body` is a new private function `<function>_parallel` (then
    `_parallel_0`, `_parallel_1`, ...; internal linkage) of type
    `(!llvm.ptr, index, index) -> ()` that runs the loop's iterations
    begin..end-1 of its row-major linearised iteration space; `context`
    points to a stack slot (allocated in the function's entry block) that
    holds the values the loop uses from outside it, each in its LLVM form
    (memrefs as their descriptors, through `unrealized_conversion_cast`s
    that the LLVM lowering reconciles; constants are made again in the
    body), and the loop's lower bounds, steps and trip counts. Loops nested
    in an outlined loop stay inside its body (sequential); loops inside
    sequential loops of unknown or larger trip counts (a dispatch per
    iteration, and a loop LLVM could no longer delete when the inner one is
    empty), with reductions, with a statically known trip count of 0 or 1,
    or using a value of a type without an LLVM form are left as they are
    (sequential once lowered). accel-compile's C wrapper defines
    the callee (docs/aot.md, "Threads"). Run it on memrefs, after
    `scf.forall`s and linalg ops became `scf.parallel` loops and before the
    lowering to LLVM.
  }];
  let options = [
    Option<"callee", "callee", "std::string", "\"accel_parallel_for\"",
           "The parallel-for called for each outlined loop">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // ACCEL_TRANSFORMS_PASSES_TD
