//===- MemoryOpToLinalg.cpp - pointers, loads and stores ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Pointers are i64 addresses: addptr is integer arithmetic (a
// `linalg.generic` on tiles). A load or store of a tile is an `scf.for`
// nest over its elements: the address, mask and `other` of each element are
// read with `tensor.extract`, memory is accessed with `llvm.load` /
// `llvm.store` only where the mask is true, and a load's result is built
// with `tensor.insert` (bufferized in place). Real loops rather than
// `linalg.generic`s keep the accesses visible as memory effects to every
// later pass (see the pass description).
//
// With the sanitizer on, the access checker (TileToLinalg.h) is called
// first and a refused access is skipped.
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Conversion/TileToLinalg/TileToLinalg.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

namespace {

/// `ptr + offset * bytes` on i64 addresses; narrower offsets are
/// sign-extended (booleans zero-extended).
Value addScaledOffset(OpBuilder &b, Location loc, Value address, Value offset,
                      int64_t bytes) {
  Type i64 = b.getI64Type();
  if (offset.getType().isInteger(1))
    offset = arith::ExtUIOp::create(b, loc, i64, offset);
  else if (offset.getType().getIntOrFloatBitWidth() < 64)
    offset = arith::ExtSIOp::create(b, loc, i64, offset);
  if (bytes != 1)
    offset = arith::MulIOp::create(
        b, loc, offset,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes)));
  return arith::AddIOp::create(b, loc, address, offset);
}

struct AddPtrOpLowering : OpConversionPattern<tile::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t bytes = getStorageBytes(
        tile::getElementTypeOrSelf(tile::getPointeeType(op.getPtr().getType())));
    Location loc = op.getLoc();
    auto type = dyn_cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type) {
      rewriter.replaceOp(op, addScaledOffset(rewriter, loc, adaptor.getPtr(),
                                             adaptor.getOffset(), bytes));
      return success();
    }
    rewriter.replaceOp(
        op, buildElementwiseGeneric(
                rewriter, loc, type, {adaptor.getPtr(), adaptor.getOffset()},
                [&](OpBuilder &b, Location l, ValueRange args) {
                  return addScaledOffset(b, l, args[0], args[1], bytes);
                }));
    return success();
  }
};

/// `p.to(tl.int64)` and back: the address itself, resized when the integer
/// is not 64 bits wide.
template <typename Op>
struct AddressCastLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = this->getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    Value src = adaptor.getSrc();
    if (src.getType() == resultType) {
      rewriter.replaceOp(op, src);
      return success();
    }
    auto resize = [](OpBuilder &b, Location loc, Type to, Value v) -> Value {
      unsigned from = v.getType().getIntOrFloatBitWidth();
      if (to.getIntOrFloatBitWidth() < from)
        return arith::TruncIOp::create(b, loc, to, v);
      return arith::ExtUIOp::create(b, loc, to, v);
    };
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    if (!tensorType) {
      rewriter.replaceOp(op, resize(rewriter, op.getLoc(), resultType, src));
      return success();
    }
    Type elementType = tensorType.getElementType();
    rewriter.replaceOp(op, buildElementwiseGeneric(
                               rewriter, op.getLoc(), tensorType, src,
                               [&](OpBuilder &b, Location loc, ValueRange args) {
                                 return resize(b, loc, elementType, args[0]);
                               }));
    return success();
  }
};

/// How one element is accessed: its type in registers (after conversion)
/// and in memory.
struct ElementAccess {
  /// The element type the tile holds (i64 for a pointer).
  Type valueType;
  /// The type `llvm.load`/`llvm.store` use: i8 for i1 and fp8, else
  /// `valueType`.
  Type memoryType;
  int64_t bytes;

  explicit ElementAccess(Type pointee, const TypeConverter &converter) {
    valueType = converter.convertType(pointee);
    bytes = getStorageBytes(pointee);
    memoryType = valueType;
    if (valueType.isInteger(1) ||
        (isa<FloatType>(valueType) && !LLVM::isCompatibleType(valueType)))
      memoryType = IntegerType::get(valueType.getContext(), 8);
  }

