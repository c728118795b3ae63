//===- MemoryOpToLLVM.cpp - pointers, loads and stores --------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// addptr is a GEP per slot. Loads and stores become predicated
// `ld.global`/`st.global` (PTX ISA §9.7.9.8, §9.7.9.10), one per run of
// `vec` consecutive elements a thread holds, where `vec` is the largest
// power of two the layout (register run), tile-axis-info (pointer
// contiguity and alignment, mask constancy) and the 16-byte access limit
// allow. Masked-off load lanes keep `other`. A store is issued by one of
// the threads holding each element (tiles smaller than the CTA are
// replicated), and a scalar store by thread 0.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Analysis/AccessWidth.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

/// The integer type an element of `registerType` occupies in memory
/// (booleans are bytes, pointers 64-bit).
IntegerType memoryIntType(Type registerType) {
  MLIRContext *ctx = registerType.getContext();
  if (isa<LLVM::LLVMPointerType>(registerType))
    return IntegerType::get(ctx, 64);
  if (registerType.isInteger(1))
    return IntegerType::get(ctx, 8);
  return IntegerType::get(ctx, registerType.getIntOrFloatBitWidth());
}

Value toMemoryBits(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  IntegerType intType = memoryIntType(type);
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(b, loc, intType, value);
  if (type.isInteger(1))
    return arith::ExtUIOp::create(b, loc, intType, value);
  if (type == intType)
    return value;
  return arith::BitcastOp::create(b, loc, intType, value);
}

Value fromMemoryBits(OpBuilder &b, Location loc, Value bits, Type registerType) {
  if (isa<LLVM::LLVMPointerType>(registerType))
    return LLVM::IntToPtrOp::create(b, loc, registerType, bits);
  if (registerType.isInteger(1))
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, bits,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits.getType(), 0)));
  if (registerType == bits.getType())
    return bits;
  return arith::BitcastOp::create(b, loc, registerType, bits);
}

/// How a run of `vec` elements of `eltBits` bits moves: `count` words of
/// `bits` bits (PTX `.v{count}.b{bits}`; 8-bit words travel in 16-bit
/// registers).
struct AccessShape {
  unsigned bits, count;
  unsigned registerBits() const { return std::max(bits, 16u); }
  StringRef constraint() const {
    return registerBits() == 64 ? "l" : registerBits() == 32 ? "r" : "h";
  }
};

AccessShape getAccessShape(unsigned vec, unsigned eltBits) {
  unsigned total = vec * eltBits;
  unsigned bits = eltBits == 64 ? 64 : std::min(32u, total);
  return {bits, total / bits};
}

/// Packs memory-typed element bits into words of `shape.registerBits()`.
SmallVector<Value> packWords(OpBuilder &b, Location loc, ArrayRef<Value> elems,
                             AccessShape shape) {
  unsigned eltBits = elems.front().getType().getIntOrFloatBitWidth();
  unsigned perWord = std::max(1u, shape.bits / eltBits);
  auto wordType = b.getIntegerType(shape.registerBits());
  SmallVector<Value> words;
  for (unsigned w = 0; w < shape.count; ++w) {
    Value word;
    for (unsigned j = 0; j < perWord; ++j) {
      Value e = elems[w * perWord + j];
      Value wide = eltBits == shape.registerBits()
                       ? e
                       : arith::ExtUIOp::create(b, loc, wordType, e).getResult();
      if (j > 0)
        wide = arith::ShLIOp::create(
            b, loc, wide,
            arith::ConstantOp::create(b, loc, b.getIntegerAttr(wordType, j * eltBits)));
      word = word ? arith::OrIOp::create(b, loc, word, wide).getResult() : wide;
    }
    words.push_back(word);
  }
  return words;
}

SmallVector<Value> unpackWords(OpBuilder &b, Location loc, ArrayRef<Value> words,
                               AccessShape shape, IntegerType eltType) {
  unsigned eltBits = eltType.getWidth();
  unsigned perWord = std::max(1u, shape.bits / eltBits);
  SmallVector<Value> elems;
  for (Value word : words)
    for (unsigned j = 0; j < perWord; ++j) {
      Value piece = word;
      if (j > 0)
        piece = arith::ShRUIOp::create(
            b, loc, piece,
            arith::ConstantOp::create(b, loc, b.getIntegerAttr(word.getType(), j * eltBits)));
      if (eltBits != shape.registerBits())
        piece = arith::TruncIOp::create(b, loc, eltType, piece);
      elems.push_back(piece);
    }
  return elems;
}

std::string operandList(unsigned first, unsigned count) {
  SmallVector<std::string> names;
  for (unsigned i = 0; i < count; ++i)
    names.push_back("$" + std::to_string(first + i));
  std::string list = llvm::join(names, ", ");
  return count == 1 ? list : "{ " + list + " }";
}

