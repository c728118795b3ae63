// RUN: tilec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A TMA reduction adds f32 tiles only.
func.func @add_f16(%desc: !tilegpu.tma_desc<tensor<64x64xf16>, 2>, %row: i32) {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x64xf16>>
  // expected-error @below {{adds 'tensor<64x64xf16>'; a TMA reduction here adds f32 tiles only}}
  tilegpu.tma_store add %ring[%c0], %desc[%row, %c0] : <1 x tensor<64x64xf16>>, <tensor<64x64xf16>, 2>
  return
}

// -----

// On f32 it round-trips.
// CHECK-LABEL: func.func @add_f32
// CHECK: tilegpu.tma_store add %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] : <1 x tensor<64x64xf32>>, <tensor<64x64xf32>, 2>
func.func @add_f32(%desc: !tilegpu.tma_desc<tensor<64x64xf32>, 2>, %row: i32) {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc {offset = 0 : i64} : <1 x tensor<64x64xf32>>
  tilegpu.tma_store add %ring[%c0], %desc[%row, %c0] : <1 x tensor<64x64xf32>>, <tensor<64x64xf32>, 2>
  return
}
