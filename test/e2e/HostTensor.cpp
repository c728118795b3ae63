//===- HostTensor.cpp - Typed host buffers for e2e cases ------------------===//

#include "HostTensor.h"

#include "tilec/Runtime/FloatConversion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilec::e2e {

using runtime::ScalarType;

HostTensor::HostTensor(std::string name, ScalarType dtype,
                       std::vector<std::int64_t> shape, Role role)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)),
      role_(role) {
  numel_ = 1;
  for (std::int64_t extent : shape_)
    numel_ *= static_cast<std::size_t>(extent);
  elementBytes_ = runtime::scalarTypeSize(dtype_);
  data_.assign(numel_ * elementBytes_, 0);
}

namespace {
template <typename T> T load(const std::uint8_t *at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}
template <typename T> void store(std::uint8_t *at, T value) {
  std::memcpy(at, &value, sizeof(T));
}
/// Double to a wrapped integer of the destination width.
std::uint64_t toWrappedInteger(double value) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
}

/// The value of 8-bit float `bits`: OCP e4m3 ("fn": no infinities, NaN =
/// S.1111.111) or e5m2 (IEEE-like, bias 15).
double fp8ToDouble(std::uint8_t bits, bool e4m3) {
  int manBits = e4m3 ? 3 : 2, expMask = e4m3 ? 0xf : 0x1f, bias = e4m3 ? 7 : 15;
  int exponent = (bits >> manBits) & expMask;
  int mantissa = bits & ((1 << manBits) - 1);
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  if (e4m3 && exponent == 0xf && mantissa == 7)
    return std::numeric_limits<double>::quiet_NaN();
  if (!e4m3 && exponent == 0x1f)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) // subnormal
    return sign * std::ldexp(mantissa, 1 - bias - manBits);
  return sign * std::ldexp((1 << manBits) + mantissa, exponent - bias - manBits);
}

/// The nearest 8-bit float to `value` (ties to the even code), saturating
/// at the largest finite value; NaN for NaN.
std::uint8_t doubleToFp8(double value, bool e4m3) {
  if (std::isnan(value))
    return 0x7f;
  std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  double magnitude = std::fabs(value);
  std::uint8_t best = 0;
  double bestError = std::numeric_limits<double>::infinity();
  for (unsigned code = 0; code < 0x80; ++code) {
    double candidate = fp8ToDouble(static_cast<std::uint8_t>(code), e4m3);
    if (!std::isfinite(candidate))
      continue;
    double error = std::fabs(candidate - magnitude);
    if (error < bestError || (error == bestError && (code & 1) == 0)) {
      best = static_cast<std::uint8_t>(code);
      bestError = error;
    }
  }
  return sign | best;
}
} // namespace

