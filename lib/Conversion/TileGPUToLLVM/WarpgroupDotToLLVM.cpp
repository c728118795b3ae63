//===- WarpgroupDotToLLVM.cpp - tile.dot on Hopper tensor cores -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A tile.dot whose accumulator has the #tilegpu.wgmma layout runs as
// `wgmma.mma_async` (PTX ISA §9.7.15): both operands are written to shared
// memory in the swizzled layout wgmma reads through matrix descriptors
// (SharedLayout.h; A K-major: rows M, contiguous K; B N-major: rows K,
// contiguous N — the layout a TMA copy of a row-major tile produces), made
// visible to the async proxy (`fence.proxy.async.shared::cta` then a CTA
// barrier), then every warpgroup issues, for each 64 x instrN block of the
// accumulator it owns, one wgmma per 16-deep step of K, commits the group
// and waits for it. The wait is an inline asm that takes and returns every
// accumulator register, so no use of the results can move above it.
//
//===----------------------------------------------------------------------===//

#include "WarpgroupMMA.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

/// Emits the swizzled byte offset of element (row, col) of `layout`.
static Value emitSwizzledOffset(OpBuilder &b, Location loc,
                                const SharedTileLayout &layout, Value row,
                                Value col) {
  int64_t blockCols = layout.getBlockCols();
  auto shl = [&](Value v, int64_t factor) -> Value {
    if (factor == 1)
      return v;
    return arith::ShLIOp::create(b, loc, v, i32Val(b, loc, llvm::Log2_64(factor)));
  };
  Value block = arith::ShRUIOp::create(b, loc, col, i32Val(b, loc, llvm::Log2_64(blockCols)));
  Value within = arith::AndIOp::create(b, loc, col, i32Val(b, loc, blockCols - 1));
  Value linear = arith::AddIOp::create(
      b, loc, shl(block, layout.rows * layout.swizzleBytes),
      arith::AddIOp::create(b, loc, shl(row, layout.swizzleBytes),
                            shl(within, layout.elementBytes)));
  Value group = arith::ShRUIOp::create(b, loc, linear, i32Val(b, loc, 7));
  group = arith::AndIOp::create(b, loc, group, i32Val(b, loc, layout.swizzleBytes / 16 - 1));
  return arith::XOrIOp::create(b, loc, linear, shl(group, 16));
}

void lowering::storeTileSwizzled(OpBuilder &b, Location loc, Operation *anchor,
                                 int64_t baseOffset, const LinearLayout &layout,
                                 ValueRange values,
                                 const SharedTileLayout &shared) {
  // Runs of registers along the contiguous dimension (at most 16 bytes, which
  // the swizzle keeps together) are stored as one vector.
  ArrayRef<Coord> regs = layout.getBases(HwDim::Register);
  int64_t run = 1;
  for (const Coord &basis : regs) {
    if (basis != Coord({0, run}) || run * shared.elementBytes >= 16)
      break;
    run *= 2;
  }
  Type elementType = values.front().getType();
  Type storeType = run == 1 ? elementType
                            : Type(VectorType::get({run}, elementType));
  auto coords = emitCoordinates(b, loc, layout, getThreadIndices(b, loc));
  Value base = getSharedMemoryAddress(b, loc, anchor, i32Val(b, loc, baseOffset));
  auto smemPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  for (int64_t r = 0; r < static_cast<int64_t>(values.size()); r += run) {
    Value offset = emitSwizzledOffset(b, loc, shared, coords[r][0], coords[r][1]);
    Value addr = LLVM::GEPOp::create(b, loc, smemPtr, b.getI8Type(), base,
                                     ValueRange{offset});
    Value data = values[r];
    if (run > 1) {
      data = LLVM::UndefOp::create(b, loc, storeType);
      for (int64_t j = 0; j < run; ++j)
        data = LLVM::InsertElementOp::create(b, loc, data, values[r + j],
                                             i32Val(b, loc, j));
    }
    LLVM::StoreOp::create(b, loc, data, addr, run * shared.elementBytes);
  }
}

