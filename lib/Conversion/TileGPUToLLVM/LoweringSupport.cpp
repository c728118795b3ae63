//===- LoweringSupport.cpp - shared pieces of the tilegpu lowering --------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/TileGPU/IR/Scratch.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

/// Name of the kernel's dynamic shared memory array.
static constexpr llvm::StringLiteral kSharedMemoryName = "tilec_smem";

TileGPUTypeConverter::TileGPUTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  // Rings of tiles and mbarrier arrays: the shared-memory address of their
  // first byte; a TMA descriptor: the (generic) address of the by-value
  // kernel parameter holding it.
  addConversion([](SharedMemoryType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
  addConversion([](MBarriersType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
  addConversion([](TMADescriptorType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  addConversion([](tile::PointerType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), type.getAddressSpace());
  });
  addConversion([this](RankedTensorType type, SmallVectorImpl<Type> &results)
                    -> std::optional<LogicalResult> {
    if (!type.getEncoding())
      return failure();
    FailureOr<LinearLayout> layout =
        toLinearLayout(type.getShape(), type.getEncoding());
    if (failed(layout))
      return failure();
    results.append(layout->getNumRegisters(),
                   convertElementType(type.getElementType()));
    return success();
  });
}

Type TileGPUTypeConverter::convertElementType(Type type) const {
  if (auto ptr = dyn_cast<tile::PointerType>(type))
    return LLVM::LLVMPointerType::get(type.getContext(), ptr.getAddressSpace());
  return type;
}

FailureOr<LinearLayout> lowering::getLayoutOf(Location loc,
                                              RankedTensorType type) {
  FailureOr<LinearLayout> layout =
      toLinearLayout(type.getShape(), type.getEncoding());
  if (failed(layout))
    return emitError(loc) << "tile type " << type
                          << " has no layout the GPU lowering knows";
  return layout;
}

Value lowering::i32Val(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}

Value lowering::packWord(OpBuilder &b, Location loc, ArrayRef<Value> elements) {
  auto vec = VectorType::get({static_cast<int64_t>(elements.size())},
                             elements.front().getType());
  Value v = LLVM::UndefOp::create(b, loc, vec);
  for (auto [i, element] : llvm::enumerate(elements))
    v = LLVM::InsertElementOp::create(b, loc, v, element, i32Val(b, loc, i));
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

ThreadIndices lowering::getThreadIndices(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = arith::AndIOp::create(b, loc, tid, i32Val(b, loc, kThreadsPerWarp - 1));
  Value warp = arith::ShRUIOp::create(b, loc, tid,
                                      i32Val(b, loc, llvm::Log2_32(kThreadsPerWarp)));
  return {tid, lane, warp};
}

/// The part of dimension `d`'s coordinate that input `hw` (with index value
/// `index`) contributes, or null when it contributes nothing.
static Value emitContribution(OpBuilder &b, Location loc, ArrayRef<Coord> bases,
                              unsigned d, Value index, bool disjoint) {
  Value acc;
  for (unsigned bit = 0; bit < bases.size();) {
    int64_t v = bases[bit][d];
    if (v == 0) {
      ++bit;
      continue;
    }
    Value term;
    unsigned run = 1;
    if (llvm::isPowerOf2_64(v)) {
      // A run of bits mapping to consecutive powers of two is a bit field.
      while (bit + run < bases.size() && bases[bit + run][d] == (v << run))
        ++run;
      term = arith::ShRUIOp::create(b, loc, index, i32Val(b, loc, bit));
      term = arith::AndIOp::create(b, loc, term, i32Val(b, loc, (1 << run) - 1));
      if (v > 1)
        term = arith::ShLIOp::create(b, loc, term, i32Val(b, loc, llvm::Log2_64(v)));
    } else {
      term = arith::ShRUIOp::create(b, loc, index, i32Val(b, loc, bit));
      term = arith::AndIOp::create(b, loc, term, i32Val(b, loc, 1));
      term = arith::MulIOp::create(b, loc, term, i32Val(b, loc, v));
    }
    if (!acc)
      acc = term;
    else if (disjoint)
      acc = arith::OrIOp::create(b, loc, acc, term);
    else
      acc = arith::XOrIOp::create(b, loc, acc, term);
    bit += run;
  }
  return acc;
}

SmallVector<SmallVector<Value>>
lowering::emitCoordinates(OpBuilder &b, Location loc, const LinearLayout &layout,
                          const ThreadIndices &ids) {
  unsigned rank = layout.getRank();
  bool disjoint = layout.hasDisjointContributions();
  SmallVector<Value> threadPart(rank);
  for (unsigned d = 0; d < rank; ++d) {
    Value lane = emitContribution(b, loc, layout.getBases(HwDim::Lane), d,
                                  ids.lane, disjoint);
    Value warp = emitContribution(b, loc, layout.getBases(HwDim::Warp), d,
                                  ids.warp, disjoint);
    if (lane && warp)
      threadPart[d] = disjoint ? arith::OrIOp::create(b, loc, lane, warp).getResult()
                               : arith::XOrIOp::create(b, loc, lane, warp).getResult();
    else
      threadPart[d] = lane ? lane : warp;
  }
  SmallVector<SmallVector<Value>> coords;
  for (int64_t r = 0, e = layout.getNumRegisters(); r < e; ++r) {
    Coord regPart = layout.applyOne(HwDim::Register, r);
    SmallVector<Value> coord;
    for (unsigned d = 0; d < rank; ++d) {
      if (!threadPart[d]) {
        coord.push_back(i32Val(b, loc, regPart[d]));
      } else if (regPart[d] == 0) {
        coord.push_back(threadPart[d]);
      } else if (disjoint) {
        coord.push_back(
            arith::AddIOp::create(b, loc, threadPart[d], i32Val(b, loc, regPart[d])));
      } else {
        coord.push_back(
            arith::XOrIOp::create(b, loc, threadPart[d], i32Val(b, loc, regPart[d])));
      }
    }
    coords.push_back(std::move(coord));
  }
  return coords;
}

Value lowering::emitIsOwner(OpBuilder &b, Location loc, const LinearLayout &layout,
                            const ThreadIndices &ids, uint64_t distinctWarps) {
  Value owner = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  auto check = [&](uint64_t mask, Value index) {
    if (!mask)
      return;
    Value bits = arith::AndIOp::create(b, loc, index, i32Val(b, loc, mask));
    Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                       i32Val(b, loc, 0));
    owner = arith::AndIOp::create(b, loc, owner, zero);
  };
  check(layout.getReplicatedMask(HwDim::Lane), ids.lane);
  // Warps beyond the layout's (none today) would replicate too.
  check(layout.getReplicatedMask(HwDim::Warp) & ~distinctWarps, ids.warp);
  return owner;
}

LLVM::LLVMFuncOp lowering::getOrDeclareVprintf(OpBuilder &b, ModuleOp module) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf"))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), "vprintf",
      LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr}));
}

