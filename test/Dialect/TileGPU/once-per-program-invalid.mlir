// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// `oncePerProgram` (tilegpu-pipeline's mark on a persistent kernel's
// once-per-program copy, its expect and its buffer's release wait) only
// directly in the loop over programs.
func.func @outside_the_loop_over_programs(%d: !tilegpu.tma_desc<tensor<128x64xf16>, 2>, %n: i32)
    attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.persistent} {
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %q = tilegpu.local_alloc : !tilegpu.smem<1 x tensor<128x64xf16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-error @below {{'tilegpu.tma_load' op with 'oncePerProgram' must be directly in a persistent kernel's loop over programs}}
    tilegpu.tma_load %d[%i, %c0], %q[%c0], %bars[%c0] {oncePerProgram} : !tilegpu.tma_desc<tensor<128x64xf16>, 2>, !tilegpu.smem<1 x tensor<128x64xf16>>, !tilegpu.mbarriers<1>
  }
  return
}

// -----

// The release wait is the leader's.
func.func @not_the_leader(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.persistent} {
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %vid = %c0 to %n step %c1 : i32 {
    // expected-error @below {{'tilegpu.mbarrier_wait' op with 'oncePerProgram' must be the leader's wait}}
    tilegpu.mbarrier_wait %bars[%c0], %c0 {oncePerProgram} : !tilegpu.mbarriers<1>
  } {tilegpu.persistent}
  return
}

// -----

// Once per program means every program: no predicate.
func.func @predicated(%n: i32, %p: i1) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.persistent} {
  %bars = tilegpu.mbarrier_alloc : !tilegpu.mbarriers<1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %vid = %c0 to %n step %c1 : i32 {
    // expected-error @below {{'tilegpu.mbarrier_expect' op with 'oncePerProgram' takes no predicate}}
    tilegpu.mbarrier_expect %bars[%c0], 16384 if %p {oncePerProgram} : !tilegpu.mbarriers<1>
  } {tilegpu.persistent}
  return
}
