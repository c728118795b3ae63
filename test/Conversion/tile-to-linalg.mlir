// RUN: tilec-opt %s -split-input-file -convert-tile-to-linalg | FileCheck %s

// Pointers become i64 addresses; six i32 grid arguments are appended and
// program_id / num_programs read them.
// CHECK-LABEL: func.func @grid_arguments
// CHECK-SAME: (%[[X:.*]]: i64, %[[N:.*]]: i32, %[[P0:.*]]: i32, %[[P1:.*]]: i32, %[[P2:.*]]: i32, %[[N0:.*]]: i32, %[[N1:.*]]: i32, %[[N2:.*]]: i32)
// CHECK-NOT: tile.divisibility
// CHECK: return %[[P1]], %[[N2]] : i32, i32
func.func @grid_arguments(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) -> (i32, i32) attributes {tile.kernel} {
  %pid = tile.program_id 1
  %num = tile.num_programs 2
  return %pid, %num : i32, i32
}

// -----

// Shape ops are generics whose indexing maps do the work: a broadcast
// dimension reads index 0, expand_dims drops the new dimension, trans
// permutes; reshape is a view.
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$DROP0:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$BCAST0:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @views
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID1]]], iterator_types = ["parallel"]}
// CHECK:   linalg.index 0
// CHECK:   arith.constant 16 : i32
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[$DROP0]], #[[$ID2]]], {{.*}} ins(%[[R]] : tensor<64xi32>) outs(%{{.*}} : tensor<1x64xi32>)
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[$BCAST0]], #[[$ID2]]], {{.*}} ins(%[[E]] : tensor<1x64xi32>) outs(%{{.*}} : tensor<4x64xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[$T]], #[[$ID2]]], {{.*}} ins(%[[B]] : tensor<4x64xi32>) outs(%{{.*}} : tensor<64x4xi32>)
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0, 1]] : tensor<4x64xi32> into tensor<256xi32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID1]]], {{.*}} outs(
// CHECK-NEXT: ^bb0(%{{.*}}: i32):
// CHECK-NEXT:   linalg.yield %arg0 : i32
func.func @views(%s: i32) -> (tensor<64xi32>, tensor<4x64xi32>, tensor<64x4xi32>, tensor<256xi32>) {
  %r = tile.make_range {end = 80 : i32, start = 16 : i32} : tensor<64xi32>
  %e = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %b = tile.broadcast %e : tensor<1x64xi32> -> tensor<4x64xi32>
  %t = tile.trans %b {order = array<i32: 1, 0>} : tensor<4x64xi32> -> tensor<64x4xi32>
  %f = tile.reshape %b : tensor<4x64xi32> -> tensor<256xi32>
  %sp = tile.splat %s : tensor<64xi32>
  return %sp, %b, %t, %f : tensor<64xi32>, tensor<4x64xi32>, tensor<64x4xi32>, tensor<256xi32>
}

// -----

// addptr scales by the element size (2 bytes for f16). The addresses are
// contiguous (tile-axis-info), so each row is addressed from its first
// element (a slice of the first column, which bubble-up-extract-slices
// later pushes into the generic computing the addresses). The mask is read as bytes (an i1 buffer is one byte per element,
// which LLVM cannot load as a vector of i1). A masked load of contiguous
// rows reads 64 bytes at a time: llvm.intr.masked.load (only the enabled
// lanes touch memory) with `other` as the pass-through value. A masked
// store is a loop over the row that stores only where the mask is true
// (LLVM emits masked vector stores).
// CHECK-LABEL: func.func @masked_load_store
// CHECK: %[[PTRS:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<128xi64>, tensor<128xi32>)
// CHECK:   arith.extsi %{{.*}} : i32 to i64
// CHECK:   arith.constant 2 : i64
// CHECK:   arith.muli
// CHECK:   arith.addi
// CHECK: %[[COL:.*]] = tensor.extract_slice %[[PTRS]][0] [1] [1] : tensor<128xi64> to tensor<1xi64>
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<128xi1>) outs(%{{.*}} : tensor<128xi8>)
// CHECK:   arith.extui %{{.*}} : i1 to i8
// CHECK: %[[FIRST:.*]] = tensor.extract %[[COL]][%{{.*}}] : tensor<1xi64>
// CHECK: %[[ROW:.*]] = llvm.inttoptr %[[FIRST]] : i64 to !llvm.ptr
// CHECK: %[[LOADED:.*]] = scf.for %[[I:[a-z0-9_]+]] = %c0{{.*}} to %c128{{.*}} step %c32{{.*}} iter_args(%[[T:[a-z0-9_]+]] = %{{.*}}) -> (tensor<128xf16>)
// CHECK:   %[[J:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:   %[[P:.*]] = llvm.getelementptr %[[ROW]][%[[J]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK:   %[[MB:.*]] = vector.transfer_read %[[MASK]][%[[I]]], %{{.*}} {in_bounds = [true]} : tensor<128xi8>, vector<32xi8>
// CHECK:   %[[M:.*]] = arith.cmpi ne, %[[MB]], %{{.*}} : vector<32xi8>
// CHECK:   %[[OTHER:.*]] = vector.transfer_read %{{.*}}[%[[I]]], %{{.*}} {in_bounds = [true]} : tensor<128xf16>, vector<32xf16>
// CHECK:   %[[V:.*]] = llvm.intr.masked.load %[[P]], %[[M]], %[[OTHER]] {alignment = 2 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xf16>) -> vector<32xf16>
// CHECK:   %[[W:.*]] = vector.transfer_write %[[V]], %[[T]][%[[I]]] {in_bounds = [true]} : vector<32xf16>, tensor<128xf16>
// CHECK:   scf.yield %[[W]] : tensor<128xf16>
// CHECK: scf.for
// CHECK:   %[[SP:.*]] = llvm.getelementptr
// CHECK:   %[[SV:.*]] = tensor.extract %[[LOADED]]
// CHECK:   %[[SMB:.*]] = tensor.extract %{{.*}} : tensor<128xi8>
// CHECK:   %[[SM:.*]] = arith.cmpi ne, %[[SMB]], %{{.*}} : i8
// CHECK:   scf.if %[[SM]] {
// CHECK:     llvm.store %[[SV]], %[[SP]] : f16, !llvm.ptr
func.func @masked_load_store(%x: !tile.ptr<f16>, %z: !tile.ptr<f16>, %n: i32) {
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %other = arith.constant dense<1.0> : tensor<128xf16>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  %v = tile.load %xp, %m, %other : tensor<128x!tile.ptr<f16>>
  %zs = tile.splat %z : tensor<128x!tile.ptr<f16>>
  %zp = tile.addptr %zs, %r : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  tile.store %zp, %v, %m : tensor<128x!tile.ptr<f16>>
  return
}

