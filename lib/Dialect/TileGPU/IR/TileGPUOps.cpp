//===- TileGPUOps.cpp - tilegpu dialect operations ------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  // convert(convert(x)) == convert(x), and folds away when it returns to x.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

namespace {
/// convert_layout of a value that costs nothing to recompute (splat,
/// make_range) recomputes it directly in the new layout.
struct RematerializeCheapSource : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (auto splat = dyn_cast_if_present<tile::SplatOp>(def)) {
      rewriter.replaceOpWithNewOp<tile::SplatOp>(op, op.getType(),
                                                 splat.getSrc());
      return success();
    }
    if (auto range = dyn_cast_if_present<tile::MakeRangeOp>(def)) {
      rewriter.replaceOpWithNewOp<tile::MakeRangeOp>(
          op, op.getType(), range.getStartAttr(), range.getEndAttr());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "source is not cheap to recompute");
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<RematerializeCheapSource>(context);
}

//===----------------------------------------------------------------------===//
// TMA and wgmma
//===----------------------------------------------------------------------===//

namespace {
/// warpgroup_wait's pendings lowered to the wgmma groups that can still be
/// running where it is (see the op's description).
struct TightenWarpgroupWait : OpRewritePattern<WarpgroupWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupWaitOp op,
                                PatternRewriter &rewriter) const override {
    int64_t issued = 0;
    std::optional<int64_t> left;
    for (Operation *prev = op->getPrevNode(); prev && !left; prev = prev->getPrevNode()) {
      if (auto wait = dyn_cast<WarpgroupWaitOp>(prev)) {
        left = wait.getPendings();
      } else if (auto dot = dyn_cast<WarpgroupDotOp>(prev)) {
        if (!dot.getIsAsync())
          left = 0;
        else
          ++issued;
      } else if (prev->getNumRegions() != 0) {
        // A nested dot or wait: the count is not known here.
        WalkResult nested = prev->walk([](Operation *inner) {
          return isa<WarpgroupDotOp, WarpgroupWaitOp>(inner) ? WalkResult::interrupt()
                                                              : WalkResult::advance();
        });
        if (nested.wasInterrupted())
          return rewriter.notifyMatchFailure(op, "a region between holds wgmma");
      }
    }
    if (!left)
      return rewriter.notifyMatchFailure(op, "no earlier wait in the block");
    int64_t bound = *left + issued;
    if (op.getPendings() <= bound)
      return rewriter.notifyMatchFailure(op, "already tight");
    rewriter.modifyOpInPlace(op, [&] { op.setPendings(static_cast<int32_t>(bound)); });
    return success();
  }
};
} // namespace

void WarpgroupWaitOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<TightenWarpgroupWait>(context);
}

/// The buffer tile a 2-d register tile lands in (transposed when asked).
static bool sameTile(RankedTensorType value, RankedTensorType buffer,
                     bool transposed) {
  if (value.getRank() != 2 || buffer.getRank() != 2 ||
      value.getElementType() != buffer.getElementType())
    return false;
  int64_t r = value.getDimSize(0), c = value.getDimSize(1);
  if (transposed)
    std::swap(r, c);
  return buffer.getDimSize(0) == r && buffer.getDimSize(1) == c;
}

LogicalResult LocalAllocOp::verify() {
  if (auto offset = getOffset(); offset && (*offset < 0 || *offset % 1024 != 0))
    return emitOpError() << "offset " << *offset
                         << " is not a non-negative multiple of 1024";
  RankedTensorType tile = getType().getTileType();
  if (tile.getRank() != 2)
    return emitOpError("rings hold 2-d tiles");
  return success();
}

LogicalResult MBarrierAllocOp::verify() {
  if (auto offset = getOffset(); offset && (*offset < 0 || *offset % 8 != 0))
    return emitOpError() << "offset " << *offset
                         << " is not a non-negative multiple of 8";
  if (getType().getCount() == 0)
    return emitOpError("allocates no mbarriers");
  return success();
}

LogicalResult LocalStoreOp::verify() {
  if (!sameTile(getValue().getType(), getDst().getType().getTileType(),
                getTransposed()))
    return emitOpError() << "stores " << getValue().getType() << " into a ring of "
                         << getDst().getType().getTileType()
                         << (getTransposed() ? " (transposed)" : "");
  return success();
}

static LogicalResult verifyTMACoordinates(Operation *op, TMADescriptorType desc,
                                          SharedMemoryType ring,
                                          size_t numCoords) {
  auto tile = ring.getTileType();
  auto block = desc.getBlockType();
  if (block.getShape() != tile.getShape() ||
      block.getElementType() != tile.getElementType())
    return op->emitOpError() << "descriptor block " << block
                             << " and shared tile " << tile << " must agree";
  if (numCoords != desc.getRank())
    return op->emitOpError() << "expects " << desc.getRank()
                             << " coordinates, got " << numCoords;
  return success();
}

