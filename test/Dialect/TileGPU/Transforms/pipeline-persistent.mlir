// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-pipeline=num-stages=3 -canonicalize -cse | FileCheck %s --implicit-check-not=tilegpu.barrier
// RUN: tilec-opt %s -split-input-file -tilegpu-pipeline=num-stages=3 -tilegpu-warp-specialize=mode=all -canonicalize -cse 2>/dev/null | FileCheck %s --check-prefix=WS

// A persistent kernel (tilegpu-persistent): the loop over programs holds
// one pipelined TMA loop. Its rings continue from one program to the next:
// the persistent loop carries the ring iteration B (0 at the start), the
// inner loop's iteration t counts as B + t for slots, phases and releases,
// the body yields B + max(0, hi - lo), and the mbarriers are initialized
// once before the persistent loop and invalidated once after it.

// CHECK-LABEL: func.func @one_loop
// CHECK-COUNT-2: tilegpu.mbarrier_init
// CHECK-NOT:     tilegpu.mbarrier_init
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %c0_i32) -> (i32)
// CHECK-NOT:       tilegpu.mbarrier_init
// CHECK:           %[[S0:.*]] = arith.remui %[[B]], %c3_i32
// CHECK:           tilegpu.mbarrier_wait %[[E:.*]][%[[S0]]], %{{.*}} leader if
// CHECK:           tilegpu.tma_load %{{.*}}, %[[A:.*]][%[[S0]]], %[[F:.*]][%[[S0]]] if
// CHECK:           scf.for %[[I:.*]] = %[[LO:.*]] to %[[HI:.*]] step
// CHECK:             %[[T:.*]] = arith.subi %[[I]], %[[LO]]
// CHECK:             %[[G:.*]] = arith.addi %[[B]], %[[T]]
// CHECK:             %[[GS:.*]] = arith.remui %[[G]], %c3_i32
// CHECK:             tilegpu.mbarrier_wait %[[F]][%[[GS]]]
// CHECK:             tilegpu.warpgroup_dot %[[A]][%[[GS]]]
// CHECK:             %[[HASPREV:.*]] = arith.cmpi sge, %[[G]], %c1_i32
// CHECK:             tilegpu.mbarrier_arrive %[[E]][%{{.*}}] if %[[HASPREV]]
// CHECK:           }
// CHECK-NOT:       tilegpu.mbarrier_inval
// CHECK:           %[[DIFF:.*]] = arith.subi %[[HI]], %[[LO]] : i32
// CHECK:           %[[TRIPS:.*]] = arith.select %{{.*}}, %[[DIFF]], %c0_i32
// CHECK:           %[[NEXT:.*]] = arith.addi %[[B]], %[[TRIPS]]
// CHECK:           scf.yield %[[NEXT]] : i32
// CHECK:         } {tilegpu.persistent}
// CHECK-COUNT-2: tilegpu.mbarrier_inval
// CHECK-NOT:     tilegpu.mbarrier_inval
// CHECK:         return

