//===- ScanOpToLLVM.cpp - inclusive scans along one axis ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tile.scan with the structure of Triton's ScanOpToLLVM.cpp, on a layout in
// which the scanned axis is split, from its low bits up, into register bits,
// then lane bits, then warp bits, then register bits again (each a pure
// power of two of the axis). The high register bits number the chunks of
// the axis: a blocked layout with 4 elements per thread covers 4 x 32 x
// warps elements and repeats, so a 4096-element row on 4 warps is 8
// chunks of 512. Steps 1-4 scan every chunk on its own:
//
//  1. each thread scans its consecutive elements of every line (the
//     elements that differ only along the axis) in every chunk
//     sequentially in registers;
//  2. the lanes along the axis scan the thread totals with a Hillis-Steele
//     scan of log2(lanes) `shfl.sync.idx` steps (PTX ISA §9.7.8.6), then
//     take the total of the lanes before them with one more shuffle;
//  3. the last lane of every warp writes the warp's totals to shared memory
//     (one pass), a barrier, and every thread combines the totals of the
//     warps before it;
//  4. every element is combined with the prefix of the elements before its
//     thread in its chunk;
//  5. the chunks, in scan order, carry the total of the chunks before them
//     (the chunk totals come with the warps' totals of step 3, or with one
//     more shuffle when no warps are along the axis).
//
// O(N / threads + chunks x log N) combines per thread: a 4096-element scan
// is a few hundred instructions, and the tile stays in its layout (the
// loads' and stores' vectorized one). A tile in any other layout is first
// moved (through shared memory) into a layout with one chunk
// (buildScanLayout; which layouts are taken in place is ScanLayout.h's
// analyzeScanAxis, which also sizes the scratch) and moved back
// afterwards. `reverse` scans from the last element: positions along the
// axis are mirrored and the running value of the later elements is the
// combine region's first argument (Triton's flip-scan-flip semantics).
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/ScanLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

struct ScanOpLowering : OpConversionPattern<tile::ScanOp> {
  ScanOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                 LoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  using Values = SmallVector<Value>; // one per source

