//===- HostSymbols.cpp - what JIT-compiled kernels may call ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "HostSymbols.h"

#include "DeviceDebug.h"
#include "Sanitizer.h"

#include "tilec/Conversion/TileToLinalg/TileToLinalg.h"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <type_traits>

// libgcc's conversions between half and float/double (GCC >= 12); LLVM
// calls them for `half` when the CPU lacks F16C. Declared only to take
// their addresses.
extern "C" void __extendhfsf2();
extern "C" void __truncsfhf2();
extern "C" void __truncdfhf2();
extern "C" void __extendhfdf2();

using namespace tilec;
using namespace tilec::cpu;

namespace {
/// f32 -> bf16 bits, to nearest even, NaN kept quiet; what LLVM calls when
/// it narrows to bf16 without AVX512-BF16 (libgcc has it only from GCC 13).
std::uint16_t truncateToBFloat16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

/// The libcall's ABI returns the bf16 in the low half of xmm0, like a
/// float's bits: return it as a float whose low 16 bits are the result.
float truncsfbf2(float value) {
  std::uint32_t bits = truncateToBFloat16(value);
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
/// f64 -> bf16 bits, to nearest even with one rounding: the double is
/// first narrowed to float rounding to odd (exact, or the nearest toward
/// zero with its last bit set), which keeps enough bits that the final
/// rounding to bf16 is the one of the double.
float truncdfbf2(double value) {
  float narrow = static_cast<float>(value);
  if (!std::isnan(value) && static_cast<double>(narrow) != value) {
    if (std::fabs(static_cast<double>(narrow)) > std::fabs(value))
      narrow = std::nextafter(narrow, 0.0f);
    std::uint32_t bits;
    std::memcpy(&bits, &narrow, sizeof(bits));
    bits |= 1;
    std::memcpy(&narrow, &bits, sizeof(bits));
  }
  return truncsfbf2(narrow);
}

template <typename T>
T applyAtomic(std::int32_t op, T old, T value);

/// 16-bit floats: the operation in float, rounded once.
template <typename T>
T applyAtomicInFloat(std::int32_t op, T old, T value) {
  if (op == AtomicXchg)
    return value;
  return T(applyAtomic<float>(op, float(old), float(value)));
}

template <typename T>
T applyAtomic(std::int32_t op, T old, T value) {
  switch (op) {
  case AtomicAdd:
    return old + value;
  case AtomicMax:
    // Floats: maxnum/minnum, as LLVM's fmax/fmin atomics (a NaN operand
    // gives the other one).
    if constexpr (std::is_floating_point_v<T>)
      return std::fmax(old, value);
    else
      return old > value ? old : value;
  case AtomicMin:
    if constexpr (std::is_floating_point_v<T>)
      return std::fmin(old, value);
    else
      return old < value ? old : value;
  case AtomicAnd:
    if constexpr (std::is_integral_v<T>)
      return old & value;
    break;
  case AtomicOr:
    if constexpr (std::is_integral_v<T>)
      return old | value;
    break;
  case AtomicXor:
    if constexpr (std::is_integral_v<T>)
      return old ^ value;
    break;
  default:
    break;
  }
  return value; // xchg
}

/// A bf16 on the host: arithmetic in float, rounded back to nearest even.
struct BFloat16 {
  std::uint16_t bits;
  BFloat16() = default;
  BFloat16(float value) : bits(truncateToBFloat16(value)) {}
  operator float() const {
    std::uint32_t wide = std::uint32_t(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof(value));
    return value;
  }
};

/// One element of a tl.atomic_* (kAtomicFunction): a compare-exchange loop
/// on the element's bits.
template <typename T, typename Bits>
std::uint64_t atomicOn(std::int32_t op, void *address, std::uint64_t a,
                       std::uint64_t b) {
  Bits *bitsAddress = static_cast<Bits *>(address);
  Bits old = __atomic_load_n(bitsAddress, __ATOMIC_SEQ_CST);
  if (op == AtomicCas) {
    Bits expected = static_cast<Bits>(a);
    __atomic_compare_exchange_n(bitsAddress, &expected, static_cast<Bits>(b),
                                false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
  }
  while (true) {
    T oldValue, value;
    Bits valueBits = static_cast<Bits>(a);
    std::memcpy(&oldValue, &old, sizeof(T));
    std::memcpy(&value, &valueBits, sizeof(T));
    T result;
    if constexpr (std::is_same_v<T, _Float16> || std::is_same_v<T, BFloat16>)
      result = applyAtomicInFloat<T>(op, oldValue, value);
    else
      result = applyAtomic<T>(op, oldValue, value);
    Bits resultBits;
    std::memcpy(&resultBits, &result, sizeof(T));
    if (__atomic_compare_exchange_n(bitsAddress, &old, resultBits, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return old;
  }
}

extern "C" std::uint64_t __tilec_cpu_atomic(std::int32_t op,
                                            std::int32_t type, void *address,
                                            std::uint64_t a, std::uint64_t b) {
  switch (type) {
  case AtomicI32:
    return atomicOn<std::int32_t, std::uint32_t>(op, address, a, b);
  case AtomicU32:
    return atomicOn<std::uint32_t, std::uint32_t>(op, address, a, b);
  case AtomicI64:
    return atomicOn<std::int64_t, std::uint64_t>(op, address, a, b);
  case AtomicU64:
    return atomicOn<std::uint64_t, std::uint64_t>(op, address, a, b);
  case AtomicF32:
    return atomicOn<float, std::uint32_t>(op, address, a, b);
  case AtomicI16:
    return atomicOn<std::int16_t, std::uint16_t>(op, address, a, b);
  case AtomicU16:
    return atomicOn<std::uint16_t, std::uint16_t>(op, address, a, b);
  case AtomicF16:
    return atomicOn<_Float16, std::uint16_t>(op, address, a, b);
  case AtomicBF16:
    return atomicOn<BFloat16, std::uint16_t>(op, address, a, b);
  default:
    return atomicOn<double, std::uint64_t>(op, address, a, b);
  }
}
} // namespace

llvm::orc::SymbolMap cpu::getHostSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](llvm::StringRef name, auto *function) {
    symbols[interner(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(
            reinterpret_cast<void *>(function)),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  add(kCheckAccessFunction, &__tilec_cpu_check_access);
  add(kAtomicFunction, &__tilec_cpu_atomic);
  add(kPrintFunction, &__tilec_cpu_print);
  add(kAssertFailFunction, &__tilec_cpu_assert_fail);
  add("malloc", &::malloc);
  add("free", &::free);
  add("aligned_alloc", &::aligned_alloc);
  add("memcpy", &::memcpy);
  add("memmove", &::memmove);
  add("memset", &::memset);
  add("__extendhfsf2", &__extendhfsf2);
  add("__truncsfhf2", &__truncsfhf2);
  add("__truncdfhf2", &__truncdfhf2);
  add("__extendhfdf2", &__extendhfdf2);
  add("__truncsfbf2", &truncsfbf2);
  add("__truncdfbf2", &truncdfbf2);
  // libm, float and double: what MLIR's math-to-llvm intrinsics and
  // math-to-libm calls become.
#define TILEC_LIBM(name)                                                       \
  add(#name "f", static_cast<float (*)(float)>(&::name##f));                   \
  add(#name, static_cast<double (*)(double)>(&::name));
  TILEC_LIBM(exp)
  TILEC_LIBM(exp2)
  TILEC_LIBM(expm1)
  TILEC_LIBM(log)
  TILEC_LIBM(log2)
  TILEC_LIBM(log10)
  TILEC_LIBM(log1p)
  TILEC_LIBM(sqrt)
  TILEC_LIBM(cbrt)
  TILEC_LIBM(sin)
  TILEC_LIBM(cos)
  TILEC_LIBM(tan)
  TILEC_LIBM(asin)
  TILEC_LIBM(acos)
  TILEC_LIBM(atan)
  TILEC_LIBM(sinh)
  TILEC_LIBM(cosh)
  TILEC_LIBM(tanh)
  TILEC_LIBM(asinh)
  TILEC_LIBM(acosh)
  TILEC_LIBM(atanh)
  TILEC_LIBM(erf)
  TILEC_LIBM(erfc)
  TILEC_LIBM(floor)
  TILEC_LIBM(ceil)
  TILEC_LIBM(round)
  TILEC_LIBM(roundeven)
  TILEC_LIBM(trunc)
  TILEC_LIBM(rint)
  TILEC_LIBM(nearbyint)
  TILEC_LIBM(fabs)
#undef TILEC_LIBM
#define TILEC_LIBM2(name)                                                      \
  add(#name "f", static_cast<float (*)(float, float)>(&::name##f));            \
  add(#name, static_cast<double (*)(double, double)>(&::name));
  TILEC_LIBM2(pow)
  TILEC_LIBM2(atan2)
  TILEC_LIBM2(fmod)
  TILEC_LIBM2(copysign)
  TILEC_LIBM2(fmin)
  TILEC_LIBM2(fmax)
#undef TILEC_LIBM2
  add("fmaf", static_cast<float (*)(float, float, float)>(&::fmaf));
  add("fma", static_cast<double (*)(double, double, double)>(&::fma));
  return symbols;
}
