//===- ProgramOpToLLVM.cpp - program ids ----------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One program instance is one CTA: tl.program_id(a) is %ctaid.{x,y,z}
// (axes 0 and 1 remapped in a kernel that tilegpu-longest-first made
// longest first) and tl.num_programs(a) is %nctaid.{x,y,z} (DESIGN.md §2,
// kernel ABI); in a persistent kernel (tilegpu-persistent) the program ids
// of its virtual programs come from tilegpu.persistent_program_id.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

struct ProgramIdOpLowering : OpConversionPattern<tile::ProgramIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ProgramIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value id = emitProgramId(rewriter, op.getLoc(), op.getAxis(), op);
    rewriter.replaceOp(op, id);
    return success();
  }
};

/// A persistent kernel's program id of virtual program `vid`: its
/// coordinates in the caller's grid (x fastest), then the kernel's program
/// order as for %ctaid.
struct PersistentProgramIdOpLowering
    : OpConversionPattern<tilegpu::PersistentProgramIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tilegpu::PersistentProgramIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value vid = adaptor.getVid(), nx = adaptor.getGridX(), ny = adaptor.getGridY();
    // vid < 2^31 (the runtime refuses larger grids): signed or unsigned
    // divisions agree; unsigned ones are cheaper.
    Value x = arith::RemUIOp::create(rewriter, loc, vid, nx);
    Value row = arith::DivUIOp::create(rewriter, loc, vid, nx);
    Value y = arith::RemUIOp::create(rewriter, loc, row, ny);
    Value z = arith::DivUIOp::create(rewriter, loc, row, ny);
    rewriter.replaceOp(op, emitProgramIdAt(rewriter, loc, op.getAxis(), x, y, z,
                                           nx, ny, op));
    return success();
  }
};

struct NumProgramsOpLowering : OpConversionPattern<tile::NumProgramsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::NumProgramsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value n;
    switch (op.getAxis()) {
    case 0:
      n = NVVM::GridDimXOp::create(rewriter, op.getLoc(), i32);
      break;
    case 1:
      n = NVVM::GridDimYOp::create(rewriter, op.getLoc(), i32);
      break;
    default:
      n = NVVM::GridDimZOp::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, n);
    return success();
  }
};

/// tl.assume: a promise LLVM may use too.
struct AssumeOpLowering : OpConversionPattern<tile::AssumeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::AssumeOp>(op, adaptor.getCond());
    return success();
  }
};

} // namespace

void lowering::populateProgramOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               LoweringState &state) {
  patterns.add<ProgramIdOpLowering, PersistentProgramIdOpLowering,
               NumProgramsOpLowering, AssumeOpLowering>(
      converter, patterns.getContext());
}
