// Math without a PTX instruction calls libdevice, linked and inlined.
// RUN: tilec-opt %s -convert-tile-to-tilegpu -convert-tilegpu-to-llvm | FileCheck %s --check-prefix=CALLS
// RUN: tilec %s --emit ptx | FileCheck %s

// CALLS-DAG: llvm.func @__nv_sinf(f32) -> f32
// CALLS-DAG: llvm.func @__nv_erff(f32) -> f32
// CALLS-DAG: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: .visible .entry math_ops(
// CHECK-NOT: call
// CHECK-NOT: __nv_
// CHECK: ex2.approx.ftz.f32
// CHECK: ret;
func.func @math_ops(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %a = math.sin %v : tensor<128xf32>
  %b = math.erf %a : tensor<128xf32>
  %c = math.exp2 %b : tensor<128xf32>
  tile.store %xp, %c : tensor<128x!tile.ptr<f32>>
  return
}
