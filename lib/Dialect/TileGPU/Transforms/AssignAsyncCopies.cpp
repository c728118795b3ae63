//===- AssignAsyncCopies.cpp - how wgmma operands reach shared memory -----===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-assign-async-copies pass (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Analysis/AccessWidth.h"
#include "tilec/Analysis/AffineAccess.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/Transforms/TMADescriptor.h"
#include "tilec/Dialect/TileGPU/Transforms/WarpgroupRegisters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPUASSIGNASYNCCOPIES
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

#define DEBUG_TYPE "tilegpu-assign-async-copies"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// An operand's ring and how it is filled.
struct Ring {
  Value smem;
  bool transposed = false;
};

int64_t tileBytes(RankedTensorType type) {
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

/// The scf.for whose body directly holds `op`, if any.
scf::ForOp getDirectLoop(Operation *op) {
  return dyn_cast<scf::ForOp>(op->getParentOp());
}

/// True when `op` may run more than once per kernel (inside a loop).
bool isInLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (isa<LoopLikeOpInterface>(p))
      return true;
    if (isa<FunctionOpInterface>(p))
      return false;
  }
  return false;
}

/// The iteration number of `forOp` modulo 2, at `b`'s insertion point.
Value emitParity(OpBuilder &b, Location loc, scf::ForOp forOp) {
  Value t = arith::SubIOp::create(b, loc, forOp.getInductionVar(),
                                  forOp.getLowerBound());
  t = arith::DivSIOp::create(b, loc, t, forOp.getStep());
  Type i32 = b.getI32Type();
  if (t.getType().isIndex())
    t = arith::IndexCastOp::create(b, loc, i32, t);
  else if (!t.getType().isInteger(32))
    t = arith::TruncIOp::create(b, loc, i32, t);
  return arith::AndIOp::create(b, loc, t, constI32(b, loc, 1));
}

/// Whether the loads of loop `op` that feed dots should go by cp.async
/// rather than TMA (cp-async-box-bytes): a loop of three or more dots (not
/// counting those of nested loops) whose dot operand loads are all at most
/// `maxBytes`, so that the
/// loop's copies do not mix TMA and cp.async. A loop written
/// `tl.range(..., warp_specialize=True)` keeps TMA: its producer warpgroup
/// issues TMA copies only.
static bool prefersCpAsync(Operation *op, int64_t maxBytes) {
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop || maxBytes <= 0)
    return false;
  if (auto ws = op->getAttrOfType<BoolAttr>(tile::kWarpSpecializeAttrName);
      ws && ws.getValue())
    return false;
  unsigned dots = 0;
  for (Operation &inner : loop.getBody()->getOperations()) {
    dots += isa<tile::DotOp>(inner);
    auto load = dyn_cast<tile::LoadOp>(inner);
    if (!load)
      continue;
    auto type = dyn_cast<RankedTensorType>(load.getType());
    bool feedsDot = llvm::any_of(load->getUsers(), [](Operation *user) {
      if (isa<tile::TransOp>(user))
        return llvm::any_of(user->getUsers(),
                            [](Operation *u) { return isa<tile::DotOp>(u); });
      return isa<tile::DotOp>(user);
    });
    if (type && feedsDot && type.getElementType().isIntOrFloat() &&
        type.getNumElements() * type.getElementTypeBitWidth() / 8 > maxBytes)
      return false;
  }
  return dots >= 3;
}

class Assigner {
public:
  Assigner(func::FuncOp func, const ModuleAxisInfo &axisInfo, bool useTMA,
           bool useCpAsync, int64_t cpAsyncBoxBytes)
      : func(func), axisInfo(axisInfo), affine(func), useTMA(useTMA),
        useCpAsync(useCpAsync), cpAsyncBoxBytes(cpAsyncBoxBytes) {}

  LogicalResult run();

private:
  FailureOr<Ring> getRing(tile::DotOp dot, Value operand, bool isA);
  /// Copies `load` (the operand itself, or transposed when `viaTrans`) into
  /// a ring asynchronously, or fails and says why.
  FailureOr<Ring> copyLoad(tile::LoadOp load, bool isA, bool viaTrans,
                           std::string &whyNot);
  LogicalResult emitTMA(tile::LoadOp load, const TMABox &box, Ring &ring);
  Ring emitCpAsync(tile::LoadOp load, unsigned vec, bool transposed);
  /// Stores `value` into a new ring before `before`; with `storeTransposed`
  /// element (i, j) goes to (j, i). The dot reads the ring transposed with
  /// `ringTransposed` (default: as stored).
  Ring emitLocalStore(Value value, Operation *before, bool storeTransposed,
                      std::optional<bool> ringTransposed = std::nullopt);
  Value allocRing(Location loc, RankedTensorType tile);

