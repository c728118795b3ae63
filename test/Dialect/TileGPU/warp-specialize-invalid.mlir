// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// setmaxnreg takes multiples of 8 in [24, 256].
func.func @odd_registers() attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  // expected-error @below {{'tilegpu.warp_specialize' op producerRegisters 42 is not a multiple of 8 in [24, 256] (setmaxnreg, PTX ISA)}}
  tilegpu.warp_specialize consumer {
  } producer {
  } {consumerRegisters = 232 : i32, producerRegisters = 42 : i32, producerWarps = 4 : i32}
  return
}

// -----

// The consumers change their registers as whole warpgroups.
func.func @two_warps() attributes {tile.kernel, tilegpu.num_warps = 2 : i32} {
  // expected-error @below {{'tilegpu.warp_specialize' op needs the consumers to be whole warpgroups, not 2 warps}}
  tilegpu.warp_specialize consumer {
  } producer {
  } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

// 8 consumer warps at 256 registers and a producer at 40: more than an SM has.
func.func @too_many_registers() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  // expected-error @below {{'tilegpu.warp_specialize' op asks for 70656 registers, more than the 65536 of an SM}}
  tilegpu.warp_specialize consumer {
  } producer {
  } {consumerRegisters = 256 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

// Turns order the two consumer warpgroups of a warp_specialize.
func.func @turn_outside() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  // expected-error @below {{'tilegpu.turn_wait' op must be in the consumer region of a tilegpu.warp_specialize}}
  tilegpu.turn_wait
  return
}

// -----

func.func @turn_in_producer() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  tilegpu.warp_specialize consumer {
  } producer {
    // expected-error @below {{'tilegpu.turn_pass' op must be in the consumer region of a tilegpu.warp_specialize}}
    tilegpu.turn_pass
  } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

func.func @turn_one_warpgroup() attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  tilegpu.warp_specialize consumer {
    // expected-error @below {{'tilegpu.turn_wait' op needs two consumer warpgroups, the tilegpu.warp_specialize has 4 consumer warps}}
    tilegpu.turn_wait
  } producer {
  } {consumerRegisters = 240 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

func.func @turn_third_warpgroup() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  tilegpu.warp_specialize consumer {
    // expected-error @below {{'tilegpu.turn_pass' op attribute 'warpgroup' failed to satisfy constraint}}
    tilegpu.turn_pass {warpgroup = 2 : i32}
  } producer {
  } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

// A ring handoff pairs the two regions of a warp_specialize.
func.func @handoff_outside() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  // expected-error @below {{'tilegpu.ring_handoff' op expects parent op 'tilegpu.warp_specialize'}}
  tilegpu.ring_handoff 0
  return
}

// -----

// Each region counts its handoffs 0, 1, ...
func.func @handoff_order() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  // expected-error @below {{'tilegpu.warp_specialize' op has 1 ring handoffs in the consumer region and 0 in the producer region}}
  tilegpu.warp_specialize consumer {
    tilegpu.ring_handoff 0
  } producer {
  } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}

// -----

func.func @handoff_skipped() attributes {tile.kernel, tilegpu.num_warps = 8 : i32} {
  tilegpu.warp_specialize consumer {
    tilegpu.ring_handoff 0
  } producer {
    // expected-error @below {{'tilegpu.ring_handoff' op is handoff 1 where its region's handoff 0 belongs (each region counts them 0, 1, ...)}}
    tilegpu.ring_handoff 1
  } {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}
  return
}
