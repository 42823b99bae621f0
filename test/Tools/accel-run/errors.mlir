// accel-run rejects bad input with an `error:` and exit status 1, never a
// crash (`not` fails on a signal).

// RUN: not accel-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING
// CHECK-MISSING: accel-run: error: no function @nope with a body in

// RUN: not accel-run %s --entry=decl 2>&1 | FileCheck %s --check-prefix=CHECK-DECL
// CHECK-DECL: accel-run: error: no function @decl with a body in

// RUN: not accel-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=CHECK-DYN
// CHECK-DYN: accel-run: error: argument #0 of @dynamic has a dynamic shape (tensor<?x4xf32>); accel-run needs static shapes

// Index and complex tensors have no byte layout in the reference: an
// error, not a crash (found by a review of accel-cpu-transpose-kernels).
// RUN: not accel-run %s --entry=index_result 2>&1 | FileCheck %s --check-prefix=CHECK-INDEX
// CHECK-INDEX: accel-run: error: @index_result returns tensor<4x3xindex>; accel-run runs tensors of integers and floats only
// RUN: not accel-run %s --entry=complex_arg 2>&1 | FileCheck %s --check-prefix=CHECK-CPLX-ARG
// CHECK-CPLX-ARG: accel-run: error: argument #0 of @complex_arg is tensor<2xcomplex<f32>>; accel-run runs tensors of integers and floats only

// RUN: not accel-run %s --entry=not_modelled 2>&1 | FileCheck %s --check-prefix=CHECK-ORACLE
// CHECK-ORACLE: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tensor.pad' op is not modelled by the fp64 oracle

// RUN: not accel-run %s --entry=softmax --dist=gaussian 2>&1 | FileCheck %s --check-prefix=CHECK-DIST
// CHECK-DIST: accel-run: error: --dist must be uniform, normal or exact, got 'gaussian'

// RUN: not accel-run %s --entry=softmax --target=rocm 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET
// CHECK-TARGET: accel-run: error: --target=rocm cannot run here (cpu, systolic and, with an NVIDIA or AMD GPU, nvptx and amdgpu execute)

// RUN: not accel-run %s --entry=softmax --poison=0:999:nan 2>&1 | FileCheck %s --check-prefix=CHECK-POISON
// CHECK-POISON: accel-run: error: --poison '0:999:nan' is out of range

// RUN: not accel-run %s --entry=softmax --pre-passes=no-such-pass 2>&1 | FileCheck %s --check-prefix=CHECK-PRE
// CHECK-PRE: accel-run: error: bad --pre-passes 'no-such-pass':
// RUN: not accel-run %s --entry=softmax --pre-passes=transform-interpreter 2>&1 | FileCheck %s --check-prefix=CHECK-PRE-FAIL
// CHECK-PRE-FAIL: accel-run: error: --pre-passes 'transform-interpreter' failed on

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
// CHECK-NOFILE: accel-run: error: argument #0: '{{.*}}missing.npy': cannot read: No such file or directory
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

// Malformed .npy files, made by a standard-library script.
// RUN: %python %S/Inputs/make_npy.py %t.npy
// RUN: not accel-run %s --entry=softmax --input=%t.npy/fortran.npy 2>&1 | FileCheck %s --check-prefix=CHECK-FORTRAN
// CHECK-FORTRAN: error: argument #0: '{{.*}}fortran.npy': Fortran-ordered arrays are not supported; save with np.ascontiguousarray
// RUN: not accel-run %s --entry=softmax --input=%t.npy/bigendian.npy 2>&1 | FileCheck %s --check-prefix=CHECK-BIG
// CHECK-BIG: error: argument #0: '{{.*}}bigendian.npy': big-endian data (>f4) is not supported
// RUN: not accel-run %s --entry=softmax --input=%t.npy/complex.npy 2>&1 | FileCheck %s --check-prefix=CHECK-COMPLEX
// CHECK-COMPLEX: error: argument #0: '{{.*}}complex.npy': unsupported dtype '<c8' (bool, int8-64, uint8, float16/32/64 are read)
// RUN: not accel-run %s --entry=softmax --input=%t.npy/nodescr.npy 2>&1 | FileCheck %s --check-prefix=CHECK-NODESCR
// CHECK-NODESCR: error: argument #0: '{{.*}}nodescr.npy': header lacks descr, fortran_order or shape
// RUN: not accel-run %s --entry=softmax --input=%t.npy/version9.npy 2>&1 | FileCheck %s --check-prefix=CHECK-VERSION
// CHECK-VERSION: error: argument #0: '{{.*}}version9.npy': unsupported .npy version 9
// RUN: not accel-run %s --entry=softmax --input=%t.npy/truncated.npy 2>&1 | FileCheck %s --check-prefix=CHECK-TRUNC
// CHECK-TRUNC: error: argument #0: '{{.*}}truncated.npy': truncated header
// RUN: not accel-run %s --entry=softmax --input=%t.npy/short.npy 2>&1 | FileCheck %s --check-prefix=CHECK-SHORT
// CHECK-SHORT: error: argument #0: '{{.*}}short.npy': holds 20 data bytes, shape (3, 5) of '<f4' needs 60
// A float16 array feeds an f32 argument (values are exact in both).
// RUN: accel-run %s --entry=softmax --repeat=0 --input=%t.npy/f16.npy | FileCheck %s --check-prefix=CHECK-OK

