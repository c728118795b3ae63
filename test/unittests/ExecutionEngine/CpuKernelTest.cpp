//===- CpuKernelTest.cpp - CPU backend launches, exact expectations -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "CpuKernelTestUtils.h"

#include <cstring>
#include <numeric>
#include <vector>

using namespace tilec;
using namespace tilec::cpu;
using namespace tilec::cpu::testing;

namespace {

const char *kGridKernel = R"(
import triton
import triton.language as tl

@triton.jit
def grid_ids(out_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    nz = tl.num_programs(2)
    linear = (z * ny + y) * nx + x
    tl.store(out_ptr + linear * 2, x + 10 * y + 100 * z)
    tl.store(out_ptr + linear * 2 + 1, nx + 10 * ny + 100 * nz)
)";

TEST(CpuKernel, EveryProgramRunsOnceWithItsIds) {
  auto kernel = compileKernel(kGridKernel, "grid_ids", "*i32");
  ASSERT_TRUE(kernel);
  constexpr unsigned X = 7, Y = 3, Z = 5;
  std::vector<std::int32_t> out(2 * X * Y * Z, -1);
  for (unsigned threads : {1u, 3u, 0u}) {
    std::fill(out.begin(), out.end(), -1);
    CpuLaunchOptions options;
    options.threads = threads;
    llvm::Error err = kernel->launch({X, Y, Z},
                                     {CpuArgument::pointer(out.data())},
                                     options);
    ASSERT_FALSE(err) << llvm::toString(std::move(err));
    for (unsigned z = 0; z < Z; ++z)
      for (unsigned y = 0; y < Y; ++y)
        for (unsigned x = 0; x < X; ++x) {
          unsigned linear = (z * Y + y) * X + x;
          EXPECT_EQ(out[2 * linear], int(x + 10 * y + 100 * z));
          EXPECT_EQ(out[2 * linear + 1], int(X + 10 * Y + 100 * Z));
        }
  }
}

const char *kIntegerKernel = R"(
import triton
import triton.language as tl

@triton.jit
def int_ops(a_ptr, b_ptr, q_ptr, r_ptr, f_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(q_ptr + offs, a // b)
    tl.store(r_ptr + offs, a % b)
    tl.store(f_ptr + offs, a > b)
)";

TEST(CpuKernel, IntegerResultsAreExactAndBooleansAreBytes) {
  auto kernel = compileKernel(kIntegerKernel, "int_ops",
                              "*i32, *i32, *i32, *i32, *i1, 64");
  ASSERT_TRUE(kernel);
  std::vector<std::int32_t> a(64), b(64), q(64), r(64);
  std::vector<std::uint8_t> f(64, 0xA5);
  for (int i = 0; i < 64; ++i) {
    a[i] = (i * 37) % 101 - 50;
    b[i] = (i % 2 ? 1 : -1) * (i % 7 + 1);
  }
  llvm::Error err = kernel->launch(
      {1, 1, 1},
      {CpuArgument::pointer(a.data()), CpuArgument::pointer(b.data()),
       CpuArgument::pointer(q.data()), CpuArgument::pointer(r.data()),
       CpuArgument::pointer(f.data())});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  for (int i = 0; i < 64; ++i) {
    // Run-time // and % truncate toward zero, like C (docs/language.md).
    EXPECT_EQ(q[i], a[i] / b[i]) << a[i] << " // " << b[i];
    EXPECT_EQ(r[i], a[i] % b[i]) << a[i] << " % " << b[i];
    EXPECT_EQ(f[i], a[i] > b[i] ? 1 : 0);
  }
}

const char *kArgmaxKernel = R"(
import triton
import triton.language as tl

@triton.jit
def row_argmax(x_ptr, idx_ptr, val_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    tl.store(val_ptr + row, tl.max(x, axis=0))
)";

TEST(CpuKernel, ArgmaxTakesTheFirstOfEqualMaxima) {
  auto kernel = compileKernel(kArgmaxKernel, "row_argmax", "*fp32, *i32, *fp32, 32");
  ASSERT_TRUE(kernel);
  constexpr int rows = 8, n = 32;
  std::vector<float> x(rows * n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < n; ++c)
      x[r * n + c] = float((c * 7 + r) % 5); // Several maxima (4) per row.
  std::vector<std::int32_t> idx(rows, -1);
  std::vector<float> val(rows);
  llvm::Error err = kernel->launch(
      {rows, 1, 1},
      {CpuArgument::pointer(x.data()), CpuArgument::pointer(idx.data()),
       CpuArgument::pointer(val.data())});
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[r * n];
    int first = int(std::max_element(row, row + n) - row);
    EXPECT_EQ(idx[r], first) << "row " << r;
    EXPECT_EQ(val[r], 4.0f);
  }
}

const char *kStoreKernel = R"(
import triton
import triton.language as tl

@triton.jit
def fill(z_ptr, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.full((BLOCK,), value, tl.float32))
)";

