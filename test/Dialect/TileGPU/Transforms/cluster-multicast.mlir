// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-cluster-multicast=num-ctas=2 | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-cluster-multicast=num-ctas=1 | FileCheck %s --check-prefix=ONE

// Matmul loops as tilegpu-pipeline leaves them (3 stages: the prologue's
// copies of iterations 0 and 1, then per iteration the consumers' waits,
// the wgmma, the release of slot (t + 2) % 3 and thread 0's wait for it
// before the copies of iteration t + 2), on a 2-d grid: A's rows from one
// program id, B's columns from another.

// B's column comes from program_id(1): B is the same block in the CTAs of
// a cluster along axis 0, and its three copies are multicast; A's rows
// come from program_id(0) and stay each CTA's own. The empty barrier
// counts the warps of both CTAs and every release arrives in both; the
// last init ends, and the empty barrier's inval starts, with a cluster
// barrier; the kernel is a cluster of 2 x 1 x 1.

// CHECK-LABEL: func.func @shared_b
// CHECK-SAME:    tilegpu.cluster_dims = array<i32: 2, 1, 1>
// CHECK:         tilegpu.mbarrier_init %[[BA:.*]] : <3>
// CHECK-NEXT:    tilegpu.mbarrier_init %[[BB:.*]] : <3>
// CHECK-NEXT:    tilegpu.mbarrier_init %[[E:.*]] {clusterSync, count = 8 : i32} : <3>
// CHECK:         tilegpu.tma_load %arg1[{{.*}}], %{{.*}}[%c0_i32], %[[BA]][%c0_i32] if %{{.*}} : <tensor<128x64xf16>, 2>
// CHECK:         tilegpu.tma_load %arg2[{{.*}}], %{{.*}}[%c0_i32], %[[BB]][%c0_i32] if %{{.*}} {multicast = 2 : i32}
// CHECK:         tilegpu.tma_load %arg1[{{.*}}], %{{.*}}[%c1_i32], %[[BA]][%c1_i32] if %{{.*}} : <tensor<128x64xf16>, 2>
// CHECK:         tilegpu.tma_load %arg2[{{.*}}], %{{.*}}[%c1_i32], %[[BB]][%c1_i32] if %{{.*}} {multicast = 2 : i32}
// CHECK:         scf.for
// CHECK:           tilegpu.mbarrier_arrive %[[E]][%{{.*}}] if %{{.*}} {clusterCTAs = 2 : i32} : <3>
// CHECK:           tilegpu.mbarrier_wait %[[E]][%{{.*}}], %{{.*}} leader if
// CHECK:           tilegpu.tma_load %arg1[{{.*}}] if %{{.*}} : <tensor<128x64xf16>, 2>
// CHECK:           tilegpu.tma_load %arg2[{{.*}}] if %{{.*}} {multicast = 2 : i32}
// CHECK:         tilegpu.mbarrier_inval %[[E]] {clusterSync} : <3>
// CHECK-NEXT:    tilegpu.mbarrier_inval %[[BA]] : <3>
// CHECK-NEXT:    tilegpu.mbarrier_inval %[[BB]] : <3>

// With num-ctas=1 nothing changes.
// ONE-NOT: multicast
// ONE-NOT: cluster

// The other loops are left alone, with a remark: every copy's
// coordinates from program_id(0); the loop's bounds from program_id(0)
// (the CTAs would run different iterations, each waiting for the others'
// releases), or from a volatile load (another CTA may change the memory
// between the two reads); B one swizzle row (64 f16) wide, a single box.
// CHECK-LABEL: func.func @variant_coords
// CHECK-NOT:     cluster
// CHECK-NOT:     multicast
// CHECK-LABEL: func.func @variant_bounds
// CHECK-NOT:     cluster
// CHECK-NOT:     multicast
// CHECK-LABEL: func.func @one_box
// CHECK-NOT:     cluster
// CHECK-NOT:     multicast

