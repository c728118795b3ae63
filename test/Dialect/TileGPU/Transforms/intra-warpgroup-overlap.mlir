// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-intra-warpgroup-overlap | FileCheck %s

// Attention's consumer loop as tilegpu-warp-specialize leaves it (two
// stages): S = Q K^T, its wait, the release of the previous slot, the
// softmax, the wait for the accumulator (P V of the previous iteration),
// the rescale, then P V. After the pass: the first iteration peeled
// without P V, the loop from the second iteration issuing P V of the
// previous one (P, its slot and the rescaled accumulator carried) right
// after Q K^T; the wait for S leaves one group (P V) in flight, the wait
// for the accumulator retires P V (and takes P), and the release follows
// it; after the loop P V of the last iteration, retired; all of it only
// when the loop runs.

// CHECK-LABEL: func.func @attn
// CHECK:         tilegpu.warp_specialize consumer {
// CHECK:           %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %arg0 : i32
// CHECK:           %[[R:.*]] = scf.if %[[RUNS]] -> (tensor<64x64xf32, #wgmma>) {
// CHECK:             %[[S0:.*]] = tilegpu.warpgroup_dot %{{.*}}[%c0_i32], %[[K:.*]][%[[SLOT0:.*]]], %cst {bTransposed, isAsync}
// CHECK-NEXT:        tilegpu.warpgroup_wait %[[S0]] {pendings = 0 : i32}
// CHECK-NOT:         tilegpu.warpgroup_dot
// CHECK:             %[[P0:.*]] = arith.truncf
// CHECK-NEXT:        %[[SECOND:.*]] = arith.addi %c0_i32, %c1_i32 : i32
// CHECK-NEXT:        %[[L:.*]]:3 = scf.for %[[I:.*]] = %[[SECOND]] to %arg0 step %c1_i32 iter_args(%[[C:.*]] = %{{.*}}, %[[P:.*]] = %[[P0]], %[[PSLOT:.*]] = %[[SLOT0]])
// CHECK:               %[[SLOT:.*]] = arith.remui %[[I]], %c2_i32 : i32
// CHECK:               %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}[%c0_i32], %[[K]][%[[SLOT]]], %cst {bTransposed, isAsync}
// CHECK-NEXT:          %[[O:.*]] = tilegpu.warpgroup_dot %[[P]], %[[V:.*]][%[[PSLOT]]], %[[C]] {isAsync}
// CHECK-NEXT:          tilegpu.warpgroup_wait %[[S]] {pendings = 1 : i32}
// CHECK:               %[[OW:.*]]:2 = tilegpu.warpgroup_wait %[[O]], %[[P]] {pendings = 0 : i32}
// CHECK-NEXT:          tilegpu.mbarrier_arrive
// CHECK-NEXT:          %[[SCALED:.*]] = arith.mulf %[[OW]]#0, %arg1
// CHECK-NEXT:          %[[PN:.*]] = arith.truncf
// CHECK-NEXT:          scf.yield %[[SCALED]], %[[PN]], %[[SLOT]]
// CHECK:             %[[LAST:.*]] = tilegpu.warpgroup_dot %[[L]]#1, %[[V]][%[[L]]#2], %[[L]]#0 {isAsync}
// CHECK-NEXT:        %[[LW:.*]]:2 = tilegpu.warpgroup_wait %[[LAST]], %[[L]]#1 {pendings = 0 : i32}
// CHECK-NEXT:        scf.yield %[[LW]]#0
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %cst
// CHECK-NEXT:      }
// CHECK-NEXT:      tilegpu.warpgroup_wait %[[R]] {pendings = 0 : i32}
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
func.func @attn(%n: i32, %scale: tensor<64x64xf32, #wgmma>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wgmma>
  %empty = tilegpu.mbarrier_alloc : <2>
  %kfull = tilegpu.mbarrier_alloc : <2>
  %q = tilegpu.local_alloc : <1 x tensor<64x64xf16>>
  %k = tilegpu.local_alloc : <2 x tensor<64x64xf16>>
  %v = tilegpu.local_alloc : <2 x tensor<64x64xf16>>
  tilegpu.warp_specialize consumer {
    // expected-remark @below {{loop issues its last dot one iteration late}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
      %slot = arith.remui %i, %c2 : i32
      tilegpu.mbarrier_wait %kfull[%slot], %c0 : <2>
      %s = tilegpu.warpgroup_dot %q[%c0], %k[%slot], %zero {bTransposed, isAsync} : !tilegpu.smem<1 x tensor<64x64xf16>>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
      %sw = tilegpu.warpgroup_wait %s {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
      %prev = arith.addi %i, %c1 : i32
      %pslot = arith.remui %prev, %c2 : i32
      %has = arith.cmpi sge, %i, %c1 : i32
      tilegpu.mbarrier_arrive %empty[%pslot] if %has : <2>
      %e = math.exp2 %sw : tensor<64x64xf32, #wgmma>
      %aw = tilegpu.warpgroup_wait %acc {pendings = 1 : i32} : tensor<64x64xf32, #wgmma>
      %scaled = arith.mulf %aw, %scale : tensor<64x64xf32, #wgmma>
      %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
      %o = tilegpu.warpgroup_dot %p, %v[%slot], %scaled {isAsync} : tensor<64x64xf16, #wgmma>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
      scf.yield %o : tensor<64x64xf32, #wgmma>
    }
    %w = tilegpu.warpgroup_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
  } producer {
  } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

// A loop of one dot (the matmul's) keeps its form, with a remark; so does a
// loop whose last dot reads A from shared memory.

// CHECK-LABEL: func.func @one_dot
// CHECK-NOT:     scf.if
// CHECK:         scf.for
// CHECK-NOT:     scf.if
// CHECK:         return
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
func.func @one_dot(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wgmma>
  %a = tilegpu.local_alloc : <1 x tensor<64x64xf16>>
  %b = tilegpu.local_alloc : <1 x tensor<64x64xf16>>
  tilegpu.warp_specialize consumer {
    // expected-remark @below {{loop's last dot not overlapped with the next iteration: its body has fewer than two warpgroup dots}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
      %d = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %acc {isAsync} : !tilegpu.smem<1 x tensor<64x64xf16>>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
      scf.yield %d : tensor<64x64xf32, #wgmma>
    }
    %w = tilegpu.warpgroup_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
  } producer {
  } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  // expected-remark @below {{loop's last dot not overlapped with the next iteration: its last dot does not take A from registers and only feed the next iteration}}
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
    %d = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %acc {isAsync} : !tilegpu.smem<1 x tensor<64x64xf16>>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %d2 = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %d {isAsync} : !tilegpu.smem<1 x tensor<64x64xf16>>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    scf.yield %d2 : tensor<64x64xf32, #wgmma>
  }
  return
}