/// One predicated global load of `shape`; `others` (memory words, may be
/// empty) initialize the destination registers. `isVolatile`:
/// `ld.volatile.global` (PTX ISA §9.7.9.8: not cached in L1, never merged
/// or elided; what `tl.load(volatile=True)` asks for, as in Triton).
SmallVector<Value> emitGlobalLoad(OpBuilder &b, Location loc, Value addr,
                                  Value pred, ArrayRef<Value> others,
                                  AccessShape shape, bool isVolatile) {
  std::string asmText, constraints;
  unsigned n = shape.count;
  SmallVector<std::string> cons;
  for (unsigned i = 0; i < n; ++i)
    cons.push_back("=" + shape.constraint().str());
  SmallVector<Value> operands;
  unsigned next = n;
  std::string predText;
  if (pred) {
    predText = "@$" + std::to_string(next++) + " ";
    cons.push_back("b");
    operands.push_back(pred);
  }
  unsigned addrIndex = next++;
  cons.push_back("l");
  operands.push_back(addr);
  if (!others.empty()) {
    for (unsigned i = 0; i < n; ++i) {
      asmText += llvm::formatv("mov.b{0} ${1}, ${2};\n\t", shape.registerBits(), i,
                               next++);
      cons.push_back(shape.constraint().str());
      operands.push_back(others[i]);
    }
  }
  std::string type = shape.bits == 8 ? "u8" : "b" + std::to_string(shape.bits);
  std::string vecText = n > 1 ? ".v" + std::to_string(n) : "";
  asmText += llvm::formatv("{0}ld{1}.global{2}.{3} {4}, [ ${5} + 0 ];",
                           predText, isVolatile ? ".volatile" : "", vecText,
                           type, operandList(0, n), addrIndex);
  constraints = llvm::join(cons, ",");
  auto wordType = b.getIntegerType(shape.registerBits());
  Type resultType =
      n == 1 ? Type(wordType)
             : LLVM::LLVMStructType::getLiteral(
                   b.getContext(), SmallVector<Type>(n, wordType));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, asmText, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  if (n == 1)
    return {asmOp.getResult(0)};
  SmallVector<Value> words;
  for (unsigned i = 0; i < n; ++i)
    words.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return words;
}

void emitGlobalStore(OpBuilder &b, Location loc, Value addr, Value pred,
                     ArrayRef<Value> words, AccessShape shape) {
  SmallVector<std::string> cons;
  SmallVector<Value> operands;
  unsigned next = 0;
  std::string predText;
  if (pred) {
    predText = "@$" + std::to_string(next++) + " ";
    cons.push_back("b");
    operands.push_back(pred);
  }
  unsigned addrIndex = next++;
  cons.push_back("l");
  operands.push_back(addr);
  for (Value w : words) {
    cons.push_back(shape.constraint().str());
    operands.push_back(w);
  }
  std::string type = shape.bits == 8 ? "u8" : "b" + std::to_string(shape.bits);
  std::string vecText = shape.count > 1 ? ".v" + std::to_string(shape.count) : "";
  std::string asmText =
      llvm::formatv("{0}st.global{1}.{2} [ ${3} + 0 ], {4};", predText, vecText,
                    type, addrIndex, operandList(next, shape.count));
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange(), operands, asmText, llvm::join(cons, ","),
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

template <typename Op>
struct MemoryOpLowering : OpConversionPattern<Op> {
  MemoryOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                   LoweringState &state)
      : OpConversionPattern<Op>(converter, ctx), state(state) {}
  LoweringState &state;
};

