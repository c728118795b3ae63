// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @vector_add
func.func @vector_add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  // CHECK: tile.program_id 0
  %pid = tile.program_id 0
  %c128 = arith.constant 128 : i32
  %start = arith.muli %pid, %c128 : i32
  // CHECK: tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // CHECK: tile.splat %{{.*}} : tensor<128xi32>
  %s = tile.splat %start : tensor<128xi32>
  %offs = arith.addi %s, %r : tensor<128xi32>
  %nt = tile.splat %n : tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %nt : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xp = tile.addptr %xs, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ys = tile.splat %y : tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zs = tile.splat %z : tensor<128x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  // CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
  %a = tile.load %xp, %mask, %zero : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
  %b = tile.load %yp, %mask : tensor<128x!tile.ptr<f32>>
  %c = arith.addf %a, %b : tensor<128xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
  tile.store %zp, %c, %mask : tensor<128x!tile.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @block_pointers
func.func @block_pointers(%a: !tile.ptr<f16>, %m: i64, %k: i64, %sm: i64, %o: i32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  // CHECK: tile.make_block_ptr %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
  %bp = tile.make_block_ptr %a, [%m, %k], [%sm, %c1], [%o, %c0] {order = array<i32: 1, 0>} : !tile.block_ptr<tensor<64x32xf16>>
  // CHECK: tile.block_load %{{.*}} {boundary_check = array<i32: 0, 1>, padding = #tile.padding<nan>}
  %t = tile.block_load %bp {boundary_check = array<i32: 0, 1>, padding = #tile.padding<nan>} : !tile.block_ptr<tensor<64x32xf16>> -> tensor<64x32xf16>
  // CHECK: tile.advance %{{.*}}, [%{{.*}}, %{{.*}}] : <tensor<64x32xf16>>
  %bp2 = tile.advance %bp, [%c0, %c32] : !tile.block_ptr<tensor<64x32xf16>>
  // CHECK: tile.block_store
  tile.block_store %bp2, %t {boundary_check = array<i32: 1>} : !tile.block_ptr<tensor<64x32xf16>>, tensor<64x32xf16>
  return
}

// CHECK-LABEL: func.func @shapes_and_compute
func.func @shapes_and_compute(%x: tensor<64xf32>, %a: tensor<32x16xf16>, %b: tensor<16x64xf16>) -> (tensor<32x64xf32>, tensor<32xf32>, tensor<64x32xf32>) {
  // CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %e = tile.expand_dims %x {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<32x64xf32>
  %bc = tile.broadcast %e : tensor<1x64xf32> -> tensor<32x64xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<16x64xf16> -> tensor<32x64xf32>
  %d = tile.dot %a, %b, %bc : tensor<32x16xf16>, tensor<16x64xf16> -> tensor<32x64xf32>
  // CHECK: tile.reduce %{{.*}} {axis = 1 : i32} : (tensor<32x64xf32>) -> tensor<32xf32>
  // CHECK: arith.maxnumf
  // CHECK: tile.reduce.return
  %r = tile.reduce %d {axis = 1 : i32} : (tensor<32x64xf32>) -> tensor<32xf32> {
  ^bb0(%l: f32, %rr: f32):
    %mx = arith.maxnumf %l, %rr : f32
    tile.reduce.return %mx : f32
  }
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>}
  %t = tile.trans %d {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  return %d, %r, %t : tensor<32x64xf32>, tensor<32xf32>, tensor<64x32xf32>
}

// CHECK-LABEL: func.func @inline_asm
func.func @inline_asm(%x: tensor<512xi8>, %b: tensor<512xf32>, %s: i32) -> (tensor<512xi8>, tensor<512xi32>, tensor<512xf32>, i32) {
  // CHECK: tile.inline_asm_elementwise "and.b32 $0, $1, 0x1F1F1F1F;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %{{.*}} : tensor<512xi8> -> tensor<512xi8>
  %y = tile.inline_asm_elementwise "and.b32 $0, $1, 0x1F1F1F1F;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %x : tensor<512xi8> -> tensor<512xi8>
  // CHECK: tile.inline_asm_elementwise "{{.*}}" {constraints = "=r,=r,r,r", packed_element = 1 : i32, pure = false} %{{.*}}, %{{.*}} : tensor<512xi8>, tensor<512xf32> -> tensor<512xi32>, tensor<512xf32>
  %z:2 = tile.inline_asm_elementwise "cvt.u32.u8 $0, $2; mov.b32 $1, $3;" {constraints = "=r,=r,r,r", packed_element = 1 : i32, pure = false} %x, %b : tensor<512xi8>, tensor<512xf32> -> tensor<512xi32>, tensor<512xf32>
  // CHECK: tile.inline_asm_elementwise "mov.u32 $0, %laneid;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
  %l = tile.inline_asm_elementwise "mov.u32 $0, %laneid;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
  return %y, %z#0, %z#1, %l : tensor<512xi8>, tensor<512xi32>, tensor<512xf32>, i32
}

// CHECK-LABEL: func.func @scan
// CHECK: tile.scan %{{.*}}, %{{.*}} {axis = 1 : i32, reverse = true} : (tensor<4x64xf32>, tensor<4x64xi32>) -> (tensor<4x64xf32>, tensor<4x64xi32>)
// CHECK: tile.scan.return %{{.*}}, %{{.*}} : f32, i32
func.func @scan(%x: tensor<4x64xf32>, %i: tensor<4x64xi32>) -> tensor<4x64xf32> {
  %r:2 = tile.scan %x, %i {axis = 1 : i32, reverse = true} : (tensor<4x64xf32>, tensor<4x64xi32>) -> (tensor<4x64xf32>, tensor<4x64xi32>) {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %s = arith.addf %a, %b : f32
    %t = arith.maxsi %ai, %bi : i32
    tile.scan.return %s, %t : f32, i32
  }
  return %r#0 : tensor<4x64xf32>
}
