//===- AtomicOpToLLVM.cpp - tl.atomic_* on global memory ------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tile.atomic_rmw and tile.atomic_cas become one PTX `atom` per element a
// thread holds (PTX ISA §9.7.13.5), predicated by the element's mask and by
// ownership: a tile smaller than the CTA is replicated over lanes/warps,
// and only one of the threads holding an element may apply it (a scalar
// pointer: thread 0). Triton's `sem` and `scope` are the instruction's
// `.sem` and `.scope` qualifiers, written out as inline PTX because LLVM's
// NVPTX backend drops the ordering of native atomics (an acq_rel
// `atomicrmw fadd` becomes a relaxed `atom.add.f32`).
//
// What `atom` has no instruction for goes through LLVM's `atomicrmw` with
// the matching ordering and syncscope, which NVPTX expands into a CAS loop
// carrying the `.sem`: 16-bit integer operations and 16-bit float max/min.
// f32/f64 max/min use the integer order of IEEE bits: a non-negative value
// with signed `atom.max/min.s`, a negative one with unsigned
// `atom.min/max.u` (NaNs are ordered by their bits).
//
// The old values are the op's result; where the tile is replicated (or the
// pointer is a scalar) and the result is used, the owner's values are
// shared with the other threads through shared memory.
//
// An f32 add whose result is unused, relaxed or release, is a reduction:
// `red` (PTX ISA §9.7.13.6), which returns nothing, so the thread neither
// waits for it nor keeps a register for it; runs of 2 or 4 consecutive,
// aligned elements a thread holds (tile-axis-info, as for stores) go as one
// `red.global.add.v2/.v4.f32` (sm_90, PTX 8.1). FlashAttention-2's backward
// adds its dQ share this way, 16 bytes per instruction (layout inference
// gathers the wgmma accumulator's pairs into runs of 4).
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Analysis/AccessWidth.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;
using namespace tilec::lowering;

namespace {

/// The inline-asm register constraint of an integer of `bits`.
StringRef constraintFor(unsigned bits) {
  return bits == 64 ? "l" : bits == 32 ? "r" : "h";
}

Value toBits(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (type.isInteger())
    return value;
  return arith::BitcastOp::create(
      b, loc, b.getIntegerType(type.getIntOrFloatBitWidth()), value);
}

Value fromBits(OpBuilder &b, Location loc, Value bits, Type type) {
  if (bits.getType() == type)
    return bits;
  return arith::BitcastOp::create(b, loc, type, bits);
}

/// The operands of an `atom` or `red` in inline asm, numbered from
/// `first`: the predicate (when there is one), the address, then `values`
/// in `reg` registers.
struct AtomicAsmOperands {
  SmallVector<Value> values;
  SmallVector<std::string> constraints;
  /// `@$k ` where there is a predicate, else empty.
  std::string guard;
  /// `$k` of the address, and of each value.
  std::string addr;
  SmallVector<std::string> names;

