//===- CodeGenRandom.cpp - tl.rand and friends ----------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Triton's counter-based random numbers (triton/language/random.py), with
// the same bits: Philox 4x32-10 keyed by the seed and counting from the
// offset (a 64-bit offset fills two counter words, as in Triton 3), then
// Triton's int-to-uniform conversion and
// Box-Muller transform. Everything is expanded into integer and float ops
// both backends lower, so there is no random op in the `tile` dialect:
//
//   randint4x(seed, offset, n_rounds) = philox(c = (offset_lo, offset_hi, 0,
//   0),
//                                              k = (seed_lo, seed_hi))
//   per round:  c0' = umulhi(B, c2) ^ c1 ^ k0    c1' = B * c2
//               c2' = umulhi(A, c0) ^ c3 ^ k1    c3' = A * c0
//               k0 += KEY_A, k1 += KEY_B
//   uniform(x)  = (x < 0 ? -x - 1 : x) * scale    (x read as signed)
//   normal(u1, u2) = sqrt(-2 log(max(1e-7, u1))) * (cos, sin)(2 pi u2)
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cstdint>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
namespace arith = mlir::arith;
namespace math = mlir::math;

namespace {

/// Triton's N_ROUNDS_DEFAULT.
constexpr int64_t kDefaultRounds = 10;
/// More rounds than this are surely a mistake (each is ~10 ops per element).
constexpr int64_t kMaxRounds = 4096;

/// The Philox 4x32 constants (Random123; Triton's PHILOX_KEY_A/B,
/// PHILOX_ROUND_A/B).
struct PhiloxConstants {
  uint64_t keyA, keyB, roundA, roundB;
};
constexpr PhiloxConstants kPhilox32 = {0x9E3779B9u, 0xBB67AE85u, 0xD2511F53u,
                                       0xCD9E8D57u};

/// Emits arithmetic on run-time values of one type: a scalar or a tile of
/// integers or floats (constants are splat to it).
class Emitter {
public:
  Emitter(CodeGen &cg, mlir::Type type) : cg(cg), type(type) {}

  mlir::Type getType() const { return type; }
  mlir::Type getElementType() const { return tile::getElementTypeOrSelf(type); }
  /// The same shape with element type `element`.
  mlir::Type withElement(mlir::Type element) const {
    if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type))
      return mlir::RankedTensorType::get(tensor.getShape(), element);
    return element;
  }
  Emitter with(mlir::Type element) const {
    return Emitter(cg, withElement(element));
  }

  mlir::Value constant(mlir::TypedAttr scalar) const {
    mlir::TypedAttr attr = scalar;
    if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type))
      attr = mlir::DenseElementsAttr::get(tensor, mlir::Attribute(scalar));
    return arith::ConstantOp::create(cg.builder, cg.loc(), attr);
  }
  mlir::Value intConst(uint64_t value) const {
    auto element = llvm::cast<mlir::IntegerType>(getElementType());
    return constant(mlir::IntegerAttr::get(
        element, llvm::APInt(element.getWidth(), value, /*isSigned=*/false,
                             /*implicitTrunc=*/true)));
  }
  mlir::Value floatConst(double value) const {
    return constant(mlir::FloatAttr::get(getElementType(), value));
  }

  mlir::Value add(mlir::Value a, mlir::Value b) const {
    return arith::AddIOp::create(cg.builder, cg.loc(), a, b);
  }
  mlir::Value mul(mlir::Value a, mlir::Value b) const {
    return arith::MulIOp::create(cg.builder, cg.loc(), a, b);
  }
  mlir::Value xorI(mlir::Value a, mlir::Value b) const {
    return arith::XOrIOp::create(cg.builder, cg.loc(), a, b);
  }
  mlir::Value shrU(mlir::Value a, unsigned bits) const {
    return arith::ShRUIOp::create(cg.builder, cg.loc(), a, intConst(bits));
  }

  /// The high half of the unsigned product of two 32-bit integers, in
  /// 64-bit arithmetic.
  mlir::Value umulhi(mlir::Value a, mlir::Value b) const {
    Emitter wide = with(cg.builder.getI64Type());
    mlir::Value wa =
        arith::ExtUIOp::create(cg.builder, cg.loc(), wide.getType(), a);
    mlir::Value wb =
        arith::ExtUIOp::create(cg.builder, cg.loc(), wide.getType(), b);
    mlir::Value high = wide.shrU(wide.mul(wa, wb), 32);
    return arith::TruncIOp::create(cg.builder, cg.loc(), type, high);
  }

private:
  CodeGen &cg;
  mlir::Type type;
};

/// The four outputs of Philox on a tile (or scalar) of counters.
struct PhiloxResult {
  mlir::Value c[4];
  DType dtype;
};

/// The builtins of this file.
enum class RandomFn { RandInt, RandInt4x, Rand, Rand4x, RandN, RandN4x };

