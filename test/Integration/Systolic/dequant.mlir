// accel.dequant_matmul on the systolic array (SystolicDequant.h) against
// the fp64 oracle: int4 and int8, signed and unsigned, groups of 16-128,
// per channel, a group of 24 (tiles of 16 and 8 per group), C in f32 and
// bf16, one to 40 rows of A (three blocks of C's columns), batch
// dimensions, f32 activations (the weights dequantised on the vector
// unit), zero points on f32 and on bf16 activations (integer ones, and
// fractional ones an elementwise kernel computes: q - z split into three
// bf16 parts; streaming only the first fails them at err/gate 281).
// Machines: the default (16x16), 8x8 with 4 lanes, a
// 2 KiB accumulator (strips of 8 and 16 rows), a 4 KiB scratchpad (Aᵀ
// moved in again per strip), the OS option (the kernel is WS either way),
// and 32x16 (K tiles of 32 rows, or of 16 where the accumulator
// dequantises them).
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="acc-kib=2" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="spad-kib=4" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="dataflow=os" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=32 cols=16" | FileCheck %s
// CHECK: accel-run: 10 of 10 functions passed
//
// The binary form: accel-compile writes it, accel-sim runs it (the
// unpacking mvins encoded and decoded).
// RUN: rm -rf %t && mkdir -p %t
// RUN: accel-compile %s --target=systolic -o %t
// RUN: accel-sim %t/int4_signed.bin | FileCheck %s --check-prefix=SIM
// SIM: int4_signed: {{[0-9]+}} cycles

func.func @int4_signed(%x: tensor<1x256xbf16>, %w: tensor<72x128xi8>, %s: tensor<72x2xbf16>) -> tensor<1x72xf32> {
  %c = tensor.empty() : tensor<1x72xf32>
  %y = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<1x256xbf16>, tensor<72x128xi8>)
         scales(%s : tensor<72x2xbf16>)
         outs(%c : tensor<1x72xf32>) -> tensor<1x72xf32>
  return %y : tensor<1x72xf32>
}

func.func @int4_unsigned_bf16_out(%x: tensor<5x192xbf16>, %w: tensor<40x96xi8>, %s: tensor<40x3xbf16>) -> tensor<5x40xbf16> {
  %c = tensor.empty() : tensor<5x40xbf16>
  %y = accel.dequant_matmul bits(4) group(64) unsigned
         ins(%x, %w : tensor<5x192xbf16>, tensor<40x96xi8>)
         scales(%s : tensor<40x3xbf16>)
         outs(%c : tensor<5x40xbf16>) -> tensor<5x40xbf16>
  return %y : tensor<5x40xbf16>
}

func.func @int8_per_channel(%x: tensor<3x80xbf16>, %w: tensor<33x80xi8>, %s: tensor<33x1xf32>) -> tensor<3x33xf32> {
  %c = tensor.empty() : tensor<3x33xf32>
  %y = accel.dequant_matmul bits(8) group(80)
         ins(%x, %w : tensor<3x80xbf16>, tensor<33x80xi8>)
         scales(%s : tensor<33x1xf32>)
         outs(%c : tensor<3x33xf32>) -> tensor<3x33xf32>
  return %y : tensor<3x33xf32>
}

func.func @int8_group24(%x: tensor<2x48xbf16>, %w: tensor<18x48xi8>, %s: tensor<18x2xbf16>) -> tensor<2x18xf32> {
  %c = tensor.empty() : tensor<2x18xf32>
  %y = accel.dequant_matmul bits(8) group(24) unsigned
         ins(%x, %w : tensor<2x48xbf16>, tensor<18x48xi8>)
         scales(%s : tensor<18x2xbf16>)
         outs(%c : tensor<2x18xf32>) -> tensor<2x18xf32>
  return %y : tensor<2x18xf32>
}

