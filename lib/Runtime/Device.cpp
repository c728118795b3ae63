//===- Device.cpp - A GPU and its primary context -------------------------===//

#include "tilec/Runtime/Device.h"

#include "tilec/Runtime/Driver.h"

#include "DriverApi.h"

namespace tilec::runtime {

Expected<std::unique_ptr<Device>> Device::open(int ordinal) {
  Expected<Driver *> driver = Driver::load();
  if (!driver)
    return driver.status();
  const DriverApi &api = (*driver)->api();

  Expected<int> count = (*driver)->deviceCount();
  if (!count)
    return count.status();
  if (*count == 0)
    return Status::error(ErrorCode::DriverUnavailable,
                         "no usable CUDA device: the driver sees no device");
  if (ordinal < 0 || ordinal >= *count)
    return Status::error(ErrorCode::InvalidArgument,
                         "device ordinal " + std::to_string(ordinal) +
                             " out of range (" + std::to_string(*count) +
                             " devices)");

  std::unique_ptr<Device> device(new Device());
  device->driver_ = *driver;
  Driver &drv = **driver;
  CUdevice cuDevice = 0;
  TILEC_RETURN_IF_ERROR(drv.check(api.deviceGet(&cuDevice, ordinal),
                                  "cuDeviceGet"));
  device->cuDevice_ = cuDevice;

  DeviceInfo &info = device->info_;
  info.ordinal = ordinal;
  char name[256] = {};
  TILEC_RETURN_IF_ERROR(drv.check(
      api.deviceGetName(name, sizeof(name) - 1, cuDevice), "cuDeviceGetName"));
  info.name = name;
  std::size_t totalMemory = 0;
  TILEC_RETURN_IF_ERROR(drv.check(api.deviceTotalMem(&totalMemory, cuDevice),
                                  "cuDeviceTotalMem"));
  info.totalMemory = totalMemory;

  auto attribute = [&](CUdevice_attribute attr, const char *attrName,
                       int &out) -> Status {
    std::string call = std::string("cuDeviceGetAttribute(") + attrName + ")";
    return drv.check(api.deviceGetAttribute(&out, attr, cuDevice),
                     call.c_str());
  };
  int optin = 0;
  TILEC_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  "COMPUTE_CAPABILITY_MAJOR",
                                  info.computeMajor));
  TILEC_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  "COMPUTE_CAPABILITY_MINOR",
                                  info.computeMinor));
  TILEC_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                  "MULTIPROCESSOR_COUNT",
                                  info.multiprocessors));
  TILEC_RETURN_IF_ERROR(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", optin));
  info.maxSharedPerBlockOptin = static_cast<std::size_t>(optin);
  TILEC_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                  "MAX_THREADS_PER_BLOCK",
                                  info.maxThreadsPerBlock));
  TILEC_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                                  "L2_CACHE_SIZE", info.l2CacheBytes));

  CUcontext context = nullptr;
  TILEC_RETURN_IF_ERROR(drv.check(api.primaryCtxRetain(&context, cuDevice),
                                  "cuDevicePrimaryCtxRetain"));
  device->context_ = context;
  TILEC_RETURN_IF_ERROR(device->makeCurrent());
  return device;
}

Device::~Device() {
  if (context_) {
    const DriverApi &api = driver_->api();
    // Errors here cannot be reported; a sticky error from a bad kernel makes
    // these fail, which is harmless at teardown.
    (void)api.ctxSetCurrent(nullptr);
    (void)api.primaryCtxRelease(cuDevice_);
  }
}

Status Device::makeCurrent() const {
  return driver_->check(driver_->api().ctxSetCurrent(context_),
                        "cuCtxSetCurrent");
}

Status Device::ensureCurrent() const {
  CUcontext current = nullptr;
  TILEC_RETURN_IF_ERROR(
      driver_->check(driver_->api().ctxGetCurrent(&current), "cuCtxGetCurrent"));
  return current ? Status::success() : makeCurrent();
}

Status Device::synchronize() const {
  return driver_->check(driver_->api().ctxSynchronize(), "cuCtxSynchronize");
}

} // namespace tilec::runtime
