// RUN: tilec-opt %s -tile-fold-dot-accumulate | FileCheck %s

// acc + dot(a, b, 0) becomes dot(a, b, acc), either operand order.
// CHECK-LABEL: func.func @fold_both_orders
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<64x32xf16>, %[[B:[a-z0-9]+]]: tensor<32x64xf16>, %[[ACC:[a-z0-9]+]]: tensor<64x64xf32>)
// CHECK: %[[D0:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK: %[[D1:.*]] = tile.dot %[[A]], %[[B]], %[[D0]] : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NOT: arith.addf
// CHECK: return %[[D1]]
func.func @fold_both_orders(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %d0 = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %s0 = arith.addf %acc, %d0 : tensor<64x64xf32>
  %d1 = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %s1 = arith.addf %d1, %s0 : tensor<64x64xf32>
  return %s1 : tensor<64x64xf32>
}

// The loop-carried form of `acc += tl.dot(a, b)`; integer dots too.
// CHECK-LABEL: func.func @fold_in_loop_and_integer
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK:   %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC]] : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi32>
// CHECK:   scf.yield %[[D]]
func.func @fold_in_loop_and_integer(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %n: index) -> tensor<64x64xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xi32>) {
    %d = tile.dot %a, %b, %zero : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi32>
    %s = arith.addi %acc, %d : tensor<64x64xi32>
    scf.yield %s : tensor<64x64xi32>
  }
  return %r : tensor<64x64xi32>
}

// Left alone: a dot with a non-zero accumulator, a dot with a second use,
// and a dot that already accumulates.
// CHECK-LABEL: func.func @no_fold
// CHECK: tile.dot
// CHECK-NEXT: arith.addf
// CHECK-NEXT: tile.dot
// CHECK-NEXT: arith.addf
// CHECK-NEXT: tile.dot
// CHECK-NEXT: arith.addf
func.func @no_fold(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %acc: tensor<64x64xf32>, %other: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<64x64xf32>
  %d0 = tile.dot %a, %b, %one : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %s0 = arith.addf %acc, %d0 : tensor<64x64xf32>
  %d1 = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %s1 = arith.addf %acc, %d1 : tensor<64x64xf32>
  %d2 = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %s2 = arith.addf %d2, %other : tensor<64x64xf32>
  return %s0, %s1, %d1, %s2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}

// Also left alone: a dot before a loop whose result the loop adds on every
// trip (folding would move the dot into the loop), and an fp8 dot (Hopper's
// fp8 wgmma accumulates with fewer mantissa bits than f32, so the sum stays
// in f32 outside it, as in Triton).
// CHECK-LABEL: func.func @no_fold_invariant_or_fp8
// CHECK: %[[D:.*]] = tile.dot
// CHECK: scf.for
// CHECK-NEXT: arith.addf %{{.*}}, %[[D]]
// CHECK: tile.dot {{.*}} : tensor<64x32xf8E4M3FN>
// CHECK-NEXT: arith.addf
func.func @no_fold_invariant_or_fp8(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %a8: tensor<64x32xf8E4M3FN>, %b8: tensor<32x64xf8E4M3FN>, %acc: tensor<64x64xf32>, %n: index) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %acc) -> (tensor<64x64xf32>) {
    %s = arith.addf %x, %d : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %d8 = tile.dot %a8, %b8, %zero : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  %s8 = arith.addf %acc, %d8 : tensor<64x64xf32>
  return %r, %s8 : tensor<64x64xf32>, tensor<64x64xf32>
}
