// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-pipeline=num-stages=3 -canonicalize -cse | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-pipeline=num-stages=1 2>/dev/null | FileCheck %s --check-prefix=ONE

// The single-stage loop tilegpu-tma-lowering builds, with other work in the
// body (a running sum). Three stages: rings of 3 buffers, a prologue that
// issues iterations 0 and 1 (each only if it exists), and a body that waits
// for iteration i in buffer i % 3 at phase (i / 3) & 1, runs its wgmma
// asynchronously, waits until only it is in flight, then refills the buffer
// iteration i - 1 used with iteration i + 2. The sum is untouched.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[SA:.*]] = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
// CHECK-DAG:     %[[SB:.*]] = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
// CHECK-DAG:     %[[BAR:.*]] = tilegpu.mbarrier_alloc : <3>
// Prologue.
// CHECK:         %[[P0:.*]] = arith.cmpi sgt, %[[T:.*]], %c0_i32
// CHECK:         tilegpu.mbarrier_expect %[[BAR]][%c0_i32], 32768 if %[[P0]]
// CHECK:         tilegpu.tma_load %arg1[%c0_i32, %c0_i32], %[[SA]][%c0_i32], %[[BAR]][%c0_i32] if %[[P0]]
// CHECK:         tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %[[SB]][%c0_i32], %[[BAR]][%c0_i32] if %[[P0]]
// CHECK:         %[[P1:.*]] = arith.cmpi sgt, %[[T]], %c1_i32
// CHECK:         tilegpu.mbarrier_expect %[[BAR]][%c1_i32], 32768 if %[[P1]]
// CHECK:         tilegpu.tma_load %arg1[%c0_i32, %c64_i32], %[[SA]][%c1_i32], %[[BAR]][%c1_i32] if %[[P1]]
// CHECK:         tilegpu.tma_load %arg2[%c64_i32, %c0_i32], %[[SB]][%c1_i32], %[[BAR]][%c1_i32] if %[[P1]]
// Steady state.
// CHECK:         %[[R:.*]]:2 = scf.for %[[I:.*]] = %c0_i32 to %[[T]] step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}})
// CHECK:           %[[SLOT:.*]] = arith.remui %[[I]], %c3_i32
// CHECK:           %[[ROUND:.*]] = arith.divui %[[I]], %c3_i32
// CHECK:           %[[PHASE:.*]] = arith.andi %[[ROUND]], %c1_i32
// CHECK:           %[[J:.*]] = arith.addi %[[I]], %c2_i32
// CHECK:           %[[JSLOT:.*]] = arith.remui %[[J]], %c3_i32
// CHECK:           %[[JP:.*]] = arith.cmpi slt, %[[J]], %[[T]]
// CHECK:           tilegpu.mbarrier_wait %[[BAR]][%[[SLOT]]], %[[PHASE]]
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[SA]][%[[SLOT]]], %[[SB]][%[[SLOT]]], %[[ACC]] {isAsync}
// CHECK:           %[[W:.*]] = tilegpu.warpgroup_wait %[[D]] {pendings = 1 : i32}
// CHECK:           tilegpu.barrier
// CHECK:           %[[JK:.*]] = arith.muli %[[J]], %c64_i32
// CHECK:           tilegpu.mbarrier_expect %[[BAR]][%[[JSLOT]]], 32768 if %[[JP]]
// CHECK:           tilegpu.tma_load %arg1[%c0_i32, %[[JK]]], %[[SA]][%[[JSLOT]]], %[[BAR]][%[[JSLOT]]] if %[[JP]]
// CHECK:           tilegpu.tma_load %arg2[%[[JK]], %c0_i32], %[[SB]][%[[JSLOT]]], %[[BAR]][%[[JSLOT]]] if %[[JP]]
// CHECK:           %[[S:.*]] = arith.addi %[[SUM]], %[[I]]
// CHECK:           scf.yield %[[W]], %[[S]]
// Drain.
// CHECK:         %[[DONE:.*]] = tilegpu.warpgroup_wait %[[R]]#0 {pendings = 0 : i32}
// CHECK:         return %[[DONE]], %[[R]]#1