func.func @m_blocks(%x: tensor<40x64xbf16>, %w: tensor<24x32xi8>, %s: tensor<24x4xbf16>) -> tensor<40x24xf32> {
  %c = tensor.empty() : tensor<40x24xf32>
  %y = accel.dequant_matmul bits(4) group(16)
         ins(%x, %w : tensor<40x64xbf16>, tensor<24x32xi8>)
         scales(%s : tensor<24x4xbf16>)
         outs(%c : tensor<40x24xf32>) -> tensor<40x24xf32>
  return %y : tensor<40x24xf32>
}

func.func @int8_f32(%x: tensor<16x96xf32>, %w: tensor<50x96xi8>, %s: tensor<50x3xf32>) -> tensor<16x50xf32> {
  %c = tensor.empty() : tensor<16x50xf32>
  %y = accel.dequant_matmul bits(8) group(32)
         ins(%x, %w : tensor<16x96xf32>, tensor<50x96xi8>)
         scales(%s : tensor<50x3xf32>)
         outs(%c : tensor<16x50xf32>) -> tensor<16x50xf32>
  return %y : tensor<16x50xf32>
}

func.func @int4_zero_points(%x: tensor<4x256xf32>, %w: tensor<64x128xi8>, %s: tensor<64x2xf32>, %z: tensor<64x2xf32>) -> tensor<4x64xf32> {
  %c = tensor.empty() : tensor<4x64xf32>
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<4x256xf32>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xf32>) zero_points(%z : tensor<64x2xf32>)
         outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

func.func @int8_zero_points_batched(%x: tensor<2x3x64xf32>, %w: tensor<20x64xi8>, %s: tensor<20x2xbf16>, %z: tensor<20x2xbf16>) -> tensor<2x3x20xf32> {
  %c = tensor.empty() : tensor<2x3x20xf32>
  %y = accel.dequant_matmul bits(8) group(32) unsigned
         ins(%x, %w : tensor<2x3x64xf32>, tensor<20x64xi8>)
         scales(%s : tensor<20x2xbf16>) zero_points(%z : tensor<20x2xbf16>)
         outs(%c : tensor<2x3x20xf32>) -> tensor<2x3x20xf32>
  return %y : tensor<2x3x20xf32>
}

func.func @int4_zero_points_bf16(%x: tensor<3x256xbf16>, %w: tensor<40x128xi8>, %s: tensor<40x2xbf16>, %z: tensor<40x2xbf16>) -> tensor<3x40xf32> {
  %c = tensor.empty() : tensor<3x40xf32>
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<3x256xbf16>, tensor<40x128xi8>)
         scales(%s : tensor<40x2xbf16>) zero_points(%z : tensor<40x2xbf16>)
         outs(%c : tensor<3x40xf32>) -> tensor<3x40xf32>
  return %y : tensor<3x40xf32>
}

#zid = affine_map<(i, j) -> (i, j)>
func.func @fractional_zero_points_bf16(%x: tensor<2x64xbf16>, %w: tensor<24x64xi8>, %s: tensor<24x2xbf16>, %zin: tensor<24x2xbf16>) -> tensor<2x24xf32> {
  %ze = tensor.empty() : tensor<24x2xbf16>
  %z = linalg.generic {indexing_maps = [#zid, #zid], iterator_types = ["parallel", "parallel"]} ins(%zin : tensor<24x2xbf16>) outs(%ze : tensor<24x2xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %k = arith.constant 97.3 : bf16
    %m = arith.mulf %a, %k : bf16
    linalg.yield %m : bf16
  } -> tensor<24x2xbf16>
  %c = tensor.empty() : tensor<2x24xf32>
  %y = accel.dequant_matmul bits(8) group(32) unsigned
         ins(%x, %w : tensor<2x64xbf16>, tensor<24x64xi8>)
         scales(%s : tensor<24x2xbf16>) zero_points(%z : tensor<24x2xbf16>)
         outs(%c : tensor<2x24xf32>) -> tensor<2x24xf32>
  return %y : tensor<2x24xf32>
}