Value lowering::emitMatrixDescriptor(OpBuilder &b, Location loc, Value tileBase,
                                     const SharedTileLayout &shared,
                                     Value linearOffset) {
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), tileBase);
  address = arith::AddIOp::create(b, loc, address, linearOffset);
  Value field = arith::ShRUIOp::create(b, loc, address, i32Val(b, loc, 4));
  field = arith::AndIOp::create(b, loc, field, i32Val(b, loc, 0x3fff));
  field = arith::ExtUIOp::create(b, loc, b.getI64Type(), field);
  Value bits = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(static_cast<int64_t>(shared.getDescriptorBits())));
  return arith::OrIOp::create(b, loc, bits, field);
}

SmallVector<Value> lowering::emitWarpgroupWait(OpBuilder &b, Location loc,
                                               ValueRange registers,
                                               unsigned pendings) {
  SmallVector<std::string> constraints;
  SmallVector<Type> types;
  for (Value v : registers) {
    constraints.push_back(v.getType().isF32() ? "=f" : "=r");
    types.push_back(v.getType());
  }
  for (unsigned i = 0; i < registers.size(); ++i)
    constraints.push_back(std::to_string(i));
  Type resultType =
      types.size() == 1
          ? types.front()
          : Type(LLVM::LLVMStructType::getLiteral(b.getContext(), types));
  auto wait = LLVM::InlineAsmOp::create(
      b, loc, resultType, registers,
      "wgmma.wait_group.sync.aligned " + std::to_string(pendings) + ";",
      llvm::join(constraints, ","), /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  if (types.size() == 1)
    return {wait.getResult(0)};
  SmallVector<Value> results;
  for (unsigned i = 0; i < types.size(); ++i)
    results.push_back(LLVM::ExtractValueOp::create(b, loc, wait.getResult(0), i));
  return results;
}

static NVVM::WGMMATypes getWgmmaType(Type type) {
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (type.isF32())
    return NVVM::WGMMATypes::f32;
  return NVVM::WGMMATypes::f16;
}

/// Unswizzled byte offset of element (row, col) of `s` (`col` either the
/// constant `colValue` or the value `colIndex`).
static Value emitLinearOffset(OpBuilder &b, Location loc,
                              const SharedTileLayout &s, Value row,
                              Value colIndex, int64_t colValue) {
  int64_t blockCols = s.getBlockCols();
  Value block, within;
  if (!colIndex) {
    block = i32Val(b, loc, (colValue / blockCols) * s.rows * s.swizzleBytes);
    within = i32Val(b, loc, (colValue % blockCols) * s.elementBytes);
  } else {
    block = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, colIndex, i32Val(b, loc, blockCols)),
        i32Val(b, loc, s.rows * s.swizzleBytes));
    within = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, colIndex, i32Val(b, loc, blockCols)),
        i32Val(b, loc, s.elementBytes));
  }
  Value rowPart = arith::MulIOp::create(b, loc, row, i32Val(b, loc, s.swizzleBytes));
  return arith::AddIOp::create(b, loc, block,
                               arith::AddIOp::create(b, loc, rowPart, within));
}

