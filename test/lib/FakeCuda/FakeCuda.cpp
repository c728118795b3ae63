//===- FakeCuda.cpp - A CUDA driver stand-in for tests without a GPU ------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// See FakeCuda.h. Every entry point the runtime requires is here, with the
// exact (versioned) symbol name it resolves; the optional cuFuncGetParamInfo
// is left out, so the runtime skips its parameter-layout check.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct FakeModule {
  std::string image;
  bool isPtx = false;
};

struct FakeFunction {
  FakeModule *module = nullptr;
  std::string name;
  /// Parameter sizes from the PTX `.entry` (empty and unknown for a cubin).
  bool knownParams = false;
  std::vector<size_t> paramSizes;
};

std::mutex mutex;
TilecFakeCudaStats stats;
TilecFakeCudaLaunch lastLaunch;
int primaryContext; // Its address is the one context.
thread_local CUcontext current = nullptr;

/// Size of one `.param` declaration: `.param .u64 .ptr .global .align 1 x`,
/// `.param .f32 y`, `.param .align 64 .b8 z[128]`.
size_t paramSize(const std::string &decl) {
  size_t bytes = 0;
  for (const char *type : {".u", ".s", ".b", ".f"}) {
    for (size_t at = decl.find(type); at != std::string::npos;
         at = decl.find(type, at + 1)) {
      int bits = std::atoi(decl.c_str() + at + 2);
      if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
        bytes = bits / 8;
    }
  }
  size_t open = decl.find('[');
  if (open != std::string::npos)
    bytes *= std::strtoul(decl.c_str() + open + 1, nullptr, 10);
  return bytes;
}

/// The parameter sizes of `.entry name(...)` in PTX text.
bool parsePtxParams(const std::string &ptx, const std::string &name,
                    std::vector<size_t> &sizes) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos)
    return false;
  size_t end = ptx.find(')', at);
  if (end == std::string::npos)
    return false;
  std::string list = ptx.substr(at, end - at);
  for (size_t p = list.find(".param"); p != std::string::npos;
       p = list.find(".param", p + 1)) {
    size_t stop = list.find_first_of(",\n", p);
    sizes.push_back(paramSize(list.substr(p, stop - p)));
  }
  return true;
}

void record(FakeFunction *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
            unsigned by, unsigned bz, unsigned shared, CUstream stream,
            void **params) {
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.launches;
  TilecFakeCudaLaunch &l = lastLaunch;
  std::memset(&l, 0, sizeof(l));
  std::strncpy(l.entry, f->name.c_str(), sizeof(l.entry) - 1);
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = gz;
  l.block[0] = bx, l.block[1] = by, l.block[2] = bz;
  l.sharedBytes = shared;
  l.stream = stream;
  if (!f->knownParams) {
    l.numParams = -1;
    return;
  }
  size_t offset = 0;
  for (size_t i = 0; i < f->paramSizes.size() && i < 64; ++i) {
    size_t size = f->paramSizes[i];
    if (offset + size > sizeof(l.params))
      break;
    std::memcpy(l.params + offset, params[i], size);
    l.paramOffsets[i] = offset;
    l.paramSizes[i] = size;
    offset += size;
    l.numParams = static_cast<int>(i + 1);
  }
}

/// The error every launch and synchronization returns after a simulated
/// trap (tilecFakeCudaFailLaunches), as a real context's sticky error.
std::atomic<int> stickyError{0};

CUresult needContext() {
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult launchResult() {
  if (CUresult r = needContext())
    return r;
  return static_cast<CUresult>(stickyError.load());
}

/// An integer from the environment (0 when unset).
int envInt(const char *name) {
  const char *value = std::getenv(name);
  return value ? std::atoi(value) : 0;
}

/// Process-level faults for tests that run a tool on the fake driver (no
/// dlsym possible): TILEC_FAKE_CUDA_TRAP_LAUNCH=N makes the N-th launch of
/// the process trap (the launch succeeds, everything after it returns
/// CUDA_ERROR_LAUNCH_FAILED, as a real sticky error);
/// TILEC_FAKE_CUDA_MAX_CONTEXTS=N lets the primary context be created (retained
/// from a reference count of 0) at most N times, so that a test can tell a
/// process that keeps its context from one that makes a new one per run.
std::atomic<int> processLaunches{0};
int contextRefs = 0, contextsCreated = 0;

void countLaunch() {
  int trapAt = envInt("TILEC_FAKE_CUDA_TRAP_LAUNCH");
  if (++processLaunches == trapAt && trapAt > 0)
    stickyError = CUDA_ERROR_LAUNCH_FAILED;
}

} // namespace

