// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-pipeline=num-stages=3 -canonicalize -cse | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-pipeline=num-stages=1 2>/dev/null | FileCheck %s --check-prefix=ONE

// The single-stage matmul loop tilegpu-assign-async-copies builds (TMA
// copies of A and B, each with its mbarrier), with other work in the body
// (a running sum). Three stages: rings and mbarrier arrays of 3, and an
// array of 3 release ("empty") mbarriers, each completed by the arrival of
// all 4 warps; a prologue that issues iterations 0 and 1, each only if it
// exists (0 < T, 1 < T: trip counts 0, 1 and 2 issue only the copies they
// wait for), thread 0 first waiting for the release of the slot (parity 1:
// a slot's first use passes at once); a body that waits for iteration t
// in buffer t % 3 at phase (t / 3) & 1, runs its wgmma asynchronously,
// waits until only it is in flight (the previous iteration's buffers are
// free), releases buffer (t - 1) % 3 (every warp, from t = 1), and then,
// in thread 0, waits for that release of slot (t + 2) % 3 at parity
// (((t + 2) / 3) & 1) ^ 1 and refills it with iteration t + 2 if it
// exists. No CTA barrier: the warps wait only for the copies they read.
// The sum is untouched; after the loop the accumulator is waited for.

// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[E:.*]] = tilegpu.mbarrier_alloc : <3>
// CHECK-DAG:     %[[BA:.*]] = tilegpu.mbarrier_alloc : <3>
// CHECK-DAG:     %[[BB:.*]] = tilegpu.mbarrier_alloc : <3>
// CHECK-DAG:     %[[SA:.*]] = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
// CHECK-DAG:     %[[SB:.*]] = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
// CHECK:         tilegpu.mbarrier_init %[[BA]] : <3>
// CHECK:         tilegpu.mbarrier_init %[[BB]] : <3>
// CHECK:         tilegpu.mbarrier_init %[[E]] {count = 4 : i32} : <3>
// Prologue.
// CHECK:         %[[P0:.*]] = arith.cmpi sgt, %[[T:.*]], %c0_i32
// CHECK:         tilegpu.mbarrier_wait %[[E]][%c0_i32], %c1_i32 leader if %[[P0]]
// CHECK:         tilegpu.mbarrier_expect %[[BA]][%c0_i32], 16384 if %[[P0]]
// CHECK:         tilegpu.tma_load %arg1[%c0_i32, %c0_i32], %[[SA]][%c0_i32], %[[BA]][%c0_i32] if %[[P0]]
// CHECK:         tilegpu.mbarrier_expect %[[BB]][%c0_i32], 16384 if %[[P0]]
// CHECK:         tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %[[SB]][%c0_i32], %[[BB]][%c0_i32] if %[[P0]]
// CHECK:         %[[P1:.*]] = arith.cmpi sgt, %[[T]], %c1_i32
// CHECK:         tilegpu.mbarrier_wait %[[E]][%c1_i32], %c1_i32 leader if %[[P1]]
// CHECK:         tilegpu.tma_load %arg1[%c0_i32, %c64_i32], %[[SA]][%c1_i32], %[[BA]][%c1_i32] if %[[P1]]
// CHECK:         tilegpu.tma_load %arg2[%c64_i32, %c0_i32], %[[SB]][%c1_i32], %[[BB]][%c1_i32] if %[[P1]]
// Steady state.
// CHECK:         %[[R:.*]]:2 = scf.for %[[I:.*]] = %c0_i32 to %[[T]] step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}})
// CHECK-NOT:       tilegpu.barrier
// CHECK:           %[[LAST:.*]] = arith.subi %[[T]], %c2_i32
// CHECK:           %[[JP:.*]] = arith.cmpi slt, %[[I]], %[[LAST]]
// CHECK:           %[[SLOT:.*]] = arith.remui %[[I]], %c3_i32
// CHECK:           %[[ROUND:.*]] = arith.divui %[[I]], %c3_i32
// CHECK:           %[[PHASE:.*]] = arith.andi %[[ROUND]], %c1_i32
// CHECK:           tilegpu.mbarrier_wait %[[BA]][%[[SLOT]]], %[[PHASE]] :
// CHECK:           tilegpu.mbarrier_wait %[[BB]][%[[SLOT]]], %[[PHASE]] :
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[SA]][%[[SLOT]]], %[[SB]][%[[SLOT]]], %[[ACC]] {isAsync}
// CHECK:           tilegpu.warpgroup_wait {pendings = 1 : i32}
// CHECK:           %[[J:.*]] = arith.addi %[[I]], %c2_i32
// CHECK:           %[[JSLOT:.*]] = arith.remui %[[J]], %c3_i32
// CHECK:           %[[HASPREV:.*]] = arith.cmpi sge, %[[I]], %c1_i32
// CHECK:           tilegpu.mbarrier_arrive %[[E]][%[[JSLOT]]] if %[[HASPREV]]
// CHECK:           %[[JK:.*]] = arith.muli %[[J]], %c64_i32
// CHECK:           %[[JROUND:.*]] = arith.divui %[[J]], %c3_i32
// CHECK:           %[[JBIT:.*]] = arith.andi %[[JROUND]], %c1_i32
// CHECK:           %[[JPAR:.*]] = arith.xori %[[JBIT]], %c1_i32
// CHECK:           tilegpu.mbarrier_wait %[[E]][%[[JSLOT]]], %[[JPAR]] leader if %[[JP]]
// CHECK:           tilegpu.mbarrier_expect %[[BA]][%[[JSLOT]]], 16384 if %[[JP]]
// CHECK:           tilegpu.tma_load %arg1[%c0_i32, %[[JK]]], %[[SA]][%[[JSLOT]]], %[[BA]][%[[JSLOT]]] if %[[JP]]
// CHECK:           tilegpu.mbarrier_expect %[[BB]][%[[JSLOT]]], 16384 if %[[JP]]
// CHECK:           tilegpu.tma_load %arg2[%[[JK]], %c0_i32], %[[SB]][%[[JSLOT]]], %[[BB]][%[[JSLOT]]] if %[[JP]]
// CHECK-NOT:       tilegpu.barrier
// CHECK:           %[[S:.*]] = arith.addi %[[SUM]], %[[I]]
// CHECK:           scf.yield %[[D]], %[[S]]
// Drain.
// CHECK:         %[[DONE:.*]] = tilegpu.warpgroup_wait %[[R]]#0 {pendings = 0 : i32}
// CHECK:         tilegpu.mbarrier_inval %[[E]]
// CHECK:         tilegpu.mbarrier_inval %[[BA]]
// CHECK:         return %[[DONE]], %[[R]]#1

