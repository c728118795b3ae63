// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-warp-specialize=mode=all | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-warp-specialize=mode=all -tilegpu-allocate-shared 2>/dev/null | FileCheck %s --check-prefix=ALLOC
// RUN: tilec-opt %s -split-input-file -tilegpu-warp-specialize=mode=auto 2>/dev/null | FileCheck %s --check-prefix=AUTO
// RUN: tilec-opt %s -split-input-file -tilegpu-warp-specialize=mode=auto 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO-REMARK

// mode=auto (the compiler's default) hands rings on between two loops
// only (one handoff: causal attention ran faster so before its loops
// continued one set of rings, the backward's three handoffs slower).
// AUTO-LABEL: func.func @two_loops
// AUTO:         tilegpu.ring_handoff 0
// AUTO-LABEL: func.func @no_wait
// AUTO-LABEL: func.func @three_loops
// AUTO-NOT:     tilegpu.warp_specialize
// AUTO-LABEL: func.func @fragmented
// AUTO-REMARK: remark: loop not warp-specialized: the kernel's rings would need {{[0-9]+}} bytes of shared memory side by side, more than 232448 (--warp-specialize=auto hands rings on between two loops only; warp_specialize=True on a loop, or --warp-specialize=all, hands them on from loop to loop)

// Two pipelined loops whose rings (2 x 64 KB each) do not fit side by side
// in a warp-specialized kernel (the producer runs ahead): the consumers
// hand the first loop's ring on after the wait that retires its dots, the
// producer waits for that before the second loop's first copy, and
// tilegpu-allocate-shared then puts both rings at the same offset.

// CHECK-LABEL: func.func @two_loops
// CHECK:         tilegpu.warp_specialize consumer {
// CHECK:           scf.for
// CHECK:           tilegpu.warpgroup_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT:      tilegpu.ring_handoff 0
// CHECK:           scf.for
// CHECK:         } producer {
// CHECK:           tilegpu.tma_load %arg1
// CHECK:           scf.for
// CHECK:             tilegpu.tma_load %arg1
// CHECK:           }
// CHECK:           tilegpu.ring_handoff 0
// CHECK-NEXT:      tilegpu.mbarrier_wait %{{.*}} leader
// CHECK:           tilegpu.tma_load %arg2
// CHECK:           scf.for
// CHECK:             tilegpu.tma_load %arg2

