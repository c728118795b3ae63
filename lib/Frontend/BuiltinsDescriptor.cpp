//===- BuiltinsDescriptor.cpp - Tensor descriptors
//--------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdint>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;
namespace arith = mlir::arith;
namespace math = mlir::math;

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//
//
// `tl.make_tensor_descriptor(base, shape, strides, block_shape)` describes a
// tensor in global memory and the block shape TMA copies of it have; the
// blocks are read with `desc.load(offsets)` and written with
// `desc.store(offsets, value)` at any element offsets, out-of-bounds elements
// reading as zero (NaN with `padding_option="nan"`) and not being written
// (TMA's semantics). tilec lowers them onto block pointers: the descriptor
// is a `tile.make_block_ptr` at offset zero (row-major), a load or store
// `tile.advance`s it by the offsets and checks the bounds of every
// dimension (the padding travels in the descriptor's DType, the IR type
// has none). The Hopper path then copies the loads that feed a wgmma dot
// with TMA, like those of block pointers. The atomics, gather and scatter
// are built from pointer tiles (below).

/// Triton's limit on a tensor descriptor's rank (TMA's).
static constexpr size_t kMaxDescriptorRank = 5;

/// The number of entries of a list argument (a single value counts one).
static size_t listSize(const CGValue &v) {
  return v.isTuple() ? v.getElements().size() : 1;
}

/// The last entry of a list argument.
static const CGValue &lastOf(const CGValue &v) {
  return v.isTuple() ? v.getElements().back() : v;
}

