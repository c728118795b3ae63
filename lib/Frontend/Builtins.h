//===- Builtins.h - The table of tl.* builtins ------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every builtin a kernel may call (`tl.load`, `tl.dot`, tensor methods,
// Python's `len`, `math.log`, ...) is one BuiltinSpec: its name, its
// parameters (name, required or optional, keyword-only, the kind of value
// it must be and its default) and the function that builds its ops. The
// specs live in one table per family, each in its own file:
//
//   BuiltinsCreate.cpp      program ids, arange, zeros/full, casts,
//   pointer_type BuiltinsMemory.cpp      load, store, block pointers
//   BuiltinsDescriptor.cpp  tensor descriptors and their methods
//   BuiltinsDot.cpp         tl.dot
//   BuiltinsReduce.cpp      sum, max/min, argmax/argmin, reduce, softmax
//   BuiltinsMath.cpp        element-wise math, where, inline asm
//   BuiltinsShape.cpp       reshape, trans, broadcast, join/cat/split, flip
//   BuiltinsScan.cpp        cumsum, cumprod, associative_scan
//   BuiltinsSort.cpp        sort, topk, gather, histogram
//   BuiltinsAtomic.cpp      tl.atomic_*
//   BuiltinsDebug.cpp       device_print/assert, static_assert/print, hints
//   BuiltinsPython.cpp      len, min, max, int, float, isinstance, math.*
//   CodeGenRandom.cpp       tl.rand, tl.randn, tl.randint and the 4x forms
//
// CodeGenBuiltins.cpp binds a call's arguments to a spec like Python does
// (positional, keyword, defaults, `*args`), converts each to its declared
// kind and reports every problem with Python's and Triton's wording; a
// builder only sees arguments of the right kind.
//
// This header is internal to lib/Frontend.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_BUILTINS_H
#define TILEC_LIB_FRONTEND_BUILTINS_H

#include "CodeGen.h"

#include <string>
#include <vector>

namespace tilec::frontend {

/// The largest number of elements of a tile (Triton's TRITON_MAX_TENSOR_NUMEL).
inline constexpr int64_t kMaxTileElements = 1 << 20;

/// A required parameter of kind `kind`.
inline ParamSpec req(llvm::StringRef name, ArgType kind = ArgType::Any) {
  ParamSpec p;
  p.name = name;
  p.required = true;
  p.kind = kind;
  return p;
}
/// An optional parameter (None when omitted) of kind `kind`.
inline ParamSpec opt(llvm::StringRef name, ArgType kind = ArgType::Any) {
  ParamSpec p;
  p.name = name;
  p.kind = kind;
  return p;
}
/// An optional compile-time bool, `dflt` when omitted or None.
inline ParamSpec optBool(llvm::StringRef name, bool dflt) {
  ParamSpec p = opt(name, ArgType::Bool);
  p.boolDefault = dflt;
  return p;
}
/// An optional compile-time string, `dflt` when omitted or None.
inline ParamSpec optStr(llvm::StringRef name, llvm::StringRef dflt) {
  ParamSpec p = opt(name, ArgType::Str);
  p.strDefault = dflt;
  return p;
}
/// `p`, given by keyword only (after `*args`).
inline ParamSpec kwOnly(ParamSpec p) {
  p.keywordOnly = true;
  return p;
}

/// The arguments of one builtin call, bound to its parameters and converted
/// to their kinds (CodeGenBuiltins.cpp). Index `i` is the parameter's
/// position in the spec.
class Args {
public:
  Args(CodeGen &cg, CallArgs &call) : cg(cg), call(call) {}

  /// Binds the call to `params` (extra positionals go to `varargs` when
  /// `withVarargs`) and converts every given argument to its kind,
  /// reporting each that is not; false if anything was reported.
  bool bind(llvm::ArrayRef<ParamSpec> params, bool withVarargs = false);