extern "C" {

void tilecFakeCudaGetStats(TilecFakeCudaStats *out) {
  std::lock_guard<std::mutex> lock(mutex);
  *out = stats;
}

void tilecFakeCudaLastLaunch(TilecFakeCudaLaunch *out) {
  std::lock_guard<std::mutex> lock(mutex);
  *out = lastLaunch;
}

void tilecFakeCudaFailLaunches(int result) { stickyError = result; }

void tilecFakeCudaReset(void) {
  stickyError = 0;
  std::lock_guard<std::mutex> lock(mutex);
  stats = TilecFakeCudaStats();
  std::memset(&lastLaunch, 0, sizeof(lastLaunch));
}

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case CUDA_SUCCESS:
    *name = "CUDA_SUCCESS";
    break;
  case CUDA_ERROR_ASSERT:
    *name = "CUDA_ERROR_ASSERT";
    break;
  case CUDA_ERROR_LAUNCH_FAILED:
    *name = "CUDA_ERROR_LAUNCH_FAILED";
    break;
  default:
    *name = "CUDA_ERROR_FAKE";
  }
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "reported by the fake test driver";
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    // TILEC_FAKE_CUDA_SHARED_OPTIN: a smaller device, for the limit checks.
    *value = std::getenv("TILEC_FAKE_CUDA_SHARED_OPTIN")
                 ? std::atoi(std::getenv("TILEC_FAKE_CUDA_SHARED_OPTIN"))
                 : 232448;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *value = 60 << 20;
    break;
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Fake H200 (tilec test driver)", length);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = size_t(141) << 30;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  std::lock_guard<std::mutex> lock(mutex);
  if (contextRefs == 0) {
    int most = envInt("TILEC_FAKE_CUDA_MAX_CONTEXTS");
    if (most > 0 && contextsCreated >= most)
      return CUDA_ERROR_OUT_OF_MEMORY;
    ++contextsCreated;
  }
  ++contextRefs;
  *context = reinterpret_cast<CUcontext>(&primaryContext);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) {
  std::lock_guard<std::mutex> lock(mutex);
  if (contextRefs > 0)
    --contextRefs;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) { return launchResult(); }

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int,
                            CUjit_option *, void **) {
  if (CUresult r = needContext())
    return r;
  auto *m = new FakeModule();
  const char *bytes = static_cast<const char *>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    // The section headers end the image (they follow the sections in
    // cubins ptxas writes): e_shoff + e_shnum * e_shentsize.
    uint64_t shoff;
    uint16_t shentsize, shnum;
    std::memcpy(&shoff, bytes + 0x28, 8);
    std::memcpy(&shentsize, bytes + 0x3a, 2);
    std::memcpy(&shnum, bytes + 0x3c, 2);
    m->image.assign(bytes, shoff + uint64_t(shnum) * shentsize);
  } else {
    m->image = bytes;
    m->isPtx = true;
    if (m->image.find(".entry") == std::string::npos) {
      delete m;
      return CUDA_ERROR_INVALID_PTX;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.moduleLoads;
    stats.ptxLoads += m->isPtx;
  }
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}

CUresult cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<FakeModule *>(module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  auto *m = reinterpret_cast<FakeModule *>(module);
  if (m->image.find(name) == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  // Functions are never freed individually (as in the real driver, they
  // live as long as the module); a test process is short.
  auto *f = new FakeFunction();
  f->module = m;
  f->name = name;
  if (m->isPtx)
    f->knownParams = parsePtxParams(m->image, name, f->paramSizes);
  *function = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute,
                            CUfunction) {
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = 32;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *value = 80;
    break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *value = 90;
    break;
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}

/// A plain Hopper-like occupancy model for 32 registers per thread: at most
/// 32 CTAs and 2048 threads per SM, 227 KiB of shared memory per SM for the
/// dynamic shared memory plus 1 KiB the driver reserves per CTA.
/// TILEC_FAKE_CUDA_OCCUPANCY=N answers N instead (0 included: a kernel that
/// does not fit).
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                     CUfunction,
                                                     int blockSize,
                                                     size_t dynamicSMemSize) {
  if (const char *fixed = std::getenv("TILEC_FAKE_CUDA_OCCUPANCY")) {
    *numBlocks = std::atoi(fixed);
    return CUDA_SUCCESS;
  }
  if (blockSize < 1 || blockSize > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  size_t blocks = std::min<size_t>(32, 2048 / size_t(blockSize));
  blocks = std::min<size_t>(blocks, 232448 / (dynamicSMemSize + 1024));
  *numBlocks = static_cast<int>(blocks);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction function, unsigned int gx, unsigned int gy,
                        unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shared, CUstream stream,
                        void **params, void **) {
  if (CUresult r = launchResult())
    return r;
  record(reinterpret_cast<FakeFunction *>(function), gx, gy, gz, bx, by, bz,
         shared, stream, params);
  countLaunch();
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction function,
                          void **params, void **) {
  if (CUresult r = launchResult())
    return r;
  record(reinterpret_cast<FakeFunction *>(function), config->gridDimX,
         config->gridDimY, config->gridDimZ, config->blockDimX,
         config->blockDimY, config->blockDimZ, config->sharedMemBytes,
         config->hStream, params);
  countLaunch();
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  *total = size_t(141) << 30;
  *free = *total;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *address, size_t bytes) {
  void *memory = nullptr;
  if (posix_memalign(&memory, 256, bytes ? bytes : 1) != 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *address = reinterpret_cast<CUdeviceptr>(memory);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr address) {
  std::free(reinterpret_cast<void *>(address));
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  std::memset(reinterpret_cast<void *>(dst), value, count);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count) {
  auto *words = reinterpret_cast<unsigned int *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return CUDA_SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                          CUstream) {
  return cuMemsetD32_v2(dst, value, count);
}

CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  delete reinterpret_cast<int *>(stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream) { return launchResult(); }

CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent) { return launchResult(); }
CUresult cuEventSynchronize(CUevent) { return launchResult(); }

CUresult cuEventElapsedTime_v2(float *ms, CUevent, CUevent) {
  *ms = 0.001f;
  return CUDA_SUCCESS;
}

} // extern "C"