TEST(CpuKernel, SanitizerReportsUnmaskedOutOfBoundsStores) {
  auto kernel = compileKernel(kStoreKernel, "fill", "*fp32, fp32, 16",
                              /*sanitize=*/true);
  ASSERT_TRUE(kernel);
  // 40 elements, 3 programs of 16: program 2 writes 8 elements past the end,
  // into a guard region that must stay untouched.
  std::vector<float> storage(48, -1.0f);
  CpuLaunchOptions options;
  options.buffers = {{"z", storage.data(), 40 * sizeof(float)}};
  options.maxReports = 2;
  llvm::Error err = kernel->launch(
      {3, 1, 1},
      {CpuArgument::pointer(storage.data()), CpuArgument::scalar(2.5f)},
      options);
  ASSERT_TRUE(!!err);
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("kernel 'fill', program (2, 0, 0): out-of-bounds "
                         "store of element 8 at address"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(buffer 'z' is [0x"), std::string::npos) << message;
  EXPECT_NE(message.find("element 9 at"), std::string::npos) << message;
  EXPECT_EQ(message.find("element 10 at"), std::string::npos) << message;
  EXPECT_NE(message.find("… and 6 more"), std::string::npos) << message;
  EXPECT_NE(message.find("sanitizer: 8 out-of-bounds accesses"),
            std::string::npos)
      << message;
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(storage[i], 2.5f);
  for (int i = 40; i < 48; ++i)
    EXPECT_EQ(storage[i], -1.0f) << "the out-of-bounds store was not skipped";
}

TEST(CpuKernel, LaunchChecksArgumentsAgainstTheInterface) {
  auto kernel = compileKernel(kStoreKernel, "fill", "*fp32, fp32, 16");
  ASSERT_TRUE(kernel);
  float z[16];
  auto message = [&](std::array<unsigned, 3> grid,
                     std::vector<CpuArgument> args) {
    llvm::Error err = kernel->launch(grid, args);
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  EXPECT_EQ(message({1, 1, 1}, {CpuArgument::pointer(z)}),
            "kernel 'fill' takes 2 arguments (z_ptr, value), got 1");
  EXPECT_EQ(message({1, 1, 1},
                    {CpuArgument::scalar(1.0f), CpuArgument::scalar(1.0f)}),
            "kernel 'fill': argument 'z_ptr' must be a pointer");
  EXPECT_EQ(message({1, 1, 1},
                    {CpuArgument::pointer(z), CpuArgument::scalar(1.0)}),
            "kernel 'fill': argument 'value' is fp32 (4 bytes), got 8 bytes");
  EXPECT_EQ(message({0, 1, 1},
                    {CpuArgument::pointer(z), CpuArgument::scalar(1.0f)}),
            "kernel 'fill': every grid extent must be at least 1, got (0, 1, "
            "1)");
  EXPECT_EQ(message({1, 1, 1},
                    {CpuArgument::pointer(z), CpuArgument::scalar(1.0f)}),
            "");
}

} // namespace
