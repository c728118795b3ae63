//===- DriverTest.cpp - Loading the CUDA driver ---------------------------===//
//
// These pass with and without an NVIDIA driver: without one, loading must fail
// cleanly with a message that says so; with one, it must work.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Driver.h"

#include <gtest/gtest.h>

using namespace tilec::runtime;

namespace {

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST(DriverTest, MissingLibraryIsReportedPlainly) {
  Expected<std::unique_ptr<Driver>> driver =
      Driver::open("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(driver);
  EXPECT_EQ(driver.status().code(), ErrorCode::DriverUnavailable);
  EXPECT_TRUE(startsWith(driver.status().message(),
                         "no CUDA driver: /nonexistent/libcuda.so.1 not found "
                         "(dlopen: "))
      << driver.status().message();
}

TEST(DriverTest, LibraryWithoutTheEntryPointsIsRejected) {
  // libm is on every Linux machine and exports no cu* symbol.
  Expected<std::unique_ptr<Driver>> driver = Driver::open("libm.so.6");
  ASSERT_FALSE(driver);
  EXPECT_EQ(driver.status().code(), ErrorCode::DriverUnavailable);
  EXPECT_EQ(driver.status().message(),
            "no CUDA driver: libm.so.6 does not export cuInit (a driver "
            "older than this runtime needs, or not libcuda)");
}

TEST(DriverTest, LoadEitherWorksOrSaysWhy) {
  Expected<Driver *> driver = Driver::load();
  if (!driver) {
    EXPECT_EQ(driver.status().code(), ErrorCode::DriverUnavailable);
    const std::string &message = driver.status().message();
    EXPECT_TRUE(startsWith(message, "no CUDA driver: ") ||
                startsWith(message, "no usable CUDA device: "))
        << message;
    // Loading again gives the same answer (the outcome is cached).
    Expected<Driver *> again = Driver::load();
    ASSERT_FALSE(again);
    EXPECT_EQ(again.status().message(), message);

    // And opening a device reports the same reason.
    Expected<std::unique_ptr<Device>> device = Device::open();
    ASSERT_FALSE(device);
    EXPECT_EQ(device.status().code(), ErrorCode::DriverUnavailable);
    EXPECT_EQ(device.status().message(), message);
    GTEST_SKIP() << "no driver here, error path checked: " << message;
  }
  EXPECT_GE((*driver)->version(), 12000);
  Expected<int> count = (*driver)->deviceCount();
  ASSERT_TRUE(count) << count.status().message();
  EXPECT_GE(*count, 0);
  EXPECT_EQ((*driver)->describeResult(0), "CUDA_SUCCESS (no error)");
  EXPECT_EQ((*driver)->describeResult(218),
            "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)");
  EXPECT_EQ((*driver)->check(218, "cuModuleLoadData").message(),
            "cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (a PTX JIT "
            "compilation failed)");
  EXPECT_EQ((*driver)->describeResult(123456),
            "CUresult 123456 (unknown error code)");
}

} // namespace
