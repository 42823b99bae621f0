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

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_TD
