//===- GpuBackend.cpp - Running cases on a CUDA device --------------------===//

#include "GpuBackend.h"

#include "tilec/Runtime/Driver.h"
#include "tilec/Runtime/Event.h"
#include "tilec/Runtime/Kernel.h"

#include <algorithm>

namespace tilec::e2e {

using namespace tilec::runtime;

namespace {
/// Bigger than the H200's 60 MB L2 (Triton's do_bench uses 256 MB too).
constexpr std::size_t kFlushBytes = 256u << 20;
constexpr int kWarmupRuns = 3;
} // namespace

Expected<std::unique_ptr<GpuBackend>> GpuBackend::create() {
  Expected<std::unique_ptr<Device>> device = Device::open(0);
  if (!device)
    return device.status();
  return std::unique_ptr<GpuBackend>(new GpuBackend(device.take()));
}

std::string GpuBackend::describe() const {
  const DeviceInfo &info = device_->info();
  return info.name + " (sm_" + std::to_string(info.computeMajor) +
         std::to_string(info.computeMinor) + ", " +
         std::to_string(info.multiprocessors) + " SMs, " +
         std::to_string(info.totalMemory >> 30) + " GiB, driver " +
         std::to_string(device_->driver().version()) + ")";
}

RunOutcome GpuBackend::run(const KernelMetadata &metadata, Problem &problem,
                           const RunOptions &options) {
  RunOutcome outcome;
  auto fail = [&](const Status &status) {
    outcome.error = status.message();
    // A sticky error (illegal address, ...) poisons the context: every
    // later call fails with it. Probe once.
    if (status.code() == ErrorCode::CudaError && !device_->synchronize().ok())
      outcome.fatal = true;
    return outcome;
  };

  Expected<std::unique_ptr<Kernel>> kernel =
      Kernel::loadArtifact(*device_, metadata);
  if (!kernel)
    return fail(kernel.status());
  outcome.registers = (*kernel)->attributes().registers;
  outcome.loadedFromPtx = (*kernel)->loadedFromPtx();

  // Device copies of every tensor: inputs with their data, outputs still
  // poisoned, so that an element the kernel does not write stays NaN.
  std::vector<DeviceBuffer> buffers;
  buffers.reserve(problem.tensors.size());
  for (HostTensor &tensor : problem.tensors) {
    Expected<DeviceBuffer> buffer =
        DeviceBuffer::allocate(*device_, tensor.bytes());
    if (!buffer)
      return fail(buffer.status().withContext("allocating '" + tensor.name() +
                                              "'"));
    Status copied = buffer->copyFromHost(tensor.data(), tensor.bytes());
    if (!copied.ok())
      return fail(copied.withContext("uploading '" + tensor.name() + "'"));
    buffers.push_back(buffer.take());
  }
  Status uploaded = device_->synchronize();
  if (!uploaded.ok())
    return fail(uploaded);

  std::vector<KernelArg> args;
  for (const CaseArg &arg : problem.args)
    args.push_back(arg.tensor ? buffers[*arg.tensor].arg() : *arg.scalar);

  Expected<Event> done = Event::create(*device_);
  if (!done)
    return fail(done.status());
  LaunchGrid grid{problem.grid[0], problem.grid[1], problem.grid[2]};
  Status launched = (*kernel)->launch(grid, args);
  if (!launched.ok())
    return fail(launched);
  Status recorded = done->record();
  if (!recorded.ok())
    return fail(recorded);
  Status finished = done->wait(options.timeout);
  if (finished.code() == ErrorCode::Timeout) {
    outcome.error = finished.message();
    outcome.fatal = true;
    // The kernel still runs: freeing its buffers would wait for it (or race
    // with it). Leave them, and the kernel, to process exit.
    new std::vector<DeviceBuffer>(std::move(buffers));
    (void)kernel->release();
    return outcome;
  }
  if (!finished.ok())
    return fail(finished.withContext("running '" + metadata.name + "'"));

  for (std::size_t i = 0; i < problem.tensors.size(); ++i) {
    HostTensor &tensor = problem.tensors[i];
    if (!tensor.isOutput())
      continue;
    Status copied = buffers[i].copyToHost(tensor.data(), tensor.bytes());
    if (!copied.ok())
      return fail(copied.withContext("downloading '" + tensor.name() + "'"));
  }
  outcome.ran = true;

  if (options.repeat > 0) {
    Status timed = time(**kernel, args, problem, options, outcome);
    if (timed.code() == ErrorCode::Timeout) {
      outcome.error = timed.message() + " (while timing)";
      outcome.fatal = true;
      new std::vector<DeviceBuffer>(std::move(buffers));
      (void)kernel->release();
      return outcome;
    }
    if (!timed.ok()) {
      RunOutcome failed = fail(timed.withContext("timing '" + metadata.name +
                                                 "'"));
      failed.ran = true;
      return failed;
    }
  }
  return outcome;
}

Status GpuBackend::time(Kernel &kernel, const std::vector<KernelArg> &args,
                        const Problem &problem, const RunOptions &options,
                        RunOutcome &outcome) {
  LaunchGrid grid{problem.grid[0], problem.grid[1], problem.grid[2]};
  if (options.flushL2 && flushBuffer_.size() == 0) {
    Expected<DeviceBuffer> buffer =
        DeviceBuffer::allocate(*device_, kFlushBytes);
    if (!buffer)
      return buffer.status().withContext("allocating the L2 flush buffer");
    flushBuffer_ = buffer.take();
  }
  // Warm-up: module load effects, clocks, TLBs.
  for (int i = 0; i < kWarmupRuns; ++i)
    TILEC_RETURN_IF_ERROR(kernel.launch(grid, args));
  Expected<Event> warm = Event::create(*device_);
  if (!warm)
    return warm.status();
  TILEC_RETURN_IF_ERROR(warm->record());
  TILEC_RETURN_IF_ERROR(warm->wait(options.timeout));

  std::vector<Event> starts, ends;
  for (int i = 0; i < options.repeat; ++i) {
    Expected<Event> start = Event::create(*device_);
    Expected<Event> end = Event::create(*device_);
    if (!start)
      return start.status();
    if (!end)
      return end.status();
    starts.push_back(start.take());
    ends.push_back(end.take());
  }
  for (int i = 0; i < options.repeat; ++i) {
    if (options.flushL2) {
      // Outside the timed interval, on the same (default) stream.
      TILEC_RETURN_IF_ERROR(
          flushBuffer_.fillWordsAsync(static_cast<std::uint32_t>(i)));
    }
    TILEC_RETURN_IF_ERROR(starts[i].record());
    TILEC_RETURN_IF_ERROR(kernel.launch(grid, args));
    TILEC_RETURN_IF_ERROR(ends[i].record());
  }
  TILEC_RETURN_IF_ERROR(ends.back().wait(options.timeout));

  std::vector<double> micros;
  for (int i = 0; i < options.repeat; ++i) {
    Expected<float> ms = Event::elapsedMilliseconds(starts[i], ends[i]);
    if (!ms)
      return ms.status();
    micros.push_back(1000.0 * *ms);
  }
  std::sort(micros.begin(), micros.end());
  std::size_t n = micros.size();
  outcome.timedRuns = static_cast<int>(n);
  outcome.medianMicros =
      n % 2 ? micros[n / 2] : 0.5 * (micros[n / 2 - 1] + micros[n / 2]);
  return Status::success();
}

} // namespace tilec::e2e
