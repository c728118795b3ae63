//===- jit_bench.cpp - Compile, cache and launch costs of the JIT ---------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   tilec-jit-bench [--examples DIR] [--compiles N] [--launches N]
//
// Measures, on whatever machine it runs (bench/RESULTS.md):
//
// 1. Cold compiles of examples/matmul.tile (the e2e matmul_1024
//    specialization, 8 warps) in an empty cache: the first one in the
//    process (it also creates the MLIR context), then N more, each a new
//    specialization (GROUP_SIZE_M varies), with the time of every stage.
// 2. The in-memory hit: Kernel::compile of a specialization already made.
// 3. Warm loads from the disk cache, each in a fresh process (this binary
//    re-run with --warm-load): Compiler::create, compileFile, and
//    Kernel::compile reading and checking the entry; with a CUDA driver also
//    the module load (the first launch's extra cost).
// 4. With a CUDA driver (real, or test/lib/FakeCuda through TILEC_LIBCUDA):
//    the host time of one launch of a loaded kernel through
//    Kernel::launch, and through runtime::Kernel::launch alone, in batches
//    of 200 launches between synchronizations (so that the launch queue
//    never fills and the time is the host's, not the GPU's).
//
// Everything uses a fresh temporary cache directory, removed at the end.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/JIT.h"
#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/DeviceBuffer.h"
#include "tilec/Runtime/Kernel.h"
#include "tilec/Runtime/KernelMetadata.h"
#include "tilec/Runtime/Stream.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace tilec;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// User + system CPU seconds of this process and its waited-for children
/// (ptxas): on an idle machine a compilation's wall time is about this, as
/// it runs on one thread; on a loaded one the wall time is longer.
double cpuSeconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    struct rusage usage;
    getrusage(who, &usage);
    total += usage.ru_utime.tv_sec + 1e-6 * usage.ru_utime.tv_usec +
             usage.ru_stime.tv_sec + 1e-6 * usage.ru_stime.tv_usec;
  }
  return total;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

std::string matmulSignature(int group) {
  return "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, "
         "i32:16, 1, i32:16, 1, 128, 128, 64, " +
         std::to_string(group);
}

const char *const kAddSource = R"py(
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

template <typename T> T check(llvm::Expected<T> value, const char *what) {
  if (!value) {
    std::fprintf(stderr, "error: %s: %s\n", what,
                 llvm::toString(value.takeError()).c_str());
    std::exit(1);
  }
  return std::move(*value);
}

void check(llvm::Error err, const char *what) {
  if (err) {
    std::fprintf(stderr, "error: %s: %s\n", what,
                 llvm::toString(std::move(err)).c_str());
    std::exit(1);
  }
}

jit::CompilerOptions optionsFor(const std::string &cacheDir) {
  jit::CompilerOptions options;
  options.cacheDir = cacheDir;
  options.numWarps = 8;
  return options;
}

void printStages(const char *label, const StageTimes &t, double wall,
                 double cpu) {
  std::printf("%-34s frontend %6.1f  passes %6.1f  llvm %6.1f  ptx %6.1f  "
              "ptxas %6.1f  = %6.1f ms (wall %6.1f, cpu %6.1f ms)\n",
              label, 1e3 * t.frontend, 1e3 * t.passes, 1e3 * t.llvm,
              1e3 * t.ptx, 1e3 * t.ptxas, 1e3 * t.total(), 1e3 * wall,
              1e3 * cpu);
}

/// The child process of part 3: one warm load, printed as microseconds.
int warmLoad(const std::string &cacheDir, const std::string &matmul) {
  auto start = Clock::now();
  jit::Compiler compiler = check(jit::Compiler::create(optionsFor(cacheDir)),
                                 "creating the compiler");
  jit::Kernel kernel =
      check(compiler.compileFile(matmul, "matmul_kernel"), "reading matmul");
  auto compiled = check(kernel.compile(matmulSignature(8)), "compiling");
  double total = secondsSince(start);
  if (compiled->origin != jit::CacheOrigin::Disk) {
    std::fprintf(stderr, "error: warm load did not hit the disk cache\n");
    return 1;
  }
  double loadSeconds = 0;
  if (auto device = runtime::Device::open()) {
    auto md = runtime::KernelMetadata::parse(compiled->metadata);
    const std::string &image =
        compiled->cubin.empty() ? compiled->ptx : compiled->cubin;
    auto loadStart = Clock::now();
    auto loaded =
        runtime::Kernel::load(**device, *md, image.data(), image.size());
    loadSeconds = secondsSince(loadStart);
    if (!loaded) {
      std::fprintf(stderr, "error: %s\n", loaded.status().message().c_str());
      return 1;
    }
  }
  std::printf("%.1f %.1f %.1f\n", 1e6 * total, 1e6 * compiled->diskSeconds,
              1e6 * loadSeconds);
  return 0;
}

