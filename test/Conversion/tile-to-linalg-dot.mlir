// RUN: tilec-opt %s -split-input-file -convert-tile-to-linalg="dot-tile-m=4 dot-tile-n=32" | FileCheck %s
// RUN: tilec-opt %s -split-input-file -convert-tile-to-linalg="dot-tile-m=0" | FileCheck %s --check-prefix=SCALAR

// Batched i8 dot with an i32 accumulator, register blocks of 4 rows x 16
// columns (the largest power of two dividing N=16 up to dot-tile-n): a loop
// over the batch outside the blocks, the batch index first in every access;
// products and sums are integer muli + addi.
// CHECK-LABEL: func.func @batched_int_dot
// CHECK: %[[AW:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x16x32xi8>) outs(%{{.*}} : tensor<2x16x32xi32>)
// CHECK:   arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[BW:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x32x16xi8>) outs(%{{.*}} : tensor<2x32x16xi32>)
// CHECK: scf.for %[[B:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %arg2) -> (tensor<2x16x16xi32>)
// CHECK:   scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %c4{{.*}} iter_args
// CHECK:     scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %c16{{.*}} iter_args(%[[CJ:[a-z0-9_]+]] = %{{.*}})
// CHECK:       vector.transfer_read %[[CJ]][%[[B]], %[[I]], %[[J]]], %{{.*}} {in_bounds = [true]} : tensor<2x16x16xi32>, vector<16xi32>
// CHECK-COUNT-3: vector.transfer_read %[[CJ]]
// CHECK:       scf.for %[[K:[a-z0-9_]+]] = {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK:         %[[ROW:.*]] = vector.transfer_read %[[BW]][%[[B]], %[[K]], %[[J]]]
// CHECK:         %[[X:.*]] = tensor.extract %[[AW]][%[[B]], %[[I]], %[[K]]] : tensor<2x16x32xi32>
// CHECK:         %[[S:.*]] = vector.broadcast %[[X]] : i32 to vector<16xi32>
// CHECK:         %[[P:.*]] = arith.muli %[[S]], %[[ROW]] : vector<16xi32>
// CHECK:         arith.addi %{{.*}}, %[[P]] : vector<16xi32>
// CHECK-COUNT-4: vector.transfer_write
// SCALAR-LABEL: func.func @batched_int_dot
// SCALAR: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%arg0, %arg1 : tensor<2x16x32xi8>, tensor<2x32x16xi8>) outs(%arg2 : tensor<2x16x16xi32>)
// SCALAR:   arith.extsi %{{.*}} : i8 to i32
// SCALAR:   arith.extsi %{{.*}} : i8 to i32
// SCALAR:   arith.muli
// SCALAR:   arith.addi
func.func @batched_int_dot(%a: tensor<2x16x32xi8>, %b: tensor<2x32x16xi8>, %c: tensor<2x16x16xi32>) -> tensor<2x16x16xi32> {
  %d = tile.dot %a, %b, %c : tensor<2x16x32xi8>, tensor<2x32x16xi8> -> tensor<2x16x16xi32>
  return %d : tensor<2x16x16xi32>
}

// -----

// With dot-tile-m=0 the dot is one linalg.generic over (m, k, n), k a
// reduction outside n; operands widened in the body, one fma per product.
// An f32 dot needs no widening (the micro-kernel reads the operands as they
// are).
// CHECK-LABEL: func.func @f32_dot
// CHECK-NOT: linalg.generic
// CHECK: vector.transfer_read %arg1
// CHECK: tensor.extract %arg0
// CHECK: math.fma {{.*}} : vector<32xf32>
// SCALAR-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// SCALAR-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// SCALAR-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// SCALAR-LABEL: func.func @f32_dot
// SCALAR: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// SCALAR-SAME: ins(%arg0, %arg1 : tensor<16x16xf32>, tensor<16x64xf32>) outs(%arg2 : tensor<16x64xf32>)
// SCALAR: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// SCALAR:   %[[R:.*]] = math.fma %[[X]], %[[Y]], %[[ACC]] : f32
// SCALAR:   linalg.yield %[[R]] : f32
func.func @f32_dot(%a: tensor<16x16xf32>, %b: tensor<16x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = tile.dot %a, %b, %c : tensor<16x16xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  return %d : tensor<16x64xf32>
}
