//===- LayoutInference.cpp - unify tiles into layout classes --------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LayoutInference.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

#define DEBUG_TYPE "convert-tile-to-tilegpu"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

static bool isTile(Value value) { return isa<RankedTensorType>(value.getType()); }

LayoutInference::LayoutInference(Operation *func, const LayoutOptions &options,
                                 const ModuleAxisInfo &axisInfo)
    : func(func), options(options), numWarps(options.numWarps),
      axisInfo(axisInfo) {}

//===----------------------------------------------------------------------===//
// Union-find
//===----------------------------------------------------------------------===//

/// A reducing tl.atomic_add of a tile (what the lowering makes a `red`): it
/// writes its value like a store (FlashAttention-2's dQ share), and its
/// value may take another layout than its addresses.
static bool isReducingAtomic(Operation *op) {
  auto rmw = dyn_cast<tile::AtomicRMWOp>(op);
  return rmw && rmw.isReduction() &&
         isa<RankedTensorType>(rmw.getPtr().getType()) &&
         isa<RankedTensorType>(rmw.getValue().getType());
}

Value tilec::getStoredValue(Operation *store) {
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(store))
    return rmw.getValue();
  return cast<tile::StoreOp>(store).getValue();
}

static Value getStoreMask(Operation *store) {
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(store))
    return rmw.getMask();
  return cast<tile::StoreOp>(store).getMask();
}

unsigned LayoutInference::classOf(Value value) {
  auto [it, inserted] = ids.try_emplace(value, values.size());
  if (inserted) {
    values.push_back(value);
    parents.push_back(it->second);
  }
  return it->second;
}

unsigned LayoutInference::find(unsigned id) {
  while (parents[id] != id) {
    parents[id] = parents[parents[id]];
    id = parents[id];
  }
  return id;
}

void LayoutInference::unite(Value a, Value b) {
  if (!isTile(a) || !isTile(b))
    return;
  unsigned ra = find(classOf(a)), rb = find(classOf(b));
  if (ra != rb)
    parents[std::max(ra, rb)] = std::min(ra, rb);
}

void LayoutInference::uniteAll(ValueRange range) {
  Value first;
  for (Value v : range) {
    if (!isTile(v))
      continue;
    classOf(v);
    if (first)
      unite(first, v);
    else
      first = v;
  }
}

void LayoutInference::addSlice(Value child, unsigned axis, Value parent,
                               Operation *op) {
  requests.push_back({classOf(child), axis, classOf(parent), op});
}

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

LogicalResult LayoutInference::collect(Operation *op) {
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (isTile(arg))
          classOf(arg);
  for (Value result : op->getResults())
    if (isTile(result))
      classOf(result);

  // Sources, ops that move data anyway, and terminators (their operands are
  // related by the op that owns the region).
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) {
    reshapes.push_back(reshape);
    return success();
  }
  if (isa<tile::MakeRangeOp, tile::SplatOp, arith::ConstantOp, tile::TransOp>(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return success();
  if (auto bcast = dyn_cast<tile::BroadcastOp>(op)) {
    classOf(bcast.getSrc());
    broadcasts.push_back(bcast);
    return success();
  }
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return success();
  // tl.device_print / tl.device_assert read their operands where they are:
  // each keeps its own layout (they may have different shapes).
  if (isa<tile::PrintOp, tile::AssertOp>(op))
    return success();
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    addSlice(expand.getSrc(), expand.getAxis(), expand.getResult(), op);
    return success();
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    uniteAll(reduce.getSrcs());
    for (Value result : reduce.getResult())
      if (isTile(result))
        addSlice(result, reduce.getAxis(), reduce.getSrcs().front(), op);
    return success();
  }
  // A store's value and address join later (resolveStores), unless the
  // value is a dot's accumulator.
  if (auto store = dyn_cast<tile::StoreOp>(op);
      (store && isTile(store.getPtr())) || isReducingAtomic(op)) {
    classOf(getStoredValue(op));
    classOf(op->getOperand(0));
    if (Value mask = getStoreMask(op))
      unite(op->getOperand(0), mask);
    if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
      unite(rmw.getPtr(), rmw.getResult());
    stores.push_back(op);
    return success();
  }
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    classOf(dot.getA());
    classOf(dot.getB());
    unite(dot.getC(), dot.getResult());
    return success();
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [init, arg, result, yielded] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                   forOp.getResults(), yield.getOperands()))
      uniteAll({init, arg, result, yielded});
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
      SmallVector<Value> group{result, ifOp.thenYield().getOperand(i)};
      if (!ifOp.getElseRegion().empty())
        group.push_back(ifOp.elseYield().getOperand(i));
      uniteAll(group);
    }
    return success();
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    auto cond = whileOp.getConditionOp();
    auto yield = whileOp.getYieldOp();
    for (auto [init, arg, yielded] :
         llvm::zip(whileOp.getInits(), whileOp.getBeforeArguments(),
                   yield.getOperands()))
      uniteAll({init, arg, yielded});
    for (auto [passed, arg, result] :
         llvm::zip(cond.getArgs(), whileOp.getAfterArguments(),
                   whileOp.getResults()))
      uniteAll({passed, arg, result});
    return success();
  }
  // Everything else must be elementwise over tiles of one shape.
  SmallVector<Value> tiles;
  for (Value v : op->getOperands())
    if (isTile(v))
      tiles.push_back(v);
  for (Value v : op->getResults())
    if (isTile(v))
      tiles.push_back(v);
  if (tiles.empty())
    return success();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(tiles.front().getType()).getShape();
  for (Value v : tiles)
    if (cast<RankedTensorType>(v.getType()).getShape() != shape)
      return op->emitOpError("has tiles of different shapes; the layout "
                             "assignment does not know how to relate them");
  uniteAll(tiles);
  return success();
}