  AtomicAsmOperands(unsigned first, Value pred, Value address,
                    ArrayRef<Value> operands, StringRef reg) {
    auto add = [&](Value v, StringRef constraint) {
      values.push_back(v);
      constraints.push_back(constraint.str());
      return "$" + std::to_string(first++);
    };
    if (pred)
      guard = "@" + add(pred, "b") + " ";
    addr = add(address, "l");
    for (Value operand : operands)
      names.push_back(add(operand, reg));
  }
};

Operation *createAtomicAsm(OpBuilder &b, Location loc, TypeRange results,
                           ArrayRef<Value> operands, StringRef text,
                           ArrayRef<std::string> constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, results, operands, text, llvm::join(constraints, ","),
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

/// `[@pred] atom.<sem>.<scope>.global.<opType> d, [addr], operands…` on
/// integer bits; where `pred` is false the result is 0.
Value emitAtom(OpBuilder &b, Location loc, StringRef sem, StringRef scope,
               StringRef opType, Value addr, ArrayRef<Value> operands,
               Value pred) {
  auto intType = cast<IntegerType>(operands.front().getType());
  StringRef reg = constraintFor(intType.getWidth());
  AtomicAsmOperands asmOperands(/*first=*/1, pred, addr, operands, reg);
  std::string text;
  if (pred)
    text = llvm::formatv("mov.b{0} $0, 0;\n\t", intType.getWidth());
  text += llvm::formatv("{0}atom.{1}.{2}.global.{3} $0, [{4}], {5};",
                        asmOperands.guard, sem, scope, opType, asmOperands.addr,
                        llvm::join(asmOperands.names, ", "));
  SmallVector<std::string> constraints{("=" + reg).str()};
  llvm::append_range(constraints, asmOperands.constraints);
  return createAtomicAsm(b, loc, intType, asmOperands.values, text, constraints)
      ->getResult(0);
}

/// `[@pred] red.<sem>.<scope>.global.add[.v2|.v4].f32 [addr], {values…}`.
void emitRed(OpBuilder &b, Location loc, StringRef sem, StringRef scope,
             Value addr, ArrayRef<Value> values, Value pred) {
  SmallVector<Value> bits;
  for (Value value : values)
    bits.push_back(toBits(b, loc, value));
  AtomicAsmOperands asmOperands(/*first=*/0, pred, addr, bits, "r");
  std::string vec = values.size() > 1 ? ".v" + std::to_string(values.size()) : "";
  std::string operand = values.size() > 1
                            ? "{" + llvm::join(asmOperands.names, ", ") + "}"
                            : asmOperands.names.front();
  std::string text = llvm::formatv("{0}red.{1}.{2}.global.add{3}.f32 [{4}], {5};",
                                   asmOperands.guard, sem, scope, vec,
                                   asmOperands.addr, operand);
  createAtomicAsm(b, loc, TypeRange(), asmOperands.values, text,
                  asmOperands.constraints);
}

LLVM::AtomicOrdering getOrdering(StringRef sem) {
  return llvm::StringSwitch<LLVM::AtomicOrdering>(sem)
      .Case("relaxed", LLVM::AtomicOrdering::monotonic)
      .Case("acquire", LLVM::AtomicOrdering::acquire)
      .Case("release", LLVM::AtomicOrdering::release)
      .Default(LLVM::AtomicOrdering::acq_rel);
}

/// NVPTX's syncscope names for Triton's scopes (system scope is LLVM's
/// default, the empty name).
StringRef getSyncScope(StringRef scope) {
  return llvm::StringSwitch<StringRef>(scope)
      .Case("cta", "block")
      .Case("gpu", "device")
      .Default("");
}

/// `atomicrmw` (a CAS loop after NVPTX's atomic expansion), under `scf.if`
/// where `pred` may be false (0 there).
Value emitLLVMAtomic(OpBuilder &b, Location loc, LLVM::AtomicBinOp binOp,
                     StringRef sem, StringRef scope, Value addr, Value value,
                     Value pred) {
  auto build = [&](OpBuilder &nested, Location l) -> Value {
    return LLVM::AtomicRMWOp::create(nested, l, binOp, addr, value,
                                     getOrdering(sem), getSyncScope(scope));
  };
  if (!pred)
    return build(b, loc);
  Type type = value.getType();
  auto ifOp = scf::IfOp::create(
      b, loc, pred,
      [&](OpBuilder &nested, Location l) {
        scf::YieldOp::create(nested, l, build(nested, l));
      },
      [&](OpBuilder &nested, Location l) {
        Value zero = arith::ConstantOp::create(nested, l, nested.getZeroAttr(type));
        scf::YieldOp::create(nested, l, zero);
      });
  return ifOp.getResult(0);
}

/// One element of a tile.atomic_rmw of `kind`; returns the old value.
Value emitAtomicRMW(OpBuilder &b, Location loc, StringRef kind, StringRef sem,
                    StringRef scope, Value addr, Value value, Value pred) {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  std::string width = std::to_string(bits);
  auto atom = [&](StringRef opType, Value operand, Value p) {
    return emitAtom(b, loc, sem, scope, opType, addr, {toBits(b, loc, operand)}, p);
  };
  if (kind == "fadd") {
    std::string opType = type.isF16()    ? "add.noftz.f16"
                         : type.isBF16() ? "add.noftz.bf16"
                                         : "add.f" + width;
    return fromBits(b, loc, atom(opType, value, pred), type);
  }
  if (kind == "fmax" || kind == "fmin") {
    if (bits == 16)
      return emitLLVMAtomic(b, loc,
                            kind == "fmax" ? LLVM::AtomicBinOp::fmax
                                           : LLVM::AtomicBinOp::fmin,
                            sem, scope, addr, value, pred);
    // Non-negative values order like signed integers, negative ones
    // reversed like unsigned integers.
    Value valueBits = toBits(b, loc, value);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(valueBits.getType()));
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           valueBits, zero);
    Value positive = arith::XOrIOp::create(
        b, loc, negative, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    if (pred) {
      negative = arith::AndIOp::create(b, loc, negative, pred);
      positive = arith::AndIOp::create(b, loc, positive, pred);
    }
    bool isMax = kind == "fmax";
    Value signedOld = atom((isMax ? "max.s" : "min.s") + width, valueBits, positive);
    Value unsignedOld = atom((isMax ? "min.u" : "max.u") + width, valueBits, negative);
    Value old = arith::SelectOp::create(b, loc, negative, unsignedOld, signedOld);
    return fromBits(b, loc, old, type);
  }
  if (bits == 16) {
    auto binOp = llvm::StringSwitch<LLVM::AtomicBinOp>(kind)
                     .Case("add", LLVM::AtomicBinOp::add)
                     .Case("max", LLVM::AtomicBinOp::max)
                     .Case("umax", LLVM::AtomicBinOp::umax)
                     .Case("min", LLVM::AtomicBinOp::min)
                     .Case("umin", LLVM::AtomicBinOp::umin)
                     .Case("and", LLVM::AtomicBinOp::_and)
                     .Case("or", LLVM::AtomicBinOp::_or)
                     .Case("xor", LLVM::AtomicBinOp::_xor)
                     .Default(LLVM::AtomicBinOp::xchg);
    Value old = emitLLVMAtomic(b, loc, binOp, sem, scope, addr,
                               toBits(b, loc, value), pred);
    return fromBits(b, loc, old, type);
  }
  std::string opType = llvm::StringSwitch<std::string>(kind)
                           .Case("add", "add.u" + width)
                           .Case("max", "max.s" + width)
                           .Case("umax", "max.u" + width)
                           .Case("min", "min.s" + width)
                           .Case("umin", "min.u" + width)
                           .Case("and", "and.b" + width)
                           .Case("or", "or.b" + width)
                           .Case("xor", "xor.b" + width)
                           .Default("exch.b" + width);
  return fromBits(b, loc, atom(opType, value, pred), type);
}

/// Where the op's tile is replicated, the predicate of the thread that
/// applies each element (thread 0 for a scalar pointer); null otherwise.
/// Sets `layout` for a tile.
FailureOr<Value> getOwnerPredicate(OpBuilder &b, Location loc, Type ptrType,
                                   std::optional<LinearLayout> &layout) {
  ThreadIndices ids = getThreadIndices(b, loc);
  auto type = dyn_cast<RankedTensorType>(ptrType);
  if (!type)
    return Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       ids.thread, i32Val(b, loc, 0)));
  FailureOr<LinearLayout> found = getLayoutOf(loc, type);
  if (failed(found))
    return failure();
  layout = *found;
  if (layout->getReplicatedMask(HwDim::Register))
    return emitError(loc) << "atomics on a tile whose layout repeats "
                             "elements within a thread are not supported";
  if (!layout->getReplicatedMask(HwDim::Lane) &&
      !layout->getReplicatedMask(HwDim::Warp))
    return Value();
  return emitIsOwner(b, loc, *layout, ids);
}

