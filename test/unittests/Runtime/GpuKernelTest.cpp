//===- GpuKernelTest.cpp - Loading and launching real kernels -------------===//
//
// Runs the hand-written kernels of Inputs/test_kernels.ptx through the whole
// runtime (module load, parameter layout check, argument packing, launch,
// copies, events) on a GPU. Without a driver every test here is skipped with
// the driver's reason; the kernels need compute capability 9.0 (sm_90a).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/DeviceBuffer.h"
#include "tilec/Runtime/Driver.h"
#include "tilec/Runtime/Event.h"
#include "tilec/Runtime/FloatConversion.h"
#include "tilec/Runtime/Kernel.h"
#include "tilec/Runtime/Stream.h"
#include "tilec/Runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace tilec::runtime;

namespace {

const unsigned char kTestPtx[] = {
#include "test_kernels.ptx.inc"
};
#ifdef TILEC_TEST_HAVE_CUBIN
const unsigned char kTestCubin[] = {
#include "test_kernels.cubin.inc"
};
#endif

struct Image {
  const char *what;
  const void *data;
  std::size_t size; // Without the embedding's trailing NUL.
};

std::vector<Image> images() {
  std::vector<Image> result = {{"ptx", kTestPtx, sizeof(kTestPtx) - 1}};
#ifdef TILEC_TEST_HAVE_CUBIN
  result.push_back({"cubin", kTestCubin, sizeof(kTestCubin) - 1});
#endif
  return result;
}

/// Builds metadata for one entry of the test module.
KernelMetadata metadata(const std::string &entry, int numThreads,
                        std::uint64_t dynamicBytes, const std::string &params,
                        const std::string &hidden = "") {
  std::string json = R"({"format": "tilec-kernel-metadata", "version": 1,
      "name": ")" + entry + R"(", "target": "sm_90a", "num_threads": )" +
                     std::to_string(numThreads) +
                     R"(, "shared_memory": {"dynamic_bytes": )" +
                     std::to_string(dynamicBytes) + R"(}, "parameters": [)" +
                     params + R"(], "hidden_parameters": [)" + hidden + "]}";
  Expected<KernelMetadata> md = KernelMetadata::parse(json);
  EXPECT_TRUE(md) << md.status().message() << "\n" << json;
  return md ? *md : KernelMetadata();
}

const char *kAddParams =
    R"({"name": "x", "kind": "pointer", "type": "fp32", "divisibility": 16},
       {"name": "y", "kind": "pointer", "type": "fp32", "divisibility": 16},
       {"name": "out", "kind": "pointer", "type": "fp32", "divisibility": 16},
       {"name": "n", "kind": "scalar", "type": "i32"},
       {"name": "BLOCK", "kind": "constexpr", "type": "i32", "value": 128})";

class GpuKernelTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Expected<std::unique_ptr<Device>> device = Device::open();
    if (device)
      device_ = device.take().release();
    else
      openError_ = new Status(device.status());
  }
  static void TearDownTestSuite() {
    delete device_;
    device_ = nullptr;
    delete openError_;
    openError_ = nullptr;
  }

  void SetUp() override {
    if (openError_) {
      if (openError_->code() == ErrorCode::DriverUnavailable)
        GTEST_SKIP() << "GPU test skipped: " << openError_->message();
      FAIL() << openError_->message();
    }
    const DeviceInfo &info = device_->info();
    if (info.computeMajor != 9 || info.computeMinor != 0)
      GTEST_SKIP() << "GPU test skipped: the test kernels are sm_90a, the "
                      "device is "
                   << info.name << " (" << info.computeMajor << "."
                   << info.computeMinor << ")";
  }

  Device &device() { return *device_; }

  std::unique_ptr<Kernel> mustLoad(const KernelMetadata &md,
                                   const Image &image) {
    Expected<std::unique_ptr<Kernel>> kernel =
        Kernel::load(device(), md, image.data, image.size);
    EXPECT_TRUE(kernel) << kernel.status().message();
    return kernel ? kernel.take() : nullptr;
  }

  DeviceBuffer mustAllocate(std::size_t bytes) {
    Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(device(), bytes);
    EXPECT_TRUE(buffer) << buffer.status().message();
    return buffer ? buffer.take() : DeviceBuffer();
  }

  static Device *device_;
  static Status *openError_;
};