// -----

// Scalar accesses; i1 is a byte in memory (nonzero is true), fp8 is stored
// through i8.
// CHECK-LABEL: func.func @scalar_access
// CHECK: %[[A:.*]] = arith.addi %arg0, %arg2 : i64
// CHECK: %[[P:.*]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr
// CHECK: %[[B:.*]] = llvm.load %[[P]] : !llvm.ptr -> i8
// CHECK: %[[T:.*]] = arith.cmpi ne, %[[B]], %{{.*}} : i8
// CHECK: %[[Q:.*]] = llvm.inttoptr %arg1 : i64 to !llvm.ptr
// CHECK: %[[C:.*]] = arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: llvm.store %[[C]], %[[Q]] : i8, !llvm.ptr
// CHECK: return %[[T]] : i1
func.func @scalar_access(%x: !tile.ptr<i1>, %z: !tile.ptr<f8E4M3FN>, %o: i64) -> i1 {
  %p = tile.addptr %x, %o : !tile.ptr<i1>, i64
  %b = tile.load %p : !tile.ptr<i1>
  %c = arith.constant 1.0 : f8E4M3FN
  tile.store %z, %c : !tile.ptr<f8E4M3FN>
  return %b : i1
}

// -----

// dot: the operands are widened to the accumulator type once, then a
// register-blocked micro-kernel: blocks of 8 rows x 16 columns (N is 16,
// below dot-tile-n), each row of the block a loop-carried vector<16xf32>
// read once; the k loop reads a row of B and adds broadcast(a[i, k]) * row
// with one fma per element, in order of k; the rows are written back once.
// CHECK-LABEL: func.func @dot
// CHECK: %[[AW:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<64x32xf16>) outs(%{{.*}} : tensor<64x32xf32>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK: %[[BW:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32x16xf16>) outs(%{{.*}} : tensor<32x16xf32>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK: %[[R:.*]] = scf.for %[[I:[a-z0-9_]+]] = %c0{{.*}} to %c64{{.*}} step %c8{{.*}} iter_args(%[[CI:[a-z0-9_]+]] = %arg2) -> (tensor<64x16xf32>)
// CHECK:   scf.for %[[J:[a-z0-9_]+]] = %c0{{.*}} to %c16{{.*}} step %c16{{.*}} iter_args(%[[CJ:[a-z0-9_]+]] = %[[CI]]) -> (tensor<64x16xf32>)
// CHECK:     %[[ACC0:.*]] = vector.transfer_read %[[CJ]][%[[I]], %[[J]]], %{{.*}} {in_bounds = [true]} : tensor<64x16xf32>, vector<16xf32>
// CHECK:     %[[I1:.*]] = arith.addi %[[I]], %c1{{.*}} : index
// CHECK:     %[[ACC1:.*]] = vector.transfer_read %[[CJ]][%[[I1]], %[[J]]]
// CHECK-COUNT-6: vector.transfer_read %[[CJ]]
// CHECK:     %[[K:.*]]:8 = scf.for %[[KK:[a-z0-9_]+]] = %c0{{.*}} to %c32{{.*}} step %c1{{.*}} iter_args(%[[X0:[a-z0-9_]+]] = %[[ACC0]], %[[X1:[a-z0-9_]+]] = %[[ACC1]], {{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:       %[[BROW:.*]] = vector.transfer_read %[[BW]][%[[KK]], %[[J]]], %{{.*}} {in_bounds = [true]} : tensor<32x16xf32>, vector<16xf32>
// CHECK:       %[[A0:.*]] = tensor.extract %[[AW]][%[[I]], %[[KK]]] : tensor<64x32xf32>
// CHECK:       %[[S0:.*]] = vector.broadcast %[[A0]] : f32 to vector<16xf32>
// CHECK:       %[[F0:.*]] = math.fma %[[S0]], %[[BROW]], %[[X0]] : vector<16xf32>
// CHECK:       %[[A1:.*]] = tensor.extract %[[AW]][%[[I1]], %[[KK]]] : tensor<64x32xf32>
// CHECK:       %[[S1:.*]] = vector.broadcast %[[A1]] : f32 to vector<16xf32>
// CHECK:       %[[F1:.*]] = math.fma %[[S1]], %[[BROW]], %[[X1]] : vector<16xf32>
// CHECK-COUNT-6: math.fma
// CHECK:       scf.yield %[[F0]], %[[F1]], {{.*}} : vector<16xf32>
// CHECK:     %[[W0:.*]] = vector.transfer_write %[[K]]#0, %[[CJ]][%[[I]], %[[J]]] {in_bounds = [true]} : vector<16xf32>, tensor<64x16xf32>
// CHECK:     %[[W1:.*]] = vector.transfer_write %[[K]]#1, %[[W0]][%[[I1]], %[[J]]]
// CHECK-COUNT-5: vector.transfer_write
// CHECK:     %[[W7:.*]] = vector.transfer_write %[[K]]#7
// CHECK:     scf.yield %[[W7]] : tensor<64x16xf32>
// CHECK: return %[[R]] : tensor<64x16xf32>
func.func @dot(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  return %d : tensor<64x16xf32>
}

