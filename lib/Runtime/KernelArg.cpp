//===- KernelArg.cpp - One launch argument --------------------------------===//

#include "tilec/Runtime/KernelArg.h"

#include "tilec/Runtime/FloatConversion.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace tilec::runtime {

KernelArg::KernelArg(Kind kind, ScalarType type, const void *data,
                     std::size_t size)
    : kind_(kind), type_(type), size_(size) {
  std::memcpy(bytes_.data(), data, size);
}

KernelArg KernelArg::pointer(DevicePtr address) {
  return KernelArg(Kind::Pointer, ScalarType::U64, &address, sizeof(address));
}

KernelArg KernelArg::scalar(bool value) {
  std::uint8_t byte = value ? 1 : 0;
  return KernelArg(Kind::Scalar, ScalarType::I1, &byte, 1);
}

#define TILEC_SCALAR_FACTORY(CType, Type)                                      \
  KernelArg KernelArg::scalar(CType value) {                                   \
    return KernelArg(Kind::Scalar, ScalarType::Type, &value, sizeof(value));   \
  }
TILEC_SCALAR_FACTORY(std::int8_t, I8)
TILEC_SCALAR_FACTORY(std::uint8_t, U8)
TILEC_SCALAR_FACTORY(std::int16_t, I16)
TILEC_SCALAR_FACTORY(std::uint16_t, U16)
TILEC_SCALAR_FACTORY(std::int32_t, I32)
TILEC_SCALAR_FACTORY(std::uint32_t, U32)
TILEC_SCALAR_FACTORY(std::int64_t, I64)
TILEC_SCALAR_FACTORY(std::uint64_t, U64)
TILEC_SCALAR_FACTORY(float, FP32)
TILEC_SCALAR_FACTORY(double, FP64)
#undef TILEC_SCALAR_FACTORY

KernelArg KernelArg::scalarBits(ScalarType type, std::uint64_t bits) {
  // The host is little-endian (x86-64, aarch64), as is the GPU's param space.
  return KernelArg(Kind::Scalar, type, &bits, scalarTypeSize(type));
}

std::uint64_t KernelArg::bits() const {
  std::uint64_t value = 0;
  std::memcpy(&value, bytes_.data(), size_);
  return value;
}

std::string KernelArg::describe() const {
  char buffer[96];
  std::uint64_t raw = bits();
  if (kind_ == Kind::Pointer) {
    std::snprintf(buffer, sizeof(buffer), "pointer 0x%" PRIx64, raw);
    return buffer;
  }
  const char *name = scalarTypeName(type_);
  switch (type_) {
  case ScalarType::FP32:
    std::snprintf(buffer, sizeof(buffer), "%s %.9g", name,
                  bitsToFloat(static_cast<std::uint32_t>(raw)));
    break;
  case ScalarType::FP64: {
    double value;
    std::memcpy(&value, &raw, sizeof(value));
    std::snprintf(buffer, sizeof(buffer), "%s %.17g", name, value);
    break;
  }
  case ScalarType::FP16:
    std::snprintf(buffer, sizeof(buffer), "%s %.6g", name,
                  halfBitsToFloat(static_cast<std::uint16_t>(raw)));
    break;
  case ScalarType::BF16:
    std::snprintf(buffer, sizeof(buffer), "%s %.4g", name,
                  bfloat16BitsToFloat(static_cast<std::uint16_t>(raw)));
    break;
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::I32:
  case ScalarType::I64: {
    // Sign-extend from the value's width.
    unsigned shift = 64 - 8 * static_cast<unsigned>(size_);
    std::int64_t value = static_cast<std::int64_t>(raw << shift) >> shift;
    std::snprintf(buffer, sizeof(buffer), "%s %" PRId64, name, value);
    break;
  }
  default:
    std::snprintf(buffer, sizeof(buffer), "%s %" PRIu64, name, raw);
    break;
  }
  return buffer;
}

} // namespace tilec::runtime
