//===- CodeGenBuiltins.cpp - tl.* functions and tensor methods ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The builtin table: `triton.language` functions (`tl.load`, `tl.dot`, ...),
// `tl.math` functions, tensor methods (`x.to`, `x.sum`, `p.advance`), the
// Python builtins a kernel may use (`len`, `min`, `float("-inf")`) and a few
// compile-time helpers of `triton` and Python's `math`. Each handler binds
// its arguments like Python does (positional, keyword, defaults), checks
// them (constexpr where Triton needs constexpr, shapes, dtypes) and emits
// `tile`/`arith`/`math` ops.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"

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

/// The largest number of elements of a tile (Triton's TRITON_MAX_TENSOR_NUMEL).
static constexpr int64_t kMaxTileElements = 1 << 20;

//===----------------------------------------------------------------------===//
// Argument binding
//===----------------------------------------------------------------------===//

LogicalResult
CodeGen::bindArgs(CallArgs &args, llvm::ArrayRef<ParamSpec> params,
                  llvm::SmallVectorImpl<const CallArg *> &bound,
                  llvm::SmallVectorImpl<const CallArg *> *varargs) {
  bound.assign(params.size(), nullptr);
  size_t numPositional = 0, numRequired = 0;
  for (const ParamSpec &param : params) {
    if (!param.keywordOnly)
      ++numPositional;
    if (param.required && !param.keywordOnly)
      ++numRequired;
  }
  size_t next = 0;
  for (const CallArg &arg : args.positional) {
    while (next < params.size() && params[next].keywordOnly)
      ++next;
    if (next < params.size()) {
      bound[next++] = &arg;
      continue;
    }
    if (varargs) {
      varargs->push_back(&arg);
      continue;
    }
    std::string takes = numRequired == numPositional
                            ? std::to_string(numPositional)
                            : "from " + std::to_string(numRequired) + " to " +
                                  std::to_string(numPositional);
    return error(arg.loc, args.calleeName + "() takes " + takes +
                              " positional argument" +
                              (numPositional == 1 ? "" : "s") + " but " +
                              std::to_string(args.positional.size()) +
                              " were given");
  }
  for (const CallArg &arg : args.keywords) {
    int index = -1;
    for (auto [i, param] : llvm::enumerate(params))
      if (param.name == arg.keyword)
        index = static_cast<int>(i);
    if (index < 0) {
      llvm::SmallVector<std::string> names;
      for (const ParamSpec &param : params)
        names.push_back(param.name.str());
      std::string suggestion = findClosestName(arg.keyword, names);
      return error(arg.keywordLoc,
                   args.calleeName + "() got an unexpected keyword argument '" +
                       arg.keyword + "'" +
                       (suggestion.empty()
                            ? std::string()
                            : "; did you mean '" + suggestion + "'?"));
    }
    if (bound[index])
      return error(arg.keywordLoc, args.calleeName +
                                       "() got multiple values for argument '" +
                                       arg.keyword + "'");
    bound[index] = &arg;
  }
  for (auto [i, param] : llvm::enumerate(params))
    if (param.required && !bound[i])
      return error(args.loc, args.calleeName +
                                 "() missing required argument '" + param.name +
                                 "'");
  return success();
}

namespace {
/// Bound arguments with typed accessors for handlers.
class Args {
public:
  Args(CodeGen &cg, CallArgs &call) : cg(cg), call(call) {}

  /// Binds; false on error (reported).
  bool bind(llvm::ArrayRef<ParamSpec> params, bool withVarargs = false) {
    specs.assign(params.begin(), params.end());
    return succeeded(
        cg.bindArgs(call, params, bound, withVarargs ? &varargs : nullptr));
  }

  /// Whether argument `i` was given (and is not None).
  bool has(size_t i) const { return bound[i] && !bound[i]->value.isNone(); }
  const CGValue &value(size_t i) const { return bound[i]->value; }
  SMLoc loc(size_t i) const { return bound[i] ? bound[i]->loc : call.loc; }
  std::string name(size_t i) const {
    return "argument '" + specs[i].name.str() + "' of " + call.calleeName +
           "()";
  }

  /// A constexpr integer argument.
  FailureOr<int64_t> getInt(size_t i) {
    const CGValue &v = value(i);
    if (v.isIntLike())
      return v.getInt();
    if (v.isRuntime())
      return cg
          .error(loc(i), name(i) +
                             " must be a compile-time integer "
                             "(tl.constexpr), but it is a run-time " +
                             v.describe() + getAssignedNumberHint(v))
          .constexprHint(v);
    return cg.error(loc(i),
                    name(i) + " must be an integer, got " + v.describe());
  }
  /// A constexpr bool argument (with default).
  FailureOr<bool> getBool(size_t i, bool dflt) {
    if (!has(i))
      return dflt;
    const CGValue &v = value(i);
    if (v.isConstexpr() && (v.isIntLike() || v.isNone()))
      return v.isTruthy();
    return cg
        .error(loc(i), name(i) + " must be a compile-time bool, got " +
                           v.describe())
        .constexprHint(v);
  }
  /// A constexpr string argument (with default).
  FailureOr<std::string> getStr(size_t i, StringRef dflt) {
    if (!has(i))
      return dflt.str();
    const CGValue &v = value(i);
    if (v.isStr())
      return v.getStr().str();
    return cg.error(loc(i), name(i) + " must be a string, got " + v.describe());
  }
  /// A dtype argument.
  FailureOr<DType> getDType(size_t i) {
    const CGValue &v = value(i);
    if (v.isDType())
      return v.getDType();
    return cg.error(loc(i), name(i) +
                                " must be a dtype such as tl.float32, "
                                "got " +
                                v.describe());
  }
  /// A constexpr integer or a tuple of them (an empty tuple for None).
  FailureOr<llvm::SmallVector<int64_t>> getIntList(size_t i) {
    llvm::SmallVector<int64_t> result;
    if (!has(i))
      return result;
    const CGValue &v = value(i);
    if (v.isIntLike()) {
      result.push_back(v.getInt());
      return result;
    }
    if (v.isTuple()) {
      for (auto [index, element] : llvm::enumerate(v.getElements())) {
        if (!element.isIntLike())
          return cg
              .error(loc(i), "element " + std::to_string(index) + " of " +
                                 name(i) +
                                 " must be a compile-time integer "
                                 "(tl.constexpr), but it is " +
                                 (element.isRuntime() ? "a run-time " : "") +
                                 element.describe() +
                                 getAssignedNumberHint(element))
              .constexprHint(element);
        result.push_back(element.getInt());
      }
      return result;
    }
    return cg
        .error(loc(i), name(i) +
                           " must be a tuple of compile-time "
                           "integers, got " +
                           (v.isRuntime() ? "a run-time " : "") +
                           v.describe())
        .constexprHint(v);
  }
  /// A run-time tile argument (numbers are materialized as scalars).
  FailureOr<CGValue> getRuntime(size_t i) {
    const CGValue &v = value(i);
    if (v.isTensorDescriptor())
      return cg.error(loc(i), name(i) + " cannot be a tensor descriptor; "
                                        "load a block with desc.load(offsets) "
                                        "first");
    if (v.isBlockLike())
      return cg.error(loc(i), name(i) + " cannot be a block pointer; load "
                                        "the block with tl.load first");
    if (v.isRuntime())
      return v;
    if (v.isNumber())
      return cg.toRuntime(v, loc(i));
    return cg.error(loc(i), name(i) + " must be a tile or a number, got " +
                                v.describe());
  }
  /// A run-time tile argument that must be a tile (not a scalar).
  FailureOr<CGValue> getTile(size_t i) {
    FailureOr<CGValue> v = getRuntime(i);
    if (failed(v))
      return failure();
    if (!v->isTile())
      return cg.error(loc(i),
                      name(i) + " must be a tile, got " + v->describe());
    return v;
  }

  /// The variadic positional arguments (or a single tuple given as the
  /// first of them) as constexpr ints.
  FailureOr<llvm::SmallVector<int64_t>> getVarargInts(StringRef what) {
    llvm::SmallVector<int64_t> result;
    llvm::SmallVector<std::pair<CGValue, SMLoc>> items;
    if (varargs.size() == 1 && varargs[0]->value.isTuple()) {
      for (const CGValue &v : varargs[0]->value.getElements())
        items.push_back({v, varargs[0]->loc});
    } else {
      for (const CallArg *arg : varargs)
        items.push_back({arg->value, arg->loc});
    }
    for (auto &[v, l] : items) {
      if (!v.isIntLike())
        return cg
            .error(l, what.str() + " of " + call.calleeName +
                          "() must be compile-time integers "
                          "(tl.constexpr), got " +
                          (v.isRuntime() ? "a run-time " : "") + v.describe() +
                          getAssignedNumberHint(v))
            .constexprHint(v);
      result.push_back(v.getInt());
    }
    return result;
  }

  CodeGen &cg;
  CallArgs &call;
  llvm::SmallVector<ParamSpec> specs;
  llvm::SmallVector<const CallArg *> bound;
  llvm::SmallVector<const CallArg *> varargs;
};
} // namespace

using Handler = FailureOr<CGValue> (*)(CodeGen &, CallArgs &);

/// Checks a tile shape: powers of two, bounded size.
static LogicalResult checkShape(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                                SMLoc loc, StringRef what) {
  int64_t numel = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d <= 0 || (d & (d - 1)) != 0)
      return cg.error(loc, what.str() + ": dimension " + std::to_string(i) +
                               " of " + shapeToString(shape) +
                               " must be a power of two, got " +
                               std::to_string(d));
    numel *= d;
    if (numel > kMaxTileElements)
      return cg.error(loc, what.str() + ": a tile of shape " +
                               shapeToString(shape) + " has more than " +
                               std::to_string(kMaxTileElements) + " elements");
  }
  return success();
}

/// A dense constant tile (or scalar for an empty shape).
static CGValue denseConstant(CodeGen &cg, DType dtype,
                             llvm::ArrayRef<int64_t> shape,
                             const CGValue &number) {
  if (shape.empty())
    return cg.makeConstant(number, dtype);
  mlir::Type element = dtype.toMLIR(&cg.context);
  auto type = mlir::RankedTensorType::get(shape, element);
  mlir::TypedAttr scalar;
  if (dtype.isFloat()) {
    scalar = mlir::FloatAttr::get(element, number.getNumber());
  } else {
    int64_t v = number.isFloat() ? saturatingFloatToInt(number.getFloat())
                                 : number.getInt();
    scalar = mlir::IntegerAttr::get(
        element, llvm::APInt(dtype.getBitWidth(), static_cast<uint64_t>(v),
                             v < 0, /*implicitTrunc=*/true));
  }
  auto attr = mlir::DenseElementsAttr::get(type, scalar);
  return CGValue::runtime(arith::ConstantOp::create(cg.builder, cg.loc(), attr),
                          dtype);
}

//===----------------------------------------------------------------------===//
// Program ids and tile creation
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> programIdLike(CodeGen &cg, CallArgs &call,
                                        bool numPrograms) {
  Args a(cg, call);
  if (!a.bind({{"axis", true}}))
    return failure();
  FailureOr<int64_t> axis = a.getInt(0);
  if (failed(axis))
    return failure();
  if (*axis < 0 || *axis > 2)
    return cg.error(a.loc(0), call.calleeName +
                                  "() axis must be 0, 1 or 2, "
                                  "got " +
                                  std::to_string(*axis));
  mlir::Value v;
  if (numPrograms)
    v = tile::NumProgramsOp::create(cg.builder, cg.loc(),
                                    cg.builder.getI32IntegerAttr(*axis));
  else
    v = tile::ProgramIdOp::create(cg.builder, cg.loc(),
                                  cg.builder.getI32IntegerAttr(*axis));
  return CGValue::runtime(v, DType::get(ScalarKind::Int32));
}

static FailureOr<CGValue> builtinProgramId(CodeGen &cg, CallArgs &call) {
  return programIdLike(cg, call, false);
}
static FailureOr<CGValue> builtinNumPrograms(CodeGen &cg, CallArgs &call) {
  return programIdLike(cg, call, true);
}

static FailureOr<CGValue> builtinArange(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"start", true}, {"end", true}}))
    return failure();
  FailureOr<int64_t> start = a.getInt(0), end = a.getInt(1);
  if (failed(start) || failed(end))
    return failure();
  if (*start < 0 || *start > INT32_MAX || *end < 0 || *end > INT32_MAX)
    return cg.error(call.loc, "tl.arange() bounds must fit in int32 and be "
                              "non-negative, got " +
                                  std::to_string(*start) + " and " +
                                  std::to_string(*end));
  if (*end <= *start)
    return cg.error(a.loc(1), "tl.arange()'s end (" + std::to_string(*end) +
                                  ") must be greater than its start (" +
                                  std::to_string(*start) + ")");
  int64_t length = *end - *start;
  if ((length & (length - 1)) != 0)
    return cg.error(call.loc, "tl.arange()'s range must be a power of two, "
                              "but end - start = " +
                                  std::to_string(length));
  if (length > kMaxTileElements)
    return cg.error(call.loc, "tl.arange() of " + std::to_string(length) +
                                  " elements is larger than a tile may be (" +
                                  std::to_string(kMaxTileElements) + ")");
  auto type = mlir::RankedTensorType::get({length}, cg.builder.getI32Type());
  mlir::Value v = tile::MakeRangeOp::create(
      cg.builder, cg.loc(), type, cg.builder.getI32IntegerAttr(*start),
      cg.builder.getI32IntegerAttr(*end));
  return CGValue::runtime(v, DType::get(ScalarKind::Int32));
}

/// Reads a shape argument: a constexpr int or a tuple of them.
static FailureOr<llvm::SmallVector<int64_t>> getShapeArg(Args &a, size_t i,
                                                         StringRef what) {
  FailureOr<llvm::SmallVector<int64_t>> shape = a.getIntList(i);
  if (failed(shape))
    return failure();
  if (failed(checkShape(a.cg, *shape, a.loc(i), what)))
    return failure();
  return shape;
}

/// Makes `value` (a number or a run-time scalar) a tile of `shape`, `dtype`.
static FailureOr<CGValue> fullTile(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                                   const CGValue &value, DType dtype,
                                   SMLoc valueLoc, StringRef what) {
  if (value.isNumber()) {
    if (value.isFloat() && !dtype.isFloat() &&
        !(std::isfinite(value.getFloat()) &&
          value.getFloat() == std::trunc(value.getFloat())))
      return cg.error(valueLoc, what.str() + " (" + value.describe() +
                                    ") is not an integer, so it cannot fill "
                                    "a tile of " +
                                    dtype.str());
    return denseConstant(cg, dtype, shape, value);
  }
  if (!value.isRuntime() || value.isTile() || value.isBlockLike())
    return cg.error(valueLoc, what.str() +
                                  " must be a number or a run-time scalar, "
                                  "got " +
                                  value.describe());
  FailureOr<CGValue> scalar = cg.cast(value, dtype, valueLoc);
  if (failed(scalar))
    return failure();
  return cg.splat(*scalar, shape);
}

static FailureOr<CGValue> builtinZeros(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"shape", true}, {"dtype", true}}))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> shape = getShapeArg(a, 0, "tl.zeros");
  FailureOr<DType> dtype = a.getDType(1);
  if (failed(shape) || failed(dtype))
    return failure();
  return denseConstant(cg, *dtype, *shape, CGValue::integer(0));
}

static FailureOr<CGValue> builtinFull(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"shape", true}, {"value", true}, {"dtype", true}}))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> shape = getShapeArg(a, 0, "tl.full");
  FailureOr<DType> dtype = a.getDType(2);
  if (failed(shape) || failed(dtype))
    return failure();
  return fullTile(cg, *shape, a.value(1), *dtype, a.loc(1),
                  "the value of tl.full()");
}

static FailureOr<CGValue> builtinZerosLike(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"dtype", false}}))
    return failure();
  FailureOr<CGValue> input = a.getRuntime(0);
  if (failed(input))
    return failure();
  DType dtype = input->getDType();
  if (a.has(1)) {
    FailureOr<DType> d = a.getDType(1);
    if (failed(d))
      return failure();
    dtype = *d;
  }
  return denseConstant(cg, dtype, input->getShape(), CGValue::integer(0));
}

