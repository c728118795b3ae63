//===- LinearLayout.cpp - layouts as linear maps over GF(2) ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

LinearLayout::LinearLayout(ArrayRef<int64_t> shape,
                           std::array<SmallVector<Coord>, kNumHwDims> bases)
    : shape(shape), bases(std::move(bases)) {}

Coord LinearLayout::applyOne(HwDim dim, uint64_t index) const {
  Coord coord(getRank(), 0);
  for (auto [bit, basis] : llvm::enumerate(getBases(dim))) {
    if (!(index & (uint64_t(1) << bit)))
      continue;
    for (unsigned d = 0; d < getRank(); ++d)
      coord[d] ^= basis[d];
  }
  return coord;
}

Coord LinearLayout::apply(uint64_t reg, uint64_t lane, uint64_t warp) const {
  Coord coord = applyOne(HwDim::Register, reg);
  Coord l = applyOne(HwDim::Lane, lane), w = applyOne(HwDim::Warp, warp);
  for (unsigned d = 0; d < getRank(); ++d)
    coord[d] ^= l[d] ^ w[d];
  return coord;
}

uint64_t LinearLayout::getReplicatedMask(HwDim dim) const {
  uint64_t mask = 0;
  for (auto [bit, basis] : llvm::enumerate(getBases(dim)))
    if (llvm::all_of(basis, [](int64_t v) { return v == 0; }))
      mask |= uint64_t(1) << bit;
  return mask;
}

Coord LinearLayout::getCoordBitsUsed(HwDim dim) const {
  Coord used(getRank(), 0);
  for (const Coord &basis : getBases(dim))
    for (unsigned d = 0; d < getRank(); ++d)
      used[d] |= basis[d];
  return used;
}

bool LinearLayout::hasDisjointContributions() const {
  // Within one input the bases must also be disjoint bit-wise for XOR to be
  // addition; check every basis against the running union.
  Coord seen(getRank(), 0);
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (const Coord &basis : bases[hw])
      for (unsigned d = 0; d < getRank(); ++d) {
        if (seen[d] & basis[d])
          return false;
        seen[d] |= basis[d];
      }
  return true;
}

int64_t LinearLayout::linearize(ArrayRef<int64_t> coord) const {
  int64_t index = 0;
  for (unsigned d = 0; d < getRank(); ++d)
    index = index * shape[d] + coord[d];
  return index;
}

void LinearLayout::print(raw_ostream &os) const {
  static const char *names[] = {"register", "lane", "warp"};
  os << "shape [";
  llvm::interleaveComma(shape, os);
  os << "]";
  for (unsigned hw = 0; hw < kNumHwDims; ++hw) {
    os << " " << names[hw] << ": [";
    llvm::interleaveComma(bases[hw], os, [&](const Coord &c) {
      os << "(";
      llvm::interleaveComma(c, os);
      os << ")";
    });
    os << "]";
  }
}

//===----------------------------------------------------------------------===//
// Encodings to linear layouts
//===----------------------------------------------------------------------===//