  Value fromMemory(OpBuilder &b, Location loc, Value raw) const {
    if (raw.getType() == valueType)
      return raw;
    if (valueType.isInteger(1))
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, raw,
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(memoryType, 0)));
    return arith::BitcastOp::create(b, loc, valueType, raw);
  }

  Value toMemory(OpBuilder &b, Location loc, Value value) const {
    if (value.getType() == memoryType)
      return value;
    if (valueType.isInteger(1))
      return arith::ExtUIOp::create(b, loc, memoryType, value);
    return arith::BitcastOp::create(b, loc, memoryType, value);
  }

  Value zero(OpBuilder &b, Location loc) const {
    if (auto floatType = dyn_cast<FloatType>(valueType))
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, 0.0));
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(valueType, 0));
  }
};

/// Emits the memory accesses of loads and stores, with the sanitizer's
/// checks when asked for.
class AccessEmitter {
public:
  AccessEmitter(Operation *op, const MemoryLoweringOptions &options)
      : op(op), options(options) {}

  /// Loads one element at `pointer` (`!llvm.ptr`): `other` (or zero) where
  /// `mask` is false or the sanitizer refuses the address. `mask` may be
  /// null.
  Value emitLoad(OpBuilder &b, Location loc, const ElementAccess &access,
                 Value pointer, Value mask, Value other, Value element,
                 bool isVolatile) {
    // What a skipped access reads: `other`, else zero (created only when
    // an access can be skipped).
    Value fallback = other;
    if (!fallback && (mask || options.sanitize))
      fallback = access.zero(b, loc);
    auto load = [&](OpBuilder &nb, Location l) -> Value {
      Value raw = LLVM::LoadOp::create(nb, l, access.memoryType, pointer,
                                       /*alignment=*/0, isVolatile);
      return access.fromMemory(nb, l, raw);
    };
    auto checkedLoad = [&](OpBuilder &nb, Location l) -> Value {
      if (!options.sanitize)
        return load(nb, l);
      Value ok = emitCheck(nb, l, pointer, access.bytes, AccessLoad, element);
      return emitSelect(nb, l, ok, load, fallback);
    };
    if (!mask)
      return checkedLoad(b, loc);
    return emitSelect(b, loc, mask, checkedLoad, fallback);
  }

  /// Stores `value` at `pointer` unless `mask` (may be null) is false or
  /// the sanitizer refuses the address.
  void emitStore(OpBuilder &b, Location loc, const ElementAccess &access,
                 Value pointer, Value value, Value mask, Value element) {
    auto store = [&](OpBuilder &nb, Location l) {
      LLVM::StoreOp::create(nb, l, access.toMemory(nb, l, value), pointer);
    };
    auto checkedStore = [&](OpBuilder &nb, Location l) {
      if (!options.sanitize)
        return store(nb, l);
      Value ok = emitCheck(nb, l, pointer, access.bytes, AccessStore, element);
      emitWhen(nb, l, ok, store);
    };
    if (!mask)
      return checkedStore(b, loc);
    emitWhen(b, loc, mask, checkedStore);
  }

  /// Runs `atomic` (which returns the old value) unless `mask` (may be
  /// null) is false or the sanitizer refuses the address; `fallback`
  /// otherwise.
  Value emitAtomic(OpBuilder &b, Location loc, Value pointer, int64_t bytes,
                   Value mask, Value element, Value fallback,
                   llvm::function_ref<Value(OpBuilder &, Location)> atomic) {
    auto checked = [&](OpBuilder &nb, Location l) -> Value {
      if (!options.sanitize)
        return atomic(nb, l);
      Value ok = emitCheck(nb, l, pointer, bytes, AccessAtomic, element);
      return emitSelect(nb, l, ok, atomic, fallback);
    };
    if (!mask)
      return checked(b, loc);
    return emitSelect(b, loc, mask, checked, fallback);
  }

private:
  using ValueBuilder = llvm::function_ref<Value(OpBuilder &, Location)>;
  using VoidBuilder = llvm::function_ref<void(OpBuilder &, Location)>;