static FailureOr<CGValue> builtinFullLike(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"value", true}, {"dtype", false}}))
    return failure();
  FailureOr<CGValue> input = a.getRuntime(0);
  if (failed(input))
    return failure();
  DType dtype = input->getDType();
  if (a.has(2)) {
    FailureOr<DType> d = a.getDType(2);
    if (failed(d))
      return failure();
    dtype = *d;
  }
  return fullTile(cg, input->getShape(), a.value(1), dtype, a.loc(1),
                  "the value of tl.full_like()");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static FailureOr<tile::CacheModifier> parseCache(CodeGen &cg, Args &a, size_t i,
                                                 bool isStore) {
  FailureOr<std::string> text = a.getStr(i, "");
  if (failed(text))
    return failure();
  StringRef t = *text;
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
  FailureOr<std::string> text = a.getStr(i, "");
  if (failed(text))
    return failure();
  StringRef t = *text;
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
  FailureOr<llvm::SmallVector<int64_t>> dims = a.getIntList(i);
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
static FailureOr<CGValue> prepareMask(CodeGen &cg, Args &a, size_t i,
                                      const CGValue &ptr) {
  const CGValue &mask = a.value(i);
  CGValue m;
  if (mask.isIntLike()) {
    m = cg.makeConstant(CGValue::boolean(mask.isTruthy()),
                        DType::get(ScalarKind::Int1));
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

static FailureOr<CGValue> builtinLoad(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
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
  if (!a.bind({{"pointer", true},
               {"mask", false},
               {"other", false},
               {"boundary_check", false},
               {"padding_option", false},
               {"cache_modifier", false},
               {"eviction_policy", false},
               {"volatile", false}}))
    return failure();
  const CGValue &ptr = a.value(kPtr);
  FailureOr<tile::CacheModifier> cache = parseCache(cg, a, kCache, false);
  FailureOr<tile::EvictionPolicy> evict = parseEviction(cg, a, kEviction);
  FailureOr<bool> isVolatile = a.getBool(kVolatile, false);
  if (failed(cache) || failed(evict) || failed(isVolatile))
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
    FailureOr<std::string> padding = a.getStr(kPadding, "");
    if (failed(check) || failed(padding))
      return failure();
    tile::PaddingOption pad = tile::PaddingOption::Zero;
    if (*padding == "nan") {
      if (!DType::get(ptr.getDType().getScalar()).isFloat())
        return cg.error(a.loc(kPadding), "padding_option 'nan' needs a "
                                         "floating-point block, not " +
                                             ptr.describe());
      pad = tile::PaddingOption::NaN;
    } else if (!padding->empty() && *padding != "zero") {
      return cg.error(a.loc(kPadding), "padding_option must be 'zero' or "
                                       "'nan', got '" +
                                           *padding + "'");
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
    FailureOr<std::string> padding = a.getStr(kPadding, "");
    bool givenCheck =
        a.has(kBoundary) && !(a.value(kBoundary).isTuple() &&
                              a.value(kBoundary).getElements().empty());
    if (givenCheck || (succeeded(padding) && !padding->empty()))
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
    elem = DType::get(ScalarKind::Int8);
    FailureOr<CGValue> p =
        cg.cast(pointer, DType::pointer(ScalarKind::Int8), a.loc(kPtr));
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
                           mask, other, *cache, *evict, *isVolatile);
  CGValue result = CGValue::runtime(v, elem);
  if (isBool)
    return cg.cast(result, DType::get(ScalarKind::Int1), call.loc);
  return result;
}

static FailureOr<CGValue> builtinStore(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  enum { kPtr, kValue, kMask, kBoundary, kCache, kEviction };
  if (!a.bind({{"pointer", true},
               {"value", true},
               {"mask", false},
               {"boundary_check", false},
               {"cache_modifier", false},
               {"eviction_policy", false}}))
    return failure();
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
    elem = DType::get(ScalarKind::Int8);
    FailureOr<CGValue> p =
        cg.cast(pointer, DType::pointer(ScalarKind::Int8), a.loc(kPtr));
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

/// Reads a tuple of run-time or constexpr integers and converts each to
/// `dtype` (i64 for shapes and strides, i32 for offsets).
static FailureOr<llvm::SmallVector<mlir::Value>>
intValues(CodeGen &cg, Args &a, size_t i, DType dtype) {
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

static FailureOr<CGValue> builtinMakeBlockPtr(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  enum { kBase, kShape, kStrides, kOffsets, kBlockShape, kOrder };
  if (!a.bind({{"base", true},
               {"shape", true},
               {"strides", true},
               {"offsets", true},
               {"block_shape", true},
               {"order", true}}))
    return failure();
  CGValue base = a.value(kBase);
  if (!base.isRuntime() || !base.getDType().isPointer() || base.isTile())
    return cg.error(a.loc(kBase), "the base of tl.make_block_ptr() must be a "
                                  "scalar pointer, got " +
                                      base.describe());
  FailureOr<llvm::SmallVector<int64_t>> blockShape = a.getIntList(kBlockShape);
  FailureOr<llvm::SmallVector<int64_t>> order = a.getIntList(kOrder);
  if (failed(blockShape) || failed(order))
    return failure();
  if (failed(checkShape(cg, *blockShape, a.loc(kBlockShape),
                        "the block_shape of tl.make_block_ptr()")))
    return failure();
  size_t rank = blockShape->size();
  auto shape = intValues(cg, a, kShape, DType::get(ScalarKind::Int64));
  auto strides = intValues(cg, a, kStrides, DType::get(ScalarKind::Int64));
  auto offsets = intValues(cg, a, kOffsets, DType::get(ScalarKind::Int32));
  if (failed(shape) || failed(strides) || failed(offsets))
    return failure();
  for (auto [index, count] :
       {std::pair<size_t, size_t>(kShape, shape->size()),
        std::pair<size_t, size_t>(kStrides, strides->size()),
        std::pair<size_t, size_t>(kOffsets, offsets->size()),
        std::pair<size_t, size_t>(kOrder, order->size())})
    if (count != rank)
      return cg.error(a.loc(index), a.name(index) + " has " +
                                        std::to_string(count) +
                                        " entries but block_shape has " +
                                        std::to_string(rank));
  llvm::SmallVector<int64_t> sorted(*order);
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
    int64_t fastest = (*order)[0];
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) == fastest || !isOne(strideValues[d]) ||
          isOne(strideValues[fastest]))
        continue;
      std::string orderText;
      for (int64_t o : *order)
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
  ScalarKind elem = base.getDType().getScalar();
  if (elem == ScalarKind::Int1) {
    FailureOr<CGValue> p =
        cg.cast(base, DType::pointer(ScalarKind::Int8), a.loc(kBase));
    if (failed(p))
      return failure();
    base = *p;
    elem = ScalarKind::Int8;
  }
  auto blockType = mlir::RankedTensorType::get(
      *blockShape, DType::get(elem).toMLIR(&cg.context));
  llvm::SmallVector<int32_t> order32(order->begin(), order->end());
  mlir::Value v = tile::MakeBlockPtrOp::create(
      cg.builder, cg.loc(), tile::BlockPointerType::get(blockType),
      base.getValue(), *shape, *strides, *offsets, order32);
  return CGValue::runtime(v, DType::blockPointer(elem));
}

static FailureOr<CGValue> builtinAdvance(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"base", true}, {"offsets", true}}, /*withVarargs=*/true))
    return failure();
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
      intValues(cg, a, 1, DType::get(ScalarKind::Int32));
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

static FailureOr<CGValue> builtinMakeTensorDescriptor(CodeGen &cg,
                                                      CallArgs &call) {
  Args a(cg, call);
  enum { kBase, kShape, kStrides, kBlockShape, kPadding };
  if (!a.bind({{"base", true},
               {"shape", true},
               {"strides", true},
               {"block_shape", true},
               {"padding_option", false}}))
    return failure();
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
      return cg.error(a.loc(index), a.name(index) + " has " +
                                        std::to_string(count) +
                                        (count == 1 ? " entry" : " entries") +
                                        " but the shape has " +
                                        std::to_string(rank));
  }
  FailureOr<llvm::SmallVector<int64_t>> blockShape = a.getIntList(kBlockShape);
  if (failed(blockShape))
    return failure();
  if (failed(checkShape(cg, *blockShape, a.loc(kBlockShape),
                        "the block_shape of tl.make_tensor_descriptor()")))
    return failure();
  FailureOr<std::string> padding = a.getStr(kPadding, "zero");
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
        : lastStride.isRuntime()
            ? "a run-time " + lastStride.describe() +
                  getAssignedNumberHint(lastStride)
            : lastStride.describe();
    auto diag = cg.error(a.loc(kStrides),
                         "tensor descriptors need a contiguous last "
                         "dimension: the last stride must be the constant 1, "
                         "but it is " +
                             got);
    if (const auto *param = llvm::dyn_cast_or_null<Parameter>(
            lastStride.getKernelParameter()))
      diag.note(param->getLoc(),
                "give '" + param->getName() +
                    "' the literal 1 in the signature (as Triton's JIT "
                    "specializes an argument equal to 1), or declare it `" +
                    param->getName() + ": tl.constexpr`");
    return failure();
  }
  ScalarKind elem = base.getDType().getScalar();
  // As in Triton (whose check of the block's bytes fails on 1-bit
  // elements): a descriptor of booleans is not a thing TMA can copy.
  if (elem == ScalarKind::Int1)
    return cg.error(a.loc(kBase),
                    "a tensor descriptor cannot have int1 (bool) elements; "
                    "describe the tensor through a pointer to tl.int8 "
                    "(base.to(tl.pointer_type(tl.int8)))");
  int64_t elemBytes = DType::get(elem).getBitWidth() / 8;
  if (blockShape->back() * elemBytes < 16)
    return cg.error(a.loc(kBlockShape),
                    "the last dimension of a tensor descriptor's block must "
                    "be at least 16 bytes, but it is " +
                        std::to_string(blockShape->back()) + " x " +
                        std::to_string(elemBytes) + " bytes (" +
                        DType::get(elem).str() + ") = " +
                        std::to_string(blockShape->back() * elemBytes) +
                        " bytes");

  auto shape = intValues(cg, a, kShape, DType::get(ScalarKind::Int64));
  auto strides = intValues(cg, a, kStrides, DType::get(ScalarKind::Int64));
  if (failed(shape) || failed(strides))
    return failure();
  mlir::Value zero =
      cg.makeScalarConstant(DType::get(ScalarKind::Int32), 0, 0, false);
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
  return cg.error(a.loc(i), a.call.calleeName +
                                "() needs a tensor descriptor "
                                "(tl.make_tensor_descriptor), got " +
                                desc.describe() +
                                (desc.isBlockPointer()
                                     ? "; load a block pointer with tl.load"
                                     : ""));
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
    if (item.isIntLike() && (item.getInt() < INT32_MIN ||
                             item.getInt() > INT32_MAX))
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
      intValues(cg, a, i, DType::get(ScalarKind::Int32));
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
static FailureOr<CGValue> builtinLoadTensorDescriptor(CodeGen &cg,
                                                      CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"desc", true}, {"offsets", true}}))
    return failure();
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
static FailureOr<CGValue> builtinStoreTensorDescriptor(CodeGen &cg,
                                                       CallArgs &call) {
  Args a(cg, call);
  enum { kDesc, kOffsets, kValue };
  if (!a.bind({{"desc", true}, {"offsets", true}, {"value", true}}))
    return failure();
  FailureOr<CGValue> desc = getDescriptor(cg, a, kDesc);
  if (failed(desc))
    return failure();
  llvm::SmallVector<int64_t> blockShape = desc->getShape();
  const CGValue &value = a.value(kValue);
  // As in Triton, the value must have the block's shape (no broadcasting);
  // its dtype is converted to the descriptor's.
  if (!value.isTile() || value.getShape() != blockShape)
    return cg.error(a.loc(kValue),
                    "the value stored through " + desc->describe() +
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
  tile::BlockStoreOp::create(cg.builder, cg.loc(), *block,
                             converted->getValue(),
                             allDimensions(type.getRank()),
                             tile::CacheModifier::None,
                             tile::EvictionPolicy::Normal);
  return CGValue::none();
}

/// `desc.shape` and `desc.strides`: the values given to the
/// make_tensor_descriptor this descriptor comes from (shape as int32 and
/// strides as int64, as in Triton).
static FailureOr<CGValue> descriptorDims(CodeGen &cg, const CGValue &desc,
                                         StringRef name, SMLoc nameLoc) {
  auto make = desc.getValue().getDefiningOp<tile::MakeBlockPtrOp>();
  if (!make)
    return cg.error(nameLoc, "desc." + name.str() +
                                 " is only known for a descriptor made by "
                                 "tl.make_tensor_descriptor() on every path "
                                 "here, not one chosen at run time");
  bool isShape = name == "shape";
  std::vector<CGValue> dims;
  for (mlir::Value v : isShape ? make.getShape() : make.getStrides()) {
    CGValue value = CGValue::runtime(v, DType::get(ScalarKind::Int64));
    if (isShape) {
      FailureOr<CGValue> narrow =
          cg.cast(value, DType::get(ScalarKind::Int32), nameLoc);
      if (failed(narrow))
        return failure();
      value = *narrow;
    }
    dims.push_back(value);
  }
  return CGValue::tuple(std::move(dims));
}

//===----------------------------------------------------------------------===//
// Dot
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> builtinDot(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  enum { kA, kB, kAcc, kPrecision, kAllowTF32, kImprecise, kOutDType };
  if (!a.bind({{"input", true},
               {"other", true},
               {"acc", false},
               {"input_precision", false},
               {"allow_tf32", false},
               {"max_num_imprecise_acc", false},
               {"out_dtype", false}}))
    return failure();
  FailureOr<CGValue> lhs = a.getTile(kA), rhs = a.getTile(kB);
  if (failed(lhs) || failed(rhs))
    return failure();
  llvm::SmallVector<int64_t> as = lhs->getShape(), bs = rhs->getShape();
  if (!((as.size() == 2 && bs.size() == 2) ||
        (as.size() == 3 && bs.size() == 3)))
    return cg.error(call.loc, "tl.dot() needs two 2-d tiles (or two 3-d, "
                              "batched), got " +
                                  lhs->describe() + " and " + rhs->describe());
  size_t r = as.size();
  if (as[r - 1] != bs[r - 2])
    return cg.error(call.loc, "tl.dot(): the inner dimensions differ: a is " +
                                  lhs->describe() + " and b is " +
                                  rhs->describe());
  if (r == 3 && as[0] != bs[0])
    return cg.error(call.loc, "tl.dot(): the batch dimensions differ: a is " +
                                  lhs->describe() + " and b is " +
                                  rhs->describe());
  int64_t m = as[r - 2], k = as[r - 1], n = bs[r - 1];
  if (m < 1 || n < 1 || k < 1)
    return cg.error(call.loc,
                    "tl.dot() needs M, N and K of at least 1, got "
                    "M=" +
                        std::to_string(m) + ", N=" + std::to_string(n) +
                        ", K=" + std::to_string(k) + " (a is " +
                        lhs->describe() + ", b is " + rhs->describe() + ")");
  DType at = lhs->getDType(), bt = rhs->getDType();
  if (at != bt && !(at.isFP8() && bt.isFP8()))
    return cg.error(call.loc, "tl.dot() needs operands of the same type, got " +
                                  at.str() + " and " + bt.str() +
                                  "; convert one with .to()");
  if (at.isFP8() && bt.isFP8() && at != bt)
    return cg.error(call.loc, "tl.dot() on two different fp8 types (" +
                                  at.str() + " and " + bt.str() +
                                  ") is not supported yet");
  bool supported = at.isFP16() || at.isBF16() || at.isFP32() || at.isFP8() ||
                   at.getScalar() == ScalarKind::Int8;
  if (!supported)
    return cg.error(call.loc, "tl.dot() supports fp16, bf16, fp32, fp8 and "
                              "int8 operands, not " +
                                  at.str());

  DType outDType = DType::get(ScalarKind::FP32);
  if (a.has(kOutDType)) {
    FailureOr<DType> d = a.getDType(kOutDType);
    if (failed(d))
      return failure();
    outDType = *d;
  }
  DType ret;
  if (at.isInt()) {
    ret = DType::get(ScalarKind::Int32);
  } else if (outDType.isBF16()) {
    return cg.error(a.loc(kOutDType), "out_dtype=tl.bfloat16 is not "
                                      "supported; use tl.float32 and convert "
                                      "with .to(tl.bfloat16)");
  } else if (at.isFP32() || at.isBF16()) {
    if (!outDType.isFP32())
      return cg.error(a.loc(kOutDType), "tl.dot() of " + at.str() +
                                            " operands accumulates in fp32; "
                                            "out_dtype must be tl.float32");
    ret = outDType;
  } else {
    if (!outDType.isFP32() && !outDType.isFP16())
      return cg.error(a.loc(kOutDType), "out_dtype must be tl.float32 or "
                                        "tl.float16, got " +
                                            outDType.str());
    ret = outDType;
  }

  tile::InputPrecision precision = tile::InputPrecision::TF32;
  if (a.has(kPrecision) && a.has(kAllowTF32))
    return cg.error(a.loc(kAllowTF32), "give only one of input_precision and "
                                       "allow_tf32");
  if (a.has(kPrecision)) {
    FailureOr<std::string> p = a.getStr(kPrecision, "tf32");
    if (failed(p))
      return failure();
    if (*p == "tf32")
      precision = tile::InputPrecision::TF32;
    else if (*p == "tf32x3")
      precision = tile::InputPrecision::TF32x3;
    else if (*p == "ieee")
      precision = tile::InputPrecision::IEEE;
    else
      return cg.error(a.loc(kPrecision), "input_precision must be 'tf32', "
                                         "'tf32x3' or 'ieee', got '" +
                                             *p + "'");
  } else if (a.has(kAllowTF32)) {
    FailureOr<bool> allow = a.getBool(kAllowTF32, true);
    if (failed(allow))
      return failure();
    precision =
        *allow ? tile::InputPrecision::TF32 : tile::InputPrecision::IEEE;
  }

  llvm::SmallVector<int64_t> outShape;
  if (r == 3)
    outShape.push_back(as[0]);
  outShape.push_back(m);
  outShape.push_back(n);
  CGValue acc;
  if (a.has(kAcc)) {
    FailureOr<CGValue> c = a.getTile(kAcc);
    if (failed(c))
      return failure();
    if (llvm::ArrayRef<int64_t>(c->getShape()) != llvm::ArrayRef(outShape))
      return cg.error(a.loc(kAcc), "the accumulator of tl.dot() must have "
                                   "shape " +
                                       shapeToString(outShape) + ", got " +
                                       c->describe());
    if (c->getDType() != ret)
      return cg.error(a.loc(kAcc), "the accumulator of tl.dot() must be " +
                                       ret.str() + " (out_dtype), got " +
                                       c->describe());
    acc = *c;
  } else {
    acc = denseConstant(cg, ret, outShape, CGValue::integer(0));
  }
  mlir::Value v = tile::DotOp::create(
      cg.builder, cg.loc(), acc.getValue().getType(), lhs->getValue(),
      rhs->getValue(), acc.getValue(), precision);
  return CGValue::runtime(v, ret);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Reads the `axis` argument: None or a constexpr int.
static FailureOr<std::optional<int64_t>> getAxis(Args &a, size_t i) {
  if (!a.has(i))
    return std::optional<int64_t>();
  FailureOr<int64_t> axis = a.getInt(i);
  if (failed(axis))
    return failure();
  return std::optional<int64_t>(*axis);
}

/// A binary combine op on scalars of one dtype.
enum class Combine { Add, Max, Min, Xor };

static CGValue combineScalars(CodeGen &cg, Combine kind, const CGValue &x,
                              const CGValue &y) {
  DType d = x.getDType();
  mlir::Value a = x.getValue(), b = y.getValue();
  mlir::Value r;
  switch (kind) {
  case Combine::Add:
    r = d.isFloat()
            ? arith::AddFOp::create(cg.builder, cg.loc(), a, b).getResult()
            : arith::AddIOp::create(cg.builder, cg.loc(), a, b).getResult();
    break;
  case Combine::Max:
    r = d.isFloat()
            ? arith::MaxNumFOp::create(cg.builder, cg.loc(), a, b).getResult()
        : d.isSigned()
            ? arith::MaxSIOp::create(cg.builder, cg.loc(), a, b).getResult()
            : arith::MaxUIOp::create(cg.builder, cg.loc(), a, b).getResult();
    break;
  case Combine::Xor:
    r = arith::XOrIOp::create(cg.builder, cg.loc(), a, b);
    break;
  case Combine::Min:
    r = d.isFloat()
            ? arith::MinNumFOp::create(cg.builder, cg.loc(), a, b).getResult()
        : d.isSigned()
            ? arith::MinSIOp::create(cg.builder, cg.loc(), a, b).getResult()
            : arith::MinUIOp::create(cg.builder, cg.loc(), a, b).getResult();
    break;
  }
  return CGValue::runtime(r, d);
}

static FailureOr<CGValue> simpleReduce(CodeGen &cg, CallArgs &call,
                                       const CGValue &input,
                                       std::optional<int64_t> axis,
                                       bool keepDims, SMLoc axisLoc,
                                       Combine kind) {
  FailureOr<llvm::SmallVector<CGValue>> results =
      cg.reduce({input}, axis, keepDims, call.loc, axisLoc,
                [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
                    -> FailureOr<llvm::SmallVector<CGValue>> {
                  return llvm::SmallVector<CGValue>{
                      combineScalars(cg, kind, lhs[0], rhs[0])};
                });
  if (failed(results))
    return failure();
  return results->front();
}

static FailureOr<CGValue> builtinSum(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"axis", false},
               {"keep_dims", false},
               {"dtype", false}}))
    return failure();
  FailureOr<CGValue> input = a.getTile(0);
  FailureOr<std::optional<int64_t>> axis = getAxis(a, 1);
  FailureOr<bool> keepDims = a.getBool(2, false);
  if (failed(input) || failed(axis) || failed(keepDims))
    return failure();
  CGValue x = *input;
  DType d = x.getDType();
  std::optional<DType> outType;
  if (a.has(3)) {
    FailureOr<DType> t = a.getDType(3);
    if (failed(t))
      return failure();
    outType = *t;
  } else if (d.isBool()) {
    outType = DType::get(ScalarKind::Int32);
  } else if (d.isInt() && d.getBitWidth() < 32) {
    outType = DType::get(d.isSigned() ? ScalarKind::Int32 : ScalarKind::UInt32);
  }
  if (d.isPointer())
    return cg.error(a.loc(0), "tl.sum() of pointers is not supported");
  if (outType) {
    FailureOr<CGValue> c = cg.cast(x, *outType, a.loc(0));
    if (failed(c))
      return failure();
    x = *c;
  }
  return simpleReduce(cg, call, x, *axis, *keepDims, a.loc(1), Combine::Add);
}