// Split: the producer runs the loop over programs too (its copy of it
// carries B), so it copies the next program's tiles while the consumers
// finish this one; the consumers keep the persistent loop.
// WS-LABEL: func.func @one_loop
// WS:         tilegpu.mbarrier_init
// WS:         tilegpu.warp_specialize consumer {
// WS:           scf.for
// WS:             scf.for
// WS:               tilegpu.mbarrier_arrive
// WS:           } {tilegpu.persistent}
// WS:         } producer {
// WS:           scf.for {{.*}} iter_args(%[[PB:.*]] = %c0_i32) -> (i32)
// WS:             tilegpu.mbarrier_wait {{.*}} leader
// WS:             tilegpu.tma_load
// WS:             scf.for
// WS:               arith.addi %[[PB]], %{{.*}} : i32
// WS:               tilegpu.tma_load
// WS:             scf.yield

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @one_loop(%lo: i32, %hi: i32, %first: i32, %total: i32, %count: i32,
                    %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                    %b: !tilegpu.smem<1 x tensor<64x128xf16>>,
                    %out: tensor<128x128x!tile.ptr<f32>, #wgmma>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.persistent} {
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  scf.for %vid = %first to %total step %count : i32 {
    tilegpu.mbarrier_init %bars : !tilegpu.mbarriers<1>
    // expected-remark @+1 {{loop's copies continue its rings from one program of the persistent kernel to the next}}
    %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
      tilegpu.barrier
      tilegpu.mbarrier_expect %bars[%c0], 16384 : !tilegpu.mbarriers<1>
      tilegpu.tma_load %da[%vid, %i], %a[%c0], %bars[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
      %p = arith.andi %i, %c1 : i32
      tilegpu.mbarrier_wait %bars[%c0], %p : !tilegpu.mbarriers<1>
      %d = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
      scf.yield %d : tensor<128x128xf32, #wgmma>
    }
    tilegpu.mbarrier_inval %bars : !tilegpu.mbarriers<1>
    tile.store %out, %r : tensor<128x128x!tile.ptr<f32>, #wgmma>
  } {tilegpu.persistent}
  return
}

// -----

// A tile copied once per program (attention's Q: a single buffer, read by
// the loop's dots) gets the release protocol: thread 0 waits for the
// release of the program before (parity ((k & 1) ^ 1) of the k-th program:
// the first passes) instead of a CTA barrier; every warp releases it after
// the wait that retires the loop's dots; the copy and its wait move after
// the loop's prologue copies, so a producer copies the next program's
// first K blocks without waiting for this release.

// CHECK-LABEL: func.func @once_per_program
// CHECK:         %[[QE:.*]] = tilegpu.mbarrier_alloc : <1>
// CHECK:         tilegpu.mbarrier_init %[[QE]] {count = 4 : i32} : <1>
// CHECK:         scf.for %[[VID:.*]] = %[[FIRST:.*]] to %{{.*}} step %[[STEP:.*]] iter_args
// CHECK:           %[[D:.*]] = arith.subi %[[VID]], %[[FIRST]]
// CHECK:           %[[K:.*]] = arith.divsi %[[D]], %[[STEP]]
// CHECK:           %[[KP:.*]] = arith.andi %[[K]], %c1_i32
// CHECK:           %[[PAR:.*]] = arith.xori %[[KP]], %c1_i32
// CHECK:           tilegpu.tma_load %{{.*}}, %[[A:.*]][%{{.*}}], %{{.*}}[%{{.*}}] if
// CHECK:           tilegpu.tma_load %{{.*}}, %[[A]][%{{.*}}], %{{.*}}[%{{.*}}] if
// CHECK-NEXT:      tilegpu.mbarrier_wait %[[QE]][%c0_i32], %[[PAR]] leader {oncePerProgram} :
// CHECK-NEXT:      tilegpu.mbarrier_expect %[[QF:.*]][%c0_i32], 16384 {oncePerProgram} :
// CHECK-NEXT:      tilegpu.tma_load %{{.*}}, %[[Q:.*]][%c0_i32], %[[QF]][%c0_i32] {oncePerProgram} :
// CHECK-NEXT:      tilegpu.mbarrier_wait %[[QF]][%c0_i32], %{{.*}} :
// CHECK-NEXT:      scf.for
// CHECK:             tilegpu.warpgroup_dot %[[Q]][%c0_i32], %[[A]]
// CHECK:             scf.yield %{{.*}} : tensor
// CHECK-NEXT:      }
// CHECK-NEXT:      tilegpu.warpgroup_wait {{.*}}{pendings = 0 : i32}
// CHECK-NEXT:      tilegpu.mbarrier_arrive %[[QE]][%c0_i32] :
// CHECK:           scf.yield
// CHECK:         } {tilegpu.persistent}
// CHECK:         tilegpu.mbarrier_inval %[[QE]] : <1>

