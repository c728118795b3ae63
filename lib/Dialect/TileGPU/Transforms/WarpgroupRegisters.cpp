//===- WarpgroupRegisters.cpp - registers a warpgroup dot loop holds ------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/WarpgroupRegisters.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

static bool isWarpgroupDot(tile::DotOp dot) {
  return isa<WarpgroupMMAEncodingAttr>(dot.getC().getType().getEncoding());
}

bool tilegpu::canUseRegisterA(tile::DotOp dot) {
  Value a = dot.getA();
  if (a.getDefiningOp<tile::LoadOp>())
    return false;
  auto aEnc = dyn_cast<WarpgroupMMAEncodingAttr>(dot.getA().getType().getEncoding());
  auto cEnc = cast<WarpgroupMMAEncodingAttr>(dot.getC().getType().getEncoding());
  if (!aEnc || aEnc.getWarpsPerCTA() != cEnc.getWarpsPerCTA() ||
      cEnc.getWarpsPerCTA()[1] != 1)
    return false;
  // 16-bit A in k16 fragments; 8-bit A in k32 fragments, which the
  // lowering regroups from the accumulator-like layout with shuffles.
  unsigned bits = dot.getA().getType().getElementTypeBitWidth();
  return (bits == 16 || bits == 8) &&
         dot.getA().getType().getDimSize(1) % (256 / bits) == 0;
}

int64_t tilegpu::getWarpgroupDotRegisters(scf::ForOp loop, unsigned numWarps) {
  int64_t threads = int64_t(numWarps) * kThreadsPerWarp, bits = 0;
  auto tileBits = [](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    return type.getNumElements() * type.getElementTypeBitWidth();
  };
  llvm::SmallPtrSet<Value, 8> registerAs;
  loop.getBody()->walk([&](tile::DotOp dot) {
    if (!isWarpgroupDot(dot))
      return;
    // A chained accumulator (C is the previous dot's result) reuses its
    // registers.
    if (!dot.getC().getDefiningOp<tile::DotOp>())
      bits += tileBits(dot.getC());
    if (canUseRegisterA(dot) && registerAs.insert(dot.getA()).second)
      bits += tileBits(dot.getA());
  });
  return llvm::divideCeil(bits, 32 * threads);
}

unsigned tilegpu::getConsumerRegisters(unsigned numWarps, unsigned producerRegisters,
                                       unsigned consumerRegisters) {
  if (consumerRegisters != 0)
    return consumerRegisters;
  if (numWarps / kWarpsPerWarpgroup == 1)
    return 240;
  int64_t left = kRegistersPerSM - int64_t(producerRegisters) * kWarpsPerWarpgroup *
                                       kThreadsPerWarp;
  int64_t perThread = left / (int64_t(numWarps) * kThreadsPerWarp);
  return static_cast<unsigned>(std::clamp<int64_t>(perThread / 8 * 8, 24, 232));
}
