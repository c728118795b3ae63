//===- LinearLayoutTest.cpp - layouts to linear maps ----------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace tilec::tilegpu;

namespace {

class LinearLayoutTest : public ::testing::Test {
protected:
  LinearLayoutTest() { ctx.loadDialect<TileGPUDialect>(); }
  BlockedEncodingAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                              ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
    return BlockedEncodingAttr::get(&ctx, spt, tpw, wpc, order);
  }
  MLIRContext ctx;
};

TEST_F(LinearLayoutTest, BlockedMatchesDocumentedThreadMap) {
  // The thread map drawn in BlockedEncodingAttr's description.
  auto enc = blocked({1, 4}, {4, 8}, {2, 1}, {1, 0});
  auto ll = toLinearLayout({8, 32}, enc);
  ASSERT_TRUE(succeeded(ll));
  EXPECT_EQ(ll->getNumRegisters(), 4);
  EXPECT_EQ(ll->apply(0, 0, 0), Coord({0, 0}));
  EXPECT_EQ(ll->apply(3, 0, 0), Coord({0, 3}));
  EXPECT_EQ(ll->apply(0, 1, 0), Coord({0, 4}));
  EXPECT_EQ(ll->apply(0, 7, 0), Coord({0, 28}));
  EXPECT_EQ(ll->apply(0, 8, 0), Coord({1, 0}));
  EXPECT_EQ(ll->apply(2, 31, 0), Coord({3, 30}));
  EXPECT_EQ(ll->apply(0, 0, 1), Coord({4, 0}));
  EXPECT_EQ(ll->apply(1, 9, 1), Coord({5, 5}));
  EXPECT_EQ(ll->getReplicatedMask(HwDim::Lane), 0u);
  EXPECT_TRUE(ll->hasDisjointContributions());
}

TEST_F(LinearLayoutTest, BlockedCoversLargerTileExactlyOnce) {
  auto enc = blocked({1, 4}, {4, 8}, {2, 2}, {1, 0});
  auto ll = toLinearLayout({32, 128}, enc);
  ASSERT_TRUE(succeeded(ll));
  // 32*128 elements over 128 threads: 32 registers each, every element held
  // exactly once.
  EXPECT_EQ(ll->getNumRegisters(), 32);
  std::set<int64_t> seen;
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < 32; ++r)
        EXPECT_TRUE(seen.insert(ll->linearize(ll->apply(r, l, w))).second);
  EXPECT_EQ(seen.size(), 32u * 128u);
  // Register slots 0..3 are the thread's 4 contiguous columns; slot 4 is the
  // next repetition along the fastest dimension (64 columns further).
  EXPECT_EQ(ll->apply(4, 0, 0), Coord({0, 64}));
}

TEST_F(LinearLayoutTest, SmallTileReplicatesAcrossLanes) {
  auto enc = blocked({1, 4}, {4, 8}, {2, 1}, {1, 0});
  // An 8x8 tile: only 2 lanes along dim 1 are needed, the other lane bits
  // along it replicate.
  auto ll = toLinearLayout({8, 8}, enc);
  ASSERT_TRUE(succeeded(ll));
  EXPECT_EQ(ll->getNumRegisters(), 4);
  EXPECT_EQ(ll->getReplicatedMask(HwDim::Lane), 0b110u);
  EXPECT_EQ(ll->apply(0, 2, 0), ll->apply(0, 0, 0));
  EXPECT_EQ(ll->apply(0, 1, 0), Coord({0, 4}));
}

TEST_F(LinearLayoutTest, SliceDropsDimensionAndReplicates) {
  auto parent = blocked({1, 4}, {4, 8}, {2, 1}, {1, 0});
  auto slice = SliceEncodingAttr::get(&ctx, 1, parent);
  auto ll = toLinearLayout({8}, slice);
  ASSERT_TRUE(succeeded(ll));
  // Row sums: one register, lanes 0..7 (same row) hold copies.
  EXPECT_EQ(ll->getNumRegisters(), 1);
  EXPECT_EQ(ll->getReplicatedMask(HwDim::Lane), 0b00111u);
  EXPECT_EQ(ll->apply(0, 8, 0), Coord({1}));
  EXPECT_EQ(ll->apply(0, 0, 1), Coord({4}));
}