  static Value emitSelect(OpBuilder &b, Location loc, Value cond,
                          ValueBuilder then, Value otherwise) {
    auto ifOp = scf::IfOp::create(
        b, loc, cond,
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(nb, l, then(nb, l));
        },
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(nb, l, otherwise);
        });
    return ifOp.getResult(0);
  }

  static void emitWhen(OpBuilder &b, Location loc, Value cond,
                       VoidBuilder then) {
    scf::IfOp::create(b, loc, cond, [&](OpBuilder &nb, Location l) {
      then(nb, l);
      scf::YieldOp::create(nb, l);
    });
  }

  /// `__tilec_cpu_check_access(...) != 0`.
  Value emitCheck(OpBuilder &b, Location loc, Value pointer, int64_t bytes,
                  AccessKind kind, Value element) {
    ModuleOp module = op->getParentOfType<ModuleOp>();
    MLIRContext *ctx = b.getContext();
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    if (!module.lookupSymbol(kCheckAccessFunction)) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      auto decl = func::FuncOp::create(
          b, loc, kCheckAccessFunction,
          b.getFunctionType({i64, i64, i32, i64, ptrType}, {i32}));
      decl.setPrivate();
    }
    Value site = getSiteString(b, loc, kind);
    Value address = LLVM::PtrToIntOp::create(b, loc, i64, pointer);
    Value args[] = {
        address,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes)),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(kind)),
        element, site};
    Value ok = func::CallOp::create(b, loc, kCheckAccessFunction,
                                    TypeRange{i32}, args)
                   .getResult(0);
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, ok,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
  }

  /// The address of a constant string describing this access site
  /// ("load of tensor<128xf32> at softmax.tile:21:11"), one global per op.
  Value getSiteString(OpBuilder &b, Location loc, AccessKind kind) {
    if (!siteGlobal) {
      std::string text;
      llvm::raw_string_ostream os(text);
      Type accessed = kind == AccessStore ? op->getOperand(1).getType()
                                          : op->getResult(0).getType();
      os << getAccessKindName(kind) << " of " << accessed;
      if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
        os << " at " << fileLoc.getFilename().getValue() << ":"
           << fileLoc.getLine() << ":" << fileLoc.getColumn();
      text.push_back('\0');
      ModuleOp module = op->getParentOfType<ModuleOp>();
      std::string name;
      for (unsigned n = 0; name.empty() || module.lookupSymbol(name); ++n)
        name = "__tilec_site_" + std::to_string(n);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
      siteGlobal = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                          LLVM::Linkage::Internal, name,
                                          b.getStringAttr(text));
    }
    return LLVM::AddressOfOp::create(b, loc, siteGlobal);
  }

  Operation *op;
  MemoryLoweringOptions options;
  LLVM::GlobalOp siteGlobal;
};

/// The row-major index (i64) of the element at `ivs` in a tile of `shape`.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ValueRange ivs) {
  Value index = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [size, iv] : llvm::zip(shape, ivs))
    index = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, index,
                              arith::ConstantIndexOp::create(b, loc, size)),
        iv);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// Whether every row (last dimension) of the pointer tile `ptr` holds
/// consecutive elements, as `tile-axis-info` proves.
bool hasContiguousRows(Value ptr, const MemoryLoweringOptions &options) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type || !options.axisInfo)
    return false;
  int64_t rowLength = type.getShape().back();
  return rowLength > 1 &&
         options.axisInfo->lookup(ptr).getContiguity(type.getRank() - 1) >=
             rowLength;
}

/// The pointer to the element at `ivs` of the address tile `addresses`:
/// with `rowStart` (the first element of its row, for tiles whose rows are
/// contiguous), `rowStart` indexed by the column (`llvm.getelementptr`,
/// affine in the innermost loop, so that LLVM can turn the masked accesses
/// of a row into masked vector loads and stores); else the tile's address.
Value elementPointer(OpBuilder &b, Location loc, Value addresses,
                     ValueRange ivs, Value rowStart,
                     const ElementAccess &access) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  if (!rowStart) {
    Value address = tensor::ExtractOp::create(b, loc, addresses, ivs);
    return LLVM::IntToPtrOp::create(b, loc, ptrType, address);
  }
  Value column =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), ivs.back());
  return LLVM::GEPOp::create(b, loc, ptrType, access.memoryType, rowStart,
                             ArrayRef<LLVM::GEPArg>{column});
}

