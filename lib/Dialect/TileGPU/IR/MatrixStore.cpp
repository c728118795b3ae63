//===- MatrixStore.cpp - register tiles to shared memory by stmatrix ------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/MatrixStore.h"

using namespace tilec::tilegpu;

std::optional<MatrixStorePlan>
tilec::tilegpu::getMatrixStorePlan(const LinearLayout &layout,
                                   const SharedTileLayout &shared,
                                   bool transposed) {
  if (layout.getRank() != 2 || shared.elementBytes != 2 ||
      shared.getBlockCols() % 8 != 0)
    return std::nullopt;
  // Bases in the shared tile's (row, col).
  auto sharedCoord = [&](const Coord &c) {
    return transposed ? Coord{c[1], c[0]} : Coord{c[0], c[1]};
  };
  llvm::ArrayRef<Coord> regs = layout.getBases(HwDim::Register);
  llvm::ArrayRef<Coord> lanes = layout.getBases(HwDim::Lane);
  if (regs.empty() || lanes.size() != 5)
    return std::nullopt;
  // The fragment: slot bit 0 and lanes 0-1 along its columns (2, 4), lanes
  // 2-4 along its rows; shared rows are stored whole (`.trans` when the
  // fragment's columns run along the shared rows).
  std::array<Coord, 6> fragment;
  fragment[0] = sharedCoord(regs[0]);
  for (unsigned i = 0; i < 5; ++i)
    fragment[i + 1] = sharedCoord(lanes[i]);
  auto matches = [&](unsigned colDim) {
    unsigned rowDim = 1 - colDim;
    for (unsigned i = 0; i < 6; ++i) {
      Coord want(2, 0);
      if (i < 3)
        want[colDim] = int64_t(1) << i;
      else
        want[rowDim] = int64_t(1) << (i - 3);
      if (fragment[i] != want)
        return false;
    }
    return true;
  };
  MatrixStorePlan plan;
  if (matches(/*colDim=*/1))
    plan.transposed = false;
  else if (matches(/*colDim=*/0))
    plan.transposed = true;
  else
    return std::nullopt;
  // Every other bit moves whole 8 x 8 blocks (or replicates, for warps).
  auto movesBlocks = [&](const Coord &c) {
    return c[0] % 8 == 0 && c[1] % 8 == 0;
  };
  for (const Coord &c : regs.drop_front())
    if (!movesBlocks(c))
      return std::nullopt;
  for (const Coord &c : layout.getBases(HwDim::Warp))
    if (!movesBlocks(c))
      return std::nullopt;
  int64_t slots = layout.getNumRegisters();
  plan.matrices = std::min<int64_t>(4, slots / 2);
  plan.instructions = slots / (2 * plan.matrices);
  return plan;
}
