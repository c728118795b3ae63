// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-pipeline=num-stages=3 -canonicalize -cse | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-pipeline=num-stages=3 -tilegpu-warp-specialize=mode=all -canonicalize -cse 2>/dev/null | FileCheck %s --check-prefix=WS
// RUN: tilec-opt %s -split-input-file -tilegpu-pipeline=num-stages=3 -tilegpu-warp-specialize=mode=requested 2>&1 >/dev/null | FileCheck %s --check-prefix=REQ

// Two consecutive loops whose copies fill rings of the same tiles (causal
// attention's two loops over K blocks). The second continues the first
// one's rings: one ring and one mbarrier array per operand, one array of
// release mbarriers, each initialized once before the first loop and
// invalidated once after the second; the second loop counts its
// iterations from the first one's trip count B = max(0, ceil((hi - lo) /
// 1)), so its prologue's first copy goes to slot B % 3 after the release
// of that slot's previous use (parity ((B / 3) & 1) ^ 1), and its first
// iteration releases the slot of the first loop's last iteration (B + t
// >= 1).

// CHECK-LABEL: func.func @two_loops
// CHECK-COUNT-2: tilegpu.mbarrier_alloc : <3>
// CHECK-NOT:     tilegpu.mbarrier_alloc
// CHECK:         %[[A:.*]] = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
// CHECK-NOT:     tilegpu.local_alloc
// CHECK-COUNT-2: tilegpu.mbarrier_init
// CHECK-NOT:     tilegpu.mbarrier_init
// CHECK:         scf.for
// CHECK-NOT:     tilegpu.mbarrier_inval
// CHECK:         tilegpu.warpgroup_wait {{.*}}{pendings = 0 : i32}
// CHECK-NOT:     tilegpu.mbarrier_inval
// CHECK:         %[[DIFF:.*]] = arith.subi %[[HI:.*]], %[[LO:.*]] : i32
// CHECK:         %[[SOME:.*]] = arith.cmpi sgt, %[[DIFF]], %c0_i32
// CHECK:         %[[B:.*]] = arith.select %[[SOME]], %[[DIFF]], %c0_i32
// CHECK:         %[[S0:.*]] = arith.remui %[[B]], %c3_i32
// CHECK:         %[[R0:.*]] = arith.divui %[[B]], %c3_i32
// CHECK:         %[[P0:.*]] = arith.andi %[[R0]], %c1_i32
// CHECK:         %[[Q0:.*]] = arith.xori %[[P0]], %c1_i32
// CHECK:         tilegpu.mbarrier_wait %[[E:.*]][%[[S0]]], %[[Q0]] leader if
// CHECK:         tilegpu.tma_load %{{.*}}, %[[A]][%[[S0]]], %[[F:.*]][%[[S0]]] if
// CHECK:         scf.for %[[I:.*]] = %[[LO]] to %[[HI2:.*]] step
// CHECK:           %[[T:.*]] = arith.subi %[[I]], %[[LO]]
// CHECK:           %[[G:.*]] = arith.addi %[[B]], %[[T]]
// CHECK:           %[[GS:.*]] = arith.remui %[[G]], %c3_i32
// CHECK:           %[[GR:.*]] = arith.divui %[[G]], %c3_i32
// CHECK:           %[[GP:.*]] = arith.andi %[[GR]], %c1_i32
// CHECK:           tilegpu.mbarrier_wait %[[F]][%[[GS]]], %[[GP]] :
// CHECK:           tilegpu.warpgroup_dot %[[A]][%[[GS]]]
// CHECK:           %[[G2:.*]] = arith.addi %[[G]], %c2_i32
// CHECK:           %[[PREV:.*]] = arith.remui %[[G2]], %c3_i32
// CHECK:           %[[HASPREV:.*]] = arith.cmpi sge, %[[G]], %c1_i32
// CHECK:           tilegpu.mbarrier_arrive %[[E]][%[[PREV]]] if %[[HASPREV]]
// CHECK:         }
// CHECK-COUNT-2: tilegpu.mbarrier_inval
// CHECK-NOT:     tilegpu.mbarrier_inval
// CHECK:         return

// Split (warp specialization): both loops together, without a ring
// handoff: the producer issues the first loop's copies, then the second
// loop's from global iteration B on, waiting only for the release of each
// slot it refills; the consumers keep the waits and the releases.
// WS-LABEL: func.func @two_loops
// WS-NOT:     tilegpu.ring_handoff
// WS:         tilegpu.warp_specialize consumer {
// WS:           scf.for
// WS:             tilegpu.mbarrier_arrive
// WS:           scf.for
// WS:             tilegpu.mbarrier_arrive
// WS:         } producer {
// WS:           scf.for
// WS:             tilegpu.tma_load
// WS:           %[[DIFF:.*]] = arith.subi %arg1, %arg0 : i32
// WS:           %[[B:.*]] = arith.select %{{.*}}, %[[DIFF]], %c0_i32
// WS:           arith.remui %[[B]], %c3_i32
// WS:           tilegpu.mbarrier_wait {{.*}} leader
// WS:           tilegpu.tma_load
// WS:           scf.for
// WS:             arith.addi %[[B]], %{{.*}} : i32
// WS:             tilegpu.tma_load
// WS-NOT:     tilegpu.ring_handoff