  /// Combines two sets of values (one per source) with the region.
  static Values combine(OpBuilder &b, tile::ScanOp op, ArrayRef<Value> lhs,
                        ArrayRef<Value> rhs) {
    Block &body = op.getCombineOp().front();
    IRMapping mapping;
    unsigned n = lhs.size();
    for (unsigned i = 0; i < n; ++i) {
      mapping.map(body.getArgument(i), lhs[i]);
      mapping.map(body.getArgument(n + i), rhs[i]);
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    Values results;
    for (Value v : body.getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(v));
    return results;
  }

  static Values select(OpBuilder &b, Location loc, Value cond,
                       ArrayRef<Value> t, ArrayRef<Value> f) {
    Values results;
    for (auto [x, y] : llvm::zip(t, f))
      results.push_back(arith::SelectOp::create(b, loc, cond, x, y));
    return results;
  }

  /// The bits `bits` of `index` gathered into an integer (bit j of the
  /// result is bit bits[j] of the index).
  static Value extractBits(OpBuilder &b, Location loc, Value index,
                           ArrayRef<unsigned> bits) {
    Value result = i32Val(b, loc, 0);
    for (auto [j, bit] : llvm::enumerate(bits)) {
      Value v = arith::ShRUIOp::create(b, loc, index, i32Val(b, loc, bit));
      v = arith::AndIOp::create(b, loc, v, i32Val(b, loc, 1));
      if (j)
        v = arith::ShLIOp::create(b, loc, v, i32Val(b, loc, j));
      result = arith::OrIOp::create(b, loc, result, v);
    }
    return result;
  }

  /// The inverse of extractBits over `bits`.
  static Value depositBits(OpBuilder &b, Location loc, Value value,
                           ArrayRef<unsigned> bits) {
    Value result = i32Val(b, loc, 0);
    for (auto [j, bit] : llvm::enumerate(bits)) {
      Value v = arith::ShRUIOp::create(b, loc, value, i32Val(b, loc, j));
      v = arith::AndIOp::create(b, loc, v, i32Val(b, loc, 1));
      v = arith::ShLIOp::create(b, loc, v, i32Val(b, loc, bit));
      result = arith::OrIOp::create(b, loc, result, v);
    }
    return result;
  }

  /// `value` or, with `reverse`, its mirror `count - 1 - value`.
  static Value mirror(OpBuilder &b, Location loc, Value value, int64_t count,
                      bool reverse) {
    if (!reverse)
      return value;
    return arith::SubIOp::create(b, loc, i32Val(b, loc, count - 1), value);
  }

  /// The index of each segment's line (its first slot's coordinate with
  /// the axis dropped, row-major over the other dimensions).
  static SmallVector<Value> emitLineIndices(OpBuilder &b, Location loc,
                                            const LinearLayout &layout,
                                            const ThreadIndices &ids,
                                            unsigned axis,
                                            ArrayRef<int64_t> firstSlots) {
    auto coords = emitCoordinates(b, loc, layout, ids);
    SmallVector<int64_t> lineShape(layout.getShape());
    lineShape[axis] = 1;
    SmallVector<Value> lines;
    for (int64_t slot : firstSlots) {
      SmallVector<Value> c = coords[slot];
      c[axis] = i32Val(b, loc, 0);
      lines.push_back(emitLinearIndex(b, loc, c, lineShape));
    }
    return lines;
  }

  /// Inclusive scans of `numSegments` sequences of `length` values each
  /// (powers of two) that `read(segment, j)` gives, written back through
  /// `write(segment, j, values)`, by all `numThreads` threads at once:
  /// each takes a run of consecutive values of one segment (as many as
  /// spread the values over the threads, at least length / 32 so that a
  /// segment's runs fit a warp); the runs of a segment combine their
  /// totals with a Hillis-Steele scan of `shfl.sync.idx` across their
  /// lanes, then each run is scanned after the total of the runs before
  /// it. `elementTypes` are the register types of one value per source.
  void scanSegments(
      ConversionPatternRewriter &rewriter, tile::ScanOp op,
      const ThreadIndices &ids, int64_t numThreads, int64_t numSegments,
      int64_t length, ArrayRef<Type> elementTypes,
      function_ref<Values(OpBuilder &, Value, Value)> read,
      function_ref<void(OpBuilder &, Value, Value, ArrayRef<Value>)> write)
      const {
    int64_t runLength = std::min<int64_t>(
        length, std::max<int64_t>({int64_t(1),
                                   numSegments * length / numThreads,
                                   length / 32}));
    int64_t runsPerSegment = length / runLength;
    int64_t numRuns = numSegments * runsPerSegment;
    // More runs than threads (then each is a whole segment, and the
    // counts are powers of two): each thread takes runs t, t + threads, ...
    for (int64_t first = 0; first < std::max(numRuns, numThreads);
         first += numThreads)
      scanRun(rewriter, op, ids, first, numThreads, numRuns, runLength,
              runsPerSegment, elementTypes, read, write);
  }

  /// scanSegments' work on run `firstRun` + this thread (of `numRuns`
  /// runs of `runLength` values, `runsPerSegment` to a segment).
  void scanRun(ConversionPatternRewriter &rewriter, tile::ScanOp op,
               const ThreadIndices &ids, int64_t firstRun, int64_t numThreads,
               int64_t numRuns, int64_t runLength, int64_t runsPerSegment,
               ArrayRef<Type> elementTypes,
               function_ref<Values(OpBuilder &, Value, Value)> read,
               function_ref<void(OpBuilder &, Value, Value, ArrayRef<Value>)>
                   write) const {
    Location loc = op.getLoc();
    auto c32 = [&](int64_t v) { return i32Val(rewriter, loc, v); };
    Value run = firstRun ? arith::AddIOp::create(rewriter, loc, ids.thread,
                                                 c32(firstRun))
                                  .getResult()
                         : ids.thread;
    Value active;
    if (numRuns < numThreads) {
      active = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                     run, c32(numRuns));
      run = arith::MinUIOp::create(rewriter, loc, run, c32(numRuns - 1));
    }
    Value segment = arith::DivUIOp::create(rewriter, loc, run,
                                           c32(runsPerSegment));
    Value member = arith::RemUIOp::create(rewriter, loc, run,
                                          c32(runsPerSegment));
    Value first = arith::MulIOp::create(rewriter, loc, member, c32(runLength));
    auto readAt = [&](OpBuilder &b, int64_t i) {
      return read(b, segment,
                  arith::AddIOp::create(b, loc, first, i32Val(b, loc, i)));
    };
    // With several runs to a segment: each run's total first (threads
    // beyond the runs read nothing, as their run's owner may be writing
    // it, and scan zeros among themselves), then its lanes' scan.
    Value hasPrefix;
    Values prefix;
    if (runsPerSegment > 1) {
      auto runTotal = [&](OpBuilder &b) {
        Values total = readAt(b, 0);
        for (int64_t i = 1; i < runLength; ++i)
          total = combine(b, op, total, readAt(b, i));
        return total;
      };
      Values total;
      if (active) {
        auto ifOp = scf::IfOp::create(rewriter, loc, elementTypes, active,
                                      /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(rewriter, loc, runTotal(rewriter));
        rewriter.setInsertionPointToStart(ifOp.elseBlock());
        SmallVector<Value> zeros;
        for (Type type : elementTypes)
          zeros.push_back(arith::ConstantOp::create(
              rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(type))));
        scf::YieldOp::create(rewriter, loc, zeros);
        total.assign(ifOp.getResults().begin(), ifOp.getResults().end());
      } else {
        total = runTotal(rewriter);
      }
      // The runs of a segment are consecutive lanes of one warp.
      auto fromLane = [&](int64_t distance, Value valid) -> Value {
        Value from = arith::SubIOp::create(rewriter, loc, ids.lane,
                                           c32(distance));
        return arith::SelectOp::create(rewriter, loc, valid, from, ids.lane);
      };
      auto shuffle = [&](ArrayRef<Value> v, Value lane) {
        Values out;
        for (Value x : v)
          out.push_back(emitShuffleIdx(rewriter, loc, x, lane));
        return out;
      };
      for (int64_t step = 1; step < runsPerSegment; step <<= 1) {
        Value valid = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::uge, member, c32(step));
        Values partner = shuffle(total, fromLane(step, valid));
        total = select(rewriter, loc, valid,
                       combine(rewriter, op, partner, total), total);
      }
      hasPrefix = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ugt, member, c32(0));
      prefix = shuffle(total, fromLane(1, hasPrefix));
    }
    // Then the run again, value by value after the runs before it (few
    // values live at a time: the thread may hold a large tile).
    OpBuilder::InsertionGuard guard(rewriter);
    if (active) {
      auto ifOp = scf::IfOp::create(rewriter, loc, active, /*withElse=*/false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    Values running;
    for (int64_t i = 0; i < runLength; ++i) {
      Values v = readAt(rewriter, i);
      if (i)
        running = combine(rewriter, op, running, v);
      else if (hasPrefix)
        running = select(rewriter, loc, hasPrefix,
                         combine(rewriter, op, prefix, v), v);
      else
        running = v;
      write(rewriter, segment, arith::AddIOp::create(rewriter, loc, first, c32(i)),
            running);
    }
  }

  /// Steps 2-5 for a scan of many chunks (ScanAxis::usesChunkTable):
  /// every thread writes the total of each of its segments (a line's
  /// chunk) into a table in shared memory, one row per line and chunk and
  /// one column per thread position along the axis; all threads scan the
  /// rows in place, then each line's row totals into the chunk totals
  /// (scanSegments); every segment then combines the total of the chunks
  /// before it and of the positions before it in its row. About ten
  /// instructions a segment where the shuffle steps take some forty.
  void scanThroughChunkTable(ConversionPatternRewriter &rewriter,
                             tile::ScanOp op, const LinearLayout &layout,
                             const ScanAxis &scanAxis,
                             ArrayRef<int64_t> firstSlots,
                             ArrayRef<int64_t> chunkOf,
                             ArrayRef<SmallVector<int64_t>> segmentSlots,
                             ArrayRef<Values> totals,
                             MutableArrayRef<Values> scanned) const {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    bool reverse = op.getReverse();
    ArrayRef<int64_t> shape = layout.getShape();
    int64_t numChunks = scanAxis.getNumChunks();
    int64_t numPositions = scanAxis.getNumPositions();
    int64_t numLines = ShapedType::getNumElements(shape) / shape[axis];
    int64_t numRows = numLines * numChunks;
    int64_t numThreads = layout.getNumLanes() * layout.getNumWarps();

    // Per source: the table (numRows x numPositions), then the inclusive
    // totals of each line's chunks (numRows).
    SmallVector<int64_t> tableOffsets, chunkOffsets;
    SmallVector<Type> types;
    int64_t bytes = 0;
    for (Value v : totals.front()) {
      int64_t elementBytes = getStorageBytes(v.getType());
      types.push_back(v.getType());
      tableOffsets.push_back(bytes);
      chunkOffsets.push_back(bytes + numRows * numPositions * elementBytes);
      bytes = llvm::alignTo(
          bytes + scanAxis.getScratchElements(numLines) * elementBytes, 8);
    }
    state.requireScratch(op, bytes);

    auto c32 = [&](int64_t v) { return i32Val(rewriter, loc, v); };
    auto add = [&](OpBuilder &b, Value x, Value y) -> Value {
      return arith::AddIOp::create(b, loc, x, y);
    };
    auto mul = [&](OpBuilder &b, Value x, int64_t y) -> Value {
      return arith::MulIOp::create(b, loc, x, i32Val(b, loc, y));
    };
    auto load = [&](OpBuilder &b, ArrayRef<int64_t> offsets, Value index) {
      Values v;
      for (auto [offset, type] : llvm::zip(offsets, types))
        v.push_back(loadSharedElement(b, loc, op, offset, index, type));
      return v;
    };
    auto store = [&](OpBuilder &b, ArrayRef<int64_t> offsets, Value index,
                     ArrayRef<Value> v) {
      for (auto [offset, value] : llvm::zip(offsets, v))
        storeSharedElement(b, loc, op, offset, index, value);
    };
    // The table's entry of row `row` (a line's chunk) and column `column`.
    auto entry = [&](OpBuilder &b, Value row, Value column) {
      return add(b, mul(b, row, numPositions), column);
    };
    // This thread's position along the axis in scan order, and each
    // segment's row: its line, then its chunk (in scan order).
    ThreadIndices ids = getThreadIndices(rewriter, loc);
    Value position = c32(0);
    if (!scanAxis.warpBits.empty())
      position = mul(rewriter,
                     mirror(rewriter, loc,
                            extractBits(rewriter, loc, ids.warp,
                                        scanAxis.warpBits),
                            scanAxis.getNumWarps(), reverse),
                     numPositions / scanAxis.getNumWarps());
    if (!scanAxis.laneBits.empty())
      position = add(rewriter, position,
                     mirror(rewriter, loc,
                            extractBits(rewriter, loc, ids.lane,
                                        scanAxis.laneBits),
                            numPositions / scanAxis.getNumWarps(), reverse));
    SmallVector<Value> rows;
    for (auto [segment, line] : llvm::enumerate(
             emitLineIndices(rewriter, loc, layout, ids, axis, firstSlots)))
      rows.push_back(add(rewriter, mul(rewriter, line, numChunks),
                         c32(chunkOf[segment])));

    // The thread totals into the table (one owner per replicated element).
    emitBarrier(rewriter, loc, op);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      if (layout.getReplicatedMask(HwDim::Lane) ||
          layout.getReplicatedMask(HwDim::Warp)) {
        auto ifOp = scf::IfOp::create(
            rewriter, loc, emitIsOwner(rewriter, loc, layout, ids),
            /*withElse=*/false);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      for (auto [row, total] : llvm::zip(rows, totals))
        store(rewriter, tableOffsets, entry(rewriter, row, position), total);
    }
    emitBarrier(rewriter, loc, op);
    // Each row scanned in place (inclusive), then each line's row totals
    // (the rows' last entries) into the chunk totals.
    scanSegments(rewriter, op, ids, numThreads, numRows, numPositions, types,
                 [&](OpBuilder &b, Value row, Value j) {
                   return load(b, tableOffsets, entry(b, row, j));
                 },
                 [&](OpBuilder &b, Value row, Value j, ArrayRef<Value> v) {
                   store(b, tableOffsets, entry(b, row, j), v);
                 });
    emitBarrier(rewriter, loc, op);
    scanSegments(rewriter, op, ids, numThreads, numLines, numChunks, types,
                 [&](OpBuilder &b, Value line, Value c) {
                   Value row = add(b, mul(b, line, numChunks), c);
                   return load(b, tableOffsets,
                               entry(b, row, i32Val(b, loc, numPositions - 1)));
                 },
                 [&](OpBuilder &b, Value line, Value c, ArrayRef<Value> v) {
                   store(b, chunkOffsets, add(b, mul(b, line, numChunks), c), v);
                 });
    emitBarrier(rewriter, loc, op);

    // Every segment after the chunks and the positions before it.
    Value hasPosition = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sgt, position, c32(0));
    Value before = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, position, c32(1)),
        c32(0));
    for (auto [segment, row] : llvm::enumerate(rows)) {
      Values positions =
          load(rewriter, tableOffsets, entry(rewriter, row, before));
      Values prefix = positions;
      if (chunkOf[segment] > 0) {
        Values chunks = load(rewriter, chunkOffsets,
                             arith::SubIOp::create(rewriter, loc, row, c32(1)));
        prefix = select(rewriter, loc, hasPosition,
                        combine(rewriter, op, chunks, positions), chunks);
      }
      for (int64_t slot : segmentSlots[segment]) {
        Values combined = combine(rewriter, op, prefix, scanned[slot]);
        scanned[slot] = chunkOf[segment] > 0
                            ? combined
                            : select(rewriter, loc, hasPosition, combined,
                                     scanned[slot]);
      }
    }
  }

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    bool reverse = op.getReverse();
    unsigned numSrcs = op.getSrcs().size();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    ArrayRef<int64_t> shape = srcType.getShape();
    for (int64_t size : shape)
      if (!llvm::isPowerOf2_64(size))
        return op.emitOpError() << "scans tiles whose dimensions are powers "
                                   "of two, got "
                                << srcType;
    FailureOr<LinearLayout> srcLayout = getLayoutOf(loc, srcType);
    if (failed(srcLayout))
      return failure();

    // [source][slot], in the layout the scan works in.
    SmallVector<Values> values;
    for (ValueRange range : adaptor.getSrcs())
      values.emplace_back(range.begin(), range.end());
    LinearLayout layout = *srcLayout;
    std::optional<ScanAxis> scanAxis = analyzeScanAxis(layout, axis);
    auto linear = [&](OpBuilder &b, ArrayRef<Value> c) {
      return emitLinearIndex(b, loc, c, shape);
    };
    bool moved = !scanAxis.has_value();
    if (moved) {
      layout = buildScanLayout(shape, axis, srcLayout->getNumBits(HwDim::Warp));
      scanAxis = analyzeScanAxis(layout, axis);
      if (!scanAxis)
        return op.emitOpError("internal error: no layout to scan in");
      for (Values &v : values)
        v = exchangeThroughSharedMemory(rewriter, loc, op, state, v,
                                        *srcLayout, layout,
                                        srcType.getNumElements(), linear,
                                        linear);
    }

    // 1. Within a thread: the slots of each line's chunk (a "segment") in
    // scan order. A segment is keyed by its line's first element and its
    // chunk's first position along the axis (both fixed by the register).
    unsigned chunkShift = scanAxis->getChunkShift();
    int64_t numChunks = scanAxis->getNumChunks();
    llvm::MapVector<int64_t, SmallVector<int64_t>> lines;
    for (int64_t r = 0, e = layout.getNumRegisters(); r < e; ++r) {
      Coord c = layout.applyOne(HwDim::Register, r);
      c[axis] = (c[axis] >> chunkShift) << chunkShift;
      lines[layout.linearize(c)].push_back(r);
    }
    // Each segment's chunk (in scan order: mirrored with `reverse`) and the
    // index of its line among the thread's lines.
    SmallVector<int64_t> chunkOf, lineOf;
    llvm::MapVector<int64_t, int64_t> threadLines;
    for (auto &entry : lines) {
      Coord c = layout.applyOne(HwDim::Register, entry.second.front());
      int64_t chunk = c[axis] >> chunkShift;
      chunkOf.push_back(reverse ? numChunks - 1 - chunk : chunk);
      c[axis] = 0;
      auto inserted =
          threadLines.insert({layout.linearize(c), threadLines.size()});
      lineOf.push_back(inserted.first->second);
    }
    auto slotValues = [&](int64_t slot) {
      Values v;
      for (unsigned i = 0; i < numSrcs; ++i)
        v.push_back(values[i][slot]);
      return v;
    };
    SmallVector<Values> scanned(layout.getNumRegisters());
    SmallVector<Values> totals; // [line]: the thread's inclusive total
    SmallVector<int64_t> firstSlots;
    for (auto &[key, slots] : lines) {
      llvm::sort(slots, [&](int64_t x, int64_t y) {
        return layout.applyOne(HwDim::Register, x)[axis] <
               layout.applyOne(HwDim::Register, y)[axis];
      });
      if (reverse)
        std::reverse(slots.begin(), slots.end());
      Values acc = slotValues(slots.front());
      scanned[slots.front()] = acc;
      for (int64_t slot : ArrayRef<int64_t>(slots).drop_front()) {
        acc = combine(rewriter, op, acc, slotValues(slot));
        scanned[slot] = acc;
      }
      totals.push_back(acc);
      firstSlots.push_back(slots.front());
    }
    auto replace = [&]() {
      SmallVector<Values> results(numSrcs);
      for (const Values &slot : scanned)
        for (unsigned i = 0; i < numSrcs; ++i)
          results[i].push_back(slot[i]);
      if (moved)
        for (Values &v : results)
          v = exchangeThroughSharedMemory(rewriter, loc, op, state, v, layout,
                                          *srcLayout, srcType.getNumElements(),
                                          linear, linear);
      SmallVector<ValueRange> ranges(results.begin(), results.end());
      rewriter.replaceOpWithMultiple(op, ranges);
      return success();
    };
    if (scanAxis->usesChunkTable()) {
      SmallVector<SmallVector<int64_t>> segmentSlots;
      for (auto &entry : lines)
        segmentSlots.push_back(entry.second);
      scanThroughChunkTable(rewriter, op, layout, *scanAxis, firstSlots,
                            chunkOf, segmentSlots, totals, scanned);
      return replace();
    }

    // [segment]: its chunk's total over the whole axis, for step 5 (chunks
    // come after lane or warp bits, so steps 2 or 3 fill it).
    SmallVector<Values> chunkTotals;

    ThreadIndices ids = getThreadIndices(rewriter, loc);
    auto cmp = [&](arith::CmpIPredicate pred, Value x, int64_t y) -> Value {
      return arith::CmpIOp::create(rewriter, loc, pred, x,
                                   i32Val(rewriter, loc, y));
    };

    // 2. Across the lanes along the axis.
    ArrayRef<unsigned> laneBits = scanAxis->laneBits;
    int64_t numLanes = int64_t(1) << laneBits.size();
    Value hasLanePrefix, isLastLane;
    SmallVector<Values> lanePrefix;
    if (!laneBits.empty()) {
      Value position = mirror(rewriter, loc,
                              extractBits(rewriter, loc, ids.lane, laneBits),
                              numLanes, reverse);
      uint32_t axisMask = 0;
      for (unsigned bit : laneBits)
        axisMask |= 1u << bit;
      Value others = arith::AndIOp::create(rewriter, loc, ids.lane,
                                           i32Val(rewriter, loc, static_cast<int32_t>(~axisMask)));
      // The lane at (mirrored) position `p` along the axis, in this lane's
      // line.
      auto laneAt = [&](Value p) -> Value {
        Value unmirrored = mirror(rewriter, loc, p, numLanes, reverse);
        return arith::OrIOp::create(
            rewriter, loc, others,
            depositBits(rewriter, loc, unmirrored, laneBits));
      };
      for (int64_t step = 1; step < numLanes; step <<= 1) {
        Value valid = cmp(arith::CmpIPredicate::sge, position, step);
        Value from = laneAt(arith::SubIOp::create(rewriter, loc, position,
                                                  i32Val(rewriter, loc, step)));
        for (Values &total : totals) {
          Values partner;
          for (Value v : total)
            partner.push_back(emitShuffleIdx(rewriter, loc, v, from));
          total = select(rewriter, loc, valid,
                         combine(rewriter, op, partner, total), total);
        }
      }
      Value from = laneAt(arith::SubIOp::create(rewriter, loc, position,
                                                i32Val(rewriter, loc, 1)));
      for (Values &total : totals) {
        Values prefix;
        for (Value v : total)
          prefix.push_back(emitShuffleIdx(rewriter, loc, v, from));
        lanePrefix.push_back(prefix);
      }
      if (numChunks > 1 && scanAxis->warpBits.empty()) {
        Value last = laneAt(i32Val(rewriter, loc, numLanes - 1));
        for (Values &total : totals) {
          Values chunkTotal;
          for (Value v : total)
            chunkTotal.push_back(emitShuffleIdx(rewriter, loc, v, last));
          chunkTotals.push_back(chunkTotal);
        }
      }
      hasLanePrefix = cmp(arith::CmpIPredicate::sgt, position, 0);
      isLastLane = cmp(arith::CmpIPredicate::eq, position, numLanes - 1);
    }

    // 3. Across the warps along the axis, through shared memory.
    ArrayRef<unsigned> warpBits = scanAxis->warpBits;
    Value hasWarpPrefix;
    SmallVector<Values> warpPrefix;
    if (!warpBits.empty()) {
      int64_t numWarps = int64_t(1) << warpBits.size();
      int64_t numLines = srcType.getNumElements() / shape[axis];
      SmallVector<int64_t> offsets;
      int64_t bytes = 0;
      for (Value v : totals.front()) {
        offsets.push_back(bytes);
        bytes = llvm::alignTo(bytes + numWarps * numChunks * numLines *
                                          getStorageBytes(v.getType()),
                              8);
      }
      state.requireScratch(op, bytes);
      Value position = mirror(rewriter, loc,
                              extractBits(rewriter, loc, ids.warp, warpBits),
                              numWarps, reverse);
      // Each segment's index among the tile's segments: its chunk, then
      // its line's coordinate with the axis dropped.
      SmallVector<Value> lineIndex =
          emitLineIndices(rewriter, loc, layout, ids, axis, firstSlots);
      for (auto [index, chunk] : llvm::zip(lineIndex, chunkOf))
        if (chunk)
          index = arith::AddIOp::create(rewriter, loc, index,
                                        i32Val(rewriter, loc, chunk * numLines));
      int64_t numSegments = numChunks * numLines;
      // Readers of the previous use of the scratch area must be done.
      emitBarrier(rewriter, loc, op);
      auto writeTotals = [&](OpBuilder &b) {
        Value base = arith::MulIOp::create(b, loc, position,
                                           i32Val(b, loc, numSegments));
        for (auto [line, total] : llvm::enumerate(totals)) {
          Value index = arith::AddIOp::create(b, loc, base, lineIndex[line]);
          for (auto [i, v] : llvm::enumerate(total))
            storeSharedElement(b, loc, op, offsets[i], index, v);
        }
      };
      if (isLastLane) {
        auto ifOp = scf::IfOp::create(rewriter, loc, isLastLane,
                                      /*withElse=*/false);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        writeTotals(rewriter);
      } else {
        writeTotals(rewriter);
      }
      emitBarrier(rewriter, loc, op);
      // The warps before this one, and with chunks all of them (the
      // chunk's total).
      int64_t numRead = numChunks > 1 ? numWarps : numWarps - 1;
      for (auto [line, total] : llvm::enumerate(totals)) {
        Values acc, all;
        for (int64_t k = 0; k < numRead; ++k) {
          Value index = arith::AddIOp::create(
              rewriter, loc, lineIndex[line],
              i32Val(rewriter, loc, k * numSegments));
          Values partial;
          for (auto [i, v] : llvm::enumerate(total))
            partial.push_back(loadSharedElement(rewriter, loc, op, offsets[i],
                                                index, v.getType()));
          if (numChunks > 1)
            all = k == 0 ? partial : combine(rewriter, op, all, partial);
          if (k + 1 == numWarps)
            continue;
          if (k == 0) {
            acc = partial;
            continue;
          }
          Value before = cmp(arith::CmpIPredicate::sgt, position, k);
          acc = select(rewriter, loc, before,
                       combine(rewriter, op, acc, partial), acc);
        }
        warpPrefix.push_back(acc);
        if (numChunks > 1)
          chunkTotals.push_back(all);
      }
      hasWarpPrefix = cmp(arith::CmpIPredicate::sgt, position, 0);
    }

    // 4. Every element after the prefix of the threads before it.
    for (auto [line, entry] : llvm::enumerate(lines)) {
      Values prefix;
      Value hasPrefix;
      if (hasLanePrefix && hasWarpPrefix) {
        Values both =
            combine(rewriter, op, warpPrefix[line], lanePrefix[line]);
        prefix = select(rewriter, loc, hasWarpPrefix,
                        select(rewriter, loc, hasLanePrefix, both,
                               warpPrefix[line]),
                        lanePrefix[line]);
        hasPrefix =
            arith::OrIOp::create(rewriter, loc, hasLanePrefix, hasWarpPrefix);
      } else if (hasLanePrefix) {
        prefix = lanePrefix[line];
        hasPrefix = hasLanePrefix;
      } else if (hasWarpPrefix) {
        prefix = warpPrefix[line];
        hasPrefix = hasWarpPrefix;
      } else {
        break;
      }
      for (int64_t slot : entry.second)
        scanned[slot] = select(rewriter, loc, hasPrefix,
                               combine(rewriter, op, prefix, scanned[slot]),
                               scanned[slot]);
    }

    // 5. Every chunk after the total of the chunks before it, per line.
    if (numChunks > 1) {
      // [thread line][chunk in scan order] -> segment.
      SmallVector<SmallVector<int64_t>> segments(
          threadLines.size(), SmallVector<int64_t>(numChunks, -1));
      for (unsigned segment = 0; segment < lines.size(); ++segment)
        segments[lineOf[segment]][chunkOf[segment]] = segment;
      for (ArrayRef<int64_t> chunks : segments) {
        if (llvm::is_contained(chunks, -1))
          return op.emitOpError("internal error: a thread holds part of the "
                                "chunks of a line");
        Values carry = chunkTotals[chunks.front()];
        for (int64_t segment : chunks.drop_front()) {
          for (int64_t slot : lines.begin()[segment].second)
            scanned[slot] = combine(rewriter, op, carry, scanned[slot]);
          if (segment != chunks.back())
            carry = combine(rewriter, op, carry, chunkTotals[segment]);
        }
      }
    }

    return replace();
  }

  LoweringState &state;
};

} // namespace

void lowering::populateScanOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            LoweringState &state) {
  patterns.add<ScanOpLowering>(converter, patterns.getContext(), state);
}
