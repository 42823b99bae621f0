// REQUIRES: ptxas
// The masked attention kernels' PTX assembles for sm_80 and sm_90a without
// spilling; the i1 mask is read as bytes, the bf16 one as 16-bit words.
// RUN: accel-opt %s --convert-accel-to-gpu | accel-opt %gpu_to_ptx_sm_80 -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir bool_full_kernels > %t.bool.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir add_bf16_keys_kernels > %t.add.ptx
// RUN: FileCheck %s --check-prefix=BOOL < %t.bool.ptx
// RUN: FileCheck %s --check-prefix=ADD < %t.add.ptx
// RUN: %ptxas -v -arch=sm_80 %t.bool.ptx -o %t.bool.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: %ptxas -v -arch=sm_80 %t.add.ptx -o %t.add.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_90a | accel-opt %gpu_to_ptx_sm_90a -o %t.sm90a.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90a.mlir bool_heads_causal_kernels > %t.causal.ptx
// RUN: %ptxas -v -arch=sm_90a %t.causal.ptx -o %t.causal.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// BOOL: ld.global.{{(u8|b8|s8)}}
// BOOL: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// ADD: ld.global.{{(b16|u16)}}
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads

func.func @bool_full(%q: tensor<1x2x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>, %m: tensor<1x2x77x130xi1>) -> tensor<1x2x77x64xf32> {
  %o = tensor.empty() : tensor<1x2x77x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) mask(%m : tensor<1x2x77x130xi1>) outs(%o : tensor<1x2x77x64xf32>) -> tensor<1x2x77x64xf32>
  return %0 : tensor<1x2x77x64xf32>
}
func.func @add_bcast_causal(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x2x90x32xbf16>, %v: tensor<2x2x90x32xbf16>, %m: tensor<70x1xf32>) -> tensor<2x4x70x32xbf16> {
  %o = tensor.empty() : tensor<2x4x70x32xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x70x32xbf16>, tensor<2x2x90x32xbf16>, tensor<2x2x90x32xbf16>) mask(%m : tensor<70x1xf32>) outs(%o : tensor<2x4x70x32xbf16>) -> tensor<2x4x70x32xbf16>
  return %0 : tensor<2x4x70x32xbf16>
}
func.func @add_bf16_keys(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>, %m: tensor<1x1x1x200xbf16>) -> tensor<1x2x16x64xf32> {
  %o = tensor.empty() : tensor<1x2x16x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) mask(%m : tensor<1x1x1x200xbf16>) outs(%o : tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %0 : tensor<1x2x16x64xf32>
}
func.func @bool_heads_causal(%q: tensor<1x3x65x16xf16>, %k: tensor<1x1x65x16xf16>, %v: tensor<1x1x65x16xf16>, %m: tensor<3x65x65xi1>) -> tensor<1x3x65x16xf16> {
  %o = tensor.empty() : tensor<1x3x65x16xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x3x65x16xf16>, tensor<1x1x65x16xf16>, tensor<1x1x65x16xf16>) mask(%m : tensor<3x65x65xi1>) outs(%o : tensor<1x3x65x16xf16>) -> tensor<1x3x65x16xf16>
  return %0 : tensor<1x3x65x16xf16>
}
