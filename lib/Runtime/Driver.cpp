//===- Driver.cpp - The dynamically loaded CUDA driver --------------------===//

#include "tilec/Runtime/Driver.h"

#include "DriverApi.h"

#include <dlfcn.h>

#include <cstdlib>

namespace tilec::runtime {

Driver::Driver() : api_(std::make_unique<DriverApi>()) {}

Driver::~Driver() {
  // The library stays loaded: CUDA's own atexit handlers and any objects
  // still holding driver handles may run after us, and unloading libcuda
  // under them crashes. dlclose would only save address space.
}

Expected<std::unique_ptr<Driver>> Driver::open(const std::string &libraryPath) {
  std::unique_ptr<Driver> driver(new Driver());
  driver->libraryPath_ = libraryPath;

  dlerror();
  driver->handle_ = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver->handle_) {
    const char *reason = dlerror();
    return Status::error(ErrorCode::DriverUnavailable,
                         "no CUDA driver: " + libraryPath + " not found " +
                             "(dlopen: " + (reason ? reason : "unknown error") +
                             ")");
  }

  DriverApi &api = *driver->api_;
  auto lookup = [&](const char *symbol, const char *fallback) -> void * {
    void *address = dlsym(driver->handle_, symbol);
    if (!address && fallback)
      address = dlsym(driver->handle_, fallback);
    return address;
  };

#define TILEC_CUDA_RESOLVE_REQUIRED(member, prototype, symbol, fallback)       \
  api.member = reinterpret_cast<decltype(api.member)>(lookup(symbol, fallback)); \
  if (!api.member)                                                             \
    return Status::error(ErrorCode::DriverUnavailable,                         \
                         "no CUDA driver: " + libraryPath +                    \
                             " does not export " symbol                        \
                             " (a driver older than this runtime needs, or "   \
                             "not libcuda)");
  TILEC_CUDA_REQUIRED_FUNCTIONS(TILEC_CUDA_RESOLVE_REQUIRED)
#undef TILEC_CUDA_RESOLVE_REQUIRED

#define TILEC_CUDA_RESOLVE_OPTIONAL(member, prototype, symbol, fallback)       \
  api.member = reinterpret_cast<decltype(api.member)>(lookup(symbol, fallback));
  TILEC_CUDA_OPTIONAL_FUNCTIONS(TILEC_CUDA_RESOLVE_OPTIONAL)
#undef TILEC_CUDA_RESOLVE_OPTIONAL

  CUresult result = api.init(0);
  if (result != CUDA_SUCCESS)
    return Status::error(ErrorCode::DriverUnavailable,
                         "no usable CUDA device: cuInit failed: " +
                             driver->describeResult(result),
                         result);
  TILEC_RETURN_IF_ERROR(driver->check(api.driverGetVersion(&driver->version_),
                                      "cuDriverGetVersion"));
  return driver;
}

Expected<Driver *> Driver::load() {
  // A function-local static is initialized once, thread-safely; the error
  // (if any) is kept so that every caller sees the same reason.
  static Expected<std::unique_ptr<Driver>> instance = [] {
    const char *override = std::getenv("TILEC_LIBCUDA");
    return open(override && *override ? override : "libcuda.so.1");
  }();
  if (!instance)
    return instance.status();
  return instance->get();
}

std::string Driver::describeResult(int result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  CUresult code = static_cast<CUresult>(result);
  if (api_->getErrorName(code, &name) != CUDA_SUCCESS || !name)
    return "CUresult " + std::to_string(result) + " (unknown error code)";
  if (api_->getErrorString(code, &text) != CUDA_SUCCESS || !text)
    return name;
  return std::string(name) + " (" + text + ")";
}

Status Driver::check(int result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  return Status::error(ErrorCode::CudaError,
                       std::string(call) + " failed: " + describeResult(result),
                       result);
}

Expected<int> Driver::deviceCount() const {
  int count = 0;
  TILEC_RETURN_IF_ERROR(check(api_->deviceGetCount(&count), "cuDeviceGetCount"));
  return count;
}

} // namespace tilec::runtime
