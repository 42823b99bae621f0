// Output paths accel-opt cannot write (docs/bad-input-catalogue.md, row 39;
// a missing folder is in driver.mlir): an error naming the path and the
// reason, exit code 1, before any work; and -o naming the input itself,
// which a successful run replaces with its output.

// RUN: rm -rf %t && mkdir -p %t/dir
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %s -o %t/dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: accel-opt: error: cannot write output file '{{.*}}dir{{/?}}': Is a directory
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt %s -o %t/dir/ 2>&1 | FileCheck %s --check-prefix=DIR

// RUN: cp %s %t/in.mlir
// RUN: accel-opt %t/in.mlir --accel-attach-target=name=h100 -o %t/in.mlir
// RUN: FileCheck %s --check-prefix=INPLACE < %t/in.mlir
// INPLACE: module attributes {accel.target = #accel.target<
// INPLACE: func.func @f()

func.func @f() {
  return
}
