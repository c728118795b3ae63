// RUN: tilec-opt %s -hoist-loop-local-buffers | FileCheck %s

// A buffer allocated and freed in the same iteration leaves both loops; one
// that the loop yields, or of dynamic size, stays.
// CHECK-LABEL: func.func @loops
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x32xf16>
// CHECK: scf.for
// CHECK:   memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:   scf.for
// CHECK:     memref.store %{{.*}}, %[[T]]
// CHECK:   memref.dealloc %{{.*}} : memref<?xf32>
// CHECK: memref.dealloc %[[T]] : memref<64x32xf16>
// CHECK: %[[Y:.*]] = scf.for {{.*}} -> (memref<16xf32>)
// CHECK:   %[[N:.*]] = memref.alloc() : memref<16xf32>
// CHECK:   scf.yield %[[N]]
func.func @loops(%n: index, %v: f16) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %d = memref.alloc(%n) : memref<?xf32>
    scf.for %j = %c0 to %n step %c1 {
      %t = memref.alloc() {alignment = 64 : i64} : memref<64x32xf16>
      memref.store %v, %t[%c0, %c0] : memref<64x32xf16>
      memref.dealloc %t : memref<64x32xf16>
    }
    memref.dealloc %d : memref<?xf32>
  }
  %init = memref.alloc() : memref<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<16xf32>) {
    %new = memref.alloc() : memref<16xf32>
    scf.yield %new : memref<16xf32>
  }
  return %r : memref<16xf32>
}
