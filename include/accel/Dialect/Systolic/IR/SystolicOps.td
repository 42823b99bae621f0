//===- SystolicOps.td - systolic instructions --------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICOPS_TD
#define ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICOPS_TD

include "accel/Dialect/Systolic/IR/SystolicBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

def Systolic_ProgramOp : Systolic_Op<"program", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "A program for the systolic array";
  let description = [{
    The machine (`config`), the DRAM buffers (`buffers`, indexed from 0 by
    the instructions) and the instructions, in issue order. Buffer names are
    unique and no two buffers are the same argument or result. The verifier
    checks every instruction against the machine (SRAM rows, array shape,
    buffer bounds, element types) and the dataflow state:

    * a `config` comes before the first `preload`; it resets the array (the
      weights and the pending preload are gone);
    * a `compute` pairs with the last `preload`; only `mvin` and `mvout` may
      come between them (`config`, `fence` and `vector` end the pairing:
      the vector unit shares the execute pipeline and a fence flushes the
      partial sums);
    * weight-stationary: one `compute` per `preload`, with the same m, k and
      n, `preloaded` exactly when that preload loaded weights; a preload
      without `weights` keeps the array's weights (same k and n);
    * output-stationary: the preload has k = 0 and no weights; any number of
      computes follow, with its m and n, `times` B, and `preloaded` at most
      on the first one.

    An operand an instruction does not use is absent (the binary format
    requires zeros there), e.g. `fill` has `src_a` 0.

    ```mlir
    systolic.program @mm config #systolic.config<...>
        buffers [#systolic.buffer<"a", arg 0, tensor<16x16xi8>>, ...] {
      systolic.config ws
      systolic.mvin 0[0] stride 16 -> spad[0] rows 16 cols 16
      ...
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Systolic_ConfigAttr:$config,
    TypedArrayAttrBase<Systolic_BufferAttr, "DRAM buffers">:$buffers
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `config` $config `buffers` $buffers attr-dict-with-keyword $body
  }];
  // verify(): the name and the buffer table; verifyRegions(): the
  // instructions, after their own attribute checks ran.
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "ConfigAttr":$config,
                   "::mlir::ArrayAttr":$buffers)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

class Systolic_InstOp<string mnemonic, list<Trait> traits = []>
    : Systolic_Op<mnemonic, !listconcat(traits, [HasParent<"ProgramOp">])>;

def Systolic_ConfigOp : Systolic_InstOp<"config"> {
  let summary = "Select the dataflow (weight- or output-stationary)";
  let arguments = (ins Systolic_DataflowAttr:$dataflow);
  // The empty literal keeps one space: the enum attribute prints its own.
  let assemblyFormat = "`` $dataflow attr-dict";
}

def Systolic_MvinOp : Systolic_InstOp<"mvin"> {
  let summary = "DMA a block from a DRAM buffer into the scratchpad or "
                "accumulator";
  let description = [{
    Copies `rows x cols` elements of DRAM buffer `buffer` (element `(r, c)`
    at `offset + r * stride + c`, or `offset + c * stride + r` with
    `transpose`) into SRAM rows `row ..` of `space`.

    With `unpack`, an i8 buffer's bytes are read as integers into a bf16 or
    f32 SRAM (exact): `s8`/`u8` one a byte (signed, unsigned), `s4`/`u4`
    two a byte (signed -8..7, unsigned 0..15; element `2i` in the low
    nibble of byte `i`, `2i + 1` in the high one), `offset` and `stride`
    then counted in nibbles. The DMA moves the packed bytes: weight-only
    quantised weights reach the array as integers, never as a dequantised
    copy in DRAM. `mask` reads a byte as a boolean (an i1 tensor's storage,
    attention's keep-mask): 0 where it is nonzero, -inf where it is zero,
    the additive mask the boolean one means.

    Run-time addressing through the scalar registers (`systolic.sload`
    fills them): with `page reg p stride s` the block starts at
    `offset + r[p] * s` (a page of a paged KV cache found through a block
    table; the block must lie within `[0, s)`, and the machine stops with
    an error when the page it reads is outside the buffer). With
    `bound reg b base n` only the block's first `clamp(r[b] - n, 0, lines)`
    DRAM lines (rows, or columns with `transpose`) are read; the SRAM
    elements of the others are zeros and no address is formed for them (a
    sequence's keys past its length, pages past its end). The register
    form has narrower fields (docs/systolic-binary.md): buffer < 2^16,
    offset and stride < 2^32, rows and cols < 2^16, base an i32.
  }];
  let arguments = (ins
    I64Attr:$buffer, I64Attr:$offset, I64Attr:$stride,
    Systolic_SpaceAttr:$space, I64Attr:$row, I64Attr:$rows, I64Attr:$cols,
    UnitAttr:$transpose, OptionalAttr<Systolic_UnpackAttr>:$unpack,
    OptionalAttr<I64Attr>:$page_reg, OptionalAttr<I64Attr>:$page_stride,
    OptionalAttr<I64Attr>:$bound_reg, OptionalAttr<I64Attr>:$bound_base
  );
  let assemblyFormat = [{
    $buffer `[` $offset `]` `stride` $stride `->` `` $space `[` $row `]`
    `rows` $rows `cols` $cols (`transpose` $transpose^)?
    (`unpack` `` $unpack^)?
    (`page` `reg` $page_reg^ `stride` $page_stride)?
    (`bound` `reg` $bound_reg^ `base` $bound_base)? attr-dict
  }];
}

def Systolic_MvoutOp : Systolic_InstOp<"mvout"> {
  let summary = "DMA a block from the accumulator or scratchpad to DRAM";
  let description = [{
    The inverse of `mvin`; values from the accumulator are converted to the
    buffer's element type (f32 to bf16 rounds to nearest even, i32 to i8
    saturates).
  }];
  let arguments = (ins
    Systolic_SpaceAttr:$space, I64Attr:$row, I64Attr:$rows, I64Attr:$cols,
    I64Attr:$buffer, I64Attr:$offset, I64Attr:$stride, UnitAttr:$transpose
  );
  let assemblyFormat = [{
    `` $space `[` $row `]` `rows` $rows `cols` $cols `->` $buffer `[` $offset `]`
    `stride` $stride (`transpose` $transpose^)? attr-dict
  }];
}

def Systolic_PreloadOp : Systolic_InstOp<"preload"> {
  let summary = "Load weights (WS) or reset partial sums (OS) and set the "
                "output target";
  let description = [{
    WS: loads the `k x n` weights at scratchpad rows `weights ..` into the
    array (without `weights` the array keeps the ones it has). OS: resets
    the `m x n` partial sums (no `weights`). The computes that follow write
    to accumulator rows `acc[c_row] ..`, adding to them with `accumulate`.
  }];
  let arguments = (ins
    OptionalAttr<I64Attr>:$b_row, I64Attr:$c_row, I64Attr:$m, I64Attr:$k,
    I64Attr:$n, UnitAttr:$accumulate
  );
  let assemblyFormat = [{
    (`weights` `spad` `[` $b_row^ `]`)? `to` `acc` `[` $c_row `]`
    `m` $m `k` $k `n` $n (`accumulate` $accumulate^)? attr-dict
  }];
}

def Systolic_ComputeOp : Systolic_InstOp<"compute"> {
  let summary = "Stream operands through the array";
  let description = [{
    WS: streams the `m x k` tile at scratchpad rows `a_row ..` through the
    array's weights; `preloaded` exactly when the preload just before loaded
    them. OS: multiplies A (`m x k` at `a_row`) by B (`k x n` at `b_row`)
    into the partial sums; `preloaded` at most on the first compute after
    the preload (the one that starts from the reset sums).
  }];
  let arguments = (ins
    I64Attr:$a_row, OptionalAttr<I64Attr>:$b_row, I64Attr:$m, I64Attr:$k,
    I64Attr:$n, UnitAttr:$preloaded
  );
  let assemblyFormat = [{
    (`preloaded` $preloaded^)? `spad` `[` $a_row `]`
    (`times` `spad` `[` $b_row^ `]`)? `m` $m `k` $k `n` $n attr-dict
  }];
}

def Systolic_VectorOp : Systolic_InstOp<"vector"> {
  let summary = "Element-wise or row-wise f32 work on accumulator rows";
  let description = [{
    `dst = op(A, B)` on a `rows x cols` block, where A is accumulator rows
    `src_a ..` and B is accumulator rows `src_b ..` element-wise, their
    column 0 per row (`bcast row`) or the immediate (`bcast scalar`). See
    `VecOp` in include/accel/Systolic/ISA.h for each op. `to_spad` writes
    the (copied) values into scratchpad rows, rounded to the input type.
    Needs an f32 accumulator. `src_b` is present exactly for the binary ops
    (add, sub, mul, div, max) with bcast none or row, `imm` for fill and
    bcast scalar, `offset` for the masks (mask_causal, mask_keys,
    mask_rows, mask_lower; `plus reg r` adds scalar register `r`: a
    run-time length); `accumulate` only on
    rowmax and rowsum, `inf_is_zero` only on sub and div, `to_spad` only
    on copy.
  }];
  let arguments = (ins
    Systolic_VecOpAttr:$op, I64Attr:$dst, I64Attr:$src_a,
    OptionalAttr<I64Attr>:$src_b, I64Attr:$rows, I64Attr:$cols,
    OptionalAttr<Systolic_BcastAttr>:$bcast, OptionalAttr<F32Attr>:$fimm,
    OptionalAttr<I64Attr>:$iimm, OptionalAttr<I64Attr>:$reg,
    UnitAttr:$accumulate, UnitAttr:$inf_is_zero, UnitAttr:$to_spad
  );
  let assemblyFormat = [{
    `` $op (`to_spad` $to_spad^)? $dst `,` $src_a (`,` $src_b^)?
    `rows` $rows `cols` $cols (`bcast` `` $bcast^)? (`imm` $fimm^)?
    (`offset` $iimm^)? (`plus` `reg` $reg^)? (`accumulate` $accumulate^)?
    (`inf_is_zero` $inf_is_zero^)? attr-dict
  }];
}

def Systolic_SkipOp : Systolic_InstOp<"skip"> {
  let summary = "Skip the next instructions when a scalar register is at "
                "most a bound";
  let description = [{
    When scalar register `reg` holds at most `imm`, the next `count`
    instructions are not executed: a forward branch on run-time data (the
    key blocks past a sequence's length). Nothing after the skip issues
    before the register is loaded. The skipped instructions must leave the
    array as they found it for what follows: the verifier takes the
    preload and the weights as unknown after them and refuses a `config`
    among them.

    ```mlir
    systolic.skip 40 if reg 0 le 64
    ```
  }];
  let arguments = (ins I64Attr:$count, I64Attr:$reg, I64Attr:$imm);
  let assemblyFormat = [{
    $count `if` `reg` $reg `le` $imm attr-dict
  }];
}

def Systolic_SsubOp : Systolic_InstOp<"ssub"> {
  let summary = "Subtract two scalar registers";
  let description = [{
    `r[reg] = r[reg_a] - r[reg_b]` (0 for a missing `reg_a`); the machine
    stops on overflow (the causal band of a padded batch: key length minus
    query length).

    ```mlir
    systolic.ssub reg 0 - reg 1 -> reg 2
    systolic.ssub - reg 1 -> reg 3
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$reg_a, I64Attr:$reg_b,
                       I64Attr:$reg);
  let assemblyFormat = [{
    (`reg` $reg_a^)? `-` `reg` $reg_b `->` `reg` $reg attr-dict
  }];
}

def Systolic_SloadOp : Systolic_InstOp<"sload"> {
  let summary = "Load an i32 of a DRAM buffer into a scalar register";
  let description = [{
    Reads element `offset` of the i32 buffer `buffer` into scalar register
    `reg` (0..15; all 0 when the program starts). The machine stops with
    an error when the value is outside `[lo, hi]`: run-time data (a
    sequence length) is checked where it is read. mvin's page and bound
    and the vector masks read the registers.

    ```mlir
    systolic.sload 4[1] range 0 to 4096 -> reg 0
    ```
  }];
  let arguments = (ins
    I64Attr:$buffer, I64Attr:$offset, I64Attr:$lo, I64Attr:$hi, I64Attr:$reg
  );
  let assemblyFormat = [{
    $buffer `[` $offset `]` `range` $lo `to` $hi `->` `reg` $reg attr-dict
  }];
}

def Systolic_FenceOp : Systolic_InstOp<"fence"> {
  let summary = "Wait for every earlier instruction";
  let assemblyFormat = "attr-dict";
}

#endif // ACCEL_DIALECT_SYSTOLIC_IR_SYSTOLICOPS_TD
