// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-prepare-tma=num-warps=4 -canonicalize -cse | FileCheck %s

// The matmul loop of examples/matmul.tile (128x128x64 blocks, 4 warps): both
// operands become `tma` loads of pointers computed from the iteration
// number, and the loop no longer carries block pointers.

// CHECK-LABEL: func.func @matmul
// CHECK:         %[[A0:.*]] = tile.make_block_ptr %arg0
// CHECK:         %[[B0:.*]] = tile.make_block_ptr %arg1
// CHECK:         scf.for %[[IV:.*]] = %c0_i32 to %{{.*}} step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK:           %[[K:.*]] = arith.muli %[[IV]], %c64_i32
// CHECK-DAG:       %[[A:.*]] = tile.advance %[[A0]], [%c0_i32, %[[K]]]
// CHECK-DAG:       %[[B:.*]] = tile.advance %[[B0]], [%[[K]], %c0_i32]
// CHECK-DAG:       %[[LA:.*]] = tile.block_load %[[A]] {boundary_check = array<i32: 0, 1>, tma}
// CHECK-DAG:       %[[LB:.*]] = tile.block_load %[[B]] {boundary_check = array<i32: 0, 1>, tma}
// CHECK:           tile.dot %[[LA]], %[[LB]], %[[ACC]]
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %M: i32, %N: i32, %K: i32 {tile.divisibility = 16 : i32},
                  %sa: i32 {tile.divisibility = 16 : i32}, %sb: i32 {tile.divisibility = 16 : i32}, %sc: i32) attributes {tile.kernel} {
  %c63_i32 = arith.constant 63 : i32
  %c64_i32 = arith.constant 64 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %c1_i32 = arith.constant 1 : i32
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  %sa64 = arith.extsi %sa : i32 to i64
  %sb64 = arith.extsi %sb : i32 to i64
  %sc64 = arith.extsi %sc : i32 to i64
  %pa = tile.make_block_ptr %a, [%m, %k], [%sa64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x64xf16>>
  %pb = tile.make_block_ptr %b, [%k, %n], [%sb64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x128xf16>>
  %t = arith.addi %K, %c63_i32 : i32
  %steps = arith.divsi %t, %c64_i32 : i32
  %r:3 = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %cst, %qa = %pa, %qb = %pb)
      -> (tensor<128x128xf32>, !tile.block_ptr<tensor<128x64xf16>>, !tile.block_ptr<tensor<64x128xf16>>) : i32 {
    %x = tile.block_load %qa {boundary_check = array<i32: 0, 1>} : <tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.block_load %qb {boundary_check = array<i32: 0, 1>} : <tensor<64x128xf16>> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %na = tile.advance %qa, [%c0_i32, %c64_i32] : <tensor<128x64xf16>>
    %nb = tile.advance %qb, [%c64_i32, %c0_i32] : <tensor<64x128xf16>>
    scf.yield %d, %na, %nb : tensor<128x128xf32>, !tile.block_ptr<tensor<128x64xf16>>, !tile.block_ptr<tensor<64x128xf16>>
  }
  %pc = tile.make_block_ptr %c, [%m, %n], [%sc64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x128xf32>>
  tile.block_store %pc, %r#0 {boundary_check = array<i32: 0, 1>} : <tensor<128x128xf32>>, tensor<128x128xf32>
  return
}

// -----

// B's row stride has no `:16` hint: TMA cannot be proven legal, the loads
// stay plain (and a remark says why).

// CHECK-LABEL: func.func @unaligned_stride
// CHECK-NOT:     tma
func.func @unaligned_stride(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                            %M: i32, %N: i32, %K: i32, %sa: i32 {tile.divisibility = 16 : i32}, %sb: i32) -> tensor<128x128xf32> attributes {tile.kernel} {
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  %sa64 = arith.extsi %sa : i32 to i64
  %sb64 = arith.extsi %sb : i32 to i64
  %pa = tile.make_block_ptr %a, [%m, %k], [%sa64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x64xf16>>
  %pb = tile.make_block_ptr %b, [%k, %n], [%sb64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x128xf16>>
  %x = tile.block_load %pa {boundary_check = array<i32: 0, 1>} : <tensor<128x64xf16>> -> tensor<128x64xf16>
  %y = tile.block_load %pb {boundary_check = array<i32: 0, 1>} : <tensor<64x128xf16>> -> tensor<64x128xf16>
  // expected-remark @+1 {{wgmma operands go through registers, not TMA: operand b: a stride is not known to be a multiple of 16 bytes (give it as i32:16)}}
  %d = tile.dot %x, %y, %cst : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// The tensor-descriptor form (`a_desc.load([off_m, k * BLOCK_K])`): each
// operand's block pointer is the descriptor's make_block_ptr before the loop
// advanced in the body by offsets computed from the induction variable. The
// loads are marked as they are; nothing is carried. B is loaded first.

// CHECK-LABEL: func.func @descriptor
// CHECK:         %[[A0:.*]] = tile.make_block_ptr %arg0
// CHECK:         %[[B0:.*]] = tile.make_block_ptr %arg1
// CHECK:         scf.for %[[IV:.*]] = %c0_i32 to %{{.*}} step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK:           %[[K:.*]] = arith.muli %[[IV]], %c64_i32
// CHECK:           %[[B:.*]] = tile.advance %[[B0]], [%[[K]], %arg10]
// CHECK:           %[[LB:.*]] = tile.block_load %[[B]] {boundary_check = array<i32: 0, 1>, tma}
// CHECK:           %[[A:.*]] = tile.advance %[[A0]], [%arg9, %[[K]]]
// CHECK:           %[[LA:.*]] = tile.block_load %[[A]] {boundary_check = array<i32: 0, 1>, tma}
// CHECK:           tile.dot %[[LA]], %[[LB]], %[[ACC]]
func.func @descriptor(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %M: i32, %N: i32, %K: i32 {tile.divisibility = 16 : i32},
                      %sa: i32 {tile.divisibility = 16 : i32}, %sb: i32 {tile.divisibility = 16 : i32}, %sc: i32,
                      %om: i32, %on: i32) attributes {tile.kernel} {
  %c63_i32 = arith.constant 63 : i32
  %c64_i32 = arith.constant 64 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %c1_i32 = arith.constant 1 : i32
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  %sa64 = arith.extsi %sa : i32 to i64
  %sb64 = arith.extsi %sb : i32 to i64
  %sc64 = arith.extsi %sc : i32 to i64
  %da = tile.make_block_ptr %a, [%m, %k], [%sa64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x64xf16>>
  %db = tile.make_block_ptr %b, [%k, %n], [%sb64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x128xf16>>
  %t = arith.addi %K, %c63_i32 : i32
  %steps = arith.divsi %t, %c64_i32 : i32
  %r = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32>) : i32 {
    %kk = arith.muli %i, %c64_i32 : i32
    %qb = tile.advance %db, [%kk, %on] : <tensor<64x128xf16>>
    %y = tile.block_load %qb {boundary_check = array<i32: 0, 1>} : <tensor<64x128xf16>> -> tensor<64x128xf16>
    %qa = tile.advance %da, [%om, %kk] : <tensor<128x64xf16>>
    %x = tile.block_load %qa {boundary_check = array<i32: 0, 1>} : <tensor<128x64xf16>> -> tensor<128x64xf16>
    %d = tile.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %dc = tile.make_block_ptr %c, [%m, %n], [%sc64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x128xf32>>
  %pc = tile.advance %dc, [%om, %on] : <tensor<128x128xf32>>
  tile.block_store %pc, %r {boundary_check = array<i32: 0, 1>} : <tensor<128x128xf32>>, tensor<128x128xf32>
  return
}

// -----

// A carried block pointer (B, advanced every iteration) next to a descriptor
// load (A), B loaded first: B's pointer of the iteration is computed before
// the first of the two loads, A's is left as it is.

// CHECK-LABEL: func.func @mixed_b_first
// CHECK:         %[[A0:.*]] = tile.make_block_ptr %arg0
// CHECK:         %[[B0:.*]] = tile.make_block_ptr %arg1
// CHECK:         scf.for %[[IV:.*]] = %c0_i32 to %{{.*}} step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK:           %[[K:.*]] = arith.muli %[[IV]], %c64_i32
// CHECK:           %[[B:.*]] = tile.advance %[[B0]], [%[[K]], %c0_i32]
// CHECK:           %[[LB:.*]] = tile.block_load %[[B]] {boundary_check = array<i32: 0, 1>, tma}
// CHECK:           %[[A:.*]] = tile.advance %[[A0]], [%c0_i32, %[[K]]]
// CHECK:           %[[LA:.*]] = tile.block_load %[[A]] {boundary_check = array<i32: 0, 1>, tma}
// CHECK:           tile.dot %[[LA]], %[[LB]], %[[ACC]]
// CHECK:           scf.yield %{{.*}} : tensor<128x128xf32>
func.func @mixed_b_first(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %M: i32, %N: i32, %K: i32 {tile.divisibility = 16 : i32},
                         %sa: i32 {tile.divisibility = 16 : i32}, %sb: i32 {tile.divisibility = 16 : i32}) -> tensor<128x128xf32> attributes {tile.kernel} {
  %c63_i32 = arith.constant 63 : i32
  %c64_i32 = arith.constant 64 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %c1_i32 = arith.constant 1 : i32
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  %sa64 = arith.extsi %sa : i32 to i64
  %sb64 = arith.extsi %sb : i32 to i64
  %da = tile.make_block_ptr %a, [%m, %k], [%sa64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x64xf16>>
  %pb = tile.make_block_ptr %b, [%k, %n], [%sb64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x128xf16>>
  %t = arith.addi %K, %c63_i32 : i32
  %steps = arith.divsi %t, %c64_i32 : i32
  %r:2 = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %cst, %qb = %pb)
      -> (tensor<128x128xf32>, !tile.block_ptr<tensor<64x128xf16>>) : i32 {
    %y = tile.block_load %qb {boundary_check = array<i32: 0, 1>} : <tensor<64x128xf16>> -> tensor<64x128xf16>
    %kk = arith.muli %i, %c64_i32 : i32
    %qa = tile.advance %da, [%c0_i32, %kk] : <tensor<128x64xf16>>
    %x = tile.block_load %qa {boundary_check = array<i32: 0, 1>} : <tensor<128x64xf16>> -> tensor<128x64xf16>
    %d = tile.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %nb = tile.advance %qb, [%c64_i32, %c0_i32] : <tensor<64x128xf16>>
    scf.yield %d, %nb : tensor<128x128xf32>, !tile.block_ptr<tensor<64x128xf16>>
  }
  return %r#0 : tensor<128x128xf32>
}