  func::FuncOp func;
  const ModuleAxisInfo &axisInfo;
  AffineAccessAnalysis affine;
  bool useTMA, useCpAsync;
  /// Boxes up to this size in loops of three or more dots go by cp.async.
  int64_t cpAsyncBoxBytes;
  /// The loops whose dot operand boxes go by cp.async (prefersCpAsync).
  llvm::DenseSet<Operation *> cpAsyncLoops;
  /// By operand; `transposed`: the ring holds the operand transposed.
  llvm::MapVector<Value, Ring> rings;
  /// By copied load; `transposed`: the ring holds the loaded tile
  /// transposed.
  llvm::DenseMap<Value, Ring> loadRings;
  /// Loads that could not be copied (said once).
  llvm::DenseSet<Value> registerLoads;
  SmallVector<tile::LoadOp> replacedLoads;
};

Value Assigner::allocRing(Location loc, RankedTensorType tile) {
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&func.getBody().front());
  return LocalAllocOp::create(b, loc, SharedMemoryType::get(func.getContext(), 1, tile),
                              /*offset=*/IntegerAttr());
}

/// `use` is a wgmma dot's A (`isA`) or B operand.
static bool isWgmmaOperandUse(OpOperand &use, bool isA) {
  auto dot = dyn_cast<tile::DotOp>(use.getOwner());
  return dot && isa<WarpgroupMMAEncodingAttr>(dot.getC().getType().getEncoding()) &&
         use.getOperandNumber() == (isA ? 0u : 1u);
}

/// Every user of `v` is a wgmma dot taking it as the same operand.
static bool feedsOnlyWgmmaOperand(Value v, bool isA) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [&](OpOperand &use) {
    return isWgmmaOperandUse(use, isA);
  });
}

/// The load an operand is, directly or through a 2-d transpose
/// (`tl.dot(q, k.T)`; the bool), when every use of that load is the same
/// wgmma operand, directly or through 2-d transposes that feed nothing
/// else, or directly as the other operand of other dots (16-bit, no
/// transposes: A reads the ring K-major, B as it is stored). One ring then
/// serves every use: the backward of attention reads qT as `tl.dot(k, qT)`
/// and `tl.dot(dsT, tl.trans(qT))`. Uses in both orientations need an
/// operand wgmma reads either way: B of 16-bit types (A only K-major,
/// 8-bit and tf32 B only K-major: PTX ISA §9.7.15.5.1).
static std::pair<tile::LoadOp, bool> getOperandLoad(Value operand, bool isA) {
  auto load = operand.getDefiningOp<tile::LoadOp>();
  bool viaTrans = false;
  if (!load) {
    auto trans = operand.getDefiningOp<tile::TransOp>();
    if (!trans || trans.getType().getRank() != 2)
      return {};
    load = trans.getSrc().getDefiningOp<tile::LoadOp>();
    if (!load)
      return {};
    viaTrans = true;
  }
  bool direct = false, transposed = false, otherRole = false;
  for (OpOperand &use : load->getUses()) {
    if (isWgmmaOperandUse(use, isA)) {
      direct = true;
      continue;
    }
    if (isWgmmaOperandUse(use, !isA)) {
      otherRole = true;
      continue;
    }
    // A transpose whose dot already got its wgmma (and this load's ring)
    // has no uses left.
    auto trans = dyn_cast<tile::TransOp>(use.getOwner());
    if (!trans || trans.getType().getRank() != 2 ||
        !(trans->use_empty() || feedsOnlyWgmmaOperand(trans.getResult(), isA)))
      return {};
    transposed = true;
  }
  bool is16Bit = cast<RankedTensorType>(load.getType()).getElementTypeBitWidth() == 16;
  if (direct && transposed && (isA || !is16Bit))
    return {};
  // A and B of other dots, as loaded (the one-sweep backward's k: S^T =
  // k qT and dQ = dS k): A is read K-major, 16-bit B as stored.
  if (otherRole && (viaTrans || transposed || !is16Bit))
    return {};
  return {load, viaTrans};
}

