//===- GpuRun.cpp - `tilec run --backend gpu` -----------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Compiles the kernel to a cubin (PTX when ptxas is missing) in process and
// runs it through TilecRuntime: device buffers initialized from the host
// arrays, one launch (then the timed ones), results copied back.
//
//===----------------------------------------------------------------------===//

#include "RunCommand.h"

#include "KernelSource.h"

#include "tilec/Compiler/Compiler.h"

#ifdef TILEC_HAVE_RUNTIME
#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/DeviceBuffer.h"
#include "tilec/Runtime/Event.h"
#include "tilec/Runtime/Kernel.h"
#include "tilec/Runtime/KernelMetadata.h"
#endif

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>

using namespace tilec;
using namespace tilec::tool;

#ifndef TILEC_HAVE_RUNTIME

llvm::Error tool::runOnGpu(KernelSource &, const PipelineOptions &,
                           llvm::StringRef, RunInputs &, RunTimes &,
                           std::string &) {
  return llvm::createStringError(
      "the GPU backend is unavailable: this tilec was built without the "
      "CUDA headers (TilecRuntime)");
}

void tool::keepGpuDevice(bool) {}

#else

namespace {
llvm::Error toError(const runtime::Status &status, const llvm::Twine &what) {
  return llvm::createStringError(what + ": " + status.message());
}

/// The device a batch keeps between runs (keepGpuDevice).
bool keepDevice = false;
std::unique_ptr<runtime::Device> keptDevice;
} // namespace

void tool::keepGpuDevice(bool keep) {
  keepDevice = keep;
  if (!keep)
    keptDevice.reset();
}

llvm::Error tool::runOnGpu(KernelSource &source,
                           const PipelineOptions &pipeline,
                           llvm::StringRef dumpDir, RunInputs &inputs,
                           RunTimes &times, std::string &deviceName) {
  // The device first: without a GPU there is nothing to compile for.
  std::unique_ptr<runtime::Device> ownDevice;
  if (!keepDevice || !keptDevice) {
    auto opened = runtime::Device::open(0);
    if (!opened)
      return toError(opened.status(), "the GPU backend is unavailable");
    ownDevice = opened.take();
  }
  if (keepDevice && !keptDevice)
    keptDevice = std::move(ownDevice);
  runtime::Device *device = keepDevice ? keptDevice.get() : ownDevice.get();
  // Everything below made from the device is destroyed before it (the
  // device is declared first, or kept).
  deviceName = device->info().name;

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  CompileOptions options;
  options.pipeline = pipeline;
  options.emit = findPtxas() ? EmitKind::Cubin : EmitKind::PTX;
  options.dumpDir = dumpDir.str();
  auto compiled =
      compileModule(source.module(), source.interface(), options);
  if (!compiled)
    return compiled.takeError();
  times.codegen =
      std::chrono::duration<double>(Clock::now() - start).count();
  std::string json = llvm::formatv(
      "{0}", llvm::json::Value(buildKernelMetadata(source.interface(),
                                                   options, *compiled, {})));
  auto metadata = runtime::KernelMetadata::parse(json);
  if (!metadata)
    return toError(metadata.status(), "kernel metadata");
  const std::string &image =
      compiled->ptxas ? std::string(compiled->ptxas->cubin.begin(),
                                    compiled->ptxas->cubin.end())
                      : compiled->ptx;
  auto kernel =
      runtime::Kernel::load(*device, *metadata, image.data(), image.size());
  if (!kernel)
    return toError(kernel.status(), "loading the kernel");

  std::vector<runtime::DeviceBuffer> buffers;
  for (HostArray &array : inputs.arrays) {
    auto buffer = runtime::DeviceBuffer::allocate(*device, array.bytes());
    if (!buffer)
      return toError(buffer.status(), "allocating '" + array.name() + "'");
    runtime::Status copied = buffer->copyFromHost(array.data(), array.bytes());
    if (!copied.ok())
      return toError(copied, "uploading '" + array.name() + "'");
    buffers.push_back(buffer.take());
  }
  std::vector<runtime::KernelArg> args;
  for (const RunArgument &arg : inputs.args) {
    if (arg.array >= 0) {
      args.push_back(buffers[arg.array].arg());
      continue;
    }
    auto type = runtime::parseScalarType(arg.parameter->type);
    if (!type)
      return llvm::createStringError("unsupported scalar type " +
                                     arg.parameter->type);
    args.push_back(runtime::KernelArg::scalarBits(*type, arg.bits));
  }

  runtime::LaunchGrid grid{inputs.grid[0], inputs.grid[1], inputs.grid[2]};
  auto timedLaunch = [&]() -> llvm::Expected<double> {
    auto begin = runtime::Event::create(*device);
    auto end = runtime::Event::create(*device);
    if (!begin || !end)
      return toError(begin ? end.status() : begin.status(), "events");
    runtime::Status status = begin->record();
    if (status.ok())
      status = (*kernel)->launch(grid, args);
    if (status.ok())
      status = end->record();
    if (status.ok())
      status = end->wait(std::chrono::seconds(60));
    if (!status.ok()) {
      times.deviceFault = true;
      return toError(status, "running '" + source.interface().name + "'");
    }
    auto ms = runtime::Event::elapsedMilliseconds(*begin, *end);
    if (!ms)
      return toError(ms.status(), "timing");
    return *ms / 1e3;
  };
  auto first = timedLaunch();
  if (!first)
    return first.takeError();
  times.first = *first;
  std::vector<double> seconds;
  for (unsigned i = 0; i < inputs.repeat; ++i) {
    auto t = timedLaunch();
    if (!t)
      return t.takeError();
    seconds.push_back(*t);
  }
  if (!seconds.empty()) {
    std::sort(seconds.begin(), seconds.end());
    std::size_t n = seconds.size();
    times.median = n % 2 ? seconds[n / 2]
                         : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
    times.min = seconds.front();
    times.timedRuns = n;
    for (double t : seconds)
      times.timedTotal += t;
  }
  for (auto [array, buffer] : llvm::zip(inputs.arrays, buffers)) {
    runtime::Status copied = buffer.copyToHost(array.data(), array.bytes());
    if (!copied.ok()) {
      times.deviceFault = true;
      return toError(copied, "downloading '" + array.name() + "'");
    }
  }
  return llvm::Error::success();
}

#endif
