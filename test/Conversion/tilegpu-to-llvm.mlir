// RUN: tilec-opt %s -split-input-file -tilegpu-allocate-shared -convert-tilegpu-to-llvm | FileCheck %s

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// 16-byte aligned, contiguous, mask constant over 16 elements: one
// predicated v4 load and one v4 store per 4 elements.
// CHECK-LABEL: llvm.func @copy
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, tilegpu.shared_memory = {{[0-9]+}} : i64}
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.getelementptr %{{.*}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$4 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $5 + 0 ];", "=r,=r,=r,=r,b,l"
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$0 st.global.v4.b32 [ $1 + 0 ], { $2, $3, $4, $5 };", "b,l,r,r,r,r"
// CHECK-NOT: ld.global
// CHECK: llvm.return
func.func @copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b4>
  %nt = tile.splat %n : tensor<512xi32, #b4>
  %m = arith.cmpi slt, %r, %nt : tensor<512xi32, #b4>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b4>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
  %v = tile.load %xp, %m : tensor<512x!tile.ptr<f32>, #b4>
  %zs = tile.splat %z : tensor<512x!tile.ptr<f32>, #b4>
  %zp = tile.addptr %zs, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
  tile.store %zp, %v, %m : tensor<512x!tile.ptr<f32>, #b4>
  return
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Without alignment facts each element moves alone; the other value is
// moved into the destination before the predicated load.
// CHECK-LABEL: llvm.func @scalar_access
// CHECK: "mov.b32 $0, $3;\0A\09@$1 ld.global.b32 $0, [ $2 + 0 ];", "=r,b,l,r"
func.func @scalar_access(%x: !tile.ptr<f32>, %n: i32) -> tensor<128xf32, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %nt = tile.splat %n : tensor<128xi32, #b1>
  %m = arith.cmpi slt, %r, %nt : tensor<128xi32, #b1>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #b1>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b1>, tensor<128xi32, #b1>
  %zero = arith.constant dense<0.0> : tensor<128xf32, #b1>
  %v = tile.load %xp, %m, %zero : tensor<128x!tile.ptr<f32>, #b1>
  return %v : tensor<128xf32, #b1>
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#s = #tilegpu.slice<{dim = 1, parent = #b}>

