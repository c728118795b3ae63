//===- Kernel.cpp - A loaded kernel and its launch ------------------------===//

#include "tilec/Runtime/Kernel.h"

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Driver.h"
#include "tilec/Runtime/PackedArguments.h"
#include "tilec/Runtime/Stream.h"

#include "DriverApi.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tilec::runtime {

namespace {

/// Shared memory a block may use without opting in.
constexpr std::uint64_t kDefaultSharedLimit = 48 * 1024;

bool isElf(const void *image, std::size_t size) {
  return size >= 4 && std::memcmp(image, "\x7f" "ELF", 4) == 0;
}

Expected<std::vector<char>> readBinaryFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error(ErrorCode::IoError, "cannot read '" + path + "'");
  return std::vector<char>(std::istreambuf_iterator<char>(in),
                           std::istreambuf_iterator<char>());
}

std::string trimLog(const char *log) {
  std::string text(log);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.pop_back();
  return text;
}

} // namespace

Expected<std::unique_ptr<Kernel>> Kernel::load(const Device &device,
                                               const KernelMetadata &metadata,
                                               const void *image,
                                               std::size_t size) {
  const Driver &driver = device.driver();
  const DriverApi &api = driver.api();
  std::string what = "loading '" + metadata.name + "'";
  if (!image || size == 0)
    return Status::error(ErrorCode::InvalidArgument,
                         "empty kernel image while " + what);

  std::unique_ptr<Kernel> kernel(new Kernel(device, metadata));
  CUmodule module = nullptr;
  if (isElf(image, size)) {
    Status status = driver.check(api.moduleLoadData(&module, image),
                                 "cuModuleLoadData");
    if (!status.ok()) {
      if (status.cudaResult() == CUDA_ERROR_NO_BINARY_FOR_GPU ||
          status.cudaResult() == CUDA_ERROR_INVALID_IMAGE)
        what += " (a cubin for " +
                (metadata.target.empty() ? std::string("an unknown target")
                                         : metadata.target) +
                " on a device of compute capability " +
                std::to_string(device.info().computeMajor) + "." +
                std::to_string(device.info().computeMinor) + ")";
      return status.withContext(what);
    }
  } else {
    // PTX: the driver wants NUL-terminated text; keep the JIT's error log.
    std::string ptx(static_cast<const char *>(image), size);
    ptx.push_back('\0');
    char errorLog[8192] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog,
                      reinterpret_cast<void *>(sizeof(errorLog) - 1)};
    Status status =
        driver.check(api.moduleLoadDataEx(&module, ptx.data(), 2, options,
                                          values),
                     "cuModuleLoadDataEx");
    if (!status.ok()) {
      status = status.withContext(what + " (PTX)");
      std::string log = trimLog(errorLog);
      if (!log.empty())
        status = Status::error(status.code(),
                               status.message() + "\nJIT log:\n" + log,
                               status.cudaResult());
      return status;
    }
    kernel->fromPtx_ = true;
  }
  kernel->module_ = module;

  CUfunction function = nullptr;
  TILEC_RETURN_IF_ERROR(
      driver.check(api.moduleGetFunction(&function, module,
                                         metadata.entry.c_str()),
                   "cuModuleGetFunction")
          .withContext("looking up entry '" + metadata.entry + "' of '" +
                       metadata.name + "'"));
  kernel->function_ = function;

  KernelAttributes &attrs = kernel->attributes_;
  struct {
    CUfunction_attribute attribute;
    const char *name;
    int *out;
  } queries[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", &attrs.registers},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES",
       &attrs.staticSharedBytes},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES",
       &attrs.localBytes},
      {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "CONST_SIZE_BYTES",
       &attrs.constBytes},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK",
       &attrs.maxThreadsPerBlock},
      {CU_FUNC_ATTRIBUTE_PTX_VERSION, "PTX_VERSION", &attrs.ptxVersion},
      {CU_FUNC_ATTRIBUTE_BINARY_VERSION, "BINARY_VERSION",
       &attrs.binaryVersion},
  };
  for (auto &query : queries) {
    std::string call =
        std::string("cuFuncGetAttribute(") + query.name + ")";
    TILEC_RETURN_IF_ERROR(
        driver.check(api.funcGetAttribute(query.out, query.attribute, function),
                     call.c_str())
            .withContext(what));
  }

  if (metadata.numThreads > attrs.maxThreadsPerBlock)
    return Status::error(
        ErrorCode::InvalidArgument,
        "kernel '" + metadata.name + "' must run with " +
            std::to_string(metadata.numThreads) +
            " threads per block (num_threads), but the compiled function "
            "allows at most " +
            std::to_string(attrs.maxThreadsPerBlock) + " (it uses " +
            std::to_string(attrs.registers) + " registers per thread)");

  TILEC_RETURN_IF_ERROR(kernel->configureSharedMemory());
  kernel->layout_ = std::make_shared<const std::vector<ArgumentSlot>>(
      PackedArguments::layout(kernel->metadata_));
  TILEC_RETURN_IF_ERROR(kernel->checkParameterLayout());
  TILEC_RETURN_IF_ERROR(kernel->checkTensorMapSupport());
  if (metadata.persistent)
    TILEC_RETURN_IF_ERROR(kernel->computeOccupancy());
  kernel->tensorMaps_.resize(metadata.hiddenParameters.size());
  return kernel;
}

