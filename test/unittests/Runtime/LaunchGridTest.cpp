//===- LaunchGridTest.cpp - Which grid a launch hands the driver ----------===//

#include "tilec/Runtime/LaunchGrid.h"

#include <gtest/gtest.h>

#include <string>

using namespace tilec::runtime;

namespace {

/// "x y z" of the launched grid, or "error: <message>".
std::string launched(LaunchGrid requested, bool persistent, unsigned sms,
                     unsigned perSM) {
  Expected<LaunchGrid> grid =
      computeLaunchGrid(requested, persistent, sms, perSM);
  if (!grid) {
    EXPECT_EQ(grid.status().code(), ErrorCode::InvalidArgument);
    return "error: " + grid.status().message();
  }
  return std::to_string(grid->x) + " " + std::to_string(grid->y) + " " +
         std::to_string(grid->z);
}

TEST(LaunchGridTest, OrdinaryKernelsLaunchTheCallersGrid) {
  EXPECT_EQ(launched({7, 3, 2}, false, 132, 2), "7 3 2");
  EXPECT_EQ(launched({100000, 65535, 65535}, false, 132, 2),
            "100000 65535 65535");
  EXPECT_EQ(launched({0x7fffffffu, 1, 1}, false, 0, 0), "2147483647 1 1");
}

TEST(LaunchGridTest, PersistentGridIsProgramsCappedByResidentCTAs) {
  // 132 SMs (H100 SXM) with 2 CTAs each hold 264 at once.
  // Fewer programs than that: one CTA per program.
  EXPECT_EQ(launched({7, 3, 2}, true, 132, 2), "42 1 1");
  EXPECT_EQ(launched({1, 1, 1}, true, 132, 2), "1 1 1");
  // Exactly as many.
  EXPECT_EQ(launched({264, 1, 1}, true, 132, 2), "264 1 1");
  EXPECT_EQ(launched({2, 66, 2}, true, 132, 2), "264 1 1");
  // More: every SM full, the kernel walks the rest.
  EXPECT_EQ(launched({265, 1, 1}, true, 132, 2), "264 1 1");
  EXPECT_EQ(launched({16, 32, 128}, true, 132, 2), "264 1 1"); // 65536
  EXPECT_EQ(launched({1, 1, 65535}, true, 132, 1), "132 1 1");
  EXPECT_EQ(launched({0x7fffffffu, 1, 1}, true, 132, 32), "4224 1 1");
  // An occupancy of 0 (the driver's answer for a kernel that does not fit)
  // or no SMs reported counts as 1.
  EXPECT_EQ(launched({1000, 1, 1}, true, 132, 0), "132 1 1");
  EXPECT_EQ(launched({1000, 1, 1}, true, 0, 3), "3 1 1");
  EXPECT_EQ(launched({1000, 1, 1}, true, 0, 0), "1 1 1");
}

TEST(LaunchGridTest, ZeroDimensionsLaunchNothing) {
  // As for every kernel: a zero dimension is an error, not a launch.
  const char *message = "error: grid (0, 3, 2) out of range (x in [1, "
                        "2^31-1], y and z in [1, 65535])";
  EXPECT_EQ(launched({0, 3, 2}, false, 132, 2), message);
  EXPECT_EQ(launched({0, 3, 2}, true, 132, 2), message);
  EXPECT_EQ(launched({7, 0, 2}, true, 132, 2),
            "error: grid (7, 0, 2) out of range (x in [1, 2^31-1], y and z "
            "in [1, 65535])");
  EXPECT_EQ(launched({7, 3, 0}, true, 132, 2),
            "error: grid (7, 3, 0) out of range (x in [1, 2^31-1], y and z "
            "in [1, 65535])");
}

TEST(LaunchGridTest, AxisLimitsHoldForPersistentKernelsToo) {
  EXPECT_EQ(launched({1, 65536, 1}, true, 132, 2),
            "error: grid (1, 65536, 1) out of range (x in [1, 2^31-1], y and "
            "z in [1, 65535])");
  EXPECT_EQ(launched({0x80000000u, 1, 1}, false, 132, 2),
            "error: grid (2147483648, 1, 1) out of range (x in [1, 2^31-1], "
            "y and z in [1, 65535])");
}

TEST(LaunchGridTest, PersistentProgramsStopAt2To31Minus1) {
  // 2^31 - 1 = 7 * 31 * 151 * 65537: too large for y or z, so the largest
  // grid that fits is all x.
  EXPECT_EQ(launched({0x7fffffffu, 1, 1}, true, 132, 2), "264 1 1");
  EXPECT_EQ(launched({32768, 65535, 1}, true, 132, 2), "264 1 1");
  // 2^31 programs: one too many (an ordinary launch takes it).
  EXPECT_EQ(launched({32768, 65536 / 2, 2}, false, 132, 2), "32768 32768 2");
  EXPECT_EQ(launched({32768, 65536 / 2, 2}, true, 132, 2),
            "error: grid (32768, 32768, 2) has 2147483648 programs; a "
            "persistent kernel takes at most 2^31-1 (it numbers them with "
            "32-bit integers)");
  EXPECT_EQ(launched({0x7fffffffu, 2, 1}, true, 132, 2),
            "error: grid (2147483647, 2, 1) has 4294967294 programs; a "
            "persistent kernel takes at most 2^31-1 (it numbers them with "
            "32-bit integers)");
  EXPECT_EQ(launched({0x7fffffffu, 65535, 65535}, true, 132, 2),
            "error: grid (2147483647, 65535, 65535) has 9223090559730712575 "
            "programs; a persistent kernel takes at most 2^31-1 (it numbers "
            "them with 32-bit integers)");
}

} // namespace