static FailureOr<CGValue> builtinXorSum(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"axis", false}, {"keep_dims", false}}))
    return failure();
  FailureOr<CGValue> input = a.getTile(0);
  FailureOr<std::optional<int64_t>> axis = getAxis(a, 1);
  FailureOr<bool> keepDims = a.getBool(2, false);
  if (failed(input) || failed(axis) || failed(keepDims))
    return failure();
  if (!input->getDType().isScalar() || !input->getDType().isInt())
    return cg.error(a.loc(0), "tl.xor_sum() needs an integer tile, got " +
                                  input->describe());
  return simpleReduce(cg, call, *input, *axis, *keepDims, a.loc(1),
                      Combine::Xor);
}

/// tl.softmax as Triton defines it: x - max(x, dim), exp, divided by the
/// sum along dim (dim None is 0; keep_dims applies to the max and the sum,
/// whose results broadcast back on the right).
static FailureOr<CGValue> builtinSoftmax(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true},
               {"dim", false},
               {"keep_dims", false},
               {"ieee_rounding", false}}))
    return failure();
  FailureOr<CGValue> x = a.getTile(0);
  FailureOr<bool> keepDims = a.getBool(2, false);
  FailureOr<bool> ieee = a.getBool(3, false);
  if (failed(x) || failed(keepDims) || failed(ieee))
    return failure();
  int64_t dim = 0;
  if (a.has(1)) {
    FailureOr<int64_t> d = a.getInt(1);
    if (failed(d))
      return failure();
    dim = *d;
  }
  if (!x->getDType().isFloat())
    return cg.error(a.loc(0), "tl.softmax() needs a floating-point tile, got " +
                                  x->describe() + "; use .to(tl.float32)");
  auto reduceCall = [&](StringRef name,
                        const CGValue &input) -> FailureOr<CGValue> {
    CallArgs inner;
    inner.loc = call.loc;
    inner.calleeName = call.calleeName;
    inner.positional.push_back(CallArg{input, a.loc(0), "", SMLoc()});
    inner.positional.push_back(
        CallArg{CGValue::integer(dim), a.loc(1), "", SMLoc()});
    inner.keywords.push_back(
        CallArg{CGValue::boolean(*keepDims), call.loc, "keep_dims", call.loc});
    return cg.callBuiltin(name, inner);
  };
  FailureOr<CGValue> max = reduceCall("tl.max", *x);
  if (failed(max))
    return failure();
  FailureOr<CGValue> z =
      cg.binaryOp(BinaryOp::Sub, *x, *max, call.loc, a.loc(0), call.loc);
  if (failed(z))
    return failure();
  CallArgs expArgs;
  expArgs.loc = call.loc;
  expArgs.calleeName = call.calleeName;
  expArgs.positional.push_back(CallArg{*z, a.loc(0), "", SMLoc()});
  FailureOr<CGValue> num = cg.callBuiltin("tl.exp", expArgs);
  if (failed(num))
    return failure();
  FailureOr<CGValue> den = reduceCall("tl.sum", *num);
  if (failed(den))
    return failure();
  return cg.binaryOp(BinaryOp::Div, *num, *den, call.loc, a.loc(0), call.loc);
}

/// argmax/argmin: a two-operand reduction of (value, index), keeping the
/// larger (smaller) value and, on ties, the smaller index.
static FailureOr<llvm::SmallVector<CGValue>>
reduceWithIndices(CodeGen &cg, CallArgs &call, CGValue input,
                  std::optional<int64_t> axis, bool keepDims, SMLoc axisLoc,
                  bool isMax, bool tieBreakLeft) {
  llvm::SmallVector<int64_t> shape = input.getShape();
  if (!axis) {
    int64_t numel = 1;
    for (int64_t d : shape)
      numel *= d;
    // Flatten in row-major order so that indices are positions.
    input = cg.reshape(input, {numel}, /*allowReorder=*/false);
    shape = {numel};
  }
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t ax = axis.value_or(0);
  if (ax < -rank || ax >= rank)
    return cg.error(axisLoc, "axis " + std::to_string(ax) +
                                 " is out of range for a tile of rank " +
                                 std::to_string(rank) + " (shape " +
                                 shapeToString(shape) + ")");
  if (ax < 0)
    ax += rank;
  int64_t n = shape[ax];
  auto rangeType = mlir::RankedTensorType::get({n}, cg.builder.getI32Type());
  CGValue index = CGValue::runtime(
      tile::MakeRangeOp::create(cg.builder, cg.loc(), rangeType,
                                cg.builder.getI32IntegerAttr(0),
                                cg.builder.getI32IntegerAttr(n)),
      DType::get(ScalarKind::Int32));
  for (int64_t d = 0; d < rank; ++d)
    if (d != ax)
      index = cg.expandDims(index, d);
  FailureOr<CGValue> bIndex = cg.broadcastTo(index, shape, call.loc, "index");
  if (failed(bIndex))
    return failure();
  DType d = input.getDType();
  return cg.reduce(
      {input, *bIndex}, std::optional<int64_t>(ax), keepDims, call.loc, axisLoc,
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
          -> FailureOr<llvm::SmallVector<CGValue>> {
        mlir::Value v1 = lhs[0].getValue(), i1 = lhs[1].getValue();
        mlir::Value v2 = rhs[0].getValue(), i2 = rhs[1].getValue();
        mlir::Value better, equal;
        if (d.isFloat()) {
          better = arith::CmpFOp::create(cg.builder, cg.loc(),
                                         isMax ? arith::CmpFPredicate::OGT
                                               : arith::CmpFPredicate::OLT,
                                         v1, v2);
          equal = arith::CmpFOp::create(cg.builder, cg.loc(),
                                        arith::CmpFPredicate::OEQ, v1, v2);
        } else {
          bool s = d.isSigned();
          better = arith::CmpIOp::create(
              cg.builder, cg.loc(),
              isMax
                  ? (s ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt)
                  : (s ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult),
              v1, v2);
          equal = arith::CmpIOp::create(cg.builder, cg.loc(),
                                        arith::CmpIPredicate::eq, v1, v2);
        }
        mlir::Value take = better;
        if (tieBreakLeft) {
          mlir::Value smaller = arith::CmpIOp::create(
              cg.builder, cg.loc(), arith::CmpIPredicate::slt, i1, i2);
          mlir::Value tie =
              arith::AndIOp::create(cg.builder, cg.loc(), equal, smaller);
          take = arith::OrIOp::create(cg.builder, cg.loc(), better, tie);
        }
        mlir::Value v =
            arith::SelectOp::create(cg.builder, cg.loc(), take, v1, v2);
        mlir::Value i =
            arith::SelectOp::create(cg.builder, cg.loc(), take, i1, i2);
        return llvm::SmallVector<CGValue>{
            CGValue::runtime(v, d),
            CGValue::runtime(i, DType::get(ScalarKind::Int32))};
      });
}

static FailureOr<CGValue> maxMin(CodeGen &cg, CallArgs &call, bool isMax) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"axis", false},
               {"return_indices", false},
               {"return_indices_tie_break_left", false},
               {"keep_dims", false}}))
    return failure();
  FailureOr<CGValue> input = a.getTile(0);
  FailureOr<std::optional<int64_t>> axis = getAxis(a, 1);
  FailureOr<bool> returnIndices = a.getBool(2, false);
  FailureOr<bool> tieLeft = a.getBool(3, true);
  FailureOr<bool> keepDims = a.getBool(4, false);
  if (failed(input) || failed(axis) || failed(returnIndices) ||
      failed(tieLeft) || failed(keepDims))
    return failure();
  if (input->getDType().isPointer())
    return cg.error(a.loc(0), call.calleeName + "() of pointers is not "
                                                "supported");
  if (*returnIndices) {
    FailureOr<llvm::SmallVector<CGValue>> results = reduceWithIndices(
        cg, call, *input, *axis, *keepDims, a.loc(1), isMax, *tieLeft);
    if (failed(results))
      return failure();
    return CGValue::tuple({(*results)[0], (*results)[1]});
  }
  CGValue x = *input;
  DType d = x.getDType();
  if (d.getBitWidth() < 32) {
    FailureOr<CGValue> c = cg.cast(
        x, DType::get(d.isFloat() ? ScalarKind::FP32 : ScalarKind::Int32),
        a.loc(0));
    if (failed(c))
      return failure();
    x = *c;
  }
  return simpleReduce(cg, call, x, *axis, *keepDims, a.loc(1),
                      isMax ? Combine::Max : Combine::Min);
}

static FailureOr<CGValue> builtinMax(CodeGen &cg, CallArgs &call) {
  return maxMin(cg, call, true);
}
static FailureOr<CGValue> builtinMin(CodeGen &cg, CallArgs &call) {
  return maxMin(cg, call, false);
}

static FailureOr<CGValue> argMaxMin(CodeGen &cg, CallArgs &call, bool isMax) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"axis", true},
               {"tie_break_left", false},
               {"keep_dims", false}}))
    return failure();
  FailureOr<CGValue> input = a.getTile(0);
  FailureOr<std::optional<int64_t>> axis = getAxis(a, 1);
  FailureOr<bool> tieLeft = a.getBool(2, true);
  FailureOr<bool> keepDims = a.getBool(3, false);
  if (failed(input) || failed(axis) || failed(tieLeft) || failed(keepDims))
    return failure();
  if (input->getDType().isPointer())
    return cg.error(a.loc(0), call.calleeName + "() of pointers is not "
                                                "supported");
  FailureOr<llvm::SmallVector<CGValue>> results = reduceWithIndices(
      cg, call, *input, *axis, *keepDims, a.loc(1), isMax, *tieLeft);
  if (failed(results))
    return failure();
  return (*results)[1];
}

static FailureOr<CGValue> builtinArgmax(CodeGen &cg, CallArgs &call) {
  return argMaxMin(cg, call, true);
}
static FailureOr<CGValue> builtinArgmin(CodeGen &cg, CallArgs &call) {
  return argMaxMin(cg, call, false);
}

/// Calls a user's combine function (a @jit function or a lambda, as
/// tl.reduce and tl.associative_scan take) on the accumulated values then
/// the new ones; its result, a value or a tuple, as a list.
static FailureOr<llvm::SmallVector<CGValue>>
callCombineFn(CodeGen &cg, const CGValue &fn, SMLoc loc,
              llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs) {
  CallArgs fnArgs;
  fnArgs.loc = loc;
  fnArgs.calleeName = "combine_fn";
  for (const CGValue &v : lhs)
    fnArgs.positional.push_back({v, loc, "", SMLoc()});
  for (const CGValue &v : rhs)
    fnArgs.positional.push_back({v, loc, "", SMLoc()});
  // A combine compares its operands exactly by design (argmax-style
  // tie-breaks): no float-== warnings inside.
  ++cg.combineFunctionDepth;
  FailureOr<CGValue> r = cg.callFunction(fn, fnArgs);
  --cg.combineFunctionDepth;
  if (failed(r))
    return failure();
  llvm::SmallVector<CGValue> out;
  if (r->isTuple())
    out.append(r->getElements().begin(), r->getElements().end());
  else
    out.push_back(*r);
  return out;
}

/// `results` as the builtin's value: a tuple when its input was one.
static CGValue packResults(llvm::ArrayRef<CGValue> results, bool isTuple) {
  if (!isTuple)
    return results.front();
  return CGValue::tuple(std::vector<CGValue>(results.begin(), results.end()));
}
static FailureOr<CGValue> builtinReduce(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"axis", true},
               {"combine_fn", true},
               {"keep_dims", false}}))
    return failure();
  FailureOr<std::optional<int64_t>> axis = getAxis(a, 1);
  FailureOr<bool> keepDims = a.getBool(3, false);
  if (failed(axis) || failed(keepDims))
    return failure();
  const CGValue &fnValue = a.value(2);
  if (!fnValue.isJitFunction() && !fnValue.isClosure())
    return cg.error(a.loc(2), "the combine_fn of tl.reduce() must be a @jit "
                              "function or a lambda, got " +
                                  fnValue.describe());
  llvm::SmallVector<CGValue> inputs;
  const CGValue &in = a.value(0);
  bool isTuple = in.isTuple();
  if (isTuple)
    inputs.append(in.getElements().begin(), in.getElements().end());
  else
    inputs.push_back(in);
  for (const CGValue &v : inputs)
    if (!v.isTile())
      return cg.error(a.loc(0), "the input of tl.reduce() must be a tile or "
                                "a tuple of tiles, got " +
                                    v.describe());
  SMLoc fnLoc = a.loc(2);
  FailureOr<llvm::SmallVector<CGValue>> results = cg.reduce(
      inputs, *axis, *keepDims, call.loc, a.loc(1),
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs) {
        return callCombineFn(cg, fnValue, fnLoc, lhs, rhs);
      });
  if (failed(results))
    return failure();
  return packResults(*results, isTuple);
}

//===----------------------------------------------------------------------===//
// Element-wise math
//===----------------------------------------------------------------------===//

/// A floating-point input for math. As in Triton, a run-time integer is an
/// error (Triton's math functions check the dtype); a Python number becomes
/// an fp32 scalar.
static FailureOr<CGValue> floatInput(CodeGen &cg, Args &a, size_t i) {
  bool fromNumber = a.value(i).isNumber();
  FailureOr<CGValue> x = a.getRuntime(i);
  if (failed(x))
    return failure();
  if (x->isBlockLike() || x->getDType().isPointer())
    return cg.error(a.loc(i), a.name(i) +
                                  " must be a number or a numeric "
                                  "tile, got " +
                                  x->describe());
  if (x->getDType().isInt()) {
    if (!fromNumber)
      return cg.error(a.loc(i), a.call.calleeName +
                                    " expects a floating-point tile, got " +
                                    x->getDType().str() +
                                    "; use .to(tl.float32)");
    return cg.cast(*x, DType::get(ScalarKind::FP32), a.loc(i));
  }
  return x;
}

enum class MathFn {
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Floor,
  Ceil,
  Tanh,
  Erf
};

static FailureOr<CGValue> unaryMath(CodeGen &cg, CallArgs &call, MathFn kind) {
  Args a(cg, call);
  if (!a.bind({{"x", true}}))
    return failure();
  FailureOr<CGValue> x = floatInput(cg, a, 0);
  if (failed(x))
    return failure();
  mlir::Value v = x->getValue();
  mlir::Value r;
  switch (kind) {
  case MathFn::Exp:
    r = math::ExpOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Exp2:
    r = math::Exp2Op::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Log:
    r = math::LogOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Log2:
    r = math::Log2Op::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Sqrt:
    r = math::SqrtOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Rsqrt:
    r = math::RsqrtOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Sin:
    r = math::SinOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Cos:
    r = math::CosOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Floor:
    r = math::FloorOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Ceil:
    r = math::CeilOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Tanh:
    r = math::TanhOp::create(cg.builder, cg.loc(), v);
    break;
  case MathFn::Erf:
    r = math::ErfOp::create(cg.builder, cg.loc(), v);
    break;
  }
  return CGValue::runtime(r, x->getDType());
}

#define MATH_BUILTIN(NAME, KIND)                                               \
  static FailureOr<CGValue> NAME(CodeGen &cg, CallArgs &call) {                \
    return unaryMath(cg, call, MathFn::KIND);                                  \
  }
MATH_BUILTIN(builtinExp, Exp)
MATH_BUILTIN(builtinExp2, Exp2)
MATH_BUILTIN(builtinLog, Log)
MATH_BUILTIN(builtinLog2, Log2)
MATH_BUILTIN(builtinSqrt, Sqrt)
MATH_BUILTIN(builtinRsqrt, Rsqrt)
MATH_BUILTIN(builtinSin, Sin)
MATH_BUILTIN(builtinCos, Cos)
MATH_BUILTIN(builtinFloor, Floor)
MATH_BUILTIN(builtinCeil, Ceil)
MATH_BUILTIN(builtinTanh, Tanh)
MATH_BUILTIN(builtinErf, Erf)
#undef MATH_BUILTIN

