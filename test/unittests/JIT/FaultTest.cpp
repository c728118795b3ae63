//===- FaultTest.cpp - Faults the JIT and its cache must survive ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Issue 15's fault tests, without a GPU (the runtime loads test/lib/FakeCuda):
//
// - a kernel that traps (the fake returns CUDA_ERROR_ASSERT from the launch
//   and every synchronization, as a real context's sticky error) is an
//   error the process reports, and the disk cache stays intact: a new
//   compiler reads the entry back, checksum and all;
// - writers killed (SIGKILL) at random points while storing entries never
//   leave an entry a later lookup takes for good: it is a miss or one of
//   the entries a writer wrote, whole;
// - a full disk (a file-size limit: writes fail with EFBIG, as with
//   ENOSPC) fails the store, not the compilation, and leaves no broken
//   entry and no temporary file;
// - ten processes compiling one kernel at once all get it, with the same
//   PTX as a compile in a fresh cache, and leave one entry;
// - bad launches through the C API (grid of 0, more shared memory than the
//   device has, too few or too many arguments, an argument of the wrong
//   kind or type, a null or misaligned pointer where `:16` was promised)
//   are clear errors, not crashes.
//
//===----------------------------------------------------------------------===//

#include "tilec-c/tilec.h"
#include "tilec/JIT/DiskCache.h"
#include "tilec/JIT/JIT.h"

#include "FakeCuda/FakeCudaControl.h"
#include "TestUtils.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <random>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tilec;
using namespace tilec::jit;
using namespace tilec::jit::testing;

namespace {

const bool kFakeDriver = [] {
  setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, /*overwrite=*/1);
  return true;
}();

constexpr const char *kSource = R"py(import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
)py";

constexpr const char *kSignature = "*fp32:16, *fp32:16, *fp32:16, i32, 256";

/// A row sum: its cross-warp reduction needs shared memory.
constexpr const char *kReduceSource = R"py(import triton
import triton.language as tl

@triton.jit
def row_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.program_id(0), tl.sum(x, axis=0))
)py";

Compiler makeCompiler(const std::string &dir) {
  CompilerOptions options;
  options.cacheDir = dir;
  options.ptxOnly = true;
  llvm::Expected<Compiler> compiler = Compiler::create(options);
  if (!compiler) {
    ADD_FAILURE() << llvm::toString(compiler.takeError());
    std::abort();
  }
  return std::move(*compiler);
}

std::vector<std::string> entriesOf(const std::string &dir) {
  std::vector<std::string> entries;
  for (const std::string &file : listFiles(dir))
    if (llvm::StringRef(file).starts_with("v1/"))
      entries.push_back(file);
  return entries;
}

/// Checks an entry the store stress worker wrote (TestWorker.cpp).
void expectStressEntry(const CacheEntry &entry) {
  unsigned seed = 0, i = 0;
  size_t size = 0;
  ASSERT_EQ(
      std::sscanf(entry.metadata.c_str(), "%u %u %zu", &seed, &i, &size), 3)
      << entry.metadata;
  ASSERT_EQ(entry.cubin.size(), size);
  EXPECT_EQ(entry.cubin,
            std::string(size, static_cast<char>('a' + (seed + i) % 26)));
}

using Fake = tilec::testing::FakeCudaControl;