// ONE-LABEL: func.func @matmul
// ONE:         tilegpu.local_alloc : <1 x tensor<128x64xf16>>
// ONE-NOT:     isAsync
// ONE-NOT:     warpgroup_wait

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

func.func @matmul(%steps: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %db: !tilegpu.tma_desc<tensor<64x128xf16>, 2>)
    -> (tensor<128x128xf32, #wgmma>, i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %bars_a = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %bars_b = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %b = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_init %bars_a : !tilegpu.mbarriers<1>
  tilegpu.mbarrier_init %bars_b : !tilegpu.mbarriers<1>
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %acc0, %sum = %c0) -> (tensor<128x128xf32, #wgmma>, i32) : i32 {
    %k = arith.muli %i, %c64 : i32
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars_a[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %k], %a[%c0], %bars_a[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars_a[%c0], %p : !tilegpu.mbarriers<1>
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars_b[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %db[%k, %c0], %b[%c0], %bars_b[%c0] : !tilegpu.tma_desc<tensor<64x128xf16>, 2>, !tilegpu.smem<1 x tensor<64x128xf16>>, !tilegpu.mbarriers<1>
    tilegpu.mbarrier_wait %bars_b[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %acc : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    %s = arith.addi %sum, %i : i32
    scf.yield %d, %s : tensor<128x128xf32, #wgmma>, i32
  }
  tilegpu.mbarrier_inval %bars_a : !tilegpu.mbarriers<1>
  tilegpu.mbarrier_inval %bars_b : !tilegpu.mbarriers<1>
  return %r#0, %r#1 : tensor<128x128xf32, #wgmma>, i32
}

// -----

// Attention's loop shape with cp.async: a QK^T dot whose result feeds
// elementwise math in the same iteration, and a P.V dot with P in
// registers that only accumulates; an i64 induction variable from lo to
// hi. Both cp.async copies of an iteration are one group. P is computed
// from QK^T's wait, which also retires the previous iteration's P.V, so
// P.V stays in flight across the back edge (in a kernel of two
// warpgroups: with one, a dot that only accumulates is retired in its
// iteration, @two_accumulators_one_warpgroup): the copies for t + 2 are
// issued after that wait (the first point where every dot of the previous
// iteration is retired), and the wait for iteration t, before them, leaves
// 1 newer group in flight. After the loop, every group and the last P.V
// are done.

// CHECK-LABEL: func.func @two_dots
// CHECK-DAG:     %[[K:.*]] = tilegpu.local_alloc : <3 x tensor<64x64xf16>>
// CHECK-DAG:     %[[V:.*]] = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
// CHECK:         %[[P0:.*]] = arith.cmpi slt, %arg0, %arg1 : i64
// CHECK:         tilegpu.async_copy %{{.*}}, %[[K]][%c0_i32] if %[[P0]]
// CHECK:         tilegpu.async_copy %arg4, %[[V]][%c0_i32] if %[[P0]]
// CHECK:         tilegpu.async_commit_group
// CHECK:         %[[I1:.*]] = arith.addi %arg0, %c1_i64 : i64
// CHECK:         %[[P1:.*]] = arith.cmpi slt, %[[I1]], %arg1 : i64
// CHECK:         tilegpu.async_copy %{{.*}}, %[[K]][%c1_i32] if %[[P1]]
// CHECK:         tilegpu.async_commit_group
// CHECK:         scf.for %[[IV:.*]] = %arg0 to %arg1 step %c1_i64 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x128xf32, #wgmma>) : i64 {
// CHECK:           %[[SLOT:.*]] = arith.remui %{{.*}}, %c3_i32
// CHECK:           tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT:      tilegpu.fence_async_shared
// CHECK-NEXT:      tilegpu.barrier
// CHECK-NEXT:      %[[S:.*]] = tilegpu.warpgroup_dot %arg2[%c0_i32], %[[K]][%[[SLOT]]], %{{.*}} {isAsync}
// CHECK-NEXT:      %[[SW:.*]] = tilegpu.warpgroup_wait %[[S]] {pendings = 0 : i32}
// CHECK-NEXT:      tilegpu.barrier
// CHECK:           %[[J:.*]] = arith.addi %[[IV]], %c2_i64 : i64
// CHECK:           %[[JT:.*]] = arith.subi %[[J]], %arg0 : i64
// CHECK:           %[[JT32:.*]] = arith.trunci %[[JT]] : i64 to i32
// CHECK:           %[[JSLOT:.*]] = arith.remui %[[JT32]], %c3_i32
// CHECK:           tilegpu.async_copy %{{.*}}, %[[K]][%[[JSLOT]]] if
// CHECK:           tilegpu.async_copy %arg4, %[[V]][%[[JSLOT]]] if
// CHECK:           tilegpu.async_commit_group
// CHECK-NEXT:      %[[E:.*]] = math.exp2 %[[SW]]
// CHECK-NEXT:      %[[P:.*]] = arith.truncf %[[E]]
// CHECK-NEXT:      %[[D:.*]] = tilegpu.warpgroup_dot %[[P]], %[[V]][%[[SLOT]]], %[[ACC]] {isAsync}
// CHECK-NEXT:      scf.yield %[[D]]
// CHECK:         tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT:    tilegpu.warpgroup_wait %{{.*}} {pendings = 0 : i32}
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

func.func @two_dots(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>)
    -> tensor<64x128xf32, #wgmma1> attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %acc : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d : tensor<64x128xf32, #wgmma1>
  }
  return %r : tensor<64x128xf32, #wgmma1>
}