double HostTensor::get(std::size_t i) const {
  const std::uint8_t *at = data_.data() + i * elementBytes_;
  switch (dtype_) {
  case ScalarType::I1:
  case ScalarType::U8:
    return load<std::uint8_t>(at);
  case ScalarType::I8:
    return load<std::int8_t>(at);
  case ScalarType::I16:
    return load<std::int16_t>(at);
  case ScalarType::U16:
    return load<std::uint16_t>(at);
  case ScalarType::I32:
    return load<std::int32_t>(at);
  case ScalarType::U32:
    return load<std::uint32_t>(at);
  case ScalarType::I64:
    return static_cast<double>(load<std::int64_t>(at));
  case ScalarType::U64:
    return static_cast<double>(load<std::uint64_t>(at));
  case ScalarType::FP16:
    return runtime::halfBitsToFloat(load<std::uint16_t>(at));
  case ScalarType::BF16:
    return runtime::bfloat16BitsToFloat(load<std::uint16_t>(at));
  case ScalarType::FP32:
    return load<float>(at);
  case ScalarType::FP64:
    return load<double>(at);
  case ScalarType::FP8E4NV:
  case ScalarType::FP8E5:
    return fp8ToDouble(*at, dtype_ == ScalarType::FP8E4NV);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

void HostTensor::set(std::size_t i, double value) {
  std::uint8_t *at = data_.data() + i * elementBytes_;
  switch (dtype_) {
  case ScalarType::I1:
    store<std::uint8_t>(at, value != 0 ? 1 : 0);
    return;
  case ScalarType::I8:
  case ScalarType::U8:
    store<std::uint8_t>(at, static_cast<std::uint8_t>(toWrappedInteger(value)));
    return;
  case ScalarType::I16:
  case ScalarType::U16:
    store<std::uint16_t>(at,
                         static_cast<std::uint16_t>(toWrappedInteger(value)));
    return;
  case ScalarType::I32:
  case ScalarType::U32:
    store<std::uint32_t>(at,
                         static_cast<std::uint32_t>(toWrappedInteger(value)));
    return;
  case ScalarType::I64:
  case ScalarType::U64:
    store<std::uint64_t>(at, toWrappedInteger(value));
    return;
  case ScalarType::FP16:
    store<std::uint16_t>(at,
                         runtime::floatToHalfBits(static_cast<float>(value)));
    return;
  case ScalarType::BF16:
    store<std::uint16_t>(
        at, runtime::floatToBFloat16Bits(static_cast<float>(value)));
    return;
  case ScalarType::FP32:
    store<float>(at, static_cast<float>(value));
    return;
  case ScalarType::FP64:
    store<double>(at, value);
    return;
  case ScalarType::FP8E4NV:
  case ScalarType::FP8E5:
    *at = doubleToFp8(value, dtype_ == ScalarType::FP8E4NV);
    return;
  }
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> values(numel_);
  for (std::size_t i = 0; i < numel_; ++i)
    values[i] = get(i);
  return values;
}

void HostTensor::fillUniform(Rng &rng, double lo, double hi) {
  if (runtime::isIntegerType(dtype_)) {
    double span = std::floor(hi) - std::ceil(lo) + 1;
    for (std::size_t i = 0; i < numel_; ++i)
      set(i, std::ceil(lo) + std::floor(rng.uniform01() * span));
    return;
  }
  if (dtype_ == ScalarType::FP32) {
    // The hot path for the large cases: no per-element switch.
    float *values = reinterpret_cast<float *>(data_.data());
    for (std::size_t i = 0; i < numel_; ++i)
      values[i] = static_cast<float>(rng.uniform(lo, hi));
    return;
  }
  for (std::size_t i = 0; i < numel_; ++i)
    set(i, static_cast<float>(rng.uniform(lo, hi)));
}

void HostTensor::resetOutput() {
  if (role_ == Role::Output)
    poison();
  else if (role_ == Role::Accumulator)
    std::fill(data_.begin(), data_.end(), 0);
}

void HostTensor::poison() {
  if (runtime::isIntegerType(dtype_)) {
    std::memset(data_.data(), 0xA5, data_.size());
    return;
  }
  for (std::size_t i = 0; i < numel_; ++i)
    set(i, std::numeric_limits<double>::quiet_NaN());
}

bool HostTensor::isIntegerPoison(std::size_t i) const {
  if (!runtime::isIntegerType(dtype_))
    return false;
  const std::uint8_t *at = data_.data() + i * elementBytes_;
  for (std::size_t b = 0; b < elementBytes_; ++b)
    if (at[b] != 0xA5)
      return false;
  return true;
}

namespace {
std::uint64_t splitMix64(std::uint64_t &x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
} // namespace

Rng::Rng(std::uint64_t seed) {
  for (std::uint64_t &word : state_)
    word = splitMix64(seed);
}

std::uint64_t Rng::next() {
  std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

std::uint64_t caseSeed(std::uint64_t runSeed, const std::string &caseName) {
  std::uint64_t hash = 0xcbf29ce484222325ull; // FNV-1a
  for (unsigned char c : caseName)
    hash = (hash ^ c) * 0x100000001b3ull;
  std::uint64_t mixed = runSeed ^ hash;
  return splitMix64(mixed);
}

} // namespace tilec::e2e
