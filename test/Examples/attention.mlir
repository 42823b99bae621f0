// The README's main command on the shipped example.
// RUN: accel-opt %accel_src_root/examples/attention.mlir --accel-attach-target=name=h100 --transform-interpreter --canonicalize | FileCheck %s

// CHECK: #[[$KVHEAD:.+]] = affine_map<(d0) -> (d0 floordiv 4)>
// CHECK: module attributes {accel.target = #accel.target<name = "h100", kind = nvptx, chip = "sm_90a"
// CHECK-LABEL: func.func @attention_block
// CHECK: scf.for %[[H:[^ ]+]] = %{{.+}} to %{{.+}} step %c4
// CHECK: scf.for %[[S:[^ ]+]] = %{{.+}} to %{{.+}} step %c128
// CHECK: affine.apply #[[$KVHEAD]](%[[H]])
// CHECK: accel.attention causal diagonal(%[[S]]) ins({{.+}} : tensor<1x4x128x128xbf16>, tensor<1x1x512x128xbf16>, tensor<1x1x512x128xbf16>) outs({{.+}} : tensor<1x4x128x128xbf16>)
// CHECK: accel.matmul transpose_b ins({{.+}} : tensor<128x4096xbf16>, tensor<256x4096xbf16>) outs({{.+}} : tensor<128x256xf32>)
