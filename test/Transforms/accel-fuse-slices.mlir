// RUN: accel-opt %s --split-input-file --accel-fuse-slices | FileCheck %s

// RoPE, half-split: the slices fold into maps of x, the two rotations and
// the concat become one generic over all of d. Both pieces read x, cos and
// sin through the same maps (one operand each); the first piece's value is
// kept for d < 32.
// CHECK-DAG: #[[LO:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2 mod 32)>
// CHECK-DAG: #[[HI:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2 mod 32 + 32)>
// CHECK-DAG: #[[T:.+]] = affine_map<(d0, d1, d2) -> (d0, d2 mod 32)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @half_split
// CHECK-SAME: (%[[X:.+]]: tensor<4x2x64xf32>, %[[C:.+]]: tensor<4x32xf32>, %[[S:.+]]: tensor<4x32xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.concat
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[LO]], #[[HI]], #[[T]], #[[T]], #[[ID]]]
// CHECK-SAME: ins(%[[X]], %[[X]], %[[C]], %[[S]] :
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[CC:.+]]: f32, %[[SS:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[D:.+]] = linalg.index 2
// CHECK-DAG: %[[BC:.+]] = arith.mulf %[[B]], %[[CC]]
// CHECK-DAG: %[[AS:.+]] = arith.mulf %[[A]], %[[SS]]
// CHECK-DAG: %[[SECOND:.+]] = arith.addf %[[BC]], %[[AS]]
// CHECK-DAG: %[[AC:.+]] = arith.mulf %[[A]], %[[CC]]
// CHECK-DAG: %[[BS:.+]] = arith.mulf %[[B]], %[[SS]]
// CHECK-DAG: %[[FIRST:.+]] = arith.subf %[[AC]], %[[BS]]
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[D]], %c32
// CHECK: %[[V:.+]] = arith.select %[[IN]], %[[FIRST]], %[[SECOND]]
// CHECK: linalg.yield %[[V]]
// CHECK: return %[[R]]
#x = affine_map<(s, h, d) -> (s, h, d)>
#t = affine_map<(s, h, d) -> (s, d)>
func.func @half_split(%x: tensor<4x2x64xf32>, %cos: tensor<4x32xf32>, %sin: tensor<4x32xf32>) -> tensor<4x2x64xf32> {
  %x1 = tensor.extract_slice %x[0, 0, 0] [4, 2, 32] [1, 1, 1] : tensor<4x2x64xf32> to tensor<4x2x32xf32>
  %x2 = tensor.extract_slice %x[0, 0, 32] [4, 2, 32] [1, 1, 1] : tensor<4x2x64xf32> to tensor<4x2x32xf32>
  %e = tensor.empty() : tensor<4x2x32xf32>
  %o1 = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x1, %x2, %cos, %sin : tensor<4x2x32xf32>, tensor<4x2x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<4x2x32xf32>
  %o2 = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x1, %x2, %cos, %sin : tensor<4x2x32xf32>, tensor<4x2x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) outs(%e : tensor<4x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<4x2x32xf32>
  %r = tensor.concat dim(2) %o1, %o2 : (tensor<4x2x32xf32>, tensor<4x2x32xf32>) -> tensor<4x2x64xf32>
  return %r : tensor<4x2x64xf32>
}

// -----