// -----

// Attention's loop as the tutorial writes it: the accumulator is rescaled
// (a read other than a dot's) before P.V adds to it. P.V then stays in
// flight across the back edge, behind the next iteration's QK^T: the
// first wait of the body (QK^T's, depth 0) retires it, so the buffers of
// the previous iteration are released after that wait, and the rescale
// waits for the carried accumulator (placed with one dot, QK^T, allowed
// in flight; canonicalized to 0: QK^T was waited for, no group can be
// running there). After the loop, the last P.V is waited for.

// CHECK-LABEL: func.func @rescaled_accumulator
// CHECK:         %[[LOOP:.*]] = scf.for %[[IV:.*]] = %arg0 to %arg1 step %c1_i64 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x128xf32, #{{.*}}>) : i64 {
// CHECK:           tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT:      tilegpu.fence_async_shared
// CHECK-NEXT:      tilegpu.barrier
// CHECK-NEXT:      %[[S:.*]] = tilegpu.warpgroup_dot %arg2[%c0_i32], %[[K:.*]][%[[SLOT:.*]]], %{{.*}} {isAsync}
// CHECK-NEXT:      %[[SW:.*]] = tilegpu.warpgroup_wait %[[S]] {pendings = 0 : i32}
// CHECK-NEXT:      tilegpu.barrier
// CHECK:           tilegpu.async_commit_group
// CHECK:           %[[E:.*]] = math.exp2 %[[SW]]
// CHECK:           %[[P:.*]] = arith.truncf %[[E]]
// CHECK:           %[[AW:.*]] = tilegpu.warpgroup_wait %[[ACC]] {pendings = 0 : i32}
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[AW]], %arg5
// CHECK-NEXT:      %[[D:.*]] = tilegpu.warpgroup_dot %[[P]], %{{.*}}[%[[SLOT]]], %[[R]] {isAsync}
// CHECK-NEXT:      scf.yield %[[D]]
// CHECK:         tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT:    %[[OUT:.*]] = tilegpu.warpgroup_wait %[[LOOP]] {pendings = 0 : i32}
// CHECK-NEXT:    return %[[OUT]]
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

