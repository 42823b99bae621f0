// Pass options the machine cannot have, and blocks that do not fit.
// RUN: not accel-opt %s --convert-accel-to-systolic="dataflow=xs" 2>&1 | FileCheck %s --check-prefix=DATAFLOW
// RUN: not accel-opt %s --convert-accel-to-systolic="rows=0" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not accel-opt %s --accel-systolic-configure="c-buffers=3" 2>&1 | FileCheck %s --check-prefix=CBUF
// RUN: not accel-opt %s --convert-accel-to-systolic="dram-bytes-per-cycle=0" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not accel-opt %s --convert-accel-to-systolic="rows=1024 cols=1024 spad-kib=1 acc-kib=1" 2>&1 | FileCheck %s --check-prefix=SRAM
// RUN: not accel-opt %s --convert-accel-to-systolic="tile-n=20" 2>&1 | FileCheck %s --check-prefix=TILE
// WS and IS cut the depth into whole weight tiles: tile-k must be a multiple
// of rows there. OS streams the depth and takes any tile-k (a short last
// slice; test/Integration/Systolic/os-pad-k.mlir runs it).
// RUN: not accel-opt %s --convert-accel-to-systolic="dataflow=ws tile-k=20" 2>&1 | FileCheck %s --check-prefix=TILEK
// RUN: not accel-opt %s --convert-accel-to-systolic="dataflow=is tile-k=20" 2>&1 | FileCheck %s --check-prefix=TILEK-IS
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=os tile-k=20" | FileCheck %s --check-prefix=OSK
// RUN: not accel-opt %s --convert-accel-to-systolic="dataflow=os tile-m=4096 tile-k=4096" 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not accel-opt %s --convert-accel-to-systolic="attention-tile-kv=20" 2>&1 | FileCheck %s --check-prefix=KV
// RUN: not accel-opt %s --convert-accel-to-systolic="acc-kib=4 attention-tile-q=64" 2>&1 | FileCheck %s --check-prefix=ATT

// DATAFLOW: error: convert-accel-to-systolic: dataflow must be auto, ws, os or is, got 'xs'
// RANGE: error: convert-accel-to-systolic: rows and cols must be in [1, 1024]
// CBUF: error: accel-systolic-configure: c-buffers must be 0 (chosen), 1 or 2, got 3
// SRAM: error: 'func.func' op the SRAMs hold less than one row of the array (spad-kib / acc-kib too small)
// TILE: error: 'accel.matmul' op has no schedule on the 16x16 array whose double-buffered blocks fit 16384 scratchpad rows and 1024 accumulator rows with the given tile sizes (tile-n must be a multiple of cols, tile-k of rows for ws and is)
// TILEK: error: 'accel.matmul' op has no ws schedule on the 16x16 array whose double-buffered blocks fit 16384 scratchpad rows and 1024 accumulator rows with the given tile sizes (tile-n must be a multiple of cols, tile-k of rows for ws and is)
// TILEK-IS: error: 'accel.matmul' op has no is schedule on the 16x16 array
// OSK-LABEL: systolic.program @mm
// OSK: systolic.compute preloaded spad[{{[0-9]+}}] times spad[{{[0-9]+}}] m 16 k 16 n 16
// OSK-NEXT: systolic.compute spad[{{[0-9]+}}] times spad[{{[0-9]+}}] m 16 k 4 n 16
// OSK-NEXT: systolic.preload
// FIT: error: 'accel.matmul' op has no os schedule on the 16x16 array
// KV: error: 'accel.attention' op attention-tile-kv 20 is not a multiple of min(rows, cols) = 16
// ATT: error: 'accel.attention' op blocks of 64 queries x 16 keys (d = 64) need {{[0-9]+}} scratchpad rows and {{[0-9]+}} accumulator rows; the machine has 8192 and 64

func.func @mm(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

func.func @att(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32> {
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) outs(%o : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %0 : tensor<1x1x64x64xf32>
}