// B's column from program_id(0) / 2: the same for programs 2k and 2k + 1
// here, but in general (a GEMM's grouped order) only for some launches.
// Before the prologue's copies each CTA computes it for both programs of
// its cluster, (pid & -2) and (pid & -2) + 1, and B's copies are
// multicast when the two agree (`multicast_if`), each CTA's own otherwise.
// CHECK-LABEL: func.func @runtime_b
// CHECK-SAME:    tilegpu.cluster_dims = array<i32: 2, 1, 1>
// CHECK:         tilegpu.mbarrier_init %{{.*}} {clusterSync, count = 8 : i32} : <3>
// CHECK:         %[[PID:.*]] = tile.program_id 0
// CHECK-NEXT:    %[[C:.*]] = arith.constant -2 : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.andi %[[PID]], %[[C]] : i32
// CHECK-NEXT:    %[[H0:.*]] = arith.divsi %[[FIRST]], %c2_i32 : i32
// CHECK-NEXT:    %[[X0:.*]] = arith.muli %[[H0]], %c128_i32 : i32
// CHECK:         %[[SECOND:.*]] = arith.addi %[[FIRST]], %{{.*}} : i32
// CHECK-NEXT:    %[[H1:.*]] = arith.divsi %[[SECOND]], %c2_i32 : i32
// CHECK-NEXT:    %[[X1:.*]] = arith.muli %[[H1]], %c128_i32 : i32
// CHECK-NEXT:    %[[SAME:.*]] = arith.cmpi eq, %[[X0]], %[[X1]] : i32
// CHECK-NEXT:    tilegpu.mbarrier_wait {{.*}} leader
// CHECK:         tilegpu.tma_load %arg1{{.*}} : <tensor<128x64xf16>, 2>
// CHECK:         tilegpu.tma_load %arg2{{.*}} multicast_if %[[SAME]] {multicast = 2 : i32}
// CHECK:         scf.for
// CHECK:           tilegpu.tma_load %arg2{{.*}} multicast_if %[[SAME]] {multicast = 2 : i32}

// The volatile load's case, after runtime_b in the file; then B's column
// from inline assembly (it reads %ctaid.x, whatever its operand): not
// compared at run time, not shared.
// CHECK-LABEL: func.func @volatile_bound
// CHECK-NOT:     cluster
// CHECK-NOT:     multicast
// CHECK-LABEL: func.func @asm_column
// CHECK-NOT:     cluster
// CHECK-NOT:     multicast

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @shared_b(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma128>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid0, %c128_i32 : i32
  %col = arith.muli %pid1, %c128_i32 : i32
  %ub = arith.addi %arg0, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop's copies multicast in clusters of 2 CTAs along grid axis 0: 3 of 6 TMA copies into its rings (the prologue's included) are issued once per cluster, each CTA issuing 1/2 of their boxes}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma128>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma128>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma128>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}


// -----

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @variant_coords(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma128>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid0, %c128_i32 : i32
  %col = arith.muli %pid0, %c128_i32 : i32
  %ub = arith.addi %arg0, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop's copies not multicast in clusters of 2 CTAs: copies' coordinates depend on program_id(0), so the CTAs of a cluster load different blocks}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma128>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma128>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma128>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}


// -----

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @variant_bounds(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma128>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid1, %c128_i32 : i32
  %col = arith.muli %pid1, %c128_i32 : i32
  %ub = arith.addi %arg0, %pid0 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop's copies not multicast in clusters of 2 CTAs: its bounds may differ between the CTAs of a cluster}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma128>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma128>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma128>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}


// -----

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @one_box(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x64xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #wgmma64>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x64xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid0, %c128_i32 : i32
  %col = arith.muli %pid1, %c128_i32 : i32
  %ub = arith.addi %arg0, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 8192 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x64xf16>, 2>, <3 x tensor<64x64xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 8192 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x64xf16>, 2>, <3 x tensor<64x64xf16>>, <3>
  // expected-remark @below {{loop's copies not multicast in clusters of 2 CTAs: copies' coordinates depend on program_id(0), so the CTAs of a cluster load different blocks; a block of 1 swizzle-wide box(es) cannot be shared out among 2 CTAs}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x64xf32, #wgmma64>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x64xf16>>, tensor<128x64xf32, #wgmma64>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 8192 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x64xf16>, 2>, <3 x tensor<64x64xf16>>, <3>
    scf.yield %15 : tensor<128x64xf32, #wgmma64>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}


// -----

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @runtime_b(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma128>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid0, %c128_i32 : i32
  %col = arith.muli %half, %c128_i32 : i32
  %ub = arith.addi %arg0, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop's copies multicast in clusters of 2 CTAs along grid axis 0: 3 of 6 TMA copies into its rings (the prologue's included) are issued once per cluster, each CTA issuing 1/2 of their boxes (those whose coordinates depend on program_id(0) when the CTAs find them equal at run time)}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma128>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma128>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma128>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}


