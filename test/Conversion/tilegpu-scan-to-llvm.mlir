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

// Register bits above the warps: eight chunks of 128 scanned in place (five
// shuffle steps and one for the lanes before, per chunk), the warps' totals
// of every chunk through shared memory in one pass (all four warps read, for
// the chunk totals), then each chunk after the chunks before it: seven
// carries into one element each and six chunk totals added up.
// CHECK-LABEL: llvm.func @cumsum_chunks
// CHECK-COUNT-48: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-32: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @cumsum_chunks(%x: tensor<1024xf32, #b1>) -> tensor<1024xf32, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<1024xf32, #b1>) -> tensor<1024xf32, #b1> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<1024xf32, #b1>
}

// -----

#b2 = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>

// Chunks after the lanes, no warps along the axis: two chunks of 64, each
// five shuffle steps, one for the lanes before and one for the chunk's
// total from its last lane; no shared memory.
// CHECK-LABEL: llvm.func @cumsum_lane_chunks
// CHECK-COUNT-14: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
func.func @cumsum_lane_chunks(%x: tensor<4x128xf32, #b2>) -> tensor<4x128xf32, #b2> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 1 : i32, reverse = true} : (tensor<4x128xf32, #b2>) -> tensor<4x128xf32, #b2> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<4x128xf32, #b2>
}

// -----

#mma = #tilegpu.mma<warpsPerCTA = [4, 1], instrN = 8>

// Along the rows of an mma accumulator the axis runs lanes, registers,
// warps: moved through shared memory into a layout with one chunk,
// scanned, moved back.
// CHECK-LABEL: llvm.func @cumsum_moved
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.load
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.return
func.func @cumsum_moved(%x: tensor<64x8xf32, #mma>) -> tensor<64x8xf32, #mma> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<64x8xf32, #mma>) -> tensor<64x8xf32, #mma> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<64x8xf32, #mma>
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Sixteen chunks of 128: more than eight, so no shuffle scan per chunk;
// every thread writes its total of each chunk into the chunk table (one
// row per chunk, a column per thread). All threads scan the rows: each
// takes 16 consecutive entries of a row and adds them up (16 loads), the
// 8 runs of a row combine over 8 lanes (3 shuffle steps and one for the
// run before), then each run is scanned again entry by entry (a load and
// a store each). Then the 16 row totals: a thread each (the others read
// nothing and store nothing), 4 shuffle steps and one. Each element then
// combines the positions before it in its row (one load per chunk) and
// the chunks before its own (one more load for each of the fifteen
// chunks after the first).
// CHECK-LABEL: llvm.func @cumsum_chunk_table
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-4: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: } else {
// CHECK-COUNT-5: nvvm.shfl.sync idx
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-31: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @cumsum_chunk_table(%x: tensor<2048xf32, #b1>) -> tensor<2048xf32, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<2048xf32, #b1>) -> tensor<2048xf32, #b1> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<2048xf32, #b1>
}

// -----

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// 64 chunks of 128 on one warp: the table has more rows (64) than there
// are threads (32), so each thread scans two whole rows of 32 entries
// (64 loads and 64 stores, no shuffles) before the chunk totals.
// CHECK-LABEL: llvm.func @cumsum_rows_over_threads
// CHECK: nvvm.barrier0
// CHECK-COUNT-64: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.shfl.sync
// CHECK-COUNT-64: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
func.func @cumsum_rows_over_threads(%x: tensor<8192xf32, #b4>) -> tensor<8192xf32, #b4> attributes {tilegpu.num_warps = 1 : i32} {
  %r = tile.scan %x {axis = 0 : i32} : (tensor<8192xf32, #b4>) -> tensor<8192xf32, #b4> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.scan.return %sum : f32
  }
  return %r : tensor<8192xf32, #b4>
}
