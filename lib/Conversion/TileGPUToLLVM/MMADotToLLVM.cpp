//===- MMADotToLLVM.cpp - tile.dot on warp-level tensor-core MMA ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A tile.dot whose accumulator has the #tilegpu.mma layout runs as
// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}` (PTX ISA §9.7.14.5.8,
// sm_80 and later): both operands go to shared memory, A row-major (M x K)
// and B transposed (N x K), rows padded by 16 bytes against bank conflicts,
// so that every operand register of the instruction is two consecutive
// 16-bit elements, one 32-bit load; then, for each step of 16 along K, each
// warp loads the fragments of its 16-row slabs and 8-column blocks once and
// issues one instruction per (slab, block). The accumulator registers are the
// instruction's C/D fragments in place (MMAEncodingAttr), so nothing moves.
//
//===----------------------------------------------------------------------===//

#include "MMADot.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

/// One `mma.sync.m16n8k16` with f32 accumulators: d = a @ b + c.
static SmallVector<Value> emitMMASync(OpBuilder &b, Location loc, Type inType,
                                      ArrayRef<Value> aRegs,
                                      ArrayRef<Value> bRegs,
                                      ArrayRef<Value> cRegs) {
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(4, f32));
  std::string type = inType.isBF16() ? "bf16" : "f16";
  std::string text = "mma.sync.aligned.m16n8k16.row.col.f32." + type + "." +
                     type + ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, "
                            "{$8, $9}, {$10, $11, $12, $13};";
  SmallVector<Value> operands(aRegs);
  operands.append(bRegs.begin(), bRegs.end());
  operands.append(cRegs.begin(), cRegs.end());
  auto mma = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, text,
      "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", /*has_side_effects=*/false,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  SmallVector<Value> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, mma.getResult(0), i));
  return d;
}

LogicalResult lowering::lowerMMADot(tile::DotOp op, ValueRange a, ValueRange b,
                                    ValueRange c,
                                    ConversionPatternRewriter &rewriter,
                                    LoweringState &state,
                                    SmallVectorImpl<Value> &results) {
  Location loc = op.getLoc();
  auto aType = op.getA().getType(), bType = op.getB().getType();
  auto cType = op.getC().getType();
  auto mma = cast<MMAEncodingAttr>(cType.getEncoding());
  FailureOr<LinearLayout> aLayout = getLayoutOf(loc, aType);
  FailureOr<LinearLayout> bLayout = getLayoutOf(loc, bType);
  if (failed(aLayout) || failed(bLayout))
    return failure();
  Type inType = aType.getElementType();
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aType.getDimSize(1);
  int64_t warpsM = mma.getWarpsPerCTA()[0], warpsN = mma.getWarpsPerCTA()[1];
  int64_t instrN = mma.getInstrN();
  int64_t ctaM = 16 * warpsM, ctaN = instrN * warpsN;
  if ((!inType.isF16() && !inType.isBF16()) || m % ctaM != 0 ||
      n % ctaN != 0 || k % 16 != 0)
    return op.emitOpError() << "mma layout " << mma << " does not take a "
                            << m << "x" << n << "x" << k << " " << inType
                            << " dot";

  // Operands to shared memory: A row-major at 0, B transposed after it,
  // rows padded by 8 elements (16 bytes) so that the 8 rows one fragment
  // load touches fall in different banks.
  int64_t rowLength = k + 8;
  int64_t bOffset = llvm::alignTo(m * rowLength * 2, 16);
  state.requireScratch(op, bOffset + n * rowLength * 2);
  ThreadIndices ids = getThreadIndices(rewriter, loc);
  emitBarrier(rewriter, loc, op);
  auto c32 = [&](int64_t v) { return i32Val(rewriter, loc, v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(rewriter, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(rewriter, loc, x, c32(y));
  };
  for (auto [coord, value] :
       llvm::zip(emitCoordinates(rewriter, loc, *aLayout, ids), a))
    storeSharedElement(rewriter, loc, op, 0,
                       add(mul(coord[0], rowLength), coord[1]), value);
  for (auto [coord, value] :
       llvm::zip(emitCoordinates(rewriter, loc, *bLayout, ids), b))
    storeSharedElement(rewriter, loc, op, bOffset,
                       add(mul(coord[1], rowLength), coord[0]), value);
  emitBarrier(rewriter, loc, op);

  // Lane l holds fragment rows l/4 (+8) and column pairs 2(l%4) (+8).
  Value warpM = arith::RemUIOp::create(rewriter, loc, ids.warp, c32(warpsM));
  Value warpN = arith::DivUIOp::create(rewriter, loc, ids.warp, c32(warpsM));
  Value group = arith::ShRUIOp::create(rewriter, loc, ids.lane, c32(2));
  Value pair = mul(arith::AndIOp::create(rewriter, loc, ids.lane, c32(3)), 2);
  // A 32-bit word: elements (row, col) and (row, col + 1) of a padded
  // row-major array at byte `base`.
  Type i32 = rewriter.getI32Type();
  auto word = [&](int64_t base, Value row, Value col) {
    Value index = arith::ShRUIOp::create(rewriter, loc,
                                         add(mul(row, rowLength), col), c32(1));
    return loadSharedElement(rewriter, loc, op, base, index, i32);
  };

  results.assign(c.begin(), c.end());
  int64_t repsM = m / ctaM, repsN = n / ctaN, blocksN = instrN / 8;
  int64_t regsPerBlock = instrN / 2;
  SmallVector<Value> rows, bRows;
  for (int64_t rm = 0; rm < repsM; ++rm)
    rows.push_back(add(add(mul(warpM, 16), c32(rm * ctaM)), group));
  for (int64_t rn = 0; rn < repsN; ++rn)
    for (int64_t nb = 0; nb < blocksN; ++nb)
      bRows.push_back(add(add(mul(warpN, instrN), c32(rn * ctaN + nb * 8)), group));
  for (int64_t kk = 0; kk < k; kk += 16) {
    // Every fragment of this step of K once, then every instruction.
    Value col = add(pair, c32(kk)), col8 = add(pair, c32(kk + 8));
    SmallVector<std::array<Value, 4>> aRegs;
    for (Value row : rows) {
      Value row8 = add(row, c32(8));
      aRegs.push_back({word(0, row, col), word(0, row8, col),
                       word(0, row, col8), word(0, row8, col8)});
    }
    SmallVector<std::array<Value, 2>> bRegs;
    for (Value bRow : bRows)
      bRegs.push_back({word(bOffset, bRow, col), word(bOffset, bRow, col8)});
    for (int64_t rm = 0; rm < repsM; ++rm)
      for (int64_t rn = 0; rn < repsN; ++rn)
        for (int64_t nb = 0; nb < blocksN; ++nb) {
          int64_t first = (rm * repsN + rn) * regsPerBlock + nb * 4;
          SmallVector<Value> d = emitMMASync(
              rewriter, loc, inType, aRegs[rm], bRegs[rn * blocksN + nb],
              ArrayRef<Value>(results).slice(first, 4));
          for (int64_t i = 0; i < 4; ++i)
            results[first + i] = d[i];
        }
  }
  return success();
}