struct LoadOpLowering : MemoryOpLowering<tile::LoadOp> {
  using MemoryOpLowering::MemoryOpLowering;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type registerType = getTypeConverter<TileGPUTypeConverter>()->convertElementType(
        tile::getElementTypeOrSelf(op.getType()));
    IntegerType memType = memoryIntType(registerType);
    unsigned eltBits = memType.getWidth();
    unsigned vec = getAccessVectorWidth(state.axisInfo, op.getPtr(), op.getMask(), eltBits / 8);
    ValueRange ptrs = adaptor.getPtr(), masks = adaptor.getMask(),
               others = adaptor.getOther();
    AccessShape shape = getAccessShape(vec, eltBits);
    SmallVector<Value> results;
    for (size_t s = 0; s < ptrs.size(); s += vec) {
      Value pred = masks.empty() ? Value() : masks[s];
      SmallVector<Value> otherWords;
      if (!others.empty() && pred) {
        SmallVector<Value> bits;
        for (unsigned j = 0; j < vec; ++j)
          bits.push_back(toMemoryBits(rewriter, loc, others[s + j]));
        otherWords = packWords(rewriter, loc, bits, shape);
      }
      SmallVector<Value> words =
          emitGlobalLoad(rewriter, loc, ptrs[s], pred, otherWords, shape,
                         op.getIsVolatile());
      for (Value bits : unpackWords(rewriter, loc, words, shape, memType))
        results.push_back(fromMemoryBits(rewriter, loc, bits, registerType));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct StoreOpLowering : MemoryOpLowering<tile::StoreOp> {
  using MemoryOpLowering::MemoryOpLowering;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue(),
               masks = adaptor.getMask();
    Type registerType = values.front().getType();
    IntegerType memType = memoryIntType(registerType);
    unsigned eltBits = memType.getWidth();
    unsigned vec = getAccessVectorWidth(state.axisInfo, op.getPtr(), op.getMask(), eltBits / 8);
    // One thread stores each element.
    ThreadIndices ids = getThreadIndices(rewriter, loc);
    Value owner;
    if (auto type = dyn_cast<RankedTensorType>(op.getPtr().getType())) {
      FailureOr<LinearLayout> layout = getLayoutOf(loc, type);
      if (failed(layout))
        return failure();
      if (layout->getReplicatedMask(HwDim::Lane) ||
          layout->getReplicatedMask(HwDim::Warp))
        owner = emitIsOwner(rewriter, loc, *layout, ids);
    } else {
      owner = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    ids.thread, i32Val(rewriter, loc, 0));
    }
    AccessShape shape = getAccessShape(vec, eltBits);
    for (size_t s = 0; s < ptrs.size(); s += vec) {
      Value pred = masks.empty() ? Value() : masks[s];
      if (owner)
        pred = pred ? arith::AndIOp::create(rewriter, loc, pred, owner).getResult()
                    : owner;
      SmallVector<Value> bits;
      for (unsigned j = 0; j < vec; ++j)
        bits.push_back(toMemoryBits(rewriter, loc, values[s + j]));
      emitGlobalStore(rewriter, loc, ptrs[s], pred,
                      packWords(rewriter, loc, bits, shape), shape);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AddPtrOpLowering : MemoryOpLowering<tile::AddPtrOp> {
  using MemoryOpLowering::MemoryOpLowering;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ptrType = cast<tile::PointerType>(tile::getElementTypeOrSelf(op.getType()));
    Type registerType = getTypeConverter<TileGPUTypeConverter>()->convertElementType(
        ptrType.getPointeeType());
    // The GEP steps by the element's size in memory (booleans are bytes;
    // 8-bit floats, which LLVM has no type for, too).
    Type elementType = registerType;
    if (registerType.isInteger(1) ||
        (isa<FloatType>(registerType) && registerType.getIntOrFloatBitWidth() == 8))
      elementType = rewriter.getI8Type();
    ValueRange ptrs = adaptor.getPtr(), offsets = adaptor.getOffset();
    SmallVector<Value> results;
    for (auto [ptr, offset] : llvm::zip(ptrs, offsets))
      results.push_back(LLVM::GEPOp::create(rewriter, op.getLoc(), ptr.getType(),
                                            elementType, ptr, ValueRange{offset}));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct BitcastOpLowering : MemoryOpLowering<tile::BitcastOp> {
  using MemoryOpLowering::MemoryOpLowering;
  LogicalResult
  matchAndRewrite(tile::BitcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter<TileGPUTypeConverter>()->convertElementType(
        tile::getElementTypeOrSelf(op.getType()));
    SmallVector<Value> results;
    for (Value v : adaptor.getSrc()) {
      if (isa<LLVM::LLVMPointerType>(resultType))
        results.push_back(v.getType() == resultType
                              ? v
                              : LLVM::AddrSpaceCastOp::create(rewriter, op.getLoc(),
                                                              resultType, v)
                                    .getResult());
      else
        results.push_back(
            arith::BitcastOp::create(rewriter, op.getLoc(), resultType, v));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct PtrToIntOpLowering : MemoryOpLowering<tile::PtrToIntOp> {
  using MemoryOpLowering::MemoryOpLowering;
  LogicalResult
  matchAndRewrite(tile::PtrToIntOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = tile::getElementTypeOrSelf(op.getType());
    SmallVector<Value> results;
    for (Value v : adaptor.getSrc())
      results.push_back(LLVM::PtrToIntOp::create(rewriter, op.getLoc(), resultType, v));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct IntToPtrOpLowering : MemoryOpLowering<tile::IntToPtrOp> {
  using MemoryOpLowering::MemoryOpLowering;
  LogicalResult
  matchAndRewrite(tile::IntToPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter<TileGPUTypeConverter>()->convertElementType(
        tile::getElementTypeOrSelf(op.getType()));
    SmallVector<Value> results;
    for (Value v : adaptor.getSrc())
      results.push_back(LLVM::IntToPtrOp::create(rewriter, op.getLoc(), resultType, v));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void lowering::populateMemoryOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              LoweringState &state) {
  patterns.add<LoadOpLowering, StoreOpLowering, AddPtrOpLowering,
               BitcastOpLowering, PtrToIntOpLowering, IntToPtrOpLowering>(
      converter, patterns.getContext(), state);
}
