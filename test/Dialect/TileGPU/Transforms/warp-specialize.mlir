// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-warp-specialize=mode=all | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-warp-specialize=mode=requested 2>&1 | FileCheck %s --check-prefix=REQ
// RUN: tilec-opt %s -split-input-file -tilegpu-warp-specialize=mode=off 2>&1 | FileCheck %s --check-prefix=OFF

// The matmul loop as tilegpu-pipeline leaves it (3 stages; A's row from the
// program id, K's offset from the induction variable): the copies of
// iterations 0 and 1 in the prologue, then in the loop the consumers' wait
// for the full barriers, the wgmma, their release of slot (t + 2) % 3 on
// the empty barriers, and thread 0's wait for that release, expect and
// copies of iteration t + 2. Split: the barriers' inits before the
// warp_specialize (the whole CTA); the consumer region keeps everything
// but the copies and the empty waits (the loop still waits for the full
// barriers and releases); the producer region recomputes the program id,
// A's row and the prologue's predicates, issues the prologue's copies,
// then runs a loop over the same bounds (no loop-carried values: the
// accumulator is the consumers') that waits for the release of slot
// (t + 2) % 3 at parity (((t + 2) / 3) & 1) ^ 1 and refills it.

// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[E:.*]] = tilegpu.mbarrier_alloc : <3>
// CHECK-DAG:     %[[BA:.*]] = tilegpu.mbarrier_alloc : <3>
// CHECK-DAG:     %[[BB:.*]] = tilegpu.mbarrier_alloc : <3>
// CHECK-DAG:     %[[SA:.*]] = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
// CHECK-DAG:     %[[SB:.*]] = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
// CHECK:         tilegpu.mbarrier_init %[[BA]] : <3>
// CHECK-NEXT:    tilegpu.mbarrier_init %[[BB]] : <3>
// CHECK-NEXT:    tilegpu.mbarrier_init %[[E]] {count = 4 : i32} : <3>
// CHECK-NEXT:    tilegpu.warp_specialize consumer {
// CHECK-NOT:       leader
// CHECK-NOT:       tilegpu.tma_load
// CHECK-NOT:       tilegpu.mbarrier_expect
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %arg0 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32, #wgmma>)
// CHECK:             tilegpu.mbarrier_wait %[[BA]][%[[SLOT:.*]]], %[[PHASE:.*]] : <3>
// CHECK:             tilegpu.mbarrier_wait %[[BB]][%[[SLOT]]], %[[PHASE]] : <3>
// CHECK:             tilegpu.warpgroup_dot %[[SA]][%[[SLOT]]], %[[SB]][%[[SLOT]]], %[[ACC]] {isAsync}
// CHECK:             tilegpu.mbarrier_arrive %[[E]][%{{.*}}] if %{{.*}} : <3>
// CHECK-NOT:         leader
// CHECK-NOT:         tilegpu.tma_load
// CHECK:             scf.yield
// CHECK:           tilegpu.mbarrier_inval %[[E]]
// CHECK:         } producer {
// CHECK:           %[[PID:.*]] = tile.program_id 0
// CHECK:           %[[ROW:.*]] = arith.muli %[[PID]], %c128_i32 : i32
// CHECK:           %[[P0:.*]] = arith.cmpi sgt, %arg0, %c0_i32 : i32
// CHECK:           tilegpu.mbarrier_wait %[[E]][%c0_i32], %c1_i32 leader if %[[P0]] : <3>
// CHECK:           tilegpu.mbarrier_expect %[[BA]][%c0_i32], 16384 if %[[P0]] : <3>
// CHECK:           tilegpu.tma_load %arg1[%[[ROW]], %c0_i32], %[[SA]][%c0_i32], %[[BA]][%c0_i32] if %[[P0]]
// CHECK:           tilegpu.mbarrier_expect %[[BB]][%c0_i32], 16384 if %[[P0]] : <3>
// CHECK:           tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %[[SB]][%c0_i32], %[[BB]][%c0_i32] if %[[P0]]
// CHECK:           %[[P1:.*]] = arith.cmpi sgt, %arg0, %c1_i32 : i32
// CHECK:           tilegpu.mbarrier_wait %[[E]][%c1_i32], %c1_i32 leader if %[[P1]] : <3>
// CHECK:           tilegpu.tma_load %arg2[%c64_i32, %c0_i32], %[[SB]][%c1_i32], %[[BB]][%c1_i32] if %[[P1]]
// CHECK:           scf.for %[[PI:.*]] = %c0_i32 to %arg0 step %c1_i32 : i32 {
// CHECK:             %[[LAST:.*]] = arith.subi %arg0, %c2_i32 : i32
// CHECK:             %[[JP:.*]] = arith.cmpi slt, %[[PI]], %[[LAST]] : i32
// CHECK:             %[[J:.*]] = arith.addi %[[PI]], %c2_i32 : i32
// CHECK:             %[[JSLOT:.*]] = arith.remui %[[J]], %c3_i32 : i32
// CHECK:             %[[JK:.*]] = arith.muli %[[J]], %c64_i32 : i32
// CHECK:             %[[JROUND:.*]] = arith.divui %[[J]], %c3_i32 : i32
// CHECK:             %[[JBIT:.*]] = arith.andi %[[JROUND]], %c1_i32 : i32
// CHECK:             %[[JPAR:.*]] = arith.xori %[[JBIT]], %c1_i32 : i32
// CHECK:             tilegpu.mbarrier_wait %[[E]][%[[JSLOT]]], %[[JPAR]] leader if %[[JP]] : <3>
// CHECK:             tilegpu.mbarrier_expect %[[BA]][%[[JSLOT]]], 16384 if %[[JP]] : <3>
// CHECK:             tilegpu.tma_load %arg1[%[[ROW]], %[[JK]]], %[[SA]][%[[JSLOT]]], %[[BA]][%[[JSLOT]]] if %[[JP]]
// CHECK:             tilegpu.mbarrier_expect %[[BB]][%[[JSLOT]]], 16384 if %[[JP]] : <3>
// CHECK:             tilegpu.tma_load %arg2[%[[JK]], %c0_i32], %[[SB]][%[[JSLOT]]], %[[BB]][%[[JSLOT]]] if %[[JP]]
// CHECK-NOT:         warpgroup
// CHECK-NOT:         mbarrier_arrive
// CHECK:           }
// CHECK-NOT:       tilegpu.warpgroup_dot
// CHECK:         } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
// CHECK-NEXT:    return

