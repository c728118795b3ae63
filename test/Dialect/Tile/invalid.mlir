// RUN: tilec-opt %s -split-input-file -verify-diagnostics

func.func @range_not_pow2() {
  // expected-error @+1 {{range length 100 must be a power of two}}
  %r = tile.make_range {end = 100 : i32, start = 0 : i32} : tensor<100xi32>
  return
}

// -----

func.func @range_wrong_size() {
  // expected-error @+1 {{result has 64 elements but the range has 128}}
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<64xi32>
  return
}

// -----

func.func @bad_broadcast(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{cannot broadcast shape [2, 64] to [32, 64]}}
  %b = tile.broadcast %x : tensor<2x64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @bad_expand(%x: tensor<64xf32>) {
  // expected-error @+1 {{expected result shape [64, 1], got [1, 64]}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  return
}

// -----

func.func @bad_reshape(%x: tensor<64xf32>) {
  // expected-error @+1 {{cannot reshape [64] (64 elements) to [4, 32] (128 elements)}}
  %e = tile.reshape %x : tensor<64xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<64x!tile.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{pointer shape [64] differs from offset shape [32]}}
  %q = tile.addptr %p, %o : tensor<64x!tile.ptr<f32>>, tensor<32xi32>
  return
}

// -----

func.func @addptr_mixed(%p: !tile.ptr<f32>, %o: tensor<32xi32>) {
  // expected-error @+1 {{pointer and offset must both be scalars or both tiles}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, tensor<32xi32>
  return
}

// -----

func.func @block_ptr_rank(%a: !tile.ptr<f16>, %m: i64, %o: i32) {
  // expected-error @+1 {{block of rank 2 needs 2 shape, stride and offset values (got 1, 1, 1)}}
  %bp = tile.make_block_ptr %a, [%m], [%m], [%o] {order = array<i32: 0>} : !tile.block_ptr<tensor<64x32xf16>>
  return
}

// -----

func.func @block_ptr_order(%a: !tile.ptr<f16>, %m: i64, %o: i32) {
  // expected-error @+1 {{order must be a permutation of [0, 2)}}
  %bp = tile.make_block_ptr %a, [%m, %m], [%m, %m], [%o, %o] {order = array<i32: 1, 1>} : !tile.block_ptr<tensor<64x32xf16>>
  return
}

// -----

func.func @boundary_check_range(%bp: !tile.block_ptr<tensor<64xf32>>) {
  // expected-error @+1 {{boundary_check dimension 1 out of range for rank 1}}
  %t = tile.block_load %bp {boundary_check = array<i32: 1>} : !tile.block_ptr<tensor<64xf32>> -> tensor<64xf32>
  return
}

// -----

func.func @block_load_type(%bp: !tile.block_ptr<tensor<64xf32>>) {
  // expected-error @+1 {{does not match the block type}}
  %t = tile.block_load %bp : !tile.block_ptr<tensor<64xf32>> -> tensor<32xf32>
  return
}

// -----

func.func @advance_count(%bp: !tile.block_ptr<tensor<64x16xf32>>, %o: i32) {
  // expected-error @+1 {{block of rank 2 needs 2 offsets, got 1}}
  %q = tile.advance %bp, [%o] : !tile.block_ptr<tensor<64x16xf32>>
  return
}

// -----

func.func @dot_inner(%a: tensor<32x16xf16>, %b: tensor<32x64xf16>, %c: tensor<32x64xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is [32, 16], b is [32, 64]}}
  %d = tile.dot %a, %b, %c : tensor<32x16xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  return
}

// -----

func.func @dot_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operand element types differ: 'f16' and 'bf16'}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @reduce_region(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{combine region needs 2 arguments, has 1}}
  %r = tile.reduce %x {axis = 1 : i32} : (tensor<32x64xf32>) -> tensor<32xf32> {
  ^bb0(%l: f32):
    tile.reduce.return %l : f32
  }
  return
}

// -----

func.func @reduce_result(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{result 0 has type 'tensor<64xf32>', expected 'tensor<32xf32>'}}
  %r = tile.reduce %x {axis = 1 : i32} : (tensor<32x64xf32>) -> tensor<64xf32> {
  ^bb0(%l: f32, %rr: f32):
    %s = arith.addf %l, %rr : f32
    tile.reduce.return %s : f32
  }
  return
}

// -----

func.func @bitcast_width(%x: tensor<32xf32>) {
  // expected-error @+1 {{cannot bitcast 'f32' to 'f16': bit widths differ}}
  %r = tile.bitcast %x : tensor<32xf32> -> tensor<32xf16>
  return
}

// -----

func.func @inline_asm_pack_not_pow2(%x: tensor<12xi8>) {
  // expected-error @+1 {{packed_element must be a power of two, got 3}}
  %y = tile.inline_asm_elementwise "" {constraints = "=r,r", packed_element = 3 : i32, pure = true} %x : tensor<12xi8> -> tensor<12xi8>
  return
}

// -----

func.func @inline_asm_shapes(%x: tensor<16xi32>, %s: i32) {
  // expected-error @+1 {{arguments and results must all have one shape}}
  %y = tile.inline_asm_elementwise "" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %x, %s : tensor<16xi32>, i32 -> tensor<16xi32>
  return
}

// -----

func.func @inline_asm_constraints(%x: tensor<16xi8>) {
  // expected-error @+1 {{constraints "=r,r,r" have 1 outputs and 2 inputs, but the results take 1 and the arguments 1 registers with packed_element 4}}
  %y = tile.inline_asm_elementwise "" {constraints = "=r,r,r", packed_element = 4 : i32, pure = true} %x : tensor<16xi8> -> tensor<16xi8>
  return
}

// -----

func.func @inline_asm_no_result(%x: tensor<16xi32>) {
  // expected-error @+1 {{needs at least one result}}
  "tile.inline_asm_elementwise"(%x) {asm_string = "", constraints = "r", packed_element = 1 : i32, pure = false} : (tensor<16xi32>) -> ()
  return
}

// -----

func.func @scan_result(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{result 0 has type 'tensor<64x32xf32>', expected the shape and element type of 'tensor<32x64xf32>'}}
  %r = tile.scan %x {axis = 1 : i32} : (tensor<32x64xf32>) -> tensor<64x32xf32> {
  ^bb0(%l: f32, %rr: f32):
    %s = arith.addf %l, %rr : f32
    tile.scan.return %s : f32
  }
  return
}

// -----

func.func @scan_axis(%x: tensor<32xf32>) {
  // expected-error @+1 {{axis 1 out of range for rank 1}}
  %r = tile.scan %x {axis = 1 : i32} : (tensor<32xf32>) -> tensor<32xf32> {
  ^bb0(%l: f32, %rr: f32):
    %s = arith.addf %l, %rr : f32
    tile.scan.return %s : f32
  }
  return
}
