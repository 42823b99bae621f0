// RUN: not accel-opt %s --accel-decompose-attention="tile-q=0" -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: accel-decompose-attention: tile-q and tile-kv must be positive
func.func @f() {
  return
}

// RUN: not accel-opt %s --accel-decompose-attention="splits=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLITS
// SPLITS: error: accel-decompose-attention: pages and splits must be positive

