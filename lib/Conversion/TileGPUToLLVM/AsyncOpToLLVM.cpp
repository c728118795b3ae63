//===- AsyncOpToLLVM.cpp - shared rings, mbarriers, TMA and cp.async ------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Hopper asynchronous ops of tilegpu, lowered to upstream NVVM ops (which
// convert-to-llvm turns into intrinsics or, where NVVM has none, into PTX):
//
// - `barrier`: `bar.sync 0`; `fence_async_shared`: `nvvm.fence.proxy
//   async.shared::cta`; `turn_wait` / `turn_pass`: `bar.sync` /
//   `bar.arrive` on the consumer warpgroups' turn barriers 3 and 4;
//   `ring_handoff`: `bar.arrive` (consumers, after a proxy fence) /
//   `bar.sync` (producer) on named barrier 5 + index.
// - `local_alloc` / `mbarrier_alloc`: addresses at the offsets
//   tilegpu-allocate-shared assigned in the dynamic shared memory.
// - `mbarrier_init` / `mbarrier_inval`: `nvvm.mbarrier.init` / `inval` by
//   thread 0, `nvvm.fence.mbarrier.init` and CTA barriers (cluster
//   barriers with `clusterSync`).
// - `mbarrier_arrive`: a predicated arrive (inline PTX), with
//   `clusterCTAs` one per CTA of the cluster through `mapa`.
// - `mbarrier_expect`: `nvvm.mbarrier.arrive.expect_tx` by thread 0.
// - `mbarrier_wait`: `nvvm.mbarrier.try_wait.parity` (a loop); with a spin
//   limit, inline PTX that gives up, prints the wait's location and traps
//   (NVVM has no bounded wait).
// - `tma_load` / `tma_store`: `nvvm.cp.async.bulk.tensor.shared.cluster.global`
//   / `.global.shared.cta` by thread 0, one per swizzle-wide box (with
//   `multicast`, this CTA's share of the boxes, `.multicast::cluster`);
//   `tma_store_wait`: `nvvm.cp.async.bulk.wait_group.read 0`.
// - `async_copy`: `nvvm.cp.async.shared.global` of 4, 8 or 16 bytes per
//   run of the thread's elements, `src-size` 0 where masked off;
//   `async_commit_group` / `async_wait`: `nvvm.cp.async.commit.group` /
//   `wait.group`.
// - `local_store`: `stmatrix` (a 16-bit tile whose 8 x 8 blocks are mma
//   fragments, MatrixStore.h) or swizzled vector stores of the thread's
//   runs.
// - `warpgroup_dot` / `warpgroup_wait`: WarpgroupMMA.h.
//
// The TMA descriptor is the address of a by-value kernel parameter
// (`.param .align 64 .b8 [128]`, `__grid_constant__`), read through a
// generic address.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"
#include "WarpgroupMMA.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

/// `base + index * stride` bytes.
Value offsetPtr(OpBuilder &b, Location loc, Value base, Value index,
                int64_t stride) {
  Value bytes = arith::MulIOp::create(b, loc, index, i32Val(b, loc, stride));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{bytes});
}

/// True in the leader thread of `anchor` (thread 0, or the producer's
/// first thread in a warp-specialized producer; getLeaderThread), and when
/// `pred`, if given.
Value emitLeaderPredicate(OpBuilder &b, Location loc, Operation *anchor,
                          Value pred) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                       i32Val(b, loc, getLeaderThread(anchor)));
  return pred ? arith::AndIOp::create(b, loc, leader, pred) : leader;
}

/// The address of an allocation at the offset tilegpu-allocate-shared gave.
FailureOr<Value> getAllocAddress(OpBuilder &b, Location loc, Operation *op,
                                 std::optional<int64_t> offset) {
  if (!offset) {
    op->emitOpError("has no shared-memory offset (tilegpu-allocate-shared did "
                    "not run)");
    return failure();
  }
  Value base = getSharedMemoryBase(b, loc, op);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{i32Val(b, loc, *offset)})
      .getResult();
}

struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc(), op);
    rewriter.eraseOp(op);
    return success();
  }
};

/// turn_wait / turn_pass: `bar.sync` / `bar.arrive` of the 256 consumer
/// threads on this (wait) or the other (pass) warpgroup's turn barrier,
/// under `warpgroup == g` when the op names one.
template <typename Op, bool isPass>
struct TurnLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    int32_t threadsPerGroup = kWarpsPerWarpgroup * kThreadsPerWarp;
    Value group = arith::DivUIOp::create(rewriter, loc, tid,
                                         i32Val(rewriter, loc, threadsPerGroup));
    OpBuilder::InsertionGuard guard(rewriter);
    if (std::optional<uint32_t> only = op.getWarpgroup()) {
      Value isOnly = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                           group, i32Val(rewriter, loc, *only));
      auto ifOp = scf::IfOp::create(rewriter, loc, isOnly, /*withElse=*/false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    // Wait: 3 + g; pass: 3 + (1 - g) = 4 - g.
    Value id = isPass ? arith::SubIOp::create(rewriter, loc,
                                              i32Val(rewriter, loc, kFirstTurnBarrierId + 1),
                                              group)
                              .getResult()
                      : arith::AddIOp::create(rewriter, loc, group,
                                              i32Val(rewriter, loc, kFirstTurnBarrierId))
                              .getResult();
    Value threads = i32Val(rewriter, loc, 2 * threadsPerGroup);
    if (isPass)
      NVVM::BarrierArriveOp::create(rewriter, loc, id, threads);
    else
      emitNamedBarrier(rewriter, loc, id, threads);
    rewriter.eraseOp(op);
    return success();
  }
};

void emitFenceAsyncShared(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

/// ring_handoff: the consumers fence their shared-memory accesses against
/// the async proxy (the producer's TMA copies) and arrive on the handoff's
/// named barrier; the producer's warp waits there.
static_assert(kFirstHandoffBarrierId + kMaxRingHandoffs == 16,
              "ring handoffs take the named barriers left of the 16");

struct RingHandoffLowering : OpConversionPattern<RingHandoffOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingHandoffOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    WarpSpecializeOp ws;
    bool producer = WarpSpecializeOp::isInProducer(op, &ws);
    if (!ws)
      return rewriter.notifyMatchFailure(op, "not in a tilegpu.warp_specialize");
    Value id = i32Val(rewriter, loc, kFirstHandoffBarrierId + static_cast<int32_t>(op.getIndex()));
    Value threads = i32Val(rewriter, loc,
                           static_cast<int32_t>((ws.getConsumerWarps() + 1) * kThreadsPerWarp));
    if (producer) {
      emitNamedBarrier(rewriter, loc, id, threads);
    } else {
      emitFenceAsyncShared(rewriter, loc);
      NVVM::BarrierArriveOp::create(rewriter, loc, id, threads);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedLowering : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitFenceAsyncShared(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalAllocLowering : OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> addr = getAllocAddress(rewriter, op.getLoc(), op, op.getOffset());
    if (failed(addr))
      return failure();
    rewriter.replaceOp(op, *addr);
    return success();
  }
};

struct MBarrierAllocLowering : OpConversionPattern<MBarrierAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> addr = getAllocAddress(rewriter, op.getLoc(), op, op.getOffset());
    if (failed(addr))
      return failure();
    rewriter.replaceOp(op, *addr);
    return success();
  }
};

/// A barrier of the whole thread-block cluster (PTX ISA §9.7.13.2):
/// every non-exited thread of every CTA arrives (release) and waits
/// (acquire); it orders this CTA's threads too.
void emitClusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}

