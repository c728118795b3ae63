// RUN: tilec-opt %s -convert-tilegpu-to-llvm | FileCheck %s
// RUN: tilec-opt %s -convert-tilegpu-to-llvm=mbarrier-spin-limit=1000 | FileCheck %s --check-prefix=SPIN

// The pipelined matmul loop (tilegpu-pipeline, 2 stages) lowered to PTX:
// rings at 1024-byte aligned offsets of the dynamic shared memory (A: 2 x
// 16 KiB at 0, B: 2 x 16 KiB at 32768), then the mbarriers (65536); thread
// 0 initializes them, arms them with the bytes and issues the copies, one
// per 128-byte-wide box; every thread waits on the phase; the wgmma reads
// the buffers through matrix descriptors.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

// The whole kernel-lifetime area: 65536 + 2 x 8 bytes, rounded to 1024;
// the descriptor parameters and their recipes for the metadata.
// CHECK: module attributes {tilegpu.shared_memory = 66560 : i32, tilegpu.tma_descriptors = [{arg = 1 : i32, recipe = {base = 0 : i32, box = array<i64: 64, 128>
// CHECK-SAME: {arg = 2 : i32, recipe = {base = 0 : i32, box = array<i64: 64, 64>
// CHECK: llvm.mlir.global external @tilec_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @matmul(
// CHECK-SAME:    %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME:    %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// Rings and barriers.
// CHECK:         %[[C32K:.*]] = arith.constant 32768 : i32
// CHECK:         llvm.getelementptr %{{.*}}[%[[C32K]]]
// CHECK:         %[[C64K:.*]] = arith.constant 65536 : i32
// CHECK:         %[[BARS:.*]] = llvm.getelementptr %{{.*}}[%[[C64K]]]
// CHECK-COUNT-2: "@$0 mbarrier.init.shared::cta.b64 [$1], 1;", "b,r"
// CHECK:         "fence.mbarrier_init.release.cluster;"
// CHECK:         nvvm.barrier0
// Prologue copy of iteration 0.
// CHECK:         "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], $2;", "b,r,r"
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r"
// Steady state.
// CHECK:         mbarrier.try_wait.parity.shared::cta.b64 complete, [$0], $1;
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         "wgmma.wait_group.sync.aligned 1;"
// CHECK:         nvvm.barrier0
// CHECK:         "wgmma.wait_group.sync.aligned 0;"

// SPIN-LABEL: llvm.func @matmul(
// SPIN:         setp.lt.u32 more, polls, 1000;
// SPIN:         llvm.call @vprintf
// SPIN:         llvm.intr.trap

module {
  func.func @matmul(%steps: i32,
                    %da: !tilegpu.tma_desc<tensor<128x64xf16>> {tilegpu.tma = {base = 0 : i32, box = array<i64: 64, 128>, element = f16, oob_fill = "zero", sizes = ["arg0", "arg0"], strides = [1, 64], swizzle = 128 : i64}},
                    %db: !tilegpu.tma_desc<tensor<64x128xf16>> {tilegpu.tma = {base = 0 : i32, box = array<i64: 64, 64>, element = f16, oob_fill = "zero", sizes = ["arg0", "arg0"], strides = [1, 128], swizzle = 128 : i64}})
      -> tensor<128x128xf32, #wgmma> attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c64_i32 = arith.constant 64 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %a = tilegpu.local_alloc : <2 x tensor<128x64xf16>>
    %b = tilegpu.local_alloc : <2 x tensor<64x128xf16>>
    %bar = tilegpu.mbarrier_alloc : <2>
    %p0 = arith.cmpi sgt, %steps, %c0_i32 : i32
    tilegpu.mbarrier_expect %bar[%c0_i32], 32768 if %p0 : <2>
    tilegpu.tma_load %da[%c0_i32, %c0_i32], %a[%c0_i32], %bar[%c0_i32] if %p0 : <tensor<128x64xf16>>, <2 x tensor<128x64xf16>>, <2>
    tilegpu.tma_load %db[%c0_i32, %c0_i32], %b[%c0_i32], %bar[%c0_i32] if %p0 : <tensor<64x128xf16>>, <2 x tensor<64x128xf16>>, <2>
    %r = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
      %slot = arith.remui %i, %c2_i32 : i32
      %round = arith.divui %i, %c2_i32 : i32
      %phase = arith.andi %round, %c1_i32 : i32
      %j = arith.addi %i, %c1_i32 : i32
      %jslot = arith.remui %j, %c2_i32 : i32
      %jp = arith.cmpi slt, %j, %steps : i32
      tilegpu.mbarrier_wait %bar[%slot], %phase : <2>
      %d = tilegpu.warpgroup_dot %a[%slot], %b[%slot], %acc {isAsync} : <2 x tensor<128x64xf16>>, <2 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
      %w = tilegpu.warpgroup_wait %d {pendings = 1 : i32} : tensor<128x128xf32, #wgmma>
      tilegpu.barrier
      %k = arith.muli %j, %c64_i32 : i32
      tilegpu.mbarrier_expect %bar[%jslot], 32768 if %jp : <2>
      tilegpu.tma_load %da[%c0_i32, %k], %a[%jslot], %bar[%jslot] if %jp : <tensor<128x64xf16>>, <2 x tensor<128x64xf16>>, <2>
      tilegpu.tma_load %db[%k, %c0_i32], %b[%jslot], %bar[%jslot] if %jp : <tensor<64x128xf16>>, <2 x tensor<64x128xf16>>, <2>
      scf.yield %w : tensor<128x128xf32, #wgmma>
    }
    %done = tilegpu.warpgroup_wait %r {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    return %done : tensor<128x128xf32, #wgmma>
  }
}