void LayoutInference::resolveStores() {
  SmallVector<unsigned> dots;
  for (auto [id, value] : llvm::enumerate(values))
    if (isa_and_present<tile::DotOp>(value.getDefiningOp()) &&
        cast<RankedTensorType>(value.getType()).getRank() >= 2)
      dots.push_back(id);
  // A dot's accumulator is stored from its tensor-core layout, where a
  // thread holds short runs (pairs of columns); its addresses keep a class
  // of their own, whose layout gathers longer runs (deriveFromStoredValue).
  // Every other store's value shares its address's layout.
  for (Operation *store : stores) {
    unsigned value = find(classOf(getStoredValue(store)));
    if (value == find(classOf(store->getOperand(0))))
      continue;
    if (llvm::any_of(dots, [&](unsigned id) { return find(id) == value; }))
      storesOfDots.push_back(store);
    else
      unite(getStoredValue(store), store->getOperand(0));
  }
}

void LayoutInference::resolveBroadcasts() {
  // A broadcast source shares its result's layout. When one source is
  // broadcast into tiles of two classes (rows of A and rows of C in a
  // matmul), joining them would force one layout on both: the first
  // broadcast joins, the others are conflicts (the source is then recomputed
  // per use, or converted).
  DenseMap<unsigned, unsigned> boundTo;
  for (tile::BroadcastOp bcast : broadcasts) {
    unsigned src = find(classOf(bcast.getSrc()));
    unsigned dst = find(classOf(bcast.getResult()));
    if (src == dst)
      continue;
    auto it = boundTo.find(src);
    if (it != boundTo.end() && find(it->second) != dst) {
      conflicts.push_back(bcast);
      continue;
    }
    unite(bcast.getSrc(), bcast.getResult());
    boundTo[find(src)] = find(dst);
  }
}

/// The class a slice along `axis` of class `parent` takes its layout from:
/// for the addresses of a stored accumulator (resolveStores), sliced along
/// the dimension their runs were gathered in, the accumulator's class. The
/// two slices are the same map (gatherRegisterRun exchanges only steps
/// along that dimension), and tutorial 06's offs_m, which addresses O,
/// also addresses M and masks the scores: it keeps the accumulator's rows.
unsigned LayoutInference::getSliceParent(unsigned parent, unsigned axis) {
  Operation *store = getStoreOfDotAddressedBy(parent);
  if (!store)
    return parent;
  ClassAccess access = getBestAccess(parent);
  if (!access.order.empty() && access.order.front() == axis)
    return find(classOf(getStoredValue(store)));
  return parent;
}

