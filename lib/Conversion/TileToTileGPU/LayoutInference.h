//===- LayoutInference.h - unify tiles into layout classes ------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The analysis behind convert-tile-to-tilegpu (see its description in
// Conversion/Passes.td): tile values that must share a layout are unified
// into classes; expand_dims and reduce relate a class to the slice of a
// higher-rank class; a class reshaped from (or into) one whose layout has a
// reason of its own takes that layout reshaped, so that tile.reshape stays
// in registers; the addresses of a store of a tensor-core accumulator take
// the accumulator's layout with longer runs per thread (the value is
// converted within warps); every other class gets a blocked layout.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOTILEGPU_LAYOUTINFERENCE_H
#define TILEC_LIB_CONVERSION_TILETOTILEGPU_LAYOUTINFERENCE_H

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace tilec {

/// What the layout choice may use.
struct LayoutOptions {
  unsigned numWarps = 4;
  /// Give eligible dot accumulators the wgmma layout (tensor cores); else
  /// every dot takes the FMA path.
  bool useWarpgroupMMA = true;
  /// Dots wgmma cannot take run on mma.sync when it can take them.
  bool useMMA = true;
  /// The target adds 16 bytes of f32 with one red.global.add.v4.f32: an
  /// accumulator added atomically is worth gathering into such runs.
  bool vectorReductions = false;
};

/// Layout classes of the tiles of one function.
class LayoutInference {
public:
  LayoutInference(mlir::Operation *func, const LayoutOptions &options,
                  const ModuleAxisInfo &axisInfo);

  /// Builds the classes. Fails (with a located error) on an op whose tiles
  /// it does not know how to relate.
  mlir::LogicalResult run();

  /// A use whose value is asked to take two different layouts: `op` is the
  /// tile.expand_dims or tile.broadcast (operand 0) or tile.reduce (its
  /// results) that did not get its way.
  llvm::ArrayRef<mlir::Operation *> getConflicts() const { return conflicts; }

  /// The layout chosen for `value`'s class (null for a non-tile value).
  mlir::Attribute getLayout(mlir::Value value);

private:
  unsigned classOf(mlir::Value value);
  unsigned find(unsigned id);
  void unite(mlir::Value a, mlir::Value b);
  void uniteAll(mlir::ValueRange values);
  void addSlice(mlir::Value child, unsigned axis, mlir::Value parent,
                mlir::Operation *op);
  mlir::LogicalResult collect(mlir::Operation *op);
  void resolveStores();
  void resolveBroadcasts();
  void resolveSlices();
  unsigned getSliceParent(unsigned parent, unsigned axis);
  /// A store of a dot's accumulator whose addresses are class `root` (and
  /// the value another class), or null.
  mlir::Operation *getStoreOfDotAddressedBy(unsigned root);
  void resolveReshapes();
  mlir::Attribute deriveFromReshape(unsigned root);
  mlir::Attribute deriveFromStoredValue(unsigned root, mlir::Operation *store);
  mlir::Attribute layoutOfClass(unsigned root);
  mlir::Attribute chooseBlocked(unsigned root);

  /// The best-vectorizable load or store of a class's pointer tiles.
  struct ClassAccess {
    /// Elements per access (0: the class accesses no memory).
    int64_t vec = 0;
    /// Dimensions by falling contiguity (vec runs along the first).
    llvm::SmallVector<unsigned> order;
    /// Shape of the accessed pointer tile.
    llvm::SmallVector<int64_t> shape;
  };
  ClassAccess getBestAccess(unsigned root);

  struct SliceRequest {
    unsigned child, axis, parent;
    mlir::Operation *op;
  };

  mlir::Operation *func;
  LayoutOptions options;
  unsigned numWarps;
  const ModuleAxisInfo &axisInfo;
  llvm::DenseMap<mlir::Value, unsigned> ids;
  llvm::SmallVector<mlir::Value> values;
  llvm::SmallVector<unsigned> parents;
  llvm::SmallVector<SliceRequest> requests;
  llvm::SmallVector<tile::BroadcastOp> broadcasts;
  llvm::SmallVector<tile::ReshapeOp> reshapes;
  /// Stores of tiles and reducing atomics (an fp add whose old values are
  /// unused), their value not yet in their address's class.
  llvm::SmallVector<mlir::Operation *> stores;
  /// Stores whose addresses keep a class of their own (resolveStores): the
  /// value accumulates a dot.
  llvm::SmallVector<mlir::Operation *> storesOfDots;
  /// Per root class: the accepted slice request (axis, parent value id, the
  /// expand_dims or reduce that asked for it).
  struct AcceptedSlice {
    unsigned axis, parent;
    mlir::Operation *op;
  };
  llvm::DenseMap<unsigned, AcceptedSlice> sliceOf;
  /// Per root class without a layout of its own: the class (nearer to one
  /// that has its own) whose layout it takes through `op`.
  struct ReshapedFrom {
    unsigned from;
    tile::ReshapeOp op;
  };
  llvm::DenseMap<unsigned, ReshapedFrom> reshapedFrom;
  llvm::DenseMap<unsigned, mlir::Attribute> layouts;
  /// Classes whose layout is being chosen (layoutOfClass recursion).
  llvm::DenseSet<unsigned> inProgress;
  llvm::SmallVector<mlir::Operation *> conflicts;
};

/// The value a tile.store or a reducing tile.atomic_rmw writes.
mlir::Value getStoredValue(mlir::Operation *store);

/// Clones, for one use, the chain of cheap pure ops (ranges, splats,
/// constants, integer arithmetic, expand_dims, broadcast, reshape) that computes
/// `use`'s value, so that this use can take its own layout. Returns false
/// (and changes nothing) when the chain is not cheap or too long, or, with
/// `onlyIfShared`, when no op of the chain has a user outside the chain
/// other than `use`'s owner.
bool cloneCheapChainForUse(mlir::OpOperand &use, bool onlyIfShared = false);

} // namespace tilec

#endif // TILEC_LIB_CONVERSION_TILETOTILEGPU_LAYOUTINFERENCE_H
