// RUN: not tilec %s --kernel upward --num-warps 4 --emit ptx -o %t.ptx 2>&1 | FileCheck %s

// The packed cvt to f16/bf16 rounds to nearest or toward zero only: a tile
// truncf rounding upward is a located error and a failed compile, not a
// silent round to nearest.

// CHECK: truncf-rounding-error.mlir:[[@LINE+8]]:{{[0-9]+}}: error: 'arith.truncf' op rounding mode 'upward' to f16/bf16 is not supported on the GPU
func.func @upward(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %offs = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %bs = tile.splat %b : tensor<1024x!tile.ptr<bf16>>
  %bp = tile.addptr %bs, %offs : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %bv = arith.truncf %v upward : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %bp, %bv : tensor<1024x!tile.ptr<bf16>>
  return
}
