// The vector exp2 of accel-cpu-vectorize-elementwise (lib/Transforms/
// FastExp2.cpp), run on the CPU against libm's exp in f64: 16384 points
// across [-125, 128) (steps of 253/16384, so the fractions vary), the worst
// relative error printed and gated at 2 ulp (2.4e-7); then the edges: the
// flush to 0 at and below -125.5 and for -inf, +inf at 128 and above, NaN
// kept, and the exact powers of two.
// RUN: accel-opt %s --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise))" | FileCheck %s --check-prefix=IR
// RUN: accel-opt %s --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise))" | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// IR-LABEL: func.func @exp2
// IR-DAG: %[[M:.+]] = arith.constant dense<0x4B40007E> : vector<16xf32>
// IR-NOT: math.exp
// The clamps select x when the comparison fails, so a NaN passes them (no
// NaN test at the end).
// IR: %[[LT:.+]] = arith.cmpf olt, %[[X:.+]], %{{.+}} : vector<16xf32>
// IR: %[[XL:.+]] = arith.select %[[LT]], %{{.+}}, %[[X]]
// IR: %[[GT:.+]] = arith.cmpf ogt, %[[XL]], %{{.+}} : vector<16xf32>
// IR: %[[XC:.+]] = arith.select %[[GT]], %{{.+}}, %[[XL]]
// IR: %[[T:.+]] = arith.addf %[[XC]], %[[M]] : vector<16xf32>
// IR-COUNT-6: math.fma
// IR: %[[B:.+]] = arith.bitcast %[[T]] : vector<16xf32> to vector<16xi32>
// IR: arith.shli %[[B]]
// IR-NOT: arith.cmpf uno
// IR-NOT: math.exp
// The short form: one clamp (below), four FMAs.
// IR-LABEL: func.func @exp2_short
// IR: arith.cmpf olt
// IR-NOT: arith.cmpf
// IR-COUNT-4: math.fma
// IR-NOT: math.fma
// IR: arith.shli
// IR-LABEL: func.func @main
func.func @exp2(%x: memref<16384xf32>, %y: memref<16384xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : memref<16384xf32>) outs(%y : memref<16384xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp2 %a : f32
    linalg.yield %e : f32
  }
  return
}

func.func @edges(%x: memref<16xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp2 %a : f32
    linalg.yield %e : f32
  }
  return
}

// The softmax's exp2: an operand at most 128 (no upper clamp) whose users
// allow 2^-17 relative error (a polynomial of degree 4).
func.func @exp2_short(%x: memref<16384xf32>, %y: memref<16384xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : memref<16384xf32>) outs(%y : memref<16384xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp2 %a {accel.exp2_bounded, accel.exp2_tolerance = 7.62939453125E-6 : f64} : f32
    linalg.yield %e : f32
  }
  return
}

