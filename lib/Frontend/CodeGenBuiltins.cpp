//===- CodeGenBuiltins.cpp - tl.* functions and tensor methods ------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Calls of builtins (Builtins.h): the table of every family's specs, the
// binding of a call's arguments to a spec like Python does (positional,
// keyword, defaults, `*args`) and their conversion to the declared kinds
// with every message about them (arity, unknown keywords with a
// suggestion, constexpr where Triton needs constexpr, dtypes, tiles); the
// shared helpers of the families; attributes of values (`x.shape`, `x.T`,
// `desc.load`).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

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

//===----------------------------------------------------------------------===//
// Conversions to parameter kinds
//===----------------------------------------------------------------------===//

bool Args::bind(llvm::ArrayRef<ParamSpec> params, bool withVarargs) {
  specs.assign(params.begin(), params.end());
  if (failed(
          cg.bindArgs(call, params, bound, withVarargs ? &varargs : nullptr)))
    return false;
  converted.assign(params.size(), Converted());
  // Every argument is checked, so that independent mistakes are all
  // reported, in parameter order.
  bool ok = true;
  for (size_t i = 0; i < params.size(); ++i)
    ok &= succeeded(convert(i));
  return ok;
}

LogicalResult Args::convert(size_t i) {
  Converted &c = converted[i];
  const ParamSpec &spec = specs[i];
  switch (spec.kind) {
  case ArgType::Any:
    return success();
  case ArgType::Bool: {
    FailureOr<bool> v = toBool(i, spec.boolDefault);
    c.flag = succeeded(v) && *v;
    return failure(failed(v));
  }
  case ArgType::Str: {
    FailureOr<std::string> v = toStr(i, spec.strDefault);
    if (succeeded(v))
      c.str = *v;
    return failure(failed(v));
  }
  case ArgType::IntList: {
    FailureOr<llvm::SmallVector<int64_t>> v = toIntList(i);
    if (succeeded(v))
      c.ints = *v;
    return failure(failed(v));
  }
  default:
    break;
  }
  if (!has(i))
    return success();
  switch (spec.kind) {
  case ArgType::Int: {
    FailureOr<int64_t> v = toInt(i);
    if (succeeded(v))
      c.integer = *v;
    return failure(failed(v));
  }
  case ArgType::DType: {
    FailureOr<DType> v = toDType(i);
    if (succeeded(v))
      c.dtype = *v;
    return failure(failed(v));
  }
  case ArgType::Runtime:
  case ArgType::Tile: {
    FailureOr<CGValue> v =
        spec.kind == ArgType::Tile ? toTile(i) : toRuntime(i);
    if (succeeded(v))
      c.value = *v;
    return failure(failed(v));
  }
  default:
    return success();
  }
}

FailureOr<int64_t> Args::toInt(size_t i) {
  const CGValue &v = bound[i]->value;
  if (v.isIntLike())
    return v.getInt();
  if (v.isRuntime())
    return cg
        .error(loc(i), name(i) +
                           " must be a compile-time integer "
                           "(tl.constexpr), but it is a run-time " +
                           v.describe() + getAssignedNumberHint(v))
        .constexprHint(v);
  return cg.error(loc(i), name(i) + " must be an integer, got " + v.describe());
}

FailureOr<bool> Args::toBool(size_t i, bool dflt) {
  if (!has(i))
    return dflt;
  const CGValue &v = bound[i]->value;
  if (v.isConstexpr() && (v.isIntLike() || v.isNone()))
    return v.isTruthy();
  return cg
      .error(loc(i),
             name(i) + " must be a compile-time bool, got " + v.describe())
      .constexprHint(v);
}

FailureOr<std::string> Args::toStr(size_t i, StringRef dflt) {
  if (!has(i))
    return dflt.str();
  const CGValue &v = bound[i]->value;
  if (v.isStr())
    return v.getStr().str();
  return cg.error(loc(i), name(i) + " must be a string, got " + v.describe());
}

FailureOr<DType> Args::toDType(size_t i) {
  const CGValue &v = bound[i]->value;
  if (v.isDType())
    return v.getDType();
  return cg.error(loc(i), name(i) +
                              " must be a dtype such as tl.float32, "
                              "got " +
                              v.describe());
}