// -----

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @volatile_bound(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma128>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid1, %c128_i32 : i32
  %col = arith.muli %pid1, %c128_i32 : i32
  %ub = tile.load %cnt {isVolatile} : !tile.ptr<i32>
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop's copies not multicast in clusters of 2 CTAs: its bounds may differ between the CTAs of a cluster}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma128>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma128>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma128>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}


// -----

#wgmma128 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>
#wgmma64 = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>

func.func @asm_column(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %cnt: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c3_i32 = arith.constant 3 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma128>
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %0 = tilegpu.mbarrier_alloc : <3>
  %1 = tilegpu.mbarrier_alloc : <3>
  %2 = tilegpu.mbarrier_alloc : <3>
  %3 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %4 = tilegpu.local_alloc : <3 x tensor<64x128xf16>>
  %pid0 = tile.program_id 0
  %pid1 = tile.program_id 1
  %half = arith.divsi %pid0, %c2_i32 : i32
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %half : i32 -> i32
  %6 = arith.muli %pid0, %c128_i32 : i32
  %col = arith.muli %asm, %c128_i32 : i32
  %ub = arith.addi %arg0, %c0_i32 : i32
  tilegpu.mbarrier_init %1 : <3>
  tilegpu.mbarrier_init %2 : <3>
  tilegpu.mbarrier_init %0 {count = 4 : i32} : <3>
  %7 = arith.cmpi sgt, %ub, %c0_i32 : i32
  tilegpu.mbarrier_wait %0[%c0_i32], %c1_i32 leader if %7 : <3>
  tilegpu.mbarrier_expect %1[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg1[%6, %c0_i32], %3[%c0_i32], %1[%c0_i32] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c0_i32], 16384 if %7 : <3>
  tilegpu.tma_load %arg2[%c0_i32, %col], %4[%c0_i32], %2[%c0_i32] if %7 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  %8 = arith.cmpi sgt, %ub, %c1_i32 : i32
  tilegpu.mbarrier_wait %0[%c1_i32], %c1_i32 leader if %8 : <3>
  tilegpu.mbarrier_expect %1[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg1[%6, %c64_i32], %3[%c1_i32], %1[%c1_i32] if %8 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
  tilegpu.mbarrier_expect %2[%c1_i32], 16384 if %8 : <3>
  tilegpu.tma_load %arg2[%c64_i32, %col], %4[%c1_i32], %2[%c1_i32] if %8 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
  // expected-remark @below {{loop's copies not multicast in clusters of 2 CTAs: copies' coordinates depend on program_id(0), so the CTAs of a cluster load different blocks}}
  %9 = scf.for %arg3 = %c0_i32 to %ub step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<128x128xf32, #wgmma128>)  : i32 {
    %10 = arith.subi %ub, %c2_i32 : i32
    %11 = arith.cmpi slt, %arg3, %10 : i32
    %12 = arith.remui %arg3, %c3_i32 : i32
    %13 = arith.divui %arg3, %c3_i32 : i32
    %14 = arith.andi %13, %c1_i32 : i32
    tilegpu.mbarrier_wait %1[%12], %14 : <3>
    tilegpu.mbarrier_wait %2[%12], %14 : <3>
    %15 = tilegpu.warpgroup_dot %3[%12], %4[%12], %arg4 {isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<64x128xf16>>, tensor<128x128xf32, #wgmma128>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %16 = arith.addi %arg3, %c2_i32 : i32
    %17 = arith.remui %16, %c3_i32 : i32
    %18 = arith.cmpi sge, %arg3, %c1_i32 : i32
    tilegpu.mbarrier_arrive %0[%17] if %18 : <3>
    %19 = arith.muli %16, %c64_i32 : i32
    %20 = arith.divui %16, %c3_i32 : i32
    %21 = arith.andi %20, %c1_i32 : i32
    %22 = arith.xori %21, %c1_i32 : i32
    tilegpu.mbarrier_wait %0[%17], %22 leader if %11 : <3>
    tilegpu.mbarrier_expect %1[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg1[%6, %19], %3[%17], %1[%17] if %11 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <3>
    tilegpu.mbarrier_expect %2[%17], 16384 if %11 : <3>
    tilegpu.tma_load %arg2[%19, %col], %4[%17], %2[%17] if %11 : <tensor<64x128xf16>, 2>, <3 x tensor<64x128xf16>>, <3>
    scf.yield %15 : tensor<128x128xf32, #wgmma128>
  }
  tilegpu.mbarrier_inval %0 : <3>
  tilegpu.mbarrier_inval %1 : <3>
  tilegpu.mbarrier_inval %2 : <3>
  return
}