/// Whether another `tilegpu.mbarrier_init` of the same kind (CTA or
/// cluster) follows `op` in its block with only side-effect-free ops
/// between: the last of such a run fences and synchronizes for all of them
/// (a kernel's prologue then has one barrier, not one per ring).
bool isFollowedByInit(MBarrierInitOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    if (auto init = dyn_cast<MBarrierInitOp>(next))
      return init.getClusterSync() == op.getClusterSync();
    if (!isMemoryEffectFree(next))
      return false;
  }
  return false;
}

struct MBarrierInitLowering : OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value leader = emitLeaderPredicate(rewriter, loc, op, Value());
    for (unsigned i = 0; i < op.getBarriers().getType().getCount(); ++i) {
      Value bar = offsetPtr(rewriter, loc, adaptor.getBarriers(),
                            i32Val(rewriter, loc, i), 8);
      NVVM::MBarrierInitOp::create(rewriter, loc, bar,
                                   i32Val(rewriter, loc, op.getCount()), leader);
    }
    // The initialization is visible to the async proxy (TMA) and to every
    // thread before anyone uses the barriers.
    if (isFollowedByInit(op)) {
      rewriter.eraseOp(op);
      return success();
    }
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    if (op.getClusterSync())
      emitClusterBarrier(rewriter, loc);
    else
      emitBarrier(rewriter, loc, op);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierInvalLowering : OpConversionPattern<MBarrierInvalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInvalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Every thread is past its last wait on them (and, for a cluster, its
    // last remote arrival).
    if (op.getClusterSync())
      emitClusterBarrier(rewriter, loc);
    else
      emitBarrier(rewriter, loc, op);
    Value leader = emitLeaderPredicate(rewriter, loc, op, Value());
    auto ifOp = scf::IfOp::create(rewriter, loc, leader, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    for (unsigned i = 0; i < op.getBarriers().getType().getCount(); ++i)
      NVVM::MBarrierInvalOp::create(
          rewriter, loc,
          offsetPtr(rewriter, loc, adaptor.getBarriers(), i32Val(rewriter, loc, i), 8));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierExpectLowering : OpConversionPattern<MBarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = offsetPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex(), 8);
    Value pred = emitLeaderPredicate(rewriter, loc, op, adaptor.getPred());
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, /*res=*/Type(), bar, i32Val(rewriter, loc, op.getBytes()),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, pred);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = offsetPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex(), 8);
    // Lane 0 of each warp (and `pred`).
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value lane = arith::AndIOp::create(rewriter, loc, tid, i32Val(rewriter, loc, 31));
    Value cond = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane,
                                       i32Val(rewriter, loc, 0));
    if (adaptor.getPred())
      cond = arith::AndIOp::create(rewriter, loc, cond, adaptor.getPred());
    // A predicated instruction, not a branch: a release sits where the
    // warpgroup's wgmma may be in flight, and a branch only some threads
    // take there makes ptxas serialize every wgmma of the kernel (C7520).
    // NVVM's arrive takes no predicate: inline PTX (docs/architecture.md).
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), bar);
    auto emitAsm = [&](ValueRange operands, StringRef text, StringRef constraints) {
      LLVM::InlineAsmOp::create(
          rewriter, loc, TypeRange(), operands, text, constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(rewriter.getContext(), LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
    };
    if (std::optional<uint32_t> ctas = op.getClusterCTAs()) {
      // Lanes 0 … C-1 instead of lane 0: lane q arrives on the barrier at
      // the same offset in the CTA of rank q (mapa; release at CTA scope,
      // as CUTLASS's ClusterBarrier: what it orders is the warp's wgmma
      // reads of the slot, complete once retired).
      // NVVM's mapa and arrive take no predicate: inline PTX too. The rank
      // is taken modulo C so that lanes that do not arrive map valid ranks.
      Value rank = arith::AndIOp::create(rewriter, loc, lane,
                                         i32Val(rewriter, loc, *ctas - 1));
      Value arrives = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                            lane, i32Val(rewriter, loc, *ctas));
      if (adaptor.getPred())
        arrives = arith::AndIOp::create(rewriter, loc, arrives, adaptor.getPred());
      emitAsm(ValueRange{arrives, addr, rank},
              "{\n\t.reg .b32 remote;\n\t"
              "mapa.shared::cluster.u32 remote, $1, $2;\n\t"
              "@$0 mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}",
              "b,r,r");
      rewriter.eraseOp(op);
      return success();
    }
    emitAsm(ValueRange{cond, addr}, "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];", "b,r");
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : OpConversionPattern<MBarrierWaitOp> {
  MBarrierWaitLowering(const TypeConverter &converter, MLIRContext *ctx,
                       LoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = offsetPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex(), 8);
    if (!op.getLeader() && !adaptor.getPred() && state.mbarrierSpinLimit <= 0) {
      // Every thread waits. Suspend for up to 10 ms per try (the hint
      // upstream's nvgpu uses).
      NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, bar, adaptor.getPhase(),
                                            i32Val(rewriter, loc, 10000000));
      rewriter.eraseOp(op);
      return success();
    }
    // The threads that wait: the leader, or those where `pred` holds.
    Value polls = op.getLeader()
                      ? emitLeaderPredicate(rewriter, loc, op, adaptor.getPred())
                      : adaptor.getPred();
    if (!polls)
      polls = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    emitWaitLoop(rewriter, loc, op, bar, adaptor.getPhase(), polls);
    rewriter.eraseOp(op);
    return success();
  }

  /// Prints where `op` gave up and traps when `timedOut` (the bounded
  /// spin's result) is non-zero.
  void emitTimeoutTrap(ConversionPatternRewriter &rewriter, Location loc,
                       MBarrierWaitOp op, Value timedOut) const {
    Value failed = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                         timedOut, i32Val(rewriter, loc, 0));
    auto ifOp = scf::IfOp::create(rewriter, loc, failed, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      std::string where;
      llvm::raw_string_ostream os(where);
      loc.print(os);
      auto module = op->getParentOfType<ModuleOp>();
      std::string message = "tilec: mbarrier wait timed out after " +
                            std::to_string(state.mbarrierSpinLimit) +
                            " polls at " + where +
                            " (a pipeline bug: the awaited TMA copy never "
                            "arrived); trapping\n";
      // NUL-terminated (LLVM::createGlobalString's array has no NUL, and
      // vprintf read past it).
      Value fmt = emitGlobalString(rewriter, loc, op, "tilec_wait_timeout",
                                   message);
      Value null = LLVM::ZeroOp::create(rewriter, loc,
                                        LLVM::LLVMPointerType::get(rewriter.getContext()));
      LLVM::CallOp::create(rewriter, loc, getOrDeclareVprintf(rewriter, module),
                           ValueRange{fmt, null});
      LLVM::Trap::create(rewriter, loc);
    }
  }

  /// A wait without a branch around it: every thread of the warp runs the
  /// loop, those where `polls` holds try the barrier, the others count as
  /// done, and a `vote.all` of the warp decides, so that every branch is
  /// uniform (`bra.uni`, which a thread's own try_wait result is not). The
  /// leader's wait before a refill sits where a warpgroup's wgmma may be in
  /// flight (the GEMM's accumulator), and a branch only thread 0 takes
  /// there makes ptxas serialize every wgmma of the kernel (C7520). With
  /// the conversion's spin limit the loop gives up and traps with a
  /// message. NVVM has neither: inline PTX (docs/architecture.md).
  void emitWaitLoop(ConversionPatternRewriter &rewriter, Location loc,
                    MBarrierWaitOp op, Value bar, Value phase, Value polls) const {
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), bar);
    bool bounded = state.mbarrierSpinLimit > 0;
    std::string limit =
        bounded ? "add.u32 polls, polls, 1;\n"
                  "setp.lt.u32 more, polls, " +
                      std::to_string(state.mbarrierSpinLimit) +
                      ";\n"
                      "@more bra.uni wait_loop;\n"
                : "bra.uni wait_loop;\n";
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{rewriter.getI32Type()}, ValueRange{addr, phase, polls},
        "{\n"
        ".reg .pred complete, all, more;\n"
        ".reg .u32 polls;\n"
        "mov.u32 polls, 0;\n"
        "wait_loop:\n"
        "setp.eq.u32 complete, 0, 0;\n"
        "@$3 mbarrier.try_wait.parity.shared::cta.b64 complete, [$1], $2;\n"
        "vote.sync.all.pred all, complete, 0xffffffff;\n"
        "@all bra.uni wait_done;\n" +
            limit +
            "wait_done:\n"
            "selp.u32 $0, 0, 1, all;\n"
            "}",
        "=r,r,r,b", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    if (bounded)
      emitTimeoutTrap(rewriter, loc, op, asmOp.getResult(0));
  }

  LoweringState &state;
};

