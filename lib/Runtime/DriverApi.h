//===- DriverApi.h - The CUDA driver entry points we use --------*- C++ -*-===//
//
// Private to lib/Runtime: the only file that sees cuda.h's prototypes. The
// types come from the CUDA toolkit's cuda.h; the code is resolved at run time
// with dlsym from libcuda.so.1, so nothing links against libcuda.
//
// dlsym needs the real ABI names: cuda.h maps many functions to versioned
// symbols (`#define cuMemAlloc cuMemAlloc_v2`), and the plain names are the
// old ABIs. Each entry names its symbol explicitly; `decltype` of the
// versioned prototype gives the matching pointer type.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_RUNTIME_DRIVERAPI_H
#define TILEC_LIB_RUNTIME_DRIVERAPI_H

#include <cuda.h>

namespace tilec::runtime {

// X(member, declared prototype, symbol, fallback symbol or nullptr)
#define TILEC_CUDA_REQUIRED_FUNCTIONS(X)                                       \
  X(init, cuInit, "cuInit", nullptr)                                           \
  X(driverGetVersion, cuDriverGetVersion, "cuDriverGetVersion", nullptr)       \
  X(getErrorName, cuGetErrorName, "cuGetErrorName", nullptr)                   \
  X(getErrorString, cuGetErrorString, "cuGetErrorString", nullptr)             \
  X(deviceGet, cuDeviceGet, "cuDeviceGet", nullptr)                            \
  X(deviceGetCount, cuDeviceGetCount, "cuDeviceGetCount", nullptr)             \
  X(deviceGetAttribute, cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr) \
  X(deviceGetName, cuDeviceGetName, "cuDeviceGetName", nullptr)                \
  X(deviceTotalMem, cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2", nullptr)       \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",    \
    nullptr)                                                                   \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease_v2,                           \
    "cuDevicePrimaryCtxRelease_v2", nullptr)                                   \
  X(ctxSetCurrent, cuCtxSetCurrent, "cuCtxSetCurrent", nullptr)                \
  X(ctxGetCurrent, cuCtxGetCurrent, "cuCtxGetCurrent", nullptr)                \
  X(ctxSynchronize, cuCtxSynchronize, "cuCtxSynchronize", nullptr)             \
  X(moduleLoadData, cuModuleLoadData, "cuModuleLoadData", nullptr)             \
  X(moduleLoadDataEx, cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr)       \
  X(moduleUnload, cuModuleUnload, "cuModuleUnload", nullptr)                   \
  X(moduleGetFunction, cuModuleGetFunction, "cuModuleGetFunction", nullptr)    \
  X(funcGetAttribute, cuFuncGetAttribute, "cuFuncGetAttribute", nullptr)       \
  X(funcSetAttribute, cuFuncSetAttribute, "cuFuncSetAttribute", nullptr)       \
  X(launchKernel, cuLaunchKernel, "cuLaunchKernel", nullptr)                   \
  X(occupancyMaxActiveBlocksPerMultiprocessor,                                 \
    cuOccupancyMaxActiveBlocksPerMultiprocessor,                               \
    "cuOccupancyMaxActiveBlocksPerMultiprocessor", nullptr)                    \
  X(memGetInfo, cuMemGetInfo_v2, "cuMemGetInfo_v2", nullptr)                   \
  X(memAlloc, cuMemAlloc_v2, "cuMemAlloc_v2", nullptr)                         \
  X(memFree, cuMemFree_v2, "cuMemFree_v2", nullptr)                            \
  X(memcpyHtoD, cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", nullptr)                   \
  X(memcpyDtoH, cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", nullptr)                   \
  X(memsetD8, cuMemsetD8_v2, "cuMemsetD8_v2", nullptr)                         \
  X(memsetD32, cuMemsetD32_v2, "cuMemsetD32_v2", nullptr)                      \
  X(memsetD32Async, cuMemsetD32Async, "cuMemsetD32Async", nullptr)             \
  X(streamCreate, cuStreamCreate, "cuStreamCreate", nullptr)                   \
  X(streamDestroy, cuStreamDestroy_v2, "cuStreamDestroy_v2", nullptr)          \
  X(streamSynchronize, cuStreamSynchronize, "cuStreamSynchronize", nullptr)    \
  X(eventCreate, cuEventCreate, "cuEventCreate", nullptr)                      \
  X(eventDestroy, cuEventDestroy_v2, "cuEventDestroy_v2", nullptr)             \
  X(eventRecord, cuEventRecord, "cuEventRecord", nullptr)                      \
  X(eventQuery, cuEventQuery, "cuEventQuery", nullptr)                         \
  X(eventSynchronize, cuEventSynchronize, "cuEventSynchronize", nullptr)       \
  X(eventElapsedTime, cuEventElapsedTime_v2, "cuEventElapsedTime_v2",          \
    "cuEventElapsedTime")

// Entry points that older drivers may lack; null when absent.
#define TILEC_CUDA_OPTIONAL_FUNCTIONS(X)                                       \
  X(launchKernelEx, cuLaunchKernelEx, "cuLaunchKernelEx", nullptr)             \
  X(funcGetParamInfo, cuFuncGetParamInfo, "cuFuncGetParamInfo", nullptr)       \
  X(tensorMapEncodeTiled, cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled",    \
    nullptr)

/// Function pointers into libcuda.so.1, filled by `Driver::open`.
struct DriverApi {
#define TILEC_CUDA_MEMBER(member, prototype, symbol, fallback)                 \
  decltype(&::prototype) member = nullptr;
  TILEC_CUDA_REQUIRED_FUNCTIONS(TILEC_CUDA_MEMBER)
  TILEC_CUDA_OPTIONAL_FUNCTIONS(TILEC_CUDA_MEMBER)
#undef TILEC_CUDA_MEMBER
};

} // namespace tilec::runtime

#endif // TILEC_LIB_RUNTIME_DRIVERAPI_H
