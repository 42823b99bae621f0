//===- AccelAttrs.td - accel attributes --------------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_TD
#define ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_TD

include "accel/Dialect/Accel/IR/AccelBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Accel_TargetKind : I32EnumAttr<"TargetKind", "kind of hardware", [
    I32EnumAttrCase<"CPU", 0, "cpu">,
    I32EnumAttrCase<"NVPTX", 1, "nvptx">,
    I32EnumAttrCase<"AMDGPU", 2, "amdgpu">,
    I32EnumAttrCase<"Systolic", 3, "systolic">,
    I32EnumAttrCase<"Model", 4, "model">
  ]> {
  let cppNamespace = "::mlir::accel";
  let genSpecializedAttr = 0;
}

def Accel_TargetKindAttr : EnumAttr<Accel_Dialect, Accel_TargetKind, "kind">;

// A finite double, printed in its shortest exact form (`989.4`, `2.1E+7`).
class Accel_F64Parameter<string desc, string default = "0.0">
    : AttrOrTypeParameter<"::llvm::APFloat", desc> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let defaultValue = "::llvm::APFloat(" # default # ")";
  let parser = "::mlir::accel::parseF64Field($_parser)";
  let printer = "::mlir::accel::printF64Field($_printer, $_self)";
}

// `[a, b, c]` lists (the struct directive would print them bare).
class Accel_ListParameter<string elt, string kind, string desc>
    : OptionalArrayRefParameter<elt, desc> {
  let parser = "::mlir::accel::parse" # kind # "List($_parser)";
  let printer = "::mlir::accel::print" # kind # "List($_printer, $_self)";
}

// An optional `[0.5, 0.25]` list of doubles, held as a DenseF64ArrayAttr
// (hashable, unlike a list of doubles).
class Accel_F64ArrayParameter<string desc>
    : OptionalParameter<"::mlir::DenseF64ArrayAttr", desc> {
  let parser = "::mlir::accel::parseF64Array($_parser)";
  let printer = "::mlir::accel::printF64Array($_printer, $_self)";
}

