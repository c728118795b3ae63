//===- FakeDriverLaunchTest.cpp - Kernel::launch on the fake driver -------===//
//
// What Kernel::launch hands the driver, without a GPU: this binary points
// the runtime at test/lib/FakeCuda (TILEC_LIBCUDA, set before anything loads
// a driver), which records each launch's grid, block and packed parameters
// for a PTX image. Checked: a persistent kernel is launched on the 1-D grid
// computeLaunchGrid gives from the device's SM count and the occupancy the
// driver reports at load, and every kernel's program_grid parameters carry
// the caller's grid. (GpuKernelTest runs the same kernel on a real GPU.)
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Kernel.h"

#include "FakeCuda/FakeCudaControl.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

using namespace tilec::runtime;

namespace {

const unsigned char kTestPtx[] = {
#include "test_kernels.ptx.inc"
};

/// Points the runtime at the fake driver before any test loads one.
const bool kFakeDriver = [] {
  setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, /*overwrite=*/1);
  unsetenv("TILEC_FAKE_CUDA_OCCUPANCY");
  return true;
}();

using Fake = tilec::testing::FakeCudaControl;

template <typename T> T param(const TilecFakeCudaLaunch &l, int i) {
  return tilec::testing::fakeLaunchParam<T>(l, i);
}
/// persistent_kernel(visits, info) of Inputs/test_kernels.ptx with its
/// three program_grid parameters (grid x, y, z).
KernelMetadata persistentMetadata(bool persistent, std::uint64_t dynamicBytes) {
  std::string json =
      R"({"format": "tilec-kernel-metadata", "version": 1,
          "name": "persistent_kernel", "target": "sm_90a", "num_threads": 128,
          "shared_memory": {"dynamic_bytes": )" +
      std::to_string(dynamicBytes) + R"(}, "persistent": )" +
      (persistent ? "true" : "false") + R"(,
          "parameters": [
            {"name": "visits", "kind": "pointer", "type": "i32"},
            {"name": "info", "kind": "pointer", "type": "i32"}],
          "hidden_parameters": [
            {"name": "gx", "kind": "hidden", "bytes": 4, "align": 4,
             "recipe": {"kind": "program_grid", "axis": 0}},
            {"name": "gy", "kind": "hidden", "bytes": 4, "align": 4,
             "recipe": {"kind": "program_grid", "axis": 1}},
            {"name": "gz", "kind": "hidden", "bytes": 4, "align": 4,
             "recipe": {"kind": "program_grid", "axis": 2}}]})";
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  EXPECT_TRUE(md) << md.status().message();
  return md ? *md : KernelMetadata();
}

class FakeDriverLaunchTest : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Device>> device = Device::open();
    ASSERT_TRUE(device) << device.status().message();
    device_ = device.take();
    // The fake reports 132 SMs (an H100 SXM / H200).
    ASSERT_EQ(device_->info().multiprocessors, 132);
  }
  void TearDown() override { unsetenv("TILEC_FAKE_CUDA_OCCUPANCY"); }

  std::unique_ptr<Kernel> load(const KernelMetadata &md) {
    Expected<std::unique_ptr<Kernel>> kernel =
        Kernel::load(*device_, md, kTestPtx, sizeof(kTestPtx) - 1);
    EXPECT_TRUE(kernel) << kernel.status().message();
    return kernel ? kernel.take() : nullptr;
  }

  /// Launches `grid` and checks what the driver got: `launched`, block
  /// (128, 1, 1), and the caller's grid in the three program_grid slots.
  void expectLaunch(Kernel &kernel, LaunchGrid grid, LaunchGrid launched) {
    SCOPED_TRACE("grid (" + std::to_string(grid.x) + ", " +
                 std::to_string(grid.y) + ", " + std::to_string(grid.z) + ")");
    Status status = kernel.launch(
        grid, {KernelArg::pointer(0x7f0000001000), KernelArg::pointer(0x7f0000002000)});
    ASSERT_TRUE(status.ok()) << status.message();
    TilecFakeCudaLaunch l = fake_.last();
    EXPECT_STREQ(l.entry, "persistent_kernel");
    EXPECT_EQ(l.grid[0], launched.x);
    EXPECT_EQ(l.grid[1], launched.y);
    EXPECT_EQ(l.grid[2], launched.z);
    EXPECT_EQ(l.block[0], 128u);
    EXPECT_EQ(l.block[1], 1u);
    EXPECT_EQ(l.block[2], 1u);
    EXPECT_EQ(l.sharedBytes, kernel.metadata().dynamicSharedBytes);
    ASSERT_EQ(l.numParams, 5);
    EXPECT_EQ(param<std::uint64_t>(l, 0), 0x7f0000001000u);
    EXPECT_EQ(param<std::uint64_t>(l, 1), 0x7f0000002000u);
    EXPECT_EQ(param<std::int32_t>(l, 2), static_cast<std::int32_t>(grid.x));
    EXPECT_EQ(param<std::int32_t>(l, 3), static_cast<std::int32_t>(grid.y));
    EXPECT_EQ(param<std::int32_t>(l, 4), static_cast<std::int32_t>(grid.z));
  }

  Fake fake_;
  std::unique_ptr<Device> device_;
};