Device *GpuKernelTest::device_ = nullptr;
Status *GpuKernelTest::openError_ = nullptr;

TEST_F(GpuKernelTest, DeviceInfoIsSane) {
  const DeviceInfo &info = device().info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_GT(info.totalMemory, 0u);
  EXPECT_GE(info.maxSharedPerBlockOptin, 48u * 1024);
  EXPECT_EQ(info.maxThreadsPerBlock, 1024);
  std::printf("device: %s, cc %d.%d, %d SMs, %zu MiB, %zu B smem opt-in, "
              "driver %d\n",
              info.name.c_str(), info.computeMajor, info.computeMinor,
              info.multiprocessors, info.totalMemory >> 20,
              info.maxSharedPerBlockOptin, device().driver().version());
  EXPECT_TRUE(device().synchronize().ok());
}

TEST_F(GpuKernelTest, AddKernelFromEachImage) {
  const int n = 1000; // Not a multiple of the 128-thread block.
  const int padded = 1024 + 64;
  std::vector<float> x(padded), y(padded);
  for (int i = 0; i < padded; ++i) {
    x[i] = 0.5f * i - 3.25f;
    y[i] = std::sin(0.1f * i);
  }
  for (const Image &image : images()) {
    SCOPED_TRACE(image.what);
    KernelMetadata md = metadata("add_kernel", 128, 0, kAddParams);
    std::unique_ptr<Kernel> kernel = mustLoad(md, image);
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->loadedFromPtx(), std::string(image.what) == "ptx");
    EXPECT_GT(kernel->attributes().registers, 0);
    EXPECT_EQ(kernel->attributes().binaryVersion, 90);

    DeviceBuffer dx = mustAllocate(padded * 4), dy = mustAllocate(padded * 4),
                 dout = mustAllocate(padded * 4);
    ASSERT_TRUE(dx.copyFromHost(x.data(), padded * 4).ok());
    ASSERT_TRUE(dy.copyFromHost(y.data(), padded * 4).ok());
    ASSERT_TRUE(dout.fillWords(0x7fc00000u).ok()); // Poison with NaN.

    Status launched = kernel->launch({(n + 127) / 128, 1, 1},
                                     {dx.arg(), dy.arg(), dout.arg(),
                                      KernelArg::scalar(std::int32_t(n))});
    ASSERT_TRUE(launched.ok()) << launched.message();
    ASSERT_TRUE(device().synchronize().ok());

    std::vector<float> out(padded);
    ASSERT_TRUE(dout.copyToHost(out.data(), padded * 4).ok());
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(out[i], x[i] + y[i]) << i;
    for (int i = n; i < padded; ++i)
      ASSERT_TRUE(std::isnan(out[i])) << "wrote past n at " << i;
  }
}

TEST_F(GpuKernelTest, ScalarsOfEverySizeArriveIntact) {
  KernelMetadata md = metadata(
      "scalars_kernel", 32, 0,
      R"({"name": "out", "kind": "pointer", "type": "u32", "divisibility": 16},
         {"name": "c", "kind": "scalar", "type": "u8"},
         {"name": "a", "kind": "scalar", "type": "fp32"},
         {"name": "d", "kind": "scalar", "type": "fp16"},
         {"name": "b", "kind": "scalar", "type": "i64"})");
  for (const Image &image : images()) {
    SCOPED_TRACE(image.what);
    std::unique_ptr<Kernel> kernel = mustLoad(md, image);
    ASSERT_TRUE(kernel);
    DeviceBuffer dout = mustAllocate(5 * 4);
    ASSERT_TRUE(dout.fillBytes(0xee).ok());
    std::int64_t b = -1234567890123ll;
    Status launched = kernel->launch(
        {1, 1, 1},
        {dout.arg(), KernelArg::scalar(std::uint8_t(0xa5)),
         KernelArg::scalar(-6.5f),
         KernelArg::scalarBits(ScalarType::FP16, floatToHalfBits(0.375f)),
         KernelArg::scalar(b)});
    ASSERT_TRUE(launched.ok()) << launched.message();
    ASSERT_TRUE(device().synchronize().ok());
    std::uint32_t out[5];
    ASSERT_TRUE(dout.copyToHost(out, sizeof(out)).ok());
    EXPECT_EQ(bitsToFloat(out[0]), -6.5f);
    EXPECT_EQ(out[1], 0xa5u);
    EXPECT_EQ(bitsToFloat(out[2]), 0.375f);
    std::uint64_t bits = static_cast<std::uint64_t>(b);
    EXPECT_EQ(out[3], static_cast<std::uint32_t>(bits));
    EXPECT_EQ(out[4], static_cast<std::uint32_t>(bits >> 32));
  }
}

