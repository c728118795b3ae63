//===- WarpgroupDotToLLVM.cpp - tile.dot on Hopper tensor cores -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilegpu.warpgroup_dot runs as `wgmma.mma_async` (PTX ISA §9.7.15): its
// operands are in shared memory in the swizzled layout wgmma reads through
// matrix descriptors (SharedLayout.h; A K-major: rows M, contiguous K; B
// N-major: rows K, contiguous N — the layout a TMA copy of a row-major tile
// produces — or K-major), or A is in registers. Every warpgroup issues, for
// each 64 x instrN block of the accumulator it owns, one wgmma per step of
// K and commits the group. The wait is an inline asm that takes and returns
// every accumulator register, so no use of the results can move above it.
// wgmma with A in registers has no NVVM op (nvvm.wgmma.mma_async takes a
// descriptor for A): inline PTX (docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#include "WarpgroupMMA.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/MatrixStore.h"
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

Value lowering::emitSwizzledOffset(OpBuilder &b, Location loc,
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

Value lowering::emitSwizzledAddress(OpBuilder &b, Location loc, Value base,
                                    const SharedTileLayout &shared,
                                    ArrayRef<Value> coord, bool transposed) {
  Value row = coord[transposed ? 1 : 0], col = coord[transposed ? 0 : 1];
  Value offset = emitSwizzledOffset(b, loc, shared, row, col);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{offset});
}

/// Stores `values` (held in `layout`) by stmatrix as `plan` says
/// (MatrixStore.h): per instruction one address a thread, the shared row
/// that the thread's lane names.
static void storeTileByMatrices(OpBuilder &b, Location loc, Value base,
                                const LinearLayout &layout, ValueRange values,
                                const SharedTileLayout &shared, bool transposed,
                                const MatrixStorePlan &plan) {
  // The address of lane 8 j + i in instruction k is that of the element in
  // slot getAddressSource(k, lane): the slot's low bits (matrix j, and the
  // half with .trans) and the source lane depend on the lane, the slot's
  // high bits (k) do not. As a layout whose lane input is (source lane <<
  // low bits) | low slot bits and whose register input is k, emitCoordinates
  // gives every instruction's coordinate.
  unsigned lowBits = llvm::Log2_64(2 * plan.matrices);
  ArrayRef<Coord> regBases = layout.getBases(HwDim::Register);
  SmallVector<Coord> virtualLanes(regBases.take_front(lowBits));
  llvm::append_range(virtualLanes, layout.getBases(HwDim::Lane));
  LinearLayout sources(layout.getShape(),
                       {SmallVector<Coord>(regBases.drop_front(lowBits)),
                        virtualLanes,
                        SmallVector<Coord>(layout.getBases(HwDim::Warp))});
  ThreadIndices ids = getThreadIndices(b, loc);
  // j and i of the lane (getAddressSource); 8 * matrices lanes name rows.
  Value matrix = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, ids.lane, i32Val(b, loc, 3)),
      i32Val(b, loc, plan.matrices - 1));
  Value row = arith::AndIOp::create(b, loc, ids.lane, i32Val(b, loc, 7));
  Value lowSlot = arith::ShLIOp::create(b, loc, matrix, i32Val(b, loc, 1));
  Value sourceLane;
  if (plan.transposed) {
    lowSlot = arith::OrIOp::create(
        b, loc, lowSlot, arith::AndIOp::create(b, loc, row, i32Val(b, loc, 1)));
    sourceLane = arith::ShRUIOp::create(b, loc, row, i32Val(b, loc, 1));
  } else {
    sourceLane = arith::ShLIOp::create(b, loc, row, i32Val(b, loc, 2));
  }
  Value virtualLane = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, sourceLane, i32Val(b, loc, lowBits)),
      lowSlot);
  auto coords = emitCoordinates(b, loc, sources, {ids.thread, virtualLane, ids.warp});
  auto pairType = VectorType::get({2}, values.front().getType());
  auto layoutAttr = plan.transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  auto shape = NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8);
  for (int64_t k = 0; k < plan.instructions; ++k) {
    Value addr = emitSwizzledAddress(b, loc, base, shared, coords[k], transposed);
    SmallVector<Value> registers;
    for (int64_t j = 0; j < plan.matrices; ++j) {
      Value pair = LLVM::UndefOp::create(b, loc, pairType);
      for (int64_t half = 0; half < 2; ++half)
        pair = LLVM::InsertElementOp::create(b, loc, pair,
                                             values[plan.getSlot(k, j, half)],
                                             i32Val(b, loc, half));
      registers.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair));
    }
    NVVM::StMatrixOp::create(b, loc, addr, registers, layoutAttr, shape,
                             NVVM::LdStMatrixEltType::B16);
  }
}

