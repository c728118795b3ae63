//===- BuiltinsMemory.cpp - tl.load, tl.store, block pointers
//---------------===//
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
// Memory
//===----------------------------------------------------------------------===//

static FailureOr<tile::CacheModifier> parseCache(CodeGen &cg, Args &a, size_t i,
                                                 bool isStore) {
  StringRef t = a.str(i);
  if (t.empty())
    return tile::CacheModifier::None;
  std::optional<tile::CacheModifier> result =
      isStore ? llvm::StringSwitch<std::optional<tile::CacheModifier>>(t)
                    .Case(".wb", tile::CacheModifier::WB)
                    .Case(".cg", tile::CacheModifier::CG)
                    .Case(".cs", tile::CacheModifier::CS)
                    .Case(".wt", tile::CacheModifier::WT)
                    .Default(std::nullopt)
              : llvm::StringSwitch<std::optional<tile::CacheModifier>>(t)
                    .Case(".ca", tile::CacheModifier::CA)
                    .Case(".cg", tile::CacheModifier::CG)
                    .Case(".cv", tile::CacheModifier::CV)
                    .Default(std::nullopt);
  if (!result)
    return cg.error(a.loc(i), "unknown cache modifier '" + t + "' (expected " +
                                  (isStore ? "'.wb', '.cg', '.cs' or '.wt'"
                                           : "'.ca', '.cg' or '.cv'") +
                                  ")");
  return *result;
}

static FailureOr<tile::EvictionPolicy> parseEviction(CodeGen &cg, Args &a,
                                                     size_t i) {
  StringRef t = a.str(i);
  if (t.empty() || t == "evict_normal")
    return tile::EvictionPolicy::Normal;
  if (t == "evict_first")
    return tile::EvictionPolicy::EvictFirst;
  if (t == "evict_last")
    return tile::EvictionPolicy::EvictLast;
  return cg.error(a.loc(i), "unknown eviction policy '" + t +
                                "' (expected 'evict_first', 'evict_last' or "
                                "'evict_normal')");
}

/// Reads a boundary_check argument for a block pointer of rank `rank`.
static FailureOr<llvm::SmallVector<int32_t>>
parseBoundaryCheck(CodeGen &cg, Args &a, size_t i, int64_t rank) {
  FailureOr<llvm::SmallVector<int64_t>> dims = a.toIntList(i);
  if (failed(dims))
    return failure();
  llvm::SmallVector<int32_t> result;
  for (int64_t d : *dims) {
    if (d < 0 || d >= rank)
      return cg.error(a.loc(i), "boundary_check dimension " +
                                    std::to_string(d) +
                                    " is out of range for a block of rank " +
                                    std::to_string(rank));
    if (llvm::is_contained(result, d))
      return cg.error(a.loc(i), "boundary_check lists dimension " +
                                    std::to_string(d) + " twice");
    result.push_back(static_cast<int32_t>(d));
  }
  llvm::sort(result);
  return result;
}

/// Converts a mask argument to an int1 value of `shape`.
FailureOr<CGValue> tilec::frontend::prepareMask(CodeGen &cg, Args &a, size_t i,
                                                const CGValue &ptr) {
  const CGValue &mask = a.value(i);
  CGValue m;
  if (mask.isIntLike()) {
    m = cg.makeConstant(CGValue::boolean(mask.isTruthy()),
                        DType::get(ScalarType::I1));
  } else if (mask.isRuntime() && !mask.isBlockLike()) {
    if (!mask.getDType().isBool())
      return cg.error(a.loc(i), "the mask must be a boolean (int1) tile, got " +
                                    mask.describe() +
                                    "; compare it to produce one (e.g. "
                                    "'offs < n')");
    m = mask;
  } else {
    return cg.error(a.loc(i),
                    "the mask must be a boolean tile, got " + mask.describe());
  }
  if (!ptr.isTile() && m.isTile())
    return cg.error(a.loc(i), "the mask is a " + m.describe() +
                                  " tile but the pointer is a scalar; add "
                                  "offsets to the pointer to make a tile of "
                                  "pointers");
  return cg.broadcastTo(m, ptr.getShape(), a.loc(i), "the mask");
}

