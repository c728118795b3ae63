// RUN: tilec-opt %s -canonicalize | FileCheck %s

#a = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<512xf32, #{{.*}}>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return %[[X]]
func.func @round_trip(%x: tensor<512xf32, #a>) -> tensor<512xf32, #a> {
  %y = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
  %z = tilegpu.convert_layout %y : tensor<512xf32, #b> -> tensor<512xf32, #a>
  return %z : tensor<512xf32, #a>
}

// CHECK-LABEL: func.func @rematerialize
// CHECK: %[[R:.*]] = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #[[$B:.*]]>
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : tensor<512xi32, #[[$B]]>
// CHECK: arith.addi %[[R]], %[[S]]
func.func @rematerialize(%n: i32) -> tensor<512xi32, #b> {
  %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #a>
  %s = tile.splat %n : tensor<512xi32, #a>
  %rc = tilegpu.convert_layout %r : tensor<512xi32, #a> -> tensor<512xi32, #b>
  %sc = tilegpu.convert_layout %s : tensor<512xi32, #a> -> tensor<512xi32, #b>
  %sum = arith.addi %rc, %sc : tensor<512xi32, #b>
  return %sum : tensor<512xi32, #b>
}
