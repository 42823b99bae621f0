// Output paths accel-opt cannot write (docs/bad-input-catalogue.md, row 39;
// a missing folder is in driver.mlir): an error naming the path and the
// reason, exit code 1, before any work; and -o naming the input itself,
// which a successful run replaces with its output and a failed one leaves.

// RUN: rm -rf %t && mkdir -p %t/dir
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %s -o %t/dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: accel-opt: error: cannot write output file '{{.*}}dir{{/?}}': Is a directory
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %s -o %t/dir/ 2>&1 | FileCheck %s --check-prefix=DIR

// RUN: cp %s %t/in.mlir
// RUN: accel-opt %t/in.mlir --accel-attach-target=name=h100 -o %t/in.mlir
// RUN: FileCheck %s --check-prefix=INPLACE < %t/in.mlir
// INPLACE: module attributes {accel.target = #accel.target<
// INPLACE: func.func @f()

// A failed run leaves an existing file of the output's name as it was, the
// input itself included (docs/bad-input-catalogue.md, F7), writes nothing
// for a new name, and leaves no temporary file behind; the output is
// written beside the path and renamed over it only when the run succeeds.
// RUN: rm -rf %t/keep && mkdir %t/keep && cp %s %t/keep/in.mlir
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %t/keep/in.mlir --accel-attach-target=name=nope -o %t/keep/in.mlir 2>&1 | FileCheck %s --check-prefix=KEEP
// KEEP: error: unknown target 'nope'
// RUN: cmp %s %t/keep/in.mlir
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %s --accel-attach-target=name=nope -o %t/keep/new.mlir 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: ls -A %t/keep | FileCheck %s --check-prefix=LEFT --implicit-check-not={{.}}
// LEFT: in.mlir
// A relative -o is written beside itself too, and through a symlink the
// link stays and its target gets the output (on success only).
// RUN: cd %t/keep && accel-opt in.mlir --accel-attach-target=name=h100 -o in.mlir
// RUN: FileCheck %s --check-prefix=INPLACE < %t/keep/in.mlir
// RUN: cp %s %t/keep/in.mlir && ln -s in.mlir %t/keep/link.mlir
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %t/keep/link.mlir --accel-attach-target=name=nope -o %t/keep/link.mlir 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: cmp %s %t/keep/in.mlir
// RUN: accel-opt %t/keep/link.mlir --accel-attach-target=name=h100 -o %t/keep/link.mlir
// RUN: test -L %t/keep/link.mlir
// RUN: FileCheck %s --check-prefix=INPLACE < %t/keep/in.mlir
// RUN: ls -A %t/keep | FileCheck %s --check-prefix=LINK --implicit-check-not={{.}}
// LINK: in.mlir
// LINK-NEXT: link.mlir

// `-o -` is stdout, and a device (`/dev/null`) is written to, not replaced.
// RUN: accel-opt %s --accel-attach-target=name=h100 -o - | FileCheck %s --check-prefix=INPLACE
// RUN: accel-opt %s -o /dev/null
// RUN: test -c /dev/null

func.func @f() {
  return
}