static FailureOr<CGValue> builtinLoad(CodeGen &cg, Args &a) {
  enum {
    kPtr,
    kMask,
    kOther,
    kBoundary,
    kPadding,
    kCache,
    kEviction,
    kVolatile
  };
  const CGValue &ptr = a.value(kPtr);
  FailureOr<tile::CacheModifier> cache = parseCache(cg, a, kCache, false);
  FailureOr<tile::EvictionPolicy> evict = parseEviction(cg, a, kEviction);
  if (failed(cache) || failed(evict))
    return failure();

  if (ptr.isBlockPointer()) {
    if (a.has(kMask) || a.has(kOther))
      return cg.error(a.loc(a.has(kMask) ? kMask : kOther),
                      "'mask' and 'other' cannot be used when loading "
                      "through a block pointer; use boundary_check and "
                      "padding_option");
    auto type = mlir::cast<tile::BlockPointerType>(ptr.getValue().getType());
    FailureOr<llvm::SmallVector<int32_t>> check =
        parseBoundaryCheck(cg, a, kBoundary, type.getRank());
    if (failed(check))
      return failure();
    StringRef padding = a.str(kPadding);
    tile::PaddingOption pad = tile::PaddingOption::Zero;
    if (padding == "nan") {
      if (!DType::get(ptr.getDType().getScalar()).isFloat())
        return cg.error(a.loc(kPadding), "padding_option 'nan' needs a "
                                         "floating-point block, not " +
                                             ptr.describe());
      pad = tile::PaddingOption::NaN;
    } else if (!padding.empty() && padding != "zero") {
      return cg.error(a.loc(kPadding), "padding_option must be 'zero' or "
                                       "'nan', got '" +
                                           padding + "'");
    }
    mlir::Value v =
        tile::BlockLoadOp::create(cg.builder, cg.loc(), type.getBlockType(),
                                  ptr.getValue(), *check, pad, *cache, *evict);
    return CGValue::runtime(v, DType::get(ptr.getDType().getScalar()));
  }
  if (ptr.isTensorDescriptor())
    return cg.error(a.loc(kPtr), "tl.load() does not take a tensor "
                                 "descriptor; load a block with "
                                 "desc.load(offsets)");
  if (!ptr.isRuntime() || !ptr.getDType().isPointer())
    return cg.error(a.loc(kPtr), "tl.load() expects a pointer, a tile of "
                                 "pointers or a block pointer, got " +
                                     ptr.describe());
  if (a.has(kBoundary) || a.has(kPadding)) {
    bool givenCheck =
        a.has(kBoundary) && !(a.value(kBoundary).isTuple() &&
                              a.value(kBoundary).getElements().empty());
    if (givenCheck || !a.str(kPadding).empty())
      return cg.error(a.loc(givenCheck ? kBoundary : kPadding),
                      "boundary_check and padding_option need a block "
                      "pointer (tl.make_block_ptr); with a tile of pointers, "
                      "use a mask");
  }
  if (!a.has(kMask) && a.has(kOther))
    return cg.error(a.loc(kOther), "'other' cannot be given without 'mask'");

  CGValue pointer = ptr;
  DType elem = DType::get(ptr.getDType().getScalar());
  bool isBool = elem.isBool();
  if (isBool) {
    // int1 is stored as int8.
    elem = DType::get(ScalarType::I8);
    FailureOr<CGValue> p =
        cg.cast(pointer, DType::pointer(ScalarType::I8), a.loc(kPtr));
    if (failed(p))
      return failure();
    pointer = *p;
  }
  mlir::Value mask, other;
  if (a.has(kMask)) {
    FailureOr<CGValue> m = prepareMask(cg, a, kMask, pointer);
    if (failed(m))
      return failure();
    mask = m->getValue();
  }
  if (a.has(kOther)) {
    const CGValue &o = a.value(kOther);
    if (o.isTile() && !pointer.isTile())
      return cg.error(a.loc(kOther), "'other' is a tile but the pointer is a "
                                     "scalar");
    FailureOr<CGValue> converted =
        cg.convertTo(o, elem, a.loc(kOther), "'other'");
    if (failed(converted))
      return failure();
    FailureOr<CGValue> b = cg.broadcastTo(*converted, pointer.getShape(),
                                          a.loc(kOther), "'other'");
    if (failed(b))
      return failure();
    other = b->getValue();
  }
  mlir::Type resultType = cg.getType(elem, pointer.getShape());
  mlir::Value v =
      tile::LoadOp::create(cg.builder, cg.loc(), resultType, pointer.getValue(),
                           mask, other, *cache, *evict, a.flag(kVolatile));
  CGValue result = CGValue::runtime(v, elem);
  if (isBool)
    return cg.cast(result, DType::get(ScalarType::I1), a.call.loc);
  return result;
}