void lowering::storeTileSwizzled(OpBuilder &b, Location loc, Value base,
                                 const LinearLayout &layout, ValueRange values,
                                 const SharedTileLayout &shared,
                                 bool transposed) {
  if (std::optional<MatrixStorePlan> plan =
          getMatrixStorePlan(layout, shared, transposed)) {
    storeTileByMatrices(b, loc, base, layout, values, shared, transposed, *plan);
    return;
  }
  // Runs of registers along the contiguous dimension (at most 16 bytes, which
  // the swizzle keeps together) are stored as one vector.
  int64_t run = std::min<int64_t>(getRegisterRun(layout, transposed ? 0 : 1),
                                  std::max<int64_t>(1, 16 / shared.elementBytes));
  Type elementType = values.front().getType();
  // 8-bit floats have no LLVM type: store their bits.
  bool asBits = isa<FloatType>(elementType) && elementType.getIntOrFloatBitWidth() == 8;
  if (asBits)
    elementType = b.getI8Type();
  Type storeType = run == 1 ? elementType
                            : Type(VectorType::get({run}, elementType));
  auto coords = emitCoordinates(b, loc, layout, getThreadIndices(b, loc));
  for (int64_t r = 0; r < static_cast<int64_t>(values.size()); r += run) {
    Value addr = emitSwizzledAddress(b, loc, base, shared, coords[r], transposed);
    auto element = [&](int64_t i) -> Value {
      if (!asBits)
        return values[i];
      return arith::BitcastOp::create(b, loc, elementType, values[i]);
    };
    Value data = element(r);
    if (run > 1) {
      data = LLVM::UndefOp::create(b, loc, storeType);
      for (int64_t j = 0; j < run; ++j)
        data = LLVM::InsertElementOp::create(b, loc, data, element(r + j),
                                             i32Val(b, loc, j));
    }
    LLVM::StoreOp::create(b, loc, data, addr, run * shared.elementBytes);
  }
}

Value lowering::emitDescriptorAddress(OpBuilder &b, Location loc, Value tileBase,
                                      Value linearOffset) {
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), tileBase);
  address = arith::AddIOp::create(b, loc, address, linearOffset);
  Value field = arith::ShRUIOp::create(b, loc, address, i32Val(b, loc, 4));
  return arith::AndIOp::create(b, loc, field, i32Val(b, loc, 0x3fff));
}