FailureOr<SmallVector<Value>> lowering::emitWarpgroupMMA(
    OpBuilder &b, Location loc, Operation *op, Value aBase,
    const SharedTileLayout &aShared, Value bBase,
    const SharedTileLayout &bShared, RankedTensorType cType, Type inType,
    ValueRange c) {
  auto mma = cast<WarpgroupMMAEncodingAttr>(cType.getEncoding());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aShared.cols;
  int64_t instrN = mma.getInstrN();
  int64_t groupsM = mma.getWarpsPerCTA()[0] / 4, groupsN = mma.getWarpsPerCTA()[1];
  int64_t ctaM = 64 * groupsM, ctaN = instrN * groupsN;
  if (m % ctaM != 0 || n % ctaN != 0 || k % 16 != 0) {
    op->emitOpError() << "wgmma layout " << mma << " does not tile the " << m
                      << "x" << n << " accumulator (K = " << k << ")";
    return failure();
  }

  // This warpgroup's block of the accumulator.
  ThreadIndices ids = getThreadIndices(b, loc);
  Value group = arith::ShRUIOp::create(b, loc, ids.warp, i32Val(b, loc, 2));
  Value groupM = arith::RemUIOp::create(b, loc, group, i32Val(b, loc, groupsM));
  Value groupN = arith::DivUIOp::create(b, loc, group, i32Val(b, loc, groupsM));
  Value rowBase = arith::MulIOp::create(b, loc, groupM, i32Val(b, loc, 64));
  Value colBase = arith::MulIOp::create(b, loc, groupN, i32Val(b, loc, instrN));

  Type f32 = b.getF32Type();
  int64_t perInstr = instrN / 2;
  auto accStruct = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(perInstr, f32));
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  SmallVector<Value> accs;
  int64_t repsM = m / ctaM, repsN = n / ctaN;
  for (int64_t rm = 0; rm < repsM; ++rm) {
    for (int64_t rn = 0; rn < repsN; ++rn) {
      int64_t first = (rm * repsN + rn) * perInstr;
      Value acc = LLVM::UndefOp::create(b, loc, accStruct);
      for (int64_t i = 0; i < perInstr; ++i)
        acc = LLVM::InsertValueOp::create(b, loc, acc, c[first + i], i);
      Value row = arith::AddIOp::create(b, loc, rowBase, i32Val(b, loc, rm * ctaM));
      Value col = arith::AddIOp::create(b, loc, colBase, i32Val(b, loc, rn * ctaN));
      for (int64_t kk = 0; kk < k; kk += 16) {
        // Unswizzled offsets of A[row, kk] and B[kk, col]: the hardware
        // applies the swizzle to the addresses it generates.
        Value aOff = emitLinearOffset(b, loc, aShared, row, Value(), kk);
        Value bOff = emitLinearOffset(b, loc, bShared, i32Val(b, loc, kk), col, 0);
        Value aDesc = emitMatrixDescriptor(b, loc, aBase, aShared, aOff);
        Value bDesc = emitMatrixDescriptor(b, loc, bBase, bShared, bOff);
        acc = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accStruct, acc, aDesc, bDesc,
            NVVM::MMAShapeAttr::get(b.getContext(), 64, instrN, 16),
            getWgmmaType(inType), getWgmmaType(inType), NVVM::WGMMATypes::f32,
            NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row, NVVM::MMALayout::row,
            /*satfinite=*/nullptr);
      }
      accs.push_back(acc);
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  SmallVector<Value> flat;
  for (Value acc : accs)
    for (int64_t i = 0; i < perInstr; ++i)
      flat.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return flat;
}

LogicalResult lowering::lowerWarpgroupDot(tile::DotOp op, ValueRange a,
                                          ValueRange b, ValueRange c,
                                          ConversionPatternRewriter &rewriter,
                                          LoweringState &state,
                                          SmallVectorImpl<Value> &results) {
  Location loc = op.getLoc();
  auto aType = op.getA().getType(), bType = op.getB().getType();
  auto cType = op.getC().getType();
  FailureOr<LinearLayout> aLayout = getLayoutOf(loc, aType);
  FailureOr<LinearLayout> bLayout = getLayoutOf(loc, bType);
  if (failed(aLayout) || failed(bLayout))
    return failure();
  Type inType = aType.getElementType();
  int64_t eltBytes = inType.getIntOrFloatBitWidth() / 8;
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aType.getDimSize(1);

  // Operands to shared memory: A K-major at 0, B N-major after it (1024-byte
  // aligned, as the 128-byte swizzle requires).
  SharedTileLayout aShared = SharedTileLayout::get(m, k, eltBytes);
  SharedTileLayout bShared = SharedTileLayout::get(k, n, eltBytes);
  int64_t bOffset = llvm::alignTo(aShared.getSizeBytes(), 1024);
  state.requireSharedMemory(bOffset + bShared.getSizeBytes());
  emitBarrier(rewriter, loc);
  storeTileSwizzled(rewriter, loc, op, 0, *aLayout, a, aShared);
  storeTileSwizzled(rewriter, loc, op, bOffset, *bLayout, b, bShared);
  NVVM::FenceProxyOp::create(
      rewriter, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  emitBarrier(rewriter, loc);
  Value aBase = getSharedMemoryAddress(rewriter, loc, op, i32Val(rewriter, loc, 0));
  Value bBase = getSharedMemoryAddress(rewriter, loc, op, i32Val(rewriter, loc, bOffset));
  FailureOr<SmallVector<Value>> accs = emitWarpgroupMMA(
      rewriter, loc, op, aBase, aShared, bBase, bShared, cType, inType, c);
  if (failed(accs))
    return failure();
  results = emitWarpgroupWait(rewriter, loc, *accs, 0);
  return success();
}