Operation *LayoutInference::getStoreOfDotAddressedBy(unsigned root) {
  for (Operation *store : storesOfDots)
    if (find(classOf(store->getOperand(0))) == root &&
        find(classOf(getStoredValue(store))) != root)
      return store;
  return nullptr;
}

void LayoutInference::resolveSlices() {
  for (const SliceRequest &req : requests) {
    unsigned child = find(req.child);
    unsigned parent = getSliceParent(find(req.parent), req.axis);
    auto it = sliceOf.find(child);
    if (it == sliceOf.end()) {
      sliceOf[child] = {req.axis, parent, req.op};
      continue;
    }
    if (it->second.axis != req.axis || find(it->second.parent) != parent)
      conflicts.push_back(req.op);
  }
}

/// Whether `value` (a tile of `values`' class) gives its class a reason for
/// its own layout: it is a pointer tile that memory is accessed through,
/// the result of a dot, or an operand or result of packed inline asm.
static bool needsOwnLayout(Value value) {
  if (isa_and_present<tile::DotOp>(value.getDefiningOp()))
    return true;
  auto packed = [](Operation *op) {
    auto asmOp = dyn_cast_if_present<tile::InlineAsmElementwiseOp>(op);
    return asmOp && asmOp.getPackedElement() > 1;
  };
  if (packed(value.getDefiningOp()))
    return true;
  bool isPointer = isa<tile::PointerType>(
      cast<RankedTensorType>(value.getType()).getElementType());
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (packed(user))
      return true;
    if (isPointer && use.getOperandNumber() == 0 &&
        isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp>(user))
      return true;
  }
  return false;
}

void LayoutInference::resolveReshapes() {
  if (reshapes.empty())
    return;
  // Per root: whether it has a layout of its own, and its largest tile.
  DenseSet<unsigned> own;
  DenseMap<unsigned, RankedTensorType> largest;
  for (auto [id, value] : llvm::enumerate(values)) {
    unsigned root = find(id);
    auto type = cast<RankedTensorType>(value.getType());
    RankedTensorType &big = largest[root];
    if (!big || type.getNumElements() > big.getNumElements())
      big = type;
    if (needsOwnLayout(value))
      own.insert(root);
  }
  // A slice takes its parent's layout: it starts derivations (a loaded
  // tile is often the slice of a broadcast's class) but takes none.
  auto isFree = [&](unsigned root) {
    return !own.contains(root) && !sliceOf.contains(root);
  };
  struct Edge {
    unsigned to;
    tile::ReshapeOp op;
    Value toSide;
  };
  DenseMap<unsigned, SmallVector<Edge>> edges;
  SmallVector<unsigned> queue;
  DenseSet<unsigned> reached;
  for (tile::ReshapeOp reshape : reshapes) {
    unsigned a = find(classOf(reshape.getSrc()));
    unsigned b = find(classOf(reshape.getResult()));
    if (a == b)
      continue;
    edges[a].push_back({b, reshape, reshape.getResult()});
    edges[b].push_back({a, reshape, reshape.getSrc()});
    for (unsigned root : {a, b})
      if (!isFree(root) && reached.insert(root).second)
        queue.push_back(root);
  }
  // Breadth first from the classes with their own layouts, so each free
  // class takes the layout of the nearest one.
  for (size_t i = 0; i < queue.size(); ++i) {
    unsigned from = queue[i];
    for (const Edge &edge : edges[from]) {
      if (!isFree(edge.to) || reached.contains(edge.to))
        continue;
      // The reshaped layout describes the reshape's tile: it must be the
      // class's largest (a broadcast result past it would not be covered).
      if (cast<RankedTensorType>(edge.toSide.getType()).getShape() !=
          largest[edge.to].getShape())
        continue;
      reached.insert(edge.to);
      reshapedFrom[edge.to] = {from, edge.op};
      queue.push_back(edge.to);
    }
  }
}

