// RUN: tilec-opt %s -split-input-file -tilegpu-allocate-shared -convert-tilegpu-to-llvm | FileCheck %s

#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The axis runs registers, lanes, warps: a sequential scan of the thread's
// two elements, five shuffle steps and one for the lanes before, the warps'
// totals through shared memory (three of them read), then the prefix.
// CHECK-LABEL: llvm.func @cumsum
// CHECK: arith.addf
// CHECK-COUNT-5: nvvm.shfl.sync idx
// CHECK: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK: llvm.return
func.func @cumsum(%x: tensor<256xf32, #b>) -> tensor<256xf32, #b> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<256xf32, #b>) -> tensor<256xf32, #b> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<256xf32, #b>
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Register bits above the lanes: moved through shared memory into a layout
// with eight consecutive elements per thread, scanned, moved back.
// CHECK-LABEL: llvm.func @cumsum_strided
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.load
// CHECK-COUNT-7: arith.addf
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.return
func.func @cumsum_strided(%x: tensor<1024xf32, #b1>) -> tensor<1024xf32, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b1> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<1024xf32, #b1>
}