static FailureOr<LinearLayout> blockedToLinear(ArrayRef<int64_t> shape,
                                               BlockedEncodingAttr blocked) {
  unsigned rank = shape.size();
  if (blocked.getRank() != rank)
    return failure();
  SmallVector<unsigned> shapeBits(rank), usedBits(rank, 0);
  for (unsigned d = 0; d < rank; ++d) {
    if (!llvm::isPowerOf2_64(shape[d]))
      return failure();
    shapeBits[d] = llvm::Log2_64(shape[d]);
  }
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  // Appends log2(count) bases stepping along dimension d; past the tile's
  // extent the bases are zero (the element is replicated), except for
  // registers, where such slots are dropped.
  auto addBits = [&](HwDim hw, unsigned count, unsigned d) {
    for (unsigned i = 0, e = llvm::Log2_32(count); i < e; ++i) {
      Coord basis(rank, 0);
      if (usedBits[d] < shapeBits[d])
        basis[d] = int64_t(1) << usedBits[d]++;
      else if (hw == HwDim::Register)
        continue;
      bases[static_cast<unsigned>(hw)].push_back(basis);
    }
  };
  ArrayRef<unsigned> order = blocked.getOrder();
  for (unsigned d : order)
    addBits(HwDim::Register, blocked.getSizePerThread()[d], d);
  for (unsigned d : order)
    addBits(HwDim::Lane, blocked.getThreadsPerWarp()[d], d);
  for (unsigned d : order)
    addBits(HwDim::Warp, blocked.getWarpsPerCTA()[d], d);
  // A tile larger than one CTA tile repeats it: more register bits.
  for (unsigned d : order)
    while (usedBits[d] < shapeBits[d]) {
      Coord basis(rank, 0);
      basis[d] = int64_t(1) << usedBits[d]++;
      bases[static_cast<unsigned>(HwDim::Register)].push_back(basis);
    }
  return LinearLayout(shape, std::move(bases));
}

/// Drops the bits of `bases` whose coordinate falls outside `shape`: a
/// zero basis for lanes and warps (replication), no basis for registers.
static LinearLayout fitToShape(ArrayRef<int64_t> shape,
                               std::array<SmallVector<Coord>, kNumHwDims> bases) {
  std::array<SmallVector<Coord>, kNumHwDims> fitted;
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (Coord basis : bases[hw]) {
      for (unsigned d = 0; d < shape.size(); ++d)
        if (basis[d] >= shape[d])
          basis[d] = 0;
      bool zero = llvm::all_of(basis, [](int64_t v) { return v == 0; });
      if (zero && hw == static_cast<unsigned>(HwDim::Register))
        continue;
      fitted[hw].push_back(basis);
    }
  return LinearLayout(shape, std::move(fitted));
}

/// The accumulator of mma.sync.m16n8k16 fragments (MMAEncodingAttr, and
/// WarpgroupMMAEncodingAttr, whose warpgroups are 4 warps along M): register
/// bits (col+1, row+8, col+8, col+16, …) within a warp's 16 x instrN block,
/// lanes (col+2, col+4, row+1, row+2, row+4), warps (row+16, row+32, …)
/// along M then (col+instrN, …) along N, then repetitions of the CTA's
/// blocks along N then M.
static FailureOr<LinearLayout> mmaFragmentsToLinear(ArrayRef<int64_t> shape,
                                                    int64_t warpsM,
                                                    int64_t warpsN,
                                                    int64_t instrN) {
  if (shape.size() != 2)
    return failure();
  auto coord = [](int64_t row, int64_t col) { return Coord({row, col}); };
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  auto &regs = bases[static_cast<unsigned>(HwDim::Register)];
  auto &lanes = bases[static_cast<unsigned>(HwDim::Lane)];
  auto &warps = bases[static_cast<unsigned>(HwDim::Warp)];
  regs.push_back(coord(0, 1));
  regs.push_back(coord(8, 0));
  for (int64_t col = 8; col < instrN; col *= 2)
    regs.push_back(coord(0, col));
  for (Coord c : {coord(0, 2), coord(0, 4), coord(1, 0), coord(2, 0), coord(4, 0)})
    lanes.push_back(c);
  for (int64_t w = 1; w < warpsM; w *= 2)
    warps.push_back(coord(16 * w, 0));
  for (int64_t w = 1; w < warpsN; w *= 2)
    warps.push_back(coord(0, instrN * w));
  int64_t ctaM = 16 * warpsM, ctaN = instrN * warpsN;
  for (int64_t col = ctaN; col < shape[1]; col *= 2)
    regs.push_back(coord(0, col));
  for (int64_t row = ctaM; row < shape[0]; row *= 2)
    regs.push_back(coord(row, 0));
  return fitToShape(shape, std::move(bases));
}