/// The pointer to the first element of the row at `outerIvs`, built before
/// the loop over the row (so that it is loop-invariant there).
Value rowStartPointer(OpBuilder &b, Location loc, Value addresses,
                      ValueRange outerIvs) {
  SmallVector<Value> start(outerIvs);
  start.push_back(arith::ConstantIndexOp::create(b, loc, 0));
  Value address = tensor::ExtractOp::create(b, loc, addresses, start);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

/// The first column of the address tile `addresses` (`tensor.extract_slice`,
/// last dimension 1): all that an access of contiguous rows reads, and,
/// after bubble-up-extract-slices, all that is computed.
Value firstColumn(OpBuilder &b, Location loc, Value addresses) {
  auto type = cast<RankedTensorType>(addresses.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape().drop_back())
    sizes.push_back(b.getIndexAttr(size));
  sizes.push_back(b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, addresses, offsets, sizes,
                                        strides);
}

/// A mask tile as bytes (`arith.extui` to i8 in an elementwise
/// `linalg.generic`, which elementwise fusion merges into the generic that
/// computes the mask): LLVM cannot vectorize loops over an `i1` buffer (a
/// vector of i1 is packed bits, a buffer of i1 one byte per element), but
/// reads a row of bytes as one vector and turns the row's masked accesses
/// into masked vector loads and stores. Scalars and null are returned as
/// they are.
Value maskAsBytes(OpBuilder &b, Location loc, Value mask) {
  auto type = mask ? dyn_cast<RankedTensorType>(mask.getType())
                   : RankedTensorType();
  if (!type || !type.getElementType().isInteger(1))
    return mask;
  Type i8 = b.getI8Type();
  return buildElementwiseGeneric(
      b, loc, type.clone(i8), mask,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::ExtUIOp::create(nb, l, i8, args[0]);
      });
}

/// The mask of the element at `ivs` of `maskBytes` (see maskAsBytes), or
/// null.
Value maskAt(OpBuilder &b, Location loc, Value maskBytes, ValueRange ivs) {
  if (!maskBytes)
    return Value();
  Value byte = tensor::ExtractOp::create(b, loc, maskBytes, ivs);
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, byte,
      arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0)));
}

/// Builds the body for one element: gets the indices, the loop-carried
/// values and the row's start pointer (null without `rowSetup`).
using ElementBodyFn = function_ref<scf::ValueVector(
    OpBuilder &, Location, ValueRange, ValueRange, Value)>;

/// An `scf.for` nest over every index of `shape` carrying `iterArgs`:
/// loops over all dimensions but the last, then `rowSetup` (if any), then
/// the loop over the last dimension with `body`. Returns the results.
SmallVector<Value>
buildTileLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
               ValueRange iterArgs,
               function_ref<Value(OpBuilder &, Location, ValueRange)> rowSetup,
               ElementBodyFn body) {
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t size : shape.drop_back()) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(one);
  }
  Value rowLength = arith::ConstantIndexOp::create(b, loc, shape.back());
  scf::LoopNest outer = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, iterArgs,
      [&](OpBuilder &ob, Location ol, ValueRange outerIvs,
          ValueRange outerArgs) -> scf::ValueVector {
        Value row = rowSetup ? rowSetup(ob, ol, outerIvs) : Value();
        auto inner = scf::ForOp::create(
            ob, ol, zero, rowLength, one, outerArgs,
            [&](OpBuilder &ib, Location il, Value column,
                ValueRange innerArgs) {
              SmallVector<Value> ivs(outerIvs);
              ivs.push_back(column);
              scf::YieldOp::create(ib, il,
                                   body(ib, il, ivs, innerArgs, row));
            });
        return scf::ValueVector(inner.getResults().begin(),
                                inner.getResults().end());
      });
  return SmallVector<Value>(outer.results);
}

