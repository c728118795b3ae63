//===- LaunchTest.cpp - JIT launches through a fake driver ----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Kernel::launch end to end without a GPU: the runtime loads
// test/lib/FakeCuda (TILEC_LIBCUDA is set before anything loads a driver),
// which records module loads and launches instead of running them. Checked:
// the first launch of a specialization compiles and loads once, later ones
// only launch; Triton's specialization picks a new kernel for a misaligned
// pointer, an integer equal to 1 or a multiple of 16; the packed arguments
// are the ones the compiled kernel takes.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/JIT.h"

#include "FakeCuda/FakeCudaControl.h"
#include "TestUtils.h"

#include <cstring>
#include <dlfcn.h>

using namespace tilec;
using namespace tilec::jit;
using namespace tilec::jit::testing;

namespace {

/// Points the runtime at the fake driver before any test loads one.
const bool kFakeDriver = [] {
  setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, /*overwrite=*/1);
  return true;
}();

using Fake = tilec::testing::FakeCudaControl;

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

Compiler makeCompiler(const TempDir &dir) {
  CompilerOptions options;
  options.cacheDir = dir.str();
  options.ptxOnly = true; // PTX images let the fake record parameter values.
  llvm::Expected<Compiler> compiler = Compiler::create(options);
  if (!compiler) {
    ADD_FAILURE() << llvm::toString(compiler.takeError());
    std::abort();
  }
  return std::move(*compiler);
}

TEST(LaunchTest, SecondLaunchIsCachedAndArgumentsArePacked) {
  Fake fake;
  TempDir dir;
  Compiler compiler = makeCompiler(dir);
  llvm::Expected<Kernel> kernel = compiler.compileSource(kSource, "add_kernel");
  ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());
  auto *x = reinterpret_cast<float *>(0x7f0000001000);
  auto *y = reinterpret_cast<float *>(0x7f0000002000);
  auto *out = reinterpret_cast<float *>(0x7f0000003000);
  auto *stream = reinterpret_cast<Stream>(0x1234);

  ASSERT_FALSE(!!kernel->launch({8}, stream, x, y, out, 1000, 128));
  TilecFakeCudaStats s = fake.stats();
  EXPECT_EQ(s.moduleLoads, 1u);
  EXPECT_EQ(s.ptxLoads, 1u);
  EXPECT_EQ(s.launches, 1u);
  TilecFakeCudaLaunch l = fake.last();
  EXPECT_STREQ(l.entry, "add_kernel");
  EXPECT_EQ(l.grid[0], 8u);
  EXPECT_EQ(l.block[0], 128u); // 4 warps.
  EXPECT_EQ(l.stream, stream);
  ASSERT_EQ(l.numParams, 4); // BLOCK is compiled in.
  EXPECT_EQ(fake.param<uint64_t>(l, 0), 0x7f0000001000u);
  EXPECT_EQ(fake.param<uint64_t>(l, 2), 0x7f0000003000u);
  EXPECT_EQ(fake.param<int32_t>(l, 3), 1000);

  ASSERT_FALSE(!!kernel->launch({9, 2}, stream, x, y, out, 1001, 128));
  s = fake.stats();
  EXPECT_EQ(s.moduleLoads, 1u); // Loaded once.
  EXPECT_EQ(s.launches, 2u);
  l = fake.last();
  EXPECT_EQ(l.grid[0], 9u);
  EXPECT_EQ(l.grid[1], 2u);
  EXPECT_EQ(fake.param<int32_t>(l, 3), 1001);
  EXPECT_EQ(kernel->getNumLoadedSpecializations(), 1u);
  CacheStats stats = compiler.getStats();
  EXPECT_EQ(stats.compiles, 1u);
  EXPECT_EQ(stats.loads, 1u);
}