// ONE-LABEL: func.func @matmul
// ONE:         tilegpu.local_alloc : <1 x tensor<128x64xf16>>
// ONE-NOT:     isAsync
// ONE-NOT:     warpgroup_wait
func.func @matmul(%steps: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>>, %db: !tilegpu.tma_desc<tensor<64x128xf16>>)
    -> (tensor<128x128xf32, #wgmma>, i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %a = tilegpu.local_alloc : <1 x tensor<128x64xf16>>
  %b = tilegpu.local_alloc : <1 x tensor<64x128xf16>>
  %bar = tilegpu.mbarrier_alloc : <1>
  %c64_i32 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %acc0, %sum = %c0_i32) -> (tensor<128x128xf32, #wgmma>, i32) : i32 {
    %k = arith.muli %i, %c64_i32 : i32
    tilegpu.barrier
    tilegpu.mbarrier_expect %bar[%c0_i32], 32768 : <1>
    tilegpu.tma_load %da[%c0_i32, %k], %a[%c0_i32], %bar[%c0_i32] : <tensor<128x64xf16>>, <1 x tensor<128x64xf16>>, <1>
    tilegpu.tma_load %db[%k, %c0_i32], %b[%c0_i32], %bar[%c0_i32] : <tensor<64x128xf16>>, <1 x tensor<64x128xf16>>, <1>
    %phase = arith.andi %i, %c1_i32 : i32
    tilegpu.mbarrier_wait %bar[%c0_i32], %phase : <1>
    %d = tilegpu.warpgroup_dot %a[%c0_i32], %b[%c0_i32], %acc : <1 x tensor<128x64xf16>>, <1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    %s = arith.addi %sum, %i : i32
    scf.yield %d, %s : tensor<128x128xf32, #wgmma>, i32
  }
  return %r#0, %r#1 : tensor<128x128xf32, #wgmma>, i32
}

// -----

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

// A copy whose coordinate is carried by the loop cannot be issued ahead.
func.func @carried_coordinate(%steps: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>>, %db: !tilegpu.tma_desc<tensor<64x128xf16>>)
    -> tensor<128x128xf32, #wgmma> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %a = tilegpu.local_alloc : <1 x tensor<128x64xf16>>
  %b = tilegpu.local_alloc : <1 x tensor<64x128xf16>>
  %bar = tilegpu.mbarrier_alloc : <1>
  %c64_i32 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  // expected-remark @+1 {{not software-pipelined: a coordinate is carried by the loop}}
  %r:2 = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %acc0, %k = %c0_i32) -> (tensor<128x128xf32, #wgmma>, i32) : i32 {
    tilegpu.mbarrier_expect %bar[%c0_i32], 32768 : <1>
    tilegpu.tma_load %da[%c0_i32, %k], %a[%c0_i32], %bar[%c0_i32] : <tensor<128x64xf16>>, <1 x tensor<128x64xf16>>, <1>
    tilegpu.tma_load %db[%k, %c0_i32], %b[%c0_i32], %bar[%c0_i32] : <tensor<64x128xf16>>, <1 x tensor<64x128xf16>>, <1>
    %phase = arith.andi %i, %c1_i32 : i32
    tilegpu.mbarrier_wait %bar[%c0_i32], %phase : <1>
    %d = tilegpu.warpgroup_dot %a[%c0_i32], %b[%c0_i32], %acc : <1 x tensor<128x64xf16>>, <1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    %next = arith.addi %k, %c64_i32 : i32
    scf.yield %d, %next : tensor<128x128xf32, #wgmma>, i32
  }
  return %r#0 : tensor<128x128xf32, #wgmma>
}
