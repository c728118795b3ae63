//===- LinearLayout.h - layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every distributed layout of a tile (all tile dimensions are powers of two)
// is described by one representation: a linear map over GF(2) from the bits of
// the hardware indices (register slot, lane id, warp id) to the coordinates
// of a tile element. This is the representation of Triton's LinearLayout
// (Triton `include/triton/Tools/LinearLayout.h`; the idea is in "Linear
// Layouts: Robust Code Generation of Efficient Tensor Computation Using
// F2", Zhou et al., 2025) restricted to what tilec needs: inputs are
// register/lane/warp, outputs are the tile's dimensions.
//
// Each input bit has a basis vector (one coordinate per tile dimension); the
// element held by (register r, lane l, warp w) is the XOR of the bases of the
// set bits of r, l and w. A zero basis means the bit does not change the
// element: the element is replicated across that bit (threads that differ
// only in it hold copies).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_LINEARLAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_LINEARLAYOUT_H

#include "mlir/IR/Attributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>

namespace tilec::tilegpu {

/// The hardware indices a layout maps from.
enum class HwDim : unsigned { Register = 0, Lane = 1, Warp = 2 };
inline constexpr unsigned kNumHwDims = 3;

/// A coordinate in a tile (one entry per tile dimension).
using Coord = llvm::SmallVector<int64_t, 4>;

/// A layout as a linear map from (register, lane, warp) bits to coordinates
/// of a tile of shape `getShape()`. See the file comment.
class LinearLayout {
public:
  LinearLayout() = default;
  /// `bases[hw][bit]` is the coordinate basis of bit `bit` of input `hw`;
  /// every basis has `shape.size()` entries, each below that dimension's size.
  LinearLayout(llvm::ArrayRef<int64_t> shape,
               std::array<llvm::SmallVector<Coord>, kNumHwDims> bases);

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  llvm::ArrayRef<Coord> getBases(HwDim dim) const {
    return bases[static_cast<unsigned>(dim)];
  }
  unsigned getNumBits(HwDim dim) const { return getBases(dim).size(); }
  /// Number of register slots each thread holds (2^register bits).
  int64_t getNumRegisters() const { return int64_t(1) << getNumBits(HwDim::Register); }
  int64_t getNumLanes() const { return int64_t(1) << getNumBits(HwDim::Lane); }
  int64_t getNumWarps() const { return int64_t(1) << getNumBits(HwDim::Warp); }

  /// Coordinate of the element held in register slot `reg` by lane `lane` of
  /// warp `warp`.
  Coord apply(uint64_t reg, uint64_t lane, uint64_t warp) const;
  /// Contribution of input `dim` with index `index` alone.
  Coord applyOne(HwDim dim, uint64_t index) const;

  /// Bit mask of the bits of input `dim` whose basis is zero (replication).
  uint64_t getReplicatedMask(HwDim dim) const;

  /// For every tile dimension, the OR of all coordinate bits that input `dim`
  /// can set. Used to decide whether XOR-combining equals adding.
  Coord getCoordBitsUsed(HwDim dim) const;
  /// True when register, lane and warp contributions never share a
  /// coordinate bit, so the element coordinate is their sum.
  bool hasDisjointContributions() const;

  /// Linear (row-major) index of a coordinate in the tile.
  int64_t linearize(llvm::ArrayRef<int64_t> coord) const;

  bool operator==(const LinearLayout &other) const {
    return shape == other.shape && bases == other.bases;
  }
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }

  void print(llvm::raw_ostream &os) const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  std::array<llvm::SmallVector<Coord>, kNumHwDims> bases;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const LinearLayout &layout) {
  layout.print(os);
  return os;
}

/// The linear layout of a tile of shape `shape` in layout `encoding`
/// (`#tilegpu.blocked`, `#tilegpu.slice`, `#tilegpu.linear`, or an MMA
/// accumulator). Register bases that would be
/// zero (a tile smaller than one thread's block) are dropped, so no two
/// register slots of a thread hold the same element. Fails for an unknown
/// encoding or a rank mismatch.
mlir::FailureOr<LinearLayout> toLinearLayout(llvm::ArrayRef<int64_t> shape,
                                             mlir::Attribute encoding);

/// Maps the register slots of `dst` to those of `src` when every thread of
/// `dst` already holds, in `src`, the element it needs: `dstToSrc` maps a
/// dst coordinate to the src coordinate whose value it takes; it must be
/// linear over GF(2) (dropping dimensions, zeroing broadcast dimensions and
/// the identity are). Returns, for each dst register, the src register;
/// std::nullopt when the data must cross threads.
std::optional<llvm::SmallVector<int64_t>>
getRegisterMapping(const LinearLayout &src, const LinearLayout &dst,
                   llvm::function_ref<Coord(llvm::ArrayRef<int64_t>)> dstToSrc);

/// getRegisterMapping for a conversion between two layouts of the same tile
/// (every dst coordinate is its own src coordinate).
std::optional<llvm::SmallVector<int64_t>>
getRegisterMapping(const LinearLayout &src, const LinearLayout &dst);

/// Elements of `layout` that one thread holds consecutively along dimension
/// `dim`: 2^k for the k lowest register bases that step by 1, 2, 4, ...
/// along `dim` alone (1 when the lowest does not).
int64_t getRegisterRun(const LinearLayout &layout, unsigned dim);

/// `coord` of a tile of shape `from` moved to the same row-major position in
/// a tile of shape `to` (tile.reshape; both shapes of powers of two, so on
/// a basis this is linear over GF(2)).
Coord reshapeCoord(llvm::ArrayRef<int64_t> coord, llvm::ArrayRef<int64_t> from,
                   llvm::ArrayRef<int64_t> to);

