//===- TensorMap.cpp - TMA descriptors as hidden kernel parameters --------===//

#include "tilec/Runtime/TensorMap.h"

#include "tilec/Runtime/Driver.h"

#include "DriverApi.h"

#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <limits>

namespace tilec::runtime {

static_assert(sizeof(CUtensorMap) == kTensorMapBytes,
              "CUtensorMap is 128 bytes");
static_assert(sizeof(TensorMapBytes) == kTensorMapBytes,
              "TensorMapBytes holds exactly one CUtensorMap");
static_assert(alignof(TensorMapBytes) >= kTensorMapAlign,
              "cuTensorMapEncodeTiled writes to a 64-byte aligned address");

namespace {

constexpr const char *kRequirement = ", as the Hopper tensor copy requires";

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
  return text;
}

Status tmaError(const KernelMetadata &md, const HiddenParameterInfo &hidden,
                const std::string &message) {
  return Status::error(ErrorCode::InvalidArgument,
                       "kernel '" + md.name + "': TMA descriptor '" +
                           hidden.name + "': " + message);
}

/// The value of launch argument `arg` read as parameter `param`'s integer
/// type (sign-extended for signed types). Unsigned 64-bit values above
/// INT64_MAX do not fit: nullopt, with their text in `text`.
std::optional<std::int64_t> integerValue(const ParameterInfo &param,
                                         const KernelArg &arg,
                                         std::string &text) {
  std::uint64_t bits = arg.bits();
  std::size_t size = scalarTypeSize(param.type);
  if (size < 8)
    bits &= (std::uint64_t(1) << (8 * size)) - 1;
  bool isSigned = param.type == ScalarType::I8 ||
                  param.type == ScalarType::I16 ||
                  param.type == ScalarType::I32 || param.type == ScalarType::I64;
  if (isSigned && size < 8) {
    unsigned shift = 64 - 8 * static_cast<unsigned>(size);
    return static_cast<std::int64_t>(bits << shift) >> shift;
  }
  if (isSigned)
    return static_cast<std::int64_t>(bits);
  if (bits > static_cast<std::uint64_t>(
                 std::numeric_limits<std::int64_t>::max())) {
    text = std::to_string(bits);
    return std::nullopt;
  }
  return static_cast<std::int64_t>(bits);
}

const char *swizzleName(unsigned bytes) {
  switch (bytes) {
  case 0:
    return "none";
  case 32:
    return "32B";
  case 64:
    return "64B";
  default:
    return "128B";
  }
}

} // namespace

bool TensorMapRequest::operator==(const TensorMapRequest &other) const {
  return element == other.element && rank == other.rank &&
         globalAddress == other.globalAddress &&
         globalDim == other.globalDim &&
         globalStrides == other.globalStrides && boxDim == other.boxDim &&
         elementStrides == other.elementStrides &&
         swizzleBytes == other.swizzleBytes && nanFill == other.nanFill;
}

std::string checkTmaSize(const std::string &label, std::int64_t elements) {
  if (elements >= 1 && static_cast<std::uint64_t>(elements) <= kTmaMaxDimSize)
    return "";
  return label + " = " + std::to_string(elements) +
         " is not a dimension size from 1 to 2^32" + kRequirement;
}

std::string checkTmaStride(const std::string &label, std::int64_t elements,
                           std::size_t elementBytes, bool innermost) {
  if (innermost) {
    if (elements == 1)
      return "";
    return label + " = " + std::to_string(elements) +
           ": the innermost dimension must be contiguous (stride 1)" +
           kRequirement;
  }
  if (elements < 0)
    return label + " = " + std::to_string(elements) +
           " elements is negative; strides must be non-negative" +
           kRequirement;
  std::uint64_t count = static_cast<std::uint64_t>(elements);
  // Compare before multiplying, so that huge values cannot wrap.
  if (count >= kTmaStrideLimitBytes / elementBytes ||
      count * elementBytes >= kTmaStrideLimitBytes)
    return label + " = " + std::to_string(elements) + " elements (" +
           (count < (std::uint64_t(1) << 60)
                ? std::to_string(count * elementBytes) + " bytes"
                : std::string("over 2^60 bytes")) +
           ") is not below 2^40 bytes" + kRequirement;
  std::uint64_t bytes = count * elementBytes;
  if (bytes % kTmaAlignBytes != 0)
    return label + " = " + std::to_string(elements) + " element" +
           (elements == 1 ? "" : "s") + " (" + std::to_string(bytes) +
           " byte" + (bytes == 1 ? "" : "s") +
           ") is not a multiple of 16 bytes" + kRequirement;
  return "";
}