TEST_F(GpuKernelTest, DynamicSharedMemoryAbove48KiB) {
  const unsigned threads = 256, blocks = 4;
  KernelMetadata md = metadata(
      "reverse_kernel", threads, 64 * 1024,
      R"({"name": "out", "kind": "pointer", "type": "i32"},
         {"name": "in", "kind": "pointer", "type": "i32"})");
  std::unique_ptr<Kernel> kernel = mustLoad(md, images().back());
  ASSERT_TRUE(kernel);
  std::vector<std::int32_t> in(threads * blocks);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<std::int32_t>(i * 7 + 1);
  DeviceBuffer din = mustAllocate(in.size() * 4),
               dout = mustAllocate(in.size() * 4);
  ASSERT_TRUE(din.copyFromHost(in.data(), in.size() * 4).ok());
  Status launched = kernel->launch({blocks, 1, 1}, {dout.arg(), din.arg()});
  ASSERT_TRUE(launched.ok()) << launched.message();
  Status synced = device().synchronize();
  ASSERT_TRUE(synced.ok()) << synced.message();
  std::vector<std::int32_t> out(in.size());
  ASSERT_TRUE(dout.copyToHost(out.data(), out.size() * 4).ok());
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t)
      ASSERT_EQ(out[b * threads + t], in[b * threads + (threads - 1 - t)]);
}

TEST_F(GpuKernelTest, GlobalScratchHiddenParameter) {
  const char *params =
      R"({"name": "out", "kind": "pointer", "type": "i32"})";
  for (int perProgram : {64, 0}) {
    SCOPED_TRACE(perProgram);
    KernelMetadata md = metadata(
        "scratch_kernel", 32, 0, params,
        R"({"name": "global_scratch", "kind": "hidden", "bytes": 8,
            "align": 8, "recipe": {"kind": "global_scratch",
            "bytes_per_program": )" +
            std::to_string(perProgram) + R"(, "align": 128}})");
    std::unique_ptr<Kernel> kernel = mustLoad(md, images().back());
    ASSERT_TRUE(kernel);
    const unsigned programs = 5;
    DeviceBuffer dout = mustAllocate(programs * 4);
    ASSERT_TRUE(kernel->launch({programs, 1, 1}, {dout.arg()}).ok());
    ASSERT_TRUE(device().synchronize().ok());
    std::int32_t out[programs];
    ASSERT_TRUE(dout.copyToHost(out, sizeof(out)).ok());
    for (unsigned p = 0; p < programs; ++p)
      EXPECT_EQ(out[p], perProgram ? static_cast<std::int32_t>(p) + 1 : -1);
  }
}

// --- Persistent kernels (persistent_kernel) ----------------------------------

/// persistent_kernel(visits, info) with its three program_grid parameters.
KernelMetadata persistentMetadata(bool persistent,
                                  std::uint64_t dynamicBytes) {
  std::string hidden;
  for (const char *axis : {"0", "1", "2"})
    hidden += std::string(hidden.empty() ? "" : ", ") +
              R"({"name": "grid)" + axis +
              R"(", "kind": "hidden", "bytes": 4, "align": 4,
                  "recipe": {"kind": "program_grid", "axis": )" +
              axis + "}}";
  KernelMetadata md = metadata(
      "persistent_kernel", 128, dynamicBytes,
      R"({"name": "visits", "kind": "pointer", "type": "i32"},
         {"name": "info", "kind": "pointer", "type": "i32"})",
      hidden);
  md.persistent = persistent;
  return md;
}