Expected<std::unique_ptr<Kernel>>
Kernel::loadArtifact(const Device &device, const KernelMetadata &metadata) {
  std::string cubin = metadata.artifactPath(metadata.cubinFile);
  std::string ptx = metadata.artifactPath(metadata.ptxFile);
  std::string path;
  if (!cubin.empty() && std::ifstream(cubin).good())
    path = cubin;
  else if (!ptx.empty())
    path = ptx;
  else
    return Status::error(ErrorCode::InvalidMetadata,
                         "kernel metadata of '" + metadata.name +
                             "' names no artifact that exists (cubin '" +
                             cubin + "', ptx '" + ptx + "')");
  Expected<std::vector<char>> image = readBinaryFile(path);
  if (!image)
    return image.status().withContext("loading '" + metadata.name + "'");
  return load(device, metadata, image->data(), image->size());
}

Kernel::~Kernel() {
  if (module_)
    (void)device_->driver().api().moduleUnload(module_);
}

Status Kernel::configureSharedMemory() {
  const Driver &driver = device_->driver();
  std::uint64_t dynamicBytes = metadata_.dynamicSharedBytes;
  std::uint64_t total =
      dynamicBytes + static_cast<std::uint64_t>(attributes_.staticSharedBytes);
  std::uint64_t limit = device_->info().maxSharedPerBlockOptin;
  if (total > limit)
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel '" + metadata_.name + "' needs " +
                             std::to_string(total) +
                             " bytes of shared memory per block (" +
                             std::to_string(attributes_.staticSharedBytes) +
                             " static + " + std::to_string(dynamicBytes) +
                             " dynamic); the device allows at most " +
                             std::to_string(limit));
  if (dynamicBytes > kDefaultSharedLimit)
    TILEC_RETURN_IF_ERROR(
        driver
            .check(driver.api().funcSetAttribute(
                       function_,
                       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       static_cast<int>(dynamicBytes)),
                   "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
            .withContext("opting '" + metadata_.name + "' into " +
                         std::to_string(dynamicBytes) +
                         " bytes of dynamic shared memory"));
  return Status::success();
}