// The worst relative error of y = exp2(x) against libm in f64.
func.func @worst(%x: memref<16384xf32>, %y: memref<16384xf32>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 16384 : index
  %zero = arith.constant 0.0 : f64
  %ln2 = arith.constant 0.69314718055994530942 : f64
  %worst = scf.for %i = %c0 to %n step %c1 iter_args(%w = %zero) -> f64 {
    %xv = memref.load %x[%i] : memref<16384xf32>
    %yv = memref.load %y[%i] : memref<16384xf32>
    %xd = arith.extf %xv : f32 to f64
    %yd = arith.extf %yv : f32 to f64
    // exp(x ln 2): mlir-runner's JIT crashes on llvm.exp2.f64 (LLVM 22).
    %xl = arith.mulf %xd, %ln2 : f64
    %ref = math.exp %xl : f64
    %d = arith.subf %yd, %ref : f64
    %ad = math.absf %d : f64
    %rel = arith.divf %ad, %ref : f64
    // NaN (an unwritten output) wins the maximum.
    %m = arith.maximumf %w, %rel : f64
    scf.yield %m : f64
  }
  return %worst : f64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 16384 : index
  %nan = arith.constant 0x7FC00000 : f32
  %x = memref.alloc() {alignment = 64 : i64} : memref<16384xf32>
  %y = memref.alloc() {alignment = 64 : i64} : memref<16384xf32>
  // x_i = -125 + i * 253/16384 (exact in f32), written with plain loops (only @exp2's generic is
  // vectorized; the reference below stays scalar: libm in f64).
  %lo = arith.constant -125.0 : f32
  %inv = arith.constant 0.01544189453125 : f32
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %scaled = arith.mulf %fi, %inv : f32
    %v = arith.addf %lo, %scaled : f32
    memref.store %v, %x[%i] : memref<16384xf32>
    memref.store %nan, %y[%i] : memref<16384xf32>
  }
  call @exp2(%x, %y) : (memref<16384xf32>, memref<16384xf32>) -> ()
  %worst = call @worst(%x, %y) : (memref<16384xf32>, memref<16384xf32>) -> f64
  // CHECK: worst relative error
  // CHECK-NEXT: {{[0-9.]+e-0[78]|0}}
  // CHECK-NEXT: within 2 ulp
  // CHECK-NEXT: 1
  vector.print str "worst relative error\n"
  vector.print %worst : f64
  %gate = arith.constant 2.384185791015625e-07 : f64
  %ok = arith.cmpf ole, %worst, %gate : f64
  vector.print str "within 2 ulp\n"
  vector.print %ok : i1

  // The short form (degree 4) on the same points: its error (2.7e-6 in
  // f32) gated at 4e-6; degree 3's (7.5e-5) would fail it.
  // CHECK: short form: worst relative error
  // CHECK-NEXT: {{[0-9.]+e-06}}
  // CHECK-NEXT: within 4e-6
  // CHECK-NEXT: 1
  scf.for %i = %c0 to %n step %c1 {
    memref.store %nan, %y[%i] : memref<16384xf32>
  }
  call @exp2_short(%x, %y) : (memref<16384xf32>, memref<16384xf32>) -> ()
  %worstShort = call @worst(%x, %y) : (memref<16384xf32>, memref<16384xf32>) -> f64
  vector.print str "short form: worst relative error\n"
  vector.print %worstShort : f64
  %gateShort = arith.constant 4.0e-06 : f64
  %okShort = arith.cmpf ole, %worstShort, %gateShort : f64
  vector.print str "within 4e-6\n"
  vector.print %okShort : i1

  %ex = arith.constant dense<[0xFF800000, -1000.0, -127.0, -125.5, -125.0, -1.0, 0.0, 0.5,
                              1.0, 10.0, 127.0, 127.5, 128.0, 1000.0, 0x7F800000, 0x7FC00000]> : vector<16xf32>
  %xe = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %ye = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  vector.store %ex, %xe[%c0] : memref<16xf32>, vector<16xf32>
  %nanv = vector.broadcast %nan : f32 to vector<16xf32>
  vector.store %nanv, %ye[%c0] : memref<16xf32>, vector<16xf32>
  call @edges(%xe, %ye) : (memref<16xf32>, memref<16xf32>) -> ()
  %ve = vector.load %ye[%c0] : memref<16xf32>, vector<16xf32>
  // exp2 of -inf, -1000, -127, -125.5 (flushed: 0), -125 (2^-125), -1,
  // 0, 0.5, 1, 10, 127, 127.5, 128 (inf), 1000, +inf, NaN.
  // CHECK: ( 0, 0, 0, 0, 2.35099e-38, 0.5, 1, 1.41421, 2, 1024, 1.70141e+38, 2.40616e+38, inf, inf, inf, nan )
  vector.print %ve : vector<16xf32>
  memref.dealloc %x : memref<16384xf32>
  memref.dealloc %y : memref<16384xf32>
  memref.dealloc %xe : memref<16xf32>
  memref.dealloc %ye : memref<16xf32>
  return
}
