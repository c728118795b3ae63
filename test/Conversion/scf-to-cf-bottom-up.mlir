// RUN: tilec-opt %s -convert-scf-to-cf-bottom-up | FileCheck %s

// Two ifs in one block (the owner stores of two exchanges) and a loop: all
// become branches, in source order, as with convert-scf-to-cf.
// CHECK-LABEL: func.func @owner_stores
// CHECK-NOT: scf.
// CHECK: cf.cond_br %arg0, ^[[THEN1:.*]], ^[[CONT1:.*]]
// CHECK: ^[[THEN1]]:
// CHECK: memref.store %arg2, %arg3[%c0]
// CHECK: cf.br ^[[CONT1]]
// CHECK: ^[[CONT1]]:
// CHECK: cf.cond_br %arg1, ^[[THEN2:.*]], ^[[CONT2:.*]]
// CHECK: ^[[THEN2]]:
// CHECK: memref.store %arg2, %arg3[%c1]
// CHECK: cf.br ^[[CONT2]]
// CHECK: ^[[CONT2]]:
// CHECK: cf.br ^[[HEADER:.*]](%c0 : index)
// CHECK: ^[[HEADER]](%[[I:.*]]: index):
// CHECK: arith.cmpi slt, %[[I]], %c4
// CHECK: memref.store %arg2, %arg3[%[[I]]]
// CHECK: return
func.func @owner_stores(%p: i1, %q: i1, %v: f32, %m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.if %p {
    memref.store %v, %m[%c0] : memref<8xf32>
  }
  scf.if %q {
    memref.store %v, %m[%c1] : memref<8xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}
