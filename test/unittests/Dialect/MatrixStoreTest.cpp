//===- MatrixStoreTest.cpp - stmatrix plans against the PTX semantics -----===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Each test runs a plan's stmatrix instructions on a model of shared memory
// (PTX ISA §9.7.14.5.16: register j of lane t holds elements (t / 4,
// 2 (t % 4) + h), h = 0, 1, of matrix j; lane 8 j + i gives the address of
// row i of matrix j; `.trans` stores element (r, c) at row c, position r)
// and checks that every element lands where an element-wise store puts it
// (SharedTileLayout::getOffset of its coordinate), and that every byte of
// the tile is written once.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/MatrixStore.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace tilec::tilegpu;

namespace {

class MatrixStoreTest : public ::testing::Test {
protected:
  MatrixStoreTest() { ctx.loadDialect<TileGPUDialect>(); }

  /// Runs `plan` for every warp of `layout` and compares with element-wise
  /// stores (see the file comment).
  void expectStoresEveryElementInPlace(const LinearLayout &layout,
                                       const SharedTileLayout &shared,
                                       bool transposed,
                                       const MatrixStorePlan &plan) {
    auto offsetOf = [&](int64_t slot, int64_t lane, int64_t warp) {
      Coord c = layout.apply(slot, lane, warp);
      return transposed ? shared.getOffset(c[1], c[0])
                        : shared.getOffset(c[0], c[1]);
    };
    std::map<int64_t, int> writes;
    for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp) {
      for (int64_t k = 0; k < plan.instructions; ++k) {
        int64_t address[32];
        for (int64_t lane = 0; lane < 32; ++lane) {
          auto [slot, source] = plan.getAddressSource(k, lane);
          address[lane] = offsetOf(slot, source, warp);
          EXPECT_EQ(address[lane] % 16, 0) << "row address not 16-byte aligned";
        }
        for (int64_t lane = 0; lane < 32; ++lane)
          for (int64_t j = 0; j < plan.matrices; ++j)
            for (int64_t h = 0; h < 2; ++h) {
              int64_t r = lane / 4, c = 2 * (lane % 4) + h;
              int64_t row = plan.transposed ? c : r;
              int64_t pos = plan.transposed ? r : c;
              int64_t stored = address[8 * j + row] + 2 * pos;
              int64_t slot = plan.getSlot(k, j, h);
              EXPECT_EQ(stored, offsetOf(slot, lane, warp))
                  << "warp " << warp << " lane " << lane << " instruction " << k
                  << " matrix " << j << " half " << h;
              ++writes[stored];
            }
      }
    }
    // Every 2-byte element of the tile once per replica of the warps.
    int64_t replicas = int64_t(1) << llvm::popcount(layout.getReplicatedMask(HwDim::Warp));
    EXPECT_EQ(static_cast<int64_t>(writes.size()), shared.rows * shared.cols);
    for (auto [offset, count] : writes)
      EXPECT_EQ(count, replicas) << "offset " << offset;
  }

  /// The plan for an M x N accumulator of `warps` warps (wgmma layout,
  /// `instrN`) stored into an f16 tile, N x M when `transposed`, run on
  /// the model; nullopt (a failure) when there is none.
  std::optional<MatrixStorePlan>
  checkedPlan(int64_t m, int64_t n, llvm::ArrayRef<unsigned> warps,
              unsigned instrN, bool transposed) {
    auto ll = toLinearLayout({m, n}, WarpgroupMMAEncodingAttr::get(&ctx, warps, instrN));
    EXPECT_TRUE(succeeded(ll));
    if (failed(ll))
      return std::nullopt;
    auto shared = transposed ? SharedTileLayout::get(n, m, 2)
                             : SharedTileLayout::get(m, n, 2);
    auto plan = getMatrixStorePlan(*ll, shared, transposed);
    EXPECT_TRUE(plan.has_value()) << m << "x" << n << " " << transposed;
    if (plan)
      expectStoresEveryElementInPlace(*ll, shared, transposed, *plan);
    return plan;
  }

  MLIRContext ctx;
};

TEST_F(MatrixStoreTest, AccumulatorRowMajorIsX4WithoutTrans) {
  // A GEMM epilogue: the 128 x 128 accumulator of two warpgroups into a
  // 128 x 128 f16 tile (128-byte swizzle, two 64-column blocks).
  auto plan = checkedPlan(128, 128, {8, 1}, 128, /*transposed=*/false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan->transposed);
  EXPECT_EQ(plan->matrices, 4);
  EXPECT_EQ(plan->instructions, 64 / 8);
}

TEST_F(MatrixStoreTest, TransposedAccumulatorIsX4Trans) {
  // dS^T of the one-sweep backward: 128 x 64 over two warpgroups, stored
  // transposed into a 64 x 128 tile (dQ's K-major A operand).
  auto plan = checkedPlan(128, 64, {8, 1}, 64, /*transposed=*/true);
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan->transposed);
  EXPECT_EQ(plan->matrices, 4);
  EXPECT_EQ(plan->instructions, 32 / 8);
}

TEST_F(MatrixStoreTest, NarrowSwizzlesAndSplitWarps) {
  // 32- and 64-byte swizzles, warps split along N ([4, 2]), both
  // orientations.
  for (int64_t cols : {16, 32})
    for (bool transposed : {false, true}) {
      auto plan = checkedPlan(64, cols, {4, 2}, cols / 2, transposed);
      ASSERT_TRUE(plan.has_value());
      EXPECT_EQ(plan->transposed, transposed);
    }
}

TEST_F(MatrixStoreTest, FewSlotsUseX2AndX1) {
  // instrN 8: 4 slots a thread (x2); a 64 x 8 tile on one warpgroup.
  auto ll = toLinearLayout({64, 8}, WarpgroupMMAEncodingAttr::get(&ctx, {4, 1}, 8));
  ASSERT_TRUE(succeeded(ll));
  ASSERT_EQ(ll->getNumRegisters(), 4);
  auto plan = checkedPlan(64, 8, {4, 1}, 8, /*transposed=*/true);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->matrices, 2);
  EXPECT_EQ(plan->instructions, 1);
}

TEST_F(MatrixStoreTest, RefusesWhatIsNotAFragment) {
  auto acc = toLinearLayout({64, 64}, WarpgroupMMAEncodingAttr::get(&ctx, {4, 1}, 64));
  ASSERT_TRUE(succeeded(acc));
  // 4-byte elements: stmatrix stores 16-bit ones.
  EXPECT_FALSE(getMatrixStorePlan(*acc, SharedTileLayout::get(64, 64, 4), false));
  // A blocked layout of 8 consecutive elements a thread (a global load's).
  auto blocked = toLinearLayout(
      {64, 64}, BlockedEncodingAttr::get(&ctx, {1, 8}, {4, 8}, {4, 1}, {1, 0}));
  ASSERT_TRUE(succeeded(blocked));
  EXPECT_FALSE(getMatrixStorePlan(*blocked, SharedTileLayout::get(64, 64, 2), false));
  EXPECT_FALSE(getMatrixStorePlan(*blocked, SharedTileLayout::get(64, 64, 2), true));
}

} // namespace
