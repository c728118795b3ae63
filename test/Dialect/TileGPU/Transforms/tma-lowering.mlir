// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-tma-lowering | FileCheck %s

// The matmul loop after tilegpu-prepare-tma and layout assignment: the two
// `tma` loads and the dot become one TMA copy group into one-buffer rings
// and a synchronous wgmma on them; the kernel gets two descriptor arguments
// whose recipes name its arguments (base, sizes, strides) by index.

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    %[[DA:[^:]*]]: !tilegpu.tma_desc<tensor<128x64xf16>> {tilegpu.tma = {base = 0 : i32, box = array<i64: 64, 128>, element = f16, oob_fill = "zero", sizes = ["arg5", "arg3"], strides = [1, "arg6"], swizzle = 128 : i64}}
// CHECK-SAME:    %[[DB:[^:]*]]: !tilegpu.tma_desc<tensor<64x128xf16>> {tilegpu.tma = {base = 1 : i32, box = array<i64: 64, 64>, element = f16, oob_fill = "zero", sizes = ["arg4", "arg5"], strides = [1, "arg7"], swizzle = 128 : i64}}
// CHECK-DAG:     %[[SA:.*]] = tilegpu.local_alloc : <1 x tensor<128x64xf16>>
// CHECK-DAG:     %[[SB:.*]] = tilegpu.local_alloc : <1 x tensor<64x128xf16>>
// CHECK-DAG:     %[[BAR:.*]] = tilegpu.mbarrier_alloc : <1>
// CHECK:         scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = {{.*}})
// CHECK:           tilegpu.barrier
// CHECK-NEXT:      tilegpu.mbarrier_expect %[[BAR]][%[[Z:.*]]], 32768 : <1>
// CHECK:           tilegpu.tma_load %[[DA]][%{{.*}}, %{{.*}}], %[[SA]][%[[Z]]], %[[BAR]][%[[Z]]]
// CHECK:           tilegpu.tma_load %[[DB]][%{{.*}}, %{{.*}}], %[[SB]][%[[Z]]], %[[BAR]][%[[Z]]]
// CHECK:           %[[PHASE:.*]] = arith.andi %{{.*}}, %c1_i32
// CHECK:           tilegpu.mbarrier_wait %[[BAR]][%[[Z]]], %[[PHASE]]
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[SA]][%[[Z]]], %[[SB]][%[[Z]]], %[[ACC]] :
// CHECK-NOT:       isAsync
// CHECK:           scf.yield %[[D]]
// CHECK-NOT:     tile.block_load
// CHECK-NOT:     tile.make_block_ptr
func.func @matmul(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32 {tile.divisibility = 16 : i32},
                  %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %steps: i32)
    -> tensor<128x128xf32, #wgmma> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c64_i32 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %c1_i32 = arith.constant 1 : i32
  %m = arith.extsi %arg3 : i32 to i64
  %k = arith.extsi %arg5 : i32 to i64
  %sa = arith.extsi %arg6 : i32 to i64
  %n = arith.extsi %arg4 : i32 to i64
  %sb = arith.extsi %arg7 : i32 to i64
  %pa = tile.make_block_ptr %arg0, [%m, %k], [%sa, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x64xf16>>
  %pb = tile.make_block_ptr %arg1, [%k, %n], [%sb, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x128xf16>>
  %r = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
    %off = arith.muli %i, %c64_i32 : i32
    %qa = tile.advance %pa, [%c0_i32, %off] : <tensor<128x64xf16>>
    %qb = tile.advance %pb, [%off, %c0_i32] : <tensor<64x128xf16>>
    %x = tile.block_load %qa {boundary_check = array<i32: 0, 1>, tma} : <tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
    %y = tile.block_load %qb {boundary_check = array<i32: 0, 1>, tma} : <tensor<64x128xf16>> -> tensor<64x128xf16, #blocked1>
    %d = tile.dot %x, %y, %acc : tensor<128x64xf16, #blocked>, tensor<64x128xf16, #blocked1> -> tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  }
  return %r : tensor<128x128xf32, #wgmma>
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>

// A `tma` load without a wgmma accumulator is a pipeline error.
func.func @fma_accumulator(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: i64, %arg2: i64 {tile.divisibility = 16 : i32},
                           %acc: tensor<128x128xf32, #blocked1>) -> tensor<128x128xf32, #blocked1> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %pa = tile.make_block_ptr %arg0, [%arg1, %arg1], [%arg2, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<128x64xf16>>
  %pb = tile.make_block_ptr %arg0, [%arg1, %arg1], [%arg2, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x128xf16>>
  %x = tile.block_load %pa {tma} : <tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
  %y = tile.block_load %pb {tma} : <tensor<64x128xf16>> -> tensor<64x128xf16, #blocked1>
  // expected-error @+1 {{'tile.dot' op has TMA operands but its accumulator is not in a #tilegpu.wgmma layout}}
  %d = tile.dot %x, %y, %acc : tensor<128x64xf16, #blocked>, tensor<64x128xf16, #blocked1> -> tensor<128x128xf32, #blocked1>
  return %d : tensor<128x128xf32, #blocked1>
}
