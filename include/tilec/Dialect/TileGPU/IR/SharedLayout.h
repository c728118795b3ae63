//===- SharedLayout.h - swizzled shared-memory tiles for wgmma ---*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The shared-memory layout of a 2-d tile that `wgmma.mma_async` reads
// through a matrix descriptor and a TMA tensor copy writes (PTX ISA
// §9.7.15.5.1.2 "Shared Memory Matrix Layout", §5.5 "Tensor swizzling
// modes"). The contiguous dimension (`cols`) is cut into blocks of
// `swizzleBytes` (128, 64 or 32 bytes); each block stores all `rows` rows of
// `swizzleBytes` one after the other (a "swizzle atom" is 8 such rows), and
// the blocks follow each other. Within every aligned 8-row group, the 16-byte
// chunks of a row are XOR-ed with the row index (CUTLASS Swizzle<3,4,3> for
// 128 bytes): the physical byte offset of linear offset `x` is
//
//     x ^ (((x >> 7) & (swizzleBytes / 16 - 1)) << 4)
//
// which requires the tile to start at a multiple of 1024 bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_SHAREDLAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_SHAREDLAYOUT_H

#include <cstdint>

namespace tilec::tilegpu {

/// A swizzled shared-memory tile of `rows` x `cols` elements of
/// `elementBytes` bytes, `cols` contiguous (see the file comment).
struct SharedTileLayout {
  int64_t rows = 0, cols = 0;
  int64_t elementBytes = 0;
  int64_t swizzleBytes = 0;

  /// The widest swizzle (128, 64 or 32 bytes) that divides a row of `cols`
  /// elements; rows, cols and elementBytes are powers of two and a row is
  /// at least 32 bytes.
  static SharedTileLayout get(int64_t rows, int64_t cols, int64_t elementBytes);

  /// Elements per swizzled row (one block's width).
  int64_t getBlockCols() const { return swizzleBytes / elementBytes; }
  /// Bytes of the whole tile.
  int64_t getSizeBytes() const { return rows * cols * elementBytes; }
  /// Unswizzled byte offset of element (row, col): what a wgmma descriptor's
  /// start address and a TMA box origin refer to.
  int64_t getLinearOffset(int64_t row, int64_t col) const {
    int64_t blockCols = getBlockCols();
    return (col / blockCols) * rows * swizzleBytes + row * swizzleBytes +
           (col % blockCols) * elementBytes;
  }
  /// Physical byte offset of a linear offset.
  int64_t swizzle(int64_t linear) const {
    return linear ^ (((linear >> 7) & (swizzleBytes / 16 - 1)) << 4);
  }
  int64_t getOffset(int64_t row, int64_t col) const {
    return swizzle(getLinearOffset(row, col));
  }

  /// The wgmma matrix-descriptor bits other than the start address (PTX ISA
  /// §9.7.15.5.1.2.2): leading byte offset = one block (rows * swizzle
  /// bytes), stride byte offset = one 8-row swizzle atom, swizzle mode
  /// (1 = 128B, 2 = 64B, 3 = 32B). Add `(address >> 4) & 0x3fff`.
  uint64_t getDescriptorBits() const;
};

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_SHAREDLAYOUT_H
