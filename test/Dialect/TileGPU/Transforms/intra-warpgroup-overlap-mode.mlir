// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-intra-warpgroup-overlap=mode=warp-specialized | FileCheck %s
// RUN: not tilec-opt %s -split-input-file -tilegpu-intra-warpgroup-overlap=mode=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// mode=warp-specialized (the compiler's default): the consumer loop of a
// tilegpu.warp_specialize is taken; the same loop outside one keeps its
// form, and neither it nor a consumer loop the pass cannot take (one dot)
// gets a remark.

// CHECK-LABEL: func.func @split_and_plain
// CHECK:         tilegpu.warp_specialize consumer {
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK:               tilegpu.warpgroup_dot %{{.*}}[%c0_i32], %{{.*}}, %cst {bTransposed, isAsync}
// CHECK-NEXT:          tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
// CHECK:         } producer {
// The plain loop: Q K^T, then P V in the same iteration, no peeled copy.
// CHECK:         scf.for
// CHECK:           tilegpu.warpgroup_dot %{{.*}}[%c0_i32], %{{.*}}, %cst {bTransposed, isAsync}
// CHECK-NEXT:      tilegpu.warpgroup_wait
// CHECK:           math.exp2
// CHECK:           tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
// CHECK-NEXT:      scf.yield
// CHECK:         return
// BAD: tilegpu-intra-warpgroup-overlap: mode 'sometimes' is not one of all, warp-specialized
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
func.func @split_and_plain(%n: i32, %scale: tensor<64x64xf32, #wgmma>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
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
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
      %d = tilegpu.warpgroup_dot %q[%c0], %k[%c0], %acc {isAsync} : !tilegpu.smem<1 x tensor<64x64xf16>>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
      scf.yield %d : tensor<64x64xf32, #wgmma>
    }
  } producer {
  } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
    %slot = arith.remui %i, %c2 : i32
    tilegpu.mbarrier_wait %kfull[%slot], %c0 : <2>
    %s = tilegpu.warpgroup_dot %q[%c0], %k[%slot], %zero {bTransposed, isAsync} : !tilegpu.smem<1 x tensor<64x64xf16>>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %sw = tilegpu.warpgroup_wait %s {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
    %e = math.exp2 %sw : tensor<64x64xf32, #wgmma>
    %aw = tilegpu.warpgroup_wait %acc {pendings = 1 : i32} : tensor<64x64xf32, #wgmma>
    %scaled = arith.mulf %aw, %scale : tensor<64x64xf32, #wgmma>
    %p = arith.truncf %e : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %o = tilegpu.warpgroup_dot %p, %v[%slot], %scaled {isAsync} : tensor<64x64xf16, #wgmma>, <2 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    scf.yield %o : tensor<64x64xf32, #wgmma>
  }
  return
}