/// Whether `op` is in a function with `tilegpu.cluster_dims` (a kernel
/// launched in thread-block clusters).
static bool isInClusterKernel(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  return func && func->hasAttr(TileGPUDialect::getClusterDimsAttrName());
}

LogicalResult MBarrierArriveOp::verify() {
  if (getClusterCTAs() && !isInClusterKernel(*this))
    return emitOpError("arrives across a cluster in a kernel without "
                       "'tilegpu.cluster_dims'");
  return success();
}

/// The rule of `oncePerProgram` (tilegpu.tma_load, its expect and its
/// buffer's release wait): directly in a persistent kernel's loop over
/// programs (or in the producer warpgroup's copy of it), without a
/// predicate.
static LogicalResult verifyOncePerProgram(Operation *op, bool marked, Value pred) {
  if (!marked)
    return success();
  auto loop = dyn_cast_or_null<scf::ForOp>(op->getParentOp());
  auto kernel = op->getParentOfType<FunctionOpInterface>();
  bool overPrograms =
      loop && (loop->hasAttr(TileGPUDialect::getPersistentAttrName()) ||
               (isa_and_nonnull<WarpSpecializeOp>(loop->getParentOp()) &&
                WarpSpecializeOp::isInProducer(loop) && kernel &&
                kernel->hasAttr(TileGPUDialect::getPersistentAttrName())));
  if (!overPrograms)
    return op->emitOpError("with 'oncePerProgram' must be directly in a "
                           "persistent kernel's loop over programs");
  if (pred)
    return op->emitOpError("with 'oncePerProgram' takes no predicate");
  return success();
}

LogicalResult MBarrierExpectOp::verify() {
  return verifyOncePerProgram(*this, getOncePerProgram(), getPred());
}

LogicalResult MBarrierWaitOp::verify() {
  if (getOncePerProgram() && !getLeader())
    return emitOpError("with 'oncePerProgram' must be the leader's wait");
  return verifyOncePerProgram(*this, getOncePerProgram(), getPred());
}

LogicalResult TMALoadOp::verify() {
  if (failed(verifyOncePerProgram(*this, getOncePerProgram(), getPred())))
    return failure();
  if (failed(verifyTMACoordinates(*this, getDesc().getType(), getDst().getType(),
                                  getCoords().size())))
    return failure();
  if (getMulticastIf() && !getMulticast())
    return emitOpError("has 'multicast_if' without 'multicast'");
  if (getMulticast() && !isInClusterKernel(*this))
    return emitOpError("multicasts in a kernel without 'tilegpu.cluster_dims'");
  if (std::optional<uint32_t> ctas = getMulticast()) {
    int64_t boxes = getDst().getType().getBoxCount();
    if (boxes % *ctas != 0)
      return emitOpError() << "multicasts a block of " << boxes
                           << " box(es) to " << *ctas
                           << " CTAs, which must share them out evenly";
  }
  return success();
}

LogicalResult TMAStoreOp::verify() {
  if (getAdd() && !getSrc().getType().getTileType().getElementType().isF32())
    return emitOpError() << "adds " << getSrc().getType().getTileType()
                         << "; a TMA reduction here adds f32 tiles only";
  return verifyTMACoordinates(*this, getDesc().getType(), getSrc().getType(),
                              getCoords().size());
}

LogicalResult AsyncCopyOp::verify() {
  auto ptrType = getPtr().getType();
  auto element = cast<tile::PointerType>(ptrType.getElementType()).getPointeeType();
  if (!sameTile(ptrType.clone(element), getDst().getType().getTileType(),
                getTransposed()))
    return emitOpError() << "copies " << ptrType << " into a ring of "
                         << getDst().getType().getTileType()
                         << (getTransposed() ? " (transposed)" : "");
  if (getMask() && getMask().getType().getShape() != ptrType.getShape())
    return emitOpError("mask and pointers must have one shape");
  int64_t bytes = int64_t(getVec()) * element.getIntOrFloatBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError() << "copies " << bytes
                         << " bytes per cp.async; it takes 4, 8 or 16";
  return success();
}

RankedTensorType WarpgroupDotOp::getATileType() {
  if (auto ring = dyn_cast<SharedMemoryType>(getA().getType()))
    return ring.getTileType();
  return cast<RankedTensorType>(getA().getType());
}