// Interleaved: stride-2 slices and stride-2 inserts into an empty tensor.
// Both pieces index their pair as (d floordiv 2) mod 8; the even piece is
// kept where d < 15 and d mod 2 == 0.
// CHECK-DAG: #[[E:.+]] = affine_map<(d0, d1) -> (d0, ((d1 floordiv 2) mod 8) * 2)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1) -> (d0, ((d1 floordiv 2) mod 8) * 2 + 1)>
// CHECK-DAG: #[[T:.+]] = affine_map<(d0, d1) -> (d0, (d1 floordiv 2) mod 8)>
// CHECK-LABEL: func.func @interleaved
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic {indexing_maps = [#[[E]], #[[O]], #[[T]], #[[T]], #{{.+}}]
// CHECK: %[[D:.+]] = linalg.index 1
// CHECK: arith.cmpi ult, %[[D]], %c15
// CHECK: %[[REM:.+]] = arith.remui %[[D]], %c2
// CHECK: arith.cmpi eq, %[[REM]], %c0
// CHECK: arith.select
#m = affine_map<(s, d) -> (s, d)>
func.func @interleaved(%x: tensor<3x16xf32>, %cos: tensor<3x8xf32>, %sin: tensor<3x8xf32>) -> tensor<3x16xf32> {
  %xe = tensor.extract_slice %x[0, 0] [3, 8] [1, 2] : tensor<3x16xf32> to tensor<3x8xf32>
  %xo = tensor.extract_slice %x[0, 1] [3, 8] [1, 2] : tensor<3x16xf32> to tensor<3x8xf32>
  %e = tensor.empty() : tensor<3x8xf32>
  %oe = linalg.generic {indexing_maps = [#m, #m, #m, #m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) outs(%e : tensor<3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<3x8xf32>
  %oo = linalg.generic {indexing_maps = [#m, #m, #m, #m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) outs(%e : tensor<3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<3x8xf32>
  %out0 = tensor.empty() : tensor<3x16xf32>
  %out1 = tensor.insert_slice %oe into %out0[0, 0] [3, 8] [1, 2] : tensor<3x8xf32> into tensor<3x16xf32>
  %out2 = tensor.insert_slice %oo into %out1[0, 1] [3, 8] [1, 2] : tensor<3x8xf32> into tensor<3x16xf32>
  return %out2 : tensor<3x16xf32>
}

// -----

// Three pieces of unequal sizes: each read at its own index wrapped into
// its size, the constant making (offset) vanish: 0 for [0, 4), 2 for [4, 10)
// (4 + 2 = 6), 0 for [10, 16) wraps as (d + 2) mod 6.
// CHECK-DAG: affine_map<(d0) -> (d0 mod 4)>
// CHECK-DAG: affine_map<(d0) -> ((d0 + 2) mod 6)>
// CHECK-LABEL: func.func @three
// CHECK: linalg.generic
// CHECK-DAG: arith.cmpi uge, %{{.+}}, %c4
// CHECK-DAG: arith.cmpi ult, %{{.+}}, %c10
// CHECK-DAG: arith.cmpi ult, %{{.+}}, %c4
// CHECK-NOT: tensor.concat
#v = affine_map<(d) -> (d)>
func.func @three(%a: tensor<4xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> tensor<16xf32> {
  %e4 = tensor.empty() : tensor<4xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%b : tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<6xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%c : tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<6xf32>
  %s = tensor.concat dim(0) %p, %q, %r : (tensor<4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// Left alone: a piece with another user (it is stored anyway), inserts
// that leave elements unwritten, a piece reading its index along the split
// dimension.
// CHECK-LABEL: func.func @shared_piece
// CHECK: tensor.concat
// CHECK-LABEL: func.func @gap
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
// CHECK-LABEL: func.func @index_along_split
// CHECK: tensor.concat
#v = affine_map<(d) -> (d)>
func.func @shared_piece(%a: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %s = tensor.concat dim(0) %p, %q : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %s, %p : tensor<8xf32>, tensor<4xf32>
}
func.func @gap(%a: tensor<4xf32>) -> tensor<12xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %o0 = tensor.empty() : tensor<12xf32>
  %o1 = tensor.insert_slice %p into %o0[0] [4] [1] : tensor<4xf32> into tensor<12xf32>
  %o2 = tensor.insert_slice %q into %o1[8] [4] [1] : tensor<4xf32> into tensor<12xf32>
  return %o2 : tensor<12xf32>
}
func.func @index_along_split(%a: tensor<4xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %y = arith.addf %x, %f : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %s = tensor.concat dim(0) %p, %q : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A slice a reduction reads stays: folded, no map would name the reduced
// loop on its own, and the loops could not be read off the maps.
// CHECK-LABEL: func.func @slice_into_reduction
// CHECK: %[[S:.+]] = tensor.extract_slice
// CHECK: linalg.generic {{.*}} ins(%[[S]] :
func.func @slice_into_reduction(%x: tensor<8x128xf32>) -> tensor<8xf32> {
  %h = tensor.extract_slice %x[0, 64] [8, 64] [1, 1] : tensor<8x128xf32> to tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<8x64xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