// Without tl.range(warp_specialize=True), `requested` leaves it; `off` too.
// REQ-LABEL: func.func @matmul
// REQ-NOT:     tilegpu.warp_specialize
// REQ-LABEL: func.func @asked
// REQ:         tilegpu.warp_specialize
// OFF-NOT:     tilegpu.warp_specialize

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @matmul(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %5 = tile.program_id 0
  %6 = arith.muli %5, %c128_i32 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %arg0, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %c0_i32], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads}}
  %9 = scf.for %arg3 = %c0_i32 to %arg0 step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %10 = arith.subi %arg0, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %c0_i32], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}

// -----

// A loop written tl.range(..., warp_specialize=True) (its
// tile.warp_specialize): taken in every mode but off. A's row is a select
// of kernel arguments, recomputed by the producer.

// CHECK-LABEL: func.func @asked
// CHECK:         tilegpu.warp_specialize consumer {
// CHECK:         } producer {
// CHECK:           %[[ROW:.*]] = arith.select %arg1, %c64_i32, %c0_i32 : i32
// CHECK:           tilegpu.tma_load %arg2[%[[ROW]], %c0_i32]
// CHECK:           scf.for
// CHECK:             tilegpu.tma_load %arg2[%[[ROW]], %{{.*}}]

#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @asked(%arg0: i32, %arg1: i1, %arg2: !tilegpu.tma_desc<tensor<64x64xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma64>
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <2>
  %1 = tilegpu.mbarrier_alloc : <2>
  %2 = tilegpu.local_alloc : <2 x tensor<64x64xf16>>
  %3 = arith.select %arg1, %c64_i32, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <2>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <2>
  %4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %4 : <2>
  tilegpu.mbarrier_expect %1[%c0_i32], 8192 if %4 : <2>
  tilegpu.tma_load %arg2[%3, %c0_i32], %2[%c0_i32], %1[%c0_i32] if %4 : <tensor<64x64xf16>, 2>, <2 x tensor<64x64xf16>>, <2>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads}}
  %5 = scf.for %arg3 = %c0_i32 to %arg0 step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #wgmma64>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %arg3, %6 : i32
    %8 = arith.remui %arg3, %c2_i32 : i32
    %9 = arith.divui %arg3, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %2[%8], %2[%8], %arg4 {isAsync} : !tilegpu.smem<2 x tensor<64x64xf16>>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma64>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %arg3, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%13] if %14 : <2>
    %15 = arith.muli %12, %c64_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %1[%13], 8192 if %7 : <2>
    tilegpu.tma_load %arg2[%3, %15], %2[%13], %1[%13] if %7 : <tensor<64x64xf16>, 2>, <2 x tensor<64x64xf16>>, <2>
    scf.yield %11 : tensor<64x64xf32, #wgmma64>
  } {tile.warp_specialize = true}
  tilegpu.mbarrier_inval %0 : <2>
  tilegpu.mbarrier_inval %1 : <2>
  return
}