FailureOr<Ring> Assigner::getRing(tile::DotOp dot, Value operand, bool isA) {
  if (auto it = rings.find(operand); it != rings.end())
    return it->second;
  auto type = cast<RankedTensorType>(operand.getType());
  unsigned eltBytes = type.getElementTypeBitWidth() / 8;
  // wgmma reads 8-bit and tf32 B K-major only (PTX ISA §9.7.15.5.1).
  bool registerTransposed = !isA && eltBytes != 2;
  Ring ring;
  auto [load, viaTrans] = getOperandLoad(operand, isA);
  if (load) {
    // Another use of the load already has its ring: the same buffer, read
    // in this use's orientation.
    // A reads it K-major only (a ring a B use filled column-major, as
    // loaded, cannot serve an A: then A goes through registers).
    if (auto it = loadRings.find(load.getResult());
        it != loadRings.end() && !(isA && it->second.transposed != viaTrans)) {
      ring = {it->second.smem, it->second.transposed != viaTrans};
      rings[operand] = ring;
      return ring;
    }
    std::string whyNot;
    FailureOr<Ring> copied = failure();
    if (!registerLoads.contains(load.getResult()))
      copied = copyLoad(load, isA, viaTrans, whyNot);
    if (succeeded(copied)) {
      ring = *copied;
      loadRings[load.getResult()] = {ring.smem, ring.transposed != viaTrans};
    } else {
      if (registerLoads.insert(load.getResult()).second)
        load.emitRemark() << "tl.load goes through registers into shared "
                             "memory for tl.dot: "
                          << whyNot;
      Operation *def = operand.getDefiningOp();
      ring = emitLocalStore(operand, def->getNextNode(), registerTransposed);
    }
  } else {
    // A transposed register tile (FlashAttention-2's dQ = tl.dot(
    // tl.trans(dsT), k)) is stored as it is, element (i, j) to (j, i): not
    // transposed in registers (through scratch shared memory) first.
    Value stored = operand;
    bool storeTransposed = registerTransposed;
    if (auto trans = operand.getDefiningOp<tile::TransOp>();
        trans && type.getRank() == 2) {
      stored = trans.getSrc();
      storeTransposed = !registerTransposed;
    }
    Operation *def = stored.getDefiningOp();
    Operation *before = def && def->getBlock() != dot->getBlock() &&
                                def->getParentRegion()->isAncestor(dot->getParentRegion())
                            ? def->getNextNode()
                            : dot.getOperation();
    // Before an earlier dot that reads the same registers as its A (the
    // backward's dK += dsT Q with dQ = trans(dsT) K): once that dot is
    // asynchronous, reading its A registers before its wait is undefined
    // (PTX ISA §9.7.15.5.2), and ptxas waits for it there.
    for (Operation *user : stored.getUsers())
      if (isa<tile::DotOp, WarpgroupDotOp>(user) && user != dot.getOperation() &&
          user->getOperand(0) == stored && user->getBlock() == before->getBlock() &&
          user->isBeforeInBlock(before))
        before = user;
    ring = emitLocalStore(stored, before, storeTransposed, registerTransposed);
  }
  rings[operand] = ring;
  return ring;
}

