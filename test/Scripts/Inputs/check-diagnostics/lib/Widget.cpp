// A fixture for test/Scripts/check-diagnostics.test: each message below is
// covered, allowlisted or not by the fixture's tests, as its comment says.
LogicalResult verifyWidget(Operation *op, Location loc) {
  if (a)  // a CHECK line of test/widget.mlir
    return op->emitOpError("widget frobnication failed badly");
  if (b)  // an expected-warning of test/widget.mlir
    return op->emitWarning("flange pressure exceeds its limit");
  if (c)  // only in a comment of test/widget.mlir
    return emitError(loc, "gadget calibration went wrong");
  if (d)  // only in a CHECK-NOT line, which asserts absence
    return emitError(loc, "sprocket alignment is impossible");
  if (e)  // only on a RUN line
    return emitError(loc) << "doohickey count must be positive, got " << n;
  if (f)  // an EXPECT_EQ of unittests/WidgetTest.cpp
    return emitError(loc, "cog teeth do not mesh at all");
  if (g)  // a string constant an EXPECT_NE names
    return emitError(loc, "axle length is not a multiple of 4");
  if (h)  // a loop over a table whose message column an EXPECT reads
    return emitError(loc, "bearing wear is past its limit: ") << name;
  if (i)  // only in the table's description column
    return emitError(loc, "pulley ratio cannot be zero here");
  if (j)  // a pytest match= of python/tests/test_widget.py
    return emitError(loc, "spindle speed is out of range");
  if (k)  // an `assert ... in` of python/tests/test_widget.py
    return emitRemark(loc, "lever arm was extended by one");
  if (l)  // a string python/tests/test_widget.py prints, not asserts
    return emitError(loc, "ratchet slipped a tooth again");
  if (m)  // allowlisted
    return emitError(loc, "gizmo is not registered in this build");
  return success();
}