LogicalResult WarpgroupDotOp::verify() {
  auto a = getATileType(), b = getB().getType().getTileType();
  auto c = getC().getType();
  if (!isa<WarpgroupMMAEncodingAttr>(c.getEncoding()))
    return emitOpError("the accumulator must be in a #tilegpu.wgmma layout");
  if (hasRegisterA() == static_cast<bool>(getAIndex()))
    return emitOpError("a shared-memory A takes a buffer index, a register A none");
  if (hasRegisterA() && !isa<WarpgroupMMAEncodingAttr>(a.getEncoding()))
    return emitOpError("a register A must be in a #tilegpu.wgmma layout");
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands and accumulator must be 2-d");
  int64_t bK = b.getDimSize(getBTransposed() ? 1 : 0);
  int64_t bN = b.getDimSize(getBTransposed() ? 0 : 1);
  if (a.getDimSize(1) != bK || a.getDimSize(0) != c.getDimSize(0) ||
      bN != c.getDimSize(1))
    return emitOpError() << "shapes " << a << " @ " << b
                         << (getBTransposed() ? " (transposed)" : "") << " -> "
                         << c << " do not form a matrix product";
  if (a.getElementTypeBitWidth() != 16 && !getBTransposed())
    return emitOpError() << "wgmma reads " << a.getElementType()
                         << " operands K-major only: b must be bTransposed";
  if (a.getElementType() != b.getElementType())
    return emitOpError("a and b must have one element type");
  return success();
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

/// The registers of one SM (and the most one CTA can hold).
static constexpr int64_t kRegistersPerSM = 64 * 1024;

unsigned WarpSpecializeOp::getConsumerWarps() {
  return lookupNumWarps(getOperation()).value_or(0);
}

bool WarpSpecializeOp::isInProducer(Operation *op, WarpSpecializeOp *ws) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    Region *region = cur->getParentRegion();
    auto parent = region ? dyn_cast<WarpSpecializeOp>(region->getParentOp())
                         : WarpSpecializeOp();
    if (!parent)
      continue;
    if (ws)
      *ws = parent;
    return region == &parent.getProducer();
  }
  return false;
}

WarpSpecializeOp WarpSpecializeOp::getConsumerParent(Operation *op) {
  WarpSpecializeOp ws;
  if (isInProducer(op, &ws) || !ws)
    return WarpSpecializeOp();
  return ws;
}

LogicalResult WarpSpecializeOp::verify() {
  auto checkRegisters = [&](StringRef name, int64_t count) -> LogicalResult {
    if (count < 24 || count > 256 || count % 8 != 0)
      return emitOpError() << name << " " << count
                           << " is not a multiple of 8 in [24, 256] "
                              "(setmaxnreg, PTX ISA)";
    return success();
  };
  if (failed(checkRegisters("producerRegisters", getProducerRegisters())) ||
      failed(checkRegisters("consumerRegisters", getConsumerRegisters())))
    return failure();
  if (getProducerWarps() % 4 != 0)
    return emitOpError() << "producerWarps " << getProducerWarps()
                         << " is not whole warpgroups (setmaxnreg changes "
                            "the registers of a warpgroup)";
  std::optional<unsigned> numWarps = lookupNumWarps(getOperation());
  if (!numWarps)
    return emitOpError("is not in a kernel with tilegpu.num_warps");
  if (*numWarps % 4 != 0)
    return emitOpError() << "needs the consumers to be whole warpgroups, not "
                         << *numWarps << " warps";
  int64_t threads = (*numWarps + getProducerWarps()) * kThreadsPerWarp;
  if (threads > 1024)
    return emitOpError() << "makes a CTA of " << threads
                         << " threads, more than 1024";
  int64_t registers =
      getProducerRegisters() * getProducerWarps() * kThreadsPerWarp +
      getConsumerRegisters() * *numWarps * kThreadsPerWarp;
  if (registers > kRegistersPerSM)
    return emitOpError() << "asks for " << registers
                         << " registers, more than the " << kRegistersPerSM
                         << " of an SM";
  for (Operation *op = (*this)->getParentOp(); op; op = op->getParentOp())
    if (isa<WarpSpecializeOp>(op))
      return emitOpError("is nested in another warp_specialize");
  // Ring handoffs: 0, 1, ... in each region, the same count in both.
  SmallVector<int64_t, 2> handoffs;
  for (Region *region : {&getConsumer(), &getProducer()}) {
    int64_t next = 0;
    for (auto handoff : region->front().getOps<RingHandoffOp>())
      if (handoff.getIndex() != next++)
        return handoff.emitOpError()
               << "is handoff " << handoff.getIndex() << " where its region's handoff "
               << next - 1 << " belongs (each region counts them 0, 1, ...)";
    handoffs.push_back(next);
  }
  if (handoffs[0] != handoffs[1])
    return emitOpError() << "has " << handoffs[0] << " ring handoffs in the consumer "
                         << "region and " << handoffs[1] << " in the producer region";
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

/// Turns order the two consumer warpgroups of a warp_specialize with 8
/// consumer warps.
static LogicalResult verifyTurn(Operation *op) {
  WarpSpecializeOp ws = WarpSpecializeOp::getConsumerParent(op);
  if (!ws)
    return op->emitOpError("must be in the consumer region of a "
                           "tilegpu.warp_specialize");
  if (ws.getConsumerWarps() != 2 * kWarpsPerWarpgroup)
    return op->emitOpError("needs two consumer warpgroups, the "
                           "tilegpu.warp_specialize has ")
           << ws.getConsumerWarps() << " consumer warps";
  return success();
}

LogicalResult TurnWaitOp::verify() { return verifyTurn(*this); }
LogicalResult TurnPassOp::verify() { return verifyTurn(*this); }