Value lowering::emitMatrixDescriptor(OpBuilder &b, Location loc, Value address,
                                     const SharedTileLayout &shared,
                                     int64_t stepBytes) {
  // No carry out of the 14-bit field: every shared address of a CTA is
  // below 228 KB, so (address + step) >> 4 stays below 2^14, and or-ing
  // the other bits (none in the field) sets them.
  // Made by an asm with side effects, where the wgmma is: a loop's
  // invariant operand tiles (K and V of attention's backward) would
  // otherwise have every K-step's descriptor hoisted out of the loop by
  // LLVM, two registers each, live across the loop (ptxas does not
  // rematerialize them; it spills). The instructions are the ones LLVM
  // made: a 32-bit add of the step, a widening, an or of the other bits
  // (a 64-bit add of both, which ptxas cannot know carries nothing, cost
  // the pointer GEMM 4 % on an H100).
  std::string text;
  if (int64_t step = stepBytes >> 4)
    text = "{\n\t.reg .b32 field;\n\tadd.s32 field, $1, " + std::to_string(step) +
           ";\n\tcvt.u64.u32 $0, field;\n\t}\n\t";
  else
    text = "cvt.u64.u32 $0, $1;\n\t";
  text += "or.b64 $0, $0, " + std::to_string(shared.getDescriptorBits()) + ";";
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, b.getI64Type(), ValueRange{address}, text,
      "=l,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}

SmallVector<Value> lowering::emitWarpgroupWait(OpBuilder &b, Location loc,
                                               ValueRange registers,
                                               unsigned pendings) {
  SmallVector<std::string> constraints;
  SmallVector<Type> types;
  SmallVector<Value> operands;
  for (Value v : registers) {
    Type type = v.getType();
    unsigned bits = type.getIntOrFloatBitWidth();
    // 16-bit values travel as .b16 registers ("h"), as integers; so do
    // 8-bit ones (fp8 A fragments), widened.
    if (bits == 8) {
      v = arith::ExtUIOp::create(b, loc, b.getI16Type(), toStorage(b, loc, v));
      type = v.getType();
      bits = 16;
    } else if (bits == 16 && !type.isInteger(16)) {
      v = LLVM::BitcastOp::create(b, loc, b.getI16Type(), v);
      type = v.getType();
    }
    constraints.push_back(type.isF32() ? "=f" : bits == 64 ? "=l" : bits == 16 ? "=h" : "=r");
    types.push_back(type);
    operands.push_back(v);
  }
  for (unsigned i = 0; i < registers.size(); ++i)
    constraints.push_back(std::to_string(i));
  if (types.empty()) {
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{},
        "wgmma.wait_group.sync.aligned " + std::to_string(pendings) + ";", "",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    return {};
  }
  Type resultType =
      types.size() == 1
          ? types.front()
          : Type(LLVM::LLVMStructType::getLiteral(b.getContext(), types));
  auto wait = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands,
      "wgmma.wait_group.sync.aligned " + std::to_string(pendings) + ";",
      llvm::join(constraints, ","), /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  SmallVector<Value> results;
  for (unsigned i = 0; i < types.size(); ++i) {
    Value r = types.size() == 1
                  ? wait.getResult(0)
                  : LLVM::ExtractValueOp::create(b, loc, wait.getResult(0), i).getResult();
    Type original = registers[i].getType();
    if (original.getIntOrFloatBitWidth() == 8)
      r = fromStorage(b, loc, arith::TruncIOp::create(b, loc, b.getI8Type(), r), original);
    else if (r.getType() != original)
      r = LLVM::BitcastOp::create(b, loc, original, r);
    results.push_back(r);
  }
  return results;
}

static NVVM::WGMMATypes getWgmmaType(Type type) {
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (type.isF32())
    return NVVM::WGMMATypes::tf32;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(type))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::f16;
}

/// Unswizzled byte offset of element (row, col) of `s`; without `col`, of
/// (row, 0).
static Value emitLinearOffset(OpBuilder &b, Location loc,
                              const SharedTileLayout &s, Value row,
                              Value col = Value()) {
  Value rowPart = arith::MulIOp::create(b, loc, row, i32Val(b, loc, s.swizzleBytes));
  if (!col)
    return rowPart;
  int64_t blockCols = s.getBlockCols();
  Value block = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, col, i32Val(b, loc, blockCols)),
      i32Val(b, loc, s.rows * s.swizzleBytes));
  Value within = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, col, i32Val(b, loc, blockCols)),
      i32Val(b, loc, s.elementBytes));
  return arith::AddIOp::create(b, loc, block,
                               arith::AddIOp::create(b, loc, rowPart, within));
}

/// What the descriptor of K-step `kk` adds to that of K-step 0, in bytes:
/// emitLinearOffset's step to column `kk` of a K-major tile (whole swizzle
/// blocks, then elements within one), or to row `kk` of an N-major one.
static int64_t getKStepOffset(const SharedTileLayout &s, bool kMajor, int64_t kk) {
  if (!kMajor)
    return kk * s.swizzleBytes;
  int64_t blockCols = s.getBlockCols();
  return (kk / blockCols) * s.rows * s.swizzleBytes + (kk % blockCols) * s.elementBytes;
}

