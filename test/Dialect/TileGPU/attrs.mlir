// RUN: tilec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
// CHECK: #[[$B:.*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #tilegpu.slice<{dim = 1, parent = #[[$B]]}>
// CHECK-LABEL: func.func @convert
func.func @convert(%x: tensor<64x32xf32, #blocked>) -> tensor<64xf32, #slice> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.reduce %x {axis = 1 : i32} : (tensor<64x32xf32, #blocked>) -> tensor<64xf32, #slice> {
  ^bb0(%l: f32, %rr: f32):
    %s = arith.addf %l, %rr : f32
    tile.reduce.return %s : f32
  }
  // CHECK: tilegpu.convert_layout
  %c = tilegpu.convert_layout %r : tensor<64xf32, #slice> -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
  %d = tilegpu.convert_layout %c : tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<64xf32, #slice>
  return %d : tensor<64xf32, #slice>
}

// -----

// expected-error @+1 {{blocked layout: threadsPerWarp multiplies to 16, expected 32}}
func.func @bad_lanes(%x: tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout: every entry must be a power of two}}
func.func @bad_pow2(%x: tensor<64xf32, #tilegpu.blocked<sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{'tilegpu.num_warps' must be an integer power of two (at most 32) on a function}}
func.func @bad_warps() attributes {tilegpu.num_warps = 3 : i32} {
  return
}

// -----

// At most 32 warps (1024 threads), what every entry point accepts.
// expected-error @+1 {{'tilegpu.num_warps' must be an integer power of two (at most 32) on a function}}
func.func @too_many_warps() attributes {tilegpu.num_warps = 64 : i32} {
  return
}

// -----

// A linear layout (the reshape of a 64-element blocked tile with 2 elements
// per thread to 16x2x2) round-trips, and a slice of it is a layout too.
#linear = #tilegpu.linear<register = [[0, 0, 1]], lane = [[0, 1, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]], warp = []>
// CHECK: #[[$L:.*]] = #tilegpu.linear<register = {{\[}}[0, 0, 1]], lane = {{\[}}[0, 1, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]], warp = []>
// CHECK: #[[$LS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$L]]}>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: tensor<16x2x2xf32, #[[$L]]>
// CHECK-SAME: tensor<16x2xf32, #[[$LS]]>
func.func @linear(%x: tensor<16x2x2xf32, #linear>, %y: tensor<16x2xf32, #tilegpu.slice<{dim = 1, parent = #linear}>>) attributes {tilegpu.num_warps = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{linear layout: needs 5 lane bases (32 lanes), got 4}}
func.func @linear_lanes(%x: tensor<32xf32, #tilegpu.linear<register = [[1]], lane = [[2], [4], [8], [16]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{linear layout: every basis must have 2 entries, got 1}}
func.func @linear_rank(%x: tensor<32xf32, #tilegpu.linear<register = [[1, 0]], lane = [[2], [4], [8], [16], [0]], warp = []>>) {
  return
}