static FailureOr<CGValue> builtinAbs(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}}))
    return failure();
  if (a.value(0).isNumber()) {
    const CGValue &v = a.value(0);
    if (v.isFloat())
      return CGValue::floating(std::fabs(v.getFloat()));
    if (v.getInt() == INT64_MIN)
      return cg.error(a.loc(0), "integer overflow in abs()");
    return CGValue::integer(v.getInt() < 0 ? -v.getInt() : v.getInt());
  }
  FailureOr<CGValue> x = a.getRuntime(0);
  if (failed(x))
    return failure();
  DType d = x->getDType();
  if (d.isPointer() || x->isBlockLike())
    return cg.error(a.loc(0), "abs() of " + x->describe() + " is not defined");
  if (d.isFloat())
    return CGValue::runtime(
        math::AbsFOp::create(cg.builder, cg.loc(), x->getValue()), d);
  if (d.isUnsigned())
    return *x;
  return CGValue::runtime(
      math::AbsIOp::create(cg.builder, cg.loc(), x->getValue()), d);
}

static FailureOr<CGValue> builtinSigmoid(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}}))
    return failure();
  FailureOr<CGValue> x = floatInput(cg, a, 0);
  if (failed(x))
    return failure();
  // 1 / (1 + exp(-x)), with Triton's promotion of the division.
  CGValue neg = CGValue::runtime(
      arith::NegFOp::create(cg.builder, cg.loc(), x->getValue()),
      x->getDType());
  CGValue e = CGValue::runtime(
      math::ExpOp::create(cg.builder, cg.loc(), neg.getValue()), x->getDType());
  FailureOr<CGValue> denom = cg.binaryOp(BinaryOp::Add, CGValue::integer(1), e,
                                         call.loc, call.loc, call.loc);
  if (failed(denom))
    return failure();
  return cg.binaryOp(BinaryOp::Div, CGValue::integer(1), *denom, call.loc,
                     call.loc, call.loc);
}

/// Promotes two arguments like an arithmetic operator and broadcasts them.
static LogicalResult promotePair(CodeGen &cg, CGValue &x, CGValue &y, SMLoc loc,
                                 SMLoc xLoc, SMLoc yLoc, StringRef what) {
  bool xPy = x.isConstexpr(), yPy = y.isConstexpr();
  auto typeOf = [](const CGValue &v) {
    if (v.isBool())
      return DType::get(ScalarKind::Int1);
    if (v.isInt())
      return pythonIntType(v.getInt());
    if (v.isFloat())
      return pythonFloatType(v.getFloat());
    return v.getDType();
  };
  if ((xPy && !x.isNumber()) || (yPy && !y.isNumber()))
    return cg.error(loc, what.str() + " needs numbers or tiles, got " +
                             x.describe() + " and " + y.describe());
  DType xt = typeOf(x), yt = typeOf(y);
  DType ret;
  if (x.isBlockLike() || y.isBlockLike())
    return cg.error(loc, what.str() +
                             " does not take block pointers or tensor "
                             "descriptors (" +
                             x.describe() + " and " + y.describe() + ")");
  if (xt.isPointer() || yt.isPointer()) {
    if (xt != yt)
      return cg.error(loc, what.str() + ": incompatible operands " +
                               x.describe() + " and " + y.describe());
    ret = xt;
  } else {
    std::string reason;
    std::optional<DType> t = computationType(xt, xPy, yt, yPy, false, reason);
    if (!t)
      return cg.error(loc, what.str() + ": " + reason);
    ret = *t;
  }
  FailureOr<CGValue> cx = cg.convertTo(x, ret, xLoc, "operand");
  FailureOr<CGValue> cy = cg.convertTo(y, ret, yLoc, "operand");
  if (failed(cx) || failed(cy))
    return failure();
  x = *cx;
  y = *cy;
  return cg.broadcastPair(x, y, loc, xLoc, yLoc);
}

static FailureOr<CGValue> maximumMinimum(CodeGen &cg, CallArgs &call,
                                         bool isMax) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"y", true}, {"propagate_nan", false}}))
    return failure();
  CGValue x = a.value(0), y = a.value(1);
  if (x.isNumber() && y.isNumber()) {
    bool takeX = isMax ? !(x.getNumber() < y.getNumber())
                       : !(y.getNumber() < x.getNumber());
    return takeX ? x : y;
  }
  bool propagateNan = false;
  if (a.has(2)) {
    const CGValue &p = a.value(2);
    propagateNan = p.isIntLike() ? p.getInt() != 0
                   : p.isStr()   ? p.getStr() == "all"
                                 : false;
  }
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1),
                         call.calleeName + "()")))
    return failure();
  DType d = x.getDType();
  mlir::Value l = x.getValue(), r = y.getValue();
  mlir::Value v;
  if (d.isFloat()) {
    if (propagateNan)
      v = isMax ? arith::MaximumFOp::create(cg.builder, cg.loc(), l, r)
                      .getResult()
                : arith::MinimumFOp::create(cg.builder, cg.loc(), l, r)
                      .getResult();
    else
      v = isMax
              ? arith::MaxNumFOp::create(cg.builder, cg.loc(), l, r).getResult()
              : arith::MinNumFOp::create(cg.builder, cg.loc(), l, r)
                    .getResult();
  } else if (d.isSigned()) {
    v = isMax ? arith::MaxSIOp::create(cg.builder, cg.loc(), l, r).getResult()
              : arith::MinSIOp::create(cg.builder, cg.loc(), l, r).getResult();
  } else if (d.isInt()) {
    v = isMax ? arith::MaxUIOp::create(cg.builder, cg.loc(), l, r).getResult()
              : arith::MinUIOp::create(cg.builder, cg.loc(), l, r).getResult();
  } else {
    return cg.error(call.loc, call.calleeName + "() of " + x.describe() +
                                  " is not defined");
  }
  return CGValue::runtime(v, d);
}

static FailureOr<CGValue> builtinMaximum(CodeGen &cg, CallArgs &call) {
  return maximumMinimum(cg, call, true);
}
static FailureOr<CGValue> builtinMinimum(CodeGen &cg, CallArgs &call) {
  return maximumMinimum(cg, call, false);
}

static FailureOr<CGValue> builtinClamp(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true},
               {"min", true},
               {"max", true},
               {"propagate_nan", false}}))
    return failure();
  CallArgs maxArgs;
  maxArgs.loc = call.loc;
  maxArgs.calleeName = call.calleeName;
  maxArgs.positional = {*a.bound[0], *a.bound[1]};
  FailureOr<CGValue> lower = builtinMaximum(cg, maxArgs);
  if (failed(lower))
    return failure();
  CallArgs minArgs;
  minArgs.loc = call.loc;
  minArgs.calleeName = call.calleeName;
  minArgs.positional = {CallArg{*lower, a.loc(0), "", SMLoc()}, *a.bound[2]};
  return builtinMinimum(cg, minArgs);
}

static FailureOr<CGValue> builtinFma(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"y", true}, {"z", true}}))
    return failure();
  CGValue x = a.value(0), y = a.value(1), z = a.value(2);
  for (CGValue *v : {&x, &y, &z})
    if (v->isRuntime() && v->getDType().isInt()) {
      FailureOr<CGValue> c =
          cg.cast(*v, DType::get(ScalarKind::FP32), call.loc);
      if (failed(c))
        return failure();
      *v = *c;
    } else if (v->isIntLike()) {
      *v = CGValue::floating(static_cast<double>(v->getInt()));
    }
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1), "tl.fma()")))
    return failure();
  if (failed(promotePair(cg, x, z, call.loc, a.loc(0), a.loc(2), "tl.fma()")))
    return failure();
  if (failed(promotePair(cg, y, z, call.loc, a.loc(1), a.loc(2), "tl.fma()")))
    return failure();
  if (failed(cg.broadcastPair(x, y, call.loc, a.loc(0), a.loc(1))))
    return failure();
  if (!x.getDType().isFloat())
    return cg.error(call.loc, "tl.fma() needs floating-point operands");
  return CGValue::runtime(math::FmaOp::create(cg.builder, cg.loc(),
                                              x.getValue(), y.getValue(),
                                              z.getValue()),
                          x.getDType());
}

static FailureOr<CGValue> builtinFdiv(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"y", true}, {"ieee_rounding", false}}))
    return failure();
  return cg.binaryOp(BinaryOp::Div, a.value(0), a.value(1), call.loc, a.loc(0),
                     a.loc(1));
}

/// tl.umulhi: the high half of the unsigned product of two integers (as
/// CUDA's __umulhi), computed in twice the width.
static FailureOr<CGValue> builtinUmulhi(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"y", true}}))
    return failure();
  CGValue x = a.value(0), y = a.value(1);
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1),
                         "tl.umulhi()")))
    return failure();
  DType d = x.getDType();
  if (!d.isScalar() || !d.isInt() || d.isBool())
    return cg.error(call.loc, "tl.umulhi() needs integer operands, got " +
                                  x.describe());
  unsigned width = d.getBitWidth();
  mlir::Type narrow = x.getValue().getType();
  auto constant = [&](int64_t value) -> mlir::Value {
    mlir::Attribute attr = cg.builder.getIntegerAttr(
        tile::getElementTypeOrSelf(narrow), value);
    if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(narrow))
      attr = mlir::DenseElementsAttr::get(tensor, attr);
    return arith::ConstantOp::create(cg.builder, cg.loc(),
                                     llvm::cast<mlir::TypedAttr>(attr));
  };
  if (width == 64) {
    // No wider type: schoolbook on 32-bit halves, every partial product
    // exact in 64 bits (as CUDA's __umul64hi).
    mlir::Location loc = cg.loc();
    mlir::OpBuilder &b = cg.builder;
    mlir::Value c32 = constant(32), lowMask = constant(0xffffffffLL);
    auto lo = [&](mlir::Value v) {
      return arith::AndIOp::create(b, loc, v, lowMask).getResult();
    };
    auto hi = [&](mlir::Value v) {
      return arith::ShRUIOp::create(b, loc, v, c32).getResult();
    };
    auto mul = [&](mlir::Value p, mlir::Value q) {
      return arith::MulIOp::create(b, loc, p, q).getResult();
    };
    auto add = [&](mlir::Value p, mlir::Value q) {
      return arith::AddIOp::create(b, loc, p, q).getResult();
    };
    mlir::Value xl = lo(x.getValue()), xh = hi(x.getValue());
    mlir::Value yl = lo(y.getValue()), yh = hi(y.getValue());
    mlir::Value ll = mul(xl, yl), lh = mul(xl, yh), hl = mul(xh, yl),
                hh = mul(xh, yh);
    mlir::Value mid = add(add(hi(ll), lo(lh)), lo(hl));
    mlir::Value high = add(add(hh, hi(lh)), add(hi(hl), hi(mid)));
    return CGValue::runtime(high, d);
  }
  mlir::Type wideElem = cg.builder.getIntegerType(2 * width);
  mlir::Type wide = wideElem;
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(narrow))
    wide = mlir::RankedTensorType::get(tensor.getShape(), wideElem);
  mlir::Value wx = arith::ExtUIOp::create(cg.builder, cg.loc(), wide,
                                          x.getValue());
  mlir::Value wy = arith::ExtUIOp::create(cg.builder, cg.loc(), wide,
                                          y.getValue());
  mlir::Value product = arith::MulIOp::create(cg.builder, cg.loc(), wx, wy);
  mlir::Attribute shiftAttr = cg.builder.getIntegerAttr(wideElem, width);
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(wide))
    shiftAttr = mlir::DenseElementsAttr::get(tensor, shiftAttr);
  mlir::Value shift = arith::ConstantOp::create(
      cg.builder, cg.loc(), llvm::cast<mlir::TypedAttr>(shiftAttr));
  mlir::Value high =
      arith::ShRUIOp::create(cg.builder, cg.loc(), product, shift);
  return CGValue::runtime(
      arith::TruncIOp::create(cg.builder, cg.loc(), narrow, high), d);
}

/// tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
/// Triton's. The arguments are broadcast to one shape (no type promotion);
/// one result per dtype, a tuple when `dtype` is a tuple.
static FailureOr<CGValue> builtinInlineAsmElementwise(CodeGen &cg,
                                                      CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"asm", true},
               {"constraints", true},
               {"args", true},
               {"dtype", true},
               {"is_pure", true},
               {"pack", true}}))
    return failure();
  // asm and constraints: compile-time strings.
  std::string strings[2];
  for (size_t i : {0, 1}) {
    const CGValue &v = a.value(i);
    if (!v.isStr())
      return cg
          .error(a.loc(i), a.name(i) + " must be a compile-time string, got " +
                               (v.isRuntime() ? "a run-time " : "") +
                               v.describe())
          .constexprHint(v);
    strings[i] = v.getStr().str();
  }
  FailureOr<bool> isPure = a.getBool(4, true);
  if (failed(isPure))
    return failure();
  FailureOr<int64_t> pack = a.getInt(5);
  if (failed(pack))
    return failure();
  if (*pack < 1 || *pack > 1024 || !llvm::isPowerOf2_64(*pack))
    return cg.error(a.loc(5), a.name(5) +
                                  " must be a power of two (at most 1024), "
                                  "got " +
                                  std::to_string(*pack));

  // dtype: one dtype or a tuple of them.
  const CGValue &dtypeArg = a.value(3);
  bool multipleResults = dtypeArg.isTuple();
  llvm::SmallVector<DType> dtypes;
  llvm::SmallVector<CGValue> dtypeValues;
  if (multipleResults)
    dtypeValues.append(dtypeArg.getElements().begin(),
                       dtypeArg.getElements().end());
  else
    dtypeValues.push_back(dtypeArg);
  for (const CGValue &v : dtypeValues) {
    if (!v.isDType() || !v.getDType().isScalar() || v.getDType().isBool())
      return cg.error(a.loc(3), a.name(3) +
                                    " must be a dtype such as tl.int32 (not "
                                    "tl.int1) or a tuple of them, got " +
                                    v.describe());
    dtypes.push_back(v.getDType());
  }
  if (dtypes.empty())
    return cg.error(a.loc(3), a.name(3) + " must name at least one dtype");

  // args: a list or tuple of tiles and numbers, broadcast to one shape.
  const CGValue &argsArg = a.value(2);
  if (!argsArg.isTuple())
    return cg.error(a.loc(2), a.name(2) +
                                  " must be a list or tuple of tiles and "
                                  "scalars, got " +
                                  argsArg.describe());
  llvm::SmallVector<CGValue> args;
  for (const CGValue &v : argsArg.getElements()) {
    if (v.isBlockLike() || (!v.isRuntime() && !v.isNumber()))
      return cg.error(a.loc(2), "the elements of " + a.name(2) +
                                    " must be tiles or scalars, got " +
                                    v.describe());
    FailureOr<CGValue> rt = cg.toRuntime(v, a.loc(2));
    if (failed(rt))
      return failure();
    if (rt->getDType().isBool())
      return cg.error(a.loc(2), "tl.inline_asm_elementwise() does not take "
                                "int1 values (convert them with .to(tl.int8) "
                                "first), got " +
                                    rt->describe());
    args.push_back(*rt);
  }
  llvm::SmallVector<int64_t> shape;
  if (!args.empty()) {
    CGValue common = args.front();
    for (CGValue arg : args)
      if (failed(cg.broadcastPair(arg, common, a.loc(2), a.loc(2), a.loc(2))))
        return failure();
    shape = common.getShape();
    for (CGValue &arg : args) {
      FailureOr<CGValue> b =
          cg.broadcastTo(arg, shape, a.loc(2), "an argument");
      if (failed(b))
        return failure();
      arg = *b;
    }
  }
  int64_t numElements = 1;
  for (int64_t d : shape)
    numElements *= d;
  if (numElements % *pack != 0)
    return cg.error(a.loc(5), a.name(5) + " is " + std::to_string(*pack) +
                                  ", which does not divide the " +
                                  std::to_string(numElements) + " element" +
                                  (numElements == 1 ? "" : "s") +
                                  " of the arguments");

  // The registers the constraints must list (TileOps.td).
  using tile::InlineAsmElementwiseOp;
  auto regs = [&](DType dtype) {
    return InlineAsmElementwiseOp::getNumRegisters(dtype.toMLIR(&cg.context),
                                                   *pack);
  };
  unsigned wantOut = 0, wantIn = 0;
  for (DType dtype : dtypes)
    wantOut += regs(dtype);
  for (const CGValue &arg : args)
    wantIn += regs(arg.getDType());
  auto [out, in] = InlineAsmElementwiseOp::countConstraints(strings[1]);
  if (out != wantOut || in != wantIn)
    return cg.error(a.loc(1),
                    "the constraints list " + std::to_string(out) + " output" +
                        (out == 1 ? "" : "s") + " and " + std::to_string(in) +
                        " input" + (in == 1 ? "" : "s") +
                        ", but with pack=" + std::to_string(*pack) +
                        " the results take " + std::to_string(wantOut) +
                        " register" + (wantOut == 1 ? "" : "s") +
                        " and the arguments " + std::to_string(wantIn) +
                        " (an element narrower than 32 bits shares a "
                        "register with the next ones of its pack)");

  llvm::SmallVector<mlir::Type> resultTypes;
  for (DType dtype : dtypes)
    resultTypes.push_back(cg.getType(dtype, shape));
  llvm::SmallVector<mlir::Value> operands;
  for (const CGValue &arg : args)
    operands.push_back(arg.getValue());
  auto op = InlineAsmElementwiseOp::create(
      cg.builder, cg.loc(), resultTypes, operands, strings[0], strings[1],
      *isPure, static_cast<uint32_t>(*pack));
  if (!multipleResults)
    return CGValue::runtime(op.getResult(0), dtypes.front());
  std::vector<CGValue> results;
  for (auto [result, dtype] : llvm::zip(op.getResults(), dtypes))
    results.push_back(CGValue::runtime(result, dtype));
  return CGValue::tuple(std::move(results));
}