FailureOr<Ring> Assigner::copyLoad(tile::LoadOp load, bool isA, bool viaTrans,
                                   std::string &whyNot) {
  // A volatile load reads memory other programs may be writing: it stays a
  // load (and keeps the isVolatile later passes read).
  if (load.getIsVolatile()) {
    whyNot = "the load is volatile";
    return failure();
  }
  auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
  auto resultType = cast<RankedTensorType>(load.getType());
  unsigned eltBytes = resultType.getElementTypeBitWidth() / 8;
  // The ring holds the loaded tile, or it transposed; the operand is the
  // tile, or it transposed (`viaTrans`). wgmma reads A K-major (the ring
  // holds A itself), and 8-bit and tf32 B only K-major (the ring holds B
  // transposed: bTransposed).
  bool needsKMajorB = !isA && eltBytes != 2;
  auto orientationProblem = [&](bool ringTransposed) -> std::string {
    bool operandTransposed = ringTransposed != viaTrans;
    if (isA && operandTransposed)
      return "operand a is column-major (M contiguous)";
    if (needsKMajorB && !operandTransposed)
      return "operand b is row-major, but wgmma reads 8-bit and tf32 B only "
             "K-major (give B with stride 1 along K)";
    return "";
  };
  // Whether cp.async can take the load (its runs, zero fill, orientation).
  std::string whyNotCp = "disabled (--disable-cp-async)";
  AccessRun run;
  bool cpTransposed = false;
  if (useCpAsync) {
    run = getAccessRun(axisInfo, load.getPtr(), load.getMask(), eltBytes);
    Value other = load.getOther();
    Attribute otherAttr;
    bool otherZero = !other || (matchPattern(other, m_Constant(&otherAttr)) &&
                                isa<SplatElementsAttr>(otherAttr) && [&] {
                                  auto splat = cast<SplatElementsAttr>(otherAttr);
                                  if (auto f = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>()))
                                    return f.getValue().isPosZero();
                                  auto i = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>());
                                  return i && i.getValue().isZero();
                                }());
    unsigned bytes = run.vec * eltBytes;
    // Single elements go anywhere (the ring in the operand's orientation);
    // runs keep their dimension contiguous.
    cpTransposed = run.vec == 1 ? needsKMajorB != viaTrans : run.dim == 0;
    if (ptrType.getRank() != 2)
      whyNotCp = "the tile is not 2-d";
    else if (!otherZero)
      whyNotCp = "masked-off elements read a value other than 0";
    else if (bytes < 4)
      whyNotCp = "each thread's contiguous, aligned run is " +
                 std::to_string(bytes) +
                 " bytes (cp.async copies 4, 8 or 16; tile-axis-info could not "
                 "prove more contiguity or alignment)";
    else if (std::string problem = orientationProblem(cpTransposed); !problem.empty())
      whyNotCp = problem;
    else
      whyNotCp.clear();
  }
  bool cpAsyncTakes = useCpAsync && whyNotCp.empty();
  std::string whyNotTMA = "disabled (--disable-tma)";
  if (useTMA) {
    Operation *parent = load->getParentOp();
    if (!isa<FunctionOpInterface, scf::ForOp>(parent)) {
      whyNotTMA = "the load is inside a branch or a while loop (mbarrier "
                  "phases count the iterations of a for loop)";
    } else if (FailureOr<TMABox> box = affine.getTMABox(load, whyNotTMA);
               succeeded(box)) {
      std::string problem = orientationProblem(box->transposed);
      int64_t boxBytes =
          cast<RankedTensorType>(load.getType()).getNumElements() * eltBytes;
      if (!problem.empty())
        whyNotTMA = problem;
      else if (cpAsyncTakes && cpAsyncLoops.contains(parent))
        whyNotTMA = "a box of " + std::to_string(boxBytes) +
                    " bytes in a loop of three or more dots (cp-async-box-bytes "
                    "is " + std::to_string(cpAsyncBoxBytes) + ")";
      else {
        Ring ring;
        // The fast path says nothing (tilec explain shows it).
        if (succeeded(emitTMA(load, *box, ring))) {
          ring.transposed = box->transposed != viaTrans;
          return ring;
        }
        whyNotTMA = "a coordinate could not be computed where the load is";
      }
    }
  }
  if (cpAsyncTakes) {
    load.emitRemark() << "tl.load becomes cp.async copies of "
                      << run.vec * eltBytes
                      << " bytes into shared memory; not TMA: " << whyNotTMA;
    Ring ring = emitCpAsync(load, run.vec, cpTransposed);
    ring.transposed = cpTransposed != viaTrans;
    return ring;
  }
  whyNot = "not TMA: " + whyNotTMA + "; not cp.async: " + whyNotCp;
  return failure();
}

LogicalResult Assigner::emitTMA(tile::LoadOp load, const TMABox &box, Ring &ring) {
  MLIRContext *ctx = func.getContext();
  Location loc = load.getLoc();
  RankedTensorType tile =
      getBufferTile(cast<RankedTensorType>(load.getType()), box.transposed);

  // Coordinates first: they may fail to materialize.
  OpBuilder b(load);
  FailureOr<SmallVector<Value>> coords = materializeTMACoordinates(b, loc, affine, box);
  if (failed(coords))
    return failure();
  FailureOr<Value> desc = addTMADescriptorArgument(func, box, tile, loc);
  if (failed(desc))
    return failure();

  ring.smem = allocRing(loc, tile);
  ring.transposed = box.transposed;
  OpBuilder entry(ctx);
  entry.setInsertionPointToStart(&func.getBody().front());
  Value bars = MBarrierAllocOp::create(entry, loc, MBarriersType::get(ctx, 1),
                                       /*offset=*/IntegerAttr());

  Value zero = constI32(b, loc, 0);
  scf::ForOp loop = getDirectLoop(load);
  if (loop) {
    OpBuilder outside(loop);
    MBarrierInitOp::create(outside, loc, bars);
    outside.setInsertionPointAfter(loop);
    MBarrierInvalOp::create(outside, loc, bars);
    // The previous iteration's readers of the buffer are done.
    BarrierOp::create(b, loc);
  } else {
    MBarrierInitOp::create(b, loc, bars);
  }
  MBarrierExpectOp::create(b, loc, bars, zero, b.getI32IntegerAttr(tileBytes(tile)),
                           /*pred=*/Value(), /*oncePerProgram=*/UnitAttr());
  TMALoadOp::create(b, loc, *desc, *coords, ring.smem, zero, bars, zero,
                    /*pred=*/Value(), /*multicastIf=*/Value(),
                    /*multicast=*/IntegerAttr(), /*oncePerProgram=*/UnitAttr());
  Value phase = loop ? emitParity(b, loc, loop) : zero;
  MBarrierWaitOp::create(b, loc, bars, zero, phase, /*leader=*/UnitAttr(),
                         /*pred=*/Value(), /*oncePerProgram=*/UnitAttr());
  if (!loop)
    MBarrierInvalOp::create(b, loc, bars);
  replacedLoads.push_back(load);
  return success();
}

