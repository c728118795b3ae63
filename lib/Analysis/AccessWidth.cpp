//===- AccessWidth.cpp - how wide a tile's memory accesses can be ---------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/AccessWidth.h"

#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

AccessRun tilec::getAccessRun(const ModuleAxisInfo &axisInfo, Value ptr,
                              Value mask, unsigned eltBytes) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return {};
  FailureOr<LinearLayout> layout =
      toLinearLayout(type.getShape(), type.getEncoding());
  if (failed(layout) || layout->getNumBits(HwDim::Register) == 0)
    return {};
  // The leading register bits that step by 1, 2, 4… along one dimension.
  ArrayRef<Coord> regs = layout->getBases(HwDim::Register);
  int dim = -1;
  for (unsigned d = 0; d < layout->getRank(); ++d)
    if (regs[0][d] == 1)
      dim = d;
  if (dim < 0)
    return {};
  int64_t run = getRegisterRun(*layout, dim);
  AxisInfo info = axisInfo.lookup(ptr);
  if (info.getRank() != layout->getRank())
    return {1, dim};
  int64_t vec = std::min<int64_t>({run, info.getContiguity(dim),
                                   std::max<int64_t>(1, 16 / eltBytes)});
  while (vec > 1 &&
         info.getEffectiveDivisibility(dim, vec, eltBytes) % (vec * eltBytes) != 0)
    vec /= 2;
  if (mask) {
    AxisInfo maskInfo = axisInfo.lookup(mask);
    if (maskInfo.getRank() == layout->getRank())
      vec = std::min<int64_t>(vec, maskInfo.getConstancy(dim));
    else
      vec = 1;
  }
  return {static_cast<unsigned>(std::max<int64_t>(1, vec)), dim};
}
