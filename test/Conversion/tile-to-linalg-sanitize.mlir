// RUN: tilec-opt %s -convert-tile-to-linalg="sanitize" | FileCheck %s

// Every access is checked first: the hook gets the address, the element
// size, load (0) or store (1), the element's row-major index and a
// description of the site; a refused access is skipped (a load yields its
// `other` value).
// CHECK-DAG: llvm.mlir.global internal constant @[[LOAD:__tilec_site_[0-9]+]]("load of tensor<4x8xf32> at {{.*}}sanitize.mlir:{{[0-9]+}}:{{[0-9]+}}\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[STORE:__tilec_site_[0-9]+]]("store of tensor<4x8xf32> at {{.*}}\00")
// CHECK-DAG: func.func private @__tilec_cpu_check_access(i64, i64, i32, i64, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @checked
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args
// CHECK:   scf.for %[[J:.*]] = {{.*}} iter_args
// CHECK:     %[[ROW:.*]] = arith.muli %{{.*}}, %c4
// CHECK:     %[[IJ:.*]] = arith.addi
// CHECK:     %[[E:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:     scf.if %{{.*}} -> (f32) {
// CHECK:       %[[SITE:.*]] = llvm.mlir.addressof @[[LOAD]] : !llvm.ptr
// CHECK:       %[[OK:.*]] = func.call @__tilec_cpu_check_access(%{{.*}}, %c4_i64, %c0_i32, %[[E]], %[[SITE]])
// CHECK:       %[[GO:.*]] = arith.cmpi ne, %[[OK]], %{{.*}} : i32
// CHECK:       scf.if %[[GO]] -> (f32) {
// CHECK:         llvm.load
// CHECK: llvm.mlir.addressof @[[STORE]]
// CHECK: func.call @__tilec_cpu_check_access(%{{.*}}, %c4_i64{{.*}}, %c1_i32
// CHECK: llvm.store
func.func @checked(%p: tensor<4x8x!tile.ptr<f32>>, %m: tensor<4x8xi1>, %q: tensor<4x8x!tile.ptr<f32>>) {
  %zero = arith.constant dense<0.0> : tensor<4x8xf32>
  %v = tile.load %p, %m, %zero : tensor<4x8x!tile.ptr<f32>>
  tile.store %q, %v : tensor<4x8x!tile.ptr<f32>>
  return
}