TEST_F(GpuKernelTest, PersistentKernelWalksTheCallersGrid) {
  const unsigned sms = static_cast<unsigned>(device().info().multiprocessors);
  for (const Image &image : images())
    for (std::uint64_t dynamicBytes : {0, 100000}) {
      SCOPED_TRACE(std::string(image.what) + ", " +
                   std::to_string(dynamicBytes) + " bytes of dynamic smem");
      std::unique_ptr<Kernel> kernel =
          mustLoad(persistentMetadata(true, dynamicBytes), image);
      ASSERT_TRUE(kernel);
      // 128 threads of 12 registers: the CTA limit (32 on Hopper) or the
      // threads (2048 / 128) decide without shared memory; two CTAs of
      // ~98 KiB fill the 228 KiB of an SM.
      std::printf("persistent_kernel (%s, %llu B dynamic smem): %d CTAs per "
                  "SM, %u SMs\n",
                  image.what, static_cast<unsigned long long>(dynamicBytes),
                  kernel->ctasPerSM(), sms);
      if (dynamicBytes == 0)
        EXPECT_EQ(kernel->ctasPerSM(), 16);
      else
        EXPECT_EQ(kernel->ctasPerSM(), 2);
      unsigned resident = sms * static_cast<unsigned>(kernel->ctasPerSM());
      for (LaunchGrid grid : {LaunchGrid{7, 3, 2}, LaunchGrid{100, 50, 3},
                              LaunchGrid{resident, 1, 1},
                              LaunchGrid{1, resident + 1, 1}}) {
        std::uint64_t programs = grid.programs();
        SCOPED_TRACE("grid (" + std::to_string(grid.x) + ", " +
                     std::to_string(grid.y) + ", " + std::to_string(grid.z) +
                     ")");
        DeviceBuffer visits = mustAllocate(programs * 4);
        DeviceBuffer info = mustAllocate(16);
        ASSERT_TRUE(visits.fillWords(0).ok());
        ASSERT_TRUE(info.fillWords(0xffffffffu).ok());
        Status launched = kernel->launch(grid, {visits.arg(), info.arg()});
        ASSERT_TRUE(launched.ok()) << launched.message();
        ASSERT_TRUE(device().synchronize().ok());
        std::vector<std::int32_t> counts(programs);
        std::int32_t got[4];
        ASSERT_TRUE(visits.copyToHost(counts.data(), programs * 4).ok());
        ASSERT_TRUE(info.copyToHost(got, sizeof(got)).ok());
        EXPECT_EQ(got[0], static_cast<std::int32_t>(
                              std::min<std::uint64_t>(programs, resident)));
        EXPECT_EQ(got[1], static_cast<std::int32_t>(grid.x));
        EXPECT_EQ(got[2], static_cast<std::int32_t>(grid.y));
        EXPECT_EQ(got[3], static_cast<std::int32_t>(grid.z));
        for (std::uint64_t vid = 0; vid < programs; ++vid)
          ASSERT_EQ(counts[vid], 1) << "program " << vid;
      }
    }

  // The same entry, not persistent: launched on the caller's grid, where
  // each of the y * z rows of CTAs walks all the programs with step
  // nctaid.x; program_grid still passes the caller's grid.
  std::unique_ptr<Kernel> plain =
      mustLoad(persistentMetadata(false, 0), images().back());
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->ctasPerSM(), 0);
  DeviceBuffer visits = mustAllocate(42 * 4);
  DeviceBuffer info = mustAllocate(16);
  ASSERT_TRUE(visits.fillWords(0).ok());
  ASSERT_TRUE(plain->launch({7, 3, 2}, {visits.arg(), info.arg()}).ok());
  ASSERT_TRUE(device().synchronize().ok());
  std::int32_t counts[42], got[4];
  ASSERT_TRUE(visits.copyToHost(counts, sizeof(counts)).ok());
  ASSERT_TRUE(info.copyToHost(got, sizeof(got)).ok());
  EXPECT_EQ(got[0], 7);
  EXPECT_EQ(got[1], 7);
  EXPECT_EQ(got[2], 3);
  EXPECT_EQ(got[3], 2);
  for (int vid = 0; vid < 42; ++vid)
    EXPECT_EQ(counts[vid], 6) << "program " << vid;
}