// Split: the producer copies Q after the loop's prologue copies.
// WS-LABEL: func.func @once_per_program
// WS:         } producer {
// WS:           scf.for
// WS:             tilegpu.tma_load %{{.*}} if
// WS:             tilegpu.tma_load %{{.*}} if
// WS:             tilegpu.mbarrier_wait {{.*}} leader {oncePerProgram} :
// WS-NEXT:        tilegpu.mbarrier_expect {{.*}} {oncePerProgram}
// WS-NEXT:        tilegpu.tma_load {{.*}} {oncePerProgram}
// WS:             scf.for

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @once_per_program(%lo: i32, %hi: i32, %first: i32, %total: i32, %count: i32,
                            %dq: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                            %da: !tilegpu.tma_desc<tensor<64x64xf16>, 2>,
                            %out: tensor<128x64x!tile.ptr<f32>, #wgmma>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.persistent} {
  %qbars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %q = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #wgmma>
  tilegpu.mbarrier_init %qbars : !tilegpu.mbarriers<1>
  scf.for %vid = %first to %total step %count : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %qbars[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %dq[%vid, %c0], %q[%c0], %qbars[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %k = arith.subi %vid, %first : i32
    %kk = arith.divsi %k, %count : i32
    %qp = arith.andi %kk, %c1 : i32
    tilegpu.mbarrier_wait %qbars[%c0], %qp : !tilegpu.mbarriers<1>
    tilegpu.mbarrier_init %bars : !tilegpu.mbarriers<1>
    // expected-remark @+1 {{loop's copies continue its rings from one program of the persistent kernel to the next}}
    %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x64xf32, #wgmma>) : i32 {
      tilegpu.barrier
      tilegpu.mbarrier_expect %bars[%c0], 8192 : !tilegpu.mbarriers<1>
      tilegpu.tma_load %da[%vid, %i], %a[%c0], %bars[%c0] : !tilegpu.tma_desc<tensor<64x64xf16>, 2>, !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.mbarriers<1>
      %p = arith.andi %i, %c1 : i32
      tilegpu.mbarrier_wait %bars[%c0], %p : !tilegpu.mbarriers<1>
      %d = tilegpu.warpgroup_dot %q[%c0], %a[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<128x64xf32, #wgmma>
      scf.yield %d : tensor<128x64xf32, #wgmma>
    }
    tilegpu.mbarrier_inval %bars : !tilegpu.mbarriers<1>
    tile.store %out, %r : tensor<128x64x!tile.ptr<f32>, #wgmma>
  } {tilegpu.persistent}
  tilegpu.mbarrier_inval %qbars : !tilegpu.mbarriers<1>
  return
}

// -----

// Attention's Q: the loop's dot reading it is retired in the body (its
// result feeds the softmax), so the warps release Q in the loop's last
// iteration right after that wait (ub - i <= step), while the rest of the
// iteration and the epilogue run, and after the loop when it runs no
// iteration; nothing releases it after the loop otherwise.

// CHECK-LABEL: func.func @released_in_last_iteration
// CHECK:         %[[QE:.*]] = tilegpu.mbarrier_alloc : <1>
// CHECK:         scf.for
// CHECK:           tilegpu.mbarrier_wait %[[QE]][%c0_i32], %{{.*}} leader {oncePerProgram} :
// CHECK:           scf.for %[[I:.*]] = %[[LO:.*]] to %[[HI:.*]] step %c1_i32
// CHECK:             %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}[%c0_i32]
// CHECK-NEXT:        tilegpu.warpgroup_wait %[[S]] {pendings = 0 : i32}
// hi - i is in (0, 2^32) in the loop: compared unsigned, exact even where
// the signed difference would overflow (hi - lo > 2^31).
// CHECK-NEXT:        %[[LEFT:.*]] = arith.subi %[[HI]], %[[I]] : i32
// CHECK-NEXT:        %[[LAST:.*]] = arith.cmpi ule, %[[LEFT]], %c1_i32 : i32
// CHECK-NEXT:        tilegpu.mbarrier_arrive %[[QE]][%c0_i32] if %[[LAST]] :
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[NONE:.*]] = arith.cmpi sge, %[[LO]], %[[HI]] : i32
// CHECK-NEXT:      tilegpu.mbarrier_arrive %[[QE]][%c0_i32] if %[[NONE]] :
// CHECK-NOT:       tilegpu.mbarrier_arrive %[[QE]]
// CHECK:         } {tilegpu.persistent}

