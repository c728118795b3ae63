//===- StatusTest.cpp - Status and Expected -------------------------------===//

#include "tilec/Runtime/Status.h"

#include <gtest/gtest.h>

#include <memory>

using namespace tilec::runtime;

namespace {

TEST(StatusTest, SuccessIsOk) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::Ok);
  EXPECT_EQ(status.toString(), "ok");
  EXPECT_TRUE(status.withContext("doing things").ok());
}

TEST(StatusTest, ErrorCarriesCodeMessageAndContext) {
  Status status = Status::error(ErrorCode::CudaError, "cuX failed: BAD", 218);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.cudaResult(), 218);
  Status withContext = status.withContext("loading 'k'");
  EXPECT_EQ(withContext.message(), "cuX failed: BAD while loading 'k'");
  EXPECT_EQ(withContext.code(), ErrorCode::CudaError);
  EXPECT_EQ(withContext.cudaResult(), 218);
  EXPECT_EQ(withContext.toString(),
            "CudaError: cuX failed: BAD while loading 'k'");
}

TEST(StatusTest, ErrorWithOkCodeStaysAnError) {
  EXPECT_FALSE(Status::error(ErrorCode::Ok, "oops").ok());
}

TEST(ExpectedTest, HoldsValueOrError) {
  Expected<std::unique_ptr<int>> value(std::make_unique<int>(7));
  ASSERT_TRUE(value);
  EXPECT_EQ(**value, 7);
  EXPECT_TRUE(value.status().ok());
  std::unique_ptr<int> taken = value.take();
  EXPECT_EQ(*taken, 7);

  Expected<int> error(Status::error(ErrorCode::IoError, "cannot read"));
  EXPECT_FALSE(error);
  EXPECT_EQ(error.status().code(), ErrorCode::IoError);

  Expected<int> misuse{Status()};
  EXPECT_FALSE(misuse);
  EXPECT_FALSE(misuse.status().ok());
}

Status failsEarly(bool fail) {
  TILEC_RETURN_IF_ERROR(fail ? Status::error(ErrorCode::Timeout, "late")
                             : Status::success());
  return Status::error(ErrorCode::Unsupported, "reached the end");
}

TEST(StatusTest, ReturnIfErrorPropagates) {
  EXPECT_EQ(failsEarly(true).code(), ErrorCode::Timeout);
  EXPECT_EQ(failsEarly(false).code(), ErrorCode::Unsupported);
}

} // namespace
