//===- Module.cpp - the accel._core Python extension ----------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// nanobind bindings of CoreApi.h. This file is compiled with exceptions (which
// nanobind needs) and so must not include LLVM or MLIR headers, whose
// libraries are built without them: everything crosses as std::string.
//
// A failed call raises accel._core.AccelError (a RuntimeError) whose message
// and `diagnostics` attribute are the compiler's located diagnostics. The
// compiler runs with the GIL released, so other Python threads keep running
// during a long pipeline.
//
//===----------------------------------------------------------------------===//

#include "CoreApi.h"
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <utility>

namespace nb = nanobind;
using mlir::accel::python::CoreResult;

namespace {

/// Returns the output of `result`, or raises `errorType` with its
/// diagnostics (also as the `diagnostics` attribute, so callers need not
/// parse the message).
std::string unwrap(nb::handle errorType, CoreResult result) {
  if (result.ok)
    return std::move(result.output);
  nb::str diagnostics(result.diagnostics.data(), result.diagnostics.size());
  nb::object error = errorType(diagnostics.attr("rstrip")());
  error.attr("diagnostics") = diagnostics;
  PyErr_SetObject(errorType.ptr(), error.ptr());
  throw nb::python_error();
}

} // namespace

NB_MODULE(_core, m) {
  m.doc() = "In-process accel compiler: parse, verify and run pass pipelines "
            "on MLIR text.";

  // A new exception type rather than nb::exception<>, because the instance
  // carries an attribute. The module holds one reference; the one created
  // here is kept on purpose, since the bound functions below use the type
  // for as long as the process lives.
  PyObject *errorType = PyErr_NewExceptionWithDoc(
      "accel._core.AccelError",
      "The accel compiler rejected its input; `diagnostics` holds its "
      "located messages (\"<python>:LINE:COL: error: ...\").",
      PyExc_RuntimeError, nullptr);
  if (!errorType)
    throw nb::python_error();
  nb::handle error(errorType);
  m.attr("AccelError") = nb::borrow(error);

  m.def(
      "parse",
      [error](const std::string &text, bool generic) {
        CoreResult result;
        {
          nb::gil_scoped_release release;
          result = mlir::accel::python::parseModule(text, generic);
        }
        return unwrap(error, std::move(result));
      },
      nb::arg("text"), nb::arg("generic") = false,
      "Parses and verifies MLIR text and returns it printed (in the generic "
      "op form if `generic`). Raises AccelError on a parse or verifier "
      "error.");

  m.def(
      "run_pipeline",
      [error](const std::string &text, const std::string &pipeline) {
        CoreResult result;
        {
          nb::gil_scoped_release release;
          result = mlir::accel::python::runPipeline(text, pipeline);
        }
        return unwrap(error, std::move(result));
      },
      nb::arg("text"), nb::arg("pipeline"),
      "Parses and verifies MLIR text, runs a textual pass pipeline on it "
      "(\"builtin.module(accel-cpu-pipeline)\" or a bare list such as "
      "\"accel-tile,canonicalize\") and returns the printed result. Raises "
      "AccelError on invalid input, an invalid pipeline or a failed pass.");

  m.def("version", &mlir::accel::python::compilerId,
        "The compiler id, \"accel <version>+<git commit>\".");
}
