//===- LayoutPictureTest.cpp - layout pictures agree with the lowering ----===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The --dump-ir layout pictures draw who holds each element from
// getElementOwners; the LLVM lowering computes element coordinates from
// toLinearLayout (lowering::getLayoutOf). These tests check, on the layouts
// the e2e kernels use, that the picture's (thread, register) -> element map
// is exactly the lowering's, and by value against the PTX ISA's fragment
// tables, and the shared-memory banks against the 128-byte swizzle.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/LayoutPicture.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace tilec::tilegpu;

namespace {

class LayoutPictureTest : public ::testing::Test {
protected:
  LayoutPictureTest() { ctx.loadDialect<TileGPUDialect>(); }

  /// The picture's owner of element (row, col) as "t<thread>:<reg>".
  static std::string owner(const std::vector<ElementOwner> &owners,
                           int64_t cols, int64_t row, int64_t col) {
    const ElementOwner &o = owners[row * cols + col];
    return "t" + std::to_string(o.getThread()) + ":" + std::to_string(o.reg);
  }

  /// Every (warp, lane, register) of the lowering's layout maps to an
  /// element whose picture names a holder of the same element; unreplicated
  /// layouts name exactly that (warp, lane, register).
  static void expectSameAsLowering(ArrayRef<int64_t> shape, Attribute encoding) {
    FailureOr<LinearLayout> lowering = toLinearLayout(shape, encoding);
    ASSERT_TRUE(succeeded(lowering));
    FailureOr<std::vector<ElementOwner>> owners = getElementOwners(shape, encoding);
    ASSERT_TRUE(succeeded(owners));
    int64_t holders = 0;
    for (int64_t w = 0; w < lowering->getNumWarps(); ++w)
      for (int64_t l = 0; l < lowering->getNumLanes(); ++l)
        for (int64_t r = 0; r < lowering->getNumRegisters(); ++r) {
          const ElementOwner &o =
              (*owners)[lowering->linearize(lowering->apply(r, l, w))];
          ASSERT_GE(o.copies, 1);
          if (o.copies == 1) {
            EXPECT_EQ(o.warp, w);
            EXPECT_EQ(o.lane, l);
            EXPECT_EQ(o.reg, r);
          }
          ++holders;
        }
    int64_t copies = 0;
    for (const ElementOwner &o : *owners)
      copies += o.copies;
    EXPECT_EQ(copies, holders);
  }

  MLIRContext ctx;
};

TEST_F(LayoutPictureTest, BlockedPictureIsTheDocumentedThreadMap) {
  // BlockedEncodingAttr's description: 8x32, sizePerThread [1, 4],
  // threadsPerWarp [4, 8], warpsPerCTA [2, 1].
  auto enc = BlockedEncodingAttr::get(&ctx, {1, 4}, {4, 8}, {2, 1}, {1, 0});
  auto owners = getElementOwners({8, 32}, enc);
  ASSERT_TRUE(succeeded(owners));
  EXPECT_EQ(owner(*owners, 32, 0, 0), "t0:0");
  EXPECT_EQ(owner(*owners, 32, 0, 3), "t0:3");
  EXPECT_EQ(owner(*owners, 32, 0, 4), "t1:0");
  EXPECT_EQ(owner(*owners, 32, 0, 28), "t7:0");
  EXPECT_EQ(owner(*owners, 32, 1, 0), "t8:0");
  EXPECT_EQ(owner(*owners, 32, 3, 30), "t31:2");
  EXPECT_EQ(owner(*owners, 32, 4, 0), "t32:0");
  EXPECT_EQ(owner(*owners, 32, 5, 5), "t41:1");
  expectSameAsLowering({8, 32}, enc);
  // The vector add's layout (64 elements over 128 threads: replicated).
  auto vec = BlockedEncodingAttr::get(&ctx, {1}, {32}, {4}, {0});
  auto rep = getElementOwners({64}, vec);
  ASSERT_TRUE(succeeded(rep));
  EXPECT_EQ((*rep)[0].copies, 2);
  EXPECT_EQ((*rep)[33].getThread(), 33);
  expectSameAsLowering({64}, vec);
}

/// wgmma.mma_async.m64nNk16's accumulator (PTX ISA §9.7.15.5.1.1): thread
/// 32*warp + lane holds, in register 4k + 2i + j, element
/// (16*warp + lane/4 + 8i, 8k + 2*(lane%4) + j); attention's 128x64 tile
/// repeats the 64-row block in registers 32.. .
TEST_F(LayoutPictureTest, WgmmaPictureIsThePtxFragment) {
  auto enc = WarpgroupMMAEncodingAttr::get(&ctx, {4, 1}, 64);
  auto owners = getElementOwners({128, 64}, enc);
  ASSERT_TRUE(succeeded(owners));
  EXPECT_EQ(owner(*owners, 64, 0, 0), "t0:0");
  EXPECT_EQ(owner(*owners, 64, 0, 1), "t0:1");
  EXPECT_EQ(owner(*owners, 64, 8, 0), "t0:2");
  EXPECT_EQ(owner(*owners, 64, 0, 2), "t1:0");
  EXPECT_EQ(owner(*owners, 64, 1, 0), "t4:0");
  EXPECT_EQ(owner(*owners, 64, 0, 8), "t0:4");
  EXPECT_EQ(owner(*owners, 64, 16, 0), "t32:0");
  EXPECT_EQ(owner(*owners, 64, 63, 63), "t127:31");
  EXPECT_EQ(owner(*owners, 64, 64, 0), "t0:32");
  for (int64_t warp = 0; warp < 4; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t k = 0; k < 8; ++k)
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j)
            EXPECT_EQ(owner(*owners, 64, 16 * warp + lane / 4 + 8 * i,
                            8 * k + 2 * (lane % 4) + j),
                      "t" + std::to_string(32 * warp + lane) + ":" +
                          std::to_string(4 * k + 2 * i + j));
  expectSameAsLowering({128, 64}, enc);
  // Its row slice (attention's m_i, l_i): each row held by the 4 lanes of a
  // quad.
  auto slice = SliceEncodingAttr::get(&ctx, 1, enc);
  auto rows = getElementOwners({128}, slice);
  ASSERT_TRUE(succeeded(rows));
  EXPECT_EQ((*rows)[1].getThread(), 4);
  EXPECT_EQ((*rows)[1].copies, 4);
  expectSameAsLowering({128}, slice);
}