Attribute LayoutInference::deriveFromReshape(unsigned root) {
  const ReshapedFrom &source = reshapedFrom.find(root)->second;
  tile::ReshapeOp reshape = source.op;
  bool isResult = find(classOf(reshape.getResult())) == root;
  RankedTensorType fromType = isResult ? reshape.getSrc().getType()
                                       : reshape.getResult().getType();
  RankedTensorType toType = isResult ? reshape.getResult().getType()
                                     : reshape.getSrc().getType();
  Attribute fromLayout = layoutOfClass(find(source.from));
  FailureOr<LinearLayout> from = toLinearLayout(fromType.getShape(), fromLayout);
  if (failed(from))
    return chooseBlocked(root);
  // Always #tilegpu.linear (even where a blocked layout is the same map):
  // two classes derived alike get the same attribute, so that a slice of
  // one and the slice of the other need no conversion between them.
  return getLinearEncoding(func->getContext(),
                           reshapeLayout(*from, toType.getShape()));
}

Attribute LayoutInference::deriveFromStoredValue(unsigned root,
                                                 Operation *store) {
  Value stored = getStoredValue(store);
  Attribute from = layoutOfClass(find(classOf(stored)));
  if (!isa<WarpgroupMMAEncodingAttr, MMAEncodingAttr>(from))
    return from;
  // 32-bit elements are stored 8 bytes at a time from the accumulator,
  // whole 32-byte sectors per four lanes: not worth the shuffles. Atomic
  // adds are worth them where the target has vector reductions: the L2
  // applies one red per 4, 8 or 16 bytes, and 16-byte runs halve their
  // number (Triton's dQ adds are v4 too). Without them, or for other
  // element types (one atom each), the shuffles only cost.
  auto type = stored.getType();
  Type element = cast<RankedTensorType>(type).getElementType();
  bool worthGathering =
      isReducingAtomic(store)
          ? options.vectorReductions && element.isF32()
          : element.isIntOrFloat() && element.getIntOrFloatBitWidth() < 32;
  if (!worthGathering)
    return from;
  // The gathered layout describes the stored tile: a larger tile of the
  // class (a broadcast past it) keeps the accumulator's.
  auto storedType = cast<RankedTensorType>(type);
  for (auto [id, value] : llvm::enumerate(values))
    if (find(id) == root &&
        cast<RankedTensorType>(value.getType()).getNumElements() >
            storedType.getNumElements())
      return from;
  ClassAccess access = getBestAccess(root);
  if (access.vec <= 1)
    return from;
  unsigned dim = access.order.front();
  int64_t run = access.vec;
  // A mask must be uniform over the run (tile-axis-info constancy).
  for (Operation *other : storesOfDots) {
    Value otherMask = getStoreMask(other);
    if (find(classOf(other->getOperand(0))) != root || !otherMask)
      continue;
    AxisInfo mask = axisInfo.lookup(otherMask);
    run = mask.getRank() == access.shape.size()
              ? std::min<int64_t>(run, mask.getConstancy(dim))
              : 1;
  }
  FailureOr<LinearLayout> accumulator =
      toLinearLayout(storedType.getShape(), from);
  if (run <= 1 || failed(accumulator))
    return from;
  LinearLayout gathered = gatherRegisterRun(*accumulator, dim, run);
  if (gathered == *accumulator)
    return from;
  return getLinearEncoding(func->getContext(), gathered);
}

LogicalResult LayoutInference::run() {
  WalkResult walk = func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    return failed(collect(op)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  resolveStores();
  resolveBroadcasts();
  resolveSlices();
  resolveReshapes();
  return success();
}

//===----------------------------------------------------------------------===//
// Layout choice
//===----------------------------------------------------------------------===//

/// Bytes of one element of a tile of pointers' pointee.
static int64_t pointeeBytes(Type ptrTile) {
  auto ptr = cast<tile::PointerType>(tile::getElementTypeOrSelf(ptrTile));
  Type pointee = ptr.getPointeeType();
  return pointee.isIntOrFloat()
             ? std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8)
             : 8;
}