static FailureOr<CGValue> builtinWhere(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"condition", true}, {"x", true}, {"y", true}}))
    return failure();
  const CGValue &condIn = a.value(0);
  CGValue x = a.value(1), y = a.value(2);
  if (condIn.isConstexpr() && !condIn.isNumber())
    return cg.error(a.loc(0), "the condition of tl.where() must be a tile or "
                              "a bool, got " +
                                  condIn.describe());
  FailureOr<CGValue> cond = cg.toBool(condIn, a.loc(0));
  if (failed(cond))
    return failure();
  if (failed(promotePair(cg, x, y, call.loc, a.loc(1), a.loc(2), "tl.where()")))
    return failure();
  CGValue c = *cond;
  if (failed(cg.broadcastPair(c, x, call.loc, a.loc(0), a.loc(1))) ||
      failed(cg.broadcastPair(c, y, call.loc, a.loc(0), a.loc(2))) ||
      failed(cg.broadcastPair(x, y, call.loc, a.loc(1), a.loc(2))))
    return failure();
  return CGValue::runtime(arith::SelectOp::create(cg.builder, cg.loc(),
                                                  c.getValue(), x.getValue(),
                                                  y.getValue()),
                          x.getDType());
}

static FailureOr<CGValue> builtinCdiv(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"div", true}}))
    return failure();
  const CGValue &x = a.value(0), &div = a.value(1);
  // (x + div - 1) // div
  FailureOr<CGValue> sum =
      cg.binaryOp(BinaryOp::Add, x, div, call.loc, a.loc(0), a.loc(1));
  if (failed(sum))
    return failure();
  FailureOr<CGValue> minus1 = cg.binaryOp(
      BinaryOp::Sub, *sum, CGValue::integer(1), call.loc, a.loc(0), a.loc(1));
  if (failed(minus1))
    return failure();
  return cg.binaryOp(BinaryOp::FloorDiv, *minus1, div, call.loc, a.loc(0),
                     a.loc(1));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> builtinReshape(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"can_reorder", false, true}},
              /*withVarargs=*/true))
    return failure();
  FailureOr<CGValue> input = a.getRuntime(0);
  FailureOr<bool> canReorder = a.getBool(1, false);
  FailureOr<llvm::SmallVector<int64_t>> shape = a.getVarargInts("the shape");
  if (failed(input) || failed(canReorder) || failed(shape))
    return failure();
  if (input->isBlockLike())
    return cg.error(a.loc(0), "cannot reshape a block pointer");
  if (failed(checkShape(cg, *shape, call.loc, call.calleeName + "()")))
    return failure();
  int64_t from = 1, to = 1;
  for (int64_t d : input->getShape())
    from *= d;
  for (int64_t d : *shape)
    to *= d;
  if (from != to)
    return cg.error(call.loc, "cannot reshape " + input->describe() + " (" +
                                  std::to_string(from) + " elements) to " +
                                  shapeToString(*shape) + " (" +
                                  std::to_string(to) + " elements)");
  if (shape->empty()) {
    if (!input->isTile())
      return *input;
    return cg.error(call.loc, "reshaping a tile to a scalar is not supported");
  }
  return cg.reshape(*input, *shape, *canReorder);
}

static FailureOr<CGValue> transLike(CodeGen &cg, CallArgs &call,
                                    bool requireDims) {
  Args a(cg, call);
  if (!a.bind({{"input", true}}, /*withVarargs=*/true))
    return failure();
  FailureOr<CGValue> input = a.getTile(0);
  FailureOr<llvm::SmallVector<int64_t>> dims = a.getVarargInts("the dims");
  if (failed(input) || failed(dims))
    return failure();
  llvm::SmallVector<int64_t> shape = input->getShape();
  int64_t rank = static_cast<int64_t>(shape.size());
  if (dims->empty()) {
    if (requireDims)
      return cg.error(call.loc, call.calleeName + "() needs the permutation "
                                                  "of the dimensions");
    if (rank != 2)
      return cg.error(call.loc, call.calleeName +
                                    "() without dims needs a 2-d tile, got " +
                                    input->describe());
    *dims = {1, 0};
  }
  if (static_cast<int64_t>(dims->size()) != rank)
    return cg.error(call.loc, call.calleeName +
                                  "(): " + std::to_string(dims->size()) +
                                  " dims given for " + input->describe());
  llvm::SmallVector<int64_t> sorted(*dims);
  llvm::sort(sorted);
  for (int64_t i = 0; i < rank; ++i)
    if (sorted[i] != i)
      return cg.error(call.loc, call.calleeName +
                                    "(): the dims must be a permutation of "
                                    "0.." +
                                    std::to_string(rank - 1));
  llvm::SmallVector<int64_t> outShape;
  llvm::SmallVector<int32_t> order;
  for (int64_t d : *dims) {
    outShape.push_back(shape[d]);
    order.push_back(static_cast<int32_t>(d));
  }
  bool identity = llvm::all_of(llvm::seq<int64_t>(0, rank),
                               [&](int64_t i) { return (*dims)[i] == i; });
  if (identity)
    return *input;
  mlir::Value v = tile::TransOp::create(cg.builder, cg.loc(),
                                        cg.getType(input->getDType(), outShape),
                                        input->getValue(), order);
  return CGValue::runtime(v, input->getDType());
}

static FailureOr<CGValue> builtinTrans(CodeGen &cg, CallArgs &call) {
  return transLike(cg, call, false);
}
static FailureOr<CGValue> builtinPermute(CodeGen &cg, CallArgs &call) {
  return transLike(cg, call, true);
}

static FailureOr<CGValue> builtinExpandDims(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"axis", true}}))
    return failure();
  FailureOr<CGValue> input = a.getRuntime(0);
  FailureOr<llvm::SmallVector<int64_t>> axes = a.getIntList(1);
  if (failed(input) || failed(axes))
    return failure();
  int64_t newRank =
      static_cast<int64_t>(input->getShape().size() + axes->size());
  llvm::SmallVector<int64_t> normalized;
  for (int64_t axis : *axes) {
    int64_t ax = axis < 0 ? axis + newRank : axis;
    if (ax < 0 || ax >= newRank)
      return cg.error(a.loc(1), "axis " + std::to_string(axis) +
                                    " is out of range for the result of rank " +
                                    std::to_string(newRank));
    if (llvm::is_contained(normalized, ax))
      return cg.error(a.loc(1),
                      "axis " + std::to_string(axis) + " is given twice");
    normalized.push_back(ax);
  }
  llvm::sort(normalized);
  CGValue result = *input;
  for (int64_t ax : normalized)
    result = cg.expandDims(result, ax);
  return result;
}

static FailureOr<CGValue> builtinBroadcastTo(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}}, /*withVarargs=*/true))
    return failure();
  FailureOr<CGValue> input = a.getRuntime(0);
  FailureOr<llvm::SmallVector<int64_t>> shape = a.getVarargInts("the shape");
  if (failed(input) || failed(shape))
    return failure();
  if (failed(checkShape(cg, *shape, call.loc, call.calleeName + "()")))
    return failure();
  return cg.broadcastTo(*input, *shape, call.loc, "the input");
}

static FailureOr<CGValue> builtinBroadcast(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"other", true}}))
    return failure();
  FailureOr<CGValue> x = a.getRuntime(0), y = a.getRuntime(1);
  if (failed(x) || failed(y))
    return failure();
  CGValue l = *x, r = *y;
  if (failed(cg.broadcastPair(l, r, call.loc, a.loc(0), a.loc(1))))
    return failure();
  return CGValue::tuple({l, r});
}

static FailureOr<CGValue> builtinAssume(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"cond", true}}))
    return failure();
  const CGValue &cond = a.value(0);
  if (cond.isConstexpr() && !cond.isTruthy())
    return cg.error(a.loc(0), "tl.assume() of a condition that is false at "
                              "compile time");
  if (cond.isRuntime() && (cond.isTile() || !cond.getDType().isBool()))
    return cg.error(a.loc(0), "tl.assume() needs a boolean scalar, got " +
                                  cond.describe());
  // A promise the analyses may rely on (tile.assume).
  if (cond.isRuntime())
    tile::AssumeOp::create(cg.builder, cg.loc(), cond.getValue());
  return CGValue::none();
}

static FailureOr<CGValue> builtinHint(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true}, {"values", true}}))
    return failure();
  FailureOr<CGValue> input = a.getRuntime(0);
  if (failed(input))
    return failure();
  // As in Triton: one positive compile-time integer per dimension (one for
  // a scalar).
  FailureOr<llvm::SmallVector<int64_t>> values = a.getIntList(1);
  if (failed(values))
    return failure();
  size_t rank = std::max<size_t>(1, input->getShape().size());
  if (values->size() != rank)
    return cg.error(a.loc(1), a.name(1) + " has " +
                                  std::to_string(values->size()) +
                                  " values but the input " +
                                  input->describe() + " needs " +
                                  std::to_string(rank) +
                                  " (one per dimension)");
  for (auto [i, v] : llvm::enumerate(*values))
    if (v <= 0)
      return cg.error(a.loc(1), "value " + std::to_string(i) + " of " +
                                    a.name(1) + " must be positive, got " +
                                    std::to_string(v));
  // Alignment hints: checked, not used yet (the axis analysis infers).
  return *input;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// `x.to(dtype, fp_downcast_rounding="rtz")` for a float to a narrower
/// float (fp16, bf16, fp32): the conversion to nearest even, then one unit
/// toward zero wherever that rounded away from zero (|r| > |x|, compared
/// exactly in x's type). An overflow to infinity becomes the largest
/// finite value; NaN and infinities stay. Built from ordinary ops, so it
/// means the same on every backend.
static FailureOr<CGValue> castTowardZero(CodeGen &cg, const CGValue &x,
                                         DType dtype, SMLoc loc) {
  FailureOr<CGValue> rounded = cg.cast(x, dtype, loc);
  if (failed(rounded))
    return failure();
  FailureOr<CGValue> widened = cg.cast(*rounded, x.getDType(), loc);
  if (failed(widened))
    return failure();
  auto call1 = [&](StringRef name, const CGValue &arg) {
    CallArgs args;
    args.loc = loc;
    args.calleeName = name.str();
    args.positional.push_back(CallArg{arg, loc, "", SMLoc()});
    return cg.callBuiltin(name, args);
  };
  FailureOr<CGValue> absRounded = call1("tl.abs", *widened);
  FailureOr<CGValue> absX = call1("tl.abs", x);
  if (failed(absRounded) || failed(absX))
    return failure();
  FailureOr<CGValue> away =
      cg.compareOp(CmpOp::Gt, *absRounded, *absX, loc, loc, loc);
  DType bitsType = DType::get(dtype.getBitWidth() == 16 ? ScalarKind::Int16
                                                        : ScalarKind::Int32);
  FailureOr<CGValue> bits = cg.cast(*rounded, bitsType, loc, /*bitcast=*/true);
  if (failed(away) || failed(bits))
    return failure();
  // Sign and magnitude: one less in the magnitude bits is one unit toward
  // zero (r is never +-0 here: |r| > |x| >= 0).
  FailureOr<CGValue> stepped = cg.binaryOp(
      BinaryOp::Sub, *bits, CGValue::integer(1), loc, loc, loc);
  if (failed(stepped))
    return failure();
  CallArgs whereArgs;
  whereArgs.loc = loc;
  whereArgs.calleeName = "tl.where";
  whereArgs.positional = {CallArg{*away, loc, "", SMLoc()},
                          CallArg{*stepped, loc, "", SMLoc()},
                          CallArg{*bits, loc, "", SMLoc()}};
  FailureOr<CGValue> result = cg.callBuiltin("tl.where", whereArgs);
  if (failed(result))
    return failure();
  return cg.cast(*result, dtype, loc, /*bitcast=*/true);
}

static FailureOr<CGValue> castLike(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"dtype", true},
               {"fp_downcast_rounding", false},
               {"bitcast", false}}))
    return failure();
  FailureOr<DType> dtype = a.getDType(1);
  FailureOr<bool> bitcast = a.getBool(3, false);
  if (failed(dtype) || failed(bitcast))
    return failure();
  std::optional<std::string> rounding;
  if (a.has(2)) {
    FailureOr<std::string> r = a.getStr(2, "");
    if (failed(r))
      return failure();
    if (*r != "rtne" && *r != "rtz")
      return cg.error(a.loc(2), "fp_downcast_rounding must be 'rtne' or "
                                "'rtz', got '" +
                                    *r + "'");
    rounding = *r;
  }
  const CGValue &input = a.value(0);
  if (input.isNumber() && !rounding)
    return cg.makeConstant(input, *dtype);
  FailureOr<CGValue> x = a.getRuntime(0);
  if (failed(x))
    return failure();
  if (rounding) {
    // As in Triton: only a floating-point conversion to fewer bits rounds.
    DType from = x->getDType();
    if (*bitcast || !from.isFloat() || !dtype->isFloat() ||
        from.getBitWidth() <= dtype->getBitWidth())
      return cg.error(a.loc(2), "fp_downcast_rounding applies only to a "
                                "conversion from a floating-point type to a "
                                "narrower one, not from " +
                                    from.str() + " to " +
                                    dtype->str() +
                                    (*bitcast ? " (a bitcast)" : ""));
    if (*rounding == "rtz") {
      if (dtype->getBitWidth() < 16)
        return cg.error(a.loc(2), "fp_downcast_rounding='rtz' to " +
                                      dtype->str() +
                                      " is not supported (fp16, bf16 and "
                                      "fp32 results are)");
      return castTowardZero(cg, *x, *dtype, call.loc);
    }
  }
  return cg.cast(*x, *dtype, call.loc, *bitcast);
}

static FailureOr<CGValue> builtinPointerType(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"element_ty", true}, {"address_space", false}}))
    return failure();
  FailureOr<DType> d = a.getDType(0);
  if (failed(d))
    return failure();
  if (!d->isScalar())
    return cg.error(a.loc(0), "pointers to pointers are not supported");
  if (a.has(1)) {
    FailureOr<int64_t> space = a.getInt(1);
    if (failed(space))
      return failure();
    if (*space != 1)
      return cg.error(a.loc(1), "only address space 1 (global memory) is "
                                "supported");
  }
  return CGValue::dtypeObject(DType::pointer(d->getScalar()));
}

static FailureOr<CGValue> builtinConstexpr(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"value", true}}))
    return failure();
  if (a.value(0).isRuntime())
    return cg.error(a.loc(0), "tl.constexpr() needs a compile-time value, got "
                              "a run-time " +
                                  a.value(0).describe());
  return a.value(0);
}

//===----------------------------------------------------------------------===//
// Compile-time helpers
//===----------------------------------------------------------------------===//

static FailureOr<CGValue> builtinStaticAssert(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"cond", true}, {"msg", false}}))
    return failure();
  const CGValue &cond = a.value(0);
  if (cond.isRuntime())
    return cg
        .error(a.loc(0), "tl.static_assert() needs a compile-time "
                         "condition, got a run-time " +
                             cond.describe() + getAssignedNumberHint(cond))
        .constexprHint(cond);
  if (cond.isTruthy())
    return CGValue::none();
  std::string message = "static assertion failed";
  if (a.has(1))
    message += ": " + a.value(1).str();
  return cg.error(a.loc(0), message);
}

static FailureOr<CGValue> builtinStaticPrint(CodeGen &cg, CallArgs &call) {
  std::string text;
  for (const CallArg &arg : call.positional) {
    if (!text.empty())
      text += " ";
    text += arg.value.str();
  }
  cg.diags.report(DiagSeverity::Remark, call.loc, text);
  return CGValue::none();
}

static FailureOr<CGValue> builtinRangeOutsideFor(CodeGen &cg, CallArgs &call) {
  return cg.error(call.loc, call.calleeName +
                                "() can only be used as the iterable of a "
                                "'for' loop");
}

static FailureOr<CGValue> builtinUnsupported(CodeGen &cg, CallArgs &call) {
  return cg.error(call.loc,
                  call.calleeName + "() is not supported by tilec yet");
}

static FailureOr<CGValue> builtinNotInKernel(CodeGen &cg, CallArgs &call) {
  return cg.error(call.loc, call.calleeName +
                                "() is host-side Triton API and cannot be "
                                "called in a kernel");
}

/// `tl.tensor`, `tl.tensor_descriptor`, `tl.dtype`: types, for isinstance().
static FailureOr<CGValue> builtinTypeOnly(CodeGen &cg, CallArgs &call) {
  return cg.error(call.loc, call.calleeName +
                                " is a type; in a kernel it can only be "
                                "tested with isinstance()");
}

//===----------------------------------------------------------------------===//
// Python builtins
//===----------------------------------------------------------------------===//

/// isinstance(obj, T) or isinstance(obj, (T, ...)), decided at compile time
/// (every value's kind is known then): `tl.tensor` is a run-time value
/// (tile, scalar, pointer, block pointer), `tl.tensor_descriptor` a tensor
/// descriptor, `tl.constexpr` a compile-time value, `tl.dtype` a dtype;
/// Python's `int` (booleans included), `bool`, `float`, `str`, `tuple` and
/// `list` test compile-time values. The result is a compile-time bool, so
/// `if isinstance(...)` compiles one branch only.
static FailureOr<CGValue> builtinIsinstance(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"obj", true}, {"class_or_tuple", true}}))
    return failure();
  const CGValue &v = a.value(0);
  const CGValue &types = a.value(1);
  std::vector<CGValue> classes;
  if (types.isTuple())
    classes.assign(types.getElements().begin(), types.getElements().end());
  else
    classes.push_back(types);
  bool result = false;
  for (const CGValue &c : classes) {
    StringRef name = c.isBuiltin() ? c.getName() : "";
    std::optional<bool> match =
        llvm::StringSwitch<std::optional<bool>>(name)
            .Case("tl.tensor", v.isRuntime() && !v.isTensorDescriptor())
            .Case("tl.tensor_descriptor", v.isTensorDescriptor())
            .Case("tl.constexpr", v.isConstexpr())
            .Case("tl.dtype", v.isDType())
            .Case("int", v.isIntLike())
            .Case("bool", v.isBool())
            .Case("float", v.isFloat())
            .Case("str", v.isStr())
            .Cases("tuple", "list", v.isTuple())
            .Default(std::nullopt);
    if (!match)
      return cg.error(a.loc(1),
                      "isinstance() in a kernel tests for tl.tensor, "
                      "tl.tensor_descriptor, tl.constexpr, tl.dtype, int, "
                      "bool, float, str, tuple or list, not " +
                          c.describe());
    result |= *match;
  }
  return CGValue::boolean(result);
}