/// mma.sync.m16n8k16's accumulator (PTX ISA §9.7.14.5.8, Figure "MMA
/// .m16n8k16 fragment layout for accumulator matrix C/D"): lane holds c0,c1
/// at (lane/4, 2*(lane%4) + {0,1}) and c2,c3 eight rows below.
TEST_F(LayoutPictureTest, MmaPictureIsThePtxFragment) {
  auto enc = MMAEncodingAttr::get(&ctx, {4, 1}, 8);
  auto owners = getElementOwners({64, 16}, enc);
  ASSERT_TRUE(succeeded(owners));
  EXPECT_EQ(owner(*owners, 16, 0, 0), "t0:0");
  EXPECT_EQ(owner(*owners, 16, 0, 1), "t0:1");
  EXPECT_EQ(owner(*owners, 16, 8, 0), "t0:2");
  EXPECT_EQ(owner(*owners, 16, 0, 2), "t1:0");
  EXPECT_EQ(owner(*owners, 16, 2, 6), "t11:0");
  EXPECT_EQ(owner(*owners, 16, 16, 0), "t32:0");
  expectSameAsLowering({64, 16}, enc);
}

/// The 128-byte swizzle (CUTLASS Swizzle<3,4,3>): 16-byte chunk c of row r
/// of an 8-row group lands at chunk c ^ (r % 8).
TEST_F(LayoutPictureTest, SharedPictureBanksFollowTheSwizzle) {
  SharedTileLayout layout = SharedTileLayout::get(64, 64, 2);
  ASSERT_EQ(layout.swizzleBytes, 128);
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t col = 0; col < 64; ++col) {
      SharedElement e = getSharedElement(layout, row, col);
      int64_t chunk = (col * 2) / 16, within = (col * 2) % 16;
      int64_t physical = row * 128 + ((chunk ^ (row % 8)) * 16) + within;
      EXPECT_EQ(e.offset, physical) << row << "," << col;
      EXPECT_EQ(e.offset, layout.getOffset(row, col));
      EXPECT_EQ(e.bank, (physical / 4) % 32);
      EXPECT_EQ(e.phase, row % 8);
    }
  // Column 0 of 8 consecutive rows: 8 different 16-byte chunks, so 8
  // distinct groups of banks (no conflict for a column read).
  std::set<int64_t> banks;
  for (int64_t row = 0; row < 8; ++row)
    banks.insert(getSharedElement(layout, row, 0).bank / 4);
  EXPECT_EQ(banks.size(), 8u);
}

TEST_F(LayoutPictureTest, SvgLabelsAreTheOwners) {
  auto enc = WarpgroupMMAEncodingAttr::get(&ctx, {4, 1}, 64);
  LayoutPictureRequest request;
  request.name = "128x64 wgmma";
  request.shape = {128, 64};
  request.encoding = enc;
  auto svg = renderLayoutPicture(request, /*maxRows=*/16, /*maxCols=*/16);
  ASSERT_TRUE(succeeded(svg));
  // Row 0: t0:0 t0:1 t1:0 t1:1 ...; row 8 starts with t0:2.
  size_t a = svg->find(">t0:0<"), b = svg->find(">t0:1<"), c = svg->find(">t1:0<"),
         d = svg->find(">t0:2<");
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, d);
  EXPECT_NE(svg->find("top-left 16x16 of 128x64"), std::string::npos);
  // An encoding the lowering does not know gets no picture.
  request.encoding = Attribute();
  EXPECT_TRUE(failed(renderLayoutPicture(request)));
}

} // namespace
