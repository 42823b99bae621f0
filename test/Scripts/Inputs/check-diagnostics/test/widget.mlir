// RUN: accel-opt %s -verify-diagnostics -split-input-file
// RUN: not accel-opt %s 2>&1 | grep "doohickey count must be positive"
// RUN: accel-opt %s 2>&1 | FileCheck %s

// The verifier says "gadget calibration went wrong" here, but nothing checks it.
// CHECK: error: 'test.widget' op widget frobnication failed badly
// CHECK-NOT: sprocket alignment is impossible

// expected-warning @+1 {{flange pressure exceeds its limit}}
"test.widget"() : () -> ()
