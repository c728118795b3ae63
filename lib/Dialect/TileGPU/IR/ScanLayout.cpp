//===- ScanLayout.cpp - the layouts tile.scan is lowered in ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/ScanLayout.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <tuple>

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

std::optional<ScanAxis>
tilec::tilegpu::analyzeScanAxis(const LinearLayout &layout, unsigned axis) {
  int64_t n = layout.getShape()[axis];
  if (!llvm::isPowerOf2_64(n))
    return std::nullopt;
  // (axis bit, hardware input, input bit) of every basis that moves along
  // the axis.
  SmallVector<std::tuple<unsigned, unsigned, unsigned>> entries;
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (auto [bit, basis] : llvm::enumerate(layout.getBases(HwDim(hw)))) {
      if (basis[axis] == 0)
        continue;
      if (!llvm::isPowerOf2_64(basis[axis]))
        return std::nullopt;
      for (unsigned d = 0; d < basis.size(); ++d)
        if (d != axis && basis[d] != 0)
          return std::nullopt;
      entries.push_back({llvm::Log2_64(basis[axis]), hw, unsigned(bit)});
    }
  llvm::sort(entries);
  if (entries.size() != llvm::Log2_64(n))
    return std::nullopt;
  // The axis bits from the lowest up go through the phases low registers,
  // lanes, warps, high registers (chunks), in that order.
  enum Phase { LowRegisters, Lanes, Warps, Chunks };
  ScanAxis result;
  Phase previous = LowRegisters;
  for (auto [i, entry] : llvm::enumerate(entries)) {
    auto [axisBit, hw, bit] = entry;
    Phase phase = hw == unsigned(HwDim::Lane)   ? Lanes
                  : hw == unsigned(HwDim::Warp) ? Warps
                  : previous == LowRegisters    ? LowRegisters
                                                : Chunks;
    if (axisBit != i || phase < previous)
      return std::nullopt;
    previous = phase;
    switch (phase) {
    case LowRegisters:
      ++result.regBits;
      break;
    case Lanes:
      result.laneBits.push_back(bit);
      break;
    case Warps:
      result.warpBits.push_back(bit);
      break;
    case Chunks:
      ++result.chunkBits;
      break;
    }
  }
  return result;
}

LinearLayout tilec::tilegpu::buildScanLayout(ArrayRef<int64_t> shape,
                                             unsigned axis,
                                             unsigned warpBits) {
  unsigned rank = shape.size();
  SmallVector<unsigned> log2(rank), next(rank, 0);
  unsigned elementBits = 0;
  for (unsigned d = 0; d < rank; ++d) {
    log2[d] = llvm::Log2_64(shape[d]);
    elementBits += log2[d];
  }
  unsigned threadBits = llvm::Log2_32(kThreadsPerWarp) + warpBits;
  unsigned registerBits = elementBits > threadBits ? elementBits - threadBits : 0;
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  auto unit = [&](unsigned d) {
    Coord c(rank, 0);
    c[d] = int64_t(1) << next[d]++;
    return c;
  };
  SmallVector<unsigned> order{axis};
  for (int d = rank - 1; d >= 0; --d)
    if (unsigned(d) != axis)
      order.push_back(d);
  auto take = [&]() {
    for (unsigned d : order)
      if (next[d] < log2[d])
        return unit(d);
    return Coord(rank, 0);
  };
  auto &regs = bases[unsigned(HwDim::Register)];
  for (unsigned i = 0, e = std::min(log2[axis], registerBits); i < e; ++i)
    regs.push_back(unit(axis));
  for (unsigned i = 0; i < llvm::Log2_32(kThreadsPerWarp); ++i)
    bases[unsigned(HwDim::Lane)].push_back(take());
  for (unsigned i = 0; i < warpBits; ++i)
    bases[unsigned(HwDim::Warp)].push_back(take());
  for (unsigned d : order)
    while (next[d] < log2[d])
      regs.push_back(unit(d));
  return LinearLayout(shape, bases);
}
