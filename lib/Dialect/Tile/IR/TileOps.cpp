//===- TileOps.cpp - tile dialect operations ------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tilec::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints a shape as `[a, b, c]` for diagnostics.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// Verifies that `order` is a permutation of [0, rank).
static LogicalResult verifyPermutation(Operation *op, ArrayRef<int32_t> order,
                                       int64_t rank, StringRef what) {
  if (static_cast<int64_t>(order.size()) != rank)
    return op->emitOpError() << what << " has " << order.size()
                             << " entries but the rank is " << rank;
  llvm::SmallBitVector seen(rank);
  for (int32_t d : order) {
    if (d < 0 || d >= rank || seen.test(d))
      return op->emitOpError() << what << " must be a permutation of [0, "
                               << rank << ")";
    seen.set(d);
  }
  return success();
}

/// Verifies that every dimension of a tile is a power of two.
static LogicalResult verifyPowerOf2Shape(Operation *op, RankedTensorType type) {
  for (int64_t d : type.getShape())
    if (!isPowerOf2(d))
      return op->emitOpError() << "tile shape " << shapeStr(type.getShape())
                               << " has a dimension that is not a power of two";
  return success();
}

//===----------------------------------------------------------------------===//
// MakeRangeOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicRMWOp::verify() {
  StringRef kind = getKind();
  if (!llvm::is_contained({"add", "fadd", "max", "umax", "fmax", "min", "umin",
                           "fmin", "and", "or", "xor", "xchg"},
                          kind))
    return emitOpError("unknown atomic kind '") << kind << "'";
  Type element = getElementTypeOrSelf(getValue().getType());
  bool isFloat = isa<FloatType>(element);
  bool floatKind = kind == "fadd" || kind == "fmax" || kind == "fmin";
  if (kind != "xchg" && isFloat != floatKind)
    return emitOpError("atomic kind '")
           << kind << "' does not apply to " << element;
  return success();
}

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError("has ") << getArgs().size() << " operands but "
                               << getIsSigned().size()
                               << " is_signed entries";
  for (Value arg : getArgs()) {
    Type element = getElementTypeOrSelf(arg.getType());
    if (!isa<IntegerType, FloatType, PointerType>(element))
      return emitOpError("cannot print a value of type ") << arg.getType();
  }
  return success();
}

LogicalResult MakeRangeOp::verify() {
  auto type = getResult().getType();
  int64_t start = getStart(), end = getEnd();
  if (type.getRank() != 1)
    return emitOpError("result must be a 1-d tensor");
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  if (!isPowerOf2(end - start))
    return emitOpError() << "range length " << end - start
                         << " must be a power of two";
  if (type.getDimSize(0) != end - start)
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range has " << end - start;
  return success();
}

