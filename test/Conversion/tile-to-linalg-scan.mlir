// RUN: tilec-opt %s -split-input-file -convert-tile-to-linalg | FileCheck %s

// A scan is a loop over the axis carrying the results and the running
// slice; each step combines the running slice with the next slice (the
// region in order: running value first) and inserts it. Along axis 1 the
// tile is first permuted (its slices become contiguous rows) and permuted
// back.
// CHECK-LABEL: func.func @cumsum_rows
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x32xf32>) outs(%{{.*}} : tensor<32x8xf32>)
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<32x8xf32>) outs(%{{.*}} : tensor<1x8xf32>)
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %c1 to %c32 step %c1 iter_args(%[[OUT:.*]] = %[[T]], %[[RUNNING:.*]] = %[[FIRST]]) -> (tensor<32x8xf32>, tensor<1x8xf32>)
// CHECK:   %[[NEW:.*]] = tensor.extract_slice %[[T]][%[[I]], 0] [1, 8] [1, 1]
// CHECK:   %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[RUNNING]], %[[NEW]] : tensor<1x8xf32>, tensor<1x8xf32>)
// CHECK:   ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK:     arith.subf %[[A]], %[[B]] : f32
// CHECK:   tensor.insert_slice %[[ACC]] into %[[OUT]][%[[I]], 0] [1, 8] [1, 1]
// CHECK: %[[BACK:.*]] = linalg.generic {{.*}} ins(%[[R]]#0 : tensor<32x8xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: return %[[BACK]]
func.func @cumsum_rows(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %s = tile.scan %x {axis = 1 : i32} : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.subf %a, %b : f32
    tile.scan.return %r : f32
  }
  return %s : tensor<8x32xf32>
}

// -----

// Reverse: from the last slice down.
// CHECK: #[[LAST:.*]] = affine_map<(d0) -> (15)>
// CHECK-LABEL: func.func @reverse
// CHECK: linalg.generic {indexing_maps = [#[[LAST]], {{.*}}} ins(%{{.*}} : tensor<16xi32>) outs(%{{.*}} : tensor<1xi32>)
// CHECK: scf.for %[[I:.*]] = %c1 to %c16
// CHECK:   arith.subi %c15, %[[I]] : index
func.func @reverse(%x: tensor<16xi32>) -> tensor<16xi32> {
  %s = tile.scan %x {axis = 0 : i32, reverse = true} : (tensor<16xi32>) -> tensor<16xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }
  return %s : tensor<16xi32>
}