std::string checkTmaBox(const std::vector<std::uint32_t> &box,
                        std::size_t elementBytes, unsigned swizzleBytes) {
  for (std::size_t i = 0; i < box.size(); ++i)
    if (box[i] < 1 || box[i] > kTmaMaxBox)
      return "box[" + std::to_string(i) + "] = " + std::to_string(box[i]) +
             " is not from 1 to 256" + kRequirement;
  if (box.empty())
    return "";
  std::uint64_t innerBytes = std::uint64_t(box[0]) * elementBytes;
  if (innerBytes % kTmaAlignBytes != 0)
    return "the innermost box dimension is " + std::to_string(innerBytes) +
           " bytes (" + std::to_string(box[0]) + " elements of " +
           std::to_string(elementBytes) +
           " bytes), not a multiple of 16 bytes" + kRequirement;
  if (swizzleBytes != 0 && innerBytes > swizzleBytes)
    return "the innermost box dimension is " + std::to_string(innerBytes) +
           " bytes (" + std::to_string(box[0]) + " elements of " +
           std::to_string(elementBytes) + " bytes), more than the " +
           std::to_string(swizzleBytes) + "-byte swizzle span" + kRequirement;
  return "";
}

Expected<TensorMapRequest> resolveTensorMap(const KernelMetadata &md,
                                            const HiddenParameterInfo &hidden,
                                            KernelArgs args) {
  const TmaDescriptorRecipe &recipe = hidden.recipe.tma;
  if (hidden.recipe.kind != "tma_descriptor")
    return tmaError(md, hidden, "not a tma_descriptor recipe");
  std::vector<const ParameterInfo *> params = md.launchParameters();
  if (args.size() != params.size())
    return tmaError(md, hidden,
                    "the kernel takes " + std::to_string(params.size()) +
                        " arguments, got " + std::to_string(args.size()));

  // A value of the recipe: known since parsing, or its known part times
  // the scalar arguments it multiplies in.
  auto resolve = [&](const RecipeValue &value,
                     std::int64_t &out) -> std::string {
    out = value.value;
    for (int argument : value.arguments) {
      std::size_t index = static_cast<std::size_t>(argument);
      if (index >= args.size() ||
          args[index].kind() != KernelArg::Kind::Scalar)
        return "argument " + std::to_string(index + 1) + " for '" +
               value.parameter + "' is not a scalar";
      std::string text;
      std::optional<std::int64_t> number =
          integerValue(*params[index], args[index], text);
      if (!number)
        return params[index]->name + " = " + text + " is out of range" +
               kRequirement;
      if (*number != 0 &&
          (out > std::numeric_limits<std::int64_t>::max() / std::abs(*number) ||
           out < std::numeric_limits<std::int64_t>::min() / std::abs(*number)))
        return value.parameter + " is out of range" + kRequirement;
      out *= *number;
    }
    return "";
  };
  for (const RecipeValue &value : recipe.nonNegative) {
    std::int64_t number = 0;
    std::string problem = resolve(value, number);
    if (problem.empty() && number < 0)
      problem = value.parameter + " = " + std::to_string(number) +
                " is negative, but the kernel's TMA copies were placed "
                "assuming it is not (a block coordinate is computed from "
                "it); compile with --disable-tma for such launches";
    if (!problem.empty())
      return tmaError(md, hidden, problem);
  }

  TensorMapRequest request;
  request.element = recipe.element;
  request.rank = static_cast<unsigned>(recipe.dims.size());
  if (request.rank < 1 || request.rank > kTmaMaxRank ||
      recipe.box.size() != recipe.dims.size())
    return tmaError(md, hidden, "the recipe has " +
                                    std::to_string(request.rank) +
                                    " dimensions and " +
                                    std::to_string(recipe.box.size()) +
                                    " box entries (1 to 5 of each expected)");

  std::size_t base = static_cast<std::size_t>(recipe.baseArgument);
  if (base >= args.size() || args[base].kind() != KernelArg::Kind::Pointer)
    return tmaError(md, hidden, "the base '" + recipe.base +
                                    "' is not a pointer argument");
  request.globalAddress = args[base].bits();
  if (request.globalAddress % kTmaAlignBytes != 0)
    return tmaError(md, hidden,
                    "base " + recipe.base + " = " +
                        hex(request.globalAddress) +
                        " is not 16-byte aligned" + kRequirement);

  std::size_t elementBytes = scalarTypeSize(recipe.element);
  bool empty = false;
  for (unsigned i = 0; i < request.rank; ++i) {
    const TmaDimension &dim = recipe.dims[i];
    std::string where = "dims[" + std::to_string(i) + "]";
    std::int64_t size = 0, stride = 0;
    std::string problem = resolve(dim.size, size);
    // An empty dimension (K = 0): the loops over it issue no copies, and a
    // descriptor cannot describe it; encode one element (of a tensor that
    // may have no memory: a null base is replaced by an aligned address
    // nothing reads, below).
    if (problem.empty() && size == 0) {
      size = 1;
      empty = true;
    }
    if (problem.empty())
      problem = checkTmaSize(
          dim.size.parameter.empty() ? where + ".size" : dim.size.parameter,
          size);
    if (problem.empty())
      problem = resolve(dim.stride, stride);
    if (problem.empty())
      problem = checkTmaStride(dim.stride.parameter.empty()
                                   ? where + ".stride"
                                   : dim.stride.parameter,
                               stride, elementBytes, i == 0);
    if (!problem.empty())
      return tmaError(md, hidden, problem);
    request.globalDim[i] = static_cast<std::uint64_t>(size);
    if (i > 0)
      request.globalStrides[i - 1] =
          static_cast<std::uint64_t>(stride) * elementBytes;
    request.boxDim[i] = recipe.box[i];
    request.elementStrides[i] = 1;
  }
  if (empty && request.globalAddress == 0)
    request.globalAddress = kTmaAlignBytes;
  request.swizzleBytes = recipe.swizzleBytes;
  request.nanFill = recipe.nanFill;
  return request;
}

