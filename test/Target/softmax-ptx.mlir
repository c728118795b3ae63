// The whole pipeline from tile IR to PTX, and the cubin when ptxas exists.
// RUN: tilec %s --emit ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --emit cubin -o %t/softmax.cubin && FileCheck %s --check-prefix=META < %t/softmax.json %}

// CHECK: .version 8.1
// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 tilec_smem[];
// CHECK: .visible .entry softmax(
// CHECK: .maxntid 128, 1, 1
// CHECK: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// CHECK: ex2.approx.ftz.f32
// CHECK: @%p{{[0-9]+}} st.global.v4.b32
// META-DAG: "dynamic_bytes": 16
// META-DAG: "name": "softmax"
// META-DAG: "num_threads": 128
// META-DAG: "registers": {{[1-9][0-9]*}}
// META-DAG: "spill_stores": 0
func.func @softmax(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = tile.program_id 0
  %row = arith.muli %pid, %stride : i32
  %xrow = tile.addptr %x, %row : !tile.ptr<f32>, i32
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %nt = tile.splat %n : tensor<1024xi32>
  %mask = arith.cmpi slt, %r, %nt : tensor<1024xi32>
  %xs = tile.splat %xrow : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  %v = tile.load %xp, %mask, %ninf : tensor<1024x!tile.ptr<f32>>
  %m = tile.reduce %v {axis = 0 : i32} : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %mx = arith.maxnumf %a, %b : f32
    tile.reduce.return %mx : f32
  }
  %ms = tile.splat %m : tensor<1024xf32>
  %d = arith.subf %v, %ms : tensor<1024xf32>
  %e = math.exp2 %d : tensor<1024xf32>
  %s = tile.reduce %e {axis = 0 : i32} : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %sum = arith.addf %a, %b : f32
    tile.reduce.return %sum : f32
  }
  %ss = tile.splat %s : tensor<1024xf32>
  %o = arith.divf %e, %ss : tensor<1024xf32>
  %zrow = tile.addptr %z, %row : !tile.ptr<f32>, i32
  %zs = tile.splat %zrow : tensor<1024x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %zp, %o, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
