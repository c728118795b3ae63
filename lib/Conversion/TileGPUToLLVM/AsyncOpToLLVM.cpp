//===- AsyncOpToLLVM.cpp - shared rings, mbarriers, TMA and async wgmma ---===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Hopper asynchronous ops of tilegpu, lowered to PTX:
//
// - `barrier`: `bar.sync 0`.
// - `local_alloc` / `mbarrier_alloc`: addresses in the kernel-lifetime part
//   of the dynamic shared memory (assignKernelSharedMemory lays it out before
//   the conversion: rings first, each 1024-byte aligned for the 128-byte
//   swizzle, then the 8-byte mbarriers); mbarriers are initialized by thread
//   0 (`mbarrier.init`, `fence.mbarrier_init`, CTA barrier).
// - `mbarrier_expect`: `mbarrier.arrive.expect_tx` by thread 0 (PTX ISA
//   §9.7.13.15.11).
// - `mbarrier_wait`: a `mbarrier.try_wait.parity` loop (§9.7.13.15.16), with
//   a bounded variant that prints the wait's source location and traps.
// - `tma_load`: `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::
//   complete_tx::bytes` by thread 0, one per swizzle-wide box (§9.7.9.25.4.1).
// - `warpgroup_dot` / `warpgroup_wait`: wgmma on shared-memory operands and
//   `wgmma.wait_group` (WarpgroupMMA.h).
//
// The TMA descriptor is the address of a by-value kernel parameter
// (`.param .align 64 .b8 [128]`, `__grid_constant__`), which the copy reads
// through a generic address.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"
#include "WarpgroupMMA.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
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

/// Byte offset of a kernel-lifetime allocation in dynamic shared memory.
static constexpr llvm::StringLiteral kOffsetAttrName = "tilegpu.offset";

int64_t lowering::assignKernelSharedMemory(ModuleOp module) {
  int64_t end = 0;
  Builder b(module.getContext());
  module.walk([&](LocalAllocOp alloc) {
    int64_t offset = llvm::alignTo(end, 1024);
    alloc->setAttr(kOffsetAttrName, b.getI64IntegerAttr(offset));
    end = offset + alloc.getType().getNumBuffers() * alloc.getType().getBufferBytes();
  });
  module.walk([&](MBarrierAllocOp alloc) {
    int64_t offset = llvm::alignTo(end, 8);
    alloc->setAttr(kOffsetAttrName, b.getI64IntegerAttr(offset));
    end = offset + 8 * alloc.getType().getCount();
  });
  return end == 0 ? 0 : llvm::alignTo(end, 1024);
}

namespace {

/// One PTX instruction (or block) as inline asm with side effects; returns
/// the result when `resultType` is given.
Value emitPtx(OpBuilder &b, Location loc, StringRef text, StringRef constraints,
              ValueRange operands, Type resultType = Type()) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType ? TypeRange{resultType} : TypeRange{}, operands, text,
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return resultType ? op.getResult(0) : Value();
}

/// The 32-bit shared-window address of a `!llvm.ptr<3>` (what `r` operands
/// of shared-memory instructions take).
Value sharedAddress32(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

/// `base + index * stride` bytes.
Value offsetPtr(OpBuilder &b, Location loc, Value base, Value index,
                int64_t stride) {
  Value bytes = arith::MulIOp::create(b, loc, index, i32Val(b, loc, stride));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{bytes});
}

/// True in thread 0 of the CTA (and when `pred`, if given).
Value emitLeaderPredicate(OpBuilder &b, Location loc, Value pred) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                       i32Val(b, loc, 0));
  return pred ? arith::AndIOp::create(b, loc, leader, pred) : leader;
}

Value getAllocAddress(OpBuilder &b, Location loc, Operation *alloc) {
  auto offset = alloc->getAttrOfType<IntegerAttr>(kOffsetAttrName);
  Value base = getSharedMemoryBase(b, loc, alloc);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{i32Val(b, loc, offset.getInt())});
}

struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalAllocLowering : OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kOffsetAttrName))
      return rewriter.notifyMatchFailure(op, "no shared-memory offset assigned");
    rewriter.replaceOp(op, getAllocAddress(rewriter, op.getLoc(), op));
    return success();
  }
};