static FailureOr<LinearLayout> sliceToLinear(ArrayRef<int64_t> shape,
                                             SliceEncodingAttr slice) {
  unsigned dim = slice.getDim();
  if (dim > shape.size())
    return failure();
  // The parent on a tile of extent 1 along `dim`: every basis along `dim`
  // becomes zero (lanes/warps replicate, registers drop out).
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + dim, 1);
  FailureOr<LinearLayout> parent = toLinearLayout(parentShape, slice.getParent());
  if (failed(parent))
    return failure();
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (const Coord &basis : parent->getBases(static_cast<HwDim>(hw))) {
      Coord reduced(basis);
      reduced.erase(reduced.begin() + dim);
      bool zero = llvm::all_of(reduced, [](int64_t v) { return v == 0; });
      if (zero && hw == static_cast<unsigned>(HwDim::Register))
        continue;
      bases[hw].push_back(reduced);
    }
  return LinearLayout(shape, std::move(bases));
}

/// Row-major index bits of `coord` in a power-of-two `shape` (at most 62
/// bits in all).
static uint64_t linearBits(ArrayRef<int64_t> coord, ArrayRef<int64_t> shape) {
  uint64_t index = 0;
  for (auto [c, s] : llvm::zip(coord, shape))
    index = index * static_cast<uint64_t>(s) + static_cast<uint64_t>(c);
  return index;
}

/// Adds `v` to the GF(2) basis `pivots` (indexed by leading bit); false when
/// it is already in their span.
static bool addToSpan(SmallVectorImpl<uint64_t> &pivots, uint64_t v) {
  for (int bit = 63; bit >= 0 && v; --bit) {
    if (!(v >> bit & 1))
      continue;
    if (!pivots[bit]) {
      pivots[bit] = v;
      return true;
    }
    v ^= pivots[bit];
  }
  return false;
}

static FailureOr<LinearLayout> linearToLinear(ArrayRef<int64_t> shape,
                                              LinearEncodingAttr linear) {
  unsigned rank = linear.getRank();
  if (shape.size() != rank)
    return failure();
  int64_t numel = 1;
  for (int64_t s : shape) {
    if (!llvm::isPowerOf2_64(s))
      return failure();
    numel *= s;
  }
  if (numel > (int64_t(1) << 62))
    return failure();
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  SmallVector<uint64_t> span(64, 0), registerSpan(64, 0);
  for (unsigned hw = 0; hw < kNumHwDims; ++hw) {
    ArrayRef<int64_t> flat = linear.getFlatBases(hw);
    for (size_t i = 0; i < flat.size(); i += rank) {
      // Coordinate bits past the tile's extent drop out (a smaller tile of
      // the same rank: a broadcast source, a slice's parent).
      Coord basis(rank);
      for (unsigned d = 0; d < rank; ++d)
        basis[d] = flat[i + d] & (shape[d] - 1);
      uint64_t bits = linearBits(basis, shape);
      addToSpan(span, bits);
      // A register slot that repeats another's element drops out.
      if (hw == static_cast<unsigned>(HwDim::Register) &&
          !addToSpan(registerSpan, bits))
        continue;
      bases[hw].push_back(basis);
    }
  }
  // Every element of the tile must be held by some thread.
  unsigned reached = llvm::count_if(span, [](uint64_t v) { return v != 0; });
  if (reached != llvm::Log2_64(static_cast<uint64_t>(numel)))
    return failure();
  return LinearLayout(shape, std::move(bases));
}