TEST(FaultTest, TrappingKernelIsReportedAndTheCacheStaysIntact) {
  Fake fake;
  TempDir dir;
  auto *x = reinterpret_cast<float *>(0x7f0000001000);
  std::string key;
  {
    Compiler compiler = makeCompiler(dir.str());
    Kernel kernel = std::move(*compiler.compileSource(kSource, "add_kernel"));
    ASSERT_FALSE(!!kernel.launch({4}, nullptr, x, x, x, 1000, 256));
    // The kernel traps (a device assertion, an mbarrier timeout): the
    // launch and everything after it fail with the driver's error.
    fake.failLaunches(710); // CUDA_ERROR_ASSERT
    llvm::Error trapped = kernel.launch({4}, nullptr, x, x, x, 1000, 256);
    ASSERT_TRUE(!!trapped);
    std::string message = llvm::toString(std::move(trapped));
    EXPECT_NE(message.find("CUDA_ERROR_ASSERT"), std::string::npos) << message;
    EXPECT_NE(message.find("add_kernel"), std::string::npos) << message;
    llvm::Error again = kernel.launch({4}, nullptr, x, x, x, 1000, 256);
    ASSERT_TRUE(!!again);
    llvm::consumeError(std::move(again));
    // The process can still compile (and report) other kernels.
    auto other = kernel.compile("*fp32, *fp32, *fp32, i32, 128");
    ASSERT_TRUE(!!other) << llvm::toString(other.takeError());
    key = (*compiler.compileSource(kSource, "add_kernel"))
              .compile(kSignature)
              .get()
              ->key;
  }
  fake.reset();
  // The entries written before the trap are whole and serve a new compiler.
  std::vector<std::string> entries = entriesOf(dir.str());
  ASSERT_EQ(entries.size(), 2u);
  Compiler after = makeCompiler(dir.str());
  Kernel kernel = std::move(*after.compileSource(kSource, "add_kernel"));
  ASSERT_FALSE(!!kernel.launch({4}, nullptr, x, x, x, 1000, 256));
  auto other = kernel.compile("*fp32, *fp32, *fp32, i32, 128");
  ASSERT_TRUE(!!other) << llvm::toString(other.takeError());
  EXPECT_EQ((*other)->origin, CacheOrigin::Disk);
  EXPECT_EQ(after.getStats().compiles, 0u);
  EXPECT_EQ(after.getStats().diskHits, 2u);
  EXPECT_EQ(after.getStats().diskCorrupt, 0u);
  EXPECT_EQ(key, (*kernel.compile(kSignature))->key);
}

TEST(FaultTest, KilledWritersNeverLeaveABrokenEntry) {
  TempDir dir;
  DiskCache cache(dir.str());
  constexpr const char *kKey =
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  std::mt19937 rng(15);
  int hits = 0;
  for (int round = 0; round < 12; ++round) {
    llvm::sys::ProcessInfo worker = startWorker(
        {"store", dir.str(), kKey, "1000000", std::to_string(round)},
        "/dev/null");
    if (round == 0) {
      // Let the first writer publish an entry (the machine may be slow to
      // start it), then kill the others at random points.
      for (int wait = 0; wait < 20000 && !llvm::sys::fs::exists(
                                             cache.getEntryPath(kKey));
           ++wait)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(1 + rng() % 80));
    ASSERT_EQ(::kill(worker.Pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(worker.Pid, &status, 0), worker.Pid);
    EXPECT_TRUE(WIFSIGNALED(status));
    CacheLookup seen = cache.lookup(kKey, "stress");
    ASSERT_NE(seen.status, CacheLookup::Status::Corrupt) << seen.reason;
    if (seen.status == CacheLookup::Status::Hit) {
      ++hits;
      expectStressEntry(seen.entry);
    }
  }
  EXPECT_GT(hits, 0);
  // What a killed writer leaves is its temporary file, which no lookup
  // reads; the entry itself is always whole.
  for (const std::string &file : listFiles(dir.str()))
    EXPECT_TRUE(llvm::StringRef(file).ends_with(".tkc") ||
                llvm::StringRef(file).contains(".tkc.tmp-"))
        << file;

  // The same for a whole compile killed part way: the next one gets the
  // kernel a fresh cache gives.
  std::string source = dir.file("k.tile");
  writeFile(source, kSource);
  std::string cacheDir = dir.file("compile-cache");
  for (int round = 0; round < 4; ++round) {
    llvm::sys::ProcessInfo worker = startWorker(
        {"compile-ptx", cacheDir, source, "add_kernel", kSignature},
        "/dev/null");
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 400));
    ::kill(worker.Pid, SIGKILL);
    int status = 0;
    ::waitpid(worker.Pid, &status, 0);
  }
  TempDir fresh;
  Compiler reference = makeCompiler(fresh.str());
  auto expected = reference.compileFile(source, "add_kernel")->compile(kSignature);
  ASSERT_TRUE(!!expected);
  Compiler after = makeCompiler(cacheDir);
  auto got = after.compileFile(source, "add_kernel")->compile(kSignature);
  ASSERT_TRUE(!!got);
  EXPECT_EQ((*got)->ptx, (*expected)->ptx);
  EXPECT_EQ(after.getStats().diskCorrupt, 0u);
}