// --- TMA descriptors (tma_tile_kernel) ---------------------------------------

const char *kTmaParams =
    R"({"name": "out", "kind": "pointer", "type": "fp32", "divisibility": 16},
       {"name": "src", "kind": "pointer", "type": "fp32"},
       {"name": "width", "kind": "scalar", "type": "i32"},
       {"name": "height", "kind": "scalar", "type": "i32"},
       {"name": "ld", "kind": "scalar", "type": "i32"})";

/// The descriptor covers src: width x height fp32 elements, rows ld
/// elements apart, copied in 16 x 8 boxes.
KernelMetadata tmaMetadata(const char *oobFill) {
  std::string hidden =
      std::string(R"({"name": "src.tma", "kind": "hidden", "bytes": 128,
                      "align": 64, "recipe": {"kind": "tma_descriptor",
                      "base": "src", "element": "fp32",
                      "dims": [{"size": "width", "stride": 1},
                               {"size": "height", "stride": "ld"}],
                      "box": [16, 8], "oob_fill": ")") +
      oobFill + R"("}})";
  return metadata("tma_tile_kernel", 128, 0, kTmaParams, hidden);
}

/// A width x height fp32 matrix with rows `ld` elements apart; the padding
/// after each row holds -7 (which the descriptor must never read).
std::vector<float> tmaSource(int width, int height, int ld, float scale) {
  std::vector<float> data(static_cast<std::size_t>(height) * ld, -7.0f);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c)
      data[r * ld + c] = scale * (1000.0f * r + c + 0.5f);
  return data;
}

/// Checks the tiles tma_tile_kernel wrote for a grid of `gridX` x `gridY`
/// 16 x 8 boxes of a `width` x `height` tensor (out-of-bounds elements are
/// zero, or NaN with `nanFill`).
void expectTiles(const std::vector<float> &out, unsigned gridX, unsigned gridY,
                 int width, int height, float scale, bool nanFill) {
  for (unsigned y = 0; y < gridY; ++y)
    for (unsigned x = 0; x < gridX; ++x)
      for (int t = 0; t < 128; ++t) {
        int column = 16 * static_cast<int>(x) + t % 16;
        int row = 8 * static_cast<int>(y) + t / 16;
        float got = out[(y * gridX + x) * 128 + t];
        std::string where = "box (" + std::to_string(x) + ", " +
                            std::to_string(y) + ") element " +
                            std::to_string(t) + " = (" +
                            std::to_string(column) + ", " +
                            std::to_string(row) + ")";
        if (column < width && row < height)
          ASSERT_EQ(got, scale * (1000.0f * row + column + 0.5f)) << where;
        else if (nanFill)
          ASSERT_TRUE(std::isnan(got)) << where << ": " << got;
        else
          ASSERT_EQ(got, 0.0f) << where;
      }
}