FailureOr<LinearLayout> tilec::tilegpu::toLinearLayout(ArrayRef<int64_t> shape,
                                                       Attribute encoding) {
  if (auto blocked = dyn_cast_if_present<BlockedEncodingAttr>(encoding))
    return blockedToLinear(shape, blocked);
  if (auto slice = dyn_cast_if_present<SliceEncodingAttr>(encoding))
    return sliceToLinear(shape, slice);
  if (auto linear = dyn_cast_if_present<LinearEncodingAttr>(encoding))
    return linearToLinear(shape, linear);
  if (auto mma = dyn_cast_if_present<WarpgroupMMAEncodingAttr>(encoding))
    return mmaFragmentsToLinear(shape, mma.getWarpsPerCTA()[0],
                                mma.getWarpsPerCTA()[1], mma.getInstrN());
  if (auto mma = dyn_cast_if_present<MMAEncodingAttr>(encoding))
    return mmaFragmentsToLinear(shape, mma.getWarpsPerCTA()[0],
                                mma.getWarpsPerCTA()[1], mma.getInstrN());
  return failure();
}

std::optional<SmallVector<int64_t>> tilec::tilegpu::getRegisterMapping(
    const LinearLayout &src, const LinearLayout &dst,
    function_ref<Coord(ArrayRef<int64_t>)> dstToSrc) {
  for (HwDim hw : {HwDim::Lane, HwDim::Warp}) {
    ArrayRef<Coord> dstBases = dst.getBases(hw), srcBases = src.getBases(hw);
    if (dstBases.size() != srcBases.size())
      return std::nullopt;
    for (auto [d, s] : llvm::zip(dstBases, srcBases))
      if (dstToSrc(d) != s)
        return std::nullopt;
  }
  DenseMap<int64_t, int64_t> srcSlotOf;
  for (int64_t r = 0, e = src.getNumRegisters(); r < e; ++r)
    srcSlotOf.try_emplace(src.linearize(src.applyOne(HwDim::Register, r)), r);
  SmallVector<int64_t> mapping;
  for (int64_t r = 0, e = dst.getNumRegisters(); r < e; ++r) {
    Coord c = dstToSrc(dst.applyOne(HwDim::Register, r));
    auto it = srcSlotOf.find(src.linearize(c));
    if (it == srcSlotOf.end())
      return std::nullopt;
    mapping.push_back(it->second);
  }
  return mapping;
}

std::optional<SmallVector<int64_t>>
tilec::tilegpu::getRegisterMapping(const LinearLayout &src,
                                   const LinearLayout &dst) {
  return getRegisterMapping(src, dst, [](ArrayRef<int64_t> c) {
    return Coord(c.begin(), c.end());
  });
}

int64_t tilec::tilegpu::getRegisterRun(const LinearLayout &layout,
                                       unsigned dim) {
  int64_t run = 1;
  for (const Coord &basis : layout.getBases(HwDim::Register)) {
    Coord step(layout.getRank(), 0);
    step[dim] = run;
    if (basis != step)
      break;
    run *= 2;
  }
  return run;
}

Coord tilec::tilegpu::reshapeCoord(ArrayRef<int64_t> coord,
                                   ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
  uint64_t index = linearBits(coord, from);
  Coord result(to.size(), 0);
  for (int d = static_cast<int>(to.size()) - 1; d >= 0; --d) {
    result[d] = index % to[d];
    index /= to[d];
  }
  return result;
}

LinearLayout tilec::tilegpu::reshapeLayout(const LinearLayout &layout,
                                           ArrayRef<int64_t> shape) {
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (const Coord &basis : layout.getBases(static_cast<HwDim>(hw)))
      bases[hw].push_back(reshapeCoord(basis, layout.getShape(), shape));
  return LinearLayout(shape, std::move(bases));
}

std::optional<SmallVector<int64_t>>
tilec::tilegpu::getReshapeRegisterMapping(const LinearLayout &src,
                                          const LinearLayout &dst) {
  ArrayRef<int64_t> from = dst.getShape(), to = src.getShape();
  return getRegisterMapping(src, dst, [&](ArrayRef<int64_t> c) {
    return reshapeCoord(c, from, to);
  });
}

LinearEncodingAttr tilec::tilegpu::getLinearEncoding(MLIRContext *context,
                                                     const LinearLayout &layout) {
  SmallVector<int64_t> flat[kNumHwDims];
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (const Coord &basis : layout.getBases(static_cast<HwDim>(hw)))
      flat[hw].append(basis.begin(), basis.end());
  return LinearEncodingAttr::get(context, layout.getRank(), flat[0], flat[1],
                                 flat[2]);
}