struct MBarrierAllocLowering : OpConversionPattern<MBarrierAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kOffsetAttrName))
      return rewriter.notifyMatchFailure(op, "no shared-memory offset assigned");
    Location loc = op.getLoc();
    Value base = getAllocAddress(rewriter, loc, op);
    Value leader = emitLeaderPredicate(rewriter, loc, Value());
    for (unsigned i = 0; i < op.getType().getCount(); ++i) {
      Value bar = offsetPtr(rewriter, loc, base, i32Val(rewriter, loc, i), 8);
      emitPtx(rewriter, loc, "@$0 mbarrier.init.shared::cta.b64 [$1], 1;", "b,r",
              {leader, sharedAddress32(rewriter, loc, bar)});
    }
    // The initialization is visible to the async proxy (TMA) and to every
    // thread before anyone uses the barriers.
    emitPtx(rewriter, loc, "fence.mbarrier_init.release.cluster;", "", {});
    emitBarrier(rewriter, loc);
    rewriter.replaceOp(op, base);
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
    Value pred = emitLeaderPredicate(rewriter, loc, adaptor.getPred());
    emitPtx(rewriter, loc,
            "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], $2;", "b,r,r",
            {pred, sharedAddress32(rewriter, loc, bar),
             i32Val(rewriter, loc, op.getBytes())});
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
    Value addr = sharedAddress32(rewriter, loc, bar);
    if (state.mbarrierSpinLimit <= 0) {
      emitPtx(rewriter, loc,
              "{\n"
              ".reg .pred complete;\n"
              "wait_loop:\n"
              "mbarrier.try_wait.parity.shared::cta.b64 complete, [$0], $1;\n"
              "@!complete bra.uni wait_loop;\n"
              "}",
              "r,r", {addr, adaptor.getPhase()});
      rewriter.eraseOp(op);
      return success();
    }
    // Debug: give up after the limit, say where, trap.
    Value timedOut = emitPtx(
        rewriter, loc,
        "{\n"
        ".reg .pred complete, more;\n"
        ".reg .u32 polls;\n"
        "mov.u32 polls, 0;\n"
        "wait_loop:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 complete, [$1], $2;\n"
        "@complete bra.uni wait_done;\n"
        "add.u32 polls, polls, 1;\n"
        "setp.lt.u32 more, polls, " +
            std::to_string(state.mbarrierSpinLimit) +
            ";\n"
            "@more bra.uni wait_loop;\n"
            "wait_done:\n"
            "selp.u32 $0, 0, 1, complete;\n"
            "}",
        "=r,r,r", {addr, adaptor.getPhase()}, rewriter.getI32Type());
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
                                        LLVM::LLVMPointerType::get(getContext()));
      LLVM::CallOp::create(rewriter, loc, getOrDeclareVprintf(rewriter, module),
                           ValueRange{fmt, null});
      LLVM::Trap::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }

  LoweringState &state;
};

struct TMALoadLowering : OpConversionPattern<TMALoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedMemoryType ring = op.getDst().getType();
    RankedTensorType tile = ring.getTileType();
    int64_t eltBytes = tile.getElementTypeBitWidth() / 8;
    auto shared = SharedTileLayout::get(tile.getDimSize(0), tile.getDimSize(1),
                                        eltBytes);
    Value dst = offsetPtr(rewriter, loc, adaptor.getDst(), adaptor.getIndex(),
                          ring.getBufferBytes());
    Value bar = offsetPtr(rewriter, loc, adaptor.getBarriers(),
                          adaptor.getBarrierIndex(), 8);
    Value pred = emitLeaderPredicate(rewriter, loc, adaptor.getPred());
    Value desc = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                          adaptor.getDesc());
    Value row = adaptor.getCoords()[0], col = adaptor.getCoords()[1];
    Value barAddr = sharedAddress32(rewriter, loc, bar);
    // One box per swizzle-wide block of columns, at its block's place in the
    // ring buffer (SharedTileLayout::getLinearOffset).
    int64_t boxCols = shared.getBlockCols();
    for (int64_t j = 0; j * boxCols < shared.cols; ++j) {
      Value boxDst = offsetPtr(rewriter, loc, dst, i32Val(rewriter, loc, j),
                               shared.rows * shared.swizzleBytes);
      Value boxCol = j == 0 ? col
                            : Value(arith::AddIOp::create(
                                  rewriter, loc, col, i32Val(rewriter, loc, j * boxCols)));
      emitPtx(rewriter, loc,
              "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
              "complete_tx::bytes [$1], [$2, {$3, $4}], [$5];",
              "b,r,l,r,r,r",
              {pred, sharedAddress32(rewriter, loc, boxDst), desc, boxCol, row,
               barAddr});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// `!tilegpu.smem` buffer `index` of a ring and its swizzled layout.
std::pair<Value, SharedTileLayout> getBuffer(OpBuilder &b, Location loc,
                                             SharedMemoryType ring, Value base,
                                             Value index) {
  RankedTensorType tile = ring.getTileType();
  auto shared = SharedTileLayout::get(tile.getDimSize(0), tile.getDimSize(1),
                                      tile.getElementTypeBitWidth() / 8);
  return {offsetPtr(b, loc, base, index, ring.getBufferBytes()), shared};
}

struct WarpgroupDotLowering : OpConversionPattern<WarpgroupDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [aBase, aShared] = getBuffer(rewriter, loc, op.getA().getType(),
                                      adaptor.getA().front(),
                                      adaptor.getAIndex().front());
    auto [bBase, bShared] = getBuffer(rewriter, loc, op.getB().getType(),
                                      adaptor.getB().front(),
                                      adaptor.getBIndex().front());
    auto cType = cast<RankedTensorType>(op.getC().getType());
    FailureOr<SmallVector<Value>> accs = emitWarpgroupMMA(
        rewriter, loc, op, aBase, aShared, bBase, bShared, op.getBTransposed(),
        cType, op.getA().getType().getTileType().getElementType(), adaptor.getC());
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
  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> flat;
    for (ValueRange values : adaptor.getInputs())
      flat.append(values.begin(), values.end());
    SmallVector<Value> waited =
        emitWarpgroupWait(rewriter, op.getLoc(), flat, op.getPendings());
    SmallVector<SmallVector<Value>> results;
    unsigned next = 0;
    for (ValueRange values : adaptor.getInputs()) {
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
  patterns.add<BarrierLowering, LocalAllocLowering, MBarrierAllocLowering, MBarrierExpectLowering,
               TMALoadLowering, WarpgroupDotLowering, WarpgroupWaitLowering>(
      converter, ctx);
  patterns.add<MBarrierWaitLowering>(converter, ctx, state);
}
