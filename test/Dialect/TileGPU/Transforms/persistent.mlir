// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tilegpu-persistent | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tilegpu-persistent -tilegpu-longest-first 2>/dev/null | FileCheck %s --check-prefix=LF

// The kernel's body becomes the body of the loop over virtual programs
// vid = program_id(0), + num_programs(0), ... < grid_x * grid_y * grid_z;
// the grid arrives as three i32 arguments after the kernel's own; program
// ids come from vid, num_programs from the grid.
// CHECK-LABEL: func.func @uniform
// CHECK-SAME:    %[[GX:[^:]*]]: i32 {tilegpu.program_grid = 0 : i32}
// CHECK-SAME:    %[[GY:[^:]*]]: i32 {tilegpu.program_grid = 1 : i32}
// CHECK-SAME:    %[[GZ:[^:]*]]: i32 {tilegpu.program_grid = 2 : i32}
// CHECK-SAME:    tilegpu.persistent
// CHECK:         %[[FIRST:.*]] = tile.program_id 0
// CHECK:         %[[COUNT:.*]] = tile.num_programs 0
// CHECK:         %[[XY:.*]] = arith.muli %[[GX]], %[[GY]] : i32
// CHECK:         %[[TOTAL:.*]] = arith.muli %[[XY]], %[[GZ]] : i32
// CHECK:         scf.for unsigned %[[VID:.*]] = %[[FIRST]] to %[[TOTAL]] step %[[COUNT]]
// CHECK:           %[[PID:.*]] = tilegpu.persistent_program_id %[[VID]], %[[GX]], %[[GY]] {axis = 0 : i32}
// CHECK:           tilegpu.persistent_program_id %[[VID]], %[[GX]], %[[GY]] {axis = 1 : i32}
// CHECK:           %[[ROW:.*]] = arith.muli %[[PID]], %c128
// CHECK:           arith.addi %[[ROW]], %[[GZ]] : i32
// CHECK:           scf.for
// CHECK:         } {tilegpu.persistent}
// CHECK-NEXT:    return
// expected-remark @below {{kernel made persistent}}
func.func @uniform(%n: i32, %out: !tile.ptr<i32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %head = tile.program_id 1
  %planes = tile.num_programs 2
  %row = arith.muli %pid, %c128 : i32
  %at = arith.addi %row, %planes : i32
  %sum = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %head) -> (i32) : i32 {
    %next = arith.addi %acc, %at : i32
    scf.yield %next : i32
  }
  %p = tile.addptr %out, %at : !tile.ptr<i32>, i32
  tile.store %p, %sum : !tile.ptr<i32>
  return
}

// -----

// Programs of unequal work (causal attention's first loop, [0, pid * 128)):
// a launch balances them (and tilegpu-longest-first orders them), a
// persistent kernel's fixed rounds would not.
// CHECK-LABEL: func.func @causal
// CHECK-NOT:     tilegpu.persistent
// LF-LABEL: func.func @causal
// LF-SAME:    tilegpu.longest_first = 8 : i32
// expected-remark @below {{kernel not made persistent: its programs run different numbers of iterations of a loop (written at line 60)}}
func.func @causal(%n: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id 0
  %lo = arith.muli %pid, %c128 : i32
  scf.for %i = %c0 to %lo step %c64 : i32 {
  }
  return
}

// -----

// Programs that may observe each other stay on their own CTAs.
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @atomics
// CHECK-NOT:     tilegpu.persistent
// expected-remark @below {{kernel not made persistent: it has atomics (one CTA runs several programs in turn: a program waiting for a later one would wait forever)}}
func.func @atomics(%x: !tile.ptr<f32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %one = arith.constant dense<1.0> : tensor<128xf32, #b1>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #b1>
  %old = tile.atomic_rmw %xs, %one {kind = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<128x!tile.ptr<f32>, #b1>
  return
}

// -----

// A kernel that prints stays one program per CTA: the print names the
// program by the CTA's indices.
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @prints
// CHECK-NOT:     tilegpu.persistent
// expected-remark @below {{kernel not made persistent: it prints or asserts (tl.device_print, tl.device_assert), whose output names the program by its CTA}}
func.func @prints(%x: !tile.ptr<f32>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #b1>
  %v = tile.load %xs : tensor<128x!tile.ptr<f32>, #b1>
  tile.print " x: " {hex = false, is_signed = array<i1: false>} %v : tensor<128xf32, #b1>
  return
}
