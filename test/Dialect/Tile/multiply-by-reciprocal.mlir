// RUN: tilec-opt %s -tile-multiply-by-reciprocal | FileCheck %s

// Attention's epilogue, acc / l_i[:, None]: one division a row, then a
// product per element, both keeping the division's arcp.
// CHECK-LABEL: func.func @row_divisor
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<128x64xf32>, %[[L:[a-z0-9]+]]: tensor<128xf32>)
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<128x1xf32>
// CHECK: %[[E:.*]] = tile.expand_dims %[[L]]
// CHECK: %[[R:.*]] = arith.divf %[[ONE]], %[[E]] fastmath<arcp> : tensor<128x1xf32>
// CHECK: %[[B:.*]] = tile.broadcast %[[R]] : tensor<128x1xf32> -> tensor<128x64xf32>
// CHECK: %[[Q:.*]] = arith.mulf %[[X]], %[[B]] fastmath<arcp> : tensor<128x64xf32>
// CHECK-NOT: arith.divf
// CHECK: return %[[Q]]
func.func @row_divisor(%x: tensor<128x64xf32>, %l: tensor<128xf32>) -> tensor<128x64xf32> {
  %e = tile.expand_dims %l {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %b = tile.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  %q = arith.divf %x, %b fastmath<arcp> : tensor<128x64xf32>
  return %q : tensor<128x64xf32>
}

// A column divisor (d[None, :]); the reciprocal keeps only arcp (with
// ninf, 1 / d of a subnormal d would be poison), the product every flag.
// CHECK-LABEL: func.func @column_divisor
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<1x32xf32>
// CHECK: tile.broadcast %{{.*}} : tensor<1x32xf32> -> tensor<16x32xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<nnan,ninf,arcp> : tensor<16x32xf32>
func.func @column_divisor(%x: tensor<16x32xf32>, %d: tensor<1x32xf32>) -> tensor<16x32xf32> {
  %b = tile.broadcast %d : tensor<1x32xf32> -> tensor<16x32xf32>
  %q = arith.divf %x, %b fastmath<nnan,ninf,arcp> : tensor<16x32xf32>
  return %q : tensor<16x32xf32>
}

// Left alone: f64 and fp8 (the frontend marks their `/` arcp too; 1 / d
// would round where the division does not, or in 3 mantissa bits).
// CHECK-LABEL: func.func @other_types
// CHECK-NOT: arith.mulf
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<16x32xf64>
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<16x32xf8E4M3FN>
// CHECK-NOT: arith.mulf
func.func @other_types(%x: tensor<16x32xf64>, %d: tensor<16x1xf64>, %y: tensor<16x32xf8E4M3FN>, %e: tensor<16x1xf8E4M3FN>) -> (tensor<16x32xf64>, tensor<16x32xf8E4M3FN>) {
  %b = tile.broadcast %d : tensor<16x1xf64> -> tensor<16x32xf64>
  %q = arith.divf %x, %b fastmath<arcp> : tensor<16x32xf64>
  %c = tile.broadcast %e : tensor<16x1xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
  %r = arith.divf %y, %c fastmath<arcp> : tensor<16x32xf8E4M3FN>
  return %q, %r : tensor<16x32xf64>, tensor<16x32xf8E4M3FN>
}

// Left alone: an IEEE division (no arcp: tl.div_rn, f64), a divisor that
// is not a broadcast, and a broadcast divided into (the dividend).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: arith.mulf
// CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<128x64xf32>
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<128x64xf32>
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : tensor<128x64xf32>
// CHECK-NOT: arith.mulf
func.func @left_alone(%x: tensor<128x64xf32>, %y: tensor<128x64xf32>, %l: tensor<128x1xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) {
  %b = tile.broadcast %l : tensor<128x1xf32> -> tensor<128x64xf32>
  %ieee = arith.divf %x, %b : tensor<128x64xf32>
  %plain = arith.divf %x, %y fastmath<arcp> : tensor<128x64xf32>
  %inverse = arith.divf %b, %x fastmath<arcp> : tensor<128x64xf32>
  return %ieee, %plain, %inverse : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
}