TEST(LaunchTest, SpecializationFollowsTheArguments) {
  Fake fake;
  TempDir dir;
  Compiler compiler = makeCompiler(dir);
  Kernel kernel = std::move(*compiler.compileSource(kSource, "add_kernel"));
  auto *x = reinterpret_cast<float *>(0x7f0000001000);
  auto *out = reinterpret_cast<float *>(0x7f0000003000);
  EXPECT_EQ(*kernel.specialize({x, x, out, 1000, 128}),
            "*fp32:16, *fp32:16, *fp32:16, i32, 128");
  ASSERT_FALSE(!!kernel.launch({1}, nullptr, x, x, out, 1000, 128));
  // A multiple of 16: `i32:16`, a new kernel.
  EXPECT_EQ(*kernel.specialize({x, x, out, 1024, 128}),
            "*fp32:16, *fp32:16, *fp32:16, i32:16, 128");
  ASSERT_FALSE(!!kernel.launch({1}, nullptr, x, x, out, 1024, 128));
  EXPECT_EQ(kernel.getNumLoadedSpecializations(), 2u);
  // Equal to 1: a constexpr, not passed.
  ASSERT_FALSE(!!kernel.launch({1}, nullptr, x, x, out, 1, 128));
  EXPECT_EQ(kernel.getNumLoadedSpecializations(), 3u);
  EXPECT_EQ(fake.last().numParams, 3);
  // A pointer 4 bytes off 16: `*fp32`.
  ASSERT_FALSE(!!kernel.launch({1}, nullptr, x + 1, x, out, 1000, 128));
  EXPECT_EQ(kernel.getNumLoadedSpecializations(), 4u);
  EXPECT_EQ(fake.param<uint64_t>(fake.last(), 0), 0x7f0000001004u);
  // Another value of 1000 reuses the first kernel.
  ASSERT_FALSE(!!kernel.launch({1}, nullptr, x, x, out, 999, 128));
  EXPECT_EQ(kernel.getNumLoadedSpecializations(), 4u);
  EXPECT_EQ(fake.stats().moduleLoads, 4u);
  EXPECT_EQ(compiler.getStats().compiles, 4u);
  // Another handle on the same source shares the compiled kernels.
  Kernel again = std::move(*compiler.compileSource(kSource, "add_kernel"));
  ASSERT_FALSE(!!again.launch({1}, nullptr, x, x, out, 1000, 128));
  EXPECT_EQ(compiler.getStats().compiles, 4u);
  EXPECT_EQ(compiler.getStats().sourceHits, 1u);
}

TEST(LaunchTest, Errors) {
  Fake fake;
  TempDir dir;
  Compiler compiler = makeCompiler(dir);
  Kernel kernel = std::move(*compiler.compileSource(kSource, "add_kernel"));
  auto *x = reinterpret_cast<float *>(0x7f0000001000);
  llvm::Error few = kernel.launch({1}, nullptr, x, x);
  ASSERT_TRUE(!!few);
  EXPECT_EQ(llvm::toString(std::move(few)),
            "kernel 'add_kernel', parameter 'out_ptr' (3rd): no argument and "
            "no default");
  // BLOCK = 100 does not compile: the diagnostic comes back.
  llvm::Error bad = kernel.launch({1}, nullptr, x, x, x, 10, 100);
  ASSERT_TRUE(!!bad);
  std::string message = llvm::toString(std::move(bad));
  EXPECT_NE(message.find("<source>:6:"), std::string::npos) << message;
  EXPECT_NE(message.find("power of two"), std::string::npos) << message;
  // The runtime's own checks.
  llvm::Error grid = kernel.launch({0}, nullptr, x, x, x, 10, 128);
  ASSERT_TRUE(!!grid);
  EXPECT_EQ(llvm::toString(std::move(grid)),
            "kernel 'add_kernel': grid (0, 1, 1) out of range (x in [1, "
            "2^31-1], y and z in [1, 65535])");
  EXPECT_EQ(fake.stats().launches, 0u);
}

TEST(LaunchTest, DiskCacheServesANewCompiler) {
  Fake fake;
  TempDir dir;
  auto *x = reinterpret_cast<float *>(0x7f0000001000);
  {
    Compiler first = makeCompiler(dir);
    Kernel kernel = std::move(*first.compileSource(kSource, "add_kernel"));
    ASSERT_FALSE(!!kernel.launch({1}, nullptr, x, x, x, 10, 128));
    EXPECT_EQ(first.getStats().compiles, 1u);
  }
  Compiler second = makeCompiler(dir);
  Kernel kernel = std::move(*second.compileSource(kSource, "add_kernel"));
  ASSERT_FALSE(!!kernel.launch({1}, nullptr, x, x, x, 10, 128));
  EXPECT_EQ(second.getStats().compiles, 0u);
  EXPECT_EQ(second.getStats().diskHits, 1u);
  EXPECT_EQ(fake.stats().launches, 2u);
}

} // namespace