void launchOverhead(int launches) {
  auto device = runtime::Device::open();
  if (!device) {
    std::printf("\n4. launch overhead: skipped (%s)\n",
                device.status().message().c_str());
    return;
  }
  std::printf("\n4. launch overhead (%s, driver %s), vector add of 1024 "
              "elements (1 program):\n",
              (*device)->info().name.c_str(),
              std::getenv("TILEC_LIBCUDA") ? std::getenv("TILEC_LIBCUDA")
                                           : "libcuda.so.1");
  llvm::SmallString<128> cacheDir;
  llvm::sys::fs::createUniqueDirectory("tilec-bench-launch", cacheDir);
  jit::Compiler compiler =
      check(jit::Compiler::create(optionsFor(cacheDir.str().str())), "create");
  jit::Kernel kernel = check(compiler.compileSource(kAddSource, "add_kernel"),
                             "reading add_kernel");
  const int n = 1024;
  auto x = runtime::DeviceBuffer::allocate(**device, n * 4);
  auto y = runtime::DeviceBuffer::allocate(**device, n * 4);
  auto out = runtime::DeviceBuffer::allocate(**device, n * 4);
  auto stream = runtime::Stream::create(**device);
  if (!x || !y || !out || !stream) {
    std::fprintf(stderr, "error: device memory\n");
    std::exit(1);
  }
  auto *px = reinterpret_cast<float *>(x->address());
  auto *py = reinterpret_cast<float *>(y->address());
  auto *pout = reinterpret_cast<float *>(out->address());
  auto first = Clock::now();
  check(kernel.launch(jit::Grid(1), stream->handle(), px, py, pout, n, 1024),
        "first launch");
  double firstSeconds = secondsSince(first);
  if (!stream->synchronize().ok())
    std::exit(1);

  constexpr int kBatch = 200;
  auto measure = [&](auto &&launchOnce) {
    double total = 0;
    int done = 0;
    for (int warm = 0; warm < kBatch; ++warm)
      launchOnce();
    (void)stream->synchronize();
    while (done < launches) {
      auto start = Clock::now();
      for (int i = 0; i < kBatch; ++i)
        launchOnce();
      total += secondsSince(start);
      done += kBatch;
      (void)stream->synchronize();
    }
    return 1e6 * total / done;
  };
  double jitUs = measure([&] {
    llvm::Error err =
        kernel.launch(jit::Grid(1), stream->handle(), px, py, pout, n, 1024);
    if (err) {
      std::fprintf(stderr, "error: %s\n",
                   llvm::toString(std::move(err)).c_str());
      std::exit(1);
    }
  });

  // The same launch through the runtime alone (no specialization lookup).
  auto compiled = check(
      kernel.compile("*fp32:16, *fp32:16, *fp32:16, i32, 1024"), "compile");
  auto md = runtime::KernelMetadata::parse(compiled->metadata);
  const std::string &image =
      compiled->cubin.empty() ? compiled->ptx : compiled->cubin;
  auto raw = runtime::Kernel::load(**device, *md, image.data(), image.size());
  if (!raw) {
    std::fprintf(stderr, "error: %s\n", raw.status().message().c_str());
    std::exit(1);
  }
  double runtimeUs = measure([&] {
    runtime::Status s = (*raw)->launch(
        {1, 1, 1},
        {x->arg(), y->arg(), out->arg(), runtime::KernelArg::scalar(n)},
        stream->handle());
    if (!s.ok())
      std::exit(1);
  });
  std::printf("   first launch (compile + load):      %10.1f us\n",
              1e6 * firstSeconds);
  std::printf("   Kernel::launch (JIT, cached):       %10.2f us per launch\n",
              jitUs);
  std::printf("   runtime::Kernel::launch (no JIT):   %10.2f us per launch\n",
              runtimeUs);
  std::printf("launch-overhead-us %.3f\n", jitUs);
  llvm::sys::fs::remove_directories(cacheDir);
}

} // namespace