def Accel_TargetAttr : AttrDef<Accel_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "A hardware target and the figures its cost model needs";
  let description = [{
    Describes one piece of hardware: what code generation path serves it
    (`kind`), the chip name the back end understands (`chip`: `znver5`,
    `sm_90a`, `gfx942`, ...), its ISA features, and the figures the cost model
    and the tile-size heuristics read. All throughput figures are dense (no
    structured sparsity) and for the whole chip.

    | parameter | unit | meaning |
    |---|---|---|
    | `name` | | catalogue name (`h100`, `mi300x`, `x86-64-avx512`, ...) or a user's own |
    | `kind` | | `cpu`, `nvptx`, `amdgpu`, `systolic` (our array target), or `model` (described for the cost model only: no code generation) |
    | `chip` | | back-end chip name: `-mcpu` for CPUs, `sm_XX` for NVPTX, `gfxXXX` for AMDGPU |
    | `features` | | ISA features (`avx512bf16`, `avx512vnni`, `wgmma`, `fp8`, `mfma`, ...) |
    | `compute_units` | count | SMs, CUs, cores, or matrix units |
    | `clock_ghz` | GHz | the clock the peak figures assume |
    | `peak_f32` ... `peak_i8` | TFLOP/s (TOPS for i8) | dense peak per input precision; 0 means unsupported or not published |
    | `memory_gib` | GiB | off-chip memory capacity (0: none, e.g. SRAM-only chips) |
    | `memory_gbps` | GB/s | off-chip memory bandwidth |
    | `local_memory_kib` | KiB | the fast memory one tile lives in, per compute unit: shared memory (NVIDIA), LDS (AMD), L1D (CPU), scratchpad (systolic) |
    | `l2_kib` | KiB | L2 per core (CPU) or per chip (GPU); accumulator SRAM (systolic) |
    | `llc_kib` | KiB | last-level cache or on-chip SRAM shared by the chip (CPU L3, AMD Infinity Cache, SRAM of SRAM-only chips) |
    | `matrix_unit` | [m, n, k] | shape of one matrix instruction or array: MMA tile, systolic rows × cols × 1, or vector lanes for CPUs |
    | `warp_size` | lanes | 32 or 64 on GPUs; 0 elsewhere |

    Example:

    ```mlir
    #accel.target<name = "h100", kind = nvptx, chip = "sm_90a",
                  features = ["wgmma", "tma", "fp8"], compute_units = 132,
                  clock_ghz = 1.83, peak_f32 = 67.0, peak_tf32 = 494.7,
                  peak_f16 = 989.4, peak_bf16 = 989.4, peak_f8 = 1978.9,
                  peak_i8 = 1978.9, memory_gib = 80.0, memory_gbps = 3352.0,
                  local_memory_kib = 228, l2_kib = 51200, llc_kib = 0,
                  matrix_unit = [64, 256, 16], warp_size = 32>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"catalogue or user name">:$name,
    "::mlir::accel::TargetKind":$kind,
    StringRefParameter<"back-end chip name">:$chip,
    Accel_ListParameter<"::mlir::StringAttr", "String", "ISA features">:$features,
    DefaultValuedParameter<"int64_t", "1", "compute units">:$compute_units,
    Accel_F64Parameter<"clock in GHz", "1.0">:$clock_ghz,
    Accel_F64Parameter<"peak f32 TFLOP/s", "0.0">:$peak_f32,
    Accel_F64Parameter<"peak tf32 TFLOP/s", "0.0">:$peak_tf32,
    Accel_F64Parameter<"peak f16 TFLOP/s", "0.0">:$peak_f16,
    Accel_F64Parameter<"peak bf16 TFLOP/s", "0.0">:$peak_bf16,
    Accel_F64Parameter<"peak fp8 TFLOP/s", "0.0">:$peak_f8,
    Accel_F64Parameter<"peak int8 TOPS", "0.0">:$peak_i8,
    Accel_F64Parameter<"memory capacity GiB", "0.0">:$memory_gib,
    Accel_F64Parameter<"memory bandwidth GB/s", "0.0">:$memory_gbps,
    DefaultValuedParameter<"int64_t", "0", "local memory KiB">:$local_memory_kib,
    DefaultValuedParameter<"int64_t", "0", "L2 KiB">:$l2_kib,
    DefaultValuedParameter<"int64_t", "0", "last-level KiB">:$llc_kib,
    Accel_ListParameter<"int64_t", "I64", "matrix unit shape [m, n, k]">:$matrix_unit,
    DefaultValuedParameter<"int64_t", "0", "warp size">:$warp_size
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Peak throughput in FLOP/s (OP/s for integers) for an input element
    /// type, or 0 when the target does not support it.
    double getPeakFlops(::mlir::Type elementType) const;
    /// Whether `features` contains `feature`.
    bool hasFeature(::llvm::StringRef feature) const;
  }];
}

//===----------------------------------------------------------------------===//
// Precision policy
//===----------------------------------------------------------------------===//

def Accel_ScaleMode : I32EnumAttr<"ScaleMode",
    "how the per-tensor scales of fp8 and int8 inputs are chosen", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Dynamic", 1, "dynamic">,
    I32EnumAttrCase<"Given", 2, "given">
  ]> {
  let cppNamespace = "::mlir::accel";
  let genSpecializedAttr = 0;
}

def Accel_OverflowMode : I32EnumAttr<"OverflowMode",
    "what an fp8 cast does with values beyond the largest finite one", [
    I32EnumAttrCase<"Saturate", 0, "saturate">,
    I32EnumAttrCase<"NaN", 1, "nan">
  ]> {
  let cppNamespace = "::mlir::accel";
  let genSpecializedAttr = 0;
}

def Accel_PrecisionAttr : AttrDef<Accel_Dialect, "Precision"> {
  let mnemonic = "precision";
  let summary = "The precision one accel op computes in (accel-lower-precision)";
  let description = [{
    Attached to an f32 `accel.matmul` or `accel.attention` as the
    discardable attribute `accel.precision`, it replaces the options of
    `accel-lower-precision` for that op (docs/precision.md):

    | parameter | values | default |
    |---|---|---|
    | `compute` | `f32` (keep the op in f32), `bf16`, `f16`, `f8E4M3FN`, `f8E5M2`, `i8`: the inputs' type | required |
    | `accumulate` | `f32`; `f16` with f16, `bf16` with bf16; `i32` with i8 (attention: f32 only) | `i32` for i8, else `f32` |
    | `output` | `f32`, `f16`, `bf16` (i8 without scales also `i32`): the type the result is rounded to before it is converted back to the op's f32 | `f32` |
    | `scales` | `dynamic` (amax / largest finite, at run time), `given` (`scale_values`), `none`; f8 and i8 only | `dynamic` for f8 and i8, else `none` |
    | `scale_values` | positive finite scales of the inputs in operand order (A, B; Q, K, V), or one for all | `[]` |
    | `overflow` | `saturate` or `nan`: an f8 value beyond the largest finite one after scaling (i8 always saturates) | `saturate` |

    Example:

    ```mlir
    %0 = accel.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>)
           outs(%c : tensor<64x32xf32>)
           {accel.precision = #accel.precision<compute = f8E4M3FN,
                                               scales = given,
                                               scale_values = [0.01, 0.02]>}
           -> tensor<64x32xf32>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$compute,
    OptionalParameter<"::mlir::Type", "accumulator type">:$accumulate,
    OptionalParameter<"::mlir::Type", "output type">:$output,
    OptionalParameter<"std::optional<::mlir::accel::ScaleMode>",
                      "how scales are chosen">:$scales,
    Accel_F64ArrayParameter<"given per-tensor scales">:$scale_values,
    OptionalParameter<"std::optional<::mlir::accel::OverflowMode>",
                      "fp8 overflow policy">:$overflow
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The policy with its defaults filled in; a bad one (which the
    /// verifier rejects) is reported through `emitError`.
    ::mlir::FailureOr<::mlir::accel::PrecisionPolicy>
    resolve(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError) const;
  }];
}