Status Kernel::computeOccupancy() {
  const std::array<unsigned, 3> &cluster = metadata_.clusterDims;
  if (cluster[0] * cluster[1] * cluster[2] != 1)
    return Status::error(ErrorCode::InvalidMetadata,
                         "kernel '" + metadata_.name +
                             "' is persistent and has cluster dims; a "
                             "persistent kernel cannot use clusters");
  const Driver &driver = device_->driver();
  int blocks = 0;
  // After configureSharedMemory: above 48 KiB the driver counts the
  // dynamic shared memory only once the function has opted in.
  TILEC_RETURN_IF_ERROR(
      driver
          .check(driver.api().occupancyMaxActiveBlocksPerMultiprocessor(
                     &blocks, function_, metadata_.numThreads,
                     static_cast<std::size_t>(metadata_.dynamicSharedBytes)),
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor")
          .withContext("sizing the persistent grid of '" + metadata_.name +
                       "'"));
  ctasPerSM_ = std::max(blocks, 1);
  return Status::success();
}

Status Kernel::checkParameterLayout() const {
  const DriverApi &api = device_->driver().api();
  if (!api.funcGetParamInfo)
    return Status::success(); // Driver older than CUDA 12.4: cannot check.

  const std::vector<ArgumentSlot> &expected = *layout_;
  std::vector<std::pair<std::size_t, std::size_t>> actual;
  while (actual.size() <= expected.size() + 64) {
    std::size_t offset = 0, size = 0;
    CUresult result = api.funcGetParamInfo(function_, actual.size(), &offset,
                                           &size);
    if (result == CUDA_ERROR_INVALID_VALUE)
      break; // Past the last parameter.
    if (result != CUDA_SUCCESS)
      return Status::success(); // Not supported for this image: skip.
    actual.push_back({offset, size});
  }

  std::string names;
  for (const ArgumentSlot &slot : expected)
    names += (names.empty() ? "" : ", ") + slot.name;
  std::string prefix = "kernel '" + metadata_.name +
                       "': the compiled entry and the metadata disagree: ";
  if (actual.size() != expected.size())
    return Status::error(ErrorCode::InvalidMetadata,
                         prefix + "the entry takes " +
                             std::to_string(actual.size()) +
                             " parameters, the metadata describes " +
                             std::to_string(expected.size()) + " (" + names +
                             ")");
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (actual[i].first != expected[i].offset ||
        actual[i].second != expected[i].size)
      return Status::error(
          ErrorCode::InvalidMetadata,
          prefix + "parameter " + std::to_string(i + 1) + " '" +
              expected[i].name + "' is " + std::to_string(actual[i].second) +
              " bytes at offset " + std::to_string(actual[i].first) +
              " in the entry, but " + std::to_string(expected[i].size) +
              " bytes at offset " + std::to_string(expected[i].offset) +
              " by the metadata");
  }
  return Status::success();
}

Status Kernel::checkTensorMapSupport() const {
  std::string first;
  for (const HiddenParameterInfo &hidden : metadata_.hiddenParameters)
    if (hidden.recipe.kind == "tma_descriptor" && first.empty())
      first = hidden.name;
  if (first.empty())
    return Status::success();
  const DeviceInfo &info = device_->info();
  if (info.computeMajor < 9)
    return Status::error(
        ErrorCode::Unsupported,
        "kernel '" + metadata_.name + "' takes TMA descriptors ('" + first +
            "'), which need a device of compute capability 9.0 or newer; " +
            info.name + " is " + std::to_string(info.computeMajor) + "." +
            std::to_string(info.computeMinor));
  if (!device_->driver().api().tensorMapEncodeTiled)
    return Status::error(ErrorCode::Unsupported,
                         "kernel '" + metadata_.name +
                             "' takes TMA descriptors ('" + first +
                             "'), which need cuTensorMapEncodeTiled; this "
                             "driver lacks it (CUDA 12.0 or newer needed)");
  return Status::success();
}

std::uint64_t Kernel::tensorMapEncodes() const {
  std::uint64_t total = 0;
  for (const TensorMapCache &cache : tensorMaps_)
    total += cache.encodes();
  return total;
}

Status Kernel::buildHiddenArguments(LaunchGrid grid, KernelArgs args,
                                    PackedArguments &packed) {
  for (std::size_t i = 0; i < metadata_.hiddenParameters.size(); ++i) {
    const HiddenParameterInfo &hidden = metadata_.hiddenParameters[i];
    if (hidden.recipe.kind == "tma_descriptor") {
      Expected<TensorMapRequest> request =
          resolveTensorMap(metadata_, hidden, args);
      if (!request)
        return request.status();
      Expected<const TensorMapBytes *> map = tensorMaps_[i].get(
          *request, [&](const TensorMapRequest &toEncode) {
            return encodeTensorMap(device_->driver(), metadata_, hidden,
                                   toEncode);
          });
      if (!map)
        return map.status();
      TILEC_RETURN_IF_ERROR(
          packed.setHidden(i, (*map)->bytes, sizeof((*map)->bytes)));
      continue;
    }
    if (hidden.recipe.kind == "program_grid")
      continue; // All of them at once below.
    if (hidden.recipe.kind != "global_scratch")
      return Status::error(ErrorCode::Unsupported,
                           "hidden parameter '" + hidden.name +
                               "' has recipe '" + hidden.recipe.kind +
                               "', which this runtime cannot build");
    DevicePtr address = 0;
    if (hidden.recipe.bytesPerProgram != 0) {
      std::uint64_t align = std::max<std::uint64_t>(hidden.recipe.align, 1);
      std::uint64_t perProgram =
          (hidden.recipe.bytesPerProgram + align - 1) / align * align;
      std::uint64_t bytes = perProgram * grid.programs() + align;
      if (scratch_.size() < bytes) {
        scratch_ = DeviceBuffer(); // Free the old one first.
        Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(*device_, bytes);
        if (!buffer)
          return buffer.status().withContext(
              "allocating global scratch for '" + metadata_.name + "'");
        scratch_ = buffer.take();
      }
      address = (scratch_.address() + align - 1) / align * align;
    }
    TILEC_RETURN_IF_ERROR(packed.setHidden(i, &address, sizeof(address)));
  }
  return packed.setProgramGrid(metadata_, grid);
}