/// The number of elements one vector access of a contiguous row covers in
/// buildVectorRowLoad: the largest power of two dividing the row length
/// that fits in 64 bytes (one AVX-512 register), or 1 (no vector access).
int64_t getRowChunk(int64_t rowLength, int64_t bytes) {
  int64_t chunk = 1;
  while (chunk * 2 * bytes <= 64 && rowLength % (chunk * 2) == 0)
    chunk *= 2;
  return chunk;
}

/// A load of a tile whose rows are contiguous, one vector per `chunk`
/// elements of a row: `llvm.intr.masked.load` from the row's start pointer
/// with the mask bytes compared with zero as the mask and `other` (or zero)
/// as the pass-through value (a plain vector `llvm.load` without a mask),
/// `vector.transfer_write` into the result. Masked-off elements are never
/// accessed (the masked load touches only the enabled lanes), exactly as in
/// the element loop; LLVM lowers it to one AVX-512 masked move, where the
/// element loop, fully unrolled for short rows before the loop vectorizer
/// sees it, became one compare and branch per element.
Value buildVectorRowLoad(OpBuilder &b, Location loc, RankedTensorType type,
                         Value addresses, Value maskBytes, Value other,
                         const ElementAccess &access, int64_t chunk) {
  ArrayRef<int64_t> shape = type.getShape();
  Type elementType = type.getElementType();
  auto vectorType = VectorType::get({chunk}, elementType);
  auto maskVectorType = VectorType::get({chunk}, b.getI8Type());
  SmallVector<bool> inBounds = {true};
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t size : shape.drop_back()) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(one);
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value rowLength = arith::ConstantIndexOp::create(b, loc, shape.back());
  Value step = arith::ConstantIndexOp::create(b, loc, chunk);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  scf::LoopNest rows = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{init},
      [&](OpBuilder &ob, Location ol, ValueRange outerIvs,
          ValueRange outerArgs) -> scf::ValueVector {
        Value rowStart = rowStartPointer(ob, ol, addresses, outerIvs);
        auto columns = scf::ForOp::create(
            ob, ol, zero, rowLength, step, outerArgs,
            [&](OpBuilder &ib, Location il, Value column, ValueRange args) {
              SmallVector<Value> ivs(outerIvs);
              ivs.push_back(column);
              Value offset =
                  arith::IndexCastOp::create(ib, il, ib.getI64Type(), column);
              Value pointer =
                  LLVM::GEPOp::create(ib, il, ptrType, access.memoryType,
                                      rowStart, ArrayRef<LLVM::GEPArg>{offset});
              Value loaded;
              if (maskBytes) {
                Value bytes = vector::TransferReadOp::create(
                    ib, il, maskVectorType, maskBytes, ivs, std::nullopt,
                    ArrayRef<bool>(inBounds));
                Value zeros = arith::ConstantOp::create(
                    ib, il, DenseElementsAttr::get(
                                maskVectorType, ib.getI8IntegerAttr(0)));
                Value mask = arith::CmpIOp::create(
                    ib, il, arith::CmpIPredicate::ne, bytes, zeros);
                Value passThrough =
                    other ? vector::TransferReadOp::create(
                                ib, il, vectorType, other, ivs, std::nullopt,
                                ArrayRef<bool>(inBounds))
                                .getResult()
                          : arith::ConstantOp::create(
                                ib, il,
                                DenseElementsAttr::get(
                                    vectorType,
                                    cast<TypedAttr>(ib.getZeroAttr(
                                        elementType))))
                                .getResult();
                loaded = LLVM::MaskedLoadOp::create(
                    ib, il, vectorType, pointer, mask, passThrough,
                    ib.getI32IntegerAttr(access.bytes));
              } else {
                loaded = LLVM::LoadOp::create(ib, il, vectorType, pointer,
                                              access.bytes);
              }
              Value updated = vector::TransferWriteOp::create(
                                  ib, il, loaded, args[0], ivs,
                                  ArrayRef<bool>(inBounds))
                                  .getResult();
              scf::YieldOp::create(ib, il, updated);
            });
        return scf::ValueVector(columns.getResults().begin(),
                                columns.getResults().end());
      });
  return rows.results.front();
}

