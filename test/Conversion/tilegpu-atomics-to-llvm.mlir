// RUN: tilec-opt %s -split-input-file -tilegpu-allocate-shared -convert-tilegpu-to-llvm | FileCheck %s

// 128 elements on 128 threads: no replication, so each thread applies its
// element predicated by the mask only, with the op's sem and scope; the
// unused result needs no exchange, and an unused f32 add is a `red`
// (tilegpu-reductions-to-llvm.mlir has more).
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: llvm.func @fadd
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$0 red.release.cta.global.add.f32 [$1], $2;", "b,l,r"
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @fadd(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %nt = tile.splat %n : tensor<128xi32, #b1>
  %m = arith.cmpi slt, %r, %nt : tensor<128xi32, #b1>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #b1>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b1>, tensor<128xi32, #b1>
  %one = arith.constant dense<1.0> : tensor<128xf32, #b1>
  %old = tile.atomic_rmw %xp, %one, %m {kind = "fadd", sem = "release", scope = "cta"} : tensor<128x!tile.ptr<f32>, #b1>
  return
}

// -----

// 32 elements on 128 threads: warps 1-3 replicate warp 0, so only warp 0
// applies the max (f32 max is signed max for non-negative values and
// unsigned min for negative ones), and the used old values go to the
// other warps through shared memory (only the owners write their slot).
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: llvm.func @fmax_replicated
// CHECK: "mov.b32 $0, 0;\0A\09@$1 atom.acq_rel.gpu.global.max.s32 $0, [$2], $3;"
// CHECK: "mov.b32 $0, 0;\0A\09@$1 atom.acq_rel.gpu.global.min.u32 $0, [$2], $3;"
// CHECK: arith.select
// CHECK: nvvm.barrier0
// CHECK: %[[OWNER:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: scf.if %[[OWNER]] {
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: }
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.return
func.func @fmax_replicated(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #b1>
  %xs = tile.splat %x : tensor<32x!tile.ptr<f32>, #b1>
  %xp = tile.addptr %xs, %r : tensor<32x!tile.ptr<f32>, #b1>, tensor<32xi32, #b1>
  %v = arith.sitofp %r : tensor<32xi32, #b1> to tensor<32xf32, #b1>
  %old = tile.atomic_rmw %xp, %v {kind = "fmax", sem = "acq_rel", scope = "gpu"} : tensor<32x!tile.ptr<f32>, #b1>
  %ys = tile.splat %y : tensor<32x!tile.ptr<f32>, #b1>
  %yp = tile.addptr %ys, %r : tensor<32x!tile.ptr<f32>, #b1>, tensor<32xi32, #b1>
  tile.store %yp, %old : tensor<32x!tile.ptr<f32>, #b1>
  return
}

// -----

// A scalar pointer: thread 0 applies it; 16-bit integer add has no PTX
// instruction: an LLVM atomicrmw (NVPTX expands it into a CAS loop) under
// scf.if; the old value is shared from thread 0 through shared memory.
// CHECK-LABEL: llvm.func @scalar_i16
// CHECK: scf.if
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i16
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i16, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i16
func.func @scalar_i16(%x: !tile.ptr<i16>, %y: !tile.ptr<i16>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %one = arith.constant 1 : i16
  %old = tile.atomic_rmw %x, %one {kind = "add", sem = "relaxed", scope = "gpu"} : !tile.ptr<i16>
  tile.store %y, %old : !tile.ptr<i16>
  return
}

// -----

// CHECK-LABEL: llvm.func @cas
// CHECK: "atom.acq_rel.sys.global.cas.b64 $0, [$1], $2, $3;", "=l,l,l,l"
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @cas(%x: !tile.ptr<i64>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %xs = tile.splat %x : tensor<128x!tile.ptr<i64>, #b1>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<i64>, #b1>, tensor<128xi32, #b1>
  %c = arith.constant dense<0> : tensor<128xi64, #b1>
  %v = arith.constant dense<7> : tensor<128xi64, #b1>
  %old = tile.atomic_cas %xp, %c, %v {sem = "acq_rel", scope = "sys"} : tensor<128x!tile.ptr<i64>, #b1>
  return
}