LinearLayout tilec::tilegpu::applySwap(const LinearLayout &layout,
                                       LaneRegisterSwap swap) {
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    bases[hw].assign(layout.getBases(static_cast<HwDim>(hw)).begin(),
                     layout.getBases(static_cast<HwDim>(hw)).end());
  std::swap(bases[unsigned(HwDim::Register)][swap.reg],
            bases[unsigned(HwDim::Lane)][swap.lane]);
  return LinearLayout(layout.getShape(), std::move(bases));
}

static bool isZero(ArrayRef<int64_t> basis) {
  return llvm::all_of(basis, [](int64_t v) { return v == 0; });
}

std::optional<SmallVector<LaneRegisterSwap>>
tilec::tilegpu::getLaneRegisterSwaps(const LinearLayout &src,
                                     const LinearLayout &dst) {
  if (src.getShape() != dst.getShape() ||
      src.getBases(HwDim::Warp) != dst.getBases(HwDim::Warp) ||
      src.getNumBits(HwDim::Lane) != dst.getNumBits(HwDim::Lane) ||
      src.getNumBits(HwDim::Register) != dst.getNumBits(HwDim::Register))
    return std::nullopt;
  SmallVector<LaneRegisterSwap> swaps;
  LinearLayout current = src;
  for (unsigned lane = 0, e = dst.getNumBits(HwDim::Lane); lane < e; ++lane) {
    const Coord &wanted = dst.getBases(HwDim::Lane)[lane];
    if (current.getBases(HwDim::Lane)[lane] == wanted)
      continue;
    if (isZero(wanted))
      return std::nullopt;
    ArrayRef<Coord> regs = current.getBases(HwDim::Register);
    const auto *it = llvm::find(regs, wanted);
    if (it == regs.end())
      return std::nullopt;
    LaneRegisterSwap swap{static_cast<unsigned>(it - regs.begin()), lane};
    current = applySwap(current, swap);
    swaps.push_back(swap);
  }
  if (!getRegisterMapping(current, dst))
    return std::nullopt;
  return swaps;
}

unsigned tilec::tilegpu::getSwapPackBits(const LinearLayout &src,
                                         ArrayRef<LaneRegisterSwap> swaps,
                                         unsigned elementBits) {
  unsigned lowestSwapped = src.getNumBits(HwDim::Register);
  for (LaneRegisterSwap swap : swaps)
    lowestSwapped = std::min(lowestSwapped, swap.reg);
  unsigned packBits = 0;
  while (packBits < lowestSwapped && (elementBits << (packBits + 1)) <= 32)
    ++packBits;
  return packBits;
}

std::optional<SmallVector<LaneRegisterSwap>>
tilec::tilegpu::getCheapLaneRegisterSwaps(const LinearLayout &src,
                                          const LinearLayout &dst,
                                          unsigned elementBits) {
  std::optional<SmallVector<LaneRegisterSwap>> swaps =
      getLaneRegisterSwaps(src, dst);
  if (!swaps)
    return std::nullopt;
  int64_t elements = src.getNumRegisters();
  int64_t words = elements * std::max<int64_t>(1, elementBits / 32) >>
                  getSwapPackBits(src, *swaps, elementBits);
  // Each butterfly moves half of the words.
  if (int64_t(swaps->size()) * words / 2 > elements)
    return std::nullopt;
  return swaps;
}

