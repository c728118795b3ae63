//===- BuiltinsAtomic.cpp - tl.atomic_*
//-------------------------------------===//
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
// Atomics
//===----------------------------------------------------------------------===//

/// Triton's `sem` and `scope` (accepted and kept on the op).
static LogicalResult atomicSemScope(CodeGen &cg, Args &a, size_t semIndex,
                                    std::string &sem, std::string &scope) {
  StringRef s = a.str(semIndex), sc = a.str(semIndex + 1);
  if (!llvm::is_contained({"relaxed", "acquire", "release", "acq_rel"}, s))
    return cg.error(a.loc(semIndex), "sem must be 'relaxed', 'acquire', "
                                     "'release' or 'acq_rel', got '" +
                                         s + "'");
  if (!llvm::is_contained({"gpu", "cta", "sys"}, sc))
    return cg.error(a.loc(semIndex + 1), "scope must be 'gpu', 'cta' or "
                                         "'sys', got '" +
                                             sc + "'");
  sem = s.str();
  scope = sc.str();
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
    bool bitwise = llvm::is_contained(
        {"tl.atomic_and", "tl.atomic_or", "tl.atomic_xor"}, a.call.calleeName);
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
    return cg.error(a.loc(i), what.str() +
                                  " must be a tile or a number, "
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

static FailureOr<CGValue> atomicRMW(CodeGen &cg, Args &a, StringRef op) {
  enum { kPtr, kVal, kMask, kSem, kScope };
  const CallArgs &call = a.call;
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
    return cg.error(a.loc(kPtr), call.calleeName +
                                     "() needs integer "
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

static FailureOr<CGValue> builtinAtomicCas(CodeGen &cg, Args &a) {
  enum { kPtr, kCmp, kVal, kSem, kScope };
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

llvm::ArrayRef<BuiltinSpec> tilec::frontend::getAtomicBuiltins() {
#define RMW(NAME, OP)                                                          \
  {                                                                            \
    NAME, [](CodeGen &cg, Args &a) { return atomicRMW(cg, a, OP); }, {         \
      req("pointer"), req("val"), opt("mask"), optStr("sem", "acq_rel"),       \
          optStr("scope", "gpu")                                               \
    }                                                                          \
  }
  static const BuiltinSpec specs[] = {
      RMW("tl.atomic_add", "add"),
      RMW("tl.atomic_max", "max"),
      RMW("tl.atomic_min", "min"),
      RMW("tl.atomic_and", "and"),
      RMW("tl.atomic_or", "or"),
      RMW("tl.atomic_xor", "xor"),
      RMW("tl.atomic_xchg", "xchg"),
      {"tl.atomic_cas",
       builtinAtomicCas,
       {req("pointer"), req("cmp"), req("val"), optStr("sem", "acq_rel"),
        optStr("scope", "gpu")}},
  };
#undef RMW
  return specs;
}