// -----

// The accumulator starts as column 0; columns 1..31 are folded in by the
// combine region (accumulated value = the generic's output), whose float ops
// may be reassociated (the region is associative and commutative).
// CHECK-DAG: #[[$COL0:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_rows
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$COL0]], #{{.*}}], iterator_types = ["parallel"]} ins(%arg0 : tensor<8x32xf32>)
// CHECK: %[[REST:.*]] = tensor.extract_slice %arg0[0, 1] [8, 31] [1, 1] : tensor<8x32xf32> to tensor<8x31xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[REST]] : tensor<8x31xf32>) outs(%[[INIT]] : tensor<8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK:   arith.addf %[[OUT]], %[[IN]] fastmath<reassoc> : f32
func.func @reduce_rows(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  %s = tile.reduce %x {axis = 1 : i32} : (tensor<8x32xf32>) -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }
  return %s : tensor<8xf32>
}

// -----

// Two sources (argmax): two accumulators, and a 1-d reduction gives
// scalars.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}}, %{{.*}} : tensor<31xf32>, tensor<31xi32>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<i32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %[[I:.*]]: i32, %[[AV:.*]]: f32, %[[AI:.*]]: i32):
// CHECK:   %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[AV]] {{.*}}: f32
// CHECK:   arith.select %[[GT]], %[[I]], %[[AI]] : i32
// CHECK: tensor.extract %[[R]]#0[] : tensor<f32>
// CHECK: tensor.extract %[[R]]#1[] : tensor<i32>
func.func @argmax(%x: tensor<32xf32>, %i: tensor<32xi32>) -> (f32, i32) {
  %v, %j = tile.reduce %x, %i {axis = 0 : i32} : (tensor<32xf32>, tensor<32xi32>) -> (f32, i32) {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %m = arith.select %gt, %b, %a : f32
    %mi = arith.select %gt, %bi, %ai : i32
    tile.reduce.return %m, %mi : f32, i32
  }
  return %v, %j : f32, i32
}

