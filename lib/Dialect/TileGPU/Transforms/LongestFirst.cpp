//===- LongestFirst.cpp - launch the longest programs first ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tilegpu-longest-first pass (see Passes.td): how each loop's trip count
// moves with program_id(0) (the slope of its bounds), and, in kernels whose
// programs cannot observe each other and whose work only grows with
// program_id(0), the kernel attribute that makes the lowering hand out
// program ids longest first.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/ProgramOrder.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tilec::tilegpu {
#define GEN_PASS_DEF_TILEGPULONGESTFIRST
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilec::tilegpu

using namespace mlir;
using namespace tilec;
using namespace tilec::tilegpu;

namespace {

/// How an integer moves with `tl.program_id(0)` = p, the other program ids
/// and the kernel's arguments held fixed: `k * p + c` (Linear, k known;
/// k = 0: it does not depend on p), or only known never to decrease
/// (Increasing) or never to increase (Decreasing), or Unknown.
struct Slope {
  enum Kind { Linear, Increasing, Decreasing, Unknown } kind = Unknown;
  int64_t k = 0;

  static Slope linear(int64_t k) { return {Linear, k}; }
  static Slope increasing() { return {Increasing, 0}; }
  static Slope decreasing() { return {Decreasing, 0}; }
  static Slope unknown() { return {Unknown, 0}; }

  bool isConstant() const { return kind == Linear && k == 0; }
  bool neverDecreases() const {
    return (kind == Linear && k >= 0) || kind == Increasing;
  }
  bool neverIncreases() const {
    return (kind == Linear && k <= 0) || kind == Decreasing;
  }
  /// The direction alone (a positive factor or a floor division keeps it).
  Slope direction() const {
    if (isConstant() || kind == Unknown)
      return *this;
    return neverDecreases() ? increasing() : decreasing();
  }
  Slope negated() const {
    switch (kind) {
    case Linear:
      return linear(-k);
    case Increasing:
      return decreasing();
    case Decreasing:
      return increasing();
    case Unknown:
      return unknown();
    }
    llvm_unreachable("slope kind");
  }
};

/// The largest |k| taken as linear: the i32 bounds of a loop over a grid
/// axis do not wrap with slopes up to this (a block size times a few);
/// beyond it `k * p` may wrap, and the slope is unknown.
constexpr int64_t kMaxSlope = int64_t(1) << 20;

/// Increasing when neither `a` nor `b` decreases, decreasing when neither
/// increases, else unknown.
Slope sameDirection(Slope a, Slope b) {
  if (a.neverDecreases() && b.neverDecreases())
    return Slope::increasing();
  if (a.neverIncreases() && b.neverIncreases())
    return Slope::decreasing();
  return Slope::unknown();
}

Slope add(Slope a, Slope b) {
  if (a.kind == Slope::Linear && b.kind == Slope::Linear) {
    int64_t k;
    if (llvm::AddOverflow(a.k, b.k, k) || k > kMaxSlope || k < -kMaxSlope)
      return Slope::unknown();
    return Slope::linear(k);
  }
  if (a.isConstant())
    return b;
  if (b.isConstant())
    return a;
  return sameDirection(a, b);
}

Slope scale(Slope a, int64_t c) {
  if (c == 0)
    return Slope::linear(0);
  if (a.kind == Slope::Linear) {
    int64_t k;
    if (llvm::MulOverflow(a.k, c, k) || k > kMaxSlope || k < -kMaxSlope)
      return Slope::unknown();
    return Slope::linear(k);
  }
  if (c > kMaxSlope || c < -kMaxSlope)
    return Slope::unknown();
  return c > 0 ? a : a.negated();
}

/// Both sides moving the same way: min, max, a select on a condition that
/// does not depend on p.
Slope either(Slope a, Slope b) {
  if (a.kind == Slope::Linear && b.kind == Slope::Linear && a.k == b.k)
    return a;
  return sameDirection(a, b);
}

std::optional<int64_t> constantInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// The slopes of a kernel's integers, computed on demand (memoized).
class SlopeAnalysis {
public:
  /// `persistent`: the kernel loops over virtual programs
  /// (tilegpu-persistent); program_id(0) is then
  /// `tilegpu.persistent_program_id` on axis 0, and `tl.program_id` only
  /// the CTA's place in the launch, the same for every program.
  explicit SlopeAnalysis(bool persistent) : persistent(persistent) {}

  Slope get(Value v) {
    auto it = slopes.find(v);
    if (it != slopes.end())
      return it->second;
    // Cycles (loop-carried values) read as unknown.
    slopes[v] = Slope::unknown();
    Slope s = compute(v);
    slopes[v] = s;
    return s;
  }