Value lowering::emitGlobalString(OpBuilder &b, Location loc, Operation *anchor,
                                 StringRef baseName, StringRef text) {
  auto module = anchor->getParentOfType<ModuleOp>();
  std::string name;
  for (unsigned n = 0; name.empty() || module.lookupSymbol(name); ++n)
    name = (baseName + "_" + llvm::Twine(n)).str();
  std::string value = text.str();
  value.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           b.getStringAttr(value));
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
}

Value lowering::getSharedMemoryBase(OpBuilder &b, Location loc,
                                    Operation *anchor) {
  auto module = anchor->getParentOfType<ModuleOp>();
  if (!module.lookupSymbol(kSharedMemoryName)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kSharedMemoryName, /*value=*/Attribute(),
                           /*alignment=*/1024, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), kSharedMemoryName);
}

Value lowering::getSharedMemoryAddress(OpBuilder &b, Location loc,
                                       Operation *anchor, Value offset) {
  Value base = getSharedMemoryBase(b, loc, anchor);
  if (auto scratch = anchor->getAttrOfType<IntegerAttr>(tilegpu::kScratchOffsetAttrName);
      scratch && scratch.getInt() != 0)
    offset = arith::AddIOp::create(b, loc, offset, i32Val(b, loc, scratch.getInt()));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{offset});
}

void LoweringState::requireScratch(Operation *anchor, int64_t bytes) {
  if (!anchor->hasAttr(tilegpu::kScratchOffsetAttrName)) {
    anchor->emitError() << "internal error: no scratch shared memory was "
                           "reserved for this op (tilegpu-allocate-shared)";
    failed = true;
    return;
  }
  if (int64_t reserved = tilegpu::getScratchBytes(anchor); bytes > reserved) {
    anchor->emitError() << "internal error: the lowering needs " << bytes
                        << " bytes of scratch shared memory, "
                        << "tilegpu-allocate-shared reserved " << reserved;
    failed = true;
  }
}