static FailureOr<CGValue> builtinStore(CodeGen &cg, Args &a) {
  enum { kPtr, kValue, kMask, kBoundary, kCache, kEviction };
  const CGValue &ptr = a.value(kPtr);
  const CGValue &value = a.value(kValue);
  FailureOr<tile::CacheModifier> cache = parseCache(cg, a, kCache, true);
  FailureOr<tile::EvictionPolicy> evict = parseEviction(cg, a, kEviction);
  if (failed(cache) || failed(evict))
    return failure();
  if (!value.isNumber() && (!value.isRuntime() || value.isBlockLike()))
    return cg.error(a.loc(kValue), "the value to store must be a tile or a "
                                   "number, got " +
                                       value.describe());

  if (ptr.isBlockPointer()) {
    if (a.has(kMask))
      return cg.error(a.loc(kMask), "'mask' cannot be used when storing "
                                    "through a block pointer; use "
                                    "boundary_check");
    auto type = mlir::cast<tile::BlockPointerType>(ptr.getValue().getType());
    FailureOr<llvm::SmallVector<int32_t>> check =
        parseBoundaryCheck(cg, a, kBoundary, type.getRank());
    if (failed(check))
      return failure();
    DType elem = DType::get(ptr.getDType().getScalar());
    llvm::SmallVector<int64_t> blockShape(type.getBlockType().getShape());
    if (value.isTile()) {
      llvm::SmallVector<int64_t> vs = value.getShape();
      bool compatible = vs.size() <= blockShape.size();
      for (size_t i = 0; compatible && i < vs.size(); ++i) {
        int64_t s = vs[vs.size() - 1 - i];
        compatible = s == 1 || s == blockShape[blockShape.size() - 1 - i];
      }
      if (!compatible)
        return cg.error(a.loc(kValue), "cannot store the " + value.describe() +
                                           " tile through a block pointer to " +
                                           shapeToString(blockShape) +
                                           " blocks");
    }
    FailureOr<CGValue> converted =
        cg.convertTo(value, elem, a.loc(kValue), "the value to store");
    if (failed(converted))
      return failure();
    FailureOr<CGValue> b = cg.broadcastTo(*converted, blockShape, a.loc(kValue),
                                          "the value to store");
    if (failed(b))
      return failure();
    tile::BlockStoreOp::create(cg.builder, cg.loc(), ptr.getValue(),
                               b->getValue(), *check, *cache, *evict);
    return CGValue::none();
  }
  if (ptr.isTensorDescriptor())
    return cg.error(a.loc(kPtr), "tl.store() does not take a tensor "
                                 "descriptor; store a block with "
                                 "desc.store(offsets, value)");
  if (!ptr.isRuntime() || !ptr.getDType().isPointer())
    return cg.error(a.loc(kPtr), "tl.store() expects a pointer, a tile of "
                                 "pointers or a block pointer as its first "
                                 "argument, got " +
                                     ptr.describe());
  if (a.has(kBoundary)) {
    const CGValue &bc = a.value(kBoundary);
    if (!(bc.isTuple() && bc.getElements().empty()))
      return cg.error(a.loc(kBoundary),
                      "boundary_check needs a block pointer "
                      "(tl.make_block_ptr); with a tile of pointers, use a "
                      "mask");
  }
  if (value.isTile() && !ptr.isTile())
    return cg.error(a.loc(kValue), "cannot store the " + value.describe() +
                                       " tile through a scalar pointer; add "
                                       "offsets to the pointer to make a tile "
                                       "of pointers");
  CGValue pointer = ptr;
  DType elem = DType::get(ptr.getDType().getScalar());
  if (elem.isBool()) {
    elem = DType::get(ScalarType::I8);
    FailureOr<CGValue> p =
        cg.cast(pointer, DType::pointer(ScalarType::I8), a.loc(kPtr));
    if (failed(p))
      return failure();
    pointer = *p;
  }
  FailureOr<CGValue> converted =
      cg.convertTo(value, elem, a.loc(kValue), "the value to store");
  if (failed(converted))
    return failure();
  FailureOr<CGValue> b = cg.broadcastTo(*converted, pointer.getShape(),
                                        a.loc(kValue), "the value to store");
  if (failed(b))
    return failure();
  mlir::Value mask;
  if (a.has(kMask)) {
    FailureOr<CGValue> m = prepareMask(cg, a, kMask, pointer);
    if (failed(m))
      return failure();
    mask = m->getValue();
  }
  tile::StoreOp::create(cg.builder, cg.loc(), pointer.getValue(), b->getValue(),
                        mask, *cache, *evict);
  return CGValue::none();
}