/// `wgmma.mma_async` with A in registers (no NVVM op takes register A):
/// the accumulator struct `acc` updated with the four 32-bit A registers
/// `a` and B's descriptor.
static Value emitRegisterAMMA(OpBuilder &b, Location loc, Value acc,
                              LLVM::LLVMStructType accStruct, ArrayRef<Value> a,
                              Value bDesc, int64_t instrN, Type inType,
                              bool bKMajor, bool accumulate) {
  int64_t perInstr = instrN / 2;
  bool bytes = inType.getIntOrFloatBitWidth() == 8;
  std::string type = NVVM::stringifyWGMMATypes(getWgmmaType(inType)).str();
  std::string text = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(instrN) +
                     (bytes ? "k32" : "k16") + ".f32." + type + "." + type + " {";
  for (int64_t i = 0; i < perInstr; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(perInstr + i);
  // scale-d (1: accumulate, 0: D = A * B), scale-a 1, scale-b 1, and for
  // 16-bit types trans-b (1: N-major B); 8-bit B is K-major only and has
  // no trans-b.
  text += "}, $" + std::to_string(perInstr + 4) + (accumulate ? ", 1" : ", 0") + ", 1, 1";
  if (!bytes)
    text += bKMajor ? ", 0" : ", 1";
  text += ";";
  SmallVector<std::string> constraints;
  for (int64_t i = 0; i < perInstr; ++i)
    constraints.push_back("=f");
  for (int64_t i = 0; i < 4; ++i)
    constraints.push_back("r");
  constraints.push_back("l");
  for (int64_t i = 0; i < perInstr; ++i)
    constraints.push_back(std::to_string(i));
  SmallVector<Value> operands(a.begin(), a.end());
  operands.push_back(bDesc);
  for (int64_t i = 0; i < perInstr; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, accStruct, operands, text, llvm::join(constraints, ","),
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}

/// `wgmma.fence.sync.aligned` that also passes `regs` (i32) through (tied
/// "+r" operands), so that they are computed before the fence: PTX ISA
/// §9.7.15.5.2 asks for the fence between writing a wgmma's register
/// operands and the wgmma; values packed after it make ptxas inject
/// warpgroup.arrive before each wgmma ("C7519"), which serializes them.
static SmallVector<Value> emitFenceWithRegisters(OpBuilder &b, Location loc,
                                                 ArrayRef<Value> regs) {
  if (regs.empty()) {
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    return {};
  }
  SmallVector<std::string> constraints;
  for (size_t i = 0; i < regs.size(); ++i)
    constraints.push_back("=r");
  for (size_t i = 0; i < regs.size(); ++i)
    constraints.push_back(std::to_string(i));
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(regs.size(), b.getI32Type()));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultType, regs, "wgmma.fence.sync.aligned;",
      llvm::join(constraints, ","), /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  SmallVector<Value> results;
  for (size_t i = 0; i < regs.size(); ++i)
    results.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return results;
}

/// The k32 A fragments of an 8-bit register A, four i32 per 64-row block
/// and 32 columns of K, in instruction order. The tile is in the
/// accumulator-like layout: in each 8-column group j a thread (quad lane
/// t = lane % 4) holds the pairs (row g, columns 8j + 2t, 8j + 2t + 1) and
/// (row g + 8, the same columns), where k32 wants columns 4t … 4t + 3
/// (registers a0, a1: rows g, g + 8) and 16 + 4t … 16 + 4t + 3 (a2, a3) of
/// each 32 (PTX ISA §9.7.15.5.1.1, the 8-bit A layout of wgmma.m64nNk32).
/// Per row and half of the block, each lane packs its two pairs into a
/// word (columns 2t, 2t + 1 low, 8 + 2t, 9 + 2t high); the bytes lane t
/// wants are the low (t < 2) or the high halves (t ≥ 2) of the words of
/// quad lanes 2(t mod 2) and 2(t mod 2) + 1: two shuffles and a byte
/// select per register, in place of a round trip through shared memory.
static SmallVector<Value> packByteFragments(OpBuilder &b, Location loc,
                                            ValueRange slots, int64_t blocksM,
                                            int64_t k, int64_t aInstrN) {
  ThreadIndices ids = getThreadIndices(b, loc);
  Value quadLane = arith::AndIOp::create(b, loc, ids.lane, i32Val(b, loc, 3));
  Value quadBase = arith::SubIOp::create(b, loc, ids.lane, quadLane);
  Value pairLane = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, quadLane, i32Val(b, loc, 1)),
      i32Val(b, loc, 1));
  Value src0 = arith::OrIOp::create(b, loc, quadBase, pairLane);
  Value src1 = arith::OrIOp::create(b, loc, src0, i32Val(b, loc, 1));
  Value highHalves = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           quadLane, i32Val(b, loc, 2));
  Value lowMask = i32Val(b, loc, 0xffff), highMask = i32Val(b, loc, -65536);
  Value sixteen = i32Val(b, loc, 16);
  SmallVector<Value> regs;
  int64_t repsK = k / aInstrN;
  for (int64_t rm = 0; rm < blocksM; ++rm) {
    for (int64_t kk = 0; kk < k; kk += 32) {
      int64_t base = (rm * repsK + kk / aInstrN) * (aInstrN / 2) + (kk % aInstrN) / 8 * 4;
      Value frag[2][2]; // [half of the 32 columns][row g, g + 8]
      for (int64_t half = 0; half < 2; ++half) {
        for (int64_t rowHalf = 0; rowHalf < 2; ++rowHalf) {
          auto slot = [&](int64_t group, int64_t p) {
            return toStorage(b, loc, slots[base + 4 * (2 * half + group) + 2 * rowHalf + p]);
          };
          Value w = packWord(b, loc, {slot(0, 0), slot(0, 1), slot(1, 0), slot(1, 1)});
          Value x = emitShuffleIdx(b, loc, w, src0);
          Value y = emitShuffleIdx(b, loc, w, src1);
          Value low = arith::OrIOp::create(
              b, loc, arith::AndIOp::create(b, loc, x, lowMask),
              arith::ShLIOp::create(b, loc, y, sixteen));
          Value high = arith::OrIOp::create(
              b, loc, arith::ShRUIOp::create(b, loc, x, sixteen),
              arith::AndIOp::create(b, loc, y, highMask));
          frag[half][rowHalf] = arith::SelectOp::create(b, loc, highHalves, high, low);
        }
      }
      regs.append({frag[0][0], frag[0][1], frag[1][0], frag[1][1]});
    }
  }
  return regs;
}