static FailureOr<CGValue> builtinLen(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"obj", true}}))
    return failure();
  const CGValue &v = a.value(0);
  if (v.isTuple())
    return CGValue::integer(static_cast<int64_t>(v.getElements().size()));
  if (v.isStr())
    return CGValue::integer(static_cast<int64_t>(v.getStr().size()));
  if (v.isTile())
    return CGValue::integer(v.getShape().front());
  return cg.error(a.loc(0), "len() of " + v.describe() + " is not defined");
}

static FailureOr<CGValue> pyMinMax(CodeGen &cg, CallArgs &call, bool isMax) {
  llvm::SmallVector<CallArg> items;
  if (call.positional.size() == 1 && call.positional[0].value.isTuple()) {
    for (const CGValue &v : call.positional[0].value.getElements())
      items.push_back({v, call.positional[0].loc, "", SMLoc()});
  } else {
    items.append(call.positional.begin(), call.positional.end());
  }
  if (!call.keywords.empty())
    return cg.error(call.keywords.front().keywordLoc,
                    call.calleeName + "() takes no keyword arguments here");
  if (items.empty())
    return cg.error(call.loc, call.calleeName + "() needs at least one value");
  CGValue result = items.front().value;
  for (size_t i = 1; i < items.size(); ++i) {
    const CGValue &v = items[i].value;
    if (result.isNumber() && v.isNumber()) {
      bool better = isMax ? v.getNumber() > result.getNumber()
                          : v.getNumber() < result.getNumber();
      if (better)
        result = v;
      continue;
    }
    CallArgs pair;
    pair.loc = call.loc;
    pair.calleeName = call.calleeName;
    pair.positional = {CallArg{result, items[0].loc, "", SMLoc()}, items[i]};
    FailureOr<CGValue> r = maximumMinimum(cg, pair, isMax);
    if (failed(r))
      return failure();
    result = *r;
  }
  return result;
}

static FailureOr<CGValue> builtinPyMin(CodeGen &cg, CallArgs &call) {
  return pyMinMax(cg, call, false);
}
static FailureOr<CGValue> builtinPyMax(CodeGen &cg, CallArgs &call) {
  return pyMinMax(cg, call, true);
}

static FailureOr<CGValue> builtinPyInt(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", false}}))
    return failure();
  if (!a.has(0))
    return CGValue::integer(0);
  const CGValue &v = a.value(0);
  if (v.isIntLike())
    return CGValue::integer(v.getInt());
  if (v.isFloat()) {
    double f = std::trunc(v.getFloat());
    if (!std::isfinite(f) || f < -9.2e18 || f > 9.2e18)
      return cg.error(a.loc(0), "int() of " + v.repr() +
                                    " does not fit in 64 "
                                    "bits");
    return CGValue::integer(static_cast<int64_t>(f));
  }
  if (v.isStr()) {
    int64_t result;
    if (!v.getStr().trim().getAsInteger(10, result))
      return CGValue::integer(result);
  }
  if (v.isRuntime())
    return cg.error(a.loc(0), "int() of a run-time value is not supported; "
                              "use x.to(tl.int32)");
  return cg.error(a.loc(0), "int() of " + v.describe() + " is not defined");
}

static FailureOr<CGValue> builtinPyFloat(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", false}}))
    return failure();
  if (!a.has(0))
    return CGValue::floating(0.0);
  const CGValue &v = a.value(0);
  if (v.isNumber())
    return CGValue::floating(v.getNumber());
  if (v.isStr()) {
    std::string s = v.getStr().trim().lower();
    bool negative = false;
    StringRef t(s);
    if (t.consume_front("-"))
      negative = true;
    else
      t.consume_front("+");
    double result;
    if (t == "inf" || t == "infinity")
      result = std::numeric_limits<double>::infinity();
    else if (t == "nan")
      result = std::numeric_limits<double>::quiet_NaN();
    else if (t.getAsDouble(result))
      return cg.error(a.loc(0), "could not convert the string '" + v.getStr() +
                                    "' to float");
    return CGValue::floating(negative ? -result : result);
  }
  if (v.isRuntime())
    return cg.error(a.loc(0), "float() of a run-time value is not supported; "
                              "use x.to(tl.float32)");
  return cg.error(a.loc(0), "float() of " + v.describe() + " is not defined");
}

static FailureOr<CGValue> builtinPyBool(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", false}}))
    return failure();
  if (!a.has(0))
    return CGValue::boolean(false);
  const CGValue &v = a.value(0);
  if (v.isRuntime())
    return cg.error(a.loc(0), "bool() of a run-time value is not supported; "
                              "compare it (x != 0)");
  return CGValue::boolean(v.isTruthy());
}

static FailureOr<CGValue> builtinPyTuple(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"iterable", false}}))
    return failure();
  if (!a.has(0))
    return CGValue::tuple({});
  if (a.value(0).isTuple())
    return a.value(0);
  return cg.error(a.loc(0), call.calleeName + "() of " + a.value(0).describe() +
                                " is not supported");
}

static FailureOr<CGValue> builtinNextPowerOf2(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"n", true}}))
    return failure();
  FailureOr<int64_t> n = a.getInt(0);
  if (failed(n))
    return failure();
  int64_t p = 1;
  while (p < *n) {
    if (p > (INT64_MAX >> 1))
      return cg.error(a.loc(0), "next_power_of_2() overflows");
    p <<= 1;
  }
  return CGValue::integer(p);
}

/// Python's `math` functions on compile-time numbers.
static FailureOr<CGValue> pyMath(CodeGen &cg, CallArgs &call,
                                 double (*fn)(double), bool toInt) {
  Args a(cg, call);
  if (!a.bind({{"x", true}}))
    return failure();
  const CGValue &v = a.value(0);
  if (!v.isNumber())
    return cg.error(a.loc(0),
                    call.calleeName +
                        "() needs a compile-time "
                        "number, got " +
                        v.describe() +
                        (v.isRuntime() ? "; use tl.math for tiles" : ""));
  double r = fn(v.getNumber());
  if (toInt) {
    if (!std::isfinite(r) || std::fabs(r) > 9.2e18)
      return cg.error(a.loc(0), call.calleeName + "() result does not fit in "
                                                  "64 bits");
    return CGValue::integer(static_cast<int64_t>(r));
  }
  return CGValue::floating(r);
}

#define PY_MATH(NAME, FN, TOINT)                                               \
  static FailureOr<CGValue> NAME(CodeGen &cg, CallArgs &call) {                \
    return pyMath(                                                             \
        cg, call, [](double x) { return FN(x); }, TOINT);                      \
  }
PY_MATH(builtinMathLog, std::log, false)
PY_MATH(builtinMathLog2, std::log2, false)
PY_MATH(builtinMathLog10, std::log10, false)
PY_MATH(builtinMathExp, std::exp, false)
PY_MATH(builtinMathSqrt, std::sqrt, false)
PY_MATH(builtinMathFabs, std::fabs, false)
PY_MATH(builtinMathCeil, std::ceil, true)
PY_MATH(builtinMathFloor, std::floor, true)
#undef PY_MATH

//===----------------------------------------------------------------------===//
// pow, join/split/interleave/cat, flip, scans
//===----------------------------------------------------------------------===//
//
// These are built from ops both backends already lower (element-wise
// arith/math, tile.make_range, tile.broadcast, tile.reshape, tile.reduce):
// no new tile op. join and cat select between two broadcast copies; split,
// flip and the scans are "flagged" reductions over a tile one dimension
// larger: out[..., i, ...] combines the x[..., j, ...] whose flag(i, j) is
// set (split: j == k, flip: j == N-1-i, scans: j <= i or j >= i). That is
// O(N) work per output element along the axis (N x numel in all): fine
// for the block sizes kernels use, and bounded by the tile size limit.

/// tl.pow(x, y) (tl.math.pow, libdevice.pow): math.powf in the promoted
/// floating-point type (CUDA's libdevice on the GPU, libm on the CPU).
static FailureOr<CGValue> builtinPow(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"y", true}}))
    return failure();
  CGValue x = a.value(0), y = a.value(1);
  for (CGValue *v : {&x, &y})
    if (v->isRuntime() && v->getDType().isInt()) {
      FailureOr<CGValue> c =
          cg.cast(*v, DType::get(ScalarKind::FP32), call.loc);
      if (failed(c))
        return failure();
      *v = *c;
    } else if (v->isIntLike()) {
      *v = CGValue::floating(static_cast<double>(v->getInt()));
    }
  if (x.isNumber() && y.isNumber())
    return CGValue::floating(std::pow(x.getNumber(), y.getNumber()));
  if (failed(promotePair(cg, x, y, call.loc, a.loc(0), a.loc(1), "tl.pow()")))
    return failure();
  if (failed(cg.broadcastPair(x, y, call.loc, a.loc(0), a.loc(1))))
    return failure();
  if (!x.getDType().isFloat() || x.getDType().isPointer())
    return cg.error(call.loc, "tl.pow() needs floating-point operands, got " +
                                  x.describe());
  return CGValue::runtime(math::PowFOp::create(cg.builder, cg.loc(),
                                               x.getValue(), y.getValue()),
                          x.getDType());
}

/// An int32 tile of `shape` whose value is the index along `axis`.
static FailureOr<CGValue> indexAlong(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                                     int64_t axis, SMLoc loc) {
  int64_t n = shape[axis];
  auto type = mlir::RankedTensorType::get({n}, cg.builder.getI32Type());
  mlir::Value r = tile::MakeRangeOp::create(cg.builder, cg.loc(), type,
                                            cg.builder.getI32IntegerAttr(0),
                                            cg.builder.getI32IntegerAttr(n));
  CGValue v = CGValue::runtime(r, DType::get(ScalarKind::Int32));
  if (shape.size() > 1) {
    llvm::SmallVector<int64_t> s(shape.size(), 1);
    s[axis] = n;
    v = cg.reshape(v, s, /*allowReorder=*/false);
  }
  return cg.broadcastTo(v, shape, loc, "index");
}

/// `cond ? a : b` on run-time values of one type and shape.
static CGValue selectValues(CodeGen &cg, const CGValue &cond,
                            const CGValue &a, const CGValue &b) {
  return CGValue::runtime(arith::SelectOp::create(cg.builder, cg.loc(),
                                                  cond.getValue(),
                                                  a.getValue(), b.getValue()),
                          a.getDType());
}

/// The two operands of join/cat: run-time values of one dtype and shape.
static LogicalResult joinOperands(CodeGen &cg, Args &a, CGValue &x,
                                  CGValue &y, StringRef what) {
  FailureOr<CGValue> rx = a.getRuntime(0), ry = a.getRuntime(1);
  if (failed(rx) || failed(ry))
    return failure();
  x = *rx;
  y = *ry;
  if (x.getDType() != y.getDType())
    return cg.error(a.call.loc, what.str() + " needs two values of one "
                                             "dtype, got " +
                                    x.describe() + " and " + y.describe())
        .note(a.loc(0), "the first is " + x.describe())
        .note(a.loc(1), "the second is " + y.describe());
  return cg.broadcastPair(x, y, a.call.loc, a.loc(0), a.loc(1));
}

/// x and y stacked along a new axis `axis` of size 2 (x first).
static FailureOr<CGValue> stack(CodeGen &cg, const CGValue &x,
                                const CGValue &y, int64_t axis, SMLoc loc) {
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin() + axis, 2);
  if (failed(checkShape(cg, shape, loc, "the joined tile")))
    return failure();
  FailureOr<CGValue> ex = cg.broadcastTo(cg.expandDims(x, axis), shape, loc,
                                         "the first operand");
  FailureOr<CGValue> ey = cg.broadcastTo(cg.expandDims(y, axis), shape, loc,
                                         "the second operand");
  FailureOr<CGValue> index = indexAlong(cg, shape, axis, loc);
  if (failed(ex) || failed(ey) || failed(index))
    return failure();
  FailureOr<CGValue> first = cg.compareOp(CmpOp::Eq, *index,
                                          CGValue::integer(0), loc, loc, loc);
  if (failed(first))
    return failure();
  return selectValues(cg, *first, *ex, *ey);
}

/// tl.join(a, b): a new minor dimension of size 2, a at index 0.
static FailureOr<CGValue> builtinJoin(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"a", true}, {"b", true}}))
    return failure();
  CGValue x, y;
  if (failed(joinOperands(cg, a, x, y, "tl.join()")))
    return failure();
  return stack(cg, x, y, static_cast<int64_t>(x.getShape().size()), call.loc);
}

/// tl.interleave(a, b): join, then the last two dimensions merged.
static FailureOr<CGValue> builtinInterleave(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"a", true}, {"b", true}}))
    return failure();
  CGValue x, y;
  if (failed(joinOperands(cg, a, x, y, "tl.interleave()")))
    return failure();
  int64_t rank = static_cast<int64_t>(x.getShape().size());
  FailureOr<CGValue> c = stack(cg, x, y, rank, call.loc);
  if (failed(c) || rank == 0)
    return c;
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape.back() *= 2;
  return cg.reshape(*c, shape, /*allowReorder=*/false);
}

/// tl.cat(a, b, can_reorder=False, dim=0): a then b along `dim` (tilec
/// keeps the order, which satisfies can_reorder=True as well).
static FailureOr<CGValue> builtinCat(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"other", true},
               {"can_reorder", false},
               {"dim", false}}))
    return failure();
  FailureOr<bool> canReorder = a.getBool(2, false);
  if (failed(canReorder))
    return failure();
  CGValue x, y;
  if (failed(joinOperands(cg, a, x, y, "tl.cat()")))
    return failure();
  int64_t rank = static_cast<int64_t>(x.getShape().size());
  if (rank == 0)
    return cg.error(call.loc, "tl.cat() needs tiles, got " + x.describe() +
                                  " (use tl.join for scalars)");
  int64_t dim = 0;
  if (a.has(3)) {
    FailureOr<int64_t> d = a.getInt(3);
    if (failed(d))
      return failure();
    dim = *d < 0 ? *d + rank : *d;
    if (dim < 0 || dim >= rank)
      return cg.error(a.loc(3), "dim " + std::to_string(*d) +
                                    " is out of range for a tile of rank " +
                                    std::to_string(rank));
  }
  FailureOr<CGValue> c = stack(cg, x, y, dim, call.loc);
  if (failed(c))
    return failure();
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape[dim] *= 2;
  return cg.reshape(*c, shape, /*allowReorder=*/false);
}

using ValuesCombine = llvm::function_ref<FailureOr<llvm::SmallVector<CGValue>>(
    llvm::ArrayRef<CGValue>, llvm::ArrayRef<CGValue>)>;

/// Reduces `values` (one shape) along `axis` over the elements whose
/// `flag` (i1, same shape) is set. `combine` combines two sets of values;
/// without it, any flagged element is picked (one is flagged).
static FailureOr<llvm::SmallVector<CGValue>>
flaggedReduce(CodeGen &cg, SMLoc loc, llvm::ArrayRef<CGValue> values,
              const CGValue &flag, int64_t axis, ValuesCombine combine) {
  llvm::SmallVector<CGValue> srcs{flag};
  srcs.append(values.begin(), values.end());
  bool hasCombine = static_cast<bool>(combine);
  FailureOr<llvm::SmallVector<CGValue>> results = cg.reduce(
      srcs, std::optional<int64_t>(axis), false, loc, loc,
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs)
          -> FailureOr<llvm::SmallVector<CGValue>> {
        mlir::Value fl = lhs[0].getValue(), fr = rhs[0].getValue();
        llvm::SmallVector<CGValue> out{CGValue::runtime(
            arith::OrIOp::create(cg.builder, cg.loc(), fl, fr),
            DType::get(ScalarKind::Int1))};
        llvm::ArrayRef<CGValue> lv = lhs.drop_front(), rv = rhs.drop_front();
        llvm::SmallVector<CGValue> both;
        mlir::Value bothFlags;
        if (hasCombine) {
          FailureOr<llvm::SmallVector<CGValue>> c = combine(lv, rv);
          if (failed(c))
            return failure();
          if (c->size() != lv.size())
            return cg.error(loc, "the combine function must return " +
                                     std::to_string(lv.size()) + " value" +
                                     (lv.size() == 1 ? "" : "s") +
                                     ", but it returns " +
                                     std::to_string(c->size()));
          for (size_t k = 0; k < lv.size(); ++k) {
            CGValue v = (*c)[k];
            DType d = lv[k].getDType();
            if (v.isNumber())
              v = cg.makeConstant(v, d);
            if (!v.isRuntime() || v.isTile())
              return cg.error(loc, "the combine function must return "
                                   "scalars, but result " +
                                       std::to_string(k) + " is " +
                                       v.describe());
            if (v.getDType() != d) {
              FailureOr<CGValue> cv = cg.cast(v, d, loc);
              if (failed(cv))
                return failure();
              v = *cv;
            }
            both.push_back(v);
          }
          bothFlags = arith::AndIOp::create(cg.builder, cg.loc(), fl, fr);
        }
        for (size_t k = 0; k < lv.size(); ++k) {
          mlir::Value pick = arith::SelectOp::create(
              cg.builder, cg.loc(), fl, lv[k].getValue(), rv[k].getValue());
          if (hasCombine)
            pick = arith::SelectOp::create(cg.builder, cg.loc(), bothFlags,
                                           both[k].getValue(), pick);
          out.push_back(CGValue::runtime(pick, lv[k].getDType()));
        }
        return out;
      });
  if (failed(results))
    return failure();
  results->erase(results->begin());
  return results;
}

/// The flag tile of shape `shape` (the source shape with the partner axis
/// inserted after `axis`): flag(i, j) for i along `axis`, j along axis+1.
static FailureOr<CGValue> pairFlag(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                                   int64_t axis, SMLoc loc,
                                   llvm::function_ref<FailureOr<CGValue>(
                                       const CGValue &, const CGValue &)>
                                       relation) {
  FailureOr<CGValue> i = indexAlong(cg, shape, axis, loc);
  FailureOr<CGValue> j = indexAlong(cg, shape, axis + 1, loc);
  if (failed(i) || failed(j))
    return failure();
  return relation(*i, *j);
}

