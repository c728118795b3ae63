//===- HostArray.cpp - typed host buffers for `tilec run` -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "HostArray.h"

#include "tilec/Support/ScalarTypeMLIR.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace tilec;
using namespace tilec::tool;

namespace {

/// The APFloat semantics of a float type name; null for an integer.
const llvm::fltSemantics *getSemantics(llvm::StringRef type) {
  std::optional<ScalarType> scalar = parseScalarType(type);
  return scalar ? getFloatSemantics(*scalar) : nullptr;
}

bool isUnsigned(llvm::StringRef type) {
  std::optional<ScalarType> scalar = parseScalarType(type);
  return scalar && isIntegerType(*scalar) && !isSignedIntegerType(*scalar) &&
         *scalar != ScalarType::I1;
}

/// Bits of `value` rounded to nearest even in `semantics`.
std::uint64_t floatBits(const llvm::fltSemantics &semantics, double value) {
  llvm::APFloat f(value);
  bool losesInfo = false;
  (void)f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return f.bitcastToAPInt().getZExtValue();
}

/// splitmix64: small, seedable, good enough for test inputs.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform01() { return (next() >> 11) * 0x1.0p-53; }
};

} // namespace

llvm::Expected<std::uint64_t> tool::parseScalar(llvm::StringRef type,
                                                llvm::StringRef text) {
  auto bad = [&](const char *what) {
    return llvm::createStringError("'" + text + "' is not " + what +
                                   " (a value of type " + type + ")");
  };
  std::size_t bytes = scalarTypeSize(type);
  if (bytes == 0)
    return llvm::createStringError("unknown type '" + type + "'");
  if (const llvm::fltSemantics *semantics = getSemantics(type)) {
    std::string copy = text.str();
    char *end = nullptr;
    double value = std::strtod(copy.c_str(), &end);
    if (copy.empty() || *end != '\0')
      return bad("a number");
    return floatBits(*semantics, value);
  }
  if (parseScalarType(type) == ScalarType::I1) {
    if (text == "true" || text == "True" || text == "1")
      return 1;
    if (text == "false" || text == "False" || text == "0")
      return 0;
    return bad("a boolean");
  }
  // getAsInteger reads digits only, into as few bits as the digits need
  // (0xffffffff gets 32, its top bit set): widen by one bit so that the
  // value is non-negative before applying the sign.
  llvm::StringRef digits = text.trim();
  bool negative = digits.consume_front("-");
  llvm::APInt value;
  if (digits.getAsInteger(0, value))
    return bad("an integer");
  value = value.zext(value.getBitWidth() + 1);
  if (negative)
    value.negate();
  unsigned bits = 8 * bytes;
  bool fits = isUnsigned(type) ? value.isNonNegative() &&
                                     value.getActiveBits() <= bits
                               : value.getSignificantBits() <= bits;
  if (!fits)
    return bad("in range");
  std::uint64_t result = value.sextOrTrunc(64).getZExtValue();
  return bits == 64 ? result : result & ((std::uint64_t(1) << bits) - 1);
}

void HostArray::Free::operator()(void *p) const { std::free(p); }

HostArray::HostArray(std::string name, std::string type, std::size_t count)
    : name_(std::move(name)), type_(std::move(type)),
      scalar_(parseScalarType(type_)), count_(count),
      elementBytes_(scalarTypeSize(type_)) {
  // 4 KiB of padding after the data: an out-of-bounds access shortly past
  // the end (what `tilec run --sanitize` reports) never lands in another
  // buffer, whatever order the allocator placed the buffers in.
  constexpr std::size_t kPadding = 4096;
  std::size_t size =
      (std::max<std::size_t>(bytes(), 1) + 63) / 64 * 64 + kPadding;
  data_.reset(std::aligned_alloc(64, size));
  std::memset(data_.get(), 0, size);
}

double HostArray::get(std::size_t i) const {
  std::uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char *>(data()) + i * elementBytes_,
              elementBytes_);
  if (scalar_ == ScalarType::FP32) {
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
  if (scalar_ == ScalarType::FP64) {
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  if (const llvm::fltSemantics *semantics = getSemantics(type_)) {
    llvm::APFloat f(*semantics, llvm::APInt(8 * elementBytes_, bits));
    bool losesInfo = false;
    (void)f.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return f.convertToDouble();
  }
  if (scalar_ == ScalarType::I1)
    return bits != 0;
  if (isUnsigned(type_))
    return static_cast<double>(bits);
  return static_cast<double>(
      llvm::APInt(8 * elementBytes_, bits).getSExtValue());
}

void HostArray::fillRandom(std::uint64_t seed) {
  SplitMix64 rng{seed};
  const llvm::fltSemantics *semantics = getSemantics(type_);
  for (std::size_t i = 0; i < count_; ++i) {
    std::uint64_t bits;
    if (semantics)
      bits = floatBits(*semantics, -1.0 + 2.0 * rng.uniform01());
    else if (scalar_ == ScalarType::I1)
      bits = rng.next() & 1;
    else if (isUnsigned(type_))
      bits = rng.next() % 101;
    else
      bits = static_cast<std::uint64_t>(
          static_cast<std::int64_t>(rng.next() % 201) - 100);
    std::memcpy(static_cast<char *>(data()) + i * elementBytes_, &bits,
                elementBytes_);
  }
}

llvm::Error HostArray::readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path + "'");
  if ((*buffer)->getBufferSize() != bytes())
    return llvm::createStringError(
        "'" + path + "' has " + std::to_string((*buffer)->getBufferSize()) +
        " bytes, '" + name_ + "' needs " + std::to_string(bytes()));
  std::memcpy(data(), (*buffer)->getBufferStart(), bytes());
  return llvm::Error::success();
}

llvm::Error HostArray::writeFile(llvm::StringRef path) const {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path + "'");
  os.write(static_cast<const char *>(data()), bytes());
  return llvm::Error::success();
}

double HostArray::sum() const {
  double total = 0;
  for (std::size_t i = 0; i < count_; ++i)
    total += get(i);
  return total;
}

std::uint64_t HostArray::hash() const {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto *bytesPtr = static_cast<const unsigned char *>(data());
  for (std::size_t i = 0; i < bytes(); ++i)
    h = (h ^ bytesPtr[i]) * 0x100000001b3ull;
  return h;
}