// -----

// A copy whose coordinate comes from an op with regions (computed by the
// consumer warps, not recomputed by the producer): refused with a remark,
// the loop unchanged.

// CHECK-LABEL: func.func @refused
// CHECK-NOT:     tilegpu.warp_specialize
// CHECK:         tilegpu.mbarrier_wait %{{.*}} leader
// CHECK:         scf.for
// CHECK:           tilegpu.tma_load

#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @refused(%arg0: i32, %arg1: i1, %arg2: !tilegpu.tma_desc<tensor<64x64xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma64>
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <2>
  %1 = tilegpu.mbarrier_alloc : <2>
  %2 = tilegpu.local_alloc : <2 x tensor<64x64xf16>>
  %3 = scf.if %arg1 -> i32 {
    scf.yield %c64_i32 : i32
  } else {
    scf.yield %c0_i32 : i32
  }
  tilegpu.mbarrier_init %1 : <2>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <2>
  %4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %4 : <2>
  tilegpu.mbarrier_expect %1[%c0_i32], 8192 if %4 : <2>
  tilegpu.tma_load %arg2[%3, %c0_i32], %2[%c0_i32], %1[%c0_i32] if %4 : <tensor<64x64xf16>, 2>, <2 x tensor<64x64xf16>>, <2>
  // expected-remark @below {{loop not warp-specialized: a copy's coordinates depend on 'scf.if', which the consumer warps compute (the producer recomputes only pure scalar arithmetic)}}
  %5 = scf.for %arg3 = %c0_i32 to %arg0 step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #wgmma64>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %arg3, %6 : i32
    %8 = arith.remui %arg3, %c2_i32 : i32
    %9 = arith.divui %arg3, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %2[%8], %2[%8], %arg4 {isAsync} : !tilegpu.smem<2 x tensor<64x64xf16>>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma64>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %arg3, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%13] if %14 : <2>
    %15 = arith.muli %12, %c64_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %1[%13], 8192 if %7 : <2>
    tilegpu.tma_load %arg2[%3, %15], %2[%13], %1[%13] if %7 : <tensor<64x64xf16>, 2>, <2 x tensor<64x64xf16>>, <2>
    scf.yield %11 : tensor<64x64xf32, #wgmma64>
  } {tile.warp_specialize = true}
  tilegpu.mbarrier_inval %0 : <2>
  tilegpu.mbarrier_inval %1 : <2>
  return
}

// -----

// tl.range(..., warp_specialize=False): never taken, no remark.

// CHECK-LABEL: func.func @never
// CHECK-NOT:     tilegpu.warp_specialize

#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @never(%arg0: i32, %arg1: i1, %arg2: !tilegpu.tma_desc<tensor<64x64xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma64>
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <2>
  %1 = tilegpu.mbarrier_alloc : <2>
  %2 = tilegpu.local_alloc : <2 x tensor<64x64xf16>>
  %3 = arith.select %arg1, %c64_i32, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <2>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <2>
  %4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %4 : <2>
  tilegpu.mbarrier_expect %1[%c0_i32], 8192 if %4 : <2>
  tilegpu.tma_load %arg2[%3, %c0_i32], %2[%c0_i32], %1[%c0_i32] if %4 : <tensor<64x64xf16>, 2>, <2 x tensor<64x64xf16>>, <2>
  %5 = scf.for %arg3 = %c0_i32 to %arg0 step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<64x64xf32, #wgmma64>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %arg3, %6 : i32
    %8 = arith.remui %arg3, %c2_i32 : i32
    %9 = arith.divui %arg3, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %2[%8], %2[%8], %arg4 {isAsync} : !tilegpu.smem<2 x tensor<64x64xf16>>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma64>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %arg3, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%13] if %14 : <2>
    %15 = arith.muli %12, %c64_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %1[%13], 8192 if %7 : <2>
    tilegpu.tma_load %arg2[%3, %15], %2[%13], %1[%13] if %7 : <tensor<64x64xf16>, 2>, <2 x tensor<64x64xf16>>, <2>
    scf.yield %11 : tensor<64x64xf32, #wgmma64>
  } {tile.warp_specialize = false}
  tilegpu.mbarrier_inval %0 : <2>
  tilegpu.mbarrier_inval %1 : <2>
  return
}