/// Builds a blocked layout with `spt` elements per thread (Triton's
/// default-blocked rule for the rest): lanes, then warps, spread along
/// `order` while the tile has room, the remainder along order[0].
static BlockedEncodingAttr buildBlocked(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                        ArrayRef<unsigned> order,
                                        ArrayRef<unsigned> spt,
                                        unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> tpw(rank, 1), wpc(rank, 1);
  unsigned lanes = kThreadsPerWarp;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    tpw[d] = std::min<int64_t>(lanes, room);
    lanes /= tpw[d];
  }
  tpw[order[0]] *= lanes;
  unsigned warps = numWarps;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / (int64_t(spt[d]) * tpw[d]));
    wpc[d] = std::min<int64_t>(warps, room);
    warps /= wpc[d];
  }
  wpc[order[0]] *= warps;
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
}

/// Elements each thread holds when `shape` is spread over `numWarps` warps
/// without replication (at least 1).
static int64_t elementsPerThread(ArrayRef<int64_t> shape, unsigned numWarps) {
  int64_t numel = 1;
  for (int64_t s : shape)
    numel *= s;
  return std::max<int64_t>(1, numel / (int64_t(kThreadsPerWarp) * numWarps));
}

static SmallVector<unsigned> rowMajorOrder(unsigned rank) {
  return llvm::to_vector(llvm::reverse(llvm::seq<unsigned>(0, rank)));
}

/// The layout of a `tile.dot` accumulator for the FMA path: each thread
/// holds a near-square block of rows x columns (register blocking), so
/// every operand element it reads from shared memory feeds several FMAs.
static BlockedEncodingAttr buildDotAccumulatorLayout(MLIRContext *ctx,
                                                     ArrayRef<int64_t> shape,
                                                     unsigned numWarps) {
  unsigned rank = shape.size(), m = rank - 2, n = rank - 1;
  int64_t perThread = elementsPerThread(shape, numWarps);
  int64_t cols = std::min<int64_t>(
      shape[n], int64_t(1) << llvm::Log2_64_Ceil(
                    static_cast<uint64_t>(std::ceil(std::sqrt(double(perThread))))));
  int64_t rows = std::min<int64_t>(shape[m], std::max<int64_t>(1, perThread / cols));
  SmallVector<unsigned> spt(rank, 1);
  spt[n] = cols;
  spt[m] = rows;
  return buildBlocked(ctx, shape, rowMajorOrder(rank), spt, numWarps);
}

LayoutInference::ClassAccess LayoutInference::getBestAccess(unsigned root) {
  ClassAccess best;
  int64_t bestContiguity = 0;
  for (auto [id, value] : llvm::enumerate(values)) {
    if (find(id) != root)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (!isa<tile::PointerType>(type.getElementType()))
      continue;
    bool accessed = llvm::any_of(value.getUsers(), [&](Operation *user) {
      return isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp>(user) &&
             user->getOperand(0) == value;
    });
    if (!accessed)
      continue;
    AxisInfo info = axisInfo.lookup(value);
    if (info.getRank() != type.getRank())
      continue;
    SmallVector<unsigned> dims = rowMajorOrder(type.getRank());
    llvm::stable_sort(dims, [&](unsigned a, unsigned b) {
      return info.getContiguity(a) > info.getContiguity(b);
    });
    int64_t bytes = pointeeBytes(type);
    int64_t contiguity = info.getContiguity(dims[0]);
    int64_t alignment = std::max<int64_t>(1, info.getDivisibility(dims[0]) / bytes);
    int64_t vec = std::max<int64_t>(
        1, std::min({contiguity, alignment, std::max<int64_t>(1, 16 / bytes)}));
    if (vec > best.vec || (vec == best.vec && contiguity > bestContiguity)) {
      best.vec = vec;
      bestContiguity = contiguity;
      best.order = dims;
      best.shape.assign(type.getShape().begin(), type.getShape().end());
    }
  }
  return best;
}

/// Elements of `layout` (over `shape`) that one thread holds consecutively
/// along dimension `dim`: the run its lowest register bits cover.
static int64_t getRegisterRun(ArrayRef<int64_t> shape, Attribute layout,
                              unsigned dim) {
  FailureOr<LinearLayout> linear = toLinearLayout(shape, layout);
  return failed(linear) ? 1 : tilegpu::getRegisterRun(*linear, dim);
}