// Row sums of a 32x64 tile whose CTA tile is 8x64: each thread holds 4
// rows of 4 elements. Per row: 3 adds in registers, then 3 butterfly
// shuffles over the 8 lanes of a row, then the 2 warps of a row through
// shared memory.
// CHECK-LABEL: llvm.func @row_sum
// CHECK-COUNT-12: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-12: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: arith.addf
// CHECK: llvm.return
func.func @row_sum(%x: tensor<32x64xf32, #b>) -> tensor<32xf32, #s> attributes {tilegpu.num_warps = 4 : i32} {
  %r = tile.reduce %x {axis = 1 : i32} : (tensor<32x64xf32, #b>) -> tensor<32xf32, #s> {
  ^bb0(%a: f32, %c: f32):
    %sum = arith.addf %a, %c : f32
    tile.reduce.return %sum : f32
  }
  return %r : tensor<32xf32, #s>
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#t = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [0, 1]>

// Different lanes: through shared memory. The source's runs of 4
// elements along a row are one 8-byte store each; the result's runs go
// down columns, so it reads element by element.
// CHECK-LABEL: llvm.func @transpose_layout
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
func.func @transpose_layout(%x: tensor<32x64xf16, #b>) -> tensor<32x64xf16, #t> attributes {tilegpu.num_warps = 4 : i32} {
  %y = tilegpu.convert_layout %x : tensor<32x64xf16, #b> -> tensor<32x64xf16, #t>
  return %y : tensor<32x64xf16, #t>
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// FMA dot: operands to shared memory, a loop over K of widened FMAs.
// CHECK-LABEL: llvm.func @fma_dot
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: scf.yield
func.func @fma_dot(%a: tensor<16x16xf16, #a>, %b: tensor<16x16xf16, #a>, %c: tensor<16x16xf32, #a>) -> tensor<16x16xf32, #a> attributes {tilegpu.num_warps = 4 : i32} {
  %d = tile.dot %a, %b, %c : tensor<16x16xf16, #a>, tensor<16x16xf16, #a> -> tensor<16x16xf32, #a>
  return %d : tensor<16x16xf32, #a>
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A pointer chosen at run time (`x if c else y`): a select of the converted
// global pointers.
// CHECK-LABEL: llvm.func @select_pointer
// CHECK-SAME: (%[[X:[^:]*]]: !llvm.ptr<1>, %[[Y:[^:]*]]: !llvm.ptr<1>, %[[C:[^:]*]]: i1)
// CHECK: %[[P:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : !llvm.ptr<1>
// CHECK: llvm.getelementptr %[[P]]
func.func @select_pointer(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %c: i1) -> tensor<128xf32, #b1> attributes {tilegpu.num_warps = 4 : i32} {
  %p = arith.select %c, %x, %y : !tile.ptr<f32>
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #b1>
  %pp = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #b1>, tensor<128xi32, #b1>
  %v = tile.load %pp : tensor<128x!tile.ptr<f32>, #b1>
  return %v : tensor<128xf32, #b1>
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>

// A transpose through padded rows: the source's runs along a row are
// vector stores as long as a padded row keeps their alignment (here
// 2 of 4 elements: the padding that avoids bank conflicts makes rows of
// 66 halfs); the result's runs go down the source's columns, element by
// element.
// CHECK-LABEL: llvm.func @trans_vector
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-32: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
func.func @trans_vector(%x: tensor<32x64xf16, #b>) -> tensor<64x32xf16, #b> attributes {tilegpu.num_warps = 4 : i32} {
  %y = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf16, #b> -> tensor<64x32xf16, #b>
  return %y : tensor<64x32xf16, #b>
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>

// A 256 KB transpose goes through shared memory in two rounds of 128
// rows (plus padding): the top row bit is a register bit of both layouts
// (the next is a lane bit of the result), so each round stores half of
// the source's runs and loads half of the result's elements.
// CHECK-LABEL: llvm.func @trans_rounds
// CHECK-COUNT-2: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-256: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-COUNT-256: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @trans_rounds(%x: tensor<256x256xf32, #b>) -> tensor<256x256xf32, #b> attributes {tilegpu.num_warps = 4 : i32} {
  %y = tile.trans %x {order = array<i32: 1, 0>} : tensor<256x256xf32, #b> -> tensor<256x256xf32, #b>
  return %y : tensor<256x256xf32, #b>
}

// -----

// tilegpu.longest_first = 8: the CTA (x, y) of an nx x ny grid is in the
// group of axis-1 values from first = 8 (y / 8), of height
// h = min(8, ny - first), at place r = x + (y - first) nx (64-bit: it may
// pass 2^32); program_id(0) = nx - 1 - r / h, program_id(1) =
// first + r mod h; program_id(2) stays %ctaid.z.
// CHECK-LABEL: llvm.func @longest_first
// CHECK:         %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT:    %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-NEXT:    %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:    %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT:    %[[G:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    %[[GROUP:.*]] = arith.divui %[[Y]], %[[G]] : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[G]] : i32
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %[[NY]], %[[FIRST]] : i32
// CHECK-NEXT:    %[[H:.*]] = arith.minui %[[G]], %[[LEFT]] : i32
// CHECK-NEXT:    %[[NX64:.*]] = arith.extui %[[NX]] : i32 to i64
// CHECK-NEXT:    %[[ROW:.*]] = arith.subi %[[Y]], %[[FIRST]] : i32
// CHECK-NEXT:    %[[ROW64:.*]] = arith.extui %[[ROW]] : i32 to i64
// CHECK-NEXT:    %[[ROWX:.*]] = arith.muli %[[ROW64]], %[[NX64]] : i64
// CHECK-NEXT:    %[[X64:.*]] = arith.extui %[[X]] : i32 to i64
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[X64]], %[[ROWX]] : i64
// CHECK-NEXT:    %[[H64:.*]] = arith.extui %[[H]] : i32 to i64
// CHECK-NEXT:    %[[DOWN64:.*]] = arith.divui %[[R]], %[[H64]] : i64
// CHECK-NEXT:    %[[DOWN:.*]] = arith.trunci %[[DOWN64]] : i64 to i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[NX]], %[[ONE]] : i32
// CHECK-NEXT:    %[[P0:.*]] = arith.subi %[[LAST]], %[[DOWN]] : i32
// CHECK:         %[[W1:.*]] = arith.remui %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %[[T1:.*]] = arith.trunci %[[W1]] : i64 to i32
// CHECK-NEXT:    %[[P1:.*]] = arith.addi %{{.*}}, %[[T1]] : i32
// CHECK-NEXT:    %[[P2:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[P0]], %[[P1]] : i32
// CHECK-NEXT:    arith.addi %[[S]], %[[P2]] : i32
func.func @longest_first(%out: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.longest_first = 8 : i32} {
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %p2 = tile.program_id 2
  %s = arith.addi %p0, %p1 : i32
  %t = arith.addi %s, %p2 : i32
  tile.store %out, %t : !tile.ptr<i32>
  return
}

// -----

// tl.device_print's "pid (x, y, z)" prefix shows the program ids, remapped
// in a longest-first kernel like tl.program_id.
// CHECK-LABEL: llvm.func @longest_first_print
// CHECK:         arith.minui
// CHECK:         arith.divui %{{.*}}, %{{.*}} : i64
// CHECK:         llvm.call @vprintf
func.func @longest_first_print() attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.longest_first = 8 : i32} {
  tile.print " here" {hex = false, is_signed = array<i1>}
  return
}

// -----

// tl.load(volatile=True) is ld.volatile.global (not cached in L1, never
// merged or elided: a flag another CTA sets); a plain load of the same
// address stays ld.global.
// CHECK-LABEL: llvm.func @volatile_flag
// CHECK:         "ld.volatile.global.b32 $0, [ $1 + 0 ];"
// CHECK:         "ld.global.b32 $0, [ $1 + 0 ];"
func.func @volatile_flag(%flag: !tile.ptr<i32>, %out: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 1 : i32} {
  %v = tile.load %flag {isVolatile} : !tile.ptr<i32>
  %w = tile.load %flag : !tile.ptr<i32>
  %s = arith.addi %v, %w : i32
  tile.store %out, %s : !tile.ptr<i32>
  return
}

// -----

#acc = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
#runs = #tilegpu.linear<register = [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>

// The accumulator's column pairs gathered into runs of 8 (a stored dot's
// addresses, convert-tile-to-tilegpu): two butterflies, lane bits 0 and 1,
// of the 16 words (bf16 pairs) a thread holds, 8 shuffles each (the first
// checked operand by operand), and no shared memory.
// CHECK-LABEL: llvm.func @gather_accumulator_runs
// CHECK-NOT: nvvm.barrier0
// The first butterfly: a lane with bit 0 set (%U) gives its low word and
// keeps the high one; the other lanes give the high word.
// CHECK: %[[BIT:.*]] = arith.andi %{{.*}}, %c1_i32{{[_0-9]*}} : i32
// CHECK: %[[U:.*]] = arith.cmpi ne, %[[BIT]], %c0_i32{{[_0-9]*}} : i32
// CHECK: %[[GIVE:.*]] = arith.select %[[U]], %[[LO:.*]], %[[HI:.*]] : i32
// CHECK: %[[GOT:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[GIVE]], %c1_i32
// CHECK: arith.select %[[U]], %[[GOT]], %[[LO]] : i32
// CHECK: arith.select %[[U]], %[[HI]], %[[GOT]] : i32
// CHECK-COUNT-7: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32{{[_0-9]*}}, %c31_i32{{[_0-9]*}} : i32 -> i32
// CHECK-COUNT-8: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32{{[_0-9]*}}, %c31_i32{{[_0-9]*}} : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @gather_accumulator_runs(%x: tensor<64x64xbf16, #acc>) -> tensor<64x64xbf16, #runs> attributes {tilegpu.num_warps = 4 : i32} {
  %y = tilegpu.convert_layout %x : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #runs>
  return %y : tensor<64x64xbf16, #runs>
}