Ring Assigner::emitCpAsync(tile::LoadOp load, unsigned vec, bool transposed) {
  Location loc = load.getLoc();
  Ring ring;
  ring.transposed = transposed;
  ring.smem = allocRing(loc, getBufferTile(cast<RankedTensorType>(load.getType()), transposed));
  OpBuilder b(load);
  if (isInLoop(load))
    BarrierOp::create(b, loc);
  Value zero = constI32(b, loc, 0);
  AsyncCopyOp::create(b, loc, load.getPtr(), load.getMask(), ring.smem, zero,
                      /*pred=*/Value(), vec, transposed);
  AsyncCommitGroupOp::create(b, loc);
  AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));
  FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  replacedLoads.push_back(load);
  return ring;
}

Ring Assigner::emitLocalStore(Value value, Operation *before, bool storeTransposed,
                              std::optional<bool> ringTransposed) {
  Location loc = value.getLoc();
  Ring ring;
  ring.transposed = ringTransposed.value_or(storeTransposed);
  ring.smem = allocRing(loc, getBufferTile(cast<RankedTensorType>(value.getType()),
                                           storeTransposed));
  OpBuilder b(before);
  if (isInLoop(before))
    BarrierOp::create(b, loc);
  LocalStoreOp::create(b, loc, value, ring.smem, constI32(b, loc, 0), storeTransposed);
  FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  return ring;
}

LogicalResult Assigner::run() {
  // Decided per loop before any load is replaced.
  func.walk([&](scf::ForOp loop) {
    if (prefersCpAsync(loop, cpAsyncBoxBytes))
      cpAsyncLoops.insert(loop);
  });
  SmallVector<tile::DotOp> dots;
  func.walk([&](tile::DotOp dot) {
    if (isa<WarpgroupMMAEncodingAttr>(dot.getC().getType().getEncoding()))
      dots.push_back(dot);
  });
  for (tile::DotOp dot : dots) {
    bool registerA = canUseRegisterA(dot);
    Ring a;
    if (!registerA) {
      FailureOr<Ring> ring = getRing(dot, dot.getA(), /*isA=*/true);
      if (failed(ring))
        return failure();
      a = *ring;
    }
    FailureOr<Ring> b = getRing(dot, dot.getB(), /*isA=*/false);
    if (failed(b))
      return failure();
    OpBuilder builder(dot);
    Location loc = dot.getLoc();
    Value zero = constI32(builder, loc, 0);
    auto wgmma = WarpgroupDotOp::create(
        builder, loc, dot.getType(), registerA ? dot.getA() : a.smem,
        registerA ? Value() : zero, b->smem, zero, dot.getC(),
        /*isAsync=*/false, /*bTransposed=*/b->transposed);
    dot.getResult().replaceAllUsesWith(wgmma.getResult());
    dot.erase();
  }
  for (tile::LoadOp load : replacedLoads) {
    // A transpose between the load and the dots goes first.
    for (Operation *user : llvm::make_early_inc_range(load->getUsers()))
      if (isa<tile::TransOp>(user) && user->use_empty())
        user->erase();
    if (load->use_empty())
      load.erase();
  }
  return success();
}

struct TileGPUAssignAsyncCopiesPass
    : tilegpu::impl::TileGPUAssignAsyncCopiesBase<TileGPUAssignAsyncCopiesPass> {
  using TileGPUAssignAsyncCopiesBase::TileGPUAssignAsyncCopiesBase;

  void runOnOperation() override {
    ModuleAxisInfo axisInfo(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      Assigner assigner(func, axisInfo, useTMA, useCpAsync, cpAsyncBoxBytes);
      if (failed(assigner.run())) {
        func.emitError("tilegpu-assign-async-copies failed on this kernel");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