// -----

// Pointer tiles through loops and selects are address tiles.
// CHECK-LABEL: func.func @pointer_loop
// CHECK-SAME: -> tensor<16xi64>
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16xi64>)
// CHECK: arith.select %arg2, %[[L]], %{{.*}} : tensor<16xi1>, tensor<16xi64>
func.func @pointer_loop(%x: !tile.ptr<f32>, %n: i32, %c: tensor<16xi1>) -> tensor<16x!tile.ptr<f32>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xs = tile.splat %x : tensor<16x!tile.ptr<f32>>
  %r = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %p = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %xs) -> (tensor<16x!tile.ptr<f32>>) : i32 {
    %q = tile.addptr %acc, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    scf.yield %q : tensor<16x!tile.ptr<f32>>
  }
  %s = arith.select %c, %p, %xs : tensor<16xi1>, tensor<16x!tile.ptr<f32>>
  return %s : tensor<16x!tile.ptr<f32>>
}

// -----

// Addresses that are not contiguous (a gather): each element's address is
// read from the address tile.
// CHECK-LABEL: func.func @gather_load
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args
// CHECK:   scf.for %[[J:.*]] = {{.*}} iter_args
// CHECK:     %[[A:.*]] = tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<4x8xi64>
// CHECK:     %[[P:.*]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr
// CHECK:     llvm.load %[[P]] : !llvm.ptr -> f32
func.func @gather_load(%x: !tile.ptr<f32>, %offsets: tensor<4x8xi32>) -> tensor<4x8xf32> {
  %xs = tile.splat %x : tensor<4x8x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offsets : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xi32>
  %v = tile.load %p : tensor<4x8x!tile.ptr<f32>>
  return %v : tensor<4x8xf32>
}
