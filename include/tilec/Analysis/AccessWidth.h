//===- AccessWidth.h - how wide a tile's memory accesses can be -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A load or store of a tile of pointers in a distributed layout moves, per
// thread and instruction, a run of consecutive register slots that are
// consecutive elements along one dimension, as long as tile-axis-info
// proves the addresses contiguous and aligned and the mask constant over
// the run, up to 16 bytes. Used by the global load/store lowering and by
// tilegpu-assign-async-copies (cp.async copies 4, 8 or 16 bytes).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_ACCESSWIDTH_H
#define TILEC_ANALYSIS_ACCESSWIDTH_H

#include "tilec/Analysis/AxisInfo.h"

namespace tilec {

/// A run of `vec` elements along tile dimension `dim` (-1 when the layout
/// has no run: vec is then 1).
struct AccessRun {
  unsigned vec = 1;
  int dim = -1;
};

/// The widest access of `eltBytes`-byte elements through the tile of
/// pointers `ptr` (its layout's register runs, the pointers' contiguity and
/// alignment, `mask`'s constancy when given; at most 16 bytes).
AccessRun getAccessRun(const ModuleAxisInfo &axisInfo, mlir::Value ptr,
                       mlir::Value mask, unsigned eltBytes);

/// getAccessRun's element count.
inline unsigned getAccessVectorWidth(const ModuleAxisInfo &axisInfo,
                                     mlir::Value ptr, mlir::Value mask,
                                     unsigned eltBytes) {
  return getAccessRun(axisInfo, ptr, mask, eltBytes).vec;
}

} // namespace tilec

#endif // TILEC_ANALYSIS_ACCESSWIDTH_H
