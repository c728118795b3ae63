//===- TensorMap.h - TMA descriptors as hidden kernel parameters -*- C++ -*-===//
//
// The "tma_descriptor" hidden-parameter recipe (docs/metadata.md): at every
// launch the runtime turns the recipe and the launch arguments into the
// inputs of cuTensorMapEncodeTiled, checks them against the rules of the
// Hopper tensor copy, and encodes the 128-byte CUtensorMap that the kernel
// receives by value (a `__grid_constant__` parameter).
//
// The steps are separate so that everything but the driver call is testable
// without a GPU:
//
//   resolveTensorMap   recipe + launch arguments -> TensorMapRequest
//                      (sizes, byte strides, base; TMA's rules checked)
//   encodeTensorMap    TensorMapRequest -> 128 bytes (cuTensorMapEncodeTiled)
//   TensorMapCache     skips the encode when the request equals the last one
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_TENSORMAP_H
#define TILEC_RUNTIME_TENSORMAP_H

#include "tilec/Runtime/KernelArg.h"
#include "tilec/Runtime/KernelMetadata.h"
#include "tilec/Runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tilec::runtime {

class Driver;

/// Limits of the Hopper tensor copy (cuTensorMapEncodeTiled).
inline constexpr unsigned kTmaMaxRank = 5;
inline constexpr std::uint32_t kTmaMaxBox = 256;
inline constexpr std::uint64_t kTmaMaxDimSize = std::uint64_t(1) << 32;
inline constexpr std::uint64_t kTmaStrideLimitBytes = std::uint64_t(1) << 40;
inline constexpr std::uint64_t kTmaAlignBytes = 16;
/// Size and (minimum) parameter-space alignment of a CUtensorMap.
inline constexpr std::size_t kTensorMapBytes = 128;
inline constexpr std::size_t kTensorMapAlign = 64;

/// The inputs of one cuTensorMapEncodeTiled call (interleave none, L2
/// promotion 128B, element strides all 1), resolved for one launch. Entries
/// past `rank` are zero, so two requests compare equal exactly when the
/// driver would produce the same descriptor.
struct TensorMapRequest {
  ScalarType element = ScalarType::FP16;
  unsigned rank = 0;
  DevicePtr globalAddress = 0;
  /// Elements per dimension, innermost first.
  std::array<std::uint64_t, kTmaMaxRank> globalDim{};
  /// Byte strides of dimensions 1 .. rank-1 (cuTensorMapEncodeTiled's
  /// `globalStrides`: the innermost stride is implied by the element size).
  std::array<std::uint64_t, kTmaMaxRank - 1> globalStrides{};
  std::array<std::uint32_t, kTmaMaxRank> boxDim{};
  std::array<std::uint32_t, kTmaMaxRank> elementStrides{};
  unsigned swizzleBytes = 0;
  bool nanFill = false;

  bool operator==(const TensorMapRequest &other) const;
  bool operator!=(const TensorMapRequest &other) const {
    return !(*this == other);
  }
};

/// One encoded CUtensorMap (aligned like cuda.h's CUtensorMap).
struct alignas(128) TensorMapBytes {
  std::uint8_t bytes[kTensorMapBytes];
};

/// Resolves hidden parameter `hidden` (a "tma_descriptor" recipe of `md`)
/// against the launch arguments `args` (one per launch parameter, as
/// `PackedArguments::pack` takes them) and checks the rules of the tensor
/// copy before any driver call:
///  - the base address is 16-byte aligned;
///  - every size is in [1, 2^32];
///  - the innermost stride is 1; every other stride is a non-negative
///    multiple of 16 bytes below 2^40 bytes.
/// Errors are `InvalidArgument`, e.g. "kernel 'matmul_kernel': TMA
/// descriptor 'a_ptr.tma0': stride_am = 1001 elements (2002 bytes) is not a
/// multiple of 16 bytes, as the Hopper tensor copy requires".
Expected<TensorMapRequest> resolveTensorMap(const KernelMetadata &md,
                                            const HiddenParameterInfo &hidden,
                                            KernelArgs args);

/// "fp16 tensor at 0x7f0000000000, sizes [K=4096, M=512], strides [1,
/// stride_am=4096 (8192 bytes)], box [64, 128], swizzle 128B, out-of-bounds
/// zero": the request in the recipe's words, for messages.
std::string describeTensorMap(const HiddenParameterInfo &hidden,
                              const TensorMapRequest &request);

/// Encodes `request` with the driver's cuTensorMapEncodeTiled. Errors:
/// `Unsupported` when the driver lacks the entry point (older than CUDA
/// 12.0); `CudaError` naming the kernel, the descriptor and every input
/// (`describeTensorMap`) when the driver rejects the request.
Expected<TensorMapBytes> encodeTensorMap(const Driver &driver,
                                         const KernelMetadata &md,
                                         const HiddenParameterInfo &hidden,
                                         const TensorMapRequest &request);

/// The CUtensorMapDataType cuTensorMapEncodeTiled gets for an element type:
/// FLOAT16, BFLOAT16, FLOAT32, FLOAT64; INT32, UINT32, INT64, UINT64 for the
/// 32- and 64-bit integers; UINT16 for i16/u16; UINT8 for i1, i8, u8 and the
/// fp8 types (TMA moves their bytes; it has no fp8 or signed 8/16-bit types).
int tensorMapDataType(ScalarType element);

// The rules of the tensor copy, shared by the metadata parser (literal and
// constexpr values) and resolveTensorMap (launch arguments). Each returns ""
// when the value is allowed, else the end of a message naming `label` (the
// parameter name, or "dims[1].stride" for a literal), e.g. "stride_am = 1001
// elements (2002 bytes) is not a multiple of 16 bytes, as the Hopper tensor
// copy requires".

/// A dimension's size: 1 .. 2^32 elements.
std::string checkTmaSize(const std::string &label, std::int64_t elements);
/// A dimension's stride in elements of `elementBytes` bytes; `innermost`
/// strides must be 1.
std::string checkTmaStride(const std::string &label, std::int64_t elements,
                           std::size_t elementBytes, bool innermost);
/// The box of a recipe (parse time): each entry 1 .. 256, the innermost
/// span a multiple of 16 bytes and, when swizzled, at most the swizzle span.
std::string checkTmaBox(const std::vector<std::uint32_t> &box,
                        std::size_t elementBytes, unsigned swizzleBytes);

/// Skips re-encoding a descriptor whose inputs did not change since the
/// previous launch (one cache per hidden parameter of a loaded kernel).
class TensorMapCache {
public:
  using Encoder =
      std::function<Expected<TensorMapBytes>(const TensorMapRequest &)>;

  /// The descriptor for `request`: the cached one when `request` equals the
  /// last request that encoded successfully, else `encode(request)` (kept on
  /// success; a failure clears the cache). The pointer stays valid until the
  /// next call.
  Expected<const TensorMapBytes *> get(const TensorMapRequest &request,
                                       const Encoder &encode);

  /// Number of `get` calls answered from the cache / by encoding.
  std::uint64_t hits() const { return hits_; }
  std::uint64_t encodes() const { return encodes_; }

private:
  std::optional<TensorMapRequest> request_;
  TensorMapBytes bytes_{};
  std::uint64_t hits_ = 0;
  std::uint64_t encodes_ = 0;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_TENSORMAP_H
