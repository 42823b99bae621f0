//===- Passes.td - accel transformation passes -------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TRANSFORMS_PASSES_TD
#define ACCEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelAttachTargetPass : Pass<"accel-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach a catalogue target description to the module";
  let description = [{
    Sets the `accel.target` attribute of the module to the `#accel.target`
    of a catalogue entry (docs/targets.md lists them with their sources).
    Later passes (tiling, precision lowering, the roofline report) read
    their figures from it. An existing `accel.target` is replaced.

    ```
    accel-opt --accel-attach-target=name=h100 in.mlir
    ```

    An unknown name is an error that lists the known ones.
  }];
  let options = [
    Option<"targetName", "name", "std::string", "\"x86-64-avx512\"",
           "Catalogue name of the target (h100, mi300x, x86-64-avx512, ...)">
  ];
  let dependentDialects = ["::mlir::accel::AccelDialect"];
}

#endif // ACCEL_TRANSFORMS_PASSES_TD