Attribute LayoutInference::chooseBlocked(unsigned root) {
  MLIRContext *ctx = func->getContext();
  // What the class does: its largest tile, whether it accumulates a dot,
  // which axis it is reduced along, and the best-vectorizable pointer tile
  // that one of its loads or stores accesses.
  RankedTensorType largest;
  bool accumulatesDot = false;
  tile::DotOp dotOp;
  std::optional<unsigned> reducedAxis;
  int64_t minRun = 1;
  for (auto [id, value] : llvm::enumerate(values)) {
    if (find(id) != root)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (!largest || type.getNumElements() > largest.getNumElements())
      largest = type;
    if (auto dot = dyn_cast_if_present<tile::DotOp>(value.getDefiningOp())) {
      accumulatesDot = true;
      dotOp = dot;
    }
    for (Operation *user : value.getUsers())
      if (auto reduce = dyn_cast<tile::ReduceOp>(user); reduce && !reducedAxis)
        reducedAxis = reduce.getAxis();
    // Inline asm on packs of elements wants runs of that many per thread.
    auto noteAsm = [&](Operation *op) {
      if (auto asmOp = dyn_cast_if_present<tile::InlineAsmElementwiseOp>(op))
        minRun = std::max<int64_t>(minRun, asmOp.getPackedElement());
    };
    noteAsm(value.getDefiningOp());
    for (Operation *user : value.getUsers())
      noteAsm(user);
  }
  ClassAccess access = getBestAccess(root);
  ArrayRef<unsigned> order = access.order;
  int64_t bestVec = access.vec;
  ArrayRef<int64_t> shape = largest.getShape();
  unsigned rank = shape.size();
  // 1. A dot decides: the tensor cores' accumulator layout when wgmma can
  // take the dot, else a register-blocked layout for the FMA loop.
  if (accumulatesDot && rank >= 2) {
    bool ownShape = largest.getShape() == dotOp.getType().getShape();
    std::string whyNotWgmma = "disabled (--disable-wgmma)";
    if (options.useWarpgroupMMA)
      if (auto mma = getWarpgroupMMALayout(dotOp, numWarps, &whyNotWgmma);
          mma && ownShape)
        return *mma;
    std::string whyNotMma = "disabled (--disable-mma)";
    if (options.useMMA)
      if (auto mma = getMMALayout(dotOp, numWarps, &whyNotMma); mma && ownShape) {
        dotOp.emitRemark() << "tl.dot runs on mma.sync, not wgmma: " << whyNotWgmma;
        return *mma;
      }
    dotOp.emitRemark() << "tl.dot runs on CUDA cores (FMA), not wgmma: "
                       << whyNotWgmma << "; not mma.sync: " << whyNotMma;
    return buildDotAccumulatorLayout(ctx, shape, numWarps);
  }
  int64_t perThread = elementsPerThread(shape, numWarps);
  SmallVector<unsigned> spt(rank, 1);
  // tile.inline_asm_elementwise with packed_element > 1 runs on that many
  // consecutive elements of a thread: at least that many along the first
  // dimension of `order` (when the tile has them; else lowering says so).
  auto blocked = [&](ArrayRef<unsigned> dims) {
    if (minRun > 1)
      spt[dims[0]] =
          std::max<int64_t>(spt[dims[0]], std::min(minRun, shape[dims[0]]));
    return buildBlocked(ctx, shape, dims, spt, numWarps);
  };
  // 2. Memory accesses: coalesced, as wide as their contiguity allows.
  if (!order.empty()) {
    spt[order[0]] = std::min({bestVec, shape[order[0]], perThread});
    return blocked(order);
  }
  // 3. Reductions: as much of the reduced axis per thread as the tile
  // allows, so that most of the combining happens in registers.
  if (reducedAxis) {
    SmallVector<unsigned> reducedFirst{*reducedAxis};
    for (unsigned d : rowMajorOrder(rank))
      if (d != *reducedAxis)
        reducedFirst.push_back(d);
    spt[*reducedAxis] = std::min(shape[*reducedAxis], perThread);
    return blocked(reducedFirst);
  }
  return blocked(rowMajorOrder(rank));
}