  /// Whether argument `i` was given (and is not None).
  bool has(size_t i) const { return bound[i] && !bound[i]->value.isNone(); }
  /// Argument `i`: as given for ArgType::Any, the run-time value for
  /// ArgType::Runtime and ArgType::Tile (numbers materialized).
  const CGValue &value(size_t i) const {
    return converted[i].value ? *converted[i].value : bound[i]->value;
  }
  /// Where argument `i` is (the call when it was not given).
  llvm::SMLoc loc(size_t i) const {
    return bound[i] ? bound[i]->loc : call.loc;
  }
  /// "argument 'NAME' of CALLEE()", for messages.
  std::string name(size_t i) const {
    return "argument '" + specs[i].name.str() + "' of " + call.calleeName +
           "()";
  }

  // Converted arguments, by kind (only for a given argument, or one with a
  // default).
  int64_t integer(size_t i) const { return converted[i].integer; }
  bool flag(size_t i) const { return converted[i].flag; }
  llvm::StringRef str(size_t i) const { return converted[i].str; }
  DType dtype(size_t i) const { return converted[i].dtype; }
  llvm::ArrayRef<int64_t> ints(size_t i) const { return converted[i].ints; }
  /// An ArgType::Int argument that may be omitted: none if it is.
  std::optional<int64_t> optInteger(size_t i) const {
    return has(i) ? std::optional<int64_t>(integer(i)) : std::nullopt;
  }

  // Conversions, for builders that convert an ArgType::Any argument only on
  // some paths. Each reports a mismatch at the argument.

  /// A compile-time integer.
  mlir::FailureOr<int64_t> toInt(size_t i);
  /// A compile-time bool, `dflt` when omitted.
  mlir::FailureOr<bool> toBool(size_t i, bool dflt);
  /// A compile-time string, `dflt` when omitted.
  mlir::FailureOr<std::string> toStr(size_t i, llvm::StringRef dflt);
  /// A dtype.
  mlir::FailureOr<DType> toDType(size_t i);
  /// A compile-time integer or tuple of them (empty when omitted).
  mlir::FailureOr<llvm::SmallVector<int64_t>> toIntList(size_t i);
  /// A run-time value (numbers are materialized as scalars).
  mlir::FailureOr<CGValue> toRuntime(size_t i);
  /// A run-time tile (not a scalar).
  mlir::FailureOr<CGValue> toTile(size_t i);
  /// The variadic positional arguments (or a single tuple given as the
  /// first of them) as compile-time integers; `what` names them.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  getVarargInts(llvm::StringRef what);

  CodeGen &cg;
  CallArgs &call;
  llvm::SmallVector<ParamSpec> specs;
  llvm::SmallVector<const CallArg *> bound;
  llvm::SmallVector<const CallArg *> varargs;

private:
  /// Converts argument `i` to specs[i].kind.
  mlir::LogicalResult convert(size_t i);