TEST_F(LinearLayoutTest, RegisterMappingForBroadcastAndExpand) {
  auto enc = blocked({1, 4}, {4, 8}, {2, 1}, {1, 0});
  auto full = *toLinearLayout({16, 64}, enc);
  auto column = *toLinearLayout({16, 1}, enc);
  // Broadcast [16,1] -> [16,64]: column 0 of each row comes from the same
  // thread.
  auto mapping = getRegisterMapping(column, full, [](ArrayRef<int64_t> c) {
    return Coord({c[0], 0});
  });
  ASSERT_TRUE(mapping.has_value());
  ASSERT_EQ(static_cast<int64_t>(mapping->size()), full.getNumRegisters());
  for (int64_t r = 0; r < full.getNumRegisters(); ++r)
    EXPECT_EQ(column.apply((*mapping)[r], 0, 0)[0], full.apply(r, 0, 0)[0]);
  // Expand dims [16] (slice) -> [16, 1].
  auto rows = *toLinearLayout({16}, SliceEncodingAttr::get(&ctx, 1, enc));
  auto expand = getRegisterMapping(rows, column, [](ArrayRef<int64_t> c) {
    return Coord({c[0]});
  });
  ASSERT_TRUE(expand.has_value());
  // A transposed layout needs data from other threads.
  auto transposed = *toLinearLayout({16, 64}, blocked({4, 1}, {8, 4}, {1, 2}, {0, 1}));
  EXPECT_FALSE(getRegisterMapping(full, transposed, [](ArrayRef<int64_t> c) {
                 return Coord(c.begin(), c.end());
               }).has_value());
}

} // namespace

namespace {

/// The accumulator fragment of wgmma.mma_async.m64nNk16 (PTX ISA
/// §9.7.15.5.1.1): thread t = 32*warp + lane holds, in register
/// d[4k + 2i + j], element (16*warp + lane/4 + 8i, 8k + 2*(lane%4) + j).
TEST_F(LinearLayoutTest, ReshapeKeepsEveryElementInItsThread) {
  // A 256-element tile with 4 elements per thread on 2 warps, reshaped to
  // [32, 2, 4] (a compare-and-swap step of a bitonic sort): each register,
  // lane and warp holds the element at the same row-major position.
  auto ll = toLinearLayout({256}, blocked({4}, {32}, {2}, {0}));
  ASSERT_TRUE(succeeded(ll));
  LinearLayout reshaped = reshapeLayout(*ll, {32, 2, 4});
  for (int64_t w = 0; w < 2; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < 4; ++r)
        EXPECT_EQ(reshaped.linearize(reshaped.apply(r, l, w)),
                  ll->linearize(ll->apply(r, l, w)));
  // As a #tilegpu.linear attribute it converts back to the same map, and
  // the reshape renames registers one to one.
  LinearEncodingAttr attr = getLinearEncoding(&ctx, reshaped);
  auto back = toLinearLayout({32, 2, 4}, attr);
  ASSERT_TRUE(succeeded(back));
  EXPECT_EQ(*back, reshaped);
  auto mapping = getReshapeRegisterMapping(*ll, *back);
  ASSERT_TRUE(mapping.has_value());
  EXPECT_EQ(*mapping, (SmallVector<int64_t>{0, 1, 2, 3}));
  // A row-major blocked layout of [32, 2, 4] holds other elements per
  // thread: that reshape must go through shared memory.
  auto other = toLinearLayout({32, 2, 4}, blocked({1, 2, 1}, {8, 1, 4}, {2, 1, 1}, {1, 2, 0}));
  ASSERT_TRUE(succeeded(other));
  EXPECT_FALSE(getReshapeRegisterMapping(*ll, *other).has_value());
}

TEST_F(LinearLayoutTest, LinearEncodingFitsSmallerTilesAndRejectsLarger) {
  auto ll = toLinearLayout({256}, blocked({4}, {32}, {2}, {0}));
  ASSERT_TRUE(succeeded(ll));
  LinearEncodingAttr attr = getLinearEncoding(&ctx, reshapeLayout(*ll, {32, 2, 4}));
  // The [32, 1, 4] broadcast source: the bit along dim 1 (lane 0's basis
  // (0, 1, 0)) replicates.
  auto small = toLinearLayout({32, 1, 4}, attr);
  ASSERT_TRUE(succeeded(small));
  EXPECT_EQ(small->getNumRegisters(), 4);
  EXPECT_EQ(small->getReplicatedMask(HwDim::Lane), 1u);
  // More elements than the bases reach: not a layout of that tile.
  EXPECT_TRUE(failed(toLinearLayout({64, 2, 4}, attr)));
  EXPECT_TRUE(failed(toLinearLayout({32, 8}, attr)));
}

TEST_F(LinearLayoutTest, WgmmaAccumulatorMatchesPtxFragment) {
  auto enc = WarpgroupMMAEncodingAttr::get(&ctx, {4, 1}, 64);
  auto ll = toLinearLayout({64, 64}, enc);
  ASSERT_TRUE(succeeded(ll));
  ASSERT_EQ(ll->getNumRegisters(), 32);
  for (int64_t warp = 0; warp < 4; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t k = 0; k < 8; ++k)
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            Coord expected({16 * warp + lane / 4 + 8 * i,
                            8 * k + 2 * (lane % 4) + j});
            EXPECT_EQ(ll->apply(4 * k + 2 * i + j, lane, warp), expected);
          }
}