// ALLOC-LABEL: func.func @two_loops
// ALLOC-SAME:    tilegpu.shared_memory = 131136 : i64
// ALLOC:         tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x256xf16>>
// ALLOC:         tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x256xf16>>
// ALLOC-NOT:     tilegpu.barrier
// ALLOC:         tilegpu.ring_handoff 0
// ALLOC-NOT:     tilegpu.barrier
// ALLOC:       } producer {
// ALLOC-NOT:     tilegpu.barrier
// ALLOC:         tilegpu.ring_handoff 0
// ALLOC-NOT:     tilegpu.barrier

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @two_loops(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x256xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<128x256xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c256_i32 = arith.constant 256 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %empty1 = tilegpu.mbarrier_alloc : <2>
  %full1 = tilegpu.mbarrier_alloc : <2>
  %ring1 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  %empty2 = tilegpu.mbarrier_alloc : <2>
  %full2 = tilegpu.mbarrier_alloc : <2>
  %ring2 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  tilegpu.mbarrier_init %full1 : <2>
  tilegpu.mbarrier_init %empty1 {count = 4 : i32} : <2>
  %l1_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty1[%c0_i32], %c1_i32 leader if %l1_4 : <2>
  tilegpu.mbarrier_expect %full1[%c0_i32], 65536 if %l1_4 : <2>
  tilegpu.tma_load %arg1[%c0_i32, %c0_i32], %ring1[%c0_i32], %full1[%c0_i32] if %l1_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads; its rings share shared memory with the kernel's other loops (the producer starts each loop's copies when the consumers have finished the loop before)}}
  %l1_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring1[%8], %ring1[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty1[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty1[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full1[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg1[%c0_i32, %15], %ring1[%13], %full1[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done1 = tilegpu.warpgroup_wait %l1_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty1 : <2>
  tilegpu.mbarrier_inval %full1 : <2>
  tilegpu.mbarrier_init %full2 : <2>
  tilegpu.mbarrier_init %empty2 {count = 4 : i32} : <2>
  %l2_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty2[%c0_i32], %c1_i32 leader if %l2_4 : <2>
  tilegpu.mbarrier_expect %full2[%c0_i32], 65536 if %l2_4 : <2>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %ring2[%c0_i32], %full2[%c0_i32] if %l2_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads; its rings share shared memory with the kernel's other loops (the producer starts each loop's copies when the consumers have finished the loop before)}}
  %l2_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full2[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring2[%8], %ring2[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty2[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty2[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full2[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg2[%c0_i32, %15], %ring2[%13], %full2[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done2 = tilegpu.warpgroup_wait %l2_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty2 : <2>
  tilegpu.mbarrier_inval %full2 : <2>
  return
}

// -----

// Without a wait that retires the first loop's dots before the second
// loop, the rings cannot be handed on: both loops keep their form.

// CHECK-LABEL: func.func @no_wait
// ALLOC-LABEL: func.func @no_wait
// CHECK-NOT:     tilegpu.warp_specialize

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @no_wait(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x256xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<128x256xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c256_i32 = arith.constant 256 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %empty1 = tilegpu.mbarrier_alloc : <2>
  %full1 = tilegpu.mbarrier_alloc : <2>
  %ring1 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  %empty2 = tilegpu.mbarrier_alloc : <2>
  %full2 = tilegpu.mbarrier_alloc : <2>
  %ring2 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  tilegpu.mbarrier_init %full1 : <2>
  tilegpu.mbarrier_init %empty1 {count = 4 : i32} : <2>
  %l1_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty1[%c0_i32], %c1_i32 leader if %l1_4 : <2>
  tilegpu.mbarrier_expect %full1[%c0_i32], 65536 if %l1_4 : <2>
  tilegpu.tma_load %arg1[%c0_i32, %c0_i32], %ring1[%c0_i32], %full1[%c0_i32] if %l1_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop not warp-specialized: the kernel's rings would need 264192 bytes of shared memory side by side, more than 232448, and its loops cannot hand their rings on: no wait retires the dots of one loop before the next loop's copies}}
  %l1_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring1[%8], %ring1[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty1[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty1[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full1[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg1[%c0_i32, %15], %ring1[%13], %full1[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  tilegpu.mbarrier_inval %empty1 : <2>
  tilegpu.mbarrier_inval %full1 : <2>
  tilegpu.mbarrier_init %full2 : <2>
  tilegpu.mbarrier_init %empty2 {count = 4 : i32} : <2>
  %l2_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty2[%c0_i32], %c1_i32 leader if %l2_4 : <2>
  tilegpu.mbarrier_expect %full2[%c0_i32], 65536 if %l2_4 : <2>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %ring2[%c0_i32], %full2[%c0_i32] if %l2_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop not warp-specialized: the kernel's rings would need 264192 bytes of shared memory side by side, more than 232448, and its loops cannot hand their rings on: no wait retires the dots of one loop before the next loop's copies}}
  %l2_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full2[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring2[%8], %ring2[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty2[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty2[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full2[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg2[%c0_i32, %15], %ring2[%13], %full2[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done2 = tilegpu.warpgroup_wait %l2_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty2 : <2>
  tilegpu.mbarrier_inval %full2 : <2>
  return
}

// -----

// Three loops: two handoffs, the middle loop's ring live only between
// them; all three rings share one place.

// CHECK-LABEL: func.func @three_loops
// CHECK:         tilegpu.warp_specialize consumer {
// CHECK:           tilegpu.ring_handoff 0
// CHECK:           tilegpu.ring_handoff 1
// CHECK:         } producer {
// CHECK:           tilegpu.tma_load %arg1
// CHECK:           tilegpu.ring_handoff 0
// CHECK-NOT:       tilegpu.tma_load %arg1
// CHECK:           tilegpu.tma_load %arg2
// CHECK:           tilegpu.ring_handoff 1
// CHECK-NOT:       tilegpu.tma_load %arg2
// CHECK:           tilegpu.tma_load %arg3

// ALLOC-LABEL: func.func @three_loops
// ALLOC:         tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x256xf16>>
// ALLOC:         tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x256xf16>>
// ALLOC:         tilegpu.local_alloc {offset = 0 : i64} : <2 x tensor<128x256xf16>>

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @three_loops(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x256xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<128x256xf16>, 2>, %arg3: !tilegpu.tma_desc<tensor<128x256xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c256_i32 = arith.constant 256 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %empty1 = tilegpu.mbarrier_alloc : <2>
  %full1 = tilegpu.mbarrier_alloc : <2>
  %ring1 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  %empty2 = tilegpu.mbarrier_alloc : <2>
  %full2 = tilegpu.mbarrier_alloc : <2>
  %ring2 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  %empty3 = tilegpu.mbarrier_alloc : <2>
  %full3 = tilegpu.mbarrier_alloc : <2>
  %ring3 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  tilegpu.mbarrier_init %full1 : <2>
  tilegpu.mbarrier_init %empty1 {count = 4 : i32} : <2>
  %l1_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty1[%c0_i32], %c1_i32 leader if %l1_4 : <2>
  tilegpu.mbarrier_expect %full1[%c0_i32], 65536 if %l1_4 : <2>
  tilegpu.tma_load %arg1[%c0_i32, %c0_i32], %ring1[%c0_i32], %full1[%c0_i32] if %l1_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads; its rings share shared memory with the kernel's other loops (the producer starts each loop's copies when the consumers have finished the loop before)}}
  %l1_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring1[%8], %ring1[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty1[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty1[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full1[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg1[%c0_i32, %15], %ring1[%13], %full1[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done1 = tilegpu.warpgroup_wait %l1_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty1 : <2>
  tilegpu.mbarrier_inval %full1 : <2>
  tilegpu.mbarrier_init %full2 : <2>
  tilegpu.mbarrier_init %empty2 {count = 4 : i32} : <2>
  %l2_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty2[%c0_i32], %c1_i32 leader if %l2_4 : <2>
  tilegpu.mbarrier_expect %full2[%c0_i32], 65536 if %l2_4 : <2>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %ring2[%c0_i32], %full2[%c0_i32] if %l2_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads; its rings share shared memory with the kernel's other loops (the producer starts each loop's copies when the consumers have finished the loop before)}}
  %l2_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full2[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring2[%8], %ring2[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty2[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty2[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full2[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg2[%c0_i32, %15], %ring2[%13], %full2[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done2 = tilegpu.warpgroup_wait %l2_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty2 : <2>
  tilegpu.mbarrier_inval %full2 : <2>
  tilegpu.mbarrier_init %full3 : <2>
  tilegpu.mbarrier_init %empty3 {count = 4 : i32} : <2>
  %l3_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty3[%c0_i32], %c1_i32 leader if %l3_4 : <2>
  tilegpu.mbarrier_expect %full3[%c0_i32], 65536 if %l3_4 : <2>
  tilegpu.tma_load %arg3[%c0_i32, %c0_i32], %ring3[%c0_i32], %full3[%c0_i32] if %l3_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop warp-specialized: a producer warpgroup issues its TMA copies; the CTA has 256 threads; its rings share shared memory with the kernel's other loops (the producer starts each loop's copies when the consumers have finished the loop before)}}
  %l3_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full3[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring3[%8], %ring3[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<2 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty3[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty3[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full3[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg3[%c0_i32, %15], %ring3[%13], %full3[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done3 = tilegpu.warpgroup_wait %l3_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty3 : <2>
  tilegpu.mbarrier_inval %full3 : <2>
  return
}

// -----

// Handed on, the rings would fit, but laid out by tilegpu-allocate-shared's
// rule (largest first, first fit) the kernel would not: a buffer used on
// both sides of the handoff splits the memory the second loop's three
// rings need. The split is tried on a copy of the kernel first, and
// refused.

// CHECK-LABEL: func.func @fragmented
// CHECK-NOT:     tilegpu.warp_specialize
// ALLOC-LABEL: func.func @fragmented

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 128>

func.func @fragmented(%arg0: i32, %arg1: !tilegpu.tma_desc<tensor<128x256xf16>, 2>, %arg2: !tilegpu.tma_desc<tensor<128x64xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c2_i32 = arith.constant 2 : i32
  %c256_i32 = arith.constant 256 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %empty1 = tilegpu.mbarrier_alloc : <2>
  %full1 = tilegpu.mbarrier_alloc : <2>
  %ring1 = tilegpu.local_alloc : <2 x tensor<128x256xf16>>
  %empty2 = tilegpu.mbarrier_alloc : <2>
  %full2 = tilegpu.mbarrier_alloc : <2>
  %ring2 = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %ring2b = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %ring2c = tilegpu.local_alloc : <3 x tensor<128x64xf16>>
  %G = tilegpu.local_alloc : <1 x tensor<128x256xf16>>
  tilegpu.mbarrier_init %full1 : <2>
  tilegpu.mbarrier_init %empty1 {count = 4 : i32} : <2>
  %l1_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty1[%c0_i32], %c1_i32 leader if %l1_4 : <2>
  tilegpu.mbarrier_expect %full1[%c0_i32], 65536 if %l1_4 : <2>
  tilegpu.tma_load %arg1[%c0_i32, %c0_i32], %ring1[%c0_i32], %full1[%c0_i32] if %l1_4 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
  // expected-remark @below {{loop not warp-specialized: the kernel's rings would need 346112 bytes of shared memory side by side, more than 232448, and 245824 with each loop's rings handed on to the next}}
  %l1_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full1[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %G[%c0_i32], %ring1[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<1 x tensor<128x256xf16>>, <2 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty1[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty1[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full1[%13], 65536 if %7 : <2>
    tilegpu.tma_load %arg1[%c0_i32, %15], %ring1[%13], %full1[%13] if %7 : <tensor<128x256xf16>, 2>, <2 x tensor<128x256xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done1 = tilegpu.warpgroup_wait %l1_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  %gd = tilegpu.warpgroup_dot %G[%c0_i32], %G[%c0_i32], %done1 {bTransposed, isAsync} : !tilegpu.smem<1 x tensor<128x256xf16>>, <1 x tensor<128x256xf16>>, tensor<128x128xf32, #wgmma>
  %gw = tilegpu.warpgroup_wait %gd {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty1 : <2>
  tilegpu.mbarrier_inval %full1 : <2>
  tilegpu.mbarrier_init %full2 : <2>
  tilegpu.mbarrier_init %empty2 {count = 4 : i32} : <2>
  %l2_4 = arith.cmpi sgt, %arg0, %c0_i32 : i32
  tilegpu.mbarrier_wait %empty2[%c0_i32], %c1_i32 leader if %l2_4 : <2>
  tilegpu.mbarrier_expect %full2[%c0_i32], 49152 if %l2_4 : <2>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %ring2[%c0_i32], %full2[%c0_i32] if %l2_4 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <2>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %ring2b[%c0_i32], %full2[%c0_i32] if %l2_4 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <2>
  tilegpu.tma_load %arg2[%c0_i32, %c0_i32], %ring2c[%c0_i32], %full2[%c0_i32] if %l2_4 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <2>
  // expected-remark @below {{loop not warp-specialized: the kernel's rings would need 346112 bytes of shared memory side by side, more than 232448, and 245824 with each loop's rings handed on to the next}}
  %l2_5 = scf.for %iv = %c0_i32 to %arg0 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>)  : i32 {
    %6 = arith.subi %arg0, %c1_i32 : i32
    %7 = arith.cmpi slt, %iv, %6 : i32
    %8 = arith.remui %iv, %c2_i32 : i32
    %9 = arith.divui %iv, %c2_i32 : i32
    %10 = arith.andi %9, %c1_i32 : i32
    tilegpu.mbarrier_wait %full2[%8], %10 : <2>
    %11 = tilegpu.warpgroup_dot %ring2[%8], %ring2b[%8], %acc {bTransposed, isAsync} : !tilegpu.smem<3 x tensor<128x64xf16>>, <3 x tensor<128x64xf16>>, tensor<128x128xf32, #wgmma>
    tilegpu.warpgroup_wait {pendings = 1 : i32}
    %12 = arith.addi %iv, %c1_i32 : i32
    %13 = arith.remui %12, %c2_i32 : i32
    %14 = arith.cmpi sge, %iv, %c1_i32 : i32
    tilegpu.mbarrier_arrive %empty2[%13] if %14 : <2>
    %15 = arith.muli %12, %c256_i32 : i32
    %16 = arith.divui %12, %c2_i32 : i32
    %17 = arith.andi %16, %c1_i32 : i32
    %18 = arith.xori %17, %c1_i32 : i32
    tilegpu.mbarrier_wait %empty2[%13], %18 leader if %7 : <2>
    tilegpu.mbarrier_expect %full2[%13], 49152 if %7 : <2>
    tilegpu.tma_load %arg2[%c0_i32, %15], %ring2[%13], %full2[%13] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <2>
    tilegpu.tma_load %arg2[%c0_i32, %15], %ring2b[%13], %full2[%13] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <2>
    tilegpu.tma_load %arg2[%c0_i32, %15], %ring2c[%13], %full2[%13] if %7 : <tensor<128x64xf16>, 2>, <3 x tensor<128x64xf16>>, <2>
    scf.yield %11 : tensor<128x128xf32, #wgmma>
  }
  %done2 = tilegpu.warpgroup_wait %l2_5 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
  tilegpu.mbarrier_inval %empty2 : <2>
  tilegpu.mbarrier_inval %full2 : <2>
  return
}