// Split: the consumers release Q in their loop; the producer still takes
// Q's copy.
// WS-LABEL: func.func @released_in_last_iteration
// WS:         tilegpu.warp_specialize consumer {
// WS:           scf.for
// WS:             scf.for
// WS:               tilegpu.warpgroup_wait
// WS:               tilegpu.mbarrier_arrive %[[QE:.*]][%c0_i32] if
// WS:             tilegpu.mbarrier_arrive %[[QE]][%c0_i32] if
// WS:         } producer {
// WS:           scf.for
// WS:             tilegpu.mbarrier_wait %[[QE]][%c0_i32], %{{.*}} leader {oncePerProgram} :
// WS-NEXT:        tilegpu.mbarrier_expect {{.*}} {oncePerProgram}
// WS-NEXT:        tilegpu.tma_load {{.*}} {oncePerProgram}
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @released_in_last_iteration(%lo: i32, %hi: i32, %first: i32, %total: i32, %count: i32,
                            %dq: !tilegpu.tma_desc<tensor<128x64xf16>, 2>,
                            %da: !tilegpu.tma_desc<tensor<64x64xf16>, 2>,
                            %out: tensor<128x64x!tile.ptr<f32>, #wgmma>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.persistent} {
  %qbars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %q = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #wgmma>
  tilegpu.mbarrier_init %qbars : !tilegpu.mbarriers<1>
  scf.for %vid = %first to %total step %count : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %qbars[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %dq[%vid, %c0], %q[%c0], %qbars[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %k = arith.subi %vid, %first : i32
    %kk = arith.divsi %k, %count : i32
    %qp = arith.andi %kk, %c1 : i32
    tilegpu.mbarrier_wait %qbars[%c0], %qp : !tilegpu.mbarriers<1>
    tilegpu.mbarrier_init %bars : !tilegpu.mbarriers<1>
    // expected-remark @+1 {{loop's copies continue its rings from one program of the persistent kernel to the next}}
    %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<128x64xf32, #wgmma>) : i32 {
      tilegpu.barrier
      tilegpu.mbarrier_expect %bars[%c0], 8192 : !tilegpu.mbarriers<1>
      tilegpu.tma_load %da[%vid, %i], %a[%c0], %bars[%c0] : !tilegpu.tma_desc<tensor<64x64xf16>, 2>, !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.mbarriers<1>
      %p = arith.andi %i, %c1 : i32
      tilegpu.mbarrier_wait %bars[%c0], %p : !tilegpu.mbarriers<1>
      %s = tilegpu.warpgroup_dot %q[%c0], %a[%c0], %acc0 : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<128x64xf32, #wgmma>
      %e = math.exp2 %s : tensor<128x64xf32, #wgmma>
      %n = arith.addf %acc, %e : tensor<128x64xf32, #wgmma>
      scf.yield %n : tensor<128x64xf32, #wgmma>
    }
    tilegpu.mbarrier_inval %bars : !tilegpu.mbarriers<1>
    tile.store %out, %r : tensor<128x64x!tile.ptr<f32>, #wgmma>
  } {tilegpu.persistent}
  tilegpu.mbarrier_inval %qbars : !tilegpu.mbarriers<1>
  return
}