TEST_F(GpuKernelTest, TmaDescriptorParameterCopiesBoxes) {
  const int width = 40, height = 20, ld = 48;
  const unsigned gridX = 3, gridY = 3;
  std::vector<float> host = tmaSource(width, height, ld, 1.0f);
  std::vector<float> host2 = tmaSource(width, height, ld, -2.0f);
  for (const Image &image : images()) {
    for (const char *fill : {"zero", "nan"}) {
      SCOPED_TRACE(std::string(image.what) + ", oob_fill " + fill);
      bool nanFill = std::string(fill) == "nan";
      // Loading compares the descriptor's slot (offset 48 on sm_90) with
      // the entry's (cuFuncGetParamInfo).
      std::unique_ptr<Kernel> kernel = mustLoad(tmaMetadata(fill), image);
      ASSERT_TRUE(kernel);
      DeviceBuffer src = mustAllocate(host.size() * 4),
                   src2 = mustAllocate(host2.size() * 4),
                   dout = mustAllocate(gridX * gridY * 128 * 4);
      ASSERT_TRUE(src.copyFromHost(host.data(), host.size() * 4).ok());
      ASSERT_TRUE(src2.copyFromHost(host2.data(), host2.size() * 4).ok());
      std::vector<float> out(gridX * gridY * 128);
      auto run = [&](const DeviceBuffer &from, int rows) {
        EXPECT_TRUE(dout.fillWords(0xc49a5000u).ok()); // -1234.5f
        Status launched = kernel->launch(
            {gridX, gridY, 1},
            {dout.arg(), from.arg(), KernelArg::scalar(std::int32_t(width)),
             KernelArg::scalar(std::int32_t(rows)),
             KernelArg::scalar(std::int32_t(ld))});
        EXPECT_TRUE(launched.ok()) << launched.message();
        Status synced = device().synchronize();
        EXPECT_TRUE(synced.ok()) << synced.message();
        EXPECT_TRUE(dout.copyToHost(out.data(), out.size() * 4).ok());
      };

      run(src, height);
      expectTiles(out, gridX, gridY, width, height, 1.0f, nanFill);
      EXPECT_EQ(kernel->tensorMapEncodes(), 1u);
      run(src, height); // Same inputs: the cached descriptor.
      expectTiles(out, gridX, gridY, width, height, 1.0f, nanFill);
      EXPECT_EQ(kernel->tensorMapEncodes(), 1u);
      run(src2, height); // Another base: encoded again.
      expectTiles(out, gridX, gridY, width, height, -2.0f, nanFill);
      EXPECT_EQ(kernel->tensorMapEncodes(), 2u);
      run(src2, 12); // Another size: rows 12.. are out of bounds.
      expectTiles(out, gridX, gridY, width, 12, -2.0f, nanFill);
      EXPECT_EQ(kernel->tensorMapEncodes(), 3u);
    }
  }
}

TEST_F(GpuKernelTest, TmaRuleViolationsAreReportedBeforeTheDriver) {
  std::unique_ptr<Kernel> kernel =
      mustLoad(tmaMetadata("zero"), images().back());
  ASSERT_TRUE(kernel);
  DeviceBuffer src = mustAllocate(48 * 20 * 4), dout = mustAllocate(9 * 512);
  auto launch = [&](DevicePtr base, int ld) {
    return kernel->launch({3, 3, 1},
                          {dout.arg(), KernelArg::pointer(base),
                           KernelArg::scalar(std::int32_t(40)),
                           KernelArg::scalar(std::int32_t(20)),
                           KernelArg::scalar(std::int32_t(ld))});
  };
  Status status = launch(src.address() + 4, 48);
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument);
  char address[32];
  std::snprintf(address, sizeof(address), "0x%llx",
                static_cast<unsigned long long>(src.address() + 4));
  EXPECT_EQ(status.message(),
            std::string("kernel 'tma_tile_kernel': TMA descriptor 'src.tma': "
                        "base src = ") +
                address +
                " is not 16-byte aligned, as the Hopper tensor copy requires");
  status = launch(src.address(), 41);
  EXPECT_EQ(status.message(),
            "kernel 'tma_tile_kernel': TMA descriptor 'src.tma': ld = 41 "
            "elements (164 bytes) is not a multiple of 16 bytes, as the "
            "Hopper tensor copy requires");
  EXPECT_EQ(kernel->tensorMapEncodes(), 0u);
  EXPECT_TRUE(device().synchronize().ok());
}

