// RUN: tilec-opt %s -split-input-file -convert-tilegpu-to-llvm -verify-diagnostics

// A kernel whose warp count is missing is an error at the kernel, never a
// default of 4 warps (the launch would disagree with the layouts).
// expected-error @+1 {{a kernel without 'tilegpu.num_warps' reached convert-tilegpu-to-llvm}}
func.func @no_num_warps(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  return
}

