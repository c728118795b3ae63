//===- HostTensor.h - Typed host buffers for e2e cases ----------*- C++ -*-===//
//
// A case's inputs and outputs live on the host as raw bytes of the kernel's
// element type, so that any backend (the GPU one copies them to the device,
// a CPU backend would use them in place) sees exactly the same data, and the
// reference reads exactly the values the kernel read (fp16 inputs included).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_E2E_HOSTTENSOR_H
#define TILEC_E2E_HOSTTENSOR_H

#include "tilec/Runtime/ScalarType.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tilec::e2e {

class Rng;

/// A dense, row-major host array of `dtype` elements.
class HostTensor {
public:
  /// An accumulator is an output that starts at zero, as a buffer the
  /// caller clears for a kernel's atomic adds.
  enum class Role { Input, Output, Accumulator };

  HostTensor(std::string name, runtime::ScalarType dtype,
             std::vector<std::int64_t> shape, Role role);

  const std::string &name() const { return name_; }
  runtime::ScalarType dtype() const { return dtype_; }
  const std::vector<std::int64_t> &shape() const { return shape_; }
  Role role() const { return role_; }
  bool isOutput() const { return role_ != Role::Input; }

  std::size_t numel() const { return numel_; }
  std::size_t bytes() const { return data_.size(); }
  void *data() { return data_.data(); }
  const void *data() const { return data_.data(); }

  /// Element `i` converted to double (exact for every supported type).
  double get(std::size_t i) const;
  /// Stores `value` into element `i`, rounding to the element type (floats:
  /// to nearest even; integers: truncation toward zero, then wrap).
  void set(std::size_t i, double value);

  /// All elements as doubles (for references that index heavily).
  std::vector<double> toDoubles() const;

  /// Fills with independent uniform values in [lo, hi), rounded to the
  /// element type (so the data are exactly representable). Integers are
  /// drawn from [lo, hi] as integers.
  void fillUniform(Rng &rng, double lo, double hi);

  /// Poisons every element: a quiet NaN for floating types, the byte pattern
  /// 0xA5 for integers (e.g. 0xA5A5A5A5 for i32), so that an element the
  /// kernel never writes cannot pass.
  void poison();

  /// Sets the contents an output starts a run with: poison, or zeros for
  /// an accumulator. Inputs are left alone.
  void resetOutput();

  /// True when element `i` still holds the integer poison pattern.
  bool isIntegerPoison(std::size_t i) const;

private:
  std::string name_;
  runtime::ScalarType dtype_;
  std::vector<std::int64_t> shape_;
  Role role_;
  std::size_t numel_;
  std::size_t elementBytes_;
  std::vector<std::uint8_t> data_;
};

/// A small, fast, seedable generator (xoshiro256**), so that every case's
/// inputs follow from the run's printed seed and the case's name.
class Rng {
public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform01() { return (next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

private:
  std::uint64_t state_[4];
};

/// The per-case seed: `runSeed` mixed with a hash of `caseName`.
std::uint64_t caseSeed(std::uint64_t runSeed, const std::string &caseName);

} // namespace tilec::e2e

#endif // TILEC_E2E_HOSTTENSOR_H
