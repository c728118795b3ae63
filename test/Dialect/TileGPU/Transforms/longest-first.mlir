// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-longest-first | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-longest-first=group=1 2>/dev/null | FileCheck %s --check-prefix=ONE

// Causal attention's first loop: [0, pid * 128), more iterations for a
// larger program_id(0); the diagonal loop [pid * 128, pid * 128 + 128)
// runs one whatever the program. The kernel launches longest first.
// CHECK-LABEL: func.func @causal
// CHECK-SAME:    tilegpu.longest_first = 8 : i32
// ONE-LABEL:   func.func @causal
// ONE-SAME:      tilegpu.longest_first = 1 : i32
func.func @causal(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %head = tile.program_id 1
  %lo = arith.muli %pid, %c128 : i32
  %hi = arith.addi %lo, %c128 : i32
  // expected-remark @below {{loop runs more iterations for larger program_id(0): the programs start longest first (program_id(0) counts down along the launch, program_id(1) cycles through groups of 8)}}
  scf.for %i = %c0 to %lo step %c64 : i32 {
  }
  scf.for %i = %lo to %hi step %c64 : i32 {
  }
  return
}

// -----

// min((pid + 1) * 128, n) / 64 iterations, in a loop over the heads: still
// never fewer for a larger program_id(0).
// CHECK-LABEL: func.func @clamped
// CHECK-SAME:    tilegpu.longest_first = 8 : i32
func.func @clamped(%n: i32, %heads: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %next = arith.addi %pid, %c1 : i32
  %end = arith.muli %next, %c128 : i32
  %hi = arith.minsi %end, %n : i32
  %steps = arith.divsi %hi, %c64 : i32
  scf.for %h = %c0 to %heads step %c1 : i32 {
    // expected-remark @below {{loop runs more iterations for larger program_id(0)}}
    scf.for %i = %c0 to %steps step %c1 : i32 {
    }
  }
  return
}

// -----

// Work that shrinks with program_id(0) (the backward's dK/dV loop from the
// diagonal to the end), work that grows and shrinks, work whose direction
// the analysis cannot tell (a product with a run-time value of unknown
// sign), a loop nested in one whose bounds depend on program_id(0), and
// work that does not depend on it (a GEMM): the launch order stays, with
// no remark.
// CHECK-LABEL: func.func @shrinks
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @grows_and_shrinks
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @unknown_sign
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @nested_in_varying
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @uniform
// CHECK-NOT:     longest_first
func.func @shrinks(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %start = arith.muli %pid, %c64 : i32
  scf.for %i = %start to %n step %c64 : i32 {
  }
  return
}
func.func @grows_and_shrinks(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %start = arith.muli %pid, %c64 : i32
  scf.for %i = %c0 to %start step %c64 : i32 {
  }
  scf.for %i = %start to %n step %c64 : i32 {
  }
  return
}
func.func @unknown_sign(%n: i32, %s: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %s : i32
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  return
}
func.func @nested_in_varying(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %start = arith.muli %pid, %c64 : i32
  %hi = arith.addi %start, %c64 : i32
  scf.for %j = %start to %hi step %c1 : i32 {
    scf.for %i = %c0 to %j step %c1 : i32 {
    }
  }
  return
}
func.func @uniform(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 1
  %end = arith.muli %pid, %c64 : i32
  scf.for %i = %c0 to %n step %c64 : i32 {
  }
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  return
}

// -----

// Programs that may observe each other keep the launch order (a program
// may wait for one the hardware starts earlier), with a remark; so do
// clustered kernels (their CTAs are consecutive programs of axis 0),
// without one.
// CHECK-LABEL: func.func @atomics
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @clustered
// CHECK-NOT:     longest_first
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @atomics(%x: !tile.ptr<f32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %c64 : i32
  // expected-remark @below {{loop runs more iterations for larger program_id(0), but the programs keep the launch order: it has atomics}}
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #b1>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b1>, tensor<128xi32, #b1>
  %one = arith.constant dense<1.0> : tensor<128xf32, #b1>
  %old = tile.atomic_rmw %xp, %one {kind = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<128x!tile.ptr<f32>, #b1>
  return
}
func.func @clustered(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %c64 : i32
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  return
}

// -----

// The other ways programs may observe each other: a volatile load, inline
// assembly, a while loop. Each keeps the launch order, with a remark.
// CHECK-LABEL: func.func @volatile_load
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @inline_asm
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @while_loop
// CHECK-NOT:     longest_first
func.func @volatile_load(%flag: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %c64 : i32
  // expected-remark @below {{but the programs keep the launch order: it has volatile loads}}
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  %v = tile.load %flag {isVolatile} : !tile.ptr<i32>
  return
}
func.func @inline_asm(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %c64 : i32
  // expected-remark @below {{but the programs keep the launch order: it has inline assembly}}
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  %asm = tile.inline_asm_elementwise "mov.u32 $0, %ctaid.x;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %n : i32 -> i32
  return
}
func.func @while_loop(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %c64 : i32
  // expected-remark @below {{but the programs keep the launch order: it has a while loop}}
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  %w = scf.while (%x = %c0) : (i32) -> i32 {
    %go = arith.cmpi slt, %x, %n : i32
    scf.condition(%go) %x : i32
  } do {
  ^bb0(%x: i32):
    %y = arith.addi %x, %c64 : i32
    scf.yield %y : i32
  }
  return
}

// -----

// Bounds the analysis does not trust: an unsigned loop (its bounds compare
// as unsigned, not monotone where they cross zero), unsigned arithmetic
// (a division, a shift, a min, an extension), and a slope so large that
// k * pid may wrap in 32 bits. None is taken, silently.
// CHECK-LABEL: func.func @unsigned_loop
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @unsigned_divui
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @unsigned_shrui
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @unsigned_minui
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @unsigned_extui_trunci
// CHECK-NOT:     longest_first
// CHECK-LABEL: func.func @wrapping_slope
// CHECK-NOT:     longest_first
func.func @unsigned_loop(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %p64 = arith.muli %pid, %c64 : i32
  %end = arith.subi %p64, %c64 : i32
  scf.for unsigned %i = %c0 to %end step %c64 : i32 {
  }
  return
}
func.func @unsigned_divui(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %p64 = arith.muli %pid, %c64 : i32
  %a = arith.divui %p64, %c2 : i32
  scf.for %i = %c0 to %a step %c64 : i32 {
  }
  return
}
func.func @unsigned_shrui(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %p64 = arith.muli %pid, %c64 : i32
  %a = arith.shrui %p64, %c2 : i32
  scf.for %i = %c0 to %a step %c64 : i32 {
  }
  return
}
func.func @unsigned_minui(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %p64 = arith.muli %pid, %c64 : i32
  %a = arith.minui %p64, %n : i32
  scf.for %i = %c0 to %a step %c64 : i32 {
  }
  return
}
func.func @unsigned_extui_trunci(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %p64 = arith.muli %pid, %c64 : i32
  %d = arith.extui %p64 : i32 to i64
  %a = arith.trunci %d : i64 to i32
  scf.for %i = %c0 to %a step %c64 : i32 {
  }
  return
}
func.func @wrapping_slope(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %big = arith.constant 1073741824 : i32
  %pid = tile.program_id 0
  %end = arith.muli %pid, %big : i32
  scf.for %i = %c0 to %end step %c64 : i32 {
  }
  return
}