/// The layout of `layout`'s tile reshaped (row-major order kept) to
/// `shape`, which has the same number of elements: every register, lane
/// and warp holds the same element as before, so the reshape stays in
/// registers.
LinearLayout reshapeLayout(const LinearLayout &layout, llvm::ArrayRef<int64_t> shape);

/// For a tile.reshape from `src` to `dst` (their shapes): for each dst
/// register, the src register that holds its element in the same thread;
/// std::nullopt when the data must cross threads.
std::optional<llvm::SmallVector<int64_t>>
getReshapeRegisterMapping(const LinearLayout &src, const LinearLayout &dst);

/// One step of a conversion within a warp: register bit `reg` and lane bit
/// `lane` trade their bases. A thread whose lane bit differs from the
/// register bit of a slot takes that slot from the lane that differs in
/// `lane`, which holds it in the slot that differs in `reg`: one butterfly
/// shuffle (`shfl.sync.bfly`, PTX ISA §9.7.8.6) per pair of slots.
struct LaneRegisterSwap {
  unsigned reg, lane;
};

/// `layout` after `swap`: its register basis `swap.reg` and lane basis
/// `swap.lane` exchanged.
LinearLayout applySwap(const LinearLayout &layout, LaneRegisterSwap swap);

/// The swaps, in order, that take `src` to a layout with `dst`'s lane and
/// warp bases, from which `dst` is a renaming of registers
/// (getRegisterMapping with the identity). Triton's `transferWithinWarp`
/// does such conversions with `shfl.idx`; tilec takes only those that are
/// exchanges of whole bases, each a butterfly. std::nullopt when the
/// layouts differ in their warps, when a lane of `dst` holds what no
/// register of `src` (or of an earlier swap) does at that bit, or when
/// either replicates where the other does not: the conversion then goes
/// through shared memory.
std::optional<llvm::SmallVector<LaneRegisterSwap>>
getLaneRegisterSwaps(const LinearLayout &src, const LinearLayout &dst);

/// Register bits at the bottom of a slot index that `swaps` leave alone,
/// as many as pack `elementBits`-bit elements into one 32-bit word (the
/// elements of a word travel together through the butterflies).
unsigned getSwapPackBits(const LinearLayout &src,
                         llvm::ArrayRef<LaneRegisterSwap> swaps,
                         unsigned elementBits);

/// getLaneRegisterSwaps where the butterflies cost at most one 32-bit
/// shuffle per element a thread holds (elements of `elementBits` bits,
/// packed by getSwapPackBits); past that a round trip through shared
/// memory is cheaper, and std::nullopt says so.
std::optional<llvm::SmallVector<LaneRegisterSwap>>
getCheapLaneRegisterSwaps(const LinearLayout &src, const LinearLayout &dst,
                          unsigned elementBits);

/// `layout` with its lowest register bits stepping by 1, 2, ..., run / 2
/// elements along dimension `dim`, so that each thread holds runs of `run`
/// consecutive elements there (a 16-byte store of 8 bf16 where the wgmma
/// accumulator gives a thread pairs). The steps a lane basis has are
/// exchanged with register bases that step further along `dim` (the
/// smallest first, so that neighbouring lanes cover neighbouring runs);
/// the other register bases keep their order after the run. Only steps
/// along `dim` move, so slices along `dim` (tile.expand_dims on that axis)
/// are the same map before and after. The run is shorter when a step is
/// held by neither registers nor lanes, or no register step is left to
/// give. Returns `layout` unchanged when it already has the run.
LinearLayout gatherRegisterRun(const LinearLayout &layout, unsigned dim,
                               int64_t run);

/// Shared-memory exchanges (a layout conversion, reshape or transpose that
/// crosses threads) larger than this go through shared memory in rounds
/// (getExchangeRounds), as Triton's conversions do with their "reps".
inline constexpr int64_t kMaxExchangeBytes = 64 * 1024;

/// The rounds of a shared-memory exchange (getExchangeRounds): bit j of a
/// round's number is bit `srcBits[j]` of the source coordinate's `srcDim`,
/// and the same element bit, `dstBits[j]`, of the result coordinate's
/// `dstDim`. Only register slots address these bits in either layout, so
/// every thread knows at compile time which of its slots travel in which
/// round.
struct ExchangeRounds {
  llvm::SmallVector<unsigned> srcBits, dstBits;

  unsigned getNumBits() const { return srcBits.size(); }
  int64_t getNumRounds() const { return int64_t(1) << srcBits.size(); }
  /// The round of coordinate value `value` (of srcDim with `bits` =
  /// srcBits, of dstDim with dstBits).
  static int64_t getRound(int64_t value, llvm::ArrayRef<unsigned> bits);
};

/// The rounds an exchange of `bytes` of scratch from `src` to `dst` takes:
/// bits of source dimension `srcDim`, from the top down, that neither
/// layout's lanes or warps address (in `dst`, the same element bit of
/// `dstDim`, whose size may differ: a reshape's outermost dimensions
/// share the row-major index's top bits), until the exchange fits
/// `kMaxExchangeBytes` or none is left. Both dimensions must be the
/// outermost of the exchange's shared-memory index, so that removing the
/// round bits from them (the bits above each move down) leaves an index below
/// `bytes` >> getNumBits(). No bits when `bytes` already fits.
ExchangeRounds getExchangeRounds(const LinearLayout &src, unsigned srcDim,
                                 const LinearLayout &dst, unsigned dstDim,
                                 int64_t bytes);

class LinearEncodingAttr;
/// The `#tilegpu.linear` attribute with the bases of `layout`.
LinearEncodingAttr getLinearEncoding(mlir::MLIRContext *context,
                                     const LinearLayout &layout);

} // namespace tilec::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_LINEARLAYOUT_H
