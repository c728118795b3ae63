// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-allocate-shared | FileCheck %s

// Two loops, each with its own rings and mbarriers (attention's causal
// case): the second loop's rings reuse the first loop's memory; the
// reduction after both (its scratch: one f32 partial per warp and row)
// reuses it too (the warps split the reduced rows); the kernel needs
// 40 KB and the first loop's barriers.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#slice = #tilegpu.slice<{dim = 0, parent = #wgmma}>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @two_loops
// CHECK-SAME:    tilegpu.shared_memory = 40976 : i64
// CHECK-DAG:     tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x64xf16>>
// CHECK-DAG:     tilegpu.local_alloc {offset = 32768 : i64} : <2 x tensor<64x32xf16>>
// CHECK-DAG:     tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<64x128xf16>>
// CHECK-DAG:     tilegpu.mbarrier_alloc {offset = 40960 : i64} : <2>
// The second loop's barriers take the place of the first loop's B ring.
// CHECK-DAG:     tilegpu.mbarrier_alloc {offset = 32768 : i64} : <2>
// The mbarrier_inval after the first loop begins with a CTA barrier: no
// other barrier is added for the reuse.
// CHECK-NOT:     tilegpu.barrier
// CHECK:         tile.reduce %{{.*}} {axis = 0 : i32,
// CHECK-SAME:    tilegpu.scratch_offset = 0 : i64
func.func @two_loops(%n: i32, %acc0: tensor<128x128xf32, #wgmma>, %ta: tensor<128x64xf16, #blocked>,
                     %tb: tensor<64x32xf16, #blocked>, %tc: tensor<64x128xf16, #blocked>) -> tensor<128xf32, #slice>
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tilegpu.local_alloc : !tilegpu.smem<2 x tensor<128x64xf16>>
  %b = tilegpu.local_alloc : !tilegpu.smem<2 x tensor<64x32xf16>>
  %c = tilegpu.local_alloc : !tilegpu.smem<2 x tensor<64x128xf16>>
  %bars1 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<2>
  %bars2 = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<2>
  tilegpu.mbarrier_init %bars1 : !tilegpu.mbarriers<2>
  scf.for %i = %c0 to %n step %c1 : i32 {
    tilegpu.mbarrier_wait %bars1[%c0], %c0 : !tilegpu.mbarriers<2>
    tilegpu.local_store %ta, %a[%c0] : tensor<128x64xf16, #blocked>, !tilegpu.smem<2 x tensor<128x64xf16>>
    tilegpu.local_store %tb, %b[%c0] : tensor<64x32xf16, #blocked>, !tilegpu.smem<2 x tensor<64x32xf16>>
  }
  tilegpu.mbarrier_inval %bars1 : !tilegpu.mbarriers<2>
  tilegpu.mbarrier_init %bars2 : !tilegpu.mbarriers<2>
  scf.for %i = %c0 to %n step %c1 : i32 {
    tilegpu.mbarrier_wait %bars2[%c0], %c0 : !tilegpu.mbarriers<2>
    tilegpu.local_store %tc, %c[%c0] : tensor<64x128xf16, #blocked>, !tilegpu.smem<2 x tensor<64x128xf16>>
  }
  tilegpu.mbarrier_inval %bars2 : !tilegpu.mbarriers<2>
  %sum = "tile.reduce"(%acc0) <{axis = 0 : i32}> ({
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    tile.reduce.return %s : f32
  }) : (tensor<128x128xf32, #wgmma>) -> tensor<128xf32, #slice>
  return %sum : tensor<128xf32, #slice>
}

// -----

// Rings filled by every thread (cp.async-like, no mbarriers, so no
// mbarrier_inval with its barrier between the loops): the second loop's
// ring reuses the first's memory, and one warpgroup may still be in the
// first loop when another starts the second, so one CTA barrier goes
// between them (the race causal attention's second loop had without TMA).

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @reuse_without_mbarriers
// CHECK-COUNT-2: tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x64xf16>>
// CHECK:         scf.for
// CHECK-NOT:     tilegpu.barrier
// CHECK:         }
// CHECK-NEXT:    tilegpu.barrier
// CHECK-NEXT:    scf.for
// CHECK-NOT:     tilegpu.barrier
// CHECK:         return
func.func @reuse_without_mbarriers(%n: i32, %ta: tensor<128x64xf16, #blocked>, %tc: tensor<128x64xf16, #blocked>)
    attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tilegpu.local_alloc : !tilegpu.smem<2 x tensor<128x64xf16>>
  %c = tilegpu.local_alloc : !tilegpu.smem<2 x tensor<128x64xf16>>
  scf.for %i = %c0 to %n step %c1 : i32 {
    tilegpu.local_store %ta, %a[%c0] : tensor<128x64xf16, #blocked>, !tilegpu.smem<2 x tensor<128x64xf16>>
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    tilegpu.local_store %tc, %c[%c0] : tensor<128x64xf16, #blocked>, !tilegpu.smem<2 x tensor<128x64xf16>>
  }
  return
}

// -----

// More than a Hopper CTA's 227 KB: a located error.

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// expected-error @below {{the kernel needs 262144 bytes of shared memory, more than the 232448 a Hopper CTA can have}}
func.func @too_big(%t: tensor<256x128xf16, #blocked>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-note @below {{262144 bytes of them are 4 buffers of 'tensor<256x128xf16>' allocated for this op}}
  %a = tilegpu.local_alloc : !tilegpu.smem<4 x tensor<256x128xf16>>
  tilegpu.local_store %t, %a[%c0] : tensor<256x128xf16, #blocked>, !tilegpu.smem<4 x tensor<256x128xf16>>
  return
}

// -----

// A warp-specialized kernel: the ring the producer fills (%k) and its
// barriers live through the whole tilegpu.warp_specialize (the producer
// runs ahead of the consumers, unordered with their ops), so the scratch
// of the consumers' reduction after their wait (while %q is still in use)
// cannot reuse them: it goes after both rings.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#slice = #tilegpu.slice<{dim = 0, parent = #wgmma}>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @producer_ring
// CHECK-SAME:    tilegpu.shared_memory = 34832 : i64
// CHECK-DAG:     tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<128x64xf16>>
// CHECK-DAG:     tilegpu.local_alloc {offset = 16384 : i64} : <1 x tensor<64x128xf16>>
// CHECK-DAG:     tilegpu.mbarrier_alloc {offset = 34816 : i64} : <2>
// CHECK:         tile.reduce %{{.*}} {axis = 0 : i32,
// CHECK-SAME:    tilegpu.scratch_offset = 32768 : i64
func.func @producer_ring(%tq: tensor<128x64xf16, #blocked>, %acc: tensor<128x128xf32, #wgmma>,
                         %dk: !tilegpu.tma_desc<tensor<64x128xf16>, 2>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %q = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %k = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<64x128xf16>>
  %full = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<2>
  tilegpu.mbarrier_init %full : !tilegpu.mbarriers<2>
  tilegpu.warp_specialize consumer {
    %c0 = arith.constant 0 : i32
    tilegpu.local_store %tq, %q[%c0] : tensor<128x64xf16, #blocked>, !tilegpu.smem<1 x tensor<128x64xf16>>
    tilegpu.mbarrier_wait %full[%c0], %c0 : !tilegpu.mbarriers<2>
    %sum = "tile.reduce"(%acc) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tile.reduce.return %s : f32
    }) : (tensor<128x128xf32, #wgmma>) -> tensor<128xf32, #slice>
    tilegpu.local_store %tq, %q[%c0] : tensor<128x64xf16, #blocked>, !tilegpu.smem<1 x tensor<128x64xf16>>
  } producer {
    %c0 = arith.constant 0 : i32
    tilegpu.mbarrier_expect %full[%c0], 16384 : !tilegpu.mbarriers<2>
    tilegpu.tma_load %dk[%c0, %c0], %k[%c0], %full[%c0] : !tilegpu.tma_desc<tensor<64x128xf16>, 2>, !tilegpu.smem<1 x tensor<64x128xf16>>, !tilegpu.mbarriers<2>
  } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

// Scans: a 65536-element row on 4 warps is scanned in place (4 elements per
// thread, 128 chunks of 512): its scratch is the chunk table, every
// thread's total of every chunk and the chunks' totals, 128 x (128 + 1)
// f32 = 66048 bytes, not the 256 KB of the tile. An mma accumulator
// scanned along its rows is moved through shared memory: a whole f32 tile,
// 64 x 8 x 4 = 2 KB, after the first scan's area is free again.

#vec4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #tilegpu.mma<warpsPerCTA = [4, 1], instrN = 8>

// CHECK-LABEL: func.func @scan_scratch
// CHECK-SAME:    tilegpu.shared_memory = 66048 : i64
// CHECK:         tile.scan %{{.*}} {axis = 0 : i32, tilegpu.scratch_offset = 0 : i64}
// CHECK:         tile.scan %{{.*}} {axis = 0 : i32, tilegpu.scratch_offset = 0 : i64}
func.func @scan_scratch(%x: tensor<65536xf32, #vec4>, %y: tensor<64x8xf32, #mma>) -> (tensor<65536xf32, #vec4>, tensor<64x8xf32, #mma>)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<65536xf32, #vec4>) -> tensor<65536xf32, #vec4> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  %s = tile.scan %y {axis = 0 : i32} : (tensor<64x8xf32, #mma>) -> tensor<64x8xf32, #mma> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r, %s : tensor<65536xf32, #vec4>, tensor<64x8xf32, #mma>
}