LinearLayout tilec::tilegpu::gatherRegisterRun(const LinearLayout &layout,
                                               unsigned dim, int64_t run) {
  auto step = [&](int64_t value) {
    Coord c(layout.getRank(), 0);
    c[dim] = value;
    return c;
  };
  auto isStep = [&](const Coord &basis) {
    return llvm::all_of(llvm::seq<unsigned>(0, basis.size()), [&](unsigned d) {
      return d == dim ? llvm::isPowerOf2_64(basis[d]) : basis[d] == 0;
    });
  };
  // The steps of the run, each a register basis after the exchanges.
  SmallVector<Coord> steps;
  for (int64_t value = 1; value < run && value < layout.getShape()[dim];
       value *= 2)
    steps.push_back(step(value));
  auto isRunStep = [&](const Coord &basis) {
    return llvm::is_contained(steps, basis);
  };
  LinearLayout current = layout;
  unsigned kept = 0;
  for (const Coord &wanted : steps) {
    ArrayRef<Coord> regs = current.getBases(HwDim::Register);
    if (llvm::is_contained(regs, wanted)) {
      ++kept;
      continue;
    }
    ArrayRef<Coord> lanes = current.getBases(HwDim::Lane);
    const auto *lane = llvm::find(lanes, wanted);
    if (lane == lanes.end())
      break;
    // The register basis to give the lane: the smallest step along `dim`
    // that is not part of the run. Only steps along `dim` move, so the
    // layout's slices along `dim` stay what they were.
    std::optional<unsigned> give;
    for (auto [i, basis] : llvm::enumerate(regs))
      if (!isRunStep(basis) && isStep(basis) &&
          (!give || basis[dim] < regs[*give][dim]))
        give = i;
    if (!give)
      break;
    current = applySwap(current, {*give, static_cast<unsigned>(lane - lanes.begin())});
    ++kept;
  }
  // Registers: the run's steps first, in order, then the rest as they were.
  SmallVector<Coord> regs;
  ArrayRef<Coord> old = current.getBases(HwDim::Register);
  for (unsigned i = 0; i < kept; ++i)
    regs.push_back(steps[i]);
  for (const Coord &basis : old)
    if (!llvm::is_contained(ArrayRef<Coord>(regs).take_front(kept), basis))
      regs.push_back(basis);
  std::array<SmallVector<Coord>, kNumHwDims> bases;
  bases[unsigned(HwDim::Register)] = std::move(regs);
  for (HwDim hw : {HwDim::Lane, HwDim::Warp})
    bases[unsigned(hw)].assign(current.getBases(hw).begin(),
                               current.getBases(hw).end());
  return LinearLayout(layout.getShape(), std::move(bases));
}

/// Whether only register slots of `layout` address bit `bit` of dimension
/// `dim` (no lane or warp basis sets it).
static bool isRegisterBit(const LinearLayout &layout, unsigned dim,
                          unsigned bit) {
  for (HwDim hw : {HwDim::Lane, HwDim::Warp})
    for (const Coord &basis : layout.getBases(hw))
      if ((basis[dim] >> bit) & 1)
        return false;
  return true;
}

int64_t ExchangeRounds::getRound(int64_t value, ArrayRef<unsigned> bits) {
  int64_t round = 0;
  for (auto [j, bit] : llvm::enumerate(bits))
    round |= ((value >> bit) & 1) << j;
  return round;
}

ExchangeRounds tilec::tilegpu::getExchangeRounds(const LinearLayout &src,
                                                 unsigned srcDim,
                                                 const LinearLayout &dst,
                                                 unsigned dstDim,
                                                 int64_t bytes) {
  ExchangeRounds rounds;
  int srcBits = llvm::Log2_64(src.getShape()[srcDim]);
  int dstBits = llvm::Log2_64(dst.getShape()[dstDim]);
  for (int bit = srcBits - 1; bit >= 0 && (bytes >> rounds.getNumBits()) >
                                              kMaxExchangeBytes;
       --bit) {
    int dstBit = bit - srcBits + dstBits;
    if (dstBit < 0 || dstBit >= dstBits || !isRegisterBit(src, srcDim, bit) ||
        !isRegisterBit(dst, dstDim, dstBit))
      continue;
    rounds.srcBits.push_back(bit);
    rounds.dstBits.push_back(dstBit);
  }
  return rounds;
}