/// Gives every thread holding an element the old value its owner got:
/// owners write their values to shared memory (a scalar pointer's other
/// threads to a spare slot), and every thread reads its elements back.
SmallVector<Value> shareOwnerResults(OpBuilder &b, Location loc,
                                     Operation *anchor, LoweringState &state,
                                     ValueRange results, Value owner,
                                     const std::optional<LinearLayout> &layout,
                                     Type ptrType) {
  if (!layout) {
    // A scalar pointer: thread 0 writes slot 0, the others slot 1.
    Type type = results.front().getType();
    state.requireScratch(anchor, 2 * getStorageBytes(type));
    Value slot = arith::SelectOp::create(b, loc, owner, i32Val(b, loc, 0),
                                         i32Val(b, loc, 1));
    emitBarrier(b, loc, anchor);
    storeSharedElement(b, loc, anchor, 0, slot, results.front());
    emitBarrier(b, loc, anchor);
    return {loadSharedElement(b, loc, anchor, 0, i32Val(b, loc, 0), type)};
  }
  // The exchange itself lets only the owner of each element write it.
  ArrayRef<int64_t> shape = cast<RankedTensorType>(ptrType).getShape();
  auto linearIndex = [&](OpBuilder &nb, ArrayRef<Value> coord) {
    return emitLinearIndex(nb, loc, coord, shape);
  };
  return exchangeThroughSharedMemory(b, loc, anchor, state, results, *layout,
                                     *layout, ShapedType::getNumElements(shape),
                                     linearIndex, linearIndex);
}

template <typename Op>
struct AtomicOpLowering : OpConversionPattern<Op> {
  AtomicOpLowering(TileGPUTypeConverter &converter, MLIRContext *ctx,
                   LoweringState &state)
      : OpConversionPattern<Op>(converter, ctx), state(state) {}
  using OneToNOpAdaptor = typename OpConversionPattern<Op>::OneToNOpAdaptor;

