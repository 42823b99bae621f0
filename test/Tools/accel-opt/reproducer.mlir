// A failing pipeline is never silent and can be replayed
// (docs/bad-input-catalogue.md, row 11): the pass's located error, exit code
// 1, a reproducer file that records the pipeline with verification after
// each pass on, and --run-reproducer giving the same error from that file.

// RUN: rm -f %t.repro.mlir
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %s --pass-pipeline='builtin.module(accel-attach-target{name=nope})' --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: reproducer.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown target 'nope'; known targets:
// FAIL: note: Pipeline failed while executing [`AccelAttachTargetPass` on 'builtin.module' operation]: reproducer generated at `{{.*}}repro.mlir`

// RUN: FileCheck %s --check-prefix=REPRO < %t.repro.mlir
// REPRO: func.func @f
// REPRO: mlir_reproducer: {
// REPRO-NEXT: pipeline: "builtin.module(accel-attach-target{name=nope})",
// REPRO: verify_each: true

// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %t.repro.mlir --run-reproducer -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPLAY
// REPLAY: repro.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown target 'nope'

// A run that succeeds leaves no reproducer behind.
// RUN: accel-opt %s --accel-attach-target=name=h100 --mlir-pass-pipeline-crash-reproducer=%t.ok.mlir | FileCheck %s --check-prefix=OK
// RUN: not test -e %t.ok.mlir
// OK: func.func @f

func.func @f() {
  return
}
