//===- ScanLayout.h - the layouts tile.scan is lowered in -------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Which layouts the GPU lowering of `tile.scan` (ScanOpToLLVM.cpp) scans in
// place, and the one it moves a tile into otherwise: decided here once, for
// the lowering and for the scratch shared memory tilegpu-allocate-shared
// reserves (Scratch.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_SCANLAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_SCANLAYOUT_H

#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilec::tilegpu {

/// Where the scanned axis lives in a layout the scan takes directly: its
/// low `regBits` bits in registers, the next bits in the lane bits
/// `laneBits` (lane index bits, in order of the axis bit they set), then in
/// the warp bits `warpBits`, and its top `chunkBits` bits in registers
/// again (the chunks of a blocked layout that repeats along the axis: 4
/// elements per thread on 32 lanes and 4 warps cover 512 elements, so a
/// 4096-element axis is 8 chunks).
struct ScanAxis {
  unsigned regBits = 0;
  llvm::SmallVector<unsigned> laneBits, warpBits;
  unsigned chunkBits = 0;

  /// The axis bits below the chunk number.
  unsigned getChunkShift() const {
    return regBits + laneBits.size() + warpBits.size();
  }
  int64_t getNumChunks() const { return int64_t(1) << chunkBits; }
  /// Warps along the axis (1 when none splits it).
  int64_t getNumWarps() const { return int64_t(1) << warpBits.size(); }
  /// The threads along the axis in one chunk (lanes times warps).
  int64_t getNumPositions() const {
    return int64_t(1) << (laneBits.size() + warpBits.size());
  }

  /// Scans of more chunks than this, split across threads, combine the
  /// totals of the threads' chunks through a table in shared memory, in
  /// loops (ScanOpToLLVM.cpp): fewer instructions than a shuffle scan per
  /// chunk (a 65536-element row on 4 warps is 128 chunks).
  static constexpr int64_t kMaxShuffledChunks = 8;
  bool usesChunkTable() const {
    return getNumChunks() > kMaxShuffledChunks && getNumPositions() > 1;
  }
  /// Scratch elements per source of a scan of `numLines` lines: the
  /// chunk table (every thread's total of every chunk of every line) and
  /// its chunk totals, or the warps' totals of every chunk of every line.
  int64_t getScratchElements(int64_t numLines) const {
    if (usesChunkTable())
      return numLines * getNumChunks() * (getNumPositions() + 1);
    if (warpBits.empty())
      return 0;
    return numLines * getNumChunks() * getNumWarps();
  }
};

/// The axis `axis` of `layout` as a ScanAxis, or nullopt when the layout
/// is not one the scan takes in place: the axis length is not a power of
/// two, a basis moves along the axis and another dimension at once, or the
/// axis bits from the lowest up are not low registers, lanes, warps, high
/// registers in that order (e.g. an mma accumulator along its rows: lanes,
/// then registers, then warps).
std::optional<ScanAxis> analyzeScanAxis(const LinearLayout &layout,
                                        unsigned axis);

/// A layout of `shape` (powers of two) that analyzeScanAxis takes with one
/// chunk, over 32 lanes and 2^`warpBits` warps: each thread holds as many
/// consecutive elements along the axis as the tile has per thread, the
/// lanes and then the warps continue the axis and then cover the other
/// dimensions (the last first); what is left goes to registers, and thread
/// bits beyond the tile replicate.
LinearLayout buildScanLayout(llvm::ArrayRef<int64_t> shape, unsigned axis,
                             unsigned warpBits);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_SCANLAYOUT_H
