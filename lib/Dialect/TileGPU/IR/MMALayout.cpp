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
  bool tf32 = elt.isF32() && dot.getInputPrecision() == tile::InputPrecision::TF32;
  if (!elt.isF16() && !elt.isBF16() && !isa<Float8E4M3FNType, Float8E5M2Type>(elt) &&
      !tf32)
    return fail("operands are not f16, bf16, fp8 (e4m3, e5m2) or tf32");
  if (!cType.getElementType().isF32())
    return fail("the accumulator is not f32");
  if (numWarps % 4 != 0)
    return fail("num_warps is not a multiple of 4 (whole warpgroups)");
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aType.getDimSize(1);
  if (m < 64)
    return fail("M < 64");
  // One wgmma takes 32 bytes of K per row: k16 (16-bit), k32 (8-bit), k8
  // (tf32); an operand row in shared memory is at least 32 bytes.
  int64_t kStep = 256 / elt.getIntOrFloatBitWidth();
  if (k % kStep != 0 || n < 8)
    return fail("K is not a multiple of " + Twine(kStep) + " or N < 8");
  unsigned groups = numWarps / 4;
  unsigned groupsM = std::min<int64_t>(groups, m / 64);
  unsigned groupsN = groups / groupsM;
  if (n / groupsN < 8)
    return fail("N too small for the warpgroups");
  unsigned instrN = std::min<int64_t>(256, n / groupsN);
  return WarpgroupMMAEncodingAttr::get(dot.getContext(), {4 * groupsM, groupsN},
                                       instrN);
}


std::optional<MMAEncodingAttr>
tilec::tilegpu::getMMALayout(tile::DotOp dot, unsigned numWarps,
                             std::string *whyNot) {
  auto fail = [&](const Twine &reason) -> std::optional<MMAEncodingAttr> {
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
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aType.getDimSize(1);
  if (m % 16 != 0 || n % 8 != 0 || k % 16 != 0)
    return fail("M, N, K are not multiples of 16, 8, 16");
  // Split the warps so that each one's part of the tile is as square as
  // possible (the operand fragments it loads per step of K grow with its
  // rows plus its columns): double the warps along the longer side.
  unsigned warpsM = 1, warpsN = 1;
  while (warpsM * warpsN < numWarps) {
    bool canM = m >= 32 * int64_t(warpsM), canN = n >= 16 * int64_t(warpsN);
    if (canM && (!canN || m / warpsM >= n / warpsN))
      warpsM *= 2;
    else if (canN)
      warpsN *= 2;
    else
      return fail("the tile is too small for " + Twine(numWarps) + " warps");
  }
  unsigned instrN = std::min<int64_t>(256, n / warpsN);
  return MMAEncodingAttr::get(dot.getContext(), {warpsM, warpsN}, instrN);
}
