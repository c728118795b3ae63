// RUN: tilec-opt %s -split-input-file -convert-tile-to-tilegpu="num-warps=4" | FileCheck %s

// A 1-d streaming kernel: 16-byte-aligned contiguous pointers give 4 f32
// per thread.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @stream
// CHECK-SAME: attributes {tilegpu.num_warps = 4 : i32}
// CHECK: tile.make_range {{.*}} : tensor<1024xi32, #[[$B]]>
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$B]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @stream(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %zs = tile.splat %z : tensor<1024x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %zp, %v : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Rows of a 2-d tile: the row reduction is the slice of the tile's layout
// and `m[:, None]` is free.
// CHECK: #[[$B2:.*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #[[$S:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$B2]]}>
// CHECK-LABEL: func.func @row_max
// CHECK: tile.reduce {{.*}} -> tensor<64xf32, #[[$S]]>
// CHECK: tile.expand_dims {{.*}} : tensor<64xf32, #[[$S]]> -> tensor<64x1xf32, #[[$B2]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @row_max(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %rows = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ro = arith.muli %r2, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %rb, %cb : tensor<64x64xi32>
  %xs = tile.splat %x : tensor<64x64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f32>>
  %m = tile.reduce %v {axis = 1 : i32} : (tensor<64x64xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %mx = arith.maxnumf %a, %b : f32
    tile.reduce.return %mx : f32
  }
  %m2 = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %m2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %v, %mb : tensor<64x64xf32>
  tile.store %xp, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// One range used as rows of one tile and columns of another: the range is
// cloned per use instead of converted.
// CHECK-LABEL: func.func @shared_range
// CHECK-COUNT-2: tile.make_range {end = 32 : i32, start = 0 : i32}
// CHECK-NOT: tilegpu.convert_layout
func.func @shared_range(%x: !tile.ptr<f32>, %n: i32) -> (tensor<32x16xi32>, tensor<16x32xi32>) {
  %r = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %s = tile.splat %n : tensor<32xi32>
  %o = arith.addi %r, %s : tensor<32xi32>
  %a = tile.expand_dims %o {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ab = tile.broadcast %a : tensor<32x1xi32> -> tensor<32x16xi32>
  %b = tile.expand_dims %o {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %bb = tile.broadcast %b : tensor<1x32xi32> -> tensor<16x32xi32>
  return %ab, %bb : tensor<32x16xi32>, tensor<16x32xi32>
}

// -----

// A loaded vector used both ways cannot be recomputed: one side converts.
// CHECK-LABEL: func.func @loaded_both_ways
// CHECK: tilegpu.convert_layout
func.func @loaded_both_ways(%x: !tile.ptr<f32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %r = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %xs = tile.splat %x : tensor<32x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %v = tile.load %xp : tensor<32x!tile.ptr<f32>>
  %a = tile.expand_dims %v {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %ab = tile.broadcast %a : tensor<32x1xf32> -> tensor<32x32xf32>
  %b = tile.expand_dims %v {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  %bb = tile.broadcast %b : tensor<1x32xf32> -> tensor<32x32xf32>
  return %ab, %bb : tensor<32x32xf32>, tensor<32x32xf32>
}

// -----

// A loaded vector expanded into a dot's layout whose address shares a range
// with a pointer tile of another layout (tutorial 06 backward's m[None, :]
// next to qT_ptrs): the load gets its own address chain and loads in the
// slice of the wgmma layout, with no conversion (there was one, through
// shared memory, on every loop trip).
// CHECK: #[[$W:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 32>
// CHECK: #[[$WS:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$W]]}>
// CHECK-LABEL: func.func @load_expanded_into_dot
// CHECK-COUNT-2: tile.make_range {end = 32 : i32, start = 0 : i32}
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.load {{.*}} : tensor<32x!tile.ptr<f32>, #[[$WS]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
func.func @load_expanded_into_dot(%k: tensor<128x64xf16>, %q: !tile.ptr<f16>, %m: !tile.ptr<f32>, %stride: i32) -> (tensor<128x32xf32>, tensor<64x32xf16>) {
  %r = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %d = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %st = tile.splat %stride : tensor<32xi32>
  %rs = arith.muli %r, %st : tensor<32xi32>
  %rse = tile.expand_dims %rs {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rsb = tile.broadcast %rse : tensor<1x32xi32> -> tensor<64x32xi32>
  %de = tile.expand_dims %d {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %db = tile.broadcast %de : tensor<64x1xi32> -> tensor<64x32xi32>
  %off = arith.addi %rsb, %db : tensor<64x32xi32>
  %qs = tile.splat %q : tensor<64x32x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %off : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %qT = tile.load %qp : tensor<64x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x32xf32>
  %s = tile.dot %k, %qT, %zero : tensor<128x64xf16>, tensor<64x32xf16> -> tensor<128x32xf32>
  %ms = tile.splat %m : tensor<32x!tile.ptr<f32>>
  %mp = tile.addptr %ms, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %mv = tile.load %mp : tensor<32x!tile.ptr<f32>>
  %me = tile.expand_dims %mv {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  %mb = tile.broadcast %me : tensor<1x32xf32> -> tensor<128x32xf32>
  %p = arith.subf %s, %mb : tensor<128x32xf32>
  return %p, %qT : tensor<128x32xf32>, tensor<64x32xf16>
}

// -----

// An f16 dot with an f32 accumulator takes wgmma: the accumulator (and
// everything that shares its class) gets the warpgroup MMA layout.
// CHECK: #[[$ACC:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
// CHECK-LABEL: func.func @dot_accumulator
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$ACC]]>
func.func @dot_accumulator(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// Without memory accesses, a tile reduced along an axis keeps that axis in
// registers: whole rows per thread, no shuffles needed.
// CHECK: #[[$R:.*]] = #tilegpu.blocked<sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @reduced_rows
// CHECK: tile.reduce {{.*}} (tensor<256x32xf32, #[[$R]]>)
func.func @reduced_rows(%x: tensor<256x32xf32>) -> tensor<256xf32> {
  %r = tile.reduce %x {axis = 1 : i32} : (tensor<256x32xf32>) -> tensor<256xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }
  return %r : tensor<256xf32>
}

// -----

// One row index broadcast into two tiles of different shapes (the rows of
// A and of C in a matmul): the index is recomputed per use, so the two
// tiles keep their own layouts.
// CHECK-LABEL: func.func @rows_of_two_tiles
// CHECK-COUNT-2: tile.make_range {end = 64 : i32, start = 0 : i32}
// CHECK-NOT: tilegpu.convert_layout
func.func @rows_of_two_tiles(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %rows = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r2, %c64 : tensor<64x1xi32>
  %cols32 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c32 = tile.expand_dims %cols32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ra = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %ca = tile.broadcast %c32 : tensor<1x32xi32> -> tensor<64x32xi32>
  %oa = arith.addi %ra, %ca : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %aptr = tile.addptr %pa, %oa : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %av = tile.load %aptr : tensor<64x32x!tile.ptr<f16>>
  %cols64 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %c64r = tile.expand_dims %cols64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rc = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cc = tile.broadcast %c64r : tensor<1x64xi32> -> tensor<64x64xi32>
  %oc = arith.addi %rc, %cc : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %cptr = tile.addptr %pc, %oc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %sb = arith.sitofp %oc : tensor<64x64xi32> to tensor<64x64xf32>
  %ap = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %aq = tile.addptr %ap, %oa : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  tile.store %aq, %av : tensor<64x32x!tile.ptr<f16>>
  tile.store %cptr, %sb : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A loaded tile that is then expanded (tl.join's first step) keeps the
// layout its own accesses want (4 contiguous f32 per thread) instead of the
// slice of the [64, 64, 2] tile's layout (2 per thread along the new axis,
// one element per thread along the rows); the expand_dims converts.
// CHECK-DAG: #[[$OWN:.*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[$B3:.*]] = #tilegpu.blocked<sizePerThread = [1, 1, 2], threadsPerWarp = [1, 32, 1], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>
// CHECK-DAG: #[[$S3:.*]] = #tilegpu.slice<{dim = 2, parent = #[[$B3]]}>
// CHECK-LABEL: func.func @expanded_load
// CHECK: tile.load {{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$OWN]]>
// CHECK: tilegpu.convert_layout {{.*}} : tensor<64x64xf32, #[[$OWN]]> -> tensor<64x64xf32, #[[$S3]]>
// CHECK-NEXT: tile.expand_dims {{.*}} -> tensor<64x64x1xf32, #[[$B3]]>
func.func @expanded_load(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %rows = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %two = tile.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ro = arith.muli %r2, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %rb, %cb : tensor<64x64xi32>
  %xs = tile.splat %x : tensor<64x64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f32>>
  // z[(r * 64 + c) * 2 + t] = v[r, c]
  %c2i = arith.constant dense<2> : tensor<64x64xi32>
  %o2 = arith.muli %offs, %c2i : tensor<64x64xi32>
  %o3 = tile.expand_dims %o2 {axis = 2 : i32} : tensor<64x64xi32> -> tensor<64x64x1xi32>
  %o3b = tile.broadcast %o3 : tensor<64x64x1xi32> -> tensor<64x64x2xi32>
  %t1 = tile.expand_dims %two {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
  %t2 = tile.expand_dims %t1 {axis = 0 : i32} : tensor<1x2xi32> -> tensor<1x1x2xi32>
  %tb = tile.broadcast %t2 : tensor<1x1x2xi32> -> tensor<64x64x2xi32>
  %o = arith.addi %o3b, %tb : tensor<64x64x2xi32>
  %zs = tile.splat %z : tensor<64x64x2x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %o : tensor<64x64x2x!tile.ptr<f32>>, tensor<64x64x2xi32>
  %v3 = tile.expand_dims %v {axis = 2 : i32} : tensor<64x64xf32> -> tensor<64x64x1xf32>
  %vb = tile.broadcast %v3 : tensor<64x64x1xf32> -> tensor<64x64x2xf32>
  tile.store %zp, %vb : tensor<64x64x2x!tile.ptr<f32>>
  return
}

// -----

// A dot's bf16 result stored through contiguous addresses: the addresses
// take the accumulator's layout with runs of 8 columns per thread (lanes 0
// and 1 step by 8 and 16 columns instead of 2 and 4), the value is
// converted to it; the row index keeps the accumulator's slice (the same
// map in both layouts), the column index gets its own copy.
// CHECK: #[[$RUNS:.*]] = #tilegpu.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], lane = {{\[\[}}0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0]]>
// CHECK: #[[$ACC:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
// CHECK: #[[$ROWS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$ACC]]}>
// CHECK: #[[$COLS:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$RUNS]]}>
// CHECK-LABEL: func.func @store_accumulator_runs
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$ACC]]>
// CHECK: tile.make_range {{.*}} : tensor<64xi32, #[[$ROWS]]>
// CHECK: tile.make_range {{.*}} : tensor<64xi32, #[[$COLS]]>
// CHECK: %[[V:.*]] = arith.truncf {{.*}} to tensor<64x64xbf16, #[[$ACC]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<64x64xbf16, #[[$ACC]]> -> tensor<64x64xbf16, #[[$RUNS]]>
// CHECK: tile.store %{{.*}}, %[[C]] : tensor<64x64x!tile.ptr<bf16>, #[[$RUNS]]>
// CHECK: tile.reduce {{.*}} -> tensor<64xf32, #[[$ROWS]]>
// CHECK: tile.store {{.*}} : tensor<64x!tile.ptr<f32>, #[[$ROWS]]>
func.func @store_accumulator_runs(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %o: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %m: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %rows = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r2, %c64 : tensor<64x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %os = tile.splat %o : tensor<64x64x!tile.ptr<bf16>>
  %op = tile.addptr %os, %off : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %v = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %op, %v : tensor<64x64x!tile.ptr<bf16>>
  // The row maxima, stored by row index: the accumulator's rows.
  %mx = tile.reduce %d {axis = 1 : i32} : (tensor<64x64xf32>) -> tensor<64xf32> {
  ^bb0(%x: f32, %y: f32):
    %s = arith.maximumf %x, %y : f32
    tile.reduce.return %s : f32
  }
  %ms = tile.splat %m : tensor<64x!tile.ptr<f32>>
  %mp = tile.addptr %ms, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %mp, %mx : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// Stored as f32 (8-byte stores from the accumulator, whole sectors per
// quad), or through a mask that changes every column: the addresses keep
// the accumulator's layout and nothing is converted.
// CHECK: #[[$ACC:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrN = 64>
// CHECK-LABEL: func.func @store_accumulator_as_is
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store {{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$ACC]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store {{.*}} : tensor<64x64x!tile.ptr<bf16>, #[[$ACC]]>
func.func @store_accumulator_as_is(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %o: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %h: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %n: i32) {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %rows = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r2, %c64 : tensor<64x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %os = tile.splat %o : tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %d : tensor<64x64x!tile.ptr<f32>>
  // Column c < n for an n of unknown divisibility: no run of the mask.
  %ns = tile.splat %n : tensor<1x64xi32>
  %in = arith.cmpi slt, %c2, %ns : tensor<1x64xi32>
  %mask = tile.broadcast %in : tensor<1x64xi1> -> tensor<64x64xi1>
  %hs = tile.splat %h : tensor<64x64x!tile.ptr<bf16>>
  %hp = tile.addptr %hs, %off : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %v = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %hp, %v, %mask : tensor<64x64x!tile.ptr<bf16>>
  return
}