/// Thread 0 issues one bulk tensor copy per swizzle-wide box of a buffer:
/// `emit(boxAddress, coordinates innermost first, pred)`.
void forEachBox(OpBuilder &b, Location loc, SharedMemoryType ring, Value buffer,
                ValueRange coords,
                function_ref<void(Value, ArrayRef<Value>)> emit) {
  SharedTileLayout shared = ring.getLayout();
  // coords: outermost first; the last two are the buffer's rows and columns.
  SmallVector<Value> inner(llvm::reverse(coords));
  Value col = inner[0];
  int64_t boxCols = shared.getBlockCols();
  for (int64_t j = 0; j * boxCols < shared.cols; ++j) {
    Value boxAddr = offsetPtr(b, loc, buffer, i32Val(b, loc, j),
                              shared.rows * shared.swizzleBytes);
    inner[0] = j == 0 ? col
                      : Value(arith::AddIOp::create(b, loc, col,
                                                    i32Val(b, loc, j * boxCols)));
    emit(boxAddr, inner);
  }
}

struct TMALoadLowering : OpConversionPattern<TMALoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedMemoryType ring = op.getDst().getType();
    Value dst = offsetPtr(rewriter, loc, adaptor.getDst(), adaptor.getIndex(),
                          ring.getBufferBytes());
    Value bar = offsetPtr(rewriter, loc, adaptor.getBarriers(),
                          adaptor.getBarrierIndex(), 8);
    Value pred = emitLeaderPredicate(rewriter, loc, op, adaptor.getPred());
    // Multicast into the first C CTAs of the cluster: the CTA of rank r
    // issues boxes r, r + C, …
    std::optional<uint32_t> ctas = op.getMulticast();
    Value rank, mask;
    if (ctas) {
      rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
      mask = arith::ConstantOp::create(
          rewriter, loc, rewriter.getI16IntegerAttr((1 << *ctas) - 1));
    }
    // With `multicast_if`, when it is false, every box of its own.
    Value shared = adaptor.getMulticastIf(), own;
    if (shared) {
      Value notShared = arith::XOrIOp::create(
          rewriter, loc, shared,
          arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
      own = arith::AndIOp::create(rewriter, loc, pred, notShared);
    }
    int64_t box = 0;
    forEachBox(rewriter, loc, ring, dst, adaptor.getCoords(),
               [&](Value boxAddr, ArrayRef<Value> coords) {
                 auto copy = [&](Value issues, Value multicastMask) {
                   NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                       rewriter, loc, boxAddr, adaptor.getDesc(), coords, bar,
                       /*im2colOffsets=*/ValueRange(), multicastMask,
                       /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
                       /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(),
                       issues);
                 };
                 if (!ctas) {
                   copy(pred, Value());
                   return;
                 }
                 Value mine = arith::CmpIOp::create(
                     rewriter, loc, arith::CmpIPredicate::eq, rank,
                     i32Val(rewriter, loc, box++ % *ctas));
                 Value issues = arith::AndIOp::create(rewriter, loc, pred, mine);
                 if (shared)
                   issues = arith::AndIOp::create(rewriter, loc, issues, shared);
                 copy(issues, mask);
                 if (own)
                   copy(own, Value());
               });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : OpConversionPattern<TMAStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedMemoryType ring = op.getSrc().getType();
    Value src = offsetPtr(rewriter, loc, adaptor.getSrc(), adaptor.getIndex(),
                          ring.getBufferBytes());
    Value leader = emitLeaderPredicate(rewriter, loc, op, adaptor.getPred());
    auto ifOp = scf::IfOp::create(rewriter, loc, leader, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    forEachBox(rewriter, loc, ring, src, adaptor.getCoords(),
               [&](Value box, ArrayRef<Value> coords) {
                 if (op.getAdd())
                   NVVM::CpAsyncBulkTensorReduceOp::create(
                       rewriter, loc, adaptor.getDesc(), box, NVVM::TMAReduxKind::ADD,
                       NVVM::TMAStoreMode::TILE, coords, /*l2CacheHint=*/Value());
                 else
                   NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                       rewriter, loc, adaptor.getDesc(), box, coords,
                       /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
                       /*predicate=*/Value());
               });
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitLowering : OpConversionPattern<TMAStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Threads without bulk stores return at once.
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, op.getLoc(),
                                         rewriter.getI32IntegerAttr(0),
                                         rewriter.getUnitAttr());
    emitBarrier(rewriter, op.getLoc(), op);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<LinearLayout> layout = getLayoutOf(loc, op.getPtr().getType());
    if (failed(layout))
      return failure();
    SharedMemoryType ring = op.getDst().getType();
    SharedTileLayout shared = ring.getLayout();
    Value buffer = offsetPtr(rewriter, loc, adaptor.getDst().front(),
                             adaptor.getIndex().front(), ring.getBufferBytes());
    int64_t vec = op.getVec();
    int64_t bytes = vec * shared.elementBytes;
    ValueRange ptrs = adaptor.getPtr();
    ValueRange masks = adaptor.getMask();
    Value pred = adaptor.getPred().empty() ? Value() : adaptor.getPred().front();
    auto coords = emitCoordinates(rewriter, loc, *layout, getThreadIndices(rewriter, loc));
    // Runs of `vec` consecutive register slots are consecutive elements
    // (getAccessRun checked it when the copy was chosen); one copy each.
    // Replicated elements are copied by every thread holding them (the
    // same bytes to the same place).
    for (int64_t r = 0; r < static_cast<int64_t>(ptrs.size()); r += vec) {
      Value dst = emitSwizzledAddress(rewriter, loc, buffer, shared, coords[r],
                                 op.getTransposed());
      Value valid = masks.empty() ? Value() : masks[r];
      if (pred)
        valid = valid ? arith::AndIOp::create(rewriter, loc, valid, pred).getResult()
                      : pred;
      Value srcSize;
      if (valid)
        srcSize = arith::SelectOp::create(rewriter, loc, valid,
                                          i32Val(rewriter, loc, bytes),
                                          i32Val(rewriter, loc, 0));
      // .cg (L2 only) takes 16 bytes, .ca the smaller sizes.
      auto modifier = bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                  : NVVM::LoadCacheModifierKind::CA;
      NVVM::CpAsyncOp::create(rewriter, loc, dst, ptrs[r], bytes, modifier, srcSize);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitGroupLowering : OpConversionPattern<AsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalStoreLowering : OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<LinearLayout> layout = getLayoutOf(loc, op.getValue().getType());
    if (failed(layout))
      return failure();
    SharedMemoryType ring = op.getDst().getType();
    Value buffer = offsetPtr(rewriter, loc, adaptor.getDst().front(),
                             adaptor.getIndex().front(), ring.getBufferBytes());
    storeTileSwizzled(rewriter, loc, buffer, *layout, adaptor.getValue(),
                      ring.getLayout(), op.getTransposed());
    rewriter.eraseOp(op);
    return success();
  }
};