// RUN: not accel-run %s --entry=softmax --save-outputs=%t.no/such/dir 2>&1 | FileCheck %s --check-prefix=CHECK-NOSAVE
// CHECK-NOSAVE: accel-run: error: '{{.*}}softmax.0.npy': cannot write:

// Command lines.
// RUN: not accel-run %s --entry=softmax --poison=0:1 2>&1 | FileCheck %s --check-prefix=CHECK-POISON-FORM
// CHECK-POISON-FORM: accel-run: error: --poison expects ARG:INDEX:VALUE, got '0:1'
// RUN: not accel-run %s --entry=softmax --poison=0:1:lots 2>&1 | FileCheck %s --check-prefix=CHECK-POISON-VALUE
// CHECK-POISON-VALUE: accel-run: error: --poison value 'lots' is not a number
// RUN: not accel-run %s --entry=softmax --num-threads=0 2>&1 | FileCheck %s --check-prefix=CHECK-THREADS
// CHECK-THREADS: accel-run: error: --num-threads must be at least 1
// RUN: not accel-run %s --entry=softmax,wrong_shape --input=%t.dir/softmax.0.npy 2>&1 | FileCheck %s --check-prefix=CHECK-TWO
// CHECK-TWO: accel-run: error: --input files need exactly one function; choose it with --entry
// RUN: not accel-run %s --entry=softmax --cpu-pipeline-options="register-tile=a" 2>&1 | FileCheck %s --check-prefix=CHECK-OPTIONS
// CHECK-OPTIONS: accel-run: error: bad --cpu-pipeline-options 'register-tile=a'

// What the oracle does not model is said, with the op's location.
// RUN: not accel-run %s --entry=dynamic_empty 2>&1 | FileCheck %s --check-prefix=CHECK-DYNEMPTY
// CHECK-DYNEMPTY: error: 'tensor.empty' op the fp64 oracle needs static shapes
// RUN: not accel-run %s --entry=sparse_constant 2>&1 | FileCheck %s --check-prefix=CHECK-SPARSE
// CHECK-SPARSE: error: 'arith.constant' op the fp64 oracle does not model this constant
// RUN: not accel-run %s --entry=transposed_a 2>&1 | FileCheck %s --check-prefix=CHECK-TRANSA
// CHECK-TRANSA: error: 'linalg.matmul' op the fp64 oracle models matmuls of the form (b.., m, k) x (b.., k, n) or (b.., n, k) only
// RUN: not accel-run %s --entry=broadcast_b 2>&1 | FileCheck %s --check-prefix=CHECK-BCAST
// CHECK-BCAST: error: 'linalg.batch_matmul' op the fp64 oracle models matmuls of the form
// RUN: not accel-run %s --entry=unsigned_cast 2>&1 | FileCheck %s --check-prefix=CHECK-UNSIGNED
// CHECK-UNSIGNED: error: 'linalg.matmul' op the fp64 oracle models signed casts only
// RUN: not accel-run %s --entry=tosa_zero_point 2>&1 | FileCheck %s --check-prefix=CHECK-ZP
// CHECK-ZP: error: 'tosa.matmul' op the fp64 oracle models tosa.matmul with zero zero points only
// RUN: not accel-run %s --entry=dynamic_head_dim 2>&1 | FileCheck %s --check-prefix=CHECK-HEAD
// CHECK-HEAD: error: 'accel.attention' op the fp64 oracle needs a static head dimension or an explicit scale

func.func @dynamic_empty() -> tensor<4x4xf32> {
  %d = arith.constant 4 : index
  %e = tensor.empty(%d) : tensor<?x4xf32>
  %c = tensor.cast %e : tensor<?x4xf32> to tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

func.func @sparse_constant() -> tensor<4x4xf32> {
  %c = arith.constant sparse<[[0, 0]], [1.0]> : tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

func.func @transposed_a(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<8x4xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func @tosa_zero_point(%a: tensor<1x4x8xi8>, %b: tensor<1x8x16xi8>) -> tensor<1x4x16xi32> {
  %azp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<1x4x8xi8>, tensor<1x8x16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x16xi32>
  return %0 : tensor<1x4x16xi32>
}

func.func @dynamic_head_dim(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %o: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %qd = tensor.cast %q : tensor<1x1x4x8xf32> to tensor<1x1x4x?xf32>
  %kd = tensor.cast %k : tensor<1x1x4x8xf32> to tensor<1x1x4x?xf32>
  %0 = accel.attention ins(%qd, %kd, %k : tensor<1x1x4x?xf32>, tensor<1x1x4x?xf32>, tensor<1x1x4x8xf32>) outs(%o : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

func.func @broadcast_b(%a: tensor<3x4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<3x4x6xf32>) -> tensor<3x4x6xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%a, %b : tensor<3x4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}

func.func @unsigned_cast(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

func.func @index_result(%a: tensor<3x4xindex>) -> tensor<4x3xindex> {
  %e = tensor.empty() : tensor<4x3xindex>
  %t = linalg.transpose ins(%a : tensor<3x4xindex>) outs(%e : tensor<4x3xindex>) permutation = [1, 0]
  return %t : tensor<4x3xindex>
}

func.func @complex_arg(%a: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  return %e : tensor<2xf32>
}