std::string describeTensorMap(const HiddenParameterInfo &hidden,
                              const TensorMapRequest &request) {
  const TmaDescriptorRecipe &recipe = hidden.recipe.tma;
  std::size_t elementBytes = scalarTypeSize(request.element);
  auto named = [](const RecipeValue &value, const std::string &text) {
    return value.parameter.empty() ? text : value.parameter + "=" + text;
  };
  std::string sizes, strides, box;
  for (unsigned i = 0; i < request.rank; ++i) {
    const char *comma = i ? ", " : "";
    bool haveRecipe = i < recipe.dims.size();
    std::string size = std::to_string(request.globalDim[i]);
    sizes += comma + (haveRecipe ? named(recipe.dims[i].size, size) : size);
    std::string stride =
        i == 0 ? std::string("1")
               : std::to_string(request.globalStrides[i - 1] / elementBytes) +
                     " (" + std::to_string(request.globalStrides[i - 1]) +
                     " bytes)";
    strides +=
        comma + (haveRecipe ? named(recipe.dims[i].stride, stride) : stride);
    box += comma + std::to_string(request.boxDim[i]);
  }
  return std::string(scalarTypeName(request.element)) + " tensor at " +
         hex(request.globalAddress) + ", sizes [" + sizes + "], strides [" +
         strides + "], box [" + box + "], swizzle " +
         swizzleName(request.swizzleBytes) + ", out-of-bounds " +
         (request.nanFill ? "NaN" : "zero");
}

int tensorMapDataType(ScalarType element) {
  switch (element) {
  case ScalarType::FP16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case ScalarType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case ScalarType::FP32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case ScalarType::FP64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case ScalarType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case ScalarType::U32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case ScalarType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case ScalarType::U64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  case ScalarType::I16:
  case ScalarType::U16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case ScalarType::I1:
  case ScalarType::I8:
  case ScalarType::U8:
  case ScalarType::FP8E4NV:
  case ScalarType::FP8E5:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

Expected<TensorMapBytes> encodeTensorMap(const Driver &driver,
                                         const KernelMetadata &md,
                                         const HiddenParameterInfo &hidden,
                                         const TensorMapRequest &request) {
  const DriverApi &api = driver.api();
  std::string what = "kernel '" + md.name + "': TMA descriptor '" +
                     hidden.name + "'";
  if (!api.tensorMapEncodeTiled)
    return Status::error(ErrorCode::Unsupported,
                         what + " needs cuTensorMapEncodeTiled, which this "
                                "driver lacks (CUDA 12.0 or newer needed)");

  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  switch (request.swizzleBytes) {
  case 0:
    break;
  case 32:
    swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
    break;
  case 64:
    swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
    break;
  case 128:
    swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    break;
  default:
    return Status::error(ErrorCode::InvalidArgument,
                         what + ": swizzle " +
                             std::to_string(request.swizzleBytes) +
                             " is not 0, 32, 64 or 128 bytes");
  }

  CUtensorMap map;
  std::memset(&map, 0, sizeof(map));
  CUresult result = api.tensorMapEncodeTiled(
      &map, static_cast<CUtensorMapDataType>(tensorMapDataType(request.element)),
      request.rank, reinterpret_cast<void *>(request.globalAddress),
      request.globalDim.data(), request.globalStrides.data(),
      request.boxDim.data(), request.elementStrides.data(),
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      request.nanFill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                      : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    std::string hint;
    if (result == CUDA_ERROR_INVALID_VALUE)
      hint = "; the runtime's checks of the tensor copy's rules passed, so "
             "the driver rejected a combination they do not cover";
    else if (result == CUDA_ERROR_INVALID_CONTEXT ||
             result == CUDA_ERROR_NOT_INITIALIZED)
      hint = "; is the device's context current on this thread "
             "(Device::makeCurrent)?";
    Status failed = driver.check(result, "cuTensorMapEncodeTiled");
    return Status::error(ErrorCode::CudaError,
                         what + ": " + failed.message() + " for the " +
                             describeTensorMap(hidden, request) + hint,
                         result);
  }
  TensorMapBytes bytes;
  std::memcpy(bytes.bytes, &map, sizeof(bytes.bytes));
  return bytes;
}

Expected<const TensorMapBytes *>
TensorMapCache::get(const TensorMapRequest &request, const Encoder &encode) {
  if (request_ && *request_ == request) {
    ++hits_;
    return &bytes_;
  }
  request_.reset();
  ++encodes_;
  Expected<TensorMapBytes> encoded = encode(request);
  if (!encoded)
    return encoded.status();
  bytes_ = *encoded;
  request_ = request;
  return &bytes_;
}

} // namespace tilec::runtime
