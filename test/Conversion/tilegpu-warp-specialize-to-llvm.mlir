// RUN: tilec-opt %s -convert-tilegpu-to-llvm | FileCheck %s
// RUN: tilec-opt %s -convert-tilegpu-to-llvm=mbarrier-spin-limit=1000 | FileCheck %s --check-prefix=SPIN

// A warp-specialized kernel (tilegpu-warp-specialize, offsets from
// tilegpu-allocate-shared) lowered: the barriers' inits before the split
// (the full and the empty ring's) share one fence and one barrier of the
// whole CTA (bar.sync 0); then threads below 128 (the 4
// consumer warps) raise their registers to 232 and run the consumer region,
// where every CTA barrier is the named barrier 1 of 128 threads and thread
// 0 leads; the producer warpgroup lowers its registers to 40 and its first
// warp runs the producer region, led by thread 128 (its waits, expects and
// copies). The launch bound counts the 256 threads, one CTA per SM.
// Thread 0 prefetches the descriptor of the copies before anything else.

// CHECK-LABEL: llvm.func @ws(
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32
// Thread 0 first prefetches the TMA descriptor parameter.
// CHECK-NEXT:    %[[T0:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[LEAD:.*]] = llvm.icmp "eq" %[[T0]], %[[Z]] : i32
// CHECK-NEXT:    nvvm.prefetch tensormap, %arg1, predicate = %[[LEAD]] : !llvm.ptr, i1
// CHECK:         nvvm.mbarrier.init
// CHECK-NOT:     nvvm.barrier0
// CHECK:         nvvm.mbarrier.init
// CHECK-NOT:     nvvm.barrier0
// CHECK:         nvvm.fence.mbarrier.init
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[C128:.*]] = arith.constant 128 : i32
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi ult, %[[TID]], %[[C128]] : i32
// CHECK:         scf.if %[[CONSUMER]] {
// CHECK-NEXT:      nvvm.setmaxregister increase 232
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           %[[ID:.*]] = arith.constant 1 : i32
// CHECK:           %[[N:.*]] = arith.constant 128 : i32
// CHECK:           nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK:           mbarrier.arrive.shared::cta.b64
// Thread 0 invalidates after the consumers' named barrier.
// CHECK:           nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK:           nvvm.mbarrier.inval
// CHECK-NOT:       nvvm.barrier0
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister decrease 40
// CHECK:           %[[WARP:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[WARP]], %{{.*}} : i32
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             scf.for
// The producer's leader is thread 128.
// CHECK:               %[[PT:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:               %[[P128:.*]] = arith.constant 128 : i32
// CHECK:               %[[LEAD:.*]] = arith.cmpi eq, %[[PT]], %[[P128]] : i32
// CHECK:               llvm.inline_asm has_side_effects {{.*}}mbarrier.try_wait.parity{{.*}}vote.sync.all.pred{{.*}} %[[LEAD]]
// CHECK:               nvvm.mbarrier.arrive.expect_tx
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:         nvvm.barrier0
// CHECK:         llvm.return

// With the spin limit, the producer's wait on the empty barrier is bounded
// too.
// SPIN-LABEL: llvm.func @ws(
// SPIN:         scf.if
// SPIN:           setp.lt.u32 more, polls, 1000;
// SPIN:         } else {
// SPIN:           setp.lt.u32 more, polls, 1000;
// SPIN:           llvm.intr.trap

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#recipeA = #tilegpu.tma_recipe<base = 0, element = f16, sizes = [<1, args = [0]>, <1, args = [0]>], strides = [<1>, <64>], box = [64, 128], swizzle = 128, nanFill = false>

module {
  func.func @ws(%steps: i32,
                %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2> {tilegpu.tma_recipe = #recipeA})
      attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 32800 : i64} {
    %a = tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x64xf16>>
    %full = tilegpu.mbarrier_alloc {offset = 32768 : i64} : <2>
    %empty = tilegpu.mbarrier_alloc {offset = 32784 : i64} : <2>
    tilegpu.mbarrier_init %full : <2>
    tilegpu.mbarrier_init %empty {count = 4 : i32} : <2>
    tilegpu.warp_specialize consumer {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %acc0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #wgmma>
      %r = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %acc0) -> (tensor<128x64xf32, #wgmma>) : i32 {
        %slot = arith.remui %i, %c2 : i32
        %round = arith.divui %i, %c2 : i32
        %phase = arith.andi %round, %c1 : i32
        tilegpu.mbarrier_wait %full[%slot], %phase : <2>
        tilegpu.barrier
        %has = arith.cmpi sge, %i, %c1 : i32
        tilegpu.mbarrier_arrive %empty[%slot] if %has : <2>
        scf.yield %acc : tensor<128x64xf32, #wgmma>
      }
      tilegpu.mbarrier_inval %full : <2>
      tilegpu.mbarrier_inval %empty : <2>
    } producer {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c64 = arith.constant 64 : i32
      scf.for %i = %c0 to %steps step %c1 : i32 {
        %slot = arith.remui %i, %c2 : i32
        %round = arith.divui %i, %c2 : i32
        %bit = arith.andi %round, %c1 : i32
        %parity = arith.xori %bit, %c1 : i32
        %k = arith.muli %i, %c64 : i32
        tilegpu.mbarrier_wait %empty[%slot], %parity leader : <2>
        tilegpu.mbarrier_expect %full[%slot], 16384 : <2>
        tilegpu.tma_load %da[%c0, %k], %a[%slot], %full[%slot] : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<2 x tensor<128x64xf16>>, !tilegpu.mbarriers<2>
      }
    } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
    return
  }
}
