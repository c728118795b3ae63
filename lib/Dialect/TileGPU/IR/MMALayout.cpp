//===- MMALayout.cpp - which dots the tensor cores take -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

std::optional<WarpgroupMMAEncodingAttr>
tilec::tilegpu::getWarpgroupMMALayout(tile::DotOp dot, unsigned numWarps,
                             std::string *whyNot) {
  auto fail = [&](const Twine &reason) -> std::optional<WarpgroupMMAEncodingAttr> {
    if (whyNot)
      *whyNot = reason.str();
    return std::nullopt;
  };
  auto aType = dot.getA().getType();
  auto cType = dot.getC().getType();
  if (cType.getRank() != 2)
    return fail("batched (3-d) dot");
  Type elt = aType.getElementType();
  if (!elt.isF16() && !elt.isBF16())
    return fail("operands are not f16/bf16");
  if (!cType.getElementType().isF32())
    return fail("the accumulator is not f32");
  if (numWarps % 4 != 0)
    return fail("num_warps is not a multiple of 4 (whole warpgroups)");
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aType.getDimSize(1);
  if (m < 64)
    return fail("M < 64");
  if (k % 16 != 0 || n < 8)
    return fail("K is not a multiple of 16 or N < 8");
  unsigned groups = numWarps / 4;
  unsigned groupsM = std::min<int64_t>(groups, m / 64);
  unsigned groupsN = groups / groupsM;
  if (n / groupsN < 8)
    return fail("N too small for the warpgroups");
  unsigned instrN = std::min<int64_t>(256, n / groupsN);
  return WarpgroupMMAEncodingAttr::get(dot.getContext(), {4 * groupsM, groupsN},
                                       instrN);
}