// mode=requested with warp_specialize=True on the second loop only: the
// loops share their rings, so neither is split.
// REQ: remark: loop not warp-specialized: it shares its rings with a loop that is not split

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @two_loops(%lo: i32, %hi: i32, %hi2: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                     %b: !tilegpu.smem<1 x tensor<64x128xf16>>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %bars1 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a1 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %bars2 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a2 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_init %bars1 : !tilegpu.mbarriers<1>
  %r1 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars1[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a1[%c0], %bars1[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars1[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a1[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  }
  tilegpu.mbarrier_inval %bars1 : !tilegpu.mbarriers<1>
  tilegpu.mbarrier_init %bars2 : !tilegpu.mbarriers<1>
  // expected-remark @+1 {{loop's copies continue the rings of the kernel's previous loop (written at line 94): same tiles, one set of buffers and mbarriers for both, its slots and phases counted on}}
  %r2 = scf.for %i = %lo to %hi2 step %c1 iter_args(%acc = %r1) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars2[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a2[%c0], %bars2[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars2[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a2[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  } {tile.warp_specialize = true}
  tilegpu.mbarrier_inval %bars2 : !tilegpu.mbarriers<1>
  return
}

// -----

// Rings of different tiles (a second loop over 64x64 boxes), or a second
// loop of fewer stages (tl.range(num_stages=2)): each loop keeps its own
// rings and mbarriers.

// CHECK-LABEL: func.func @other_tiles
// CHECK-COUNT-2: tilegpu.local_alloc : <3 x
// CHECK-COUNT-4: tilegpu.mbarrier_init
// CHECK-LABEL: func.func @other_stages
// CHECK:         tilegpu.local_alloc : <3 x
// CHECK:         tilegpu.local_alloc : <2 x
// CHECK-COUNT-4: tilegpu.mbarrier_init
// A single-stage loop (num_stages = 1) between two loops of the same
// tiles: the third does not continue the first one's rings (they would
// live through the second loop, beside its own).
// CHECK-LABEL: func.func @loop_between
// CHECK-COUNT-2: tilegpu.local_alloc : <3 x tensor<128x64xf16>>

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @other_tiles(%lo: i32, %hi: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                       %dc: !tilegpu.tma_desc<tensor<128x32xf16>, 2>,
                       %b: !tilegpu.smem<1 x tensor<64x128xf16>>, %b2: !tilegpu.smem<1 x tensor<32x128xf16>>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %bars1 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a1 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %bars2 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a2 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x32xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_init %bars1 : !tilegpu.mbarriers<1>
  %r1 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars1[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a1[%c0], %bars1[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars1[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a1[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  }
  tilegpu.mbarrier_inval %bars1 : !tilegpu.mbarriers<1>
  tilegpu.mbarrier_init %bars2 : !tilegpu.mbarriers<1>
  %r2 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %r1) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars2[%c0], 8192 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %dc[%c0, %i], %a2[%c0], %bars2[%c0] : !tilegpu.tma_desc<tensor<128x32xf16>, 2>, !tilegpu.smem<1 x tensor<128x32xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars2[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a2[%c0], %b2[%c0], %acc : !tilegpu.smem<1 x tensor<128x32xf16>>, !tilegpu.smem<1 x tensor<32x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  }
  tilegpu.mbarrier_inval %bars2 : !tilegpu.mbarriers<1>
  return
}

func.func @other_stages(%lo: i32, %hi: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                        %b: !tilegpu.smem<1 x tensor<64x128xf16>>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %bars1 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a1 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %bars2 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a2 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_init %bars1 : !tilegpu.mbarriers<1>
  %r1 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars1[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a1[%c0], %bars1[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars1[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a1[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  }
  tilegpu.mbarrier_inval %bars1 : !tilegpu.mbarriers<1>
  tilegpu.mbarrier_init %bars2 : !tilegpu.mbarriers<1>
  %r2 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %r1) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars2[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a2[%c0], %bars2[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars2[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a2[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  } {tile.num_stages = 2 : i32}
  tilegpu.mbarrier_inval %bars2 : !tilegpu.mbarriers<1>
  return
}

func.func @loop_between(%lo: i32, %hi: i32, %hi2: i32, %hi3: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                     %b: !tilegpu.smem<1 x tensor<64x128xf16>>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %bars1 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a1 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  tilegpu.mbarrier_init %bars1 : !tilegpu.mbarriers<1>
  %r1 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars1[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a1[%c0], %bars1[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars1[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a1[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  } 
  tilegpu.mbarrier_inval %bars1 : !tilegpu.mbarriers<1>
  %bars2 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a2 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  tilegpu.mbarrier_init %bars2 : !tilegpu.mbarriers<1>
  %r2 = scf.for %i = %lo to %hi2 step %c1 iter_args(%acc = %r1) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars2[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a2[%c0], %bars2[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars2[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a2[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  } {tile.num_stages = 1 : i32}
  tilegpu.mbarrier_inval %bars2 : !tilegpu.mbarriers<1>
  %bars3 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a3 = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  tilegpu.mbarrier_init %bars3 : !tilegpu.mbarriers<1>
  %r3 = scf.for %i = %lo to %hi3 step %c1 iter_args(%acc = %r2) -> (tensor<128x128xf32, #wgmma>) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars3[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a3[%c0], %bars3[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars3[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a3[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %d : tensor<128x128xf32, #wgmma>
  } 
  tilegpu.mbarrier_inval %bars3 : !tilegpu.mbarriers<1>
  return
}
