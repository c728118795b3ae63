// RUN: tilec-opt %s -test-print-axis-info -split-input-file -verify-diagnostics

func.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id 0
  %c1024 = arith.constant 1024 : i32
  // expected-remark @+1 {{start: contiguity = [1], divisibility = [1024], constancy = [1]}}
  %start = arith.muli %pid, %c1024 {tile.name = "start"} : i32
  // expected-remark @+1 {{range: contiguity = [1024], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32, tile.name = "range"} : tensor<1024xi32>
  // expected-remark @+1 {{splat: contiguity = [1], divisibility = [1024], constancy = [1024]}}
  %s = tile.splat %start {tile.name = "splat"} : tensor<1024xi32>
  // expected-remark @+1 {{offs: contiguity = [1024], divisibility = [1024], constancy = [1]}}
  %offs = arith.addi %s, %r {tile.name = "offs"} : tensor<1024xi32>
  %nt = tile.splat %n : tensor<1024xi32>
  // expected-remark @+1 {{mask: contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask = arith.cmpi slt, %offs, %nt {tile.name = "mask"} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  // expected-remark @+1 {{ptrs: contiguity = [1024], divisibility = [16], constancy = [1]}}
  %xp = tile.addptr %xs, %offs {tile.name = "ptrs"} : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  return
}

// -----

func.func @row_major_2d(%x: !tile.ptr<f16>, %stride: i32) {
  %c8 = arith.constant dense<8> : tensor<16x1xi32>
  %rows = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  // expected-remark @+1 {{rowoff: contiguity = [1, 1], divisibility = [8, 8], constancy = [1, 1]}}
  %rowoff = arith.muli %r2, %c8 {tile.name = "rowoff"} : tensor<16x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  // expected-remark @+1 {{offs2d: contiguity = [1, 64], divisibility = [1, 8], constancy = [1, 1]}}
  %offs = arith.addi %rb, %cb {tile.name = "offs2d"} : tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f16>>
  // Without a hint the base is only known 2-byte aligned.
  // expected-remark @+1 {{ptrs2d: contiguity = [1, 64], divisibility = [2, 2], constancy = [1, 1]}}
  %xp = tile.addptr %xs, %offs {tile.name = "ptrs2d"} : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  return
}

// -----

func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tile.splat %x : tensor<64x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %adv = arith.constant dense<64> : tensor<64xi32>
  %res = scf.for %i = %c0 to %n step %c64 iter_args(%p = %p0) -> (tensor<64x!tile.ptr<f32>>) : i32 {
    // expected-remark @+1 {{iv: contiguity = [1], divisibility = [64], constancy = [1]}}
    %iv = arith.addi %i, %c0 {tile.name = "iv"} : i32
    %next = tile.addptr %p, %adv : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tile.ptr<f32>>
  }
  // expected-remark @+1 {{final: contiguity = [64], divisibility = [16], constancy = [1]}}
  %final = tilegpu.convert_layout %res {tile.name = "final"} : tensor<64x!tile.ptr<f32>> -> tensor<64x!tile.ptr<f32>>
  return
}

// -----

// A shift of a 2-d tile by a constant is a multiplication by a 2-d constant
// (the fuzzer's crash: the constant was built 1-d).
func.func @shift_2d() {
  %c3 = arith.constant dense<3> : tensor<16x64xi32>
  %rows = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = tile.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  // expected-remark @+1 {{shl2d: contiguity = [1, 1], divisibility = [8, 8], constancy = [1, 64]}}
  %s = arith.shli %rb, %c3 {tile.name = "shl2d"} : tensor<16x64xi32>
  return
}