  /// How the trip count of `loop` moves with p.
  Slope tripCount(scf::ForOp loop) {
    // An unsigned loop's bounds compare as unsigned: not monotone where
    // they cross zero.
    if (loop.getUnsignedCmp())
      return Slope::unknown();
    Slope step = get(loop.getStep());
    if (!step.isConstant())
      return Slope::unknown();
    return add(get(loop.getUpperBound()), get(loop.getLowerBound()).negated())
        .direction();
  }

private:
  Slope compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<FunctionOpInterface>(owner))
        return Slope::linear(0);
      // A loop's induction variable runs over the same values in every
      // program when the bounds do.
      if (auto loop = dyn_cast<scf::ForOp>(owner))
        if (arg == loop.getInductionVar() &&
            get(loop.getLowerBound()).isConstant() &&
            get(loop.getUpperBound()).isConstant() &&
            get(loop.getStep()).isConstant())
          return Slope::linear(0);
      return Slope::unknown();
    }
    Operation *op = v.getDefiningOp();
    auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
    auto binary = [&](auto combine) { return combine(operand(0), operand(1)); };
    // An op without regions gives every program the same result when its
    // operands are the same in all of them.
    auto sameWhenOperandsAre = [&](Operation *other) {
      bool same = other->getNumRegions() == 0 &&
                  llvm::all_of(other->getOperands(),
                               [&](Value x) { return get(x).isConstant(); });
      return same ? Slope::linear(0) : Slope::unknown();
    };
    return llvm::TypeSwitch<Operation *, Slope>(op)
        .Case([&](tile::ProgramIdOp pid) {
          return Slope::linear(pid.getAxis() == 0 && !persistent ? 1 : 0);
        })
        .Case([](PersistentProgramIdOp pid) {
          return Slope::linear(pid.getAxis() == 0 ? 1 : 0);
        })
        .Case<tile::NumProgramsOp>([](auto) { return Slope::linear(0); })
        .Case<arith::ConstantOp>([](auto) { return Slope::linear(0); })
        .Case<arith::AddIOp>([&](auto) { return binary(add); })
        .Case<arith::SubIOp>([&](auto) {
          return add(operand(0), operand(1).negated());
        })
        .Case<arith::MulIOp>([&](arith::MulIOp mul) {
          if (std::optional<int64_t> c = constantInt(mul.getRhs()))
            return scale(operand(0), *c);
          if (std::optional<int64_t> c = constantInt(mul.getLhs()))
            return scale(operand(1), *c);
          return sameWhenOperandsAre(mul);
        })
        // Signed arithmetic only: an unsigned division, shift, min or
        // extension of a value that crosses zero is not monotone.
        .Case<arith::DivSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
              arith::ShRSIOp>([&](Operation *div) {
          // A floor or ceiling division by a positive constant keeps the
          // direction (DivSI truncates toward zero: still monotone).
          std::optional<int64_t> c = constantInt(div->getOperand(1));
          if (c && *c > 0)
            return operand(0).direction();
          return sameWhenOperandsAre(div);
        })
        .Case<arith::MinSIOp, arith::MaxSIOp>(
            [&](auto) { return binary(either); })
        .Case<arith::SelectOp>([&](auto) {
          return operand(0).isConstant() ? either(operand(1), operand(2))
                                         : Slope::unknown();
        })
        .Case<arith::ExtSIOp, arith::IndexCastOp>(
            [&](auto) { return operand(0); })
        // Anything else (an op with regions may read p inside them).
        .Default(sameWhenOperandsAre);
  }

  bool persistent;
  DenseMap<Value, Slope> slopes;
};

} // namespace

ProgramWork tilec::tilegpu::analyzeProgramWork(func::FuncOp func) {
  scf::ForOp persistentLoop = getPersistentLoop(func);
  SlopeAnalysis slopes{/*persistent=*/bool(persistentLoop)};
  ProgramWork work;
  func.walk([&](scf::ForOp loop) {
    if (loop == persistentLoop)
      return;
    Slope trips = slopes.tripCount(loop);
    if (trips.isConstant())
      return;
    if (trips.neverDecreases()) {
      if (!work.longer)
        work.longer = loop;
      return;
    }
    work.mixed = true;
    if (!work.varying)
      work.varying = loop;
  });
  if (!work.varying)
    work.varying = work.longer;
  return work;
}

namespace {

struct TileGPULongestFirstPass
    : tilegpu::impl::TileGPULongestFirstBase<TileGPULongestFirstPass> {
  using TileGPULongestFirstBase::TileGPULongestFirstBase;

  void runOnOperation() override {
    if (group == 0) {
      getOperation().emitError("tilegpu-longest-first: group must be at least 1");
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(tile::kKernelAttrName) && !func.isExternal())
        runOnKernel(func);
  }

  void runOnKernel(func::FuncOp func) {
    // Clusters pair programs 2k, 2k + 1 (tilegpu-cluster-multicast).
    if (func->hasAttr(TileGPUDialect::getClusterDimsAttrName()))
      return;
    ProgramWork work = analyzeProgramWork(func);
    scf::ForOp longer = work.longer;
    if (!longer || work.mixed)
      return;
    std::string why = whyProgramsMayObserveEachOther(func);
    if (!why.empty()) {
      emitRemark(longer.getLoc())
          << "loop runs more iterations for larger program_id(0), but the "
             "programs keep the launch order: "
          << why;
      return;
    }
    func->setAttr(TileGPUDialect::getLongestFirstAttrName(),
                  IntegerAttr::get(IntegerType::get(func.getContext(), 32),
                                   static_cast<unsigned>(group)));
    emitRemark(longer.getLoc())
        << "loop runs more iterations for larger program_id(0): the "
           "programs start longest first (program_id(0) counts down along "
           "the launch, program_id(1) cycles through groups of "
        << static_cast<unsigned>(group) << ")";
  }
};

} // namespace
