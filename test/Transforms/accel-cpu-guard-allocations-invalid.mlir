// RUN: accel-opt %s --split-input-file --verify-diagnostics --accel-cpu-guard-allocations
// RUN: not accel-opt %s --split-input-file --accel-cpu-guard-allocations="callee=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: accel-cpu-guard-allocations: the callee name is empty

// The callee is called with no arguments and must not return: a function
// of that name with another type, or another kind of symbol, is an error.

// expected-error @below {{accel-cpu-guard-allocations: 'accel_allocation_failed' is the function called for an allocation that cannot be made, so it must be a func.func of type () -> ()}}
func.func private @accel_allocation_failed(i64)
func.func @f(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// expected-error @below {{must be a func.func of type () -> ()}}
memref.global "private" @accel_allocation_failed : memref<4xf32>
func.func @g(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A module with no dynamic allocation is not looked at.
func.func private @accel_allocation_failed(i64)
func.func @h() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A stack allocation sized at run time cannot be checked against the stack.
func.func @stack(%n: index) {
  // expected-error @below {{'memref.alloca' op has sizes known only at run time, which accel-cpu-guard-allocations cannot check against the stack: allocate it with memref.alloc}}
  %a = memref.alloca(%n) : memref<?xf32>
  return
}

// -----

// Elements whose size is unknown: the product could not be bounded.
func.func @descriptors(%n: index) {
  // expected-error @below {{'memref.alloc' op has elements of type 'memref<4xf32>', whose size accel-cpu-guard-allocations does not know}}
  %a = memref.alloc(%n) : memref<?xmemref<4xf32>>
  memref.dealloc %a : memref<?xmemref<4xf32>>
  return
}