struct LoadOpLowering : OpConversionPattern<tile::LoadOp> {
  LoadOpLowering(TypeConverter &converter, MLIRContext *ctx,
                 const MemoryLoweringOptions &options)
      : OpConversionPattern(converter, ctx), options(options) {}

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ElementAccess access(tile::getElementTypeOrSelf(
                             tile::getPointeeType(op.getPtr().getType())),
                         *getTypeConverter());
    AccessEmitter emitter(op, options);
    bool isVolatile = op.getIsVolatile();
    auto type = dyn_cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type) {
      Value element = options.sanitize
                          ? arith::ConstantOp::create(
                                rewriter, loc, rewriter.getI64IntegerAttr(0))
                          : Value();
      Value pointer = LLVM::IntToPtrOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
          adaptor.getPtr());
      rewriter.replaceOp(op, emitter.emitLoad(rewriter, loc, access, pointer,
                                              adaptor.getMask(),
                                              adaptor.getOther(), element,
                                              isVolatile));
      return success();
    }
    bool contiguousRows = hasContiguousRows(op.getPtr(), options);
    Value addresses = adaptor.getPtr();
    if (contiguousRows)
      addresses = firstColumn(rewriter, loc, addresses);
    auto rowSetup = [&](OpBuilder &b, Location l, ValueRange outerIvs) {
      return rowStartPointer(b, l, addresses, outerIvs);
    };
    Value maskBytes = maskAsBytes(rewriter, loc, adaptor.getMask());
    if (contiguousRows && !options.sanitize && !isVolatile &&
        access.memoryType == access.valueType &&
        type.getElementType().isIntOrFloat()) {
      int64_t chunk = getRowChunk(type.getShape().back(), access.bytes);
      if (chunk > 1) {
        rewriter.replaceOp(op, buildVectorRowLoad(rewriter, loc, type,
                                                  addresses, maskBytes,
                                                  adaptor.getOther(), access,
                                                  chunk));
        return success();
      }
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<Value> results = buildTileLoops(
        rewriter, loc, type.getShape(), init,
        contiguousRows ? function_ref<Value(OpBuilder &, Location, ValueRange)>(
                             rowSetup)
                       : nullptr,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange iterArgs,
            Value rowStart) {
          auto at = [&](Value tensor) -> Value {
            return tensor ? tensor::ExtractOp::create(b, l, tensor, ivs)
                          : Value();
          };
          Value element = options.sanitize
                              ? linearIndex(b, l, type.getShape(), ivs)
                              : Value();
          // (One statement each: the order of the extracts is fixed.)
          Value pointer =
              elementPointer(b, l, addresses, ivs, rowStart, access);
          Value mask = maskAt(b, l, maskBytes, ivs);
          Value other = at(adaptor.getOther());
          Value value = emitter.emitLoad(b, l, access, pointer, mask, other,
                                         element, isVolatile);
          return scf::ValueVector{
              tensor::InsertOp::create(b, l, value, iterArgs[0], ivs)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }

  MemoryLoweringOptions options;
};

struct StoreOpLowering : OpConversionPattern<tile::StoreOp> {
  StoreOpLowering(TypeConverter &converter, MLIRContext *ctx,
                  const MemoryLoweringOptions &options)
      : OpConversionPattern(converter, ctx), options(options) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ElementAccess access(tile::getElementTypeOrSelf(
                             tile::getPointeeType(op.getPtr().getType())),
                         *getTypeConverter());
    AccessEmitter emitter(op, options);
    auto type = dyn_cast<RankedTensorType>(adaptor.getPtr().getType());
    if (!type) {
      Value element = options.sanitize
                          ? arith::ConstantOp::create(
                                rewriter, loc, rewriter.getI64IntegerAttr(0))
                          : Value();
      Value pointer = LLVM::IntToPtrOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
          adaptor.getPtr());
      emitter.emitStore(rewriter, loc, access, pointer, adaptor.getValue(),
                        adaptor.getMask(), element);
      rewriter.eraseOp(op);
      return success();
    }
    bool contiguousRows = hasContiguousRows(op.getPtr(), options);
    Value addresses = adaptor.getPtr();
    if (contiguousRows)
      addresses = firstColumn(rewriter, loc, addresses);
    auto rowSetup = [&](OpBuilder &b, Location l, ValueRange outerIvs) {
      return rowStartPointer(b, l, addresses, outerIvs);
    };
    Value maskBytes = maskAsBytes(rewriter, loc, adaptor.getMask());
    buildTileLoops(
        rewriter, loc, type.getShape(), ValueRange{},
        contiguousRows ? function_ref<Value(OpBuilder &, Location, ValueRange)>(
                             rowSetup)
                       : nullptr,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange,
            Value rowStart) {
          auto at = [&](Value tensor) -> Value {
            return tensor ? tensor::ExtractOp::create(b, l, tensor, ivs)
                          : Value();
          };
          Value element = options.sanitize
                              ? linearIndex(b, l, type.getShape(), ivs)
                              : Value();
          Value pointer =
              elementPointer(b, l, addresses, ivs, rowStart, access);
          Value value = at(adaptor.getValue());
          Value mask = maskAt(b, l, maskBytes, ivs);
          emitter.emitStore(b, l, access, pointer, value, mask, element);
          return scf::ValueVector{};
        });
    rewriter.eraseOp(op);
    return success();
  }

  MemoryLoweringOptions options;
};

