// An f32 tl.atomic_add whose old values nobody reads, relaxed or release,
// is a `red` (no result register, nothing to wait for); with
// vector-reductions (sm_90, PTX 8.1), a run of 2 or 4 contiguous, aligned
// f32 a thread holds is one red.global.add.v2/.v4.f32.
// RUN: tilec-opt %s -split-input-file -tilegpu-allocate-shared -convert-tilegpu-to-llvm | FileCheck %s --check-prefixes=CHECK,SCALAR
// RUN: tilec-opt %s -split-input-file -tilegpu-allocate-shared "-convert-tilegpu-to-llvm=vector-reductions=true" | FileCheck %s --check-prefixes=CHECK,VECTOR

// Four contiguous elements a thread, 16-byte aligned (the pointer's
// divisibility, a range from 0), no mask: one v4 reduction, or four
// scalar ones.
#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: llvm.func @relaxed_run
// VECTOR: "red.relaxed.gpu.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r"
// VECTOR-NOT: red.relaxed
// SCALAR-COUNT-4: "red.relaxed.gpu.global.add.f32 [$0], $1;", "l,r"
// SCALAR-NOT: red.relaxed
// CHECK-NOT: atom.
// CHECK: llvm.return
func.func @relaxed_run(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %v: f32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b4>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b4>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
  %vs = tile.splat %v : tensor<512xf32, #b4>
  %old = tile.atomic_rmw %xp, %vs {kind = "fadd", sem = "relaxed", scope = "gpu"} : tensor<512x!tile.ptr<f32>, #b4>
  return
}

// -----

// Read old values, or an acq_rel add (red has no acquire), stay `atom`.
#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: llvm.func @not_reductions
// CHECK-COUNT-4: atom.acq_rel.gpu.global.add.f32
// CHECK-COUNT-4: atom.relaxed.gpu.global.add.f32
// CHECK-NOT: red.
// CHECK: llvm.return
func.func @not_reductions(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %v: f32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b4>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b4>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
  %vs = tile.splat %v : tensor<512xf32, #b4>
  %a = tile.atomic_rmw %xp, %vs {kind = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<512x!tile.ptr<f32>, #b4>
  %b = tile.atomic_rmw %xp, %vs {kind = "fadd", sem = "relaxed", scope = "gpu"} : tensor<512x!tile.ptr<f32>, #b4>
  tile.store %xp, %b : tensor<512x!tile.ptr<f32>, #b4>
  return
}