static FailureOr<CGValue> builtinMakeTensorDescriptor(CodeGen &cg, Args &a) {
  enum { kBase, kShape, kStrides, kBlockShape, kPadding };
  CGValue base = a.value(kBase);
  if (!base.isRuntime() || !base.getDType().isPointer() || base.isTile())
    return cg.error(a.loc(kBase), "the base of tl.make_tensor_descriptor() "
                                  "must be a scalar pointer, got " +
                                      base.describe());
  size_t rank = listSize(a.value(kShape));
  if (rank < 1 || rank > kMaxDescriptorRank)
    return cg.error(a.loc(kShape), "a tensor descriptor has 1 to " +
                                       std::to_string(kMaxDescriptorRank) +
                                       " dimensions, but the shape has " +
                                       std::to_string(rank));
  for (size_t index : {size_t(kStrides), size_t(kBlockShape)}) {
    size_t count = listSize(a.value(index));
    if (count != rank)
      return cg.error(a.loc(index),
                      a.name(index) + " has " + std::to_string(count) +
                          (count == 1 ? " entry" : " entries") +
                          " but the shape has " + std::to_string(rank));
  }
  FailureOr<llvm::SmallVector<int64_t>> blockShape = a.toIntList(kBlockShape);
  if (failed(blockShape))
    return failure();
  if (failed(checkShape(cg, *blockShape, a.loc(kBlockShape),
                        "the block_shape of tl.make_tensor_descriptor()")))
    return failure();
  FailureOr<std::string> padding = a.toStr(kPadding, "zero");
  if (failed(padding))
    return failure();
  if (*padding != "zero" && *padding != "nan")
    return cg.error(a.loc(kPadding), "padding_option must be 'zero' or "
                                     "'nan', got '" +
                                         *padding + "'");

  // TMA reads whole rows of at least 16 bytes from a contiguous dimension.
  const CGValue &lastStride = lastOf(a.value(kStrides));
  if (!lastStride.isIntLike() || lastStride.getInt() != 1) {
    std::string got =
        lastStride.isIntLike()
            ? "the constant " + std::to_string(lastStride.getInt())
        : lastStride.isRuntime() ? "a run-time " + lastStride.describe() +
                                       getAssignedNumberHint(lastStride)
                                 : lastStride.describe();
    auto diag = cg.error(a.loc(kStrides),
                         "tensor descriptors need a contiguous last "
                         "dimension: the last stride must be the constant 1, "
                         "but it is " +
                             got);
    if (const auto *param =
            llvm::dyn_cast_or_null<Parameter>(lastStride.getKernelParameter()))
      diag.note(param->getLoc(),
                "give '" + param->getName() +
                    "' the literal 1 in the signature (as Triton's JIT "
                    "specializes an argument equal to 1), or declare it `" +
                    param->getName() + ": tl.constexpr`");
    return failure();
  }
  ScalarType elem = base.getDType().getScalar();
  // As in Triton (whose check of the block's bytes fails on 1-bit
  // elements): a descriptor of booleans is not a thing TMA can copy.
  if (elem == ScalarType::I1)
    return cg.error(a.loc(kBase),
                    "a tensor descriptor cannot have int1 (bool) elements; "
                    "describe the tensor through a pointer to tl.int8 "
                    "(base.to(tl.pointer_type(tl.int8)))");
  // As in Triton: NaN padding needs a floating-point element.
  bool nanPadding = *padding == "nan";
  if (nanPadding && !DType::get(elem).isFloat())
    return cg.error(a.loc(kPadding),
                    "padding_option 'nan' needs floating-point elements, but "
                    "the descriptor's are " +
                        DType::get(elem).str() +
                        " (integer blocks pad with zero)");
  int64_t elemBytes = DType::get(elem).getBitWidth() / 8;
  if (blockShape->back() * elemBytes < 16)
    return cg.error(
        a.loc(kBlockShape),
        "the last dimension of a tensor descriptor's block must "
        "be at least 16 bytes, but it is " +
            std::to_string(blockShape->back()) + " x " +
            std::to_string(elemBytes) + " bytes (" + DType::get(elem).str() +
            ") = " + std::to_string(blockShape->back() * elemBytes) + " bytes");

  auto shape = intValues(cg, a, kShape, DType::get(ScalarType::I64));
  auto strides = intValues(cg, a, kStrides, DType::get(ScalarType::I64));
  if (failed(shape) || failed(strides))
    return failure();
  mlir::Value zero =
      cg.makeScalarConstant(DType::get(ScalarType::I32), 0, 0, false);
  llvm::SmallVector<mlir::Value> offsets(rank, zero);
  llvm::SmallVector<int32_t> order;
  for (size_t d = rank; d-- > 0;)
    order.push_back(static_cast<int32_t>(d));
  auto blockType = mlir::RankedTensorType::get(
      *blockShape, DType::get(elem).toMLIR(&cg.context));
  mlir::Value v = tile::MakeBlockPtrOp::create(
      cg.builder, cg.loc(), tile::BlockPointerType::get(blockType),
      base.getValue(), *shape, *strides, offsets, order);
  return CGValue::runtime(v, DType::tensorDescriptor(elem, nanPadding));
}

/// The tensor descriptor argument of a descriptor load or store, or an
/// error.
static FailureOr<CGValue> getDescriptor(CodeGen &cg, Args &a, size_t i) {
  const CGValue &desc = a.value(i);
  if (desc.isTensorDescriptor())
    return desc;
  return cg.error(
      a.loc(i),
      a.call.calleeName +
          "() needs a tensor descriptor "
          "(tl.make_tensor_descriptor), got " +
          desc.describe() +
          (desc.isBlockPointer() ? "; load a block pointer with tl.load" : ""));
}

/// Checks one offset `item` (`which`) of argument `i`. Offsets are 32-bit,
/// as in Triton: a 64-bit value is an error rather than silently truncated.
static LogicalResult checkOffset(CodeGen &cg, Args &a, size_t i,
                                 const CGValue &item, StringRef which) {
  if (item.isIntLike() &&
      (item.getInt() < INT32_MIN || item.getInt() > INT32_MAX))
    return cg.error(a.loc(i), a.call.calleeName + "(): " + which.str() + " = " +
                                  std::to_string(item.getInt()) +
                                  " does not fit in 32 bits (descriptor "
                                  "offsets are int32)");
  if (item.isRuntime() && !item.isTile() && item.getDType().isInt() &&
      item.getDType().getBitWidth() == 64)
    return cg.error(a.loc(i), a.call.calleeName + "(): " + which.str() +
                                  " is a run-time " + item.getDType().str() +
                                  "; descriptor offsets are 32-bit: convert "
                                  "it with .to(tl.int32)");
  return success();
}