  /// The old value of slot `s`, applied where `pred` holds.
  virtual Value emitSlot(OpBuilder &b, Location loc, Op op,
                         OneToNOpAdaptor &adaptor, size_t s,
                         Value pred) const = 0;
  virtual Value getSlotMask(OneToNOpAdaptor &adaptor, size_t s) const = 0;

  /// Where slot `s` is applied: its mask, and the owner predicate of a
  /// replicated tile (null: everywhere).
  Value getSlotPredicate(OpBuilder &b, Location loc, OneToNOpAdaptor &adaptor,
                         size_t s, Value owner) const {
    Value pred = getSlotMask(adaptor, s);
    if (!owner)
      return pred;
    return pred ? arith::AndIOp::create(b, loc, pred, owner).getResult() : owner;
  }

  /// Lowers `op` without old values (a reduction) and returns true, or
  /// returns false to have it lowered slot by slot.
  virtual bool lowerWithoutResults(OpBuilder &b, Location loc, Op op,
                                   OneToNOpAdaptor &adaptor, Value owner,
                                   const std::optional<LinearLayout> &layout) const {
    return false;
  }

  LogicalResult
  matchAndRewrite(Op op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<LinearLayout> layout;
    FailureOr<Value> owner =
        getOwnerPredicate(rewriter, loc, op.getPtr().getType(), layout);
    if (failed(owner))
      return failure();
    if (lowerWithoutResults(rewriter, loc, op, adaptor, *owner, layout)) {
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> results;
    for (size_t s = 0, e = adaptor.getPtr().size(); s < e; ++s) {
      Value pred = getSlotPredicate(rewriter, loc, adaptor, s, *owner);
      results.push_back(emitSlot(rewriter, loc, op, adaptor, s, pred));
    }
    if (*owner && !op.getResult().use_empty())
      results = shareOwnerResults(rewriter, loc, op, state, results, *owner,
                                  layout, op.getPtr().getType());
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  LoweringState &state;
};

struct AtomicRMWOpLowering : AtomicOpLowering<tile::AtomicRMWOp> {
  using AtomicOpLowering::AtomicOpLowering;

  /// An f32 reduction: `red`, in runs of up to 4 elements.
  bool lowerWithoutResults(OpBuilder &b, Location loc, tile::AtomicRMWOp op,
                           OneToNOpAdaptor &adaptor, Value owner,
                           const std::optional<LinearLayout> &layout) const override {
    if (!op.isReduction() || !getElementTypeOrSelf(op.getValue().getType()).isF32())
      return false;
    unsigned vec = 1;
    if (layout && state.vectorReductions)
      vec = std::min(4u, getAccessVectorWidth(state.axisInfo, op.getPtr(),
                                              op.getMask(), /*eltBytes=*/4));
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue();
    for (size_t s = 0, e = ptrs.size(); s < e; s += vec) {
      Value pred = getSlotPredicate(b, loc, adaptor, s, owner);
      SmallVector<Value> run(values.slice(s, vec));
      emitRed(b, loc, op.getSem(), op.getScope(), ptrs[s], run, pred);
    }
    return true;
  }

  Value getSlotMask(OneToNOpAdaptor &adaptor, size_t s) const override {
    return adaptor.getMask().empty() ? Value() : adaptor.getMask()[s];
  }
  Value emitSlot(OpBuilder &b, Location loc, tile::AtomicRMWOp op,
                 OneToNOpAdaptor &adaptor, size_t s, Value pred) const override {
    return emitAtomicRMW(b, loc, op.getKind(), op.getSem(), op.getScope(),
                         adaptor.getPtr()[s], adaptor.getValue()[s], pred);
  }
};

struct AtomicCASOpLowering : AtomicOpLowering<tile::AtomicCASOp> {
  using AtomicOpLowering::AtomicOpLowering;
  Value getSlotMask(OneToNOpAdaptor &, size_t) const override { return {}; }
  Value emitSlot(OpBuilder &b, Location loc, tile::AtomicCASOp op,
                 OneToNOpAdaptor &adaptor, size_t s, Value pred) const override {
    Value value = adaptor.getValue()[s];
    unsigned bits = value.getType().getIntOrFloatBitWidth();
    Value old = emitAtom(b, loc, op.getSem(), op.getScope(),
                         "cas.b" + std::to_string(bits), adaptor.getPtr()[s],
                         {toBits(b, loc, adaptor.getCmp()[s]), toBits(b, loc, value)},
                         pred);
    return fromBits(b, loc, old, value.getType());
  }
};

} // namespace

void lowering::populateAtomicOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              LoweringState &state) {
  patterns.add<AtomicRMWOpLowering, AtomicCASOpLowering>(
      converter, patterns.getContext(), state);
}