/// `x` (shape S) with a partner axis of size S[axis] inserted after
/// `axis`, each x[..., j, ...] repeated along the new axis `axis`.
static FailureOr<CGValue> spreadAlong(CodeGen &cg, const CGValue &x,
                                      int64_t axis, SMLoc loc,
                                      StringRef what) {
  llvm::SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin() + axis, shape[axis]);
  if (failed(checkShape(cg, shape, loc,
                        what.str() + " works on an N x N intermediate "
                                     "along the axis (tilec has no native "
                                     "scan yet)")))
    return failure();
  return cg.broadcastTo(cg.expandDims(x, axis), shape, loc, "the input");
}

/// A normalized axis argument of a tile of rank `rank`.
static FailureOr<int64_t> axisArg(CodeGen &cg, Args &a, size_t i,
                                  int64_t rank, int64_t dflt) {
  int64_t axis = dflt;
  if (a.has(i)) {
    FailureOr<int64_t> v = a.getInt(i);
    if (failed(v))
      return failure();
    axis = *v;
  }
  if (axis < -rank || axis >= rank)
    return cg.error(a.loc(i), a.name(i) + " is " + std::to_string(axis) +
                                  ", out of range for a tile of rank " +
                                  std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

/// tl.split(a): the two halves of a tile whose last dimension is 2.
static FailureOr<CGValue> builtinSplit(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"a", true}}))
    return failure();
  FailureOr<CGValue> x = a.getTile(0);
  if (failed(x))
    return failure();
  llvm::SmallVector<int64_t> shape(x->getShape());
  if (shape.back() != 2)
    return cg.error(a.loc(0), "tl.split() needs a tile whose last dimension "
                              "is 2, got " +
                                  x->describe());
  if (x->getDType().isPointer())
    return cg.error(a.loc(0), "tl.split() of pointer tiles is not supported "
                              "by tilec yet");
  int64_t last = static_cast<int64_t>(shape.size()) - 1;
  FailureOr<CGValue> index = indexAlong(cg, shape, last, call.loc);
  if (failed(index))
    return failure();
  std::vector<CGValue> halves;
  for (int64_t k = 0; k < 2; ++k) {
    FailureOr<CGValue> flag = cg.compareOp(
        CmpOp::Eq, *index, CGValue::integer(k), call.loc, call.loc, call.loc);
    if (failed(flag))
      return failure();
    FailureOr<llvm::SmallVector<CGValue>> r =
        flaggedReduce(cg, call.loc, {*x}, *flag, last, nullptr);
    if (failed(r))
      return failure();
    halves.push_back(r->front());
  }
  return CGValue::tuple(std::move(halves));
}

/// tl.flip(x, dim=None): reversed along `dim` (default the last), whose
/// size must be a power of two (as in Triton).
static FailureOr<CGValue> builtinFlip(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"x", true}, {"dim", false}}))
    return failure();
  FailureOr<CGValue> x = a.getTile(0);
  if (failed(x))
    return failure();
  int64_t rank = static_cast<int64_t>(x->getShape().size());
  FailureOr<int64_t> dim = axisArg(cg, a, 1, rank, rank - 1);
  if (failed(dim))
    return failure();
  if (x->getDType().isPointer())
    return cg.error(a.loc(0), "tl.flip() of pointer tiles is not supported "
                              "by tilec yet");
  int64_t n = x->getShape()[*dim];
  if (n == 1)
    return *x;
  FailureOr<CGValue> spread = spreadAlong(cg, *x, *dim, call.loc, "tl.flip()");
  if (failed(spread))
    return failure();
  FailureOr<CGValue> flag = pairFlag(
      cg, spread->getShape(), *dim, call.loc,
      [&](const CGValue &i, const CGValue &j) -> FailureOr<CGValue> {
        FailureOr<CGValue> sum =
            cg.binaryOp(BinaryOp::Add, i, j, call.loc, call.loc, call.loc);
        if (failed(sum))
          return failure();
        return cg.compareOp(CmpOp::Eq, *sum, CGValue::integer(n - 1),
                            call.loc, call.loc, call.loc);
      });
  if (failed(flag))
    return failure();
  FailureOr<llvm::SmallVector<CGValue>> r =
      flaggedReduce(cg, call.loc, {*spread}, *flag, *dim + 1, nullptr);
  if (failed(r))
    return failure();
  return r->front();
}

/// An inclusive scan of `inputs` (one shape) along `axis` with `combine`:
/// one tile.scan (CodeGenReduce.cpp).
static FailureOr<llvm::SmallVector<CGValue>>
scan(CodeGen &cg, SMLoc loc, llvm::ArrayRef<CGValue> inputs, int64_t axis,
     bool reverse, StringRef what, ValuesCombine combine) {
  return cg.scan(inputs, axis, reverse, loc, combine);
}

/// tl.cumsum / tl.cumprod (input, axis=0, reverse=False[, dtype]).
static FailureOr<CGValue> cumulative(CodeGen &cg, CallArgs &call, bool isSum) {
  Args a(cg, call);
  llvm::SmallVector<ParamSpec> params = {
      {"input", true}, {"axis", false}, {"reverse", false}};
  if (isSum)
    params.push_back({"dtype", false});
  if (!a.bind(params))
    return failure();
  FailureOr<CGValue> input = a.getTile(0);
  FailureOr<bool> reverse = a.getBool(2, false);
  if (failed(input) || failed(reverse))
    return failure();
  int64_t rank = static_cast<int64_t>(input->getShape().size());
  FailureOr<int64_t> axis = axisArg(cg, a, 1, rank, 0);
  if (failed(axis))
    return failure();
  CGValue x = *input;
  DType d = x.getDType();
  if (d.isPointer())
    return cg.error(a.loc(0), call.calleeName +
                                  "() of pointers is not supported");
  // Triton's types: bf16 computed in fp32; for cumsum, integers narrower
  // than 32 bits (and booleans) in int32/uint32, or `dtype`.
  std::optional<DType> outType;
  if (isSum && a.has(3)) {
    FailureOr<DType> t = a.getDType(3);
    if (failed(t))
      return failure();
    outType = *t;
  } else if (d == DType::get(ScalarKind::BF16)) {
    outType = DType::get(ScalarKind::FP32);
  } else if (isSum && d.isBool()) {
    outType = DType::get(ScalarKind::Int32);
  } else if (isSum && d.isInt() && d.getBitWidth() < 32) {
    outType = DType::get(d.isSigned() ? ScalarKind::Int32 : ScalarKind::UInt32);
  }
  if (outType && *outType != d) {
    FailureOr<CGValue> c = cg.cast(x, *outType, a.loc(0));
    if (failed(c))
      return failure();
    x = *c;
  }
  DType t = x.getDType();
  FailureOr<llvm::SmallVector<CGValue>> r = scan(
      cg, call.loc, {x}, *axis, *reverse, call.calleeName + "()",
      [&](llvm::ArrayRef<CGValue> l, llvm::ArrayRef<CGValue> rr)
          -> FailureOr<llvm::SmallVector<CGValue>> {
        mlir::Value p = l[0].getValue(), q = rr[0].getValue(), v;
        if (isSum)
          v = t.isFloat() ? arith::AddFOp::create(cg.builder, cg.loc(), p, q)
                                .getResult()
                          : arith::AddIOp::create(cg.builder, cg.loc(), p, q)
                                .getResult();
        else
          v = t.isFloat() ? arith::MulFOp::create(cg.builder, cg.loc(), p, q)
                                .getResult()
                          : arith::MulIOp::create(cg.builder, cg.loc(), p, q)
                                .getResult();
        return llvm::SmallVector<CGValue>{CGValue::runtime(v, t)};
      });
  if (failed(r))
    return failure();
  return r->front();
}

static FailureOr<CGValue> builtinCumsum(CodeGen &cg, CallArgs &call) {
  return cumulative(cg, call, true);
}
static FailureOr<CGValue> builtinCumprod(CodeGen &cg, CallArgs &call) {
  return cumulative(cg, call, false);
}

/// tl.associative_scan(input, axis, combine_fn, reverse=False): input a
/// tile or a tuple of tiles of one shape.
static FailureOr<CGValue> builtinAssociativeScan(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({{"input", true},
               {"axis", true},
               {"combine_fn", true},
               {"reverse", false}}))
    return failure();
  FailureOr<bool> reverse = a.getBool(3, false);
  if (failed(reverse))
    return failure();
  const CGValue &fnValue = a.value(2);
  if (!fnValue.isJitFunction() && !fnValue.isClosure())
    return cg.error(a.loc(2), "the combine_fn of tl.associative_scan() must "
                              "be a @jit function or a lambda, got " +
                                  fnValue.describe());
  llvm::SmallVector<CGValue> inputs;
  const CGValue &in = a.value(0);
  bool isTuple = in.isTuple();
  if (isTuple)
    inputs.append(in.getElements().begin(), in.getElements().end());
  else
    inputs.push_back(in);
  if (inputs.empty())
    return cg.error(a.loc(0), "tl.associative_scan() needs at least one tile");
  for (const CGValue &v : inputs) {
    if (!v.isRuntime() || !v.isTile())
      return cg.error(a.loc(0), "the input of tl.associative_scan() must be "
                                "a tile or a tuple of tiles, got " +
                                    v.describe());
    if (llvm::ArrayRef<int64_t>(v.getShape()) !=
        llvm::ArrayRef<int64_t>(inputs.front().getShape()))
      return cg.error(a.loc(0), "the tiles of tl.associative_scan() must "
                                "have one shape, got " +
                                    inputs.front().describe() + " and " +
                                    v.describe());
    if (v.getDType().isPointer())
      return cg.error(a.loc(0), "tl.associative_scan() of pointers is not "
                                "supported");
  }
  int64_t rank = static_cast<int64_t>(inputs.front().getShape().size());
  FailureOr<int64_t> axis = axisArg(cg, a, 1, rank, 0);
  if (failed(axis))
    return failure();
  SMLoc fnLoc = a.loc(2);
  FailureOr<llvm::SmallVector<CGValue>> results = scan(
      cg, call.loc, inputs, *axis, *reverse, "tl.associative_scan()",
      [&](llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs) {
        return callCombineFn(cg, fnValue, fnLoc, lhs, rhs);
      });
  if (failed(results))
    return failure();
  return packResults(*results, isTuple);
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// Triton's `sem` and `scope` (accepted and kept on the op).
static LogicalResult atomicSemScope(CodeGen &cg, Args &a, size_t semIndex,
                                    std::string &sem, std::string &scope) {
  FailureOr<std::string> s = a.getStr(semIndex, "acq_rel");
  FailureOr<std::string> sc = a.getStr(semIndex + 1, "gpu");
  if (failed(s) || failed(sc))
    return failure();
  if (!llvm::is_contained({"relaxed", "acquire", "release", "acq_rel"}, *s))
    return cg.error(a.loc(semIndex), "sem must be 'relaxed', 'acquire', "
                                     "'release' or 'acq_rel', got '" +
                                         *s + "'");
  if (!llvm::is_contained({"gpu", "cta", "sys"}, *sc))
    return cg.error(a.loc(semIndex + 1), "scope must be 'gpu', 'cta' or "
                                         "'sys', got '" +
                                             *sc + "'");
  sem = *s;
  scope = *sc;
  return success();
}

/// The pointer operand of an atomic: a pointer or a tile of pointers to
/// 16-, 32- or 64-bit elements (Triton has no 8-bit atomics either).
static FailureOr<DType> atomicPointer(CodeGen &cg, Args &a, size_t i) {
  const CGValue &ptr = a.value(i);
  if (ptr.isBlockLike() || ptr.isTensorDescriptor() || !ptr.isRuntime() ||
      !ptr.getDType().isPointer())
    return cg.error(a.loc(i), a.call.calleeName +
                                  "() expects a pointer or a tile of "
                                  "pointers, got " +
                                  ptr.describe());
  DType elem = DType::get(ptr.getDType().getScalar());
  unsigned bits = elem.getBitWidth();
  if (elem.isBool() || (bits != 16 && bits != 32 && bits != 64)) {
    bool bitwise = llvm::is_contained({"tl.atomic_and", "tl.atomic_or",
                                       "tl.atomic_xor"},
                                      a.call.calleeName);
    return cg.error(a.loc(i), a.call.calleeName + "() of " + elem.str() +
                                  " elements is not supported (16-, 32- and "
                                  "64-bit integers" +
                                  (bitwise ? "" : " and floats") + " are)");
  }
  return elem;
}

/// `val` converted to the pointee type and broadcast to the pointer's shape.
static FailureOr<CGValue> atomicOperand(CodeGen &cg, Args &a, size_t i,
                                        const CGValue &ptr, DType elem,
                                        StringRef what) {
  const CGValue &v = a.value(i);
  if (!v.isNumber() && (!v.isRuntime() || v.isBlockLike()))
    return cg.error(a.loc(i), what.str() + " must be a tile or a number, "
                                           "got " +
                                  v.describe());
  if (v.isTile() && !ptr.isTile())
    return cg.error(a.loc(i), "the " + v.describe() +
                                  " tile needs a tile of pointers, not a "
                                  "scalar pointer");
  FailureOr<CGValue> c = cg.convertTo(v, elem, a.loc(i), what);
  if (failed(c))
    return failure();
  return cg.broadcastTo(*c, ptr.getShape(), a.loc(i), what);
}

static FailureOr<CGValue> atomicRMW(CodeGen &cg, CallArgs &call,
                                    StringRef op) {
  Args a(cg, call);
  enum { kPtr, kVal, kMask, kSem, kScope };
  if (!a.bind({{"pointer", true},
               {"val", true},
               {"mask", false},
               {"sem", false},
               {"scope", false}}))
    return failure();
  FailureOr<DType> elem = atomicPointer(cg, a, kPtr);
  std::string sem, scope;
  if (failed(elem) || failed(atomicSemScope(cg, a, kSem, sem, scope)))
    return failure();
  const CGValue &ptr = a.value(kPtr);
  bool isFloat = elem->isFloat();
  std::string kind = op.str();
  if (op == "add" && isFloat)
    kind = "fadd";
  else if (op == "max" || op == "min")
    kind = isFloat ? "f" + kind : elem->isSigned() ? kind : "u" + kind;
  else if ((op == "and" || op == "or" || op == "xor") && isFloat)
    return cg.error(a.loc(kPtr), call.calleeName + "() needs integer "
                                                   "elements, got " +
                                     ptr.describe());
  FailureOr<CGValue> val = atomicOperand(cg, a, kVal, ptr, *elem, "'val'");
  if (failed(val))
    return failure();
  mlir::Value mask;
  if (a.has(kMask)) {
    FailureOr<CGValue> m = prepareMask(cg, a, kMask, ptr);
    if (failed(m))
      return failure();
    mask = m->getValue();
  }
  mlir::Value v = tile::AtomicRMWOp::create(
      cg.builder, cg.loc(), val->getValue().getType(), ptr.getValue(),
      val->getValue(), mask, kind, sem, scope);
  return CGValue::runtime(v, *elem);
}

#define ATOMIC(NAME, OP)                                                       \
  static FailureOr<CGValue> NAME(CodeGen &cg, CallArgs &call) {                \
    return atomicRMW(cg, call, OP);                                            \
  }
ATOMIC(builtinAtomicAdd, "add")
ATOMIC(builtinAtomicMax, "max")
ATOMIC(builtinAtomicMin, "min")
ATOMIC(builtinAtomicAnd, "and")
ATOMIC(builtinAtomicOr, "or")
ATOMIC(builtinAtomicXor, "xor")
ATOMIC(builtinAtomicXchg, "xchg")
#undef ATOMIC

/// tl.debug_barrier(): a barrier across the program's threads.
static FailureOr<CGValue> builtinDebugBarrier(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  if (!a.bind({}))
    return failure();
  tile::DebugBarrierOp::create(cg.builder, cg.loc());
  return CGValue::none();
}

//===----------------------------------------------------------------------===//
// Device-side debugging: tl.device_print, tl.device_assert
//===----------------------------------------------------------------------===//

/// Triton's normalization of a device_print prefix: with operands it ends
/// in ": "; a prefix longer than two characters starts with a space.
static std::string normalizePrintPrefix(StringRef text, bool hasOperands) {
  std::string prefix = text.str();
  if (hasOperands && !StringRef(prefix).ends_with(" "))
    prefix += " ";
  if (hasOperands && !StringRef(prefix).ends_with(": "))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && !StringRef(prefix).starts_with(" "))
    prefix = " " + prefix;
  return prefix;
}

/// `tl.device_print(prefix, *args, hex=False)` (and Python's `print`, as in
/// Triton): one `tile.print` of every argument.
static FailureOr<CGValue> builtinDevicePrint(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  enum { kPrefix, kHex };
  if (!a.bind({{"prefix", true}, {"hex", false, /*keywordOnly=*/true}},
              /*withVarargs=*/true))
    return failure();
  const CGValue &prefixValue = a.value(kPrefix);
  if (!prefixValue.isStr())
    return cg.error(a.loc(kPrefix),
                    a.name(kPrefix) + " must be a string constant, got " +
                        (prefixValue.isRuntime() ? "a run-time " : "") +
                        prefixValue.describe());
  StringRef prefixText = prefixValue.getStr();
  for (char c : prefixText)
    if (c < 0x20 || c > 0x7e)
      return cg.error(a.loc(kPrefix),
                      a.name(kPrefix) +
                          " must be printable ASCII (no control characters "
                          "or newlines)");
  FailureOr<bool> hex = a.getBool(kHex, false);
  if (failed(hex))
    return failure();
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<bool> isSigned;
  for (auto [index, arg] : llvm::enumerate(a.varargs)) {
    const CGValue &v = arg->value;
    std::string what = "argument " + std::to_string(index + 1) + " of " +
                       call.calleeName + "()";
    if (v.isBlockLike())
      return cg.error(arg->loc,
                      what + " cannot be a " +
                          (v.isTensorDescriptor() ? "tensor descriptor"
                                                  : "block pointer") +
                          "; load the block with tl.load first");
    if (!v.isRuntime() && !v.isNumber())
      return cg.error(arg->loc,
                      what + " must be a tile or a number, got " +
                          v.describe() +
                          (v.isStr() ? " (only the prefix may be a string)"
                                     : ""));
    FailureOr<CGValue> rt = cg.toRuntime(v, arg->loc);
    if (failed(rt))
      return failure();
    operands.push_back(rt->getValue());
    isSigned.push_back(rt->getDType().isInt() && rt->getDType().isSigned() &&
                       !rt->getDType().isBool());
  }
  tile::PrintOp::create(
      cg.builder, cg.loc(),
      cg.builder.getStringAttr(
          normalizePrintPrefix(prefixText, !operands.empty())),
      cg.builder.getBoolAttr(*hex), cg.builder.getDenseBoolArrayAttr(isSigned),
      operands);
  return CGValue::none();
}

