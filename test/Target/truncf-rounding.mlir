// RUN: tilec %s --kernel toward_zero --num-warps 4 --emit ptx -o - | FileCheck %s

// A tile truncf with a rounding mode: toward zero becomes the packed
// cvt.rz (two register slots each); the packed cvt has no directed
// rounding: truncf-rounding-error.mlir checks the error for the others.

// CHECK-LABEL: .entry toward_zero
// CHECK-COUNT-4: cvt.rz.f16x2.f32
// CHECK-COUNT-4: cvt.rz.bf16x2.f32
// CHECK-NOT: cvt.rn
func.func @toward_zero(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %h: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %offs = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %hs = tile.splat %h : tensor<1024x!tile.ptr<f16>>
  %hp = tile.addptr %hs, %offs : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %hv = arith.truncf %v toward_zero : tensor<1024xf32> to tensor<1024xf16>
  tile.store %hp, %hv : tensor<1024x!tile.ptr<f16>>
  %bs = tile.splat %b : tensor<1024x!tile.ptr<bf16>>
  %bp = tile.addptr %bs, %offs : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %bv = arith.truncf %v toward_zero : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %bp, %bv : tensor<1024x!tile.ptr<bf16>>
  return
}