TEST_F(GpuKernelTest, TensorMapEncodeRejectionsAreReadable) {
  KernelMetadata md = tmaMetadata("zero");
  DeviceBuffer src = mustAllocate(48 * 20 * 4);
  std::vector<KernelArg> args = {src.arg(), src.arg(),
                                 KernelArg::scalar(std::int32_t(40)),
                                 KernelArg::scalar(std::int32_t(20)),
                                 KernelArg::scalar(std::int32_t(48))};
  Expected<TensorMapRequest> request =
      resolveTensorMap(md, md.hiddenParameters[0], args);
  ASSERT_TRUE(request) << request.status().message();
  Expected<TensorMapBytes> encoded = encodeTensorMap(
      device().driver(), md, md.hiddenParameters[0], *request);
  ASSERT_TRUE(encoded) << encoded.status().message();
  TensorMapBytes zero{};
  EXPECT_NE(std::memcmp(encoded->bytes, zero.bytes, sizeof(zero.bytes)), 0);

  // A box entry of 0 passes no check of the runtime's (the parser refuses
  // it); the driver's rejection names every input.
  TensorMapRequest bad = *request;
  bad.boxDim[1] = 0;
  Expected<TensorMapBytes> rejected =
      encodeTensorMap(device().driver(), md, md.hiddenParameters[0], bad);
  ASSERT_FALSE(rejected);
  EXPECT_EQ(rejected.status().code(), ErrorCode::CudaError);
  const std::string &message = rejected.status().message();
  EXPECT_EQ(message.rfind("kernel 'tma_tile_kernel': TMA descriptor "
                          "'src.tma': cuTensorMapEncodeTiled failed: "
                          "CUDA_ERROR_INVALID_VALUE",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("sizes [width=40, height=20], strides [1, ld=48 "
                         "(192 bytes)], box [16, 0], swizzle none, "
                         "out-of-bounds zero"),
            std::string::npos)
      << message;
}

TEST_F(GpuKernelTest, ArgumentErrorsAreReportedBeforeLaunch) {
  std::unique_ptr<Kernel> kernel =
      mustLoad(metadata("add_kernel", 128, 0, kAddParams), images().back());
  ASSERT_TRUE(kernel);
  DeviceBuffer buffer = mustAllocate(4096);
  Status status = kernel->launch({1, 1, 1}, {buffer.arg(), buffer.arg()});
  EXPECT_EQ(status.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(status.message(),
            "kernel 'add_kernel' takes 4 arguments (x, y, out, n), got 2");
  status = kernel->launch({1, 1, 1},
                          {buffer.arg(), buffer.arg(),
                           KernelArg::pointer(buffer.address() + 4),
                           KernelArg::scalar(std::int32_t(1))});
  EXPECT_NE(status.message().find("not a multiple of 16"), std::string::npos)
      << status.message();
  status = kernel->launch({1, 70000, 1},
                          {buffer.arg(), buffer.arg(), buffer.arg(),
                           KernelArg::scalar(std::int32_t(1))});
  EXPECT_EQ(status.message(),
            "kernel 'add_kernel': grid (1, 70000, 1) out of range (x in [1, "
            "2^31-1], y and z in [1, 65535])");
  EXPECT_TRUE(device().synchronize().ok());
}

TEST_F(GpuKernelTest, MetadataThatDisagreesWithTheEntryIsCaughtAtLoad) {
  std::string wrongWidth = kAddParams;
  wrongWidth.replace(wrongWidth.find(R"("type": "i32"})"), 14,
                     R"("type": "i64"})");
  Expected<std::unique_ptr<Kernel>> kernel =
      Kernel::load(device(), metadata("add_kernel", 128, 0, wrongWidth),
                   images().back().data, images().back().size);
  if (kernel)
    GTEST_SKIP() << "this driver cannot report parameter layouts "
                    "(cuFuncGetParamInfo)";
  EXPECT_EQ(kernel.status().code(), ErrorCode::InvalidMetadata);
  EXPECT_EQ(kernel.status().message(),
            "kernel 'add_kernel': the compiled entry and the metadata "
            "disagree: parameter 4 'n' is 4 bytes at offset 24 in the entry, "
            "but 8 bytes at offset 24 by the metadata");

  std::string extra = std::string(kAddParams) +
                      R"(, {"name": "m", "kind": "scalar", "type": "i32"})";
  kernel = Kernel::load(device(), metadata("add_kernel", 128, 0, extra),
                        images().back().data, images().back().size);
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "kernel 'add_kernel': the compiled entry and the metadata "
            "disagree: the entry takes 4 parameters, the metadata describes "
            "5 (x, y, out, n, m)");
}

TEST_F(GpuKernelTest, LoadErrorsAreReadable) {
  KernelMetadata md = metadata("add_kernel", 128, 0, kAddParams);
  md.entry = "no_such_kernel";
  Expected<std::unique_ptr<Kernel>> kernel =
      Kernel::load(device(), md, images().back().data, images().back().size);
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol "
            "not found) while looking up entry 'no_such_kernel' of "
            "'add_kernel'");

  const char *badPtx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                       ".visible .entry add_kernel() { bogus; }\n";
  kernel = Kernel::load(device(), metadata("add_kernel", 128, 0, kAddParams),
                        badPtx, std::strlen(badPtx));
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().code(), ErrorCode::CudaError);
  EXPECT_EQ(kernel.status().message().rfind(
                "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT "
                "compilation failed) while loading 'add_kernel' (PTX)\nJIT "
                "log:\n",
                0),
            0u)
      << kernel.status().message();

  KernelMetadata big = metadata("add_kernel", 1024, 0, kAddParams);
  big.dynamicSharedBytes = 1u << 30;
  kernel = Kernel::load(device(), big, images().back().data,
                        images().back().size);
  ASSERT_FALSE(kernel);
  EXPECT_NE(kernel.status().message().find("bytes of shared memory per block"),
            std::string::npos)
      << kernel.status().message();
}

