//===- PtxasReportTest.cpp - parsing ptxas -v reports ---------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Ptxas.h"

#include "gtest/gtest.h"

using namespace tilec;

namespace {

// ptxas (CUDA 13.0) prints its wgmma performance warnings before the entry
// function's lines; they belong to the kernel they name.
constexpr const char *kReport =
    "ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async "
    "instructions are serialized due to program dependence on "
    "compiler-inserted WG.DP in divergent path in the function 'second'\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'first' for 'sm_90a'\n"
    "ptxas info    : Function properties for first\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 168 registers, used 1 barriers\n"
    "ptxas info    : Compiling entry function 'second' for 'sm_90a'\n"
    "ptxas info    : Function properties for second\n"
    "    448 bytes stack frame, 492 bytes spill stores, 828 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 2 barriers, 448 bytes "
    "cumulative stack size\n"
    "ptxas info    : (C7517) warpgroup.wait is injected in around line 2492 by "
    "compiler to allow use of registers defined by GMMA in function 'second'\n";

TEST(PtxasReportTest, ResourcesAndWarningsPerKernel) {
  std::vector<PtxasKernelInfo> kernels = parsePtxasReport(kReport);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "first");
  EXPECT_EQ(kernels[0].registers, 168);
  EXPECT_EQ(kernels[0].spillStores, 0);
  EXPECT_TRUE(kernels[0].performanceWarnings.empty());
  EXPECT_EQ(kernels[1].name, "second");
  EXPECT_EQ(kernels[1].registers, 255);
  EXPECT_EQ(kernels[1].spillStores, 492);
  EXPECT_EQ(kernels[1].spillLoads, 828);
  EXPECT_EQ(kernels[1].stackFrame, 448);
  ASSERT_EQ(kernels[1].performanceWarnings.size(), 2u);
  EXPECT_EQ(kernels[1].performanceWarnings[0],
            "C7518: Potential Performance Loss: wgmma.mma_async instructions "
            "are serialized due to program dependence on compiler-inserted "
            "WG.DP in divergent path");
  EXPECT_EQ(kernels[1].performanceWarnings[1],
            "C7517: warpgroup.wait is injected in around line 2492 by compiler "
            "to allow use of registers defined by GMMA");
}

} // namespace