void lowering::emitNamedBarrier(OpBuilder &b, Location loc, Value id,
                                Value threads) {
  NVVM::BarrierOp::create(b, loc, /*res=*/Type(), id, threads,
                          /*reductionOp=*/NVVM::BarrierReductionAttr(),
                          /*reductionPredicate=*/Value());
}

void lowering::emitBarrier(OpBuilder &b, Location loc, Operation *anchor) {
  WarpSpecializeOp ws;
  bool producer = WarpSpecializeOp::isInProducer(anchor, &ws);
  if (!ws) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  int32_t id = producer ? kProducerBarrierId : kConsumerBarrierId;
  int32_t threads = producer ? static_cast<int32_t>(kThreadsPerWarp)
                             : static_cast<int32_t>(ws.getConsumerWarps() *
                                                    kThreadsPerWarp);
  Value idValue = i32Val(b, loc, id);
  Value threadsValue = i32Val(b, loc, threads);
  emitNamedBarrier(b, loc, idValue, threadsValue);
}

unsigned lowering::getLeaderThread(Operation *anchor) {
  WarpSpecializeOp ws;
  if (WarpSpecializeOp::isInProducer(anchor, &ws))
    return ws.getConsumerWarps() * kThreadsPerWarp;
  return 0;
}

/// True for the float types LLVM has no type for (fp8 e4m3 and e5m2, and
/// any other small float a tile may hold): they are kept as integers of the
/// same width in memory and in shuffles.
static bool isBitsOnlyFloat(Type type) {
  auto f = dyn_cast<FloatType>(type);
  return f && !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(f);
}

Type lowering::getStorageType(Type registerType) {
  MLIRContext *ctx = registerType.getContext();
  if (isa<LLVM::LLVMPointerType>(registerType))
    return IntegerType::get(ctx, 64);
  if (registerType.isInteger(1))
    return IntegerType::get(ctx, 8);
  if (isBitsOnlyFloat(registerType))
    return IntegerType::get(ctx, registerType.getIntOrFloatBitWidth());
  return registerType;
}

int64_t lowering::getStorageBytes(Type registerType) {
  return std::max<int64_t>(1, getStorageType(registerType).getIntOrFloatBitWidth() / 8);
}

Value lowering::toStorage(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), value);
  if (type.isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  if (isBitsOnlyFloat(type))
    return arith::BitcastOp::create(b, loc, getStorageType(type), value);
  return value;
}

Value lowering::fromStorage(OpBuilder &b, Location loc, Value stored,
                            Type registerType) {
  if (isa<LLVM::LLVMPointerType>(registerType))
    return LLVM::IntToPtrOp::create(b, loc, registerType, stored);
  if (registerType.isInteger(1))
    return arith::TruncIOp::create(b, loc, registerType, stored);
  if (isBitsOnlyFloat(registerType))
    return arith::BitcastOp::create(b, loc, registerType, stored);
  return stored;
}

/// Address of element `index` of a shared array at byte `baseOffset`.
static Value sharedElementAddress(OpBuilder &b, Location loc, Operation *anchor,
                                  int64_t baseOffset, Value index,
                                  Type storageType) {
  Value base = getSharedMemoryAddress(b, loc, anchor, i32Val(b, loc, baseOffset));
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
                             storageType, base, ValueRange{index});
}

void lowering::storeSharedElement(OpBuilder &b, Location loc, Operation *anchor,
                                  int64_t baseOffset, Value index, Value value) {
  Value stored = toStorage(b, loc, value);
  Value addr = sharedElementAddress(b, loc, anchor, baseOffset, index,
                                    stored.getType());
  LLVM::StoreOp::create(b, loc, stored, addr);
}

Value lowering::loadSharedElement(OpBuilder &b, Location loc, Operation *anchor,
                                  int64_t baseOffset, Value index,
                                  Type registerType) {
  Type storage = getStorageType(registerType);
  Value addr = sharedElementAddress(b, loc, anchor, baseOffset, index, storage);
  Value loaded = LLVM::LoadOp::create(b, loc, storage, addr);
  return fromStorage(b, loc, loaded, registerType);
}