/// Checks the arguments and runs Philox on (offset, 0, 0, 0) keyed by the
/// seed: Triton's randint4x.
FailureOr<PhiloxResult> emitPhilox(CodeGen &cg, Args &a) {
  enum { kSeed, kOffset, kRounds };
  int64_t rounds = a.optInteger(kRounds).value_or(kDefaultRounds);
  if (rounds < 0 || rounds > kMaxRounds)
    return cg.error(a.loc(kRounds), a.name(kRounds) + " must be in [0, " +
                                        std::to_string(kMaxRounds) + "], got " +
                                        std::to_string(rounds));

  // The seed: an integer scalar, as uint64 (sign-extended from signed types,
  // as Triton's seed.to(tl.uint64)).
  const CGValue &seedIn = a.value(kSeed);
  SMLoc seedLoc = a.loc(kSeed);
  if (seedIn.isTile() || (seedIn.isRuntime() && !seedIn.getDType().isInt()) ||
      (seedIn.isConstexpr() && !seedIn.isIntLike()))
    return cg.error(seedLoc, a.name(kSeed) +
                                 " must be an integer scalar, got " +
                                 seedIn.describe());
  mlir::Value seed64;
  if (seedIn.isConstexpr()) {
    seed64 = Emitter(cg, cg.builder.getI64Type())
                 .intConst(static_cast<uint64_t>(seedIn.getInt()));
  } else {
    seed64 = seedIn.getValue();
    unsigned width = seedIn.getDType().getBitWidth();
    if (width < 64) {
      if (seedIn.getDType().isSigned())
        seed64 = arith::ExtSIOp::create(cg.builder, cg.loc(),
                                        cg.builder.getI64Type(), seed64);
      else
        seed64 = arith::ExtUIOp::create(cg.builder, cg.loc(),
                                        cg.builder.getI64Type(), seed64);
    }
  }

  // The offsets: 32- or 64-bit integers, a tile or a scalar.
  const CGValue &offsetIn = a.value(kOffset);
  SMLoc offsetLoc = a.loc(kOffset);
  if (offsetIn.isConstexpr() && !offsetIn.isInt())
    return cg.error(offsetLoc, a.name(kOffset) +
                                   " must be 32- or 64-bit integers, got " +
                                   offsetIn.describe());
  FailureOr<CGValue> offset = cg.toRuntime(offsetIn, offsetLoc);
  if (failed(offset))
    return failure();
  DType offsetType = offset->getDType();
  unsigned width = offsetType.isInt() ? offsetType.getBitWidth() : 0;
  if (width != 32 && width != 64)
    return cg.error(offsetLoc, a.name(kOffset) +
                                   " must be 32- or 64-bit integers, got " +
                                   offset->describe());

  // Triton 3's randint4x: Philox 4x32 on the counter (offset_lo,
  // offset_hi, 0, 0), offset_hi the high word of a 64-bit offset (0 for a
  // 32-bit one), keyed by the seed's low and high words.
  const PhiloxConstants &k = kPhilox32;
  llvm::SmallVector<int64_t> shape = offset->getShape();
  mlir::Type i32 = cg.builder.getI32Type();
  mlir::Type wordType =
      shape.empty() ? i32 : mlir::Type(mlir::RankedTensorType::get(shape, i32));
  DType wordDType = DType::get(ScalarType::U32);
  mlir::Value offsetLo = offset->getValue(), offsetHi;
  if (width == 64) {
    Emitter wide(cg, offsetLo.getType());
    offsetHi = arith::TruncIOp::create(cg.builder, cg.loc(), wordType,
                                       wide.shrU(offsetLo, 32));
    offsetLo =
        arith::TruncIOp::create(cg.builder, cg.loc(), wordType, offsetLo);
  }
  Emitter e(cg, wordType);
  Emitter scalar(cg, i32);
  Emitter s64(cg, cg.builder.getI64Type());
  mlir::Value k0 = arith::TruncIOp::create(cg.builder, cg.loc(), i32, seed64);
  mlir::Value k1 =
      arith::TruncIOp::create(cg.builder, cg.loc(), i32, s64.shrU(seed64, 32));

  auto splat = [&](mlir::Value v) {
    return cg.splat(CGValue::runtime(v, wordDType), shape).getValue();
  };
  mlir::Value zero = e.intConst(0);
  mlir::Value c0 = offsetLo, c1 = offsetHi ? offsetHi : zero, c2 = zero,
              c3 = zero;
  mlir::Value roundA = e.intConst(k.roundA), roundB = e.intConst(k.roundB);
  mlir::Value keyA = scalar.intConst(k.keyA), keyB = scalar.intConst(k.keyB);
  for (int64_t r = 0; r < rounds; ++r) {
    mlir::Value oldC0 = c0, oldC2 = c2;
    c0 = e.xorI(e.xorI(e.umulhi(roundB, oldC2), c1), splat(k0));
    c2 = e.xorI(e.xorI(e.umulhi(roundA, oldC0), c3), splat(k1));
    c1 = e.mul(roundB, oldC2);
    c3 = e.mul(roundA, oldC0);
    k0 = scalar.add(k0, keyA);
    k1 = scalar.add(k1, keyB);
  }
  return PhiloxResult{{c0, c1, c2, c3}, wordDType};
}