//===----------------------------------------------------------------------===//
// SplatOp
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto type = getResult().getType();
  if (auto attr = dyn_cast_if_present<TypedAttr>(adaptor.getSrc()))
    if (isa<IntegerAttr, FloatAttr>(attr))
      return SplatElementsAttr::get(type, attr);
  return {};
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getResult().getType();
  if (srcType.getRank() != resType.getRank())
    return emitOpError() << "source rank " << srcType.getRank()
                         << " differs from result rank " << resType.getRank();
  for (auto [s, r] : llvm::zip(srcType.getShape(), resType.getShape()))
    if (s != r && s != 1)
      return emitOpError() << "cannot broadcast shape "
                           << shapeStr(srcType.getShape()) << " to "
                           << shapeStr(resType.getShape());
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << srcType.getRank();
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (resType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result shape " << shapeStr(expected)
                         << ", got " << shapeStr(resType.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getResult().getType();
  if (srcType.getNumElements() != resType.getNumElements())
    return emitOpError() << "cannot reshape " << shapeStr(srcType.getShape())
                         << " (" << srcType.getNumElements() << " elements) to "
                         << shapeStr(resType.getShape()) << " ("
                         << resType.getNumElements() << " elements)";
  return verifyPowerOf2Shape(*this, resType);
}

//===----------------------------------------------------------------------===//
// TransOp
//===----------------------------------------------------------------------===//

LogicalResult TransOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getResult().getType();
  if (failed(verifyPermutation(*this, getOrder(), srcType.getRank(), "order")))
    return failure();
  SmallVector<int64_t> expected;
  for (int32_t d : getOrder())
    expected.push_back(srcType.getDimSize(d));
  if (resType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result shape " << shapeStr(expected)
                         << ", got " << shapeStr(resType.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// AddPtrOp
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  auto ptrTensor = dyn_cast<RankedTensorType>(getPtr().getType());
  auto offTensor = dyn_cast<RankedTensorType>(getOffset().getType());
  if (static_cast<bool>(ptrTensor) != static_cast<bool>(offTensor))
    return emitOpError("pointer and offset must both be scalars or both tiles");
  if (ptrTensor && ptrTensor.getShape() != offTensor.getShape())
    return emitOpError() << "pointer shape " << shapeStr(ptrTensor.getShape())
                         << " differs from offset shape "
                         << shapeStr(offTensor.getShape());
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getOffset(), m_Zero()))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

LogicalResult MakeBlockPtrOp::verify() {
  auto type = cast<BlockPointerType>(getResult().getType());
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(getShape().size()) != rank ||
      static_cast<int64_t>(getStrides().size()) != rank ||
      static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "block of rank " << rank << " needs " << rank
                         << " shape, stride and offset values (got "
                         << getShape().size() << ", " << getStrides().size()
                         << ", " << getOffsets().size() << ")";
  auto base = cast<PointerType>(getBase().getType());
  if (base.getPointeeType() != type.getElementType())
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block holds " << type.getElementType();
  if (failed(verifyPowerOf2Shape(*this, type.getBlockType())))
    return failure();
  return verifyPermutation(*this, getOrder(), rank, "order");
}

LogicalResult AdvanceOp::verify() {
  auto type = cast<BlockPointerType>(getPtr().getType());
  if (static_cast<int64_t>(getOffsets().size()) != type.getRank())
    return emitOpError() << "block of rank " << type.getRank() << " needs "
                         << type.getRank() << " offsets, got "
                         << getOffsets().size();
  return success();
}

/// Checks a block load/store's tile against its block pointer's block type
/// (ignoring any layout encoding) and its boundary_check dimensions.
static LogicalResult verifyBlockAccess(Operation *op, BlockPointerType ptrType,
                                       RankedTensorType tileType,
                                       ArrayRef<int32_t> boundaryCheck) {
  auto block = ptrType.getBlockType();
  if (block.getShape() != tileType.getShape() ||
      block.getElementType() != tileType.getElementType())
    return op->emitOpError() << "tile type " << tileType
                             << " does not match the block type " << block;
  llvm::SmallBitVector seen(block.getRank());
  for (int32_t d : boundaryCheck) {
    if (d < 0 || d >= block.getRank())
      return op->emitOpError() << "boundary_check dimension " << d
                               << " out of range for rank " << block.getRank();
    if (seen.test(d))
      return op->emitOpError() << "boundary_check lists dimension " << d
                               << " twice";
    seen.set(d);
  }
  return success();
}

LogicalResult BlockLoadOp::verify() {
  return verifyBlockAccess(*this, cast<BlockPointerType>(getPtr().getType()),
                           getResult().getType(), getBoundaryCheck());
}

LogicalResult BlockStoreOp::verify() {
  return verifyBlockAccess(*this, cast<BlockPointerType>(getPtr().getType()),
                           getValue().getType(), getBoundaryCheck());
}

//===----------------------------------------------------------------------===//
// BitcastOp
//===----------------------------------------------------------------------===//

LogicalResult BitcastOp::verify() {
  Type src = getSrc().getType(), res = getResult().getType();
  auto srcTensor = dyn_cast<RankedTensorType>(src);
  auto resTensor = dyn_cast<RankedTensorType>(res);
  if (static_cast<bool>(srcTensor) != static_cast<bool>(resTensor) ||
      (srcTensor && srcTensor.getShape() != resTensor.getShape()))
    return emitOpError("source and result must have the same shape");
  Type srcElt = getElementTypeOrSelf(src), resElt = getElementTypeOrSelf(res);
  if (isa<PointerType>(srcElt) != isa<PointerType>(resElt))
    return emitOpError("cannot bitcast between pointers and non-pointers; use "
                       "tile.ptr_to_int / tile.int_to_ptr");
  if (isa<PointerType>(srcElt))
    return success();
  if (!srcElt.isIntOrFloat() || !resElt.isIntOrFloat() ||
      srcElt.getIntOrFloatBitWidth() != resElt.getIntOrFloatBitWidth())
    return emitOpError() << "cannot bitcast " << srcElt << " to " << resElt
                         << ": bit widths differ";
  return success();
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto aType = getA().getType(), bType = getB().getType();
  auto cType = getC().getType();
  int64_t rank = cType.getRank();
  if ((rank != 2 && rank != 3) || aType.getRank() != rank ||
      bType.getRank() != rank)
    return emitOpError("operands must all be 2-d, or all 3-d (batched)");
  auto a = aType.getShape(), b = bType.getShape(), c = cType.getShape();
  int64_t m = a[rank - 2], k = a[rank - 1], n = b[rank - 1];
  if (b[rank - 2] != k)
    return emitOpError() << "inner dimensions differ: a is " << shapeStr(a)
                         << ", b is " << shapeStr(b);
  if (c[rank - 2] != m || c[rank - 1] != n ||
      (rank == 3 && (a[0] != c[0] || b[0] != c[0])))
    return emitOpError() << "accumulator shape " << shapeStr(c)
                         << " does not match " << shapeStr(a) << " @ "
                         << shapeStr(b);
  Type aElt = aType.getElementType(), bElt = bType.getElementType();
  Type cElt = cType.getElementType();
  if (aElt != bElt)
    return emitOpError() << "operand element types differ: " << aElt << " and "
                         << bElt;
  if (aElt.isInteger(8)) {
    if (!cElt.isInteger(32))
      return emitOpError("i8 operands need an i32 accumulator");
    return success();
  }
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float8E4M3FNType,
           Float8E5M2Type>(aElt))
    return emitOpError() << "unsupported operand element type " << aElt;
  if (!cElt.isF32() && !(cElt.isF16() && aElt.isF16()))
    return emitOpError() << "accumulator must be f32 (or f16 for f16 operands), "
                            "got "
                         << cElt;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

Type ReduceOp::getResultType(RankedTensorType srcType, int axis) {
  if (srcType.getRank() == 1)
    return srcType.getElementType();
  SmallVector<int64_t> shape(srcType.getShape());
  shape.erase(shape.begin() + axis);
  return RankedTensorType::get(shape, srcType.getElementType());
}

LogicalResult ReduceOp::verifyRegions() {
  if (getSrcs().empty())
    return emitOpError("needs at least one source");
  auto first = cast<RankedTensorType>(getSrcs().front().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << first.getRank();
  if (getResult().size() != getSrcs().size())
    return emitOpError("needs one result per source");
  Block &body = getCombineOp().front();
  unsigned n = getSrcs().size();
  if (body.getNumArguments() != 2 * n)
    return emitOpError() << "combine region needs " << 2 * n
                         << " arguments, has " << body.getNumArguments();
  for (auto [i, src] : llvm::enumerate(getSrcs())) {
    auto type = cast<RankedTensorType>(src.getType());
    if (type.getShape() != first.getShape())
      return emitOpError("all sources must have the same shape");
    Type elt = type.getElementType();
    if (body.getArgument(i).getType() != elt ||
        body.getArgument(i + n).getType() != elt)
      return emitOpError() << "combine region argument types must match the "
                              "element type "
                           << elt << " of source " << i;
    Type res = getResult()[i].getType();
    auto resTensor = dyn_cast<RankedTensorType>(res);
    auto expected = getResultType(type, axis);
    bool shapeOk =
        resTensor ? isa<RankedTensorType>(expected) &&
                        cast<RankedTensorType>(expected).getShape() ==
                            resTensor.getShape() &&
                        resTensor.getElementType() == elt
                  : res == expected;
    if (!shapeOk)
      return emitOpError() << "result " << i << " has type " << res
                           << ", expected " << expected;
  }
  auto yield = dyn_cast<ReduceReturnOp>(body.getTerminator());
  if (!yield || yield.getResult().size() != n)
    return emitOpError() << "combine region must yield " << n << " values";
  for (unsigned i = 0; i < n; ++i)
    if (yield.getResult()[i].getType() != body.getArgument(i).getType())
      return emitOpError("combine region yields a value of the wrong type");
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verifyRegions() {
  if (getSrcs().empty())
    return emitOpError("needs at least one source");
  auto first = cast<RankedTensorType>(getSrcs().front().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << first.getRank();
  if (getResult().size() != getSrcs().size())
    return emitOpError("needs one result per source");
  Block &body = getCombineOp().front();
  unsigned n = getSrcs().size();
  if (body.getNumArguments() != 2 * n)
    return emitOpError() << "combine region needs " << 2 * n
                         << " arguments, has " << body.getNumArguments();
  for (auto [i, src] : llvm::enumerate(getSrcs())) {
    auto type = cast<RankedTensorType>(src.getType());
    if (type.getShape() != first.getShape())
      return emitOpError("all sources must have the same shape");
    Type elt = type.getElementType();
    if (body.getArgument(i).getType() != elt ||
        body.getArgument(i + n).getType() != elt)
      return emitOpError() << "combine region argument types must match the "
                              "element type "
                           << elt << " of source " << i;
    auto res = cast<RankedTensorType>(getResult()[i].getType());
    if (res.getShape() != type.getShape() || res.getElementType() != elt)
      return emitOpError() << "result " << i << " has type " << res
                           << ", expected the shape and element type of "
                           << type;
  }
  auto yield = dyn_cast<ScanReturnOp>(body.getTerminator());
  if (!yield || yield.getResult().size() != n)
    return emitOpError() << "combine region must yield " << n << " values";
  for (unsigned i = 0; i < n; ++i)
    if (yield.getResult()[i].getType() != body.getArgument(i).getType())
      return emitOpError("combine region yields a value of the wrong type");
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// InlineAsmElementwiseOp
//===----------------------------------------------------------------------===//

unsigned InlineAsmElementwiseOp::getElementsPerRegister(Type elementType,
                                                        unsigned pack) {
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 64;
  if (bits >= 32 || pack <= 1)
    return 1;
  return std::min(32 / bits, pack);
}

unsigned InlineAsmElementwiseOp::getNumRegisters(Type elementType,
                                                 unsigned pack) {
  return pack / getElementsPerRegister(elementType, pack);
}

std::pair<unsigned, unsigned>
InlineAsmElementwiseOp::countConstraints(StringRef constraints) {
  unsigned outputs = 0, inputs = 0;
  if (constraints.trim().empty())
    return {0, 0};
  SmallVector<StringRef> entries;
  constraints.split(entries, ',');
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (entry.starts_with("="))
      ++outputs;
    else if (!entry.starts_with("~"))
      ++inputs;
  }
  return {outputs, inputs};
}

void InlineAsmElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

LogicalResult InlineAsmElementwiseOp::verify() {
  int32_t pack = getPackedElement();
  if (pack < 1 || !llvm::isPowerOf2_32(pack))
    return emitOpError() << "packed_element must be a power of two, got "
                         << pack;
  if (getResults().empty())
    return emitOpError() << "needs at least one result";
  // One shape for everything (Triton broadcasts the arguments first).
  std::optional<ArrayRef<int64_t>> shape;
  auto check = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    ArrayRef<int64_t> s = tensor ? tensor.getShape() : ArrayRef<int64_t>();
    if (!shape)
      shape = s;
    else if (*shape != s || (!tensor && !shape->empty()))
      return emitOpError() << "arguments and results must all have one shape";
    Type element = tilec::tile::getElementTypeOrSelf(type);
    if (!element.isIntOrFloat() && !isa<PointerType>(element))
      return emitOpError() << "takes integers, floats and pointers, got "
                           << element;
    return success();
  };
  for (Type type : getResultTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : getArgs().getTypes())
    if (failed(check(type)))
      return failure();
  if (shape && !shape->empty()) {
    int64_t numElements = 1;
    for (int64_t d : *shape)
      numElements *= d;
    if (numElements % pack != 0)
      return emitOpError() << "packed_element " << pack
                           << " does not divide the " << numElements
                           << " elements of the tiles";
  }
  unsigned wantOut = 0, wantIn = 0;
  for (Type type : getResultTypes())
    wantOut += getNumRegisters(tilec::tile::getElementTypeOrSelf(type), pack);
  for (Type type : getArgs().getTypes())
    wantIn += getNumRegisters(tilec::tile::getElementTypeOrSelf(type), pack);
  auto [out, in] = countConstraints(getConstraints());
  if (out != wantOut || in != wantIn)
    return emitOpError() << "constraints \"" << getConstraints() << "\" have "
                         << out << " outputs and " << in
                         << " inputs, but the results take " << wantOut
                         << " and the arguments " << wantIn
                         << " registers with packed_element " << pack;
  return success();
}