func.func @rescaled_accumulator(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>,
                    %alpha: tensor<64x128xf32, #wgmma1>)
    -> tensor<64x128xf32, #wgmma1> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %scaled = arith.mulf %acc, %alpha : tensor<64x128xf32, #wgmma1>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %scaled : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d : tensor<64x128xf32, #wgmma1>
  }
  return %r : tensor<64x128xf32, #wgmma1>
}

// -----

// The accumulator read after P.V in the next iteration (here: after the
// dot that chains it): that read waits with the depth of the two dots
// issued since, canonicalized to 1 (QK^T's wait came after QK^T: only P.V
// can be running). P.V still stays in flight across the back edge: its P
// is computed after QK^T's wait, which retires it.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @read_after_dot
// CHECK:           scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[P:.*]], %{{.*}}, %[[ACC]] {isAsync} : tensor<64x64xf16
// CHECK-NEXT:      %[[W:.*]] = tilegpu.warpgroup_wait %[[ACC]] {pendings = 1 : i32}
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[W]], %{{.*}}
// CHECK-NEXT:      scf.yield %[[D]], %[[R]]
func.func @read_after_dot(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>,
                    %alpha: tensor<64x128xf32, #wgmma1>)
    -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r:2 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0, %prev = %acc0) -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %acc : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    %scaled = arith.mulf %acc, %alpha : tensor<64x128xf32, #wgmma1>
    scf.yield %d, %scaled : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
  }
  return %r#0, %r#1 : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
}

// -----

// The attention backward's loop shape: two dots with A in registers that
// only accumulate (dV += P^T dO, then dK += dS^T Q), both A computed from
// the first dot's wait. In a kernel of two warpgroups only the last dot
// of the body stays in flight across the back edge; dV is retired at the end of its iteration behind
// one wait that leaves dK running (depth 1), its A kept until then. After
// the loop, dK (still in flight) is waited for.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @two_accumulators
// CHECK:         %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[DV:.*]] = %{{.*}}, %[[DK:.*]] = %{{.*}})
// CHECK:           %[[S:.*]] = tilegpu.warpgroup_dot %arg2[%c0_i32], %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT:      %[[SW:.*]] = tilegpu.warpgroup_wait %[[S]] {pendings = 0 : i32}
// CHECK:           %[[P:.*]] = arith.truncf
// CHECK-NEXT:      %[[D1:.*]] = tilegpu.warpgroup_dot %[[P]], %{{.*}}, %[[DV]] {isAsync}
// CHECK:           %[[DS:.*]] = arith.truncf
// CHECK-NEXT:      %[[D2:.*]] = tilegpu.warpgroup_dot %[[DS]], %{{.*}}, %[[DK]] {isAsync}
// CHECK-NEXT:      %[[W:.*]]:2 = tilegpu.warpgroup_wait %[[D1]], %[[P]] {pendings = 1 : i32}
// CHECK-NEXT:      scf.yield %[[W]]#0, %[[D2]]
// CHECK:         tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT:    tilegpu.warpgroup_wait %[[LOOP]]#1 {pendings = 0 : i32}
func.func @two_accumulators(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>)
    -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r:2 = scf.for %i = %lo to %hi step %c1 iter_args(%dv = %acc0, %dk = %acc0) -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %dv1 = tilegpu.warpgroup_dot %p, %vring[%c0], %dv : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    %e2 = arith.mulf %e, %s : tensor<64x64xf32, #wgmma>
    %ds = arith.truncf %e2 : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %dk1 = tilegpu.warpgroup_dot %ds, %vring[%c0], %dk : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %dv1, %dk1 : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
  }
  return %r#0, %r#1 : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
}