TEST_F(GpuKernelTest, EventsTimeAndBoundTheWait) {
  std::unique_ptr<Kernel> kernel = mustLoad(
      metadata("spin_kernel", 32, 0,
               R"({"name": "ns", "kind": "scalar", "type": "u64"})"),
      images().back());
  ASSERT_TRUE(kernel);
  Expected<Stream> stream = Stream::create(device());
  ASSERT_TRUE(stream) << stream.status().message();
  Expected<Event> start = Event::create(device());
  Expected<Event> end = Event::create(device());
  ASSERT_TRUE(start && end);
  ASSERT_TRUE(start->record(&*stream).ok());
  ASSERT_TRUE(kernel
                  ->launch({1, 1, 1},
                           {KernelArg::scalar(std::uint64_t(300'000'000))},
                           &*stream)
                  .ok());
  ASSERT_TRUE(end->record(&*stream).ok());
  Status early = end->wait(std::chrono::milliseconds(20));
  EXPECT_EQ(early.code(), ErrorCode::Timeout);
  EXPECT_EQ(early.message(),
            "GPU work did not finish within 20 ms (a hung kernel?)");
  Status done = end->wait(std::chrono::milliseconds(20000));
  ASSERT_TRUE(done.ok()) << done.message();
  Expected<float> ms = Event::elapsedMilliseconds(*start, *end);
  ASSERT_TRUE(ms) << ms.status().message();
  EXPECT_GE(*ms, 250.0f);
  EXPECT_LT(*ms, 5000.0f);
  EXPECT_TRUE(stream->synchronize().ok());
}

// A fault poisons the context for good, so it runs in a child process (the
// "threadsafe" death-test style re-executes this binary for the one test).
TEST_F(GpuKernelTest, IllegalAddressIsReportedNotHung) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::unique_ptr<Kernel> kernel = mustLoad(
            metadata("fault_kernel", 32, 0,
                     R"({"name": "p", "kind": "pointer", "type": "i32"})"),
            images().back());
        if (!kernel)
          std::_Exit(2);
        Status launched =
            kernel->launch({1, 1, 1}, {KernelArg::pointer(0x8)});
        Expected<Event> done = Event::create(device());
        if (!launched.ok() || !done || !done->record().ok())
          std::_Exit(3);
        Status waited = done->wait(std::chrono::milliseconds(20000));
        std::fprintf(stderr, "reported: %s\n", waited.message().c_str());
        std::_Exit(waited.code() == ErrorCode::CudaError ? 0 : 4);
      },
      ::testing::ExitedWithCode(0),
      "reported: cuEventQuery failed: CUDA_ERROR_ILLEGAL_ADDRESS");
}

} // namespace