/// tile.atomic_rmw and tile.atomic_cas: one host atomic per element (the
/// programs of a launch run on several host threads; sem and scope are
/// met by sequential consistency), in the tile loops of a load; the old
/// values make the result.
template <typename Op>
struct AtomicOpLowering : OpConversionPattern<Op> {
  AtomicOpLowering(TypeConverter &converter, MLIRContext *ctx,
                   const MemoryLoweringOptions &options)
      : OpConversionPattern<Op>(converter, ctx), options(options) {}

  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;

  /// The atomic on one element: a call of the host helper
  /// (kAtomicFunction); returns the old value.
  Value emitOne(OpBuilder &b, Location loc, Op op, Value pointer,
                ValueRange operands) const {
    ModuleOp module = op->template getParentOfType<ModuleOp>();
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    if (!module.lookupSymbol(kAtomicFunction)) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      auto decl = func::FuncOp::create(
          b, loc, kAtomicFunction,
          b.getFunctionType({i32, i32, ptrType, i64, i64}, {i64}));
      decl.setPrivate();
    }
    Type type = operands[0].getType();
    unsigned bits = type.getIntOrFloatBitWidth();
    Type intType = b.getIntegerType(bits);
    bool isFloat = isa<FloatType>(type);
    int32_t opCode = AtomicCas;
    bool isUnsigned = false;
    if constexpr (std::is_same_v<Op, tile::AtomicRMWOp>) {
      StringRef kind = op.getKind();
      isUnsigned = kind == "umax" || kind == "umin";
      if (kind.starts_with("u") || kind.starts_with("f"))
        kind = kind.drop_front();
      opCode = llvm::StringSwitch<int32_t>(kind)
                   .Case("add", AtomicAdd)
                   .Case("max", AtomicMax)
                   .Case("min", AtomicMin)
                   .Case("and", AtomicAnd)
                   .Case("or", AtomicOr)
                   .Case("xor", AtomicXor)
                   .Default(AtomicXchg);
    }
    int32_t typeCode;
    if (isFloat)
      typeCode = type.isBF16()   ? AtomicBF16
                 : bits == 16 ? AtomicF16
                 : bits == 32 ? AtomicF32
                              : AtomicF64;
    else
      typeCode = bits == 16   ? (isUnsigned ? AtomicU16 : AtomicI16)
                 : bits == 32 ? (isUnsigned ? AtomicU32 : AtomicI32)
                              : (isUnsigned ? AtomicU64 : AtomicI64);
    auto toBits = [&](Value v) -> Value {
      if (isFloat)
        v = arith::BitcastOp::create(b, loc, intType, v);
      if (bits < 64)
        v = arith::ExtUIOp::create(b, loc, i64, v);
      return v;
    };
    Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
    Value args[] = {
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(opCode)),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(typeCode)),
        pointer, toBits(operands[0]),
        operands.size() > 1 ? toBits(operands[1]) : zero};
    Value old = func::CallOp::create(b, loc, kAtomicFunction, TypeRange{i64},
                                     args)
                    .getResult(0);
    if (bits < 64)
      old = arith::TruncIOp::create(b, loc, intType, old);
    if (isFloat)
      old = arith::BitcastOp::create(b, loc, type, old);
    return old;
  }

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = tile::getElementTypeOrSelf(op.getType());
    int64_t bytes = elementType.getIntOrFloatBitWidth() / 8;
    AccessEmitter emitter(op, options);
    SmallVector<Value> operands;
    Value mask;
    if constexpr (std::is_same_v<Op, tile::AtomicRMWOp>) {
      operands.push_back(adaptor.getValue());
      mask = adaptor.getMask();
    } else {
      operands.push_back(adaptor.getCmp());
      operands.push_back(adaptor.getValue());
    }
    auto zeroOf = [&](OpBuilder &b, Location l) -> Value {
      if (auto f = dyn_cast<FloatType>(elementType))
        return arith::ConstantOp::create(b, l, b.getFloatAttr(f, 0.0));
      return arith::ConstantOp::create(b, l,
                                       b.getIntegerAttr(elementType, 0));
    };
    auto type = dyn_cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!type) {
      Value element = options.sanitize
                          ? arith::ConstantOp::create(
                                rewriter, loc, rewriter.getI64IntegerAttr(0))
                          : Value();
      Value pointer = LLVM::IntToPtrOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
          adaptor.getPtr());
      Value fallback = zeroOf(rewriter, loc);
      rewriter.replaceOp(
          op, emitter.emitAtomic(rewriter, loc, pointer, bytes, mask, element,
                                 fallback, [&](OpBuilder &b, Location l) {
                                   return emitOne(b, l, op, pointer, operands);
                                 }));
      return success();
    }
    Value addresses = adaptor.getPtr();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    ElementAccess access(elementType, *this->getTypeConverter());
    SmallVector<Value> results = buildTileLoops(
        rewriter, loc, type.getShape(), init, nullptr,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange iterArgs,
            Value rowStart) {
          auto at = [&](Value tensor) -> Value {
            return tensor ? tensor::ExtractOp::create(b, l, tensor, ivs)
                          : Value();
          };
          Value element = options.sanitize
                              ? linearIndex(b, l, type.getShape(), ivs)
                              : Value();
          Value pointer =
              elementPointer(b, l, addresses, ivs, rowStart, access);
          SmallVector<Value> scalars;
          for (Value v : operands)
            scalars.push_back(at(v));
          Value m = at(mask);
          Value fallback = zeroOf(b, l);
          Value old = emitter.emitAtomic(
              b, l, pointer, bytes, m, element, fallback,
              [&](OpBuilder &nb, Location nl) {
                return emitOne(nb, nl, op, pointer, scalars);
              });
          return scf::ValueVector{
              tensor::InsertOp::create(b, l, old, iterArgs[0], ivs)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }

  MemoryLoweringOptions options;
};

/// tl.debug_barrier: one host thread runs each program, so nothing to
/// wait for.
struct DebugBarrierLowering : OpConversionPattern<tile::DebugBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DebugBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// tl.assume: a promise for the analyses; nothing runs.
struct AssumeLowering : OpConversionPattern<tile::AssumeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AssumeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void cpu::populateMemoryOpToLinalgPatterns(
    TileToLinalgTypeConverter &converter, RewritePatternSet &patterns,
    const MemoryLoweringOptions &options) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AddPtrOpLowering, AssumeLowering, DebugBarrierLowering,
               AddressCastLowering<tile::PtrToIntOp>,
               AddressCastLowering<tile::IntToPtrOp>>(converter, ctx);
  patterns.add<LoadOpLowering, StoreOpLowering,
               AtomicOpLowering<tile::AtomicRMWOp>,
               AtomicOpLowering<tile::AtomicCASOp>>(converter, ctx, options);
}