TEST_F(LinearLayoutTest, WgmmaTwoWarpgroupsAndRepetitions) {
  // 2 warpgroups along M, a 256x128 tile with instrN = 64: warpgroup 1
  // starts at row 64; registers 32.. repeat along N (col 64), then 64..
  // along M (row 128).
  auto enc = WarpgroupMMAEncodingAttr::get(&ctx, {8, 1}, 64);
  auto ll = toLinearLayout({256, 128}, enc);
  ASSERT_TRUE(succeeded(ll));
  EXPECT_EQ(ll->getNumRegisters(), 128);
  EXPECT_EQ(ll->apply(0, 0, 4), Coord({64, 0}));
  EXPECT_EQ(ll->apply(32, 0, 0), Coord({0, 64}));
  EXPECT_EQ(ll->apply(64, 0, 0), Coord({128, 0}));
  std::set<int64_t> seen;
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < 128; ++r)
        EXPECT_TRUE(seen.insert(ll->linearize(ll->apply(r, l, w))).second);
  EXPECT_EQ(seen.size(), 256u * 128u);
}

TEST_F(LinearLayoutTest, ExchangeRoundsTakeRegisterBitsOfBothLayouts) {
  // A 256x256 fp32 transpose on 4 warps (the layout the loads get): rows
  // are warp bit 0 and register bits 1-7; the result's dimension 1 (the
  // source's rows) is registers 0-1, lanes 2-6, warp 7. Only row bit 1 is
  // a register bit of both: two rounds of 128 KB.
  auto enc = blocked({1, 4}, {1, 32}, {2, 2}, {1, 0});
  auto ll = toLinearLayout({256, 256}, enc);
  ASSERT_TRUE(succeeded(ll));
  ExchangeRounds rounds = getExchangeRounds(*ll, 0, *ll, 1, 256 * 1024);
  ASSERT_EQ(rounds.getNumBits(), 1u);
  EXPECT_EQ(rounds.srcBits[0], 1u);
  EXPECT_EQ(rounds.dstBits[0], 1u);
  EXPECT_EQ(rounds.getNumRounds(), 2);
  // Every register slot's round is its row's bit 1.
  for (int64_t r = 0; r < ll->getNumRegisters(); ++r)
    EXPECT_EQ(ExchangeRounds::getRound(ll->applyOne(HwDim::Register, r)[0],
                                       rounds.srcBits),
              (ll->applyOne(HwDim::Register, r)[0] >> 1) & 1);
  // 64 KB fits: no rounds.
  EXPECT_EQ(getExchangeRounds(*ll, 0, *ll, 1, 64 * 1024).getNumBits(), 0u);

  // Rows on register bits only, both sides: the top bits come first, as
  // many as it takes to reach 64 KB (256 KB: two).
  auto rowsInRegisters = blocked({1, 4}, {1, 32}, {1, 4}, {1, 0});
  auto rr = toLinearLayout({256, 512}, rowsInRegisters);
  ASSERT_TRUE(succeeded(rr));
  ExchangeRounds top = getExchangeRounds(*rr, 0, *rr, 0, 256 * 1024);
  EXPECT_EQ(top.srcBits, SmallVector<unsigned>({7, 6}));
  EXPECT_EQ(top.dstBits, SmallVector<unsigned>({7, 6}));

  // A reshape's outermost dimensions share the row-major index's top bits:
  // [256, 512] -> [512, 256] pairs source row bit 7 with result row bit 8.
  auto reshaped = toLinearLayout({512, 256}, rowsInRegisters);
  ASSERT_TRUE(succeeded(reshaped));
  ExchangeRounds shaped = getExchangeRounds(*rr, 0, *reshaped, 0, 256 * 1024);
  ASSERT_EQ(shaped.getNumBits(), 2u);
  EXPECT_EQ(shaped.srcBits, SmallVector<unsigned>({7, 6}));
  EXPECT_EQ(shaped.dstBits, SmallVector<unsigned>({8, 7}));
}