/// The offsets of argument `i` (one int32 per dimension of `desc`), or a
/// located error.
static FailureOr<llvm::SmallVector<mlir::Value>>
descriptorOffsets(CodeGen &cg, Args &a, size_t i, const CGValue &desc) {
  auto type = mlir::cast<tile::BlockPointerType>(desc.getValue().getType());
  size_t count = listSize(a.value(i));
  if (static_cast<int64_t>(count) != type.getRank())
    return cg.error(a.loc(i), a.call.calleeName + "() needs " +
                                  std::to_string(type.getRank()) +
                                  " offsets, one per dimension of " +
                                  desc.describe() + ", got " +
                                  std::to_string(count));
  const CGValue &list = a.value(i);
  for (size_t index = 0; index < count; ++index) {
    const CGValue &item = list.isTuple() ? list.getElements()[index] : list;
    std::string which = count == 1 ? std::string("the offset")
                                   : "offset " + std::to_string(index);
    if (failed(checkOffset(cg, a, i, item, which)))
      return failure();
  }
  return intValues(cg, a, i, DType::get(ScalarType::I32));
}

/// `desc` advanced by the offsets of argument `i` (one per dimension): the
/// block pointer a descriptor load or store accesses.
static FailureOr<mlir::Value> descriptorBlock(CodeGen &cg, Args &a, size_t i,
                                              const CGValue &desc) {
  FailureOr<llvm::SmallVector<mlir::Value>> offsets =
      descriptorOffsets(cg, a, i, desc);
  if (failed(offsets))
    return failure();
  return tile::AdvanceOp::create(cg.builder, cg.loc(),
                                 desc.getValue().getType(), desc.getValue(),
                                 *offsets)
      .getResult();
}

/// Every dimension of a block of `rank`: TMA checks them all.
static llvm::SmallVector<int32_t> allDimensions(int64_t rank) {
  llvm::SmallVector<int32_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(static_cast<int32_t>(d));
  return dims;
}

/// `tl.load_tensor_descriptor(desc, offsets)`, `desc.load(offsets)`.
static FailureOr<CGValue> builtinLoadTensorDescriptor(CodeGen &cg, Args &a) {
  FailureOr<CGValue> desc = getDescriptor(cg, a, 0);
  if (failed(desc))
    return failure();
  FailureOr<mlir::Value> block = descriptorBlock(cg, a, 1, *desc);
  if (failed(block))
    return failure();
  auto type = mlir::cast<tile::BlockPointerType>(block->getType());
  mlir::Value v = tile::BlockLoadOp::create(
      cg.builder, cg.loc(), type.getBlockType(), *block,
      allDimensions(type.getRank()),
      desc->getDType().hasNanPadding() ? tile::PaddingOption::NaN
                                       : tile::PaddingOption::Zero,
      tile::CacheModifier::None, tile::EvictionPolicy::Normal);
  return CGValue::runtime(v, DType::get(desc->getDType().getScalar()));
}

/// Argument `i`, the value written through `desc` (`verb`: "stored",
/// "scattered"...; `what` names it in conversion messages), converted to
/// the descriptor's dtype. As in Triton, it must have exactly the shape
/// `shape` (no broadcasting).
static FailureOr<CGValue> storedValue(CodeGen &cg, Args &a, size_t i,
                                      const CGValue &desc,
                                      llvm::ArrayRef<int64_t> shape,
                                      StringRef verb, StringRef what) {
  const CGValue &value = a.value(i);
  bool isBlock = shape == llvm::ArrayRef<int64_t>(desc.getShape());
  if (!value.isTile() || value.getShape() != shape)
    return cg.error(a.loc(i), "the value " + verb.str() + " through " +
                                  desc.describe() + " must be a tile of " +
                                  (isBlock ? "its block shape " : "shape ") +
                                  shapeToString(shape) + ", got " +
                                  value.describe());
  return cg.convertTo(value, DType::get(desc.getDType().getScalar()), a.loc(i),
                      what);
}

