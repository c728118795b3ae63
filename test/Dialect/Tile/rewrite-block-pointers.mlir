// RUN: tilec-opt %s -tile-rewrite-block-pointers -canonicalize -cse | FileCheck %s

// CHECK-LABEL: func.func @row_sums
// CHECK-NOT: tile.make_block_ptr
// CHECK-NOT: tile.block_load
// A loop-carried block pointer becomes its loop-carried column offset alone
// (the other parts are loop-invariant and folded away).
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[OFF:.*]] = %{{.*}}) -> (tensor<16xf32>, i32)
// CHECK: tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi64>
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: %[[V:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<f32>>
// CHECK: arith.addi %[[OFF]], %{{.*}} : i32
// CHECK: scf.yield
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x!tile.ptr<f32>>
func.func @row_sums(%x: !tile.ptr<f32>, %z: !tile.ptr<f32>, %rows: i64, %cols: i64, %stride: i64, %row0: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i32
  %bp = tile.make_block_ptr %x, [%rows, %cols], [%stride, %c1], [%row0, %c0] {order = array<i32: 1, 0>} : !tile.block_ptr<tensor<16x64xf32>>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %res:2 = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %zero, %p = %bp) -> (tensor<16xf32>, !tile.block_ptr<tensor<16x64xf32>>) : i32 {
    %t = tile.block_load %p {boundary_check = array<i32: 0, 1>} : !tile.block_ptr<tensor<16x64xf32>> -> tensor<16x64xf32>
    %s = tile.reduce %t {axis = 1 : i32} : (tensor<16x64xf32>) -> tensor<16xf32> {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce.return %r : f32
    }
    %acc2 = arith.addf %acc, %s : tensor<16xf32>
    %p2 = tile.advance %p, [%c0, %c64] : !tile.block_ptr<tensor<16x64xf32>>
    scf.yield %acc2, %p2 : tensor<16xf32>, !tile.block_ptr<tensor<16x64xf32>>
  }
  %zp = tile.make_block_ptr %z, [%rows], [%c1], [%row0] {order = array<i32: 0>} : !tile.block_ptr<tensor<16xf32>>
  tile.block_store %zp, %res#0 {boundary_check = array<i32: 0>} : !tile.block_ptr<tensor<16xf32>>, tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @nan_padding_unchecked
// No boundary check: no mask, no padding value.
// CHECK: tile.load %{{[0-9]+}} : tensor<32x!tile.ptr<f16>>
func.func @nan_padding_unchecked(%x: !tile.ptr<f16>, %n: i64, %o: i32) -> tensor<32xf16> {
  %c1 = arith.constant 1 : i64
  %bp = tile.make_block_ptr %x, [%n], [%c1], [%o] {order = array<i32: 0>} : !tile.block_ptr<tensor<32xf16>>
  %t = tile.block_load %bp {padding = #tile.padding<nan>} : !tile.block_ptr<tensor<32xf16>> -> tensor<32xf16>
  return %t : tensor<32xf16>
}

// CHECK-LABEL: func.func @nan_padding
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7E00> : tensor<32xf16>
// CHECK: tile.load %{{.*}}, %{{.*}}, %[[NAN]] : tensor<32x!tile.ptr<f16>>
func.func @nan_padding(%x: !tile.ptr<f16>, %n: i64, %o: i32) -> tensor<32xf16> {
  %c1 = arith.constant 1 : i64
  %bp = tile.make_block_ptr %x, [%n], [%c1], [%o] {order = array<i32: 0>} : !tile.block_ptr<tensor<32xf16>>
  %t = tile.block_load %bp {boundary_check = array<i32: 0>, padding = #tile.padding<nan>} : !tile.block_ptr<tensor<32xf16>> -> tensor<32xf16>
  return %t : tensor<32xf16>
}

// A block pointer chosen at run time (`p if c else q`, an arith.select once
// canonicalization has folded the scf.if) becomes a select of every part
// that differs; the load reads through the selected base and offset.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[X:[^:]*]]: !tile.ptr<f32>, %[[Y:[^:]*]]: !tile.ptr<f32>, %{{[^:]*}}: i64, %[[O:[^:]*]]: i32, %[[C:[^:]*]]: i1)
// CHECK-NOT: tile.block_load
// CHECK-DAG: %[[BASE:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : !tile.ptr<f32>
// CHECK-DAG: %[[OFF:.*]] = arith.select %[[C]], %[[O]], %c0_i32 : i32
// CHECK: tile.splat %[[OFF]] : tensor<32xi32>
// CHECK: tile.splat %[[BASE]] : tensor<32x!tile.ptr<f32>>
// CHECK: tile.load
func.func @select(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i64, %o: i32, %c: i1) -> tensor<32xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %p = tile.make_block_ptr %x, [%n], [%c1], [%o] {order = array<i32: 0>} : !tile.block_ptr<tensor<32xf32>>
  %q = tile.make_block_ptr %y, [%n], [%c1], [%c0] {order = array<i32: 0>} : !tile.block_ptr<tensor<32xf32>>
  %r = arith.select %c, %p, %q : !tile.block_ptr<tensor<32xf32>>
  %t = tile.block_load %r {boundary_check = array<i32: 0>} : !tile.block_ptr<tensor<32xf32>> -> tensor<32xf32>
  return %t : tensor<32xf32>
}