FailureOr<SmallVector<Value>> lowering::emitWarpgroupMMA(
    OpBuilder &b, Location loc, Operation *op, const WarpgroupOperandA &a,
    RankedTensorType aType, Value bBase, const SharedTileLayout &bShared,
    bool bKMajor, RankedTensorType cType, Type inType, ValueRange c,
    bool zeroC) {
  auto mma = cast<WarpgroupMMAEncodingAttr>(cType.getEncoding());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = aType.getDimSize(1);
  int64_t instrN = mma.getInstrN();
  int64_t groupsM = mma.getWarpsPerCTA()[0] / 4, groupsN = mma.getWarpsPerCTA()[1];
  int64_t ctaM = 64 * groupsM, ctaN = instrN * groupsN;
  // One instruction reads 32 bytes of K per row.
  int64_t kStep = 256 / inType.getIntOrFloatBitWidth();
  bool registerA = static_cast<bool>(a.layout);
  if (!bKMajor && inType.getIntOrFloatBitWidth() != 16) {
    op->emitOpError() << "wgmma reads " << inType << " B operands K-major only";
    return failure();
  }
  if (m % ctaM != 0 || n % ctaN != 0 || k % kStep != 0) {
    op->emitOpError() << "wgmma layout " << mma << " does not tile the " << m
                      << "x" << n << " accumulator (K = " << k << ")";
    return failure();
  }
  int64_t aInstrN = registerA ? a.layout.getInstrN() : 0;
  unsigned inBits = inType.getIntOrFloatBitWidth();
  if (registerA &&
      ((inBits != 16 && inBits != 8) ||
       a.layout.getWarpsPerCTA() != mma.getWarpsPerCTA() || groupsN != 1 ||
       aInstrN % kStep != 0 || k % aInstrN != 0 ||
       static_cast<int64_t>(a.registers.size()) != m * k / (128 * groupsM))) {
    op->emitOpError() << "a register A in " << a.layout
                      << " does not hold the wgmma fragments of this dot";
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
  int64_t repsM = m / ctaM, repsN = n / ctaN;
  // A in registers: every fragment packed before the fence, four i32 per
  // instruction in instruction order (16-bit: two halves per register, in
  // fragment-slot order; 8-bit: packByteFragments).
  SmallVector<Value> packedA;
  if (registerA && inBits == 16)
    for (size_t i = 0; i + 1 < a.registers.size(); i += 2)
      packedA.push_back(packWord(b, loc, {a.registers[i], a.registers[i + 1]}));
  else if (registerA)
    packedA = packByteFragments(b, loc, a.registers, repsM, k, aInstrN);
  packedA = emitFenceWithRegisters(b, loc, packedA);
  SmallVector<Value> accs;
  for (int64_t rm = 0; rm < repsM; ++rm) {
    for (int64_t rn = 0; rn < repsN; ++rn) {
      int64_t first = (rm * repsN + rn) * perInstr;
      // A zero C is not materialized: the first K-step overwrites D.
      Value acc = LLVM::UndefOp::create(b, loc, accStruct);
      if (!zeroC)
        for (int64_t i = 0; i < perInstr; ++i)
          acc = LLVM::InsertValueOp::create(b, loc, acc, c[first + i], i);
      Value row = arith::AddIOp::create(b, loc, rowBase, i32Val(b, loc, rm * ctaM));
      Value col = arith::AddIOp::create(b, loc, colBase, i32Val(b, loc, rn * ctaN));
      // Unswizzled offsets of A[row, 0] and B[0, col] (B^T[col, 0] when
      // K-major) in the descriptors' address field, once; each K-step adds
      // a constant (the hardware applies the swizzle to the addresses it
      // generates).
      Value bAddress = emitDescriptorAddress(
          b, loc, bBase,
          bKMajor ? emitLinearOffset(b, loc, bShared, col)
                  : emitLinearOffset(b, loc, bShared, i32Val(b, loc, 0), col));
      Value aAddress =
          registerA ? Value()
                    : emitDescriptorAddress(b, loc, a.base,
                                            emitLinearOffset(b, loc, a.shared, row));
      for (int64_t kk = 0; kk < k; kk += kStep) {
        Value bDesc = emitMatrixDescriptor(b, loc, bAddress, bShared,
                                           getKStepOffset(bShared, bKMajor, kk));
        if (registerA) {
          // The four registers of rows rm, columns kk … kk + kStep - 1.
          int64_t first = (rm * (k / kStep) + kk / kStep) * 4;
          SmallVector<Value> regs(packedA.begin() + first, packedA.begin() + first + 4);
          acc = emitRegisterAMMA(b, loc, acc, accStruct, regs, bDesc, instrN,
                                 inType, bKMajor, /*accumulate=*/!zeroC || kk != 0);
          continue;
        }
        Value aDesc = emitMatrixDescriptor(b, loc, aAddress, a.shared,
                                           getKStepOffset(a.shared, /*kMajor=*/true, kk));
        acc = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accStruct, acc, aDesc, bDesc,
            NVVM::MMAShapeAttr::get(b.getContext(), 64, instrN, kStep),
            getWgmmaType(inType), getWgmmaType(inType), NVVM::WGMMATypes::f32,
            zeroC && kk == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
            bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
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
