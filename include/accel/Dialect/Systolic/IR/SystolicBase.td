//===- SystolicBase.td - systolic dialect, enums, attributes -*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICBASE_TD
#define ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Systolic_Dialect : Dialect {
  let name = "systolic";
  let cppNamespace = "::mlir::systolic";
  let summary = "Instructions of a parameterised systolic array (Gemmini-like)";
  let description = [{
    The `systolic` dialect is the machine-instruction level of accel's
    systolic-array target: a `systolic.program` holds the machine's
    configuration (`#systolic.config`), its DRAM buffers
    (`#systolic.buffer`) and a straight-line list of instructions: `config`,
    `mvin`, `mvout`, `preload`, `compute`, `vector` and `fence`, after
    Gemmini's ISA (ucb-bar/gemmini). `convert-accel-to-systolic` produces it;
    `accel-systolic-translate` encodes it in the binary format and back; the
    simulator (`accel-sim`, `accel-run --target=systolic`) executes it.
    `include/accel/Systolic/ISA.h` is the contract for every field;
    docs/systolic.md is the prose version.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Systolic_Op<string mnemonic, list<Trait> traits = []>
    : Op<Systolic_Dialect, mnemonic, traits>;

def Systolic_Dataflow : I32EnumAttr<"Dataflow", "array dataflow", [
    I32EnumAttrCase<"WS", 0, "ws">,
    I32EnumAttrCase<"OS", 1, "os">
  ]> {
  let cppNamespace = "::mlir::systolic";
  let genSpecializedAttr = 0;
}
def Systolic_DataflowAttr : EnumAttr<Systolic_Dialect, Systolic_Dataflow, "dataflow"> {
  let assemblyFormat = "$value";
}

def Systolic_Space : I32EnumAttr<"Space", "on-chip memory", [
    I32EnumAttrCase<"Spad", 0, "spad">,
    I32EnumAttrCase<"Acc", 1, "acc">
  ]> {
  let cppNamespace = "::mlir::systolic";
  let genSpecializedAttr = 0;
}
def Systolic_SpaceAttr : EnumAttr<Systolic_Dialect, Systolic_Space, "space"> {
  let assemblyFormat = "$value";
}

def Systolic_Unpack : I32EnumAttr<"Unpack", "how mvin reads an i8 buffer's bytes (integers, or booleans as an additive mask)", [
    I32EnumAttrCase<"S8", 1, "s8">,
    I32EnumAttrCase<"U8", 2, "u8">,
    I32EnumAttrCase<"S4", 3, "s4">,
    I32EnumAttrCase<"U4", 4, "u4">,
    I32EnumAttrCase<"Mask", 5, "mask">
  ]> {
  let cppNamespace = "::mlir::systolic";
  let genSpecializedAttr = 0;
}
def Systolic_UnpackAttr : EnumAttr<Systolic_Dialect, Systolic_Unpack, "unpack"> {
  let assemblyFormat = "$value";
}

def Systolic_BufferRole : I32EnumAttr<"BufferRole", "what a DRAM buffer is", [
    I32EnumAttrCase<"Arg", 0, "arg">,
    I32EnumAttrCase<"Result", 1, "result">,
    I32EnumAttrCase<"Scratch", 2, "scratch">
  ]> {
  let cppNamespace = "::mlir::systolic";
  let genSpecializedAttr = 0;
}
def Systolic_BufferRoleAttr : EnumAttr<Systolic_Dialect, Systolic_BufferRole, "role"> {
  let assemblyFormat = "$value";
}

def Systolic_VecOp : I32EnumAttr<"VecOp", "vector unit operation", [
    I32EnumAttrCase<"Fill", 0, "fill">,
    I32EnumAttrCase<"Copy", 1, "copy">,
    I32EnumAttrCase<"Add", 2, "add">,
    I32EnumAttrCase<"Sub", 3, "sub">,
    I32EnumAttrCase<"Mul", 4, "mul">,
    I32EnumAttrCase<"Div", 5, "div">,
    I32EnumAttrCase<"Max", 6, "max">,
    I32EnumAttrCase<"Exp", 7, "exp">,
    I32EnumAttrCase<"RowMax", 8, "rowmax">,
    I32EnumAttrCase<"RowSum", 9, "rowsum">,
    I32EnumAttrCase<"MaskCausal", 10, "mask_causal">,
    I32EnumAttrCase<"Rsqrt", 11, "rsqrt">,
    I32EnumAttrCase<"RoundBf16", 12, "round_bf16">,
    I32EnumAttrCase<"MaskKeys", 13, "mask_keys">,
    I32EnumAttrCase<"MaskRows", 14, "mask_rows">,
    I32EnumAttrCase<"MaskLower", 15, "mask_lower">
  ]> {
  let cppNamespace = "::mlir::systolic";
  let genSpecializedAttr = 0;
}
def Systolic_VecOpAttr : EnumAttr<Systolic_Dialect, Systolic_VecOp, "vecop"> {
  let assemblyFormat = "$value";
}

def Systolic_Bcast : I32EnumAttr<"Bcast", "how a vector op reads operand B", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Row", 1, "row">,
    I32EnumAttrCase<"Scalar", 2, "scalar">
  ]> {
  let cppNamespace = "::mlir::systolic";
  let genSpecializedAttr = 0;
}
def Systolic_BcastAttr : EnumAttr<Systolic_Dialect, Systolic_Bcast, "bcast"> {
  let assemblyFormat = "$value";
}

// A double printed in its shortest exact form (shared with #accel.target).
def Systolic_F64Parameter : AttrOrTypeParameter<"::llvm::APFloat", "a double"> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let parser = "::mlir::accel::parseF64Field($_parser)";
  let printer = "::mlir::accel::printF64Field($_printer, $_self)";
}