FailureOr<llvm::SmallVector<mlir::Value>>
tilec::frontend::intValues(CodeGen &cg, Args &a, size_t i, DType dtype) {
  llvm::SmallVector<mlir::Value> result;
  const CGValue &v = a.value(i);
  llvm::SmallVector<CGValue> items;
  if (v.isTuple())
    items.append(v.getElements().begin(), v.getElements().end());
  else
    items.push_back(v);
  for (auto [index, item] : llvm::enumerate(items)) {
    bool ok = item.isIntLike() ||
              (item.isRuntime() && !item.isTile() && item.getDType().isInt());
    if (!ok)
      return cg.error(a.loc(i),
                      "element " + std::to_string(index) + " of " + a.name(i) +
                          " must be an integer scalar, got " + item.describe());
    // Offsets are 32-bit, as in Triton: a wider run-time value would be
    // silently truncated.
    if (item.isRuntime() && item.getDType().getBitWidth() > dtype.getBitWidth())
      return cg.error(a.loc(i), "element " + std::to_string(index) + " of " +
                                    a.name(i) + " is " + item.describe() +
                                    ", but block offsets are 32-bit (as in "
                                    "Triton); convert it with .to(tl.int32)");
    if (item.isIntLike() && dtype.getBitWidth() == 32 &&
        (item.getInt() < INT32_MIN || item.getInt() > INT32_MAX))
      return cg.error(a.loc(i), "element " + std::to_string(index) + " of " +
                                    a.name(i) + " is " +
                                    std::to_string(item.getInt()) +
                                    ", which does not fit the 32-bit block "
                                    "offsets (as in Triton)");
    FailureOr<CGValue> c = cg.convertTo(item, dtype, a.loc(i), a.name(i));
    if (failed(c))
      return failure();
    result.push_back(c->getValue());
  }
  return result;
}

static FailureOr<CGValue> builtinMakeBlockPtr(CodeGen &cg, Args &a) {
  enum { kBase, kShape, kStrides, kOffsets, kBlockShape, kOrder };
  CGValue base = a.value(kBase);
  if (!base.isRuntime() || !base.getDType().isPointer() || base.isTile())
    return cg.error(a.loc(kBase), "the base of tl.make_block_ptr() must be a "
                                  "scalar pointer, got " +
                                      base.describe());
  llvm::ArrayRef<int64_t> blockShape = a.ints(kBlockShape);
  llvm::ArrayRef<int64_t> order = a.ints(kOrder);
  if (failed(checkShape(cg, blockShape, a.loc(kBlockShape),
                        "the block_shape of tl.make_block_ptr()")))
    return failure();
  size_t rank = blockShape.size();
  auto shape = intValues(cg, a, kShape, DType::get(ScalarType::I64));
  auto strides = intValues(cg, a, kStrides, DType::get(ScalarType::I64));
  auto offsets = intValues(cg, a, kOffsets, DType::get(ScalarType::I32));
  if (failed(shape) || failed(strides) || failed(offsets))
    return failure();
  for (auto [index, count] :
       {std::pair<size_t, size_t>(kShape, shape->size()),
        std::pair<size_t, size_t>(kStrides, strides->size()),
        std::pair<size_t, size_t>(kOffsets, offsets->size()),
        std::pair<size_t, size_t>(kOrder, order.size())})
    if (count != rank)
      return cg.error(a.loc(index), a.name(index) + " has " +
                                        std::to_string(count) +
                                        " entries but block_shape has " +
                                        std::to_string(rank));
  llvm::SmallVector<int64_t> sorted(order);
  llvm::sort(sorted);
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return cg.error(a.loc(kOrder), "order must be a permutation of 0.." +
                                         std::to_string(rank - 1));
  // order[0] names the contiguous (fastest-varying) dimension: a constant
  // stride of 1 on another dimension contradicts it (usually a swapped
  // order, which makes every access strided).
  const CGValue &strideArg = a.value(kStrides);
  if (rank >= 2 && strideArg.isTuple()) {
    llvm::ArrayRef<CGValue> strideValues = strideArg.getElements();
    auto isOne = [](const CGValue &v) {
      return v.isIntLike() && v.getInt() == 1;
    };
    int64_t fastest = order[0];
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) == fastest || !isOne(strideValues[d]) ||
          isOne(strideValues[fastest]))
        continue;
      std::string orderText;
      for (int64_t o : order)
        orderText += (orderText.empty() ? "" : ", ") + std::to_string(o);
      cg.warning(a.loc(kOrder),
                 "order=(" + orderText + ") says dimension " +
                     std::to_string(fastest) +
                     " is the contiguous one, but dimension " +
                     std::to_string(d) +
                     " has stride 1; the order lists dimensions from the "
                     "fastest-varying to the slowest")
          .note(a.loc(kStrides), "the strides are given here");
      break;
    }
  }
  ScalarType elem = base.getDType().getScalar();
  if (elem == ScalarType::I1) {
    FailureOr<CGValue> p =
        cg.cast(base, DType::pointer(ScalarType::I8), a.loc(kBase));
    if (failed(p))
      return failure();
    base = *p;
    elem = ScalarType::I8;
  }
  auto blockType = mlir::RankedTensorType::get(
      blockShape, DType::get(elem).toMLIR(&cg.context));
  llvm::SmallVector<int32_t> order32(order.begin(), order.end());
  mlir::Value v = tile::MakeBlockPtrOp::create(
      cg.builder, cg.loc(), tile::BlockPointerType::get(blockType),
      base.getValue(), *shape, *strides, *offsets, order32);
  return CGValue::runtime(v, DType::blockPointer(elem));
}

