// An op of a dialect accel-opt does not know.
func.func @f() {
  "foo.bar"() : () -> ()
  return
}