/// Triton's uint_to_uniform_float: random integers to fp32 in [0, 1).
mlir::Value uniformFloat(CodeGen &cg, mlir::Value x) {
  Emitter e(cg, x.getType());
  // ((2**23 - 1) / 2**23) * 2**-31, the largest scale with
  // INT_MAX * scale < 1 after rounding; Triton rounds it to fp32.
  double scale = 4.6566127342e-10;
  mlir::Value negative = arith::CmpIOp::create(
      cg.builder, cg.loc(), arith::CmpIPredicate::slt, x, e.intConst(0));
  // -x - 1 == ~x
  mlir::Value flipped = e.xorI(x, e.intConst(~uint64_t(0)));
  mlir::Value magnitude =
      arith::SelectOp::create(cg.builder, cg.loc(), negative, flipped, x);
  Emitter f(e.with(cg.builder.getF32Type()));
  mlir::Value asFloat =
      arith::SIToFPOp::create(cg.builder, cg.loc(), f.getType(), magnitude);
  return arith::MulFOp::create(cg.builder, cg.loc(), asFloat,
                               f.floatConst(scale));
}

/// Triton's pair_uniform_to_normal (Box-Muller): two fp32 normals.
std::pair<mlir::Value, mlir::Value> normalPair(CodeGen &cg, mlir::Value u1,
                                               mlir::Value u2) {
  Emitter f(cg, u1.getType());
  u1 = arith::MaxNumFOp::create(cg.builder, cg.loc(), f.floatConst(1.0e-7), u1);
  mlir::Value th = arith::MulFOp::create(cg.builder, cg.loc(),
                                         f.floatConst(6.283185307179586), u2);
  mlir::Value logU1 = math::LogOp::create(cg.builder, cg.loc(), u1);
  mlir::Value r = math::SqrtOp::create(
      cg.builder, cg.loc(),
      arith::MulFOp::create(cg.builder, cg.loc(), f.floatConst(-2.0), logU1));
  mlir::Value cosTh = math::CosOp::create(cg.builder, cg.loc(), th);
  mlir::Value sinTh = math::SinOp::create(cg.builder, cg.loc(), th);
  return {arith::MulFOp::create(cg.builder, cg.loc(), r, cosTh),
          arith::MulFOp::create(cg.builder, cg.loc(), r, sinTh)};
}

FailureOr<CGValue> emitRandomFn(CodeGen &cg, Args &a, RandomFn fn) {
  FailureOr<PhiloxResult> philox = emitPhilox(cg, a);
  if (failed(philox))
    return failure();
  const DType fp32 = DType::get(ScalarType::FP32);
  auto ints = [&](unsigned i) {
    return CGValue::runtime(philox->c[i], philox->dtype);
  };
  auto uniform = [&](unsigned i) { return uniformFloat(cg, philox->c[i]); };
  switch (fn) {
  case RandomFn::RandInt:
    return ints(0);
  case RandomFn::RandInt4x:
    return CGValue::tuple({ints(0), ints(1), ints(2), ints(3)});
  case RandomFn::Rand:
    return CGValue::runtime(uniform(0), fp32);
  case RandomFn::Rand4x:
    return CGValue::tuple({CGValue::runtime(uniform(0), fp32),
                           CGValue::runtime(uniform(1), fp32),
                           CGValue::runtime(uniform(2), fp32),
                           CGValue::runtime(uniform(3), fp32)});
  case RandomFn::RandN:
    return CGValue::runtime(normalPair(cg, uniform(0), uniform(1)).first, fp32);
  case RandomFn::RandN4x: {
    auto [n1, n2] = normalPair(cg, uniform(0), uniform(1));
    auto [n3, n4] = normalPair(cg, uniform(2), uniform(3));
    return CGValue::tuple(
        {CGValue::runtime(n1, fp32), CGValue::runtime(n2, fp32),
         CGValue::runtime(n3, fp32), CGValue::runtime(n4, fp32)});
  }
  }
  llvm_unreachable("unknown random function");
}

} // namespace

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getRandomBuiltins() {
#define RANDOM(NAME, FN)                                                       \
  {                                                                            \
    NAME,                                                                      \
        [](CodeGen &cg, Args &a) {                                             \
          return emitRandomFn(cg, a, RandomFn::FN);                            \
        },                                                                     \
    {                                                                          \
      req("seed"), req("offset"), opt("n_rounds", ArgType::Int)                \
    }                                                                          \
  }
  static const BuiltinSpec specs[] = {
      RANDOM("tl.randint", RandInt), RANDOM("tl.randint4x", RandInt4x),
      RANDOM("tl.rand", Rand),       RANDOM("tl.rand4x", Rand4x),
      RANDOM("tl.randn", RandN),     RANDOM("tl.randn4x", RandN4x),
  };
#undef RANDOM
  return specs;
}