/// `tl.store_tensor_descriptor(desc, offsets, value)`,
/// `desc.store(offsets, value)`.
static FailureOr<CGValue> builtinStoreTensorDescriptor(CodeGen &cg, Args &a) {
  enum { kDesc, kOffsets, kValue };
  FailureOr<CGValue> desc = getDescriptor(cg, a, kDesc);
  if (failed(desc))
    return failure();
  FailureOr<mlir::Value> block = descriptorBlock(cg, a, kOffsets, *desc);
  if (failed(block))
    return failure();
  FailureOr<CGValue> converted = storedValue(
      cg, a, kValue, *desc, desc->getShape(), "stored", "the value to store");
  if (failed(converted))
    return failure();
  auto type = mlir::cast<tile::BlockPointerType>(block->getType());
  tile::BlockStoreOp::create(
      cg.builder, cg.loc(), *block, converted->getValue(),
      allDimensions(type.getRank()), tile::CacheModifier::None,
      tile::EvictionPolicy::Normal);
  return CGValue::none();
}

//===----------------------------------------------------------------------===//
// Element-wise accesses: atomics, gather, scatter
//===----------------------------------------------------------------------===//
//
// `desc.atomic_add(offsets, value)` (and min, max, and, or, xor) combines a
// block into the tensor, out-of-bounds elements ignored (TMA's reductions,
// `cp.reduce.async.bulk.tensor`); `desc.gather(x_offsets, y_offset)` reads
// the rows `x_offsets` of a 2-d tensor at columns `y_offset + [0, N)`, and
// `desc.scatter(value, x_offsets, y_offset)` writes them (TMA's gather4 and
// scatter4, on descriptors of block shape [1, N]). tilec builds each as a
// tile of pointers into the tensor the descriptor's make_block_ptr
// describes, with a mask of the elements inside it, and then a
// `tile.atomic_rmw`, `tile.load` (padded like `desc.load`) or `tile.store`,
// which both backends lower. So these need the descriptor's
// tl.make_tensor_descriptor to be known where they are called, as
// `desc.shape` does.

/// The make_block_ptr `desc` comes from, or a located error at `loc` that
/// names the method `what`.
static FailureOr<tile::MakeBlockPtrOp> getDescriptorOrigin(CodeGen &cg,
                                                           const CGValue &desc,
                                                           SMLoc loc,
                                                           StringRef what) {
  if (auto make = desc.getValue().getDefiningOp<tile::MakeBlockPtrOp>())
    return make;
  return cg.error(loc, what.str() +
                           "() needs a descriptor made by "
                           "tl.make_tensor_descriptor() on every path here, "
                           "not one chosen at run time or carried by a loop "
                           "(tilec addresses its elements one by one)");
}

/// `value` broadcast to `shape` (its element type kept).
static mlir::Value broadcastToShape(CodeGen &cg, mlir::Value value,
                                    llvm::ArrayRef<int64_t> shape) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  auto full = mlir::RankedTensorType::get(shape, type.getElementType());
  if (type == full)
    return value;
  return tile::BroadcastOp::create(cg.builder, cg.loc(), full, value);
}

