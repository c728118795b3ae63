// RUN: tilec-opt %s -split-input-file -convert-tilegpu-to-llvm | FileCheck %s
// RUN: tilec-opt %s -split-input-file -convert-tilegpu-to-llvm=mbarrier-spin-limit=1000 | FileCheck %s --check-prefix=SPIN

// The pipelined matmul loop (tilegpu-pipeline, 2 stages; offsets from
// tilegpu-allocate-shared) lowered to upstream NVVM ops: the rings and
// mbarriers at their offsets of the dynamic shared memory; thread 0
// initializes the barriers, arms them with the bytes and issues the copies,
// one per 128-byte-wide box; every thread waits on the phase; the wgmma
// reads the buffers through matrix descriptors. The descriptors stay
// by-value 64-byte-aligned parameters carrying their recipes.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#recipeA = #tilegpu.tma_recipe<base = 0, element = f16, sizes = [<1, args = [0]>, <1, args = [0]>], strides = [<1>, <64>], box = [64, 128], swizzle = 128, nanFill = false>
#recipeB = #tilegpu.tma_recipe<base = 0, element = f16, sizes = [<1, args = [0]>, <1, args = [0]>], strides = [<1>, <128>], box = [64, 64], swizzle = 128, nanFill = false>

// CHECK: llvm.mlir.global external @tilec_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @matmul(
// CHECK-SAME:    %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant, tilegpu.tma_recipe = #tilegpu.tma_recipe<base = 0, element = f16,
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tilegpu.shared_memory = 65552 : i64}
// Rings and barriers at their offsets.
// CHECK:         %[[C32K:.*]] = arith.constant 32768 : i32
// CHECK:         llvm.getelementptr %{{.*}}[%[[C32K]]]
// CHECK:         %[[C64K:.*]] = arith.constant 65536 : i32
// CHECK:         %[[BARS:.*]] = llvm.getelementptr %{{.*}}[%[[C64K]]]
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %{{.*}} : !llvm.ptr<3>, i32, i1
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.barrier0
// Prologue copy of iteration 0: one expect, 2 + 2 boxes.
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}}, predicate = %{{.*}} : !llvm.ptr<3>, i32, i1
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] predicate = %{{.*}}
// Steady state.
// CHECK:         nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK:         nvvm.wgmma.fence.aligned
// Each K-step's descriptors are made next to its wgmma, by a side-effecting
// asm that LLVM does not hoist: the address field plus the step (B, 16
// rows: 128; A, 16 columns: 2), widened, or-ed with the other bits (B,
// N-major: 128-byte swizzle, leading offset 0, stride 64; A, K-major:
// leading offset 1024).
// CHECK:         "cvt.u64.u32 $0, $1;\0A\09or.b64 $0, $0, 4611686293338849280;", "=l,r"
// CHECK-NEXT:    "cvt.u64.u32 $0, $1;\0A\09or.b64 $0, $0, 4611686293372403712;", "=l,r"
// CHECK-NEXT:    nvvm.wgmma.mma_async
// CHECK-NEXT:    "{\0A\09.reg .b32 field;\0A\09add.s32 field, $1, 128;\0A\09cvt.u64.u32 $0, field;\0A\09}\0A\09or.b64 $0, $0, 4611686293338849280;", "=l,r"
// CHECK-NEXT:    "{\0A\09.reg .b32 field;\0A\09add.s32 field, $1, 2;\0A\09cvt.u64.u32 $0, field;\0A\09}\0A\09or.b64 $0, $0, 4611686293372403712;", "=l,r"
// CHECK-NEXT:    nvvm.wgmma.mma_async
// CHECK-COUNT-2: nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         "wgmma.wait_group.sync.aligned 1;"
// CHECK:         nvvm.barrier0
// CHECK:         "wgmma.wait_group.sync.aligned 0;"
// The barriers are invalidated after the loop by thread 0.
// CHECK:         nvvm.barrier0
// CHECK:         nvvm.mbarrier.inval

// SPIN-LABEL: llvm.func @matmul(
// SPIN:         setp.lt.u32 more, polls, 1000;
// SPIN:         llvm.call @vprintf
// SPIN:         llvm.intr.trap