int main(int argc, char **argv) {
  std::string examples = TILEC_BENCH_EXAMPLES_DIR;
  if (llvm::sys::fs::exists("examples/matmul.tile"))
    examples = "examples";
  int compiles = 3, launches = 20000, warmLoads = 10;
  bool onlyLaunch = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--warm-load" && i + 2 < argc)
      return warmLoad(argv[i + 1], argv[i + 2]);
    if (arg == "--examples" && i + 1 < argc)
      examples = argv[++i];
    else if (arg == "--compiles" && i + 1 < argc)
      compiles = std::atoi(argv[++i]);
    else if (arg == "--launches" && i + 1 < argc)
      launches = std::atoi(argv[++i]);
    else if (arg == "--launch-only")
      onlyLaunch = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--examples DIR] [--compiles N] [--launches N] "
                   "[--launch-only]\n",
                   argv[0]);
      return 2;
    }
  }
  if (onlyLaunch) {
    launchOverhead(launches);
    return 0;
  }
  std::string matmul = examples + "/matmul.tile";
  llvm::SmallString<128> cacheDir;
  if (llvm::sys::fs::createUniqueDirectory("tilec-bench-cache", cacheDir)) {
    std::fprintf(stderr, "error: cannot create a cache directory\n");
    return 1;
  }
  std::string cache = cacheDir.str().str();

  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0)
    load[0] = -1;
  std::printf("1. cold compiles of %s (matmul_1024: 128x128x64 blocks, 8 "
              "warps), empty cache; load average %.2f\n",
              matmul.c_str(), load[0]);
  jit::Compiler compiler =
      check(jit::Compiler::create(optionsFor(cache)), "create");
  auto parseStart = Clock::now();
  jit::Kernel kernel =
      check(compiler.compileFile(matmul, "matmul_kernel"), "reading matmul");
  double parseSeconds = secondsSince(parseStart);
  auto firstStart = Clock::now();
  double firstCpuStart = cpuSeconds();
  auto first = check(kernel.compile(matmulSignature(8)), "compiling");
  double firstWall = secondsSince(firstStart);
  double firstCpu = cpuSeconds() - firstCpuStart;
  std::printf("   compileFile (parse, dependencies): %.2f ms\n",
              1e3 * parseSeconds);
  printStages("   first (creates the MLIR context)", first->times, firstWall,
              firstCpu);
  std::vector<double> walls, cpus;
  StageTimes sum;
  int group = 1;
  for (int i = 0; i < compiles; ++i, group *= 2) {
    if (group == 8)
      group *= 2;
    auto start = Clock::now();
    double cpuStart = cpuSeconds();
    auto compiled = check(kernel.compile(matmulSignature(group)), "compiling");
    double wall = secondsSince(start);
    double cpu = cpuSeconds() - cpuStart;
    walls.push_back(wall);
    cpus.push_back(cpu);
    char label[64];
    std::snprintf(label, sizeof(label), "   cold (GROUP_SIZE_M=%d)", group);
    printStages(label, compiled->times, wall, cpu);
    sum.frontend += compiled->times.frontend;
    sum.passes += compiled->times.passes;
    sum.llvm += compiled->times.llvm;
    sum.ptx += compiled->times.ptx;
    sum.ptxas += compiled->times.ptxas;
  }
  if (compiles > 0) {
    StageTimes mean = sum;
    for (double *t :
         {&mean.frontend, &mean.passes, &mean.llvm, &mean.ptx, &mean.ptxas})
      *t /= compiles;
    printStages("   mean (wall, cpu: medians)", mean, median(walls),
                median(cpus));
  }

  std::vector<double> hits;
  for (int i = 0; i < 1000; ++i) {
    auto start = Clock::now();
    auto again = check(kernel.compile(matmulSignature(8)), "hit");
    hits.push_back(secondsSince(start));
  }
  std::printf("\n2. in-memory hit (Kernel::compile again): median %.2f us\n",
              1e6 * median(hits));

  std::printf("\n3. warm loads from the disk cache, each in a new process "
              "(median of %d):\n",
              warmLoads);
  std::string self = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&median));
  std::vector<double> totals, reads, loads;
  llvm::SmallString<128> outFile;
  llvm::sys::fs::createTemporaryFile("tilec-bench", "txt", outFile);
  for (int i = 0; i < warmLoads; ++i) {
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, outFile.str(),
                                                  std::nullopt};
    int rc = llvm::sys::ExecuteAndWait(
        self, {self, "--warm-load", cache, matmul}, std::nullopt, redirects);
    auto text = llvm::MemoryBuffer::getFile(outFile);
    double total = 0, read = 0, load = 0;
    if (rc != 0 || !text ||
        std::sscanf((*text)->getBufferStart(), "%lf %lf %lf", &total, &read,
                    &load) != 3) {
      std::fprintf(stderr, "error: the warm-load child failed (%d)\n", rc);
      return 1;
    }
    totals.push_back(total);
    reads.push_back(read);
    loads.push_back(load);
  }
  llvm::sys::fs::remove(outFile);
  std::printf("   create + compileFile + compile:    %8.1f us (of which "
              "reading and checking the entry %.1f us)\n",
              median(totals), median(reads));
  if (median(loads) > 0)
    std::printf("   + module load on the device:       %8.1f us\n",
                median(loads));
  else
    std::printf("   + module load on the device:       (no CUDA driver)\n");
  std::printf("   = warm load:                       %8.1f us\n",
              median(totals) + median(loads));
  jit::CacheStats stats = compiler.getStats();
  std::printf("   (this process: %llu compiles, %llu memory hits)\n",
              (unsigned long long)stats.compiles,
              (unsigned long long)stats.memoryHits);

  launchOverhead(launches);
  llvm::sys::fs::remove_directories(cache);
  return 0;
}
