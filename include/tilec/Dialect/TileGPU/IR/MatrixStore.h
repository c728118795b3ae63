//===- MatrixStore.h - register tiles to shared memory by stmatrix -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA
// §9.7.14.5.16, sm_90) stores up to four 8 x 8 matrices of 16-bit elements
// from the registers of a warp in one instruction: register j of lane t
// holds elements (t / 4, 2 (t % 4)) and (t / 4, 2 (t % 4) + 1) of matrix j
// (the mma.sync / wgmma accumulator fragment), and lane 8 j + i gives the
// shared address of row i of matrix j (16 bytes, 16-byte aligned). With
// `.trans` the fragment's element (r, c) goes to row c, position r.
//
// A tile held in a layout whose 8 x 8 blocks are such fragments (the wgmma
// accumulator, and so a tile of dS or P converted from one) can be stored
// into a swizzled tile (SharedLayout.h) this way: one instruction and one
// address a thread for every 8 register slots, where element-wise stores
// take one address a slot or pair of slots.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_MATRIXSTORE_H
#define TILEC_DIALECT_TILEGPU_IR_MATRIXSTORE_H

#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include <optional>

namespace tilec::tilegpu {

/// How the register slots of a 2-d tile in one layout are stored by
/// stmatrix into a swizzled shared tile (see the file comment).
struct MatrixStorePlan {
  /// `.trans`: the fragment's rows run along the shared tile's rows.
  bool transposed = false;
  /// Matrices an instruction stores: 1, 2 or 4 (`.x1`, `.x2`, `.x4`).
  int64_t matrices = 0;
  /// Instructions a thread issues; instruction k stores register slots
  /// [k * 2 * matrices, (k + 1) * 2 * matrices).
  int64_t instructions = 0;

  /// The register slot of half `half` (0: the lower 16 bits) of register j
  /// (matrix j) of instruction k.
  int64_t getSlot(int64_t k, int64_t j, int64_t half) const {
    return (k * matrices + j) * 2 + half;
  }
  /// The (register slot, lane) of the layout whose element starts the
  /// shared row that lane `lane` gives the address of in instruction k (the
  /// lane's own warp): for row i of matrix j (lane 8 j + i), the element
  /// (i, 0) of the matrix, or (0, i) with `.trans`. Lanes beyond the
  /// instruction's 8 * matrices repeat the first.
  std::pair<int64_t, int64_t> getAddressSource(int64_t k, int64_t lane) const {
    int64_t j = (lane / 8) % matrices, i = lane % 8;
    if (!transposed)
      return {getSlot(k, j, 0), i * 4};
    return {getSlot(k, j, i % 2), i / 2};
  }
};

/// The stmatrix plan of storing a tile held in `layout` (2-d) into `shared`,
/// element (i, j) of the tile to (j, i) of `shared` when `transposed`
/// (the local_store's flag, not `.trans`), or nullopt when stmatrix cannot:
/// elements of other than 2 bytes, lanes that are not an 8 x 8 fragment's
/// (register slot bit 0 and lanes 0-4 must map as in the file comment, in
/// either orientation), or other register or warp bits that do not move by
/// whole 8 x 8 blocks.
std::optional<MatrixStorePlan> getMatrixStorePlan(const LinearLayout &layout,
                                                  const SharedTileLayout &shared,
                                                  bool transposed);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_MATRIXSTORE_H
