//===- LayoutPicture.h - SVG pictures of tile layouts -----------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Pictures of which thread holds which element, for the `--dump-ir` report:
// a distributed layout (`#tilegpu.blocked`, `#tilegpu.slice`, `#tilegpu.mma`,
// `#tilegpu.wgmma`) is drawn from its LinearLayout (toLinearLayout, the same
// function the LLVM lowering computes element coordinates with, so the
// picture cannot disagree with the code), each element coloured by the warp
// holding it and labelled `t<thread>:<register slot>`; a shared-memory tile
// (`!tilegpu.smem`) is drawn from SharedTileLayout::getOffset (the swizzle
// the TMA and wgmma descriptors use), each element coloured by its bank and
// labelled with its bank and swizzle phase.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_LAYOUTPICTURE_H
#define TILEC_DIALECT_TILEGPU_IR_LAYOUTPICTURE_H

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::tilegpu {

/// Who holds one tile element: the lowest (warp, lane, register slot) among
/// its holders and how many hold it (more than one: replicated).
struct ElementOwner {
  int64_t warp = -1, lane = -1, reg = -1;
  int64_t copies = 0;
  /// The thread's index in the CTA (warp * 32 + lane).
  int64_t getThread() const { return warp * 32 + lane; }
};

/// For each element of a `shape` tile in distributed layout `encoding` (row
/// major), its owner, computed from toLinearLayout(shape, encoding). Fails
/// where toLinearLayout does.
mlir::FailureOr<std::vector<ElementOwner>>
getElementOwners(llvm::ArrayRef<int64_t> shape, mlir::Attribute encoding);

/// Bank (0-31, 4-byte banks) and swizzle phase (the XOR applied to the
/// 16-byte chunk index) of element (row, col) of a shared tile.
struct SharedElement {
  int64_t offset = 0, bank = 0, phase = 0;
};
SharedElement getSharedElement(const SharedTileLayout &layout, int64_t row,
                               int64_t col);

/// One distinct layout found in a module.
struct LayoutPictureRequest {
  /// The layout as printed (`#tilegpu.blocked<...>` with the tile shape) and
  /// a one-line summary.
  std::string name, description;
  /// A file-name-safe word: blocked, slice, wgmma, mma, shared.
  std::string fileStem;
  llvm::SmallVector<int64_t> shape;
  /// A distributed layout, or (when `shared` is set) none.
  mlir::Attribute encoding;
  std::optional<SharedTileLayout> shared;
  /// Where values of this layout are defined.
  llvm::SmallVector<mlir::Location> locations;
};

/// Every distinct (shape, layout) of the tiles of `module` (values and
/// shared-memory rings) of rank 1 or 2, in order of first use.
std::vector<LayoutPictureRequest> collectLayoutPictures(mlir::ModuleOp module);

/// An SVG picture of `request` (at most `maxRows` x `maxCols` elements are
/// drawn, from the top left; the caption says when the tile is larger).
mlir::FailureOr<std::string> renderLayoutPicture(const LayoutPictureRequest &request,
                                           int64_t maxRows = 32,
                                           int64_t maxCols = 32);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_LAYOUTPICTURE_H