mlir::LogicalResult CodeGen::emitDeviceAssert(const CGValue &cond,
                                              SMLoc condLoc, StringRef message,
                                              const CGValue *mask,
                                              SMLoc maskLoc, SMLoc loc) {
  auto check = [&](const CGValue &v, SMLoc at,
                   StringRef what) -> FailureOr<CGValue> {
    bool valid = v.isRuntime() ? !v.isBlockLike() &&
                                     (v.getDType().isInt() ||
                                      v.getDType().isBool())
                               : v.isIntLike();
    if (!valid)
      return error(at, what.str() +
                           " must be a tile or scalar of booleans or "
                           "integers, got " +
                           (v.isRuntime() ? "a run-time " : "") + v.describe());
    FailureOr<CGValue> rt = toRuntime(v, at);
    if (failed(rt))
      return failure();
    return toBool(*rt, at);
  };
  FailureOr<CGValue> ok = check(cond, condLoc, "the condition");
  if (failed(ok))
    return failure();
  if (mask) {
    FailureOr<CGValue> m = check(*mask, maskLoc, "the mask");
    if (failed(m))
      return failure();
    FailureOr<CGValue> notMask = unaryOp(UnaryOp::Not, *m, maskLoc);
    if (failed(notMask))
      return failure();
    ok = binaryOp(BinaryOp::BitOr, *ok, *notMask, maskLoc, condLoc, maskLoc);
    if (failed(ok))
      return failure();
  }
  if (!debug)
    return mlir::success();
  LocationScope scope(*this, loc);
  unsigned line = srcMgr.getLineAndColumn(loc, bufferId).first;
  tile::AssertOp::create(builder, this->loc(), ok->getValue(), message,
                         fileName.getValue(), line,
                         fn ? StringRef(fn->name) : StringRef("kernel"));
  return mlir::success();
}

/// `tl.device_assert(cond, msg="", mask=None)`: a device assertion in debug
/// mode, type-checked and dropped otherwise (Triton's semantics).
static FailureOr<CGValue> builtinDeviceAssert(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  enum { kCond, kMsg, kMask };
  if (!a.bind({{"cond", true}, {"msg", false}, {"mask", false}}))
    return failure();
  FailureOr<std::string> msg = a.getStr(kMsg, "");
  if (failed(msg))
    return failure();
  const CGValue *mask = a.has(kMask) ? &a.value(kMask) : nullptr;
  if (failed(cg.emitDeviceAssert(a.value(kCond), a.loc(kCond), *msg, mask,
                                 a.loc(kMask), call.loc)))
    return failure();
  return CGValue::none();
}

static FailureOr<CGValue> builtinAtomicCas(CodeGen &cg, CallArgs &call) {
  Args a(cg, call);
  enum { kPtr, kCmp, kVal, kSem, kScope };
  if (!a.bind({{"pointer", true},
               {"cmp", true},
               {"val", true},
               {"sem", false},
               {"scope", false}}))
    return failure();
  FailureOr<DType> elem = atomicPointer(cg, a, kPtr);
  std::string sem, scope;
  if (failed(elem) || failed(atomicSemScope(cg, a, kSem, sem, scope)))
    return failure();
  const CGValue &ptr = a.value(kPtr);
  FailureOr<CGValue> cmp = atomicOperand(cg, a, kCmp, ptr, *elem, "'cmp'");
  FailureOr<CGValue> val = atomicOperand(cg, a, kVal, ptr, *elem, "'val'");
  if (failed(cmp) || failed(val))
    return failure();
  mlir::Value v = tile::AtomicCASOp::create(
      cg.builder, cg.loc(), val->getValue().getType(), ptr.getValue(),
      cmp->getValue(), val->getValue(), sem, scope);
  return CGValue::runtime(v, *elem);
}

//===----------------------------------------------------------------------===//
// Table
//===----------------------------------------------------------------------===//

static const llvm::StringMap<Handler> &getBuiltinTable() {
  static const llvm::StringMap<Handler> table = [] {
    llvm::StringMap<Handler> t;
    t["tl.program_id"] = builtinProgramId;
    t["tl.num_programs"] = builtinNumPrograms;
    t["tl.arange"] = builtinArange;
    t["tl.zeros"] = builtinZeros;
    t["tl.full"] = builtinFull;
    t["tl.zeros_like"] = builtinZerosLike;
    t["tl.full_like"] = builtinFullLike;
    t["tl.load"] = builtinLoad;
    t["tl.store"] = builtinStore;
    t["tl.make_block_ptr"] = builtinMakeBlockPtr;
    t["tl.advance"] = builtinAdvance;
    t["tl.make_tensor_descriptor"] = builtinMakeTensorDescriptor;
    t["tl.load_tensor_descriptor"] = builtinLoadTensorDescriptor;
    t["tl.store_tensor_descriptor"] = builtinStoreTensorDescriptor;
    t["tl.dot"] = builtinDot;
    t["tl.sum"] = builtinSum;
    t["tl.max"] = builtinMax;
    t["tl.min"] = builtinMin;
    t["tl.argmax"] = builtinArgmax;
    t["tl.argmin"] = builtinArgmin;
    t["tl.reduce"] = builtinReduce;
    t["tl.xor_sum"] = builtinXorSum;
    t["tl.softmax"] = builtinSoftmax;
    t["tl.umulhi"] = builtinUmulhi;
    t["tl.exp"] = builtinExp;
    t["tl.exp2"] = builtinExp2;
    t["tl.log"] = builtinLog;
    t["tl.log2"] = builtinLog2;
    t["tl.sqrt"] = builtinSqrt;
    t["tl.sqrt_rn"] = builtinSqrt;
    t["tl.rsqrt"] = builtinRsqrt;
    t["tl.sin"] = builtinSin;
    t["tl.cos"] = builtinCos;
    t["tl.floor"] = builtinFloor;
    t["tl.ceil"] = builtinCeil;
    t["tl.tanh"] = builtinTanh;
    t["tl.erf"] = builtinErf;
    t["tl.abs"] = builtinAbs;
    t["tl.sigmoid"] = builtinSigmoid;
    t["tl.fma"] = builtinFma;
    t["tl.fdiv"] = builtinFdiv;
    t["tl.div_rn"] = builtinFdiv;
    t["tl.maximum"] = builtinMaximum;
    t["tl.minimum"] = builtinMinimum;
    t["tl.clamp"] = builtinClamp;
    t["tl.where"] = builtinWhere;
    t["tl.pow"] = builtinPow;
    t["tl.atomic_add"] = builtinAtomicAdd;
    t["tl.atomic_max"] = builtinAtomicMax;
    t["tl.atomic_min"] = builtinAtomicMin;
    t["tl.atomic_and"] = builtinAtomicAnd;
    t["tl.atomic_or"] = builtinAtomicOr;
    t["tl.atomic_xor"] = builtinAtomicXor;
    t["tl.atomic_xchg"] = builtinAtomicXchg;
    t["tl.atomic_cas"] = builtinAtomicCas;
    t["tl.debug_barrier"] = builtinDebugBarrier;
    t["tl.join"] = builtinJoin;
    t["tl.interleave"] = builtinInterleave;
    t["tl.cat"] = builtinCat;
    t["tl.split"] = builtinSplit;
    t["tl.flip"] = builtinFlip;
    t["tl.cumsum"] = builtinCumsum;
    t["tl.cumprod"] = builtinCumprod;
    t["tl.associative_scan"] = builtinAssociativeScan;
    t["tl.cdiv"] = builtinCdiv;
    t["tl.reshape"] = builtinReshape;
    t["tl.view"] = builtinReshape;
    t["tl.trans"] = builtinTrans;
    t["tl.permute"] = builtinPermute;
    t["tl.expand_dims"] = builtinExpandDims;
    t["tl.broadcast_to"] = builtinBroadcastTo;
    t["tl.broadcast"] = builtinBroadcast;
    t["tl.multiple_of"] = builtinHint;
    t["tl.max_contiguous"] = builtinHint;
    t["tl.max_constancy"] = builtinHint;
    t["tl.assume"] = builtinAssume;
    t["tl.cast"] = castLike;
    t["tensor.to"] = castLike;
    t["tl.pointer_type"] = builtinPointerType;
    t["tl.constexpr"] = builtinConstexpr;
    t["tl.static_assert"] = builtinStaticAssert;
    t["tl.static_print"] = builtinStaticPrint;
    t["tl.range"] = builtinRangeOutsideFor;
    t["tl.static_range"] = builtinRangeOutsideFor;
    t["range"] = builtinRangeOutsideFor;
    t["tl.device_print"] = builtinDevicePrint;
    t["tl.device_assert"] = builtinDeviceAssert;
    for (StringRef name : {"tl.sort", "tl.histogram"})
      t[name] = builtinUnsupported;
    t["tl.inline_asm_elementwise"] = builtinInlineAsmElementwise;
    t["tl.randint"] = [](CodeGen &cg, CallArgs &call) {
      return emitRandom(cg, "tl.randint", call);
    };
    t["tl.randint4x"] = [](CodeGen &cg, CallArgs &call) {
      return emitRandom(cg, "tl.randint4x", call);
    };
    t["tl.rand"] = [](CodeGen &cg, CallArgs &call) {
      return emitRandom(cg, "tl.rand", call);
    };
    t["tl.rand4x"] = [](CodeGen &cg, CallArgs &call) {
      return emitRandom(cg, "tl.rand4x", call);
    };
    t["tl.randn"] = [](CodeGen &cg, CallArgs &call) {
      return emitRandom(cg, "tl.randn", call);
    };
    t["tl.randn4x"] = [](CodeGen &cg, CallArgs &call) {
      return emitRandom(cg, "tl.randn4x", call);
    };
    for (StringRef name : {"triton.jit", "triton.autotune", "triton.heuristics",
                           "triton.Config"})
      t[name] = builtinNotInKernel;
    t["triton.next_power_of_2"] = builtinNextPowerOf2;
    t["len"] = builtinLen;
    t["min"] = builtinPyMin;
    t["max"] = builtinPyMax;
    t["abs"] = builtinAbs;
    t["int"] = builtinPyInt;
    t["float"] = builtinPyFloat;
    t["bool"] = builtinPyBool;
    t["tuple"] = builtinPyTuple;
    t["list"] = builtinPyTuple;
    t["print"] = builtinDevicePrint;
    t["isinstance"] = builtinIsinstance;
    for (StringRef name : {"tl.tensor", "tl.tensor_descriptor", "tl.dtype"})
      t[name] = builtinTypeOnly;
    t["math.log"] = builtinMathLog;
    t["math.log2"] = builtinMathLog2;
    t["math.log10"] = builtinMathLog10;
    t["math.exp"] = builtinMathExp;
    t["math.sqrt"] = builtinMathSqrt;
    t["math.fabs"] = builtinMathFabs;
    t["math.ceil"] = builtinMathCeil;
    t["math.floor"] = builtinMathFloor;
    return t;
  }();
  return table;
}

bool CodeGen::isKnownBuiltin(StringRef name) {
  return getBuiltinTable().count(name) != 0;
}

StringRef CodeGen::getMethodBuiltin(StringRef name) {
  return llvm::StringSwitch<StringRef>(name)
      .Case("to", "tensor.to")
      .Case("sum", "tl.sum")
      .Case("max", "tl.max")
      .Case("min", "tl.min")
      .Case("argmax", "tl.argmax")
      .Case("argmin", "tl.argmin")
      .Case("reduce", "tl.reduce")
      .Case("xor_sum", "tl.xor_sum")
      .Case("softmax", "tl.softmax")
      .Case("reshape", "tl.reshape")
      .Case("view", "tl.view")
      .Case("trans", "tl.trans")
      .Case("permute", "tl.permute")
      .Case("expand_dims", "tl.expand_dims")
      .Case("broadcast_to", "tl.broadcast_to")
      .Case("advance", "tl.advance")
      .Case("exp", "tl.exp")
      .Case("exp2", "tl.exp2")
      .Case("log", "tl.log")
      .Case("log2", "tl.log2")
      .Case("sqrt", "tl.sqrt")
      .Case("rsqrt", "tl.rsqrt")
      .Case("sin", "tl.sin")
      .Case("cos", "tl.cos")
      .Case("abs", "tl.abs")
      .Case("floor", "tl.floor")
      .Case("ceil", "tl.ceil")
      .Case("sigmoid", "tl.sigmoid")
      .Case("cdiv", "tl.cdiv")
      .Case("split", "tl.split")
      .Case("flip", "tl.flip")
      .Case("cumsum", "tl.cumsum")
      .Case("cumprod", "tl.cumprod")
      .Case("associative_scan", "tl.associative_scan")
      .Default("");
}

FailureOr<CGValue> CodeGen::callBuiltin(StringRef name, CallArgs &args) {
  const auto &table = getBuiltinTable();
  auto it = table.find(name);
  if (it == table.end())
    return error(args.loc,
                 "'" + args.calleeName + "' is not supported by tilec yet");
  for (const CallArg &arg : args.positional)
    if (arg.value.isPoison())
      return failure();
  for (const CallArg &arg : args.keywords)
    if (arg.value.isPoison())
      return failure();
  return it->second(*this, args);
}

//===----------------------------------------------------------------------===//
// Attributes of values
//===----------------------------------------------------------------------===//

FailureOr<CGValue> CodeGen::getValueAttr(const CGValue &base, StringRef name,
                                         SMLoc nameLoc) {
  if (base.isDType()) {
    DType d = base.getDType();
    if (name == "primitive_bitwidth" || name == "int_bitwidth")
      return CGValue::integer(d.getBitWidth());
    if (name == "fp_mantissa_width")
      return CGValue::integer(d.getMantissaWidth());
    if (name == "element_ty" && d.isPointer())
      return CGValue::dtypeObject(DType::get(d.getScalar()));
    if (name == "name")
      return CGValue::string(d.str());
    if (name.starts_with("is_"))
      return CGValue::boundMethod(base, name);
    return error(nameLoc, "dtype " + d.getSpelling() + " has no attribute '" +
                              name + "'");
  }
  if (base.isRuntime()) {
    if (base.isTensorDescriptor()) {
      if (name == "load" || name == "store" || name == "atomic_add" ||
          name == "atomic_min" || name == "atomic_max" ||
          name == "atomic_and" || name == "atomic_or" || name == "atomic_xor" ||
          name == "gather" || name == "scatter")
        return CGValue::boundMethod(base, name);
      if (name == "dtype")
        return CGValue::dtypeObject(DType::get(base.getDType().getScalar()));
      if (name == "block_shape") {
        std::vector<CGValue> dims;
        for (int64_t d : base.getShape())
          dims.push_back(CGValue::integer(d));
        return CGValue::tuple(std::move(dims));
      }
      if (name == "shape" || name == "strides")
        return descriptorDims(*this, base, name, nameLoc);
      llvm::SmallVector<std::string> candidates = {
          "load", "store", "shape", "strides", "block_shape", "dtype"};
      std::string suggestion = findClosestName(name, candidates);
      return error(nameLoc,
                   "a tensor descriptor has no attribute '" + name + "'" +
                       (suggestion.empty()
                            ? std::string(" (it has load, store, shape, "
                                          "strides, block_shape and dtype)")
                            : "; did you mean '" + suggestion + "'?"));
    }
    if (base.isBlockPointer()) {
      if (name == "advance")
        return CGValue::boundMethod(base, name);
      if (name == "dtype")
        return CGValue::dtypeObject(DType::get(base.getDType().getScalar()));
      return error(nameLoc, "a block pointer has no attribute '" + name +
                                "' (it has the method 'advance')");
    }
    if (name == "shape") {
      std::vector<CGValue> dims;
      for (int64_t d : base.getShape())
        dims.push_back(CGValue::integer(d));
      return CGValue::tuple(std::move(dims));
    }
    if (name == "dtype")
      return CGValue::dtypeObject(base.getDType());
    // `x.type`: Triton's type of the value. For a scalar it is its dtype
    // (`Out.type.element_ty` is the pointee of a pointer argument, as in
    // Triton's tutorial 06); a tile's block type is not modelled.
    if (name == "type") {
      if (base.getShape().empty())
        return CGValue::dtypeObject(base.getDType());
      return error(nameLoc, "'.type' of a tile (Triton's block_type) is not "
                            "supported by tilec yet; use '.dtype' for its "
                            "element type and '.shape' for its shape");
    }
    if (name == "numel") {
      int64_t numel = 1;
      for (int64_t d : base.getShape())
        numel *= d;
      return CGValue::integer(numel);
    }
    if (name == "T") {
      if (base.getShape().size() != 2)
        return error(nameLoc, ".T needs a 2-d tile, got " + base.describe());
      mlir::Value v = tile::TransOp::create(
          builder, loc(),
          getType(base.getDType(), {base.getShape()[1], base.getShape()[0]}),
          base.getValue(), llvm::ArrayRef<int32_t>{1, 0});
      return CGValue::runtime(v, base.getDType());
    }
    if (!getMethodBuiltin(name).empty())
      return CGValue::boundMethod(base, name);
    if (name == "sort" || name == "histogram")
      return error(nameLoc, "x." + name + "() (tl." + name +
                                ") is not supported by tilec yet");
    llvm::SmallVector<std::string> candidates = {
        "shape", "dtype", "numel",   "T",           "to",           "sum",
        "max",   "min",   "argmax",  "argmin",      "reduce",       "reshape",
        "view",  "trans", "permute", "expand_dims", "broadcast_to", "exp",
        "exp2",  "log",   "log2",    "sqrt",        "rsqrt",        "sin",
        "cos",   "abs",   "floor",   "ceil",        "sigmoid"};
    std::string suggestion = findClosestName(name, candidates);
    return error(nameLoc, base.describe() + " has no attribute '" + name + "'" +
                              (suggestion.empty()
                                   ? std::string()
                                   : "; did you mean '" + suggestion + "'?"));
  }
  return error(nameLoc, base.describe() + " has no attribute '" + name + "'");
}
