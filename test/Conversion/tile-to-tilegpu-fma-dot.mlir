// RUN: tilec-opt %s -convert-tile-to-tilegpu="num-warps=4 use-wgmma=false use-mma=false" -verify-diagnostics | FileCheck %s

// Without tensor cores (neither wgmma nor mma.sync) the accumulator is blocked for register reuse in the FMA
// loop: each thread holds 4 rows x 8 columns of the 64x64 tile.
// CHECK: #[[$ACC:.*]] = #tilegpu.blocked<sizePerThread = [4, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @dot_accumulator
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$ACC]]>
func.func @dot_accumulator(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{tl.dot runs on CUDA cores (FMA), not wgmma: disabled (--disable-wgmma); not mma.sync: disabled (--disable-mma)}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