// The same loop in a kernel of one warpgroup (4 warps): two CTAs share an
// SM, and both dots, which only accumulate, are retired in their own
// iteration (dV behind dK, then dK), their A kept until then.
// CHECK-LABEL: func.func @two_accumulators_one_warpgroup
// CHECK:         scf.for
// CHECK:           %[[P:.*]] = arith.truncf
// CHECK-NEXT:      %[[D1:.*]] = tilegpu.warpgroup_dot %[[P]], {{.*}} {isAsync}
// CHECK:           %[[DS:.*]] = arith.truncf
// CHECK-NEXT:      %[[D2:.*]] = tilegpu.warpgroup_dot %[[DS]], {{.*}} {isAsync}
// CHECK-NEXT:      %[[W1:.*]]:2 = tilegpu.warpgroup_wait %[[D1]], %[[P]] {pendings = 1 : i32}
// CHECK-NEXT:      %[[W2:.*]]:2 = tilegpu.warpgroup_wait %[[D2]], %[[DS]] {pendings = 0 : i32}
// CHECK-NEXT:      scf.yield %[[W1]]#0, %[[W2]]#0
func.func @two_accumulators_one_warpgroup(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>)
    -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r:2 = scf.for %i = %lo to %hi step %c1 iter_args(%dv = %acc0, %dk = %acc0) -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %dv1 = tilegpu.warpgroup_dot %p, %vring[%c0], %dv : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    %e2 = arith.mulf %e, %s : tensor<64x64xf32, #wgmma>
    %ds = arith.truncf %e2 : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %dk1 = tilegpu.warpgroup_dot %ds, %vring[%c0], %dk : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %dv1, %dk1 : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
  }
  return %r#0, %r#1 : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
}

// -----

// P.V would stay in flight, but another dot (here: before it) also
// accumulates into the carried value: that dot would read the accumulator
// of an unretired wgmma (ptxas injects a wait, C7517). P.V is retired
// within its iteration.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @second_accumulating_dot
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[P:.*]], %{{.*}}, %{{.*}} {isAsync} : tensor<64x64xf16
// CHECK-NEXT:      %[[W:.*]]:2 = tilegpu.warpgroup_wait %[[D]], %[[P]] {pendings = 0 : i32}
// CHECK-NEXT:      scf.yield %[[W]]#0
func.func @second_accumulating_dot(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>)
    -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r:2 = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0, %other = %acc0) -> (tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %y = tilegpu.warpgroup_dot %q[%c0], %vring[%c0], %acc : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %acc : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d, %y : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
  }
  return %r#0, %r#1 : tensor<64x128xf32, #wgmma1>, tensor<64x128xf32, #wgmma1>
}

// -----

// P.V's A is chosen by a select between P and a value from before the
// loop: a forwarding op could hand A registers written before the wait
// that retires the previous P.V, so only a narrowing conversion counts as
// writing A afresh. P.V is retired within its iteration.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @selected_a
// CHECK:           %[[A:.*]] = arith.select
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[A]], %{{.*}}, %{{.*}} {isAsync} : tensor<64x64xf16
// CHECK-NEXT:      %[[W:.*]]:2 = tilegpu.warpgroup_wait %[[D]], %[[A]] {pendings = 0 : i32}
// CHECK-NEXT:      scf.yield %[[W]]#0
func.func @selected_a(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>,
                    %c: i1, %p0: tensor<64x64xf16, #wgmma>)
    -> tensor<64x128xf32, #wgmma1> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %a = arith.select %c, %p, %p0 : tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %a, %vring[%c0], %acc : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d : tensor<64x128xf32, #wgmma1>
  }
  return %r : tensor<64x128xf32, #wgmma1>
}

// -----

// A dot whose register A does not come from a wait (here: computed from
// the induction variable alone) would have its A fragments rewritten in
// the next iteration while it may still run: it is retired within its
// iteration.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @register_a_without_wait
// CHECK:           %[[P:.*]] = arith.truncf
// CHECK:           %[[D:.*]] = tilegpu.warpgroup_dot %[[P]], %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT:      %[[W:.*]]:2 = tilegpu.warpgroup_wait %[[D]], %[[P]] {pendings = 0 : i32}
// CHECK-NEXT:      scf.yield %[[W]]#0
func.func @register_a_without_wait(%lo: i64, %hi: i64, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>)
    -> tensor<64x128xf32, #wgmma1> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #wgmma1>) : i64 {
    %f = arith.sitofp %i : i64 to f32
    %t = tile.splat %f : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %t : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %acc : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d : tensor<64x128xf32, #wgmma1>
  }
  return %r : tensor<64x128xf32, #wgmma1>
}