module {
  func.func @matmul(%steps: i32,
                    %da: !tilegpu.tma_desc<tensor<128x64xf16>, 2> {tilegpu.tma_recipe = #recipeA},
                    %db: !tilegpu.tma_desc<tensor<64x128xf16>, 2> {tilegpu.tma_recipe = #recipeB})
      -> tensor<128x128xf32, #wgmma> attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 65552 : i64} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c64_i32 = arith.constant 64 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %a = tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x64xf16>>
    %b = tilegpu.local_alloc {offset = 32768 : i64} : <2 x tensor<64x128xf16>>
    %bar = tilegpu.mbarrier_alloc {offset = 65536 : i64} : <2>
    tilegpu.mbarrier_init %bar : <2>
    %p0 = arith.cmpi sgt, %steps, %c0_i32 : i32
    tilegpu.mbarrier_expect %bar[%c0_i32], 32768 if %p0 : <2>
    tilegpu.tma_load %da[%c0_i32, %c0_i32], %a[%c0_i32], %bar[%c0_i32] if %p0 : <tensor<128x64xf16>, 2>, <2 x tensor<128x64xf16>>, <2>
    tilegpu.tma_load %db[%c0_i32, %c0_i32], %b[%c0_i32], %bar[%c0_i32] if %p0 : <tensor<64x128xf16>, 2>, <2 x tensor<64x128xf16>>, <2>
    %r = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #wgmma>) : i32 {
      %slot = arith.remui %i, %c2_i32 : i32
      %round = arith.divui %i, %c2_i32 : i32
      %phase = arith.andi %round, %c1_i32 : i32
      %j = arith.addi %i, %c1_i32 : i32
      %jslot = arith.remui %j, %c2_i32 : i32
      %jp = arith.cmpi slt, %j, %steps : i32
      tilegpu.mbarrier_wait %bar[%slot], %phase : <2>
      %d = tilegpu.warpgroup_dot %a[%slot], %b[%slot], %acc {isAsync} : !tilegpu.smem<2 x tensor<128x64xf16>>, <2 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma>
      tilegpu.warpgroup_wait {pendings = 1 : i32}
      tilegpu.barrier
      %k = arith.muli %j, %c64_i32 : i32
      tilegpu.mbarrier_expect %bar[%jslot], 32768 if %jp : <2>
      tilegpu.tma_load %da[%c0_i32, %k], %a[%jslot], %bar[%jslot] if %jp : <tensor<128x64xf16>, 2>, <2 x tensor<128x64xf16>>, <2>
      tilegpu.tma_load %db[%k, %c0_i32], %b[%jslot], %bar[%jslot] if %jp : <tensor<64x128xf16>, 2>, <2 x tensor<64x128xf16>>, <2>
      scf.yield %d : tensor<128x128xf32, #wgmma>
    }
    %done = tilegpu.warpgroup_wait %r {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    tilegpu.mbarrier_inval %bar : <2>
    return %done : tensor<128x128xf32, #wgmma>
  }
}

// -----

// cp.async of a masked tile of pointers (8 halves = 16 bytes per copy, 4
// per thread, the mask picking src-size 16 or 0: zero-fill), its group commit and wait, the
// fence to the async proxy; a register tile stored swizzled; wgmma with A
// in registers (inline PTX: no NVVM op takes a register A), four 32-bit A
// registers per k16 step. The wait passes only the accumulator: the
// register A it keeps alive in the IR is not read into the asm (a read of
// an in-flight wgmma's operands before the wait, which ptxas answers with
// a wait of its own).

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// CHECK-LABEL: llvm.func @register_a(
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// A in registers: its 16 packed registers pass through the fence, so they
// are written before it (no warpgroup.arrive injected by ptxas).
// CHECK:         "wgmma.fence.sync.aligned;", "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
// CHECK-NOT:     nvvm.wgmma.fence.aligned
// The accumulator is zero: the first k16 step overwrites it (scale-d 0).
// CHECK:         wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, {$32, $33, $34, $35}, $36, 0, 1, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, {$32, $33, $34, $35}, $36, 1, 1, 1, 1;
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         "wgmma.wait_group.sync.aligned 0;", "{{(=f,)+}}{{([0-9]+,)*[0-9]+}}"
module {
  func.func @register_a(%ptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %mask: tensor<64x64xi1, #blocked>,
                        %v: tensor<64x64xf16, #blocked>, %p: tensor<64x64xf16, #wgmma>)
      -> tensor<64x64xf32, #wgmma> attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 16384 : i64} {
    %c0 = arith.constant 0 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %ring = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x64xf16>>
    %other = tilegpu.local_alloc {offset = 8192 : i64} : <1 x tensor<64x64xf16>>
    tilegpu.async_copy %ptrs, %ring[%c0] mask %mask {vec = 8 : i32} : tensor<64x64x!tile.ptr<f16>, #blocked>, <1 x tensor<64x64xf16>>, tensor<64x64xi1, #blocked>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    tilegpu.local_store %v, %other[%c0] : tensor<64x64xf16, #blocked>, <1 x tensor<64x64xf16>>
    %d = tilegpu.warpgroup_dot %p, %ring[%c0], %acc0 {isAsync} : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    %w:2 = tilegpu.warpgroup_wait %d, %p {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>, tensor<64x64xf16, #wgmma>
    return %w#0 : tensor<64x64xf32, #wgmma>
  }
}

// -----

// wgmma with an 8-bit A in registers (attention's fp8 P * V, B K-major):
// the f32 tile becomes e5m2 two slots at a time (cvt.rn.satfinite
// .e5m2x2.f32), and each k32 step's four A registers are regrouped from
// the accumulator-like layout by two quad shuffles (lanes 2(t mod 2) and
// 2(t mod 2) + 1) and a select of low or high halves: 16 shuffles for a
// 64 x 64 A on 4 warps, no shared memory. The 8-bit instruction has no
// trans-b operand.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// CHECK-LABEL: llvm.func @register_a_fp8(
// CHECK-COUNT-16: nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E5M2)
// CHECK-NOT:     llvm.store
// CHECK-COUNT-16: nvvm.shfl.sync  idx
// CHECK-NOT:     llvm.store
// CHECK:         "wgmma.fence.sync.aligned;", "=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7"
// CHECK:         wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, {$32, $33, $34, $35}, $36, 0, 1, 1;
// CHECK:         wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, {$32, $33, $34, $35}, $36, 1, 1, 1;
// CHECK:         "wgmma.wait_group.sync.aligned 0;", "{{(=f,)+}}{{([0-9]+,)*[0-9]+}}"
module {
  func.func @register_a_fp8(%s: tensor<64x64xf32, #wgmma>) -> tensor<64x64xf32, #wgmma>
      attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 4096 : i64} {
    %c0 = arith.constant 0 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %ring = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x64xf8E5M2>>
    %p = arith.truncf %s : tensor<64x64xf32, #wgmma> to tensor<64x64xf8E5M2, #wgmma>
    %d = tilegpu.warpgroup_dot %p, %ring[%c0], %acc0 {isAsync, bTransposed} : tensor<64x64xf8E5M2, #wgmma>, <1 x tensor<64x64xf8E5M2>>, tensor<64x64xf32, #wgmma>
    %w:2 = tilegpu.warpgroup_wait %d, %p {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>, tensor<64x64xf8E5M2, #wgmma>
    return %w#0 : tensor<64x64xf32, #wgmma>
  }
}

// -----

// A dot from a zero C (attention's QK^T): the zeros are not materialized,
// the first k16 step of the block runs with scale-d 0 (D = A * B).

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// CHECK-LABEL: llvm.func @zero_accumulator(
// CHECK-NOT:     llvm.insertvalue
// CHECK:         nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
module {
  func.func @zero_accumulator() -> tensor<64x64xf32, #wgmma>
      attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 16384 : i64} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %a = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x64xf16>>
    %b = tilegpu.local_alloc {offset = 8192 : i64} : <1 x tensor<64x64xf16>>
    %d = tilegpu.warpgroup_dot %a[%c0], %b[%c0], %zero : !tilegpu.smem<1 x tensor<64x64xf16>>, !tilegpu.smem<1 x tensor<64x64xf16>>, tensor<64x64xf32, #wgmma>
    return %d : tensor<64x64xf32, #wgmma>
  }
}

// -----

// A TMA store of a shared tile (4-d descriptor: a block of a batch of
// matrices), committed as a bulk group by thread 0; the wait for its reads.

// CHECK-LABEL: llvm.func @store(
// CHECK:         scf.if
// CHECK-COUNT-2:   nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK:           nvvm.cp.async.bulk.commit.group
// CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:         nvvm.barrier0
#recipe = #tilegpu.tma_recipe<base = 0, element = f16, sizes = [<1, args = [1]>, <1, args = [1]>, <2147483647>, <2147483647>], strides = [<1>, <128>, <1, args = [1]>, <1, args = [1]>], box = [64, 64, 1, 1], swizzle = 128, nanFill = false>
module {
  func.func @store(%base: !tile.ptr<f16>, %n: i32, %z: i32, %h: i32, %row: i32,
                   %desc: !tilegpu.tma_desc<tensor<64x128xf16>, 4> {tilegpu.tma_recipe = #recipe})
      attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 16384 : i64} {
    %c0 = arith.constant 0 : i32
    %ring = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x128xf16>>
    tilegpu.tma_store %ring[%c0], %desc[%z, %h, %row, %c0] : <1 x tensor<64x128xf16>>, <tensor<64x128xf16>, 4>
    tilegpu.tma_store_wait
    return
  }
}

// -----

// A TMA reduction (`add`): the same boxes, each a cp.reduce ... .add.

// CHECK-LABEL: llvm.func @reduce_add(
// CHECK:         scf.if
// CHECK-COUNT-4:   nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK:           nvvm.cp.async.bulk.commit.group
// CHECK-NOT:     nvvm.cp.async.bulk.tensor.global.shared.cta
#recipe = #tilegpu.tma_recipe<base = 0, element = f32, sizes = [<2147483647>, <2147483647>], strides = [<1>, <1, args = [1]>], box = [32, 64], swizzle = 128, nanFill = false>
module {
  func.func @reduce_add(%base: !tile.ptr<f32>, %n: i32, %row: i32,
                        %desc: !tilegpu.tma_desc<tensor<64x128xf32>, 2> {tilegpu.tma_recipe = #recipe})
      attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 32768 : i64} {
    %c0 = arith.constant 0 : i32
    %ring = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x128xf32>>
    tilegpu.tma_store add %ring[%c0], %desc[%row, %c0] : <1 x tensor<64x128xf32>>, <tensor<64x128xf32>, 2>
    tilegpu.tma_store_wait
    return
  }
}

// -----

// The consumer release of the pipeline: "empty" mbarriers initialized with
// the warp count, lane 0 of every warp arriving (when the predicate holds),
// and only thread 0 waiting, under its predicate: both without a branch (a
// predicated arrive; a wait loop every thread runs, thread 0 polling, the
// warp's vote.all deciding), as the wgmma they may overlap needs.

// CHECK-LABEL: llvm.func @release(
// CHECK:         %[[C4:.*]] = arith.constant 4 : i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %[[C4]], predicate = %{{.*}}
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[LANE:.*]] = arith.andi %[[TID]], %{{.*}} : i32
// CHECK:         %[[L0:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}} : i32
// CHECK:         %[[ARRIVE:.*]] = arith.andi %[[L0]], %arg1 : i1
// CHECK-NOT:     scf.if
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];", "b,r" %[[ARRIVE]], %{{.*}} : (i1, i32) -> ()
// CHECK:         %[[TID0:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[T0:.*]] = arith.cmpi eq, %[[TID0]], %{{.*}} : i32
// CHECK:         %[[WAIT:.*]] = arith.andi %[[T0]], %arg2 : i1
// CHECK-NOT:     scf.if
// CHECK:         llvm.inline_asm has_side_effects {{.*}}@$3 mbarrier.try_wait.parity.shared::cta.b64 complete, [$1], $2;\0Avote.sync.all.pred all, complete, 0xffffffff;\0A@all bra.uni wait_done;{{.*}}"=r,r,r,b" %{{.*}}, %arg3, %[[WAIT]]
func.func @release(%i: i32, %p: i1, %q: i1, %parity: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 16 : i64} {
  %empty = tilegpu.mbarrier_alloc {offset = 0 : i64} : <2>
  tilegpu.mbarrier_init %empty {count = 4 : i32} : <2>
  tilegpu.mbarrier_arrive %empty[%i] if %p : <2>
  tilegpu.mbarrier_wait %empty[%i], %parity leader if %q : <2>
  tilegpu.mbarrier_inval %empty : <2>
  return
}

// -----

// An accumulator-layout f16 tile stored to shared memory by stmatrix
// (MatrixStore.h): the 32 slots a thread of a 64 x 64 tile on one
// warpgroup are four stmatrix.x4, each with one address a thread (the row
// its lane names); a 64 x 128 bf16 tile stored transposed (dS^T as dQ's A
// operand in the one-sweep backward) is eight `.trans` ones
// (#nvvm.mma_layout<col>); no element-wise store.

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

// CHECK-LABEL: llvm.func @store_by_matrices(
// CHECK-NOT:     llvm.store
// CHECK-COUNT-4: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT:     llvm.store
// CHECK-COUNT-8: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT:     llvm.store
// CHECK-NOT:     nvvm.stmatrix
// CHECK:         llvm.return
module {
  func.func @store_by_matrices(%p: tensor<64x64xf16, #wgmma>, %q: tensor<64x128xbf16, #wgmma>)
      attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 24576 : i64} {
    %c0 = arith.constant 0 : i32
    %rows = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x64xf16>>
    %cols = tilegpu.local_alloc {offset = 8192 : i64} : <1 x tensor<128x64xbf16>>
    tilegpu.local_store %p, %rows[%c0] : tensor<64x64xf16, #wgmma>, <1 x tensor<64x64xf16>>
    tilegpu.local_store %q, %cols[%c0] {transposed} : tensor<64x128xbf16, #wgmma>, <1 x tensor<128x64xbf16>>
    return
  }
}