Attribute LayoutInference::layoutOfClass(unsigned root) {
  if (auto it = layouts.find(root); it != layouts.end())
    return it->second;
  // A derivation that comes back to a class on its way (a slice whose
  // parent is derived from the slice) ends in the class's own choice.
  if (!inProgress.insert(root).second)
    return chooseBlocked(root);
  auto done = llvm::make_scope_exit([&] { inProgress.erase(root); });
  Attribute layout;
  if (auto it = sliceOf.find(root); it != sliceOf.end()) {
    layout = SliceEncodingAttr::get(func->getContext(), it->second.axis,
                                    layoutOfClass(find(it->second.parent)));
    // A tile loaded or stored and then expanded (tl.join, tl.expand_dims,
    // x[:, :, None]) would otherwise take the higher-rank tile's layout,
    // which was chosen for that tile's accesses: a 64x64 fp8 tile sliced
    // from a join's [64, 64, 2] gets one byte per thread and row, and every
    // access and shared-memory trip of it goes byte by byte. When the
    // class's own accesses vectorize wider than the slice allows, it keeps
    // its own layout and insertConversions converts at the expand_dims.
    if (isa<tile::ExpandDimsOp>(it->second.op)) {
      ClassAccess own = getBestAccess(root);
      int64_t vec = std::min(own.vec, elementsPerThread(own.shape, numWarps));
      if (vec > 1 && getRegisterRun(own.shape, layout, own.order.front()) < vec)
        layout = chooseBlocked(root);
    }
  } else if (reshapedFrom.contains(root)) {
    layout = deriveFromReshape(root);
  } else if (Operation *store = getStoreOfDotAddressedBy(root)) {
    layout = deriveFromStoredValue(root, store);
  } else {
    layout = chooseBlocked(root);
  }
  layouts[root] = layout;
  return layout;
}

Attribute LayoutInference::getLayout(Value value) {
  if (!isTile(value))
    return {};
  auto it = ids.find(value);
  if (it == ids.end())
    return {};
  return layoutOfClass(find(it->second));
}

//===----------------------------------------------------------------------===//
// Splitting cheap values
//===----------------------------------------------------------------------===//

static bool isCheapToRecompute(Operation *op) {
  if (!op || op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  if (isa<tile::MakeRangeOp, tile::SplatOp, arith::ConstantOp,
          tile::ExpandDimsOp, tile::BroadcastOp, tile::ReshapeOp>(op))
    return true;
  return isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ExtSIOp,
             arith::ExtUIOp, arith::TruncIOp, arith::CmpIOp, arith::AndIOp,
             arith::OrIOp, arith::SelectOp, arith::DivSIOp, arith::RemSIOp,
             arith::DivUIOp, arith::RemUIOp, arith::ShLIOp, arith::ShRSIOp,
             arith::ShRUIOp, arith::IndexCastOp, tile::AddPtrOp>(op);
}

/// Collects the tile-producing ops of the chain ending at `value`, operands
/// first; fails past `budget` ops or at an op that is not cheap.
static bool collectChain(Value value, llvm::SetVector<Operation *> &chain,
                         int &budget) {
  if (!isTile(value))
    return true;
  Operation *op = value.getDefiningOp();
  if (!isCheapToRecompute(op))
    return false;
  if (chain.contains(op))
    return true;
  if (--budget < 0)
    return false;
  for (Value operand : op->getOperands())
    if (!collectChain(operand, chain, budget))
      return false;
  chain.insert(op);
  return true;
}

bool tilec::cloneCheapChainForUse(OpOperand &use, bool onlyIfShared) {
  llvm::SetVector<Operation *> chain;
  int budget = 32;
  if (!collectChain(use.get(), chain, budget))
    return false;
  // Shared: an op of the chain has a user outside the chain other than
  // `use`'s owner (uses within the chain, as in a diamond `(r >= 0) & (r <
  // n)`, do not count: cloning would not separate anything).
  Operation *owner = use.getOwner();
  if (onlyIfShared && llvm::none_of(chain, [&](Operation *op) {
        return llvm::any_of(op->getUsers(), [&](Operation *user) {
          return user != owner && !chain.contains(user);
        });
      }))
    return false;
  IRMapping mapping;
  OpBuilder builder(use.getOwner()->getContext());
  for (Operation *op : chain) {
    builder.setInsertionPointAfter(op);
    builder.clone(*op, mapping);
  }
  use.set(mapping.lookup(use.get()));
  return true;
}