//===----------------------------------------------------------------------===//
// Lowering configuration
//===----------------------------------------------------------------------===//

def Accel_LoweringConfigAttr : AttrDef<Accel_Dialect, "LoweringConfig"> {
  let mnemonic = "lowering_config";
  let summary = "How one accel op is lowered: the configuration stage's choice";
  let description = [{
    Attached to an `accel.matmul` or `accel.attention` as the discardable
    attribute `accel.lowering_config`, it holds every choice a back end's
    conversion needs (docs/configure.md): the configuration stage
    (`accel-gpu-configure`, `accel-systolic-configure`,
    `accel-cpu-configure`) writes it from the
    cost model of the op's target, a user may write it by hand, and the
    conversion reads it and chooses nothing itself. The conversion checks a
    hand-written one against the chip with the same rules as its own
    choices (a located error names what does not fit).

    | parameter | meaning |
    |---|---|
    | `kernel` | the kernel strategy: `mma.sync`, `wgmma` (NVIDIA), `mfma`, `wmma` (AMD), `systolic`, `cpu-fma`, `cpu-avx512bf16`, `cpu-avx512vnni`, `cpu-amx-bf16`, `cpu-amx-int8`, `cpu-row-dot` (CPU matmul; `cpu-row-dot`: f32 with B as [N, K], `mma = [mr, nr, 16]`, `tile = [0, 0, Kc]` or none), `cpu-flash`, `cpu-flash-amx` (CPU attention), `cpu-dequant`, `cpu-dequant-lut`, `cpu-dequant-amx` (CPU weight-only quantised matmul, `mma = [mr, nr, 32]`; `cpu-dequant-amx` also `tile = [rows, 16]`), `cpu-loops` (the reference loops) |
    | `tile` | matmul: the block tile `[M, N, K]` (CPU: the cache tile, 0 leaving a dimension whole); attention: `[query rows, keys per step]` |
    | `warps` | GPU matmul: warps `[along M, along N]`; GPU attention: `[warps]` |
    | `mma` | GPU: the matrix instruction `[m, n, k]` (informative: the chip and element types fix it); CPU matmul: the register tile `[mr, nr, kr]` (the C block held in registers; kr: K steps per iteration, or the k values one 32-bit lane of a dot instruction takes) |
    | `stages` | GPU: buffers of the global-to-shared ring (0: the kernel's own); systolic matmul: buffers of C's blocks in the accumulator, 1 or 2 (0: 2) |
    | `dataflow` | systolic matmul: `ws`, `os` or `is` |

    Example:

    ```mlir
    %0 = accel.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>)
           outs(%c : tensor<4096x4096xf32>)
           {accel.lowering_config = #accel.lowering_config<kernel = "wgmma",
              tile = [128, 256, 64], warps = [8, 1], mma = [64, 256, 16],
              stages = 4>}
           -> tensor<4096x4096xf32>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"kernel strategy">:$kernel,
    Accel_ListParameter<"int64_t", "I64", "block tile">:$tile,
    Accel_ListParameter<"int64_t", "I64", "warps">:$warps,
    Accel_ListParameter<"int64_t", "I64", "matrix instruction [m, n, k]">:$mma,
    DefaultValuedParameter<"int64_t", "0", "ring buffers">:$stages,
    StringRefParameter<"systolic dataflow", "\"\"">:$dataflow
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_TD