// -----

// The same loop with its result unused: the last P.V is still waited for
// after the loop (it reads the V ring, which later code may reuse).

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @unused_result
// CHECK:         scf.for
// CHECK:         tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT:    tilegpu.warpgroup_wait {pendings = 0 : i32}
// CHECK-NEXT:    return
func.func @unused_result(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>,
                    %alpha: tensor<64x128xf32, #wgmma1>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %e = math.exp2 %s : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %scaled = arith.mulf %acc, %alpha : tensor<64x128xf32, #wgmma1>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %scaled : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d : tensor<64x128xf32, #wgmma1>
  }
  return
}

// -----

// A read of QK^T nested in an scf.if: the wait goes before the if, with
// depth 0 (the read is before any later dot of the body).

// CHECK-LABEL: func.func @nested_read
// CHECK:           %[[S:.*]] = tilegpu.warpgroup_dot %arg2[%c0_i32], %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT:      %[[SW:.*]] = tilegpu.warpgroup_wait %[[S]] {pendings = 0 : i32}
// CHECK-NOT:       tilegpu.warpgroup_wait
// CHECK:           scf.if %arg6
// CHECK-NEXT:        arith.negf %[[SW]]
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#wgmma1 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @nested_read(%lo: i64, %hi: i64, %q: !tilegpu.smem<1 x tensor<64x64xf16>>,
                    %kptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %vptrs: tensor<64x128x!tile.ptr<f16>, #blocked>,
                    %alpha: tensor<64x128xf32, #wgmma1>, %cond: i1)
    -> tensor<64x128xf32, #wgmma1> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %kring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x64xf16>>
  %vring = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #wgmma1>
  %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #wgmma1>) : i64 {
    %off = arith.trunci %i : i64 to i32
    %offs = tile.splat %off : tensor<64x64xi32, #blocked>
    %kp = tile.addptr %kptrs, %offs : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tilegpu.barrier
    tilegpu.async_copy %kp, %kring[%c0] {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x64xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %s = tilegpu.warpgroup_dot %q[%c0], %kring[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %s2 = scf.if %cond -> tensor<64x64xf32, #wgmma> {
      %n = arith.negf %s : tensor<64x64xf32, #wgmma>
      scf.yield %n : tensor<64x64xf32, #wgmma>
    } else {
      scf.yield %zero : tensor<64x64xf32, #wgmma>
    }
    %e = math.exp2 %s2 : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %scaled = arith.mulf %acc, %alpha : tensor<64x128xf32, #wgmma1>
    tilegpu.barrier
    tilegpu.async_copy %vptrs, %vring[%c0] {vec = 8 : i32} : tensor<64x128x!tile.ptr<f16>, #blocked>, !tilegpu.smem<1 x tensor<64x128xf16>>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %d = tilegpu.warpgroup_dot %p, %vring[%c0], %scaled : tensor<64x64xf16, #wgmma>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<64x128xf32, #wgmma1>
    scf.yield %d : tensor<64x128xf32, #wgmma1>
  }
  return %r : tensor<64x128xf32, #wgmma1>
}

// -----

// A loop that passes a value through unchanged: the modulo-schedule
// expander needs every carried value computed in the loop, so the loop
// keeps its single-stage form and says why.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

// CHECK-LABEL: func.func @passthrough
// CHECK:         tilegpu.local_alloc : <1 x tensor<128x64xf16>>
// CHECK-NOT:     isAsync
func.func @passthrough(%steps: i32, %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %x: i32)
    -> i32 attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %a = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %b = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_init %bars : !tilegpu.mbarriers<1>
  // expected-remark @below {{loop not software-pipelined: a loop-carried value is passed through unchanged or comes from outside the loop}}
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%same = %x) -> (i32) : i32 {
    tilegpu.barrier
    tilegpu.mbarrier_expect %bars[%c0], 16384 : !tilegpu.mbarriers<1>
    tilegpu.tma_load %da[%c0, %i], %a[%c0], %bars[%c0] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
    %p = arith.andi %i, %c1 : i32
    tilegpu.mbarrier_wait %bars[%c0], %p : !tilegpu.mbarriers<1>
    %d = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %acc0 : !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.smem<1 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
    scf.yield %same : i32
  }
  tilegpu.mbarrier_inval %bars : !tilegpu.mbarriers<1>
  return %r : i32
}
