// Bad input at the driver level: a located `error:`, a failing exit status
// that is not a crash (`not` fails on a signal), and no output file.

// RUN: not accel-opt %S/Inputs/truncated.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-TRUNC
// CHECK-TRUNC: truncated.mlir:{{[0-9]+}}:{{[0-9]+}}: error:

// RUN: not accel-opt %S/Inputs/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-UNKNOWN
// CHECK-UNKNOWN: unknown-op.mlir:3:12: error: operation being parsed with an unregistered dialect

// Random bytes and NUL bytes are parse errors, not crashes.
// RUN: printf 'func.func @f() {\0\377\376 }' > %t.nul.mlir
// RUN: not accel-opt %t.nul.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-BYTES
// CHECK-BYTES: nul.mlir:1:{{[0-9]+}}: error:

// RUN: not accel-opt --accel-no-such-pass %s 2>&1 | FileCheck %s --check-prefix=CHECK-BADFLAG
// CHECK-BADFLAG: Unknown command line argument '--accel-no-such-pass'

// RUN: not accel-opt --pass-pipeline='builtin.module(accel-attach-target{name=h100' %s 2>&1 | FileCheck %s --check-prefix=CHECK-PIPELINE
// CHECK-PIPELINE: error: {{.*}}

// RUN: not accel-opt --accel-attach-target=bogus=1 %s 2>&1 | FileCheck %s --check-prefix=CHECK-BADOPT
// CHECK-BADOPT: no such option bogus

// A failing pass leaves no output file behind.
// RUN: rm -f %t.out
// RUN: not accel-opt %s --accel-attach-target=name=nope -o %t.out 2>&1 | FileCheck %s --check-prefix=CHECK-NOOUT
// RUN: not test -e %t.out
// CHECK-NOOUT: error: unknown target 'nope'

// An output path that cannot be written is an error.
// RUN: not accel-opt %s -o %t.missing-dir/sub/out.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-UNWRITABLE
// CHECK-UNWRITABLE: accel-opt: error: cannot write output file '{{.*}}out.mlir': No such file or directory

// The version banner names the LLVM it was built against.
// RUN: accel-opt --version | FileCheck %s --check-prefix=CHECK-VERSION
// CHECK-VERSION: LLVM

func.func @ok() {
  return
}