/// The pointers to the elements at `indices` of the tensor `make`
/// describes, and the mask of those inside it: `indices` holds one i32 tile
/// per dimension, each of rank `shape.size()` and broadcastable to `shape`.
static std::pair<mlir::Value, mlir::Value>
buildElementAccess(CodeGen &cg, tile::MakeBlockPtrOp make,
                   llvm::ArrayRef<mlir::Value> indices,
                   llvm::ArrayRef<int64_t> shape) {
  mlir::OpBuilder &b = cg.builder;
  mlir::Location loc = cg.loc();
  mlir::Value offset, mask;
  for (auto [d, index] : llvm::enumerate(indices)) {
    auto type = mlir::cast<mlir::RankedTensorType>(index.getType())
                    .clone(b.getI64Type());
    mlir::Value wide = arith::ExtSIOp::create(b, loc, type, index);
    mlir::Value stride =
        tile::SplatOp::create(b, loc, type, make.getStrides()[d]);
    mlir::Value term = broadcastToShape(
        cg, arith::MulIOp::create(b, loc, wide, stride), shape);
    offset =
        offset ? arith::AddIOp::create(b, loc, offset, term).getResult() : term;
    mlir::Value zero = arith::ConstantOp::create(
        b, loc, mlir::DenseElementsAttr::get(type, b.getI64IntegerAttr(0)));
    mlir::Value bound = tile::SplatOp::create(b, loc, type, make.getShape()[d]);
    mlir::Value lower =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, wide, zero);
    mlir::Value upper =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, wide, bound);
    mlir::Value inside = broadcastToShape(
        cg, arith::AndIOp::create(b, loc, lower, upper), shape);
    mask =
        mask ? arith::AndIOp::create(b, loc, mask, inside).getResult() : inside;
  }
  auto ptrType = mlir::RankedTensorType::get(shape, make.getBase().getType());
  mlir::Value base = tile::SplatOp::create(b, loc, ptrType, make.getBase());
  mlir::Value ptrs = tile::AddPtrOp::create(b, loc, ptrType, base, offset);
  return {ptrs, mask};
}

/// `start + arange(size)` (i32) with unit dimensions inserted so that it
/// runs along dimension `dim` of a tile of rank `rank`.
static mlir::Value rangeAlong(CodeGen &cg, mlir::Value start, int64_t size,
                              int64_t dim, int64_t rank) {
  mlir::OpBuilder &b = cg.builder;
  mlir::Location loc = cg.loc();
  auto rangeType = mlir::RankedTensorType::get({size}, b.getI32Type());
  mlir::Value index = arith::AddIOp::create(
      b, loc, tile::MakeRangeOp::create(b, loc, rangeType, 0, size),
      tile::SplatOp::create(b, loc, rangeType, start));
  llvm::SmallVector<int64_t> shape{size};
  // Unit dimensions are inserted in increasing order, so `axis` is also
  // the position of the new one.
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (axis == dim)
      continue;
    shape.insert(shape.begin() + axis, 1);
    index = tile::ExpandDimsOp::create(
        b, loc, mlir::RankedTensorType::get(shape, b.getI32Type()), index,
        axis);
  }
  return index;
}

/// The element types of Triton's descriptor atomic `op` (those of TMA's
/// reductions), as the list a message shows.
static llvm::ArrayRef<ScalarType> getDescriptorAtomicTypes(StringRef op) {
  using K = ScalarType;
  static const K add[] = {K::U32, K::I32, K::U64, K::FP32, K::FP16, K::BF16};
  static const K minMax[] = {K::U32, K::I32, K::U64, K::I64, K::FP16, K::BF16};
  static const K bitwise[] = {K::U32, K::I32, K::U64, K::I64};
  if (op == "add")
    return add;
  if (op == "min" || op == "max")
    return minMax;
  return bitwise;
}

