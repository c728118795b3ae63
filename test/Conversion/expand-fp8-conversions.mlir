// RUN: tilec-opt %s -split-input-file -expand-fp8-conversions | FileCheck %s

// Narrowing: from f32 (f16 widened first), subnormal results through an
// f32 add of 2^(1 - B) scaled to fp8's subnormal step (the adder rounds to
// nearest even), normal ones rebiased with round-to-nearest-even on the
// dropped bits, then saturation to the largest finite code (0x7e = 448 for
// e4m3, 0x7b = 57344 for e5m2) and NaN to 0x7f.
// CHECK-LABEL: func.func @narrow
// CHECK-DAG: %[[C126:.*]] = arith.constant 126 : i32
// CHECK-DAG: %[[C123:.*]] = arith.constant 123 : i32
// CHECK-DAG: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK: %[[BITS:.*]] = arith.bitcast %arg0 : f32 to i32
// CHECK: %[[ISNAN:.*]] = arith.cmpi ugt, %{{.*}}, %c2139095040_i32 : i32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[SAT:.*]] = arith.minui %{{.*}}, %[[C126]] : i32
// CHECK: arith.select %[[ISNAN]], %[[NAN]], %[[SAT]] : i32
// CHECK: %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[E4:.*]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK: arith.extf %arg1 : f16 to f32
// CHECK: arith.minui %{{.*}}, %[[C123]] : i32
// CHECK: %[[E5:.*]] = arith.bitcast %{{.*}} : i8 to f8E5M2
// CHECK: return %[[E4]], %[[E5]]
func.func @narrow(%x: f32, %h: f16) -> (f8E4M3FN, f8E5M2) {
  %a = arith.truncf %x : f32 to f8E4M3FN
  %b = arith.truncf %h : f16 to f8E5M2
  return %a, %b : f8E4M3FN, f8E5M2
}

// -----

// Widening is exact: normal codes rebiased, subnormal ones
// mantissa * 2^(1 - B - M), e4m3's 0x7f/0xff are NaN, e5m2's exponent 31 is
// inf/NaN; other float results are converted from f32 (exactly).
// CHECK-LABEL: func.func @widen
// CHECK: %[[B:.*]] = arith.bitcast %arg0 : f8E4M3FN to i8
// CHECK: arith.extui %[[B]] : i8 to i32
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.select %{{.*}}, %c2143289344_i32, %{{.*}} : i32
// CHECK: %[[X:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.bitcast %arg1 : f8E5M2 to i8
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[Y:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[X]], %[[Y]] : f32, bf16
func.func @widen(%a: f8E4M3FN, %b: f8E5M2) -> (f32, bf16) {
  %x = arith.extf %a : f8E4M3FN to f32
  %y = arith.extf %b : f8E5M2 to bf16
  return %x, %y : f32, bf16
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant 56 : i8
// CHECK: %[[F:.*]] = arith.bitcast %[[C]] : i8 to f8E4M3FN
// CHECK: return %[[F]]
func.func @constant() -> f8E4M3FN {
  %c = arith.constant 1.0 : f8E4M3FN
  return %c : f8E4M3FN
}

// -----

// From f64: to f32 rounded to odd (truncf, then where the truncation was
// inexact and left the last bit even, one step of the magnitude toward the
// value), so that the fp8 rounding after it is the only one: an f64 just
// beyond an fp8 midpoint must not become that midpoint in f32.
// CHECK-LABEL: func.func @narrow_f64
// CHECK: %[[T:.*]] = arith.truncf %arg0 : f64 to f32
// CHECK: %[[BACK:.*]] = arith.extf %[[T]] : f32 to f64
// CHECK: %[[INEXACT:.*]] = arith.cmpf one, %[[BACK]], %arg0 : f64
// CHECK: %[[BITS:.*]] = arith.bitcast %[[T]] : f32 to i32
// CHECK: %[[LOW:.*]] = arith.andi %[[BITS]], %c1_i32 : i32
// CHECK: %[[EVEN:.*]] = arith.cmpi eq, %[[LOW]], %c0_i32 : i32
// CHECK-DAG: %[[DOWN:.*]] = arith.subi %[[BITS]], %c1_i32 : i32
// CHECK-DAG: %[[UP:.*]] = arith.addi %[[BITS]], %c1_i32 : i32
// CHECK: %[[ODD:.*]] = arith.select %{{.*}}, %[[DOWN]], %[[UP]] : i32
// CHECK: %[[FIX:.*]] = arith.andi %[[INEXACT]], %[[EVEN]] : i1
// CHECK: %[[R:.*]] = arith.select %[[FIX]], %[[ODD]], %[[BITS]] : i32
// CHECK: arith.bitcast %[[R]] : i32 to f32
// CHECK: arith.minui %{{.*}}, %c126_i32 : i32
func.func @narrow_f64(%x: f64) -> f8E4M3FN {
  %a = arith.truncf %x : f64 to f8E4M3FN
  return %a : f8E4M3FN
}