/// `shfl.sync` of kind `kind` with lane operand `laneArg` of any register
/// value (split/widened to 32-bit words).
static Value emitShuffle(OpBuilder &b, Location loc, Value value, Value laneArg,
                         NVVM::ShflKind kind) {
  Type type = value.getType();
  auto shuffle32 = [&](Value word) -> Value {
    Value all = i32Val(b, loc, -1);
    return NVVM::ShflOp::create(b, loc, word.getType(), all, word, laneArg,
                                i32Val(b, loc, kThreadsPerWarp - 1), kind,
                                /*return_value_and_is_valid=*/UnitAttr());
  };
  if (type.isF32() || type.isInteger(32))
    return shuffle32(value);
  Value stored = toStorage(b, loc, value);
  unsigned bits = stored.getType().getIntOrFloatBitWidth();
  auto intType = b.getIntegerType(bits);
  Value asInt = stored.getType() == intType
                    ? stored
                    : arith::BitcastOp::create(b, loc, intType, stored).getResult();
  Value result;
  if (bits == 64) {
    Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), asInt);
    Value hi = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        arith::ShRUIOp::create(b, loc, asInt,
                               arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32))));
    lo = arith::ExtUIOp::create(b, loc, b.getI64Type(), shuffle32(lo));
    hi = arith::ExtUIOp::create(b, loc, b.getI64Type(), shuffle32(hi));
    hi = arith::ShLIOp::create(b, loc, hi,
                               arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)));
    result = arith::OrIOp::create(b, loc, hi, lo);
  } else {
    Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), asInt);
    result = arith::TruncIOp::create(b, loc, intType, shuffle32(wide));
  }
  if (result.getType() != stored.getType())
    result = arith::BitcastOp::create(b, loc, stored.getType(), result);
  return fromStorage(b, loc, result, type);
}

Value lowering::emitShuffleXor(OpBuilder &b, Location loc, Value value,
                               unsigned laneMask) {
  return emitShuffle(b, loc, value, i32Val(b, loc, laneMask),
                     NVVM::ShflKind::bfly);
}

Value lowering::emitShuffleIdx(OpBuilder &b, Location loc, Value value,
                               Value srcLane) {
  return emitShuffle(b, loc, value, srcLane, NVVM::ShflKind::idx);
}

Value lowering::emitLinearIndex(OpBuilder &b, Location loc,
                                ArrayRef<Value> coord, ArrayRef<int64_t> shape) {
  Value index;
  int64_t stride = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    Value term = stride == 1 ? coord[d]
                             : arith::MulIOp::create(b, loc, coord[d],
                                                     i32Val(b, loc, stride))
                                   .getResult();
    index = index ? arith::AddIOp::create(b, loc, index, term).getResult() : term;
    stride *= shape[d];
  }
  return index ? index : i32Val(b, loc, 0);
}

int64_t lowering::getRowMajorVectorWidth(const LinearLayout &layout,
                                         Type registerType) {
  // The run: register bits 0..k-1 step the row-major index by 1, 2, 4, …
  ArrayRef<Coord> registers = layout.getBases(HwDim::Register);
  unsigned run = 0;
  while (run < registers.size() &&
         layout.linearize(registers[run]) == (int64_t(1) << run))
    ++run;
  // No other bit may reach below the run (the run's start stays aligned).
  // A basis's row-major index is the OR of its dimensions' bits.
  for (unsigned hw = 0; hw < kNumHwDims; ++hw)
    for (auto [i, basis] : llvm::enumerate(layout.getBases(static_cast<HwDim>(hw)))) {
      if (hw == static_cast<unsigned>(HwDim::Register) && i < run)
        continue;
      uint64_t bits = static_cast<uint64_t>(layout.linearize(basis));
      if (bits)
        run = std::min<unsigned>(run, llvm::countr_zero(bits));
    }
  int64_t maxElements = std::max<int64_t>(1, 16 / getStorageBytes(registerType));
  return std::min<int64_t>(int64_t(1) << run, maxElements);
}