/// `desc.atomic_OP(offsets, value)`: OP(*p, v) for every element p of the
/// block at `offsets` inside the tensor; returns nothing, as in Triton.
static FailureOr<CGValue> descriptorAtomic(CodeGen &cg, Args &a, StringRef op) {
  enum { kDesc, kOffsets, kValue };
  FailureOr<CGValue> desc = getDescriptor(cg, a, kDesc);
  if (failed(desc))
    return failure();
  ScalarType elem = desc->getDType().getScalar();
  DType dtype = DType::get(elem);
  llvm::ArrayRef<ScalarType> types = getDescriptorAtomicTypes(op);
  if (!llvm::is_contained(types, elem)) {
    std::string list;
    for (auto [index, kind] : llvm::enumerate(types))
      list += (index == 0                  ? ""
               : index + 1 == types.size() ? " and "
                                           : ", ") +
              DType::get(kind).str();
    return cg.error(a.loc(kDesc),
                    a.call.calleeName + "() of " + dtype.str() +
                        " elements is not supported (descriptor atomic_" +
                        op.str() + " takes " + list +
                        " elements, as in Triton: the types of TMA's "
                        "reductions)");
  }
  llvm::SmallVector<int64_t> shape = desc->getShape();
  FailureOr<llvm::SmallVector<mlir::Value>> offsets =
      descriptorOffsets(cg, a, kOffsets, *desc);
  if (failed(offsets))
    return failure();
  FailureOr<CGValue> value = storedValue(cg, a, kValue, *desc, shape,
                                         "combined", "the value to combine");
  if (failed(value))
    return failure();
  FailureOr<tile::MakeBlockPtrOp> make =
      getDescriptorOrigin(cg, *desc, a.call.loc, a.call.calleeName);
  if (failed(make))
    return failure();
  llvm::SmallVector<mlir::Value> indices;
  for (auto [d, offset] : llvm::enumerate(*offsets))
    indices.push_back(rangeAlong(cg, offset, shape[d], d,
                                 static_cast<int64_t>(shape.size())));
  auto [ptrs, mask] = buildElementAccess(cg, *make, indices, shape);
  std::string kind = op.str();
  if (dtype.isFloat())
    kind = "f" + kind;
  else if ((op == "max" || op == "min") && !dtype.isSigned())
    kind = "u" + kind;
  // TMA's reductions are relaxed, at the scope of the GPU.
  tile::AtomicRMWOp::create(cg.builder, cg.loc(), value->getValue().getType(),
                            ptrs, value->getValue(), mask, kind, "relaxed",
                            "gpu");
  return CGValue::none();
}

/// The checks of desc.gather and desc.scatter (Triton's): a 2-d descriptor
/// of block shape [1, N] with N at least 8 32-bit words, row indices a 1-d
/// int32 tile of at least 8 rows, the column offset one int32 scalar.
/// Returns the row indices and the column offset.
static FailureOr<std::pair<CGValue, mlir::Value>>
checkRowAccess(CodeGen &cg, Args &a, const CGValue &desc, size_t xIndex,
               size_t yIndex) {
  llvm::SmallVector<int64_t> block = desc.getShape();
  const std::string &callee = a.call.calleeName;
  if (block.size() != 2 || block[0] != 1)
    return cg.error(a.call.loc, callee +
                                    "() needs a 2-d descriptor of "
                                    "block shape [1, N], got " +
                                    desc.describe());
  DType dtype = DType::get(desc.getDType().getScalar());
  int64_t minColumns = 32 / dtype.getBitWidth() * 8;
  if (block[1] < minColumns)
    return cg.error(a.call.loc,
                    callee + "() of " + dtype.str() + " needs at least " +
                        std::to_string(minColumns) +
                        " columns in the block (8 32-bit words), got " +
                        desc.describe());
  const CGValue &rows = a.value(xIndex);
  if (!rows.isTile() || rows.getShape().size() != 1 ||
      rows.getDType() != DType::get(ScalarType::I32))
    return cg.error(a.loc(xIndex),
                    callee +
                        "(): the row indices (x_offsets) must be a 1-d tile of "
                        "int32, got " +
                        rows.describe() +
                        (rows.isTile() && rows.getShape().size() == 1 &&
                                 rows.getDType().isInt()
                             ? "; convert them with .to(tl.int32)"
                             : ""));
  if (rows.getShape()[0] < 8)
    return cg.error(a.loc(xIndex), callee + "() needs at least 8 rows, got " +
                                       std::to_string(rows.getShape()[0]) +
                                       " row indices");
  const CGValue &column = a.value(yIndex);
  if (column.isTuple() ||
      !(column.isIntLike() ||
        (column.isRuntime() && !column.isTile() && column.getDType().isInt())))
    return cg.error(a.loc(yIndex),
                    callee +
                        "(): the column offset (y_offset) must be one "
                        "integer scalar, got " +
                        column.describe());
  if (failed(checkOffset(cg, a, yIndex, column, "the column offset")))
    return failure();
  FailureOr<CGValue> y = cg.convertTo(column, DType::get(ScalarType::I32),
                                      a.loc(yIndex), "the column offset");
  if (failed(y))
    return failure();
  return std::make_pair(rows, y->getValue());
}

