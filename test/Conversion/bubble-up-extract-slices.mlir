// RUN: tilec-opt %s -bubble-up-extract-slices -canonicalize | FileCheck %s

// The first column of a 64 x 32 address tile (what a load of contiguous
// rows reads): only a 64 x 1 tile of addresses is computed, from the
// matching slices of the generic's operands.
// CHECK-LABEL: func.func @first_column
// CHECK: %[[B:.*]] = tensor.extract_slice %arg1[0, 0] [1, 1] [1, 1] : tensor<1x32xi64> to tensor<1x1xi64>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%arg0, %[[B]] : tensor<64x1xi64>, tensor<1x1xi64>) outs(%{{.*}} : tensor<64x1xi64>)
// CHECK: return %[[R]] : tensor<64x1xi64>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @first_column(%rows: tensor<64x1xi64>, %cols: tensor<1x32xi64>) -> tensor<64x1xi64> {
  %e = tensor.empty() : tensor<64x32xi64>
  %a = linalg.generic {indexing_maps = [#row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rows, %cols : tensor<64x1xi64>, tensor<1x32xi64>) outs(%e : tensor<64x32xi64>) {
  ^bb0(%r: i64, %c: i64, %out: i64):
    %s = arith.addi %r, %c : i64
    linalg.yield %s : i64
  } -> tensor<64x32xi64>
  %c = tensor.extract_slice %a[0, 0] [64, 1] [1, 1] : tensor<64x32xi64> to tensor<64x1xi64>
  return %c : tensor<64x1xi64>
}
