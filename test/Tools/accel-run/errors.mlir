// accel-run rejects bad input with an `error:` and exit status 1, never a
// crash (`not` fails on a signal).

// RUN: not accel-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING
// CHECK-MISSING: accel-run: error: no function @nope with a body in

// RUN: not accel-run %s --entry=decl 2>&1 | FileCheck %s --check-prefix=CHECK-DECL
// CHECK-DECL: accel-run: error: no function @decl with a body in

// RUN: not accel-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=CHECK-DYN
// CHECK-DYN: accel-run: error: argument #0 of @dynamic has a dynamic shape (tensor<?x4xf32>); accel-run needs static shapes

// RUN: not accel-run %s --entry=not_modelled 2>&1 | FileCheck %s --check-prefix=CHECK-ORACLE
// CHECK-ORACLE: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tensor.pad' op is not modelled by the fp64 oracle

// RUN: not accel-run %s --entry=softmax --dist=gaussian 2>&1 | FileCheck %s --check-prefix=CHECK-DIST
// CHECK-DIST: accel-run: error: --dist must be uniform, normal or exact, got 'gaussian'

// RUN: not accel-run %s --entry=softmax --target=nvptx 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET
// CHECK-TARGET: accel-run: error: --target=nvptx cannot run here

// RUN: not accel-run %s --entry=softmax --poison=0:999:nan 2>&1 | FileCheck %s --check-prefix=CHECK-POISON
// CHECK-POISON: accel-run: error: --poison '0:999:nan' is out of range

// .npy inputs: make one (a 3x5 float64 array) by saving a result, read it back,
// then feed it where its shape or dtype is wrong.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: accel-run %s --entry=softmax --repeat=0 --save-outputs=%t.dir | FileCheck %s --check-prefix=CHECK-OK
// RUN: accel-run %s --entry=softmax --repeat=0 --input=%t.dir/softmax.0.npy | FileCheck %s --check-prefix=CHECK-OK
// CHECK-OK: accel-run: 1 of 1 functions passed
// RUN: not accel-run %s --entry=wrong_shape --input=%t.dir/softmax.0.npy 2>&1 | FileCheck %s --check-prefix=CHECK-SHAPE
// CHECK-SHAPE: accel-run: error: argument #0 is tensor<5x3xf32> but '{{.*}}softmax.0.npy' has shape 3x5
// RUN: not accel-run %s --entry=wrong_dtype --input=%t.dir/softmax.0.npy 2>&1 | FileCheck %s --check-prefix=CHECK-DTYPE
// CHECK-DTYPE: accel-run: error: argument #0 has element type i8 but '{{.*}}softmax.0.npy' holds '<f8'
// RUN: not accel-run %s --entry=softmax --input=%t.dir/missing.npy 2>&1 | FileCheck %s --check-prefix=CHECK-NOFILE
// CHECK-NOFILE: accel-run: error: argument #0: '{{.*}}missing.npy': cannot read
// RUN: not accel-run %s --entry=softmax --input=%s 2>&1 | FileCheck %s --check-prefix=CHECK-NOTNPY
// CHECK-NOTNPY: accel-run: error: argument #0: '{{.*}}errors.mlir': not a .npy file (bad magic)
// RUN: not accel-run %s --entry=softmax --input=%t.dir/softmax.0.npy --input=%t.dir/softmax.0.npy 2>&1 | FileCheck %s --check-prefix=CHECK-EXTRA
// CHECK-EXTRA: accel-run: error: got 2 --input files but @softmax reads 1 tensor arguments

func.func private @decl(tensor<4xf32>) -> tensor<4xf32>

func.func @softmax(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %y = tensor.empty() : tensor<3x5xf32>
  %0 = accel.softmax dimension(1) ins(%x : tensor<3x5xf32>) outs(%y : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

func.func @wrong_shape(%x: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %y = tensor.empty() : tensor<5x3xf32>
  %0 = accel.softmax dimension(1) ins(%x : tensor<5x3xf32>) outs(%y : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

func.func @wrong_dtype(%a: tensor<3x5xi8>, %b: tensor<5x2xi8>) -> tensor<3x2xi32> {
  %c = tensor.empty() : tensor<3x2xi32>
  %0 = accel.matmul ins(%a, %b : tensor<3x5xi8>, tensor<5x2xi8>) outs(%c : tensor<3x2xi32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<4x4xf32> {
  %y = tensor.empty() : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

func.func @not_modelled(%x: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<3x5xf32> to tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}