def Systolic_ConfigAttr : AttrDef<Systolic_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "The machine a systolic program runs on";
  let description = [{
    `rows x cols` processing elements; the scratchpad holds `spad_rows`
    rows of `max(rows, cols)` elements of `input` type in `spad_banks`
    banks; the accumulator `acc_rows` rows of `cols` elements of `acc` type
    (i32 for i8 inputs, f32 for bf16 and f32) in `acc_banks` banks. The DMA
    moves `dram_bytes_per_cycle` bytes per cycle after `dram_latency`
    cycles; the vector unit has `vector_lanes` f32 lanes. The verifier
    requires rows and cols in [1, 1024], banks >= 1 that divide their SRAM's
    rows, a finite positive bandwidth and at least one vector lane. Example:

    ```mlir
    #systolic.config<rows = 16, cols = 16, input = i8, acc = i32,
                     spad_rows = 16384, spad_banks = 4, acc_rows = 1024,
                     acc_banks = 2, dram_bytes_per_cycle = 16.0,
                     dram_latency = 100, vector_lanes = 16>
    ```
  }];
  let parameters = (ins
    "uint32_t":$rows,
    "uint32_t":$cols,
    "::mlir::Type":$input,
    "::mlir::Type":$acc,
    "uint32_t":$spad_rows,
    "uint32_t":$spad_banks,
    "uint32_t":$acc_rows,
    "uint32_t":$acc_banks,
    Systolic_F64Parameter:$dram_bytes_per_cycle,
    "uint32_t":$dram_latency,
    "uint32_t":$vector_lanes
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Systolic_BufferAttr : AttrDef<Systolic_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "A DRAM buffer of a systolic program";
  let description = [{
    A named, row-major DRAM buffer: argument `n` or result `n` of the
    function the program was compiled from, or compiler scratch. Its type
    gives the static shape and the element type (i8, i32, bf16 or f32), at
    most 2^48 bytes. The name is non-empty and uses [A-Za-z0-9_.-] only; a
    scratch buffer has position 0.

    ```mlir
    #systolic.buffer<"a", arg 0, tensor<128x64xi8>>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"the buffer's name">:$name,
    "::mlir::systolic::BufferRole":$role,
    "uint32_t":$position,
    "::mlir::RankedTensorType":$type
  );
  let assemblyFormat = "`<` $name `,` $role $position `,` $type `>`";
  let genVerifyDecl = 1;
}

#endif // ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICBASE_TD