  struct Converted {
    std::optional<CGValue> value;
    int64_t integer = 0;
    bool flag = false;
    std::string str;
    DType dtype;
    llvm::SmallVector<int64_t> ints;
  };
  llvm::SmallVector<Converted> converted;
};

/// Builds a builtin's ops from its bound arguments.
using BuiltinFn = mlir::FailureOr<CGValue> (*)(CodeGen &cg, Args &args);

/// How a builtin takes its arguments.
enum class BuiltinBinding {
  /// Exactly its parameters.
  Params,
  /// Its parameters, then any number of positionals (Args::varargs).
  Varargs,
  /// Unbound: the builder reads Args::call (Python's variadic min/max,
  /// static_print, builtins that only report an error).
  Raw,
};

/// One builtin.
struct BuiltinSpec {
  llvm::StringRef name;
  BuiltinFn build;
  std::vector<ParamSpec> params;
  BuiltinBinding binding = BuiltinBinding::Params;
};

// The families of builtins (one file each, see above).
llvm::ArrayRef<BuiltinSpec> getCreateBuiltins();
llvm::ArrayRef<BuiltinSpec> getMemoryBuiltins();
llvm::ArrayRef<BuiltinSpec> getDescriptorBuiltins();
llvm::ArrayRef<BuiltinSpec> getDotBuiltins();
llvm::ArrayRef<BuiltinSpec> getReduceBuiltins();
llvm::ArrayRef<BuiltinSpec> getMathBuiltins();
llvm::ArrayRef<BuiltinSpec> getShapeBuiltins();
llvm::ArrayRef<BuiltinSpec> getScanBuiltins();
llvm::ArrayRef<BuiltinSpec> getSortBuiltins();
llvm::ArrayRef<BuiltinSpec> getAtomicBuiltins();
llvm::ArrayRef<BuiltinSpec> getDebugBuiltins();
llvm::ArrayRef<BuiltinSpec> getPythonBuiltins();
llvm::ArrayRef<BuiltinSpec> getRandomBuiltins();

//===----------------------------------------------------------------------===//
// Helpers shared by the families
//===----------------------------------------------------------------------===//

/// Checks a tile shape: powers of two, at most kMaxTileElements elements.
/// `what` starts the message.
mlir::LogicalResult checkShape(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                               llvm::SMLoc loc, llvm::StringRef what);
/// A dense constant tile of `number` (a scalar for an empty shape).
CGValue denseConstant(CodeGen &cg, DType dtype, llvm::ArrayRef<int64_t> shape,
                      const CGValue &number);
/// Converts mask argument `i` to an int1 value of `ptr`'s shape
/// (BuiltinsMemory.cpp).
mlir::FailureOr<CGValue> prepareMask(CodeGen &cg, Args &a, size_t i,
                                     const CGValue &ptr);
/// Reads argument `i`, a tuple of run-time or compile-time integers (or
/// one), and converts each to `dtype` (i64 for shapes and strides, i32 for
/// offsets) (BuiltinsMemory.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
intValues(CodeGen &cg, Args &a, size_t i, DType dtype);
/// Calls builtin `name` on positional `args` located at `loc`, reporting
/// as `calleeName`.
mlir::FailureOr<CGValue> callBuiltinWith(CodeGen &cg, llvm::StringRef name,
                                         llvm::StringRef calleeName,
                                         llvm::SMLoc loc,
                                         llvm::ArrayRef<CGValue> args);
/// Calls a user's combine function (a @jit function or a lambda, as
/// tl.reduce and tl.associative_scan take) on the accumulated values then
/// the new ones; its result, a value or a tuple, as a list
/// (BuiltinsReduce.cpp).
mlir::FailureOr<llvm::SmallVector<CGValue>>
callCombineFn(CodeGen &cg, const CGValue &fn, llvm::SMLoc loc,
              llvm::ArrayRef<CGValue> lhs, llvm::ArrayRef<CGValue> rhs);
/// `results` as a builtin's value: a tuple when its input was one.
CGValue packResults(llvm::ArrayRef<CGValue> results, bool isTuple);
/// `desc.shape` and `desc.strides` (BuiltinsDescriptor.cpp).
mlir::FailureOr<CGValue> descriptorDims(CodeGen &cg, const CGValue &desc,
                                        llvm::StringRef name,
                                        llvm::SMLoc nameLoc);
/// An int32 tile of `shape` whose value is the index along `axis`
/// (BuiltinsShape.cpp).
mlir::FailureOr<CGValue> indexAlong(CodeGen &cg, llvm::ArrayRef<int64_t> shape,
                                    int64_t axis, llvm::SMLoc loc);
/// `cond ? a : b` on run-time values of one type and shape.
CGValue selectValues(CodeGen &cg, const CGValue &cond, const CGValue &a,
                     const CGValue &b);
/// Combines two sets of values (one per input) into one.
using ValuesCombine =
    llvm::function_ref<mlir::FailureOr<llvm::SmallVector<CGValue>>(
        llvm::ArrayRef<CGValue>, llvm::ArrayRef<CGValue>)>;
/// Reduces `values` (one shape) along `axis` over the elements whose
/// `flag` (i1, same shape) is set. `combine` combines two sets of values;
/// without it, any flagged element is picked (one is flagged).
mlir::FailureOr<llvm::SmallVector<CGValue>>
flaggedReduce(CodeGen &cg, llvm::SMLoc loc, llvm::ArrayRef<CGValue> values,
              const CGValue &flag, int64_t axis, ValuesCombine combine);
/// The normalized axis argument `i` (ArgType::Int) of a tile of rank
/// `rank`, `dflt` when omitted.
mlir::FailureOr<int64_t> axisArg(CodeGen &cg, Args &a, size_t i, int64_t rank,
                                 int64_t dflt);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_BUILTINS_H