TEST_F(LinearLayoutTest, GatherRegisterRunGivesEightConsecutiveColumns) {
  // The 128x128 wgmma accumulator on 8 warps: a thread holds pairs
  // (columns 2l, 2l + 1 of every 8); the gathered layout holds 8
  // consecutive columns, lanes 0-1 stepping by 8 and 16 columns.
  auto enc = WarpgroupMMAEncodingAttr::get(&ctx, {8, 1}, 128);
  auto acc = toLinearLayout({128, 128}, enc);
  ASSERT_TRUE(succeeded(acc));
  LinearLayout run = gatherRegisterRun(*acc, 1, 8);
  ArrayRef<Coord> regs = run.getBases(HwDim::Register);
  ASSERT_EQ(regs.size(), acc->getBases(HwDim::Register).size());
  EXPECT_EQ(regs[0], Coord({0, 1}));
  EXPECT_EQ(regs[1], Coord({0, 2}));
  EXPECT_EQ(regs[2], Coord({0, 4}));
  EXPECT_EQ(run.getBases(HwDim::Lane)[0], Coord({0, 8}));
  EXPECT_EQ(run.getBases(HwDim::Lane)[1], Coord({0, 16}));
  EXPECT_EQ(run.getBases(HwDim::Warp), acc->getBases(HwDim::Warp));
  EXPECT_EQ(getRegisterRun(*acc, 1), 2);
  EXPECT_EQ(getRegisterRun(run, 1), 8);
  EXPECT_EQ(getRegisterRun(run, 0), 1);
  // Still every element exactly once.
  std::set<int64_t> seen;
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < run.getNumRegisters(); ++r)
        EXPECT_TRUE(seen.insert(run.linearize(run.apply(r, l, w))).second);
  EXPECT_EQ(seen.size(), 128u * 128u);
  // A run the layout already has, or one past the tile: unchanged / capped.
  EXPECT_EQ(gatherRegisterRun(*acc, 1, 2), *acc);
  // Four columns: column 2 is a lane's and no register steps further along
  // the row to give it: the run stays 2.
  auto narrow = toLinearLayout({128, 4}, enc);
  ASSERT_TRUE(succeeded(narrow));
  EXPECT_EQ(gatherRegisterRun(*narrow, 1, 8), *narrow);
  // Only steps along the row moved: the rows' slice is unchanged.
  auto rows = [](const LinearLayout &l) {
    SmallVector<Coord> bases;
    for (HwDim hw : {HwDim::Register, HwDim::Lane, HwDim::Warp})
      for (const Coord &b : l.getBases(hw))
        bases.push_back(Coord({b[0]}));
    return bases;
  };
  SmallVector<Coord> rowsBefore = rows(*acc), rowsAfter = rows(run);
  llvm::erase_if(rowsBefore, [](const Coord &c) { return c[0] == 0; });
  llvm::erase_if(rowsAfter, [](const Coord &c) { return c[0] == 0; });
  EXPECT_EQ(rowsBefore, rowsAfter);

  // The conversion is two butterflies: lane bits 0 and 1 with the
  // registers that held columns 8 and 16.
  auto swaps = getLaneRegisterSwaps(*acc, run);
  ASSERT_TRUE(swaps.has_value());
  ASSERT_EQ(swaps->size(), 2u);
  EXPECT_EQ((*swaps)[0].lane, 0u);
  EXPECT_EQ((*swaps)[1].lane, 1u);
  LinearLayout after = *acc;
  for (LaneRegisterSwap swap : *swaps)
    after = applySwap(after, swap);
  auto identity = [](ArrayRef<int64_t> c) { return Coord(c.begin(), c.end()); };
  auto mapping = getRegisterMapping(after, run, identity);
  ASSERT_TRUE(mapping.has_value());
  // Every slot of every thread: the element the swaps leave there is the
  // one `run` puts there (after the renaming).
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < run.getNumRegisters(); ++r)
        EXPECT_EQ(after.apply((*mapping)[r], l, w), run.apply(r, l, w));
  // Two butterflies of 32 words (bf16 pairs) for 64 elements: cheap. Of
  // fp32 (64 words), 64 shuffles: still one per element.
  EXPECT_TRUE(getCheapLaneRegisterSwaps(*acc, run, 16).has_value());
  EXPECT_EQ(getSwapPackBits(*acc, *swaps, 16), 1u);
  EXPECT_EQ(getSwapPackBits(*acc, *swaps, 8), 2u); // column pairs of rows r and r + 8
  EXPECT_TRUE(getCheapLaneRegisterSwaps(*acc, run, 32).has_value());
  EXPECT_FALSE(getCheapLaneRegisterSwaps(*acc, run, 64).has_value());
  // Nothing to shuffle in the reverse of a renaming; across warps or into
  // replication there is no sequence of swaps.
  EXPECT_TRUE(getLaneRegisterSwaps(*acc, *acc).has_value());
  EXPECT_TRUE(getLaneRegisterSwaps(*acc, *acc)->empty());
  auto rowsAcrossWarps = blocked({1, 8}, {8, 4}, {8, 1}, {1, 0});
  auto blockedLayout = toLinearLayout({128, 128}, rowsAcrossWarps);
  ASSERT_TRUE(succeeded(blockedLayout));
  EXPECT_FALSE(getLaneRegisterSwaps(*acc, *blockedLayout).has_value());
}

} // namespace