SmallVector<Value> lowering::exchangeThroughSharedMemory(
    OpBuilder &b, Location loc, Operation *anchor, LoweringState &state,
    ValueRange srcValues, const LinearLayout &srcLayout,
    const LinearLayout &dstLayout, int64_t numElements,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> srcIndex,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> dstIndex,
    int64_t srcVector, int64_t dstVector, unsigned srcDim, unsigned dstDim) {
  Type registerType = srcValues.front().getType();
  Type storage = getStorageType(registerType);
  int64_t elementBytes = getStorageBytes(registerType);
  // Rounds are chosen on the tile's own bytes (a transpose's padding
  // aside), as getScratchBytes chooses them.
  ExchangeRounds rounds = getExchangeRounds(
      srcLayout, srcDim, dstLayout, dstDim,
      ShapedType::getNumElements(srcLayout.getShape()) * elementBytes);
  state.requireScratch(anchor,
                       (numElements * elementBytes) >> rounds.getNumBits());
  ThreadIndices ids = getThreadIndices(b, loc);

  // Each slot's round, which only its register slot decides. An element
  // travels with the round bits removed from its coordinate, so that a
  // round's index stays below the scratch it reserved.
  auto roundsOf = [&](const LinearLayout &layout, unsigned dim,
                      ArrayRef<unsigned> bits) {
    SmallVector<int64_t> slotRounds;
    for (int64_t r = 0, e = layout.getNumRegisters(); r < e; ++r)
      slotRounds.push_back(ExchangeRounds::getRound(
          layout.applyOne(HwDim::Register, r)[dim], bits));
    return slotRounds;
  };
  auto coordinatesOf = [&](const LinearLayout &layout, unsigned dim,
                           ArrayRef<unsigned> bits) {
    auto coords = emitCoordinates(b, loc, layout, ids);
    SmallVector<unsigned> sorted(bits);
    llvm::sort(sorted, std::greater<unsigned>());
    for (auto &coord : coords)
      for (unsigned bit : sorted) {
        // (c & (2^bit - 1)) | ((c >> (bit + 1)) << bit)
        Value low = arith::AndIOp::create(b, loc, coord[dim],
                                          i32Val(b, loc, (1 << bit) - 1));
        Value high = arith::ShRUIOp::create(b, loc, coord[dim],
                                            i32Val(b, loc, bit + 1));
        high = arith::ShLIOp::create(b, loc, high, i32Val(b, loc, bit));
        coord[dim] = arith::OrIOp::create(b, loc, low, high);
      }
    return coords;
  };
  // A vector's slots travel in one round.
  auto vectorWidth = [](ArrayRef<int64_t> slotRounds, int64_t width) {
    for (size_t first = 0; first < slotRounds.size(); first += width)
      for (int64_t i = 1; i < width; ++i)
        if (slotRounds[first + i] != slotRounds[first])
          return int64_t(1);
    return width;
  };
  SmallVector<int64_t> srcRounds = roundsOf(srcLayout, srcDim, rounds.srcBits);
  SmallVector<int64_t> dstRounds = roundsOf(dstLayout, dstDim, rounds.dstBits);
  srcVector = vectorWidth(srcRounds, std::max<int64_t>(srcVector, 1));
  dstVector = vectorWidth(dstRounds, std::max<int64_t>(dstVector, 1));
  bool replicated = srcLayout.getReplicatedMask(HwDim::Lane) ||
                    srcLayout.getReplicatedMask(HwDim::Warp);
  // Made in the first round, after its barriers.
  SmallVector<SmallVector<Value>> srcCoords, dstCoords;
  Value isOwner;

  SmallVector<Value> results(dstRounds.size());
  for (int64_t round = 0, e = rounds.getNumRounds(); round < e; ++round) {
    // Readers of the previous use of the scratch area must be done.
    emitBarrier(b, loc, anchor);
    if (round == 0)
      srcCoords = coordinatesOf(srcLayout, srcDim, rounds.srcBits);
    {
      // One of the threads holding a replicated element writes it: copies
      // may differ in their last bit (a contracted fma before a butterfly),
      // and two writers of one address race.
      OpBuilder::InsertionGuard guard(b);
      if (replicated) {
        if (round == 0)
          isOwner = emitIsOwner(b, loc, srcLayout, ids);
        auto ifOp = scf::IfOp::create(b, loc, isOwner, /*withElse=*/false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      // Runs of srcVector consecutive elements: one (vector) store each.
      auto vectorType = VectorType::get({srcVector}, storage);
      for (size_t first = 0; first < srcValues.size(); first += srcVector) {
        if (srcRounds[first] != round)
          continue;
        if (srcVector == 1) {
          storeSharedElement(b, loc, anchor, 0, srcIndex(b, srcCoords[first]),
                             srcValues[first]);
          continue;
        }
        Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
        for (int64_t i = 0; i < srcVector; ++i)
          vector = LLVM::InsertElementOp::create(
              b, loc, vector, toStorage(b, loc, srcValues[first + i]),
              i32Val(b, loc, i));
        Value addr = sharedElementAddress(b, loc, anchor, 0,
                                          srcIndex(b, srcCoords[first]), storage);
        LLVM::StoreOp::create(b, loc, vector, addr, srcVector * elementBytes);
      }
    }
    emitBarrier(b, loc, anchor);
    if (round == 0)
      dstCoords = coordinatesOf(dstLayout, dstDim, rounds.dstBits);
    auto vectorType = VectorType::get({dstVector}, storage);
    for (size_t first = 0; first < dstCoords.size(); first += dstVector) {
      if (dstRounds[first] != round)
        continue;
      Value index = dstIndex(b, dstCoords[first]);
      if (dstVector == 1) {
        results[first] =
            loadSharedElement(b, loc, anchor, 0, index, registerType);
        continue;
      }
      Value addr = sharedElementAddress(b, loc, anchor, 0, index, storage);
      Value vector = LLVM::LoadOp::create(b, loc, vectorType, addr,
                                          dstVector * elementBytes);
      for (int64_t i = 0; i < dstVector; ++i)
        results[first + i] = fromStorage(
            b, loc,
            LLVM::ExtractElementOp::create(b, loc, vector, i32Val(b, loc, i)),
            registerType);
    }
  }
  return results;
}

Value lowering::emitProgramId(OpBuilder &b, Location loc, unsigned axis,
                              Operation *at) {
  Type i32 = b.getI32Type();
  if (axis == 2)
    return NVVM::BlockIdZOp::create(b, loc, i32);
  auto func = at->getParentOfType<FunctionOpInterface>();
  if (!func || !func->hasAttr(tilegpu::TileGPUDialect::getLongestFirstAttrName()))
    return axis == 0 ? NVVM::BlockIdXOp::create(b, loc, i32).getResult()
                     : NVVM::BlockIdYOp::create(b, loc, i32).getResult();
  Value nx = NVVM::GridDimXOp::create(b, loc, i32);
  Value ny = NVVM::GridDimYOp::create(b, loc, i32);
  Value x = NVVM::BlockIdXOp::create(b, loc, i32);
  Value y = NVVM::BlockIdYOp::create(b, loc, i32);
  return emitProgramIdAt(b, loc, axis, x, y, Value(), nx, ny, at);
}

Value lowering::emitProgramIdAt(OpBuilder &b, Location loc, unsigned axis,
                                Value x, Value y, Value z, Value nx, Value ny,
                                Operation *at) {
  if (axis == 2)
    return z;
  auto func = at->getParentOfType<FunctionOpInterface>();
  IntegerAttr group =
      func ? func->getAttrOfType<IntegerAttr>(
                 tilegpu::TileGPUDialect::getLongestFirstAttrName())
           : IntegerAttr();
  if (!group)
    return axis == 0 ? x : y;
  // The program's linear index L = x + y nx in its z plane, its group of G
  // values of axis 1 (L / (G nx) = y / G, from `first` = G (y / G) on), its
  // place r = L - first nx in the group and the group's height h (the last
  // may be short): axis 0 counts down with r / h, axis 1 runs through the
  // group with r mod h. r < G nx may pass 2^32: it and its divisions are
  // 64-bit.
  auto constant = [&](int64_t v) { return i32Val(b, loc, v); };
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value g = constant(group.getInt());
  Value first = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, y, g), g);
  Value height = arith::MinUIOp::create(b, loc, g, arith::SubIOp::create(b, loc, ny, first));
  auto wide = [&](Value v) { return arith::ExtUIOp::create(b, loc, i64, v).getResult(); };
  Value r = arith::AddIOp::create(
      b, loc, wide(x),
      arith::MulIOp::create(b, loc, wide(arith::SubIOp::create(b, loc, y, first)),
                            wide(nx)));
  if (axis == 1) {
    Value within = arith::RemUIOp::create(b, loc, r, wide(height));
    return arith::AddIOp::create(b, loc, first,
                                 arith::TruncIOp::create(b, loc, i32, within));
  }
  Value fromEnd = arith::TruncIOp::create(
      b, loc, i32, arith::DivUIOp::create(b, loc, r, wide(height)));
  return arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, nx, constant(1)),
                               fromEnd);
}
