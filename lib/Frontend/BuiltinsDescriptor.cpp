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
// reading as zero and not being written (TMA's semantics). tilec lowers them
// onto block pointers: the descriptor is a `tile.make_block_ptr` at offset
// zero (row-major), a load or store `tile.advance`s it by the offsets and
// checks the bounds of every dimension. The Hopper path then copies the
// loads that feed a wgmma dot with TMA, like those of block pointers.

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
  if (*padding == "nan")
    return cg.error(a.loc(kPadding),
                    "padding_option 'nan' on a tensor descriptor is not "
                    "supported by tilec yet (out-of-bounds elements read as "
                    "zero)");
  if (*padding != "zero")
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
  return CGValue::runtime(v, DType::tensorDescriptor(elem));
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

/// `desc` advanced by the offsets of argument `i` (one per dimension): the
/// block pointer a descriptor load or store accesses.
static FailureOr<mlir::Value> descriptorBlock(CodeGen &cg, Args &a, size_t i,
                                              const CGValue &desc) {
  auto type = mlir::cast<tile::BlockPointerType>(desc.getValue().getType());
  size_t count = listSize(a.value(i));
  if (static_cast<int64_t>(count) != type.getRank())
    return cg.error(a.loc(i), a.call.calleeName + "() needs " +
                                  std::to_string(type.getRank()) +
                                  " offsets, one per dimension of " +
                                  desc.describe() + ", got " +
                                  std::to_string(count));
  // Offsets are 32-bit, as in Triton: a 64-bit value is an error rather
  // than silently truncated.
  const CGValue &list = a.value(i);
  for (size_t index = 0; index < count; ++index) {
    const CGValue &item = list.isTuple() ? list.getElements()[index] : list;
    std::string which = count == 1 ? std::string("the offset")
                                   : "offset " + std::to_string(index);
    if (item.isIntLike() &&
        (item.getInt() < INT32_MIN || item.getInt() > INT32_MAX))
      return cg.error(a.loc(i), a.call.calleeName + "(): " + which + " = " +
                                    std::to_string(item.getInt()) +
                                    " does not fit in 32 bits (descriptor "
                                    "offsets are int32)");
    if (item.isRuntime() && !item.isTile() && item.getDType().isInt() &&
        item.getDType().getBitWidth() == 64)
      return cg.error(a.loc(i),
                      a.call.calleeName + "(): " + which + " is a run-time " +
                          item.getDType().str() +
                          "; descriptor offsets are 32-bit: convert it with "
                          ".to(tl.int32)");
  }
  FailureOr<llvm::SmallVector<mlir::Value>> offsets =
      intValues(cg, a, i, DType::get(ScalarType::I32));
  if (failed(offsets))
    return failure();
  return tile::AdvanceOp::create(cg.builder, cg.loc(), type, desc.getValue(),
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
      allDimensions(type.getRank()), tile::PaddingOption::Zero,
      tile::CacheModifier::None, tile::EvictionPolicy::Normal);
  return CGValue::runtime(v, DType::get(desc->getDType().getScalar()));
}

/// `tl.store_tensor_descriptor(desc, offsets, value)`,
/// `desc.store(offsets, value)`.
static FailureOr<CGValue> builtinStoreTensorDescriptor(CodeGen &cg, Args &a) {
  enum { kDesc, kOffsets, kValue };
  FailureOr<CGValue> desc = getDescriptor(cg, a, kDesc);
  if (failed(desc))
    return failure();
  llvm::SmallVector<int64_t> blockShape = desc->getShape();
  const CGValue &value = a.value(kValue);
  // As in Triton, the value must have the block's shape (no broadcasting);
  // its dtype is converted to the descriptor's.
  if (!value.isTile() || value.getShape() != blockShape)
    return cg.error(a.loc(kValue), "the value stored through " +
                                       desc->describe() +
                                       " must be a tile of its block shape " +
                                       shapeToString(blockShape) + ", got " +
                                       value.describe());
  FailureOr<mlir::Value> block = descriptorBlock(cg, a, kOffsets, *desc);
  if (failed(block))
    return failure();
  FailureOr<CGValue> converted =
      cg.convertTo(value, DType::get(desc->getDType().getScalar()),
                   a.loc(kValue), "the value to store");
  if (failed(converted))
    return failure();
  auto type = mlir::cast<tile::BlockPointerType>(block->getType());
  tile::BlockStoreOp::create(
      cg.builder, cg.loc(), *block, converted->getValue(),
      allDimensions(type.getRank()), tile::CacheModifier::None,
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
  };
  return specs;
}