/// The pointers and mask of rows `rows` (a 1-d int32 tile of K) at columns
/// `y + [0, N)` of the tensor `make` describes: [K, N] tiles.
static std::pair<mlir::Value, mlir::Value>
buildRowAccess(CodeGen &cg, tile::MakeBlockPtrOp make, const CGValue &rows,
               mlir::Value y, int64_t columns) {
  int64_t count = rows.getShape()[0];
  mlir::Value rowIndex = tile::ExpandDimsOp::create(
      cg.builder, cg.loc(),
      mlir::RankedTensorType::get({count, 1}, cg.builder.getI32Type()),
      rows.getValue(), 1);
  mlir::Value columnIndex = rangeAlong(cg, y, columns, 1, 2);
  return buildElementAccess(cg, make, {rowIndex, columnIndex},
                            {count, columns});
}

/// `desc.gather(x_offsets, y_offset)`: the rows `x_offsets` at columns
/// `y_offset + [0, N)`, a [len(x_offsets), N] tile; elements outside the
/// tensor read as the descriptor pads (zero or NaN).
static FailureOr<CGValue> builtinDescriptorGather(CodeGen &cg, Args &a) {
  enum { kDesc, kXOffsets, kYOffset };
  FailureOr<CGValue> desc = getDescriptor(cg, a, kDesc);
  if (failed(desc))
    return failure();
  auto checked = checkRowAccess(cg, a, *desc, kXOffsets, kYOffset);
  if (failed(checked))
    return failure();
  FailureOr<tile::MakeBlockPtrOp> make =
      getDescriptorOrigin(cg, *desc, a.call.loc, a.call.calleeName);
  if (failed(make))
    return failure();
  int64_t columns = desc->getShape()[1];
  auto [ptrs, mask] =
      buildRowAccess(cg, *make, checked->first, checked->second, columns);
  DType dtype = DType::get(desc->getDType().getScalar());
  auto type = mlir::RankedTensorType::get(
      {checked->first.getShape()[0], columns}, dtype.toMLIR(&cg.context));
  mlir::TypedAttr pad;
  if (auto floatType = mlir::dyn_cast<mlir::FloatType>(type.getElementType()))
    pad = cg.builder.getFloatAttr(
        floatType, desc->getDType().hasNanPadding()
                       ? llvm::APFloat::getNaN(floatType.getFloatSemantics())
                       : llvm::APFloat::getZero(floatType.getFloatSemantics()));
  else
    pad = cg.builder.getIntegerAttr(type.getElementType(), 0);
  mlir::Value other = arith::ConstantOp::create(
      cg.builder, cg.loc(), mlir::DenseElementsAttr::get(type, pad));
  mlir::Value v = tile::LoadOp::create(
      cg.builder, cg.loc(), type, ptrs, mask, other, tile::CacheModifier::None,
      tile::EvictionPolicy::Normal, /*isVolatile=*/false);
  return CGValue::runtime(v, dtype);
}