static FailureOr<CGValue> builtinAdvance(CodeGen &cg, Args &a) {
  const CGValue &base = a.value(0);
  if (base.isTensorDescriptor())
    return cg.error(a.loc(0), "tl.advance() does not move a tensor "
                              "descriptor; give the block's offsets to "
                              "desc.load(offsets) and desc.store(offsets, "
                              "value)");
  if (!base.isBlockPointer())
    return cg.error(a.loc(0), "tl.advance() needs a block pointer, got " +
                                  base.describe() +
                                  "; move a tile of pointers with '+'");
  // `p.advance(0, B)` is accepted as `p.advance((0, B))`.
  if (!a.varargs.empty()) {
    std::vector<CGValue> items = {a.value(1)};
    for (const CallArg *arg : a.varargs)
      items.push_back(arg->value);
    CallArg *mutableArg = const_cast<CallArg *>(a.bound[1]);
    mutableArg->value = CGValue::tuple(std::move(items));
  }
  FailureOr<llvm::SmallVector<mlir::Value>> offsets =
      intValues(cg, a, 1, DType::get(ScalarType::I32));
  if (failed(offsets))
    return failure();
  auto type = mlir::cast<tile::BlockPointerType>(base.getValue().getType());
  if (static_cast<int64_t>(offsets->size()) != type.getRank())
    return cg.error(a.loc(1), "tl.advance() needs " +
                                  std::to_string(type.getRank()) +
                                  " offsets for " + base.describe() + ", got " +
                                  std::to_string(offsets->size()));
  mlir::Value v = tile::AdvanceOp::create(cg.builder, cg.loc(), type,
                                          base.getValue(), *offsets);
  return CGValue::runtime(v, base.getDType());
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getMemoryBuiltins() {
  using K = ArgType;
  static const BuiltinSpec specs[] = {
      {"tl.load",
       builtinLoad,
       {req("pointer"), opt("mask"), opt("other"), opt("boundary_check"),
        optStr("padding_option", ""), optStr("cache_modifier", ""),
        optStr("eviction_policy", ""), optBool("volatile", false)}},
      {"tl.store",
       builtinStore,
       {req("pointer"), req("value"), opt("mask"), opt("boundary_check"),
        optStr("cache_modifier", ""), optStr("eviction_policy", "")}},
      {"tl.make_block_ptr",
       builtinMakeBlockPtr,
       {req("base"), req("shape"), req("strides"), req("offsets"),
        req("block_shape", K::IntList), req("order", K::IntList)}},
      {"tl.advance",
       builtinAdvance,
       {req("base"), req("offsets")},
       BuiltinBinding::Varargs},
  };
  return specs;
}
