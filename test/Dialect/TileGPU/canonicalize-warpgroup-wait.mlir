// RUN: tilec-opt %s -split-input-file -canonicalize | FileCheck %s

// warpgroup_wait's pendings come down to the wgmma groups that can still be
// running: those the previous wait in the block left (a synchronous dot
// leaves none) plus one per asynchronous dot since. The one-sweep
// backward's loop ends with waits of depth 2 and 1 after dQ's depth 0:
// ptxas, which does not count across waits, otherwise keeps groups in
// flight over the back edge and serializes every wgmma (C7517, C7518).

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// CHECK-LABEL: func.func @tighten
// CHECK:         %[[A:.*]] = tilegpu.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT:    %[[B:.*]] = tilegpu.warpgroup_dot {{.*}} {isAsync}
// The first wait of the block: nothing known before it.
// CHECK-NEXT:    tilegpu.warpgroup_wait %[[A]] {pendings = 5 : i32}
// CHECK-NEXT:    tilegpu.warpgroup_wait %[[B]] {pendings = 0 : i32}
// CHECK-NEXT:    %[[C:.*]] = tilegpu.warpgroup_dot {{.*}} {isAsync}
// One dot since a wait of depth 0.
// CHECK-NEXT:    tilegpu.warpgroup_wait %[[C]] {pendings = 1 : i32}
// Nothing since: as deep as the one before.
// CHECK-NEXT:    tilegpu.warpgroup_wait {pendings = 1 : i32}
// A synchronous dot waits for all.
// CHECK-NEXT:    %[[D:.*]] = tilegpu.warpgroup_dot
// CHECK-NEXT:    tilegpu.warpgroup_wait {pendings = 0 : i32}
// Already tight: unchanged.
// CHECK-NEXT:    %[[E:.*]] = tilegpu.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT:    tilegpu.warpgroup_wait %[[E]] {pendings = 0 : i32}
func.func @tighten(%p: tensor<64x64xf16, #wgmma>, %acc: tensor<64x64xf32, #wgmma>)
    -> (tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>) {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc : <1 x tensor<64x64xf16>>
  %a = tilegpu.warpgroup_dot %p, %ring[%c0], %acc {isAsync} : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
  %b = tilegpu.warpgroup_dot %p, %ring[%c0], %acc {isAsync} : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
  %wa = tilegpu.warpgroup_wait %a {pendings = 5 : i32} : tensor<64x64xf32, #wgmma>
  %wb = tilegpu.warpgroup_wait %b {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
  %c = tilegpu.warpgroup_dot %p, %ring[%c0], %acc {isAsync} : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
  %wc = tilegpu.warpgroup_wait %c {pendings = 2 : i32} : tensor<64x64xf32, #wgmma>
  tilegpu.warpgroup_wait {pendings = 3 : i32}
  %d = tilegpu.warpgroup_dot %p, %ring[%c0], %acc : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
  tilegpu.warpgroup_wait {pendings = 2 : i32}
  %e = tilegpu.warpgroup_dot %p, %ring[%c0], %acc {isAsync} : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
  %we = tilegpu.warpgroup_wait %e {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
  return %wa, %wb, %wc, %d, %we, %acc : tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>, tensor<64x64xf32, #wgmma>
}

// -----

// A dot in a region between the waits: its groups are not counted, and
// the wait stays.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// CHECK-LABEL: func.func @region_between
// CHECK:         scf.if
// CHECK:         tilegpu.warpgroup_wait {pendings = 2 : i32}
func.func @region_between(%p: tensor<64x64xf16, #wgmma>, %acc: tensor<64x64xf32, #wgmma>, %cond: i1) {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc : <1 x tensor<64x64xf16>>
  tilegpu.warpgroup_wait {pendings = 0 : i32}
  scf.if %cond {
    %a = tilegpu.warpgroup_dot %p, %ring[%c0], %acc {isAsync} : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
  }
  tilegpu.warpgroup_wait {pendings = 2 : i32}
  return
}