struct WarpgroupDotLowering : OpConversionPattern<WarpgroupDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    WarpgroupOperandA a;
    if (op.hasRegisterA()) {
      a.registers = adaptor.getA();
      a.layout = cast<WarpgroupMMAEncodingAttr>(op.getATileType().getEncoding());
    } else {
      auto ring = cast<SharedMemoryType>(op.getA().getType());
      a.base = offsetPtr(rewriter, loc, adaptor.getA().front(),
                         adaptor.getAIndex().front(), ring.getBufferBytes());
      a.shared = ring.getLayout();
    }
    Value bBase = offsetPtr(rewriter, loc, adaptor.getB().front(),
                            adaptor.getBIndex().front(),
                            op.getB().getType().getBufferBytes());
    auto cType = cast<RankedTensorType>(op.getC().getType());
    // A C of zeros (attention's QK^T) is not materialized (scale-d 0).
    bool zeroC = matchPattern(op.getC(), m_AnyZeroFloat());
    FailureOr<SmallVector<Value>> accs = emitWarpgroupMMA(
        rewriter, loc, op, a, op.getATileType(), bBase,
        op.getB().getType().getLayout(), op.getBTransposed(), cType,
        op.getATileType().getElementType(), adaptor.getC(), zeroC);
    if (failed(accs))
      return failure();
    SmallVector<Value> results = *accs;
    if (!op.getIsAsync())
      results = emitWarpgroupWait(rewriter, loc, results, 0);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct WarpgroupWaitLowering : OpConversionPattern<WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  /// Whether `input` is not a dot's register A (the wait keeps those alive
  /// in the IR only).
  static bool isAccumulator(Value input) {
    return llvm::none_of(input.getUsers(), [&](Operation *user) {
      auto dot = dyn_cast<WarpgroupDotOp>(user);
      return dot && dot.getA() == input;
    });
  }
  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Only the accumulators pass through the wait. An input that is a
    // dot's register A is kept alive by the wait in the IR; passing its
    // values into the asm would read them before the wait, where they are
    // an in-flight wgmma's operands: ptxas then waits for that wgmma there
    // (C7517), or serializes every wgmma when that is under a branch
    // (C7518; the one-sweep backward). ptxas itself keeps the registers of
    // an in-flight wgmma, and LLVM has no physical registers to reuse.
    SmallVector<bool> passes = llvm::map_to_vector(op.getInputs(), isAccumulator);
    SmallVector<Value> flat;
    for (auto [values, pass] : llvm::zip(adaptor.getInputs(), passes))
      if (pass)
        flat.append(values.begin(), values.end());
    SmallVector<Value> waited =
        emitWarpgroupWait(rewriter, op.getLoc(), flat, op.getPendings());
    SmallVector<SmallVector<Value>> results;
    unsigned next = 0;
    for (auto [values, pass] : llvm::zip(adaptor.getInputs(), passes)) {
      if (!pass) {
        results.emplace_back(values.begin(), values.end());
        continue;
      }
      results.emplace_back(waited.begin() + next,
                           waited.begin() + next + values.size());
      next += values.size();
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

} // namespace

void lowering::populateAsyncOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             LoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<RingHandoffLowering>(converter, ctx);
  patterns.add<TurnLowering<TurnWaitOp, false>, TurnLowering<TurnPassOp, true>>(
      converter, ctx);
  patterns.add<BarrierLowering, FenceAsyncSharedLowering, LocalAllocLowering,
               MBarrierAllocLowering, MBarrierInitLowering, MBarrierInvalLowering,
               MBarrierExpectLowering, MBarrierArriveLowering, TMALoadLowering, TMAStoreLowering,
               TMAStoreWaitLowering, AsyncCopyLowering, AsyncCommitGroupLowering,
               AsyncWaitLowering, LocalStoreLowering, WarpgroupDotLowering,
               WarpgroupWaitLowering>(converter, ctx);
  patterns.add<MBarrierWaitLowering>(converter, ctx, state);
}
