//===- jit_vector_add.cpp - tilec's JIT API from a C++ program ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Compiles a kernel given as a string, launches it twice on the caller's own
// buffers and stream, and checks the result:
//
//   $ tilec-jit-example            # first run: compiles (~0.3 s), stores
//   $ tilec-jit-example            # later runs: the disk cache (< 1 ms)
//
// The first launch specializes the arguments (`*fp32:16, *fp32:16,
// *fp32:16, i32, 1024`), compiles or reads the kernel, loads it; the second
// finds it loaded and only launches. Exit status 0 when the result is exact
// (fp32 addition), 1 on any error, and 0 with "skipped" when there is no
// GPU (the compilation part still runs).
//
// Buffers and streams here come from tilec's runtime for brevity; any
// device pointer (cudaMalloc, torch) and CUstream/cudaStream_t work.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/JIT.h"
#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/DeviceBuffer.h"
#include "tilec/Runtime/Stream.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

static const char *const kSource = R"py(
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
)py";

static double microsecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - start)
      .count();
}

int main() {
  using namespace tilec;
  llvm::Expected<jit::Compiler> compiler = jit::Compiler::create();
  if (!compiler) {
    std::fprintf(stderr, "error: %s\n",
                 llvm::toString(compiler.takeError()).c_str());
    return 1;
  }
  std::printf("cache: %s\n", compiler->getOptions().cacheDir.c_str());
  llvm::Expected<jit::Kernel> kernel =
      compiler->compileSource(kSource, "add_kernel", "jit_vector_add.tile");
  if (!kernel) {
    std::fprintf(stderr, "error: %s\n",
                 llvm::toString(kernel.takeError()).c_str());
    return 1;
  }

  const int n = 1 << 20;
  const int block = 1024;
  runtime::Expected<std::unique_ptr<runtime::Device>> device =
      runtime::Device::open();
  if (!device) {
    // No GPU: still compile what the launches would (16-byte aligned
    // buffers, n a multiple of 16), so CI runs the API (it has ptxas).
    float *aligned = nullptr;
    auto signature = kernel->specialize({aligned, aligned, aligned, n, block});
    auto compiled =
        signature ? kernel->compile(*signature)
                  : llvm::Expected<std::shared_ptr<const jit::CompiledKernel>>(
                        signature.takeError());
    if (!compiled) {
      std::fprintf(stderr, "error: %s\n",
                   llvm::toString(compiled.takeError()).c_str());
      return 1;
    }
    if ((*compiled)->origin == jit::CacheOrigin::Disk)
      std::printf("%s (%s): from the disk cache in %.3f ms\n",
                  (*compiled)->name.c_str(), (*compiled)->signature.c_str(),
                  1e3 * (*compiled)->diskSeconds);
    else
      std::printf("%s (%s): compiled in %.1f ms\n", (*compiled)->name.c_str(),
                  (*compiled)->signature.c_str(),
                  1e3 * (*compiled)->times.total());
    std::printf("skipped the launches: %s\n",
                device.status().message().c_str());
    return 0;
  }

  std::vector<float> x(n), y(n), out(n, -1.0f);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i)
    x[i] = dist(rng), y[i] = dist(rng);
  auto dx = runtime::DeviceBuffer::allocate(**device, n * sizeof(float));
  auto dy = runtime::DeviceBuffer::allocate(**device, n * sizeof(float));
  auto dout = runtime::DeviceBuffer::allocate(**device, n * sizeof(float));
  auto stream = runtime::Stream::create(**device);
  if (!dx || !dy || !dout || !stream) {
    std::fprintf(stderr, "error: cannot allocate device memory or a stream\n");
    return 1;
  }
  if (!dx->copyFromHost(x.data(), n * sizeof(float)).ok() ||
      !dy->copyFromHost(y.data(), n * sizeof(float)).ok() ||
      !(*device)->synchronize().ok())
    return 1;
  auto *px = reinterpret_cast<float *>(dx->address());
  auto *py = reinterpret_cast<float *>(dy->address());
  auto *pout = reinterpret_cast<float *>(dout->address());
  jit::Grid grid((n + block - 1) / block);

  for (int launch = 1; launch <= 2; ++launch) {
    if (!dout->fillWords(0xffffffffu).ok() || !(*device)->synchronize().ok())
      return 1;
    auto start = std::chrono::steady_clock::now();
    llvm::Error err =
        kernel->launch(grid, stream->handle(), px, py, pout, n, block);
    double us = microsecondsSince(start);
    if (err) {
      std::fprintf(stderr, "error: %s\n",
                   llvm::toString(std::move(err)).c_str());
      return 1;
    }
    if (!stream->synchronize().ok() ||
        !dout->copyToHost(out.data(), n * sizeof(float)).ok())
      return 1;
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      wrong += out[i] != x[i] + y[i];
    jit::CacheStats stats = compiler->getStats();
    std::printf("launch %d: %.1f us of host time (compiles %llu, disk hits "
                "%llu, loads %llu), %s\n",
                launch, us, (unsigned long long)stats.compiles,
                (unsigned long long)stats.diskHits,
                (unsigned long long)stats.loads,
                wrong ? "WRONG" : "result exact");
    if (wrong) {
      std::fprintf(stderr, "error: %d of %d elements differ\n", wrong, n);
      return 1;
    }
  }
  return 0;
}
