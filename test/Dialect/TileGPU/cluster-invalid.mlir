// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// A multicast copy is shared out box by box: a one-box block (64 f16, one
// 128-byte swizzle row) cannot go to two CTAs.
func.func @one_box(%desc: !tilegpu.tma_desc<tensor<64x64xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc : <1 x tensor<64x64xf16>>
  %bars = tilegpu.mbarrier_alloc : <1>
  // expected-error @below {{'tilegpu.tma_load' op multicasts a block of 1 box(es) to 2 CTAs, which must share them out evenly}}
  tilegpu.tma_load %desc[%c0, %c0], %ring[%c0], %bars[%c0] {multicast = 2 : i32} : <tensor<64x64xf16>, 2>, <1 x tensor<64x64xf16>>, <1>
  return
}

// -----

// A cluster has at most 8 CTAs (the portable size), in three dimensions.
// expected-error @below {{'func.func' op 'tilegpu.cluster_dims' must be three positive integers (at most 8 CTAs in all) on a function}}
func.func @too_big() attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 4, 4, 1>} {
  return
}

// -----

// expected-error @below {{'func.func' op 'tilegpu.cluster_dims' must be three positive integers (at most 8 CTAs in all) on a function}}
func.func @two_dims() attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 2, 1>} {
  return
}

// -----

// A release into more CTAs than a cluster holds.
func.func @release(%i: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 2, 1, 1>} {
  %bars = tilegpu.mbarrier_alloc : <3>
  // expected-error @below {{'tilegpu.mbarrier_arrive' op attribute 'clusterCTAs' failed to satisfy constraint}}
  tilegpu.mbarrier_arrive %bars[%i] {clusterCTAs = 16 : i32} : <3>
  return
}

// -----

// Two CTAs of a 2-box block (128 f16): fine.
func.func @two_boxes(%desc: !tilegpu.tma_desc<tensor<64x128xf16>, 2>) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc : <1 x tensor<64x128xf16>>
  %bars = tilegpu.mbarrier_alloc : <1>
  tilegpu.tma_load %desc[%c0, %c0], %ring[%c0], %bars[%c0] {multicast = 2 : i32} : <tensor<64x128xf16>, 2>, <1 x tensor<64x128xf16>>, <1>
  return
}

// -----

// Multicast and cluster-wide releases only in a kernel launched in
// clusters.
func.func @not_clustered(%desc: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %i: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc : <1 x tensor<64x128xf16>>
  %bars = tilegpu.mbarrier_alloc : <1>
  // expected-error @below {{'tilegpu.tma_load' op multicasts in a kernel without 'tilegpu.cluster_dims'}}
  tilegpu.tma_load %desc[%c0, %c0], %ring[%c0], %bars[%c0] {multicast = 2 : i32} : <tensor<64x128xf16>, 2>, <1 x tensor<64x128xf16>>, <1>
  return
}

// -----

func.func @not_clustered_release(%i: i32) attributes {tile.kernel, tilegpu.num_warps = 4 : i32} {
  %bars = tilegpu.mbarrier_alloc : <3>
  // expected-error @below {{'tilegpu.mbarrier_arrive' op arrives across a cluster in a kernel without 'tilegpu.cluster_dims'}}
  tilegpu.mbarrier_arrive %bars[%i] {clusterCTAs = 2 : i32} : <3>
  return
}

// -----

func.func @multicast_if_alone(%desc: !tilegpu.tma_desc<tensor<64x128xf16>, 2>, %p: i1) attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.cluster_dims = array<i32: 2, 1, 1>} {
  %c0 = arith.constant 0 : i32
  %ring = tilegpu.local_alloc : <1 x tensor<64x128xf16>>
  %bars = tilegpu.mbarrier_alloc : <1>
  // expected-error @below {{'tilegpu.tma_load' op has 'multicast_if' without 'multicast'}}
  tilegpu.tma_load %desc[%c0, %c0], %ring[%c0], %bars[%c0] multicast_if %p : <tensor<64x128xf16>, 2>, <1 x tensor<64x128xf16>>, <1>
  return
}

// -----

// tilegpu.longest_first (tilegpu-longest-first) is a positive i32 ...
// expected-error @below {{'func.func' op 'tilegpu.longest_first' must be a positive i32 on a function}}
func.func @longest_first_zero() attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.longest_first = 0 : i32} {
  return
}

// -----

// ... and never on a clustered kernel, whose CTAs must be consecutive
// programs of axis 0.
// expected-error @below {{'func.func' op 'tilegpu.longest_first' and 'tilegpu.cluster_dims' exclude each other}}
func.func @longest_first_clustered() attributes {tile.kernel, tilegpu.num_warps = 4 : i32, tilegpu.longest_first = 8 : i32, tilegpu.cluster_dims = array<i32: 2, 1, 1>} {
  return
}