FailureOr<llvm::SmallVector<int64_t>> Args::toIntList(size_t i) {
  llvm::SmallVector<int64_t> result;
  if (!has(i))
    return result;
  const CGValue &v = bound[i]->value;
  if (v.isIntLike()) {
    result.push_back(v.getInt());
    return result;
  }
  if (v.isTuple()) {
    for (auto [index, element] : llvm::enumerate(v.getElements())) {
      if (!element.isIntLike())
        return cg
            .error(loc(i),
                   "element " + std::to_string(index) + " of " + name(i) +
                       " must be a compile-time integer "
                       "(tl.constexpr), but it is " +
                       (element.isRuntime() ? "a run-time " : "") +
                       element.describe() + getAssignedNumberHint(element))
            .constexprHint(element);
      result.push_back(element.getInt());
    }
    return result;
  }
  return cg
      .error(loc(i), name(i) +
                         " must be a tuple of compile-time "
                         "integers, got " +
                         (v.isRuntime() ? "a run-time " : "") + v.describe())
      .constexprHint(v);
}

FailureOr<CGValue> Args::toRuntime(size_t i) {
  const CGValue &v = bound[i]->value;
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
  return cg.error(loc(i),
                  name(i) + " must be a tile or a number, got " + v.describe());
}

FailureOr<CGValue> Args::toTile(size_t i) {
  FailureOr<CGValue> v = toRuntime(i);
  if (failed(v))
    return failure();
  if (!v->isTile())
    return cg.error(loc(i), name(i) + " must be a tile, got " + v->describe());
  return v;
}

FailureOr<llvm::SmallVector<int64_t>> Args::getVarargInts(StringRef what) {
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

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Checks a tile shape: powers of two, bounded size.
LogicalResult tilec::frontend::checkShape(CodeGen &cg,
                                          llvm::ArrayRef<int64_t> shape,
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
CGValue tilec::frontend::denseConstant(CodeGen &cg, DType dtype,
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
// Table
//===----------------------------------------------------------------------===//

FailureOr<CGValue>
tilec::frontend::callBuiltinWith(CodeGen &cg, StringRef name,
                                 StringRef calleeName, SMLoc loc,
                                 llvm::ArrayRef<CGValue> args) {
  CallArgs call;
  call.loc = loc;
  call.calleeName = calleeName.str();
  for (const CGValue &v : args)
    call.positional.push_back(CallArg{v, loc, "", SMLoc()});
  return cg.callBuiltin(name, call);
}

/// Every builtin by name.
static const llvm::StringMap<const BuiltinSpec *> &getBuiltinTable() {
  static const llvm::StringMap<const BuiltinSpec *> table = [] {
    llvm::StringMap<const BuiltinSpec *> t;
    for (llvm::ArrayRef<BuiltinSpec> family :
         {getCreateBuiltins(), getMemoryBuiltins(), getDescriptorBuiltins(),
          getDotBuiltins(), getReduceBuiltins(), getMathBuiltins(),
          getShapeBuiltins(), getScanBuiltins(), getSortBuiltins(),
          getAtomicBuiltins(), getDebugBuiltins(), getPythonBuiltins(),
          getRandomBuiltins()})
      for (const BuiltinSpec &spec : family) {
        bool inserted = t.try_emplace(spec.name, &spec).second;
        assert(inserted && "a builtin is declared twice");
        (void)inserted;
      }
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
      .Case("sort", "tl.sort")
      .Case("topk", "tl.topk")
      .Case("histogram", "tl.histogram")
      .Case("gather", "tl.gather")
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
  const BuiltinSpec &spec = *it->second;
  Args a(*this, args);
  if (spec.binding != BuiltinBinding::Raw &&
      !a.bind(spec.params, spec.binding == BuiltinBinding::Varargs))
    return failure();
  return spec.build(*this, a);
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
          "load",       "store",     "atomic_add",  "atomic_min", "atomic_max",
          "atomic_and", "atomic_or", "atomic_xor",  "gather",     "scatter",
          "shape",      "strides",   "block_shape", "dtype"};
      std::string suggestion = findClosestName(name, candidates);
      return error(nameLoc,
                   "a tensor descriptor has no attribute '" + name + "'" +
                       (suggestion.empty()
                            ? std::string(" (it has load, store, atomic_add, "
                                          "atomic_min, atomic_max, "
                                          "atomic_and, atomic_or, "
                                          "atomic_xor, gather, scatter, "
                                          "shape, strides, block_shape and "
                                          "dtype)")
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
