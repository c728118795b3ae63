// RUN: tilec-opt %s -split-input-file -convert-tilegpu-to-llvm -verify-diagnostics | FileCheck %s

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// pack=1 on 256 elements over 128 threads: two asm per thread, one per
// slot, the scalar argument in both.
// CHECK-LABEL: llvm.func @pack1
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "shl.b32 $0, $1, $2;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NOT: llvm.inline_asm
func.func @pack1(%x: tensor<256xi32, #b1>, %s: tensor<256xi32, #b1>) -> tensor<256xi32, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  %y = tile.inline_asm_elementwise "shl.b32 $0, $1, $2;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %x, %s : tensor<256xi32, #b1>, tensor<256xi32, #b1> -> tensor<256xi32, #b1>
  return %y : tensor<256xi32, #b1>
}

// -----

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// pack=4 on i8: the 4 slots of a thread go in one vector<4xi8> register as
// an i32; the result comes back the same way. Not pure: has_side_effects.
// CHECK-LABEL: llvm.func @pack4_i8
// CHECK: %[[V0:.*]] = llvm.mlir.undef : vector<4xi8>
// CHECK-COUNT-4: llvm.insertelement
// CHECK: %[[R:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: %[[O:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "and.b32 $0, $1, 0x1F1F1F1F;", "=r,r" %[[R]] : (i32) -> i32
// CHECK: llvm.bitcast %[[O]] : i32 to vector<4xi8>
// CHECK-COUNT-4: llvm.extractelement
// CHECK-NOT: llvm.inline_asm
func.func @pack4_i8(%x: tensor<512xi8, #b4>) -> tensor<512xi8, #b4> attributes {tilegpu.num_warps = 4 : i32} {
  %y = tile.inline_asm_elementwise "and.b32 $0, $1, 0x1F1F1F1F;" {constraints = "=r,r", packed_element = 4 : i32, pure = false} %x : tensor<512xi8, #b4> -> tensor<512xi8, #b4>
  return %y : tensor<512xi8, #b4>
}

// -----

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Two results, pack=4: 4 i32 and 4 f32 outputs in a struct; inputs one
// packed u8 register and 4 f32.
// CHECK-LABEL: llvm.func @two_results
// CHECK: llvm.inline_asm asm_dialect = att "{{.*}}", "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, f32, f32, f32) -> !llvm.struct<(i32, i32, i32, i32, f32, f32, f32, f32)>
// CHECK-COUNT-8: llvm.extractvalue
func.func @two_results(%a: tensor<512xi8, #b4>, %b: tensor<512xf32, #b4>) -> (tensor<512xi32, #b4>, tensor<512xf32, #b4>) attributes {tilegpu.num_warps = 4 : i32} {
  %z:2 = tile.inline_asm_elementwise "asm" {constraints = "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", packed_element = 4 : i32, pure = true} %a, %b : tensor<512xi8, #b4>, tensor<512xf32, #b4> -> tensor<512xi32, #b4>, tensor<512xf32, #b4>
  return %z#0, %z#1 : tensor<512xi32, #b4>, tensor<512xf32, #b4>
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The layout gives each thread 4 elements 128 apart: not runs of 4.
func.func @not_runs(%x: tensor<512xi8, #b1>) -> tensor<512xi8, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  // expected-error @+1 {{tl.inline_asm_elementwise with pack=4 needs runs of 4 consecutive elements in each thread, but the 512 tile gives each thread 4 elements that are not consecutive (use a larger tile, fewer warps or a smaller pack)}}
  %y = tile.inline_asm_elementwise "" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %x : tensor<512xi8, #b1> -> tensor<512xi8, #b1>
  return %y : tensor<512xi8, #b1>
}