Status Kernel::launch(LaunchGrid grid, KernelArgs args, const Stream *stream) {
  return launch(grid, args, stream ? stream->handle() : nullptr);
}

Status Kernel::launch(LaunchGrid grid, KernelArgs args, CUstream_st *stream) {
  // This is the hot path of every launch: messages are built only on error.
  const Driver &driver = device_->driver();
  const DriverApi &api = driver.api();
  // `grid` is the caller's grid (what program_grid and global_scratch see);
  // `launched` is what the driver gets (1-D and smaller when persistent).
  Expected<LaunchGrid> launchedGrid = computeLaunchGrid(
      grid, metadata_.persistent,
      static_cast<unsigned>(device_->info().multiprocessors),
      static_cast<unsigned>(ctasPerSM_));
  if (!launchedGrid)
    return Status::error(launchedGrid.status().code(),
                         "kernel '" + metadata_.name + "': " +
                             launchedGrid.status().message());
  LaunchGrid launched = *launchedGrid;

  Expected<PackedArguments> packed =
      PackedArguments::pack(metadata_, args, layout_);
  if (!packed)
    return packed.status();
  if (!metadata_.hiddenParameters.empty())
    TILEC_RETURN_IF_ERROR(buildHiddenArguments(grid, args, *packed));

  unsigned block = static_cast<unsigned>(metadata_.numThreads);
  unsigned sharedBytes = static_cast<unsigned>(metadata_.dynamicSharedBytes);
  CUstream cuStream = stream;
  auto what = [&] {
    std::string text = "launching '" + metadata_.name + "' with grid " +
                       launched.str();
    if (metadata_.persistent)
      text += " (persistent, for the grid " + grid.str() + ")";
    return text + ", block (" + std::to_string(block) + ", 1, 1), " +
           std::to_string(sharedBytes) + " bytes of dynamic shared memory";
  };

  const auto &cluster = metadata_.clusterDims;
  bool clustered = cluster[0] * cluster[1] * cluster[2] != 1;
  if (!clustered) {
    CUresult result = api.launchKernel(
        function_, launched.x, launched.y, launched.z, block, 1, 1,
        sharedBytes, cuStream, packed->kernelParams(), nullptr);
    if (result == CUDA_SUCCESS)
      return Status::success();
    return driver.check(result, "cuLaunchKernel").withContext(what());
  }

  // Not persistent (the metadata cannot be both): launched == grid.
  if (grid.x % cluster[0] || grid.y % cluster[1] || grid.z % cluster[2])
    return Status::error(ErrorCode::InvalidArgument,
                         "kernel '" + metadata_.name + "': grid " +
                             grid.str() +
                             " is not a multiple of its cluster dims (" +
                             std::to_string(cluster[0]) + ", " +
                             std::to_string(cluster[1]) + ", " +
                             std::to_string(cluster[2]) + ")");
  if (!api.launchKernelEx)
    return Status::error(ErrorCode::Unsupported,
                         "kernel '" + metadata_.name +
                             "' uses thread-block clusters, which need "
                             "cuLaunchKernelEx (CUDA 12.0+ driver)");
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = cluster[0];
  attribute.value.clusterDim.y = cluster[1];
  attribute.value.clusterDim.z = cluster[2];
  CUlaunchConfig config = {};
  config.gridDimX = launched.x;
  config.gridDimY = launched.y;
  config.gridDimZ = launched.z;
  config.blockDimX = block;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = sharedBytes;
  config.hStream = cuStream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CUresult result = api.launchKernelEx(&config, function_,
                                       packed->kernelParams(), nullptr);
  if (result == CUDA_SUCCESS)
    return Status::success();
  return driver.check(result, "cuLaunchKernelEx").withContext(what());
}

} // namespace tilec::runtime