/// Runs the test worker with a file-size limit of `limit` bytes (writes
/// past it fail with EFBIG, SIGXFSZ ignored: a full disk). Returns its exit
/// status.
int runWithFileSizeLimit(std::vector<std::string> args, rlim_t limit,
                         const std::string &output) {
  pid_t pid = ::fork();
  if (pid == 0) {
    struct rlimit rl = {limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    ::signal(SIGXFSZ, SIG_IGN);
    int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
      ::dup2(fd, 1);
    std::vector<char *> argv = {const_cast<char *>(TILEC_TEST_WORKER)};
    for (std::string &arg : args)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(TILEC_TEST_WORKER, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(FaultTest, FullDiskNeverLeavesABrokenEntry) {
  TempDir dir;
  DiskCache cache(dir.str());
  constexpr const char *kKey =
      "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
  // Entries of 1 to 200 KB against a 50 KB limit: most stores fail part way.
  EXPECT_EQ(runWithFileSizeLimit({"store", dir.str(), kKey, "40", "3"}, 50000,
                                 dir.file("out")),
            1);
  CacheLookup seen = cache.lookup(kKey, "stress");
  ASSERT_NE(seen.status, CacheLookup::Status::Corrupt) << seen.reason;
  if (seen.status == CacheLookup::Status::Hit)
    expectStressEntry(seen.entry);
  for (const std::string &file : listFiles(dir.str()))
    EXPECT_FALSE(llvm::StringRef(file).contains(".tmp-"))
        << "a failed store left " << file;

  // A compile whose store fails still gives the kernel; the next process
  // compiles again and gets the same PTX.
  std::string source = dir.file("k.tile");
  writeFile(source, kSource);
  std::string cacheDir = dir.file("compile-cache");
  std::string out = dir.file("compile.out");
  ASSERT_EQ(runWithFileSizeLimit(
                {"compile-ptx", cacheDir, source, "add_kernel", kSignature},
                2000, out),
            0);
  auto text = llvm::MemoryBuffer::getFile(out);
  ASSERT_TRUE(!!text);
  EXPECT_NE((*text)->getBuffer().find("store-failed"), llvm::StringRef::npos)
      << (*text)->getBuffer().str();
  EXPECT_TRUE(entriesOf(cacheDir).empty());
  Compiler after = makeCompiler(cacheDir);
  auto got = after.compileFile(source, "add_kernel")->compile(kSignature);
  ASSERT_TRUE(!!got);
  EXPECT_EQ((*got)->origin, CacheOrigin::Compiled);
  std::string hash = llvm::formatv("{0:x-16}", llvm::xxh3_64bits((*got)->ptx));
  EXPECT_NE((*text)->getBuffer().find(hash), llvm::StringRef::npos)
      << hash << " vs " << (*text)->getBuffer().str();
}

TEST(FaultTest, TenProcessesCompilingOneKernelAllGetIt) {
  TempDir dir;
  std::string source = dir.file("k.tile");
  writeFile(source, kSource);
  std::string cache = dir.file("cache");
  TempDir fresh;
  Compiler reference = makeCompiler(fresh.str());
  auto expected =
      reference.compileFile(source, "add_kernel")->compile(kSignature);
  ASSERT_TRUE(!!expected);
  std::string hash =
      llvm::formatv("{0:x-16}", llvm::xxh3_64bits((*expected)->ptx));
  const int kProcesses = 10;
  std::vector<llvm::sys::ProcessInfo> workers;
  for (int i = 0; i < kProcesses; ++i)
    workers.push_back(
        startWorker({"compile-ptx", cache, source, "add_kernel", kSignature},
                    dir.file("out" + std::to_string(i))));
  for (int i = 0; i < kProcesses; ++i) {
    EXPECT_EQ(waitWorker(workers[i]), 0);
    auto out = llvm::MemoryBuffer::getFile(dir.file("out" + std::to_string(i)));
    ASSERT_TRUE(!!out);
    llvm::StringRef line = (*out)->getBuffer().trim();
    EXPECT_EQ(line.find("store-failed"), llvm::StringRef::npos) << line.str();
    llvm::SmallVector<llvm::StringRef, 3> words;
    line.split(words, ' ');
    ASSERT_EQ(words.size(), 3u) << line.str();
    EXPECT_TRUE(words[0] == "compiled" || words[0] == "disk") << line.str();
    EXPECT_EQ(words[1], (*expected)->key);
    EXPECT_EQ(words[2], hash) << "process " << i << " got other PTX";
  }
  EXPECT_EQ(entriesOf(cache),
            std::vector<std::string>{"v1/" + (*expected)->key.substr(0, 2) +
                                     "/" + (*expected)->key + ".tkc"});
  for (const std::string &file : listFiles(cache))
    EXPECT_FALSE(llvm::StringRef(file).contains(".tmp-")) << file;
}

// ---- bad launches through the C API -------------------------------------

struct CApi {
  explicit CApi(const std::string &dir) {
    tilec_options options;
    tilec_options_init(&options);
    options.cache_dir = dir.c_str();
    options.ptx_only = 1;
    EXPECT_EQ(tilec_compiler_create(&options, &compiler), TILEC_SUCCESS);
  }
  ~CApi() { tilec_compiler_destroy(compiler); }
  tilec_kernel *kernel(const char *source, const char *name) {
    tilec_kernel *k = nullptr;
    EXPECT_EQ(tilec_kernel_from_source(compiler, source, std::strlen(source),
                                       name, "fault.tile", &k),
              TILEC_SUCCESS)
        << tilec_last_error();
    return k;
  }
  tilec_compiler *compiler = nullptr;
};

std::string lastError() { return tilec_last_error(); }

TEST(FaultTest, BadCApiLaunchesAreClearErrors) {
  Fake fake;
  TempDir dir;
  CApi api(dir.str());
  tilec_kernel *kernel = api.kernel(kSource, "add_kernel");
  ASSERT_NE(kernel, nullptr);
  uint64_t x = 0x7f0000001000ull;
  tilec_arg args[6] = {tilec_arg_pointer(x, TILEC_FP32),
                       tilec_arg_pointer(x, TILEC_FP32),
                       tilec_arg_pointer(x, TILEC_FP32), tilec_arg_i32(1000),
                       tilec_arg_i32(256), tilec_arg_i32(7)};
  ASSERT_EQ(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, args, 5),
            TILEC_SUCCESS)
      << lastError();
  tilec_binary *binary = nullptr;
  ASSERT_EQ(tilec_kernel_compile(kernel, kSignature, &binary), TILEC_SUCCESS);
  tilec_module *module = nullptr;
  ASSERT_EQ(tilec_binary_load(api.compiler, binary, &module), TILEC_SUCCESS);
  ASSERT_EQ(tilec_module_launch(module, 4, 1, 1, nullptr, args, 5),
            TILEC_SUCCESS)
      << lastError();
  uint64_t before = fake.launches();

  auto expectError = [&](tilec_status got, const char *what,
                         const char *needle) {
    EXPECT_NE(got, TILEC_SUCCESS) << what;
    std::string message = lastError();
    EXPECT_NE(message.find(needle), std::string::npos)
        << what << ": " << message;
  };
  // Grids of zero or out of range.
  expectError(tilec_kernel_launch(kernel, 0, 1, 1, nullptr, args, 5),
              "JIT grid 0", "grid (0, 1, 1) out of range");
  expectError(tilec_module_launch(module, 4, 0, 1, nullptr, args, 5),
              "module grid y 0", "out of range");
  expectError(tilec_module_launch(module, 1, 1, 70000, nullptr, args, 5),
              "module grid z 70000", "out of range");
  // Too few and too many arguments.
  expectError(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, args, 3),
              "JIT 3 arguments", "no argument and no default");
  expectError(tilec_module_launch(module, 4, 1, 1, nullptr, args, 4),
              "module 4 arguments", "argument");
  expectError(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, args, 6),
              "JIT 6 arguments", "argument");
  expectError(tilec_module_launch(module, 4, 1, 1, nullptr, args, 6),
              "module 6 arguments", "argument");
  EXPECT_EQ(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, nullptr, 5),
            TILEC_ERROR_INVALID_ARGUMENT);
  // Arguments of the wrong kind or type.
  tilec_arg wrong[5];
  std::memcpy(wrong, args, sizeof(wrong));
  wrong[3] = tilec_arg_pointer(x, TILEC_FP32);
  expectError(tilec_module_launch(module, 4, 1, 1, nullptr, wrong, 5),
              "module pointer for i32", "n");
  wrong[3] = tilec_arg_f32(2.5f);
  expectError(tilec_module_launch(module, 4, 1, 1, nullptr, wrong, 5),
              "module float for i32", "n");
  std::memcpy(wrong, args, sizeof(wrong));
  wrong[0] = tilec_arg_pointer(x, TILEC_FP16);
  expectError(tilec_module_launch(module, 4, 1, 1, nullptr, wrong, 5),
              "module *fp16 for *fp32",
              "'x_ptr'): a pointer to fp16 for a parameter compiled for "
              "pointers to fp32");
  wrong[0] = tilec_arg_i32(5);
  expectError(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, wrong, 5),
              "JIT integer for a pointer", "x_ptr");
  std::memcpy(wrong, args, sizeof(wrong));
  wrong[1] = tilec_arg_make(77, TILEC_FP32, 0);
  EXPECT_NE(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, wrong, 5),
            TILEC_SUCCESS);
  // A misaligned pointer where the binary promised :16.
  std::memcpy(wrong, args, sizeof(wrong));
  wrong[2] = tilec_arg_pointer(x + 4, TILEC_FP32);
  expectError(tilec_module_launch(module, 4, 1, 1, nullptr, wrong, 5),
              "module misaligned", "not a multiple of 16");
  EXPECT_EQ(fake.launches(), before) << "a bad launch reached the driver";
  // A null pointer is 16-byte aligned and is launched, as Triton does (a
  // kernel may leave a pointer it is given unused, e.g. behind a
  // constexpr flag); it is not a crash of the host.
  wrong[2] = tilec_arg_pointer(0, TILEC_FP32);
  EXPECT_EQ(tilec_module_launch(module, 4, 1, 1, nullptr, wrong, 5),
            TILEC_SUCCESS)
      << lastError();
  EXPECT_EQ(tilec_kernel_launch(kernel, 4, 1, 1, nullptr, wrong, 5),
            TILEC_SUCCESS)
      << lastError();

  tilec_module_destroy(module);
  tilec_binary_destroy(binary);
  tilec_kernel_destroy(kernel);
}