/// `desc.scatter(value, x_offsets, y_offset)`: writes the rows of `value`
/// ([len(x_offsets), N]) to the rows `x_offsets` at columns
/// `y_offset + [0, N)`; elements outside the tensor are not written.
static FailureOr<CGValue> builtinDescriptorScatter(CodeGen &cg, Args &a) {
  enum { kDesc, kValue, kXOffsets, kYOffset };
  FailureOr<CGValue> desc = getDescriptor(cg, a, kDesc);
  if (failed(desc))
    return failure();
  auto checked = checkRowAccess(cg, a, *desc, kXOffsets, kYOffset);
  if (failed(checked))
    return failure();
  int64_t columns = desc->getShape()[1];
  FailureOr<CGValue> value =
      storedValue(cg, a, kValue, *desc, {checked->first.getShape()[0], columns},
                  "scattered", "the value to scatter");
  if (failed(value))
    return failure();
  FailureOr<tile::MakeBlockPtrOp> make =
      getDescriptorOrigin(cg, *desc, a.call.loc, a.call.calleeName);
  if (failed(make))
    return failure();
  auto [ptrs, mask] =
      buildRowAccess(cg, *make, checked->first, checked->second, columns);
  tile::StoreOp::create(cg.builder, cg.loc(), ptrs, value->getValue(), mask,
                        tile::CacheModifier::None,
                        tile::EvictionPolicy::Normal);
  return CGValue::none();
}

/// `desc.shape` and `desc.strides`: the values given to the
/// make_tensor_descriptor this descriptor comes from (shape as int32 and
/// strides as int64, as in Triton).
FailureOr<CGValue> tilec::frontend::descriptorDims(CodeGen &cg,
                                                   const CGValue &desc,
                                                   StringRef name,
                                                   SMLoc nameLoc) {
  auto make = desc.getValue().getDefiningOp<tile::MakeBlockPtrOp>();
  if (!make)
    return cg.error(nameLoc, "desc." + name.str() +
                                 " is only known for a descriptor made by "
                                 "tl.make_tensor_descriptor() on every path "
                                 "here, not one chosen at run time");
  bool isShape = name == "shape";
  std::vector<CGValue> dims;
  for (mlir::Value v : isShape ? make.getShape() : make.getStrides()) {
    CGValue value = CGValue::runtime(v, DType::get(ScalarType::I64));
    if (isShape) {
      FailureOr<CGValue> narrow =
          cg.cast(value, DType::get(ScalarType::I32), nameLoc);
      if (failed(narrow))
        return failure();
      value = *narrow;
    }
    dims.push_back(value);
  }
  return CGValue::tuple(std::move(dims));
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getDescriptorBuiltins() {
#define ATOMIC(NAME, OP)                                                       \
  {                                                                            \
    NAME, [](CodeGen &cg, Args &a) { return descriptorAtomic(cg, a, OP); }, {  \
      req("desc"), req("offsets"), req("value")                                \
    }                                                                          \
  }
  static const BuiltinSpec specs[] = {
      {"tl.make_tensor_descriptor",
       builtinMakeTensorDescriptor,
       {req("base"), req("shape"), req("strides"), req("block_shape"),
        opt("padding_option")}},
      {"tl.load_tensor_descriptor",
       builtinLoadTensorDescriptor,
       {req("desc"), req("offsets")}},
      {"tl.store_tensor_descriptor",
       builtinStoreTensorDescriptor,
       {req("desc"), req("offsets"), req("value")}},
      // The methods without a tl.* spelling, called as desc.NAME(...)
      // (CodeGen::callValue puts the descriptor first).
      ATOMIC("tensor_descriptor.atomic_add", "add"),
      ATOMIC("tensor_descriptor.atomic_min", "min"),
      ATOMIC("tensor_descriptor.atomic_max", "max"),
      ATOMIC("tensor_descriptor.atomic_and", "and"),
      ATOMIC("tensor_descriptor.atomic_or", "or"),
      ATOMIC("tensor_descriptor.atomic_xor", "xor"),
      {"tensor_descriptor.gather",
       builtinDescriptorGather,
       {req("desc"), req("x_offsets"), req("y_offset")}},
      {"tensor_descriptor.scatter",
       builtinDescriptorScatter,
       {req("desc"), req("value"), req("x_offsets"), req("y_offset")}},
  };
#undef ATOMIC
  return specs;
}
