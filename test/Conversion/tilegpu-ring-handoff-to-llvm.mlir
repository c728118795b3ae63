// RUN: tilec-opt %s -convert-tilegpu-to-llvm | FileCheck %s

// Ring handoffs (tilegpu.ring_handoff) of a kernel with two consumer
// warpgroups: the consumers fence their shared-memory accesses against the
// async proxy and arrive, without waiting, on named barrier 5 + index; the
// producer's warp waits there. Both count the 256 consumer threads and the
// producer's 32.

// CHECK-LABEL: llvm.func @handoff(
// CHECK:         scf.if
// CHECK:           %[[ID0:.*]] = arith.constant 5 : i32
// CHECK-NEXT:      %[[N0:.*]] = arith.constant 288 : i32
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      nvvm.barrier.arrive id = %[[ID0]] number_of_threads = %[[N0]]
// CHECK-NEXT:      %[[ID1:.*]] = arith.constant 6 : i32
// CHECK-NEXT:      %[[N1:.*]] = arith.constant 288 : i32
// CHECK-NEXT:      nvvm.fence.proxy
// CHECK-NEXT:      nvvm.barrier.arrive id = %[[ID1]] number_of_threads = %[[N1]]
// CHECK:         } else {
// CHECK:           scf.if
// CHECK-NOT:         nvvm.barrier.arrive
// CHECK:             %[[PID0:.*]] = arith.constant 5 : i32
// CHECK-NEXT:        %[[PN0:.*]] = arith.constant 288 : i32
// CHECK-NEXT:        nvvm.barrier id = %[[PID0]] number_of_threads = %[[PN0]]
// CHECK:             %[[PID1:.*]] = arith.constant 6 : i32
// CHECK-NEXT:        %[[PN1:.*]] = arith.constant 288 : i32
// CHECK-NEXT:        nvvm.barrier id = %[[PID1]] number_of_threads = %[[PN1]]
func.func @handoff() attributes {tile.kernel, tilegpu.num_warps = 8 : i32, tilegpu.shared_memory = 0 : i64} {
  tilegpu.warp_specialize consumer {
    tilegpu.ring_handoff 0
    tilegpu.ring_handoff 1
  } producer {
    tilegpu.ring_handoff 0
    tilegpu.ring_handoff 1
  } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// One consumer warpgroup: 128 consumer threads and the producer's 32.
// CHECK-LABEL: llvm.func @handoff_one_warpgroup(
// CHECK:         %[[ID:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    %[[N:.*]] = arith.constant 160 : i32
// CHECK-NEXT:    nvvm.fence.proxy
// CHECK-NEXT:    nvvm.barrier.arrive id = %[[ID]] number_of_threads = %[[N]]
// CHECK:         %[[PID:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    %[[PN:.*]] = arith.constant 160 : i32
// CHECK-NEXT:    nvvm.barrier id = %[[PID]] number_of_threads = %[[PN]]
func.func @handoff_one_warpgroup() attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.shared_memory = 0 : i64} {
  tilegpu.warp_specialize consumer {
    tilegpu.ring_handoff 0
  } producer {
    tilegpu.ring_handoff 0
  } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}