TEST(FaultTest, TooMuchSharedMemoryIsAClearError) {
  // A device with 8 bytes of shared memory per block: the runtime reads
  // the limit once per process, so the test runs itself again with the
  // fake driver told so.
  if (!std::getenv("TILEC_FAKE_CUDA_SHARED_OPTIN")) {
    std::string self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    llvm::StringRef argv[] = {
        self, "--gtest_filter=FaultTest.TooMuchSharedMemoryIsAClearError"};
    std::vector<llvm::StringRef> env;
    for (char **e = environ; *e; ++e)
      env.push_back(*e);
    env.push_back("TILEC_FAKE_CUDA_SHARED_OPTIN=8");
    std::string error;
    int rc = llvm::sys::ExecuteAndWait(self, argv, env, {}, 120, 0, &error);
    EXPECT_EQ(rc, 0) << error;
    return;
  }
  Fake fake;
  TempDir dir;
  CApi api(dir.str());
  tilec_kernel *kernel = api.kernel(kReduceSource, "row_sum");
  ASSERT_NE(kernel, nullptr);
  tilec_binary *binary = nullptr;
  ASSERT_EQ(tilec_kernel_compile(kernel, "*fp32:16, *fp32:16, 1024", &binary),
            TILEC_SUCCESS)
      << lastError();
  std::string metadata = tilec_binary_metadata(binary);
  tilec_module *module = nullptr;
  tilec_status loaded = tilec_binary_load(api.compiler, binary, &module);
  uint64_t x = 0x7f0000001000ull;
  tilec_arg args[3] = {tilec_arg_pointer(x, TILEC_FP32),
                       tilec_arg_pointer(x, TILEC_FP32), tilec_arg_i32(1024)};
  tilec_status launched =
      loaded == TILEC_SUCCESS
          ? tilec_module_launch(module, 1, 1, 1, nullptr, args, 3)
          : loaded;
  EXPECT_EQ(launched, TILEC_ERROR_INVALID_ARGUMENT) << metadata;
  std::string message = lastError();
  EXPECT_NE(message.find("bytes of shared memory per block"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("at most 8"), std::string::npos) << message;
  EXPECT_EQ(fake.launches(), 0u);
  tilec_module_destroy(module);
  tilec_binary_destroy(binary);
  tilec_kernel_destroy(kernel);
}

} // namespace