TEST_F(FakeDriverLaunchTest, PersistentKernelGetsSMsTimesOccupancyCTAs) {
  // The fake's occupancy for 128 threads without shared memory: 2048 / 128.
  std::unique_ptr<Kernel> kernel = load(persistentMetadata(true, 0));
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->ctasPerSM(), 16);
  expectLaunch(*kernel, {7, 3, 2}, {42, 1, 1});
  expectLaunch(*kernel, {2112, 1, 1}, {2112, 1, 1}); // 132 * 16
  expectLaunch(*kernel, {100, 50, 3}, {2112, 1, 1});
  expectLaunch(*kernel, {1, 1, 65535}, {2112, 1, 1});
  expectLaunch(*kernel, {0x7fffffffu, 1, 1}, {2112, 1, 1});
  EXPECT_EQ(fake_.launches(), 5u);
}

TEST_F(FakeDriverLaunchTest, OccupancyCountsTheDynamicSharedMemory) {
  // 100000 bytes (opted into, above 48 KiB) + 1 KiB reserved: two CTAs fit
  // the fake's 227 KiB per SM.
  std::unique_ptr<Kernel> kernel = load(persistentMetadata(true, 100000));
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->ctasPerSM(), 2);
  expectLaunch(*kernel, {1000, 1, 1}, {264, 1, 1});

  // A driver that says no CTA fits: one per SM all the same (the launch
  // then reports the driver's error, if any).
  setenv("TILEC_FAKE_CUDA_OCCUPANCY", "0", 1);
  kernel = load(persistentMetadata(true, 0));
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->ctasPerSM(), 1);
  expectLaunch(*kernel, {1000, 1, 1}, {132, 1, 1});
}

TEST_F(FakeDriverLaunchTest, OrdinaryKernelGetsTheCallersGridAndProgramGrid) {
  std::unique_ptr<Kernel> kernel = load(persistentMetadata(false, 0));
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->ctasPerSM(), 0); // Not asked.
  expectLaunch(*kernel, {7, 3, 2}, {7, 3, 2});
  expectLaunch(*kernel, {5000, 1, 1}, {5000, 1, 1});
}

TEST_F(FakeDriverLaunchTest, BadGridsLaunchNothing) {
  std::unique_ptr<Kernel> kernel = load(persistentMetadata(true, 0));
  ASSERT_TRUE(kernel);
  KernelArg args[] = {KernelArg::pointer(0x7f0000001000),
                      KernelArg::pointer(0x7f0000002000)};
  Status empty = kernel->launch({7, 0, 2}, KernelArgs(args, 2));
  EXPECT_EQ(empty.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(empty.message(),
            "kernel 'persistent_kernel': grid (7, 0, 2) out of range (x in "
            "[1, 2^31-1], y and z in [1, 65535])");
  Status tooMany = kernel->launch({65536, 32768, 1}, KernelArgs(args, 2));
  EXPECT_EQ(tooMany.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(tooMany.message(),
            "kernel 'persistent_kernel': grid (65536, 32768, 1) has "
            "2147483648 programs; a persistent kernel takes at most 2^31-1 "
            "(it numbers them with 32-bit integers)");
  EXPECT_EQ(fake_.launches(), 0u);
}

} // namespace
