//===- AxisInfo.cpp - contiguity, divisibility, constancy -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/AxisInfo.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

#define DEBUG_TYPE "tile-axis-info"

using namespace mlir;
using namespace tilec;

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// Largest power of two dividing `value` (kMaxDivisibility for 0).
static int64_t highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return AxisInfo::kMaxDivisibility;
  uint64_t v = value < 0 ? -static_cast<uint64_t>(value) : value;
  return std::min<int64_t>(AxisInfo::kMaxDivisibility, int64_t(v & (~v + 1)));
}

static int64_t mulDivisibility(int64_t a, int64_t b) {
  if (a >= AxisInfo::kMaxDivisibility / b)
    return AxisInfo::kMaxDivisibility;
  return a * b;
}

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility,
                   DimVector constancy, std::optional<int64_t> constantValue)
    : contiguity(std::move(contiguity)), divisibility(std::move(divisibility)),
      constancy(std::move(constancy)), constantValue(constantValue) {}

AxisInfo AxisInfo::getPessimistic(unsigned rank) {
  return AxisInfo(DimVector(rank, 1), DimVector(rank, 1), DimVector(rank, 1));
}

AxisInfo AxisInfo::getConstant(ArrayRef<int64_t> shape, int64_t value) {
  DimVector constancy(shape.begin(), shape.end());
  if (constancy.empty())
    constancy.push_back(1);
  unsigned rank = constancy.size();
  return AxisInfo(DimVector(rank, 1),
                  DimVector(rank, highestPowerOf2Divisor(value)), constancy,
                  value);
}

/// Shape of a tile, or [1] for a scalar.
static SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {1};
}

/// Bytes of one pointee element (1 for anything that is not a pointer).
static int64_t pointeeBytes(Type type) {
  auto ptr = dyn_cast<tile::PointerType>(tile::getElementTypeOrSelf(type));
  if (!ptr || !ptr.getPointeeType().isIntOrFloat())
    return 1;
  return std::max<int64_t>(1, ptr.getPointeeType().getIntOrFloatBitWidth() / 8);
}

AxisInfo AxisInfo::getDefault(Type type, int64_t divisibility) {
  AxisInfo info = getPessimistic(shapeOf(type).size());
  int64_t div = std::max(divisibility, pointeeBytes(type));
  for (int64_t &d : info.divisibility)
    d = highestPowerOf2Divisor(div);
  return info;
}

int64_t AxisInfo::getEffectiveDivisibility(unsigned d, int64_t group,
                                           int64_t unit) const {
  if (contiguity[d] > group)
    return gcd(divisibility[d], group * unit);
  return divisibility[d];
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (lhs.isUninitialized())
    return rhs;
  if (rhs.isUninitialized())
    return lhs;
  if (lhs.getRank() != rhs.getRank())
    return getPessimistic(std::max(lhs.getRank(), rhs.getRank()));
  DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    c.push_back(gcd(lhs.contiguity[d], rhs.contiguity[d]));
    v.push_back(gcd(lhs.divisibility[d], rhs.divisibility[d]));
    k.push_back(gcd(lhs.constancy[d], rhs.constancy[d]));
  }
  std::optional<int64_t> cst;
  if (lhs.constantValue == rhs.constantValue)
    cst = lhs.constantValue;
  return AxisInfo(c, v, k, cst);
}

void AxisInfo::print(raw_ostream &os) const {
  if (isUninitialized()) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](ArrayRef<int64_t> values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constantValue)
    os << ", constant = " << *constantValue;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {

/// Computes the AxisInfo of an op's result from its operands' infos.
class AxisInfoRules {
public:
  AxisInfoRules(Operation *op, ArrayRef<AxisInfo> operands)
      : op(op), operands(operands) {}

  AxisInfo compute();

private:
  AxisInfo constant(arith::ConstantOp cst);
  AxisInfo makeRange(tile::MakeRangeOp range);
  AxisInfo splat(tile::SplatOp splat);
  AxisInfo broadcast(tile::BroadcastOp bcast);
  AxisInfo expandDims(tile::ExpandDimsOp expand);
  /// lhs + rhs * rhsScale: rhsScale is the pointee size for pointer
  /// arithmetic (contiguity counts elements, divisibility counts bytes).
  AxisInfo add(const AxisInfo &lhs, const AxisInfo &rhs, int64_t rhsScale);
  AxisInfo sub(const AxisInfo &lhs, const AxisInfo &rhs);
  AxisInfo mul(const AxisInfo &lhs, const AxisInfo &rhs);
  AxisInfo remByConstant(const AxisInfo &lhs, int64_t divisor);
  AxisInfo remByValue(const AxisInfo &lhs, const AxisInfo &rhs);
  AxisInfo compare(arith::CmpIOp cmp);
  AxisInfo select(const AxisInfo &cond, const AxisInfo &a, const AxisInfo &b);
  /// Any other elementwise op: equal inputs give equal outputs.
  AxisInfo elementwise();

  unsigned rank() const { return shapeOf(op->getResult(0).getType()).size(); }

  Operation *op;
  ArrayRef<AxisInfo> operands;
};

} // namespace

AxisInfo AxisInfoRules::constant(arith::ConstantOp cst) {
  Type type = cst.getType();
  if (auto attr = dyn_cast<IntegerAttr>(cst.getValue()))
    return AxisInfo::getConstant({}, attr.getValue().getSExtValue());
  if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue()))
    if (dense.isSplat())
      return AxisInfo::getConstant(shapeOf(type),
                                   dense.getSplatValue<APInt>().getSExtValue());
  AxisInfo info = AxisInfo::getPessimistic(rank());
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      dense && dense.isSplat()) {
    SmallVector<int64_t> shape = shapeOf(type);
    return AxisInfo(AxisInfo::DimVector(rank(), 1),
                    AxisInfo::DimVector(rank(), 1),
                    AxisInfo::DimVector(shape.begin(), shape.end()));
  }
  return info;
}

AxisInfo AxisInfoRules::makeRange(tile::MakeRangeOp range) {
  return AxisInfo({range.getEnd() - range.getStart()},
                  {highestPowerOf2Divisor(range.getStart())}, {1});
}

AxisInfo AxisInfoRules::splat(tile::SplatOp splat) {
  const AxisInfo &src = operands[0];
  SmallVector<int64_t> shape = shapeOf(splat.getType());
  return AxisInfo(AxisInfo::DimVector(shape.size(), 1),
                  AxisInfo::DimVector(shape.size(), src.getDivisibility(0)),
                  AxisInfo::DimVector(shape.begin(), shape.end()), src.getConstantValue());
}

AxisInfo AxisInfoRules::broadcast(tile::BroadcastOp bcast) {
  const AxisInfo &src = operands[0];
  SmallVector<int64_t> srcShape = shapeOf(bcast.getSrc().getType());
  SmallVector<int64_t> resShape = shapeOf(bcast.getType());
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < resShape.size(); ++d) {
    bool expanded = srcShape[d] == 1 && resShape[d] > 1;
    c.push_back(expanded ? 1 : src.getContiguity(d));
    v.push_back(src.getDivisibility(d));
    k.push_back(expanded ? resShape[d] : src.getConstancy(d));
  }
  return AxisInfo(c, v, k, src.getConstantValue());
}

AxisInfo AxisInfoRules::expandDims(tile::ExpandDimsOp expand) {
  const AxisInfo &src = operands[0];
  // Along the new dimension every value is a group of its own: its
  // divisibility is what holds for every value of the source.
  int64_t everyValue = AxisInfo::kMaxDivisibility;
  for (unsigned d = 0; d < src.getRank(); ++d)
    everyValue = gcd(everyValue, src.getEffectiveDivisibility(d, 1));
  AxisInfo::DimVector c(src.getContiguity()), v(src.getDivisibility()),
      k(src.getConstancy());
  unsigned axis = expand.getAxis();
  c.insert(c.begin() + axis, 1);
  v.insert(v.begin() + axis, everyValue);
  k.insert(k.begin() + axis, 1);
  return AxisInfo(c, v, k, src.getConstantValue());
}

AxisInfo AxisInfoRules::add(const AxisInfo &lhs, const AxisInfo &rhs,
                            int64_t rhsScale) {
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    // A contiguous run plus a value constant over the run stays contiguous.
    int64_t cd = std::max(gcd(lhs.getContiguity(d), rhs.getConstancy(d)),
                          gcd(lhs.getConstancy(d), rhs.getContiguity(d)));
    c.push_back(cd);
    v.push_back(gcd(lhs.getEffectiveDivisibility(d, cd, rhsScale),
                    mulDivisibility(rhs.getEffectiveDivisibility(d, cd), rhsScale)));
    k.push_back(gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
  }
  std::optional<int64_t> cst;
  if (lhs.getConstantValue() && rhs.getConstantValue())
    cst = *lhs.getConstantValue() + *rhs.getConstantValue() * rhsScale;
  return AxisInfo(c, v, k, cst);
}

AxisInfo AxisInfoRules::sub(const AxisInfo &lhs, const AxisInfo &rhs) {
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    int64_t cd = gcd(lhs.getContiguity(d), rhs.getConstancy(d));
    c.push_back(cd);
    v.push_back(gcd(lhs.getEffectiveDivisibility(d, cd),
                    rhs.getEffectiveDivisibility(d, cd)));
    k.push_back(gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
  }
  std::optional<int64_t> cst;
  if (lhs.getConstantValue() && rhs.getConstantValue())
    cst = *lhs.getConstantValue() - *rhs.getConstantValue();
  return AxisInfo(c, v, k, cst);
}

AxisInfo AxisInfoRules::mul(const AxisInfo &lhs, const AxisInfo &rhs) {
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    int64_t cd = 1;
    if (rhs.getConstantValue() == 1)
      cd = lhs.getContiguity(d);
    else if (lhs.getConstantValue() == 1)
      cd = rhs.getContiguity(d);
    c.push_back(cd);
    v.push_back(mulDivisibility(lhs.getEffectiveDivisibility(d, cd),
                                rhs.getEffectiveDivisibility(d, cd)));
    k.push_back(gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
  }
  std::optional<int64_t> cst;
  if (lhs.getConstantValue() && rhs.getConstantValue())
    cst = *lhs.getConstantValue() * *rhs.getConstantValue();
  return AxisInfo(c, v, k, cst);
}

AxisInfo AxisInfoRules::remByConstant(const AxisInfo &lhs, int64_t divisor) {
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    // Runs that start at multiples of a power-of-two divisor restart at 0.
    bool aligned = llvm::isPowerOf2_64(divisor) &&
                   lhs.getDivisibility(d) % divisor == 0;
    int64_t cd = aligned ? gcd(lhs.getContiguity(d), divisor) : 1;
    c.push_back(cd);
    v.push_back(aligned ? AxisInfo::kMaxDivisibility : 1);
    k.push_back(lhs.getConstancy(d));
  }
  return AxisInfo(c, v, k);
}

AxisInfo AxisInfoRules::remByValue(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (lhs.getRank() != rhs.getRank())
    return elementwise();
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    // x % n, n constant over groups of g values of x that start at
    // multiples of g, with n a multiple of g: a multiple of n can only be a
    // group's first value, so the groups stay contiguous (`(pid * B +
    // arange(0, B)) % N` with N divisible by 16, tutorial 03's offsets).
    int64_t g = gcd(gcd(lhs.getContiguity(d), lhs.getDivisibility(d)),
                    gcd(rhs.getDivisibility(d), rhs.getConstancy(d)));
    c.push_back(g);
    v.push_back(g);
    k.push_back(gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
  }
  return AxisInfo(c, v, k);
}

AxisInfo AxisInfoRules::compare(arith::CmpIOp cmp) {
  const AxisInfo &lhs = operands[0], &rhs = operands[1];
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  // x < n flips at most once within a run of x; when both the run start and
  // n are multiples of the run length it does not flip inside the run.
  // n > x and n <= x are the same comparisons mirrored.
  const AxisInfo *run = nullptr, *bound = nullptr;
  if (pred == P::slt || pred == P::sge || pred == P::ult || pred == P::uge) {
    run = &lhs;
    bound = &rhs;
  } else if (pred == P::sgt || pred == P::sle || pred == P::ugt ||
             pred == P::ule) {
    run = &rhs;
    bound = &lhs;
  }
  AxisInfo::DimVector c, v, k;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    int64_t kd = gcd(lhs.getConstancy(d), rhs.getConstancy(d));
    if (run) {
      int64_t group = gcd(run->getContiguity(d), bound->getConstancy(d));
      group = gcd(group, gcd(run->getEffectiveDivisibility(d, group),
                             bound->getEffectiveDivisibility(d, group)));
      kd = std::max(kd, group);
    }
    c.push_back(1);
    v.push_back(1);
    k.push_back(kd);
  }
  return AxisInfo(c, v, k);
}

AxisInfo AxisInfoRules::select(const AxisInfo &cond, const AxisInfo &a,
                               const AxisInfo &b) {
  AxisInfo::DimVector c, v, k;
  bool scalarCond = cond.getRank() != a.getRank();
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t condK = scalarCond ? shapeOf(op->getResult(0).getType())[d]
                               : cond.getConstancy(d);
    int64_t cd = gcd(condK, std::min(a.getContiguity(d), b.getContiguity(d)));
    c.push_back(cd);
    v.push_back(gcd(a.getEffectiveDivisibility(d, cd),
                    b.getEffectiveDivisibility(d, cd)));
    k.push_back(gcd(condK, gcd(a.getConstancy(d), b.getConstancy(d))));
  }
  return AxisInfo(c, v, k);
}

AxisInfo AxisInfoRules::elementwise() {
  unsigned r = rank();
  SmallVector<int64_t> shape = shapeOf(op->getResult(0).getType());
  AxisInfo::DimVector k(shape.begin(), shape.end());
  for (const AxisInfo &info : operands) {
    if (info.getRank() != r)
      return AxisInfo::getPessimistic(r);
    for (unsigned d = 0; d < r; ++d)
      k[d] = gcd(k[d], info.getConstancy(d));
  }
  return AxisInfo(AxisInfo::DimVector(r, 1), AxisInfo::DimVector(r, 1), k);
}

AxisInfo AxisInfoRules::compute() {
  return llvm::TypeSwitch<Operation *, AxisInfo>(op)
      .Case([&](arith::ConstantOp cst) { return constant(cst); })
      .Case([&](tile::MakeRangeOp range) { return makeRange(range); })
      .Case([&](tile::SplatOp s) { return splat(s); })
      .Case([&](tile::BroadcastOp b) { return broadcast(b); })
      .Case([&](tile::ExpandDimsOp e) { return expandDims(e); })
      .Case([&](tilegpu::ConvertLayoutOp) { return operands[0]; })
      .Case([&](arith::AddIOp) { return add(operands[0], operands[1], 1); })
      .Case([&](tile::AddPtrOp addptr) {
        return add(operands[0], operands[1], pointeeBytes(addptr.getType()));
      })
      .Case([&](arith::SubIOp) { return sub(operands[0], operands[1]); })
      .Case([&](arith::MulIOp) { return mul(operands[0], operands[1]); })
      .Case([&](arith::ShLIOp) {
        if (auto shift = operands[1].getConstantValue(); shift && *shift >= 0 && *shift < 30)
          return mul(operands[0],
                     AxisInfo::getConstant(shapeOf(op->getResult(0).getType()),
                                           int64_t(1) << *shift));
        return elementwise();
      })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *) {
        if (auto divisor = operands[1].getConstantValue(); divisor && *divisor > 0)
          return remByConstant(operands[0], *divisor);
        return remByValue(operands[0], operands[1]);
      })
      .Case([&](arith::CmpIOp cmp) { return compare(cmp); })
      .Case([&](arith::SelectOp) {
        return select(operands[0], operands[1], operands[2]);
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>([&](Operation *) { return operands[0]; })
      .Case<arith::TruncIOp>([&](Operation *) {
        AxisInfo src = operands[0];
        return AxisInfo(AxisInfo::DimVector(src.getContiguity()),
                        AxisInfo::DimVector(src.getDivisibility()),
                        AxisInfo::DimVector(src.getConstancy()));
      })
      .Case([&](tile::LoadOp load) {
        // Equal addresses (under an equal mask) load equal values.
        AxisInfo::DimVector k(operands[0].getConstancy());
        for (const AxisInfo &info : operands.drop_front())
          if (info.getRank() == k.size())
            for (unsigned d = 0; d < k.size(); ++d)
              k[d] = gcd(k[d], info.getConstancy(d));
        return AxisInfo(AxisInfo::DimVector(k.size(), 1),
                        AxisInfo::DimVector(k.size(), 1), k);
      })
      .Default([&](Operation *) {
        if (op->hasTrait<OpTrait::Elementwise>() ||
            isa<arith::ArithDialect>(op->getDialect()))
          return elementwise();
        return AxisInfo::getDefault(op->getResult(0).getType());
      });
}

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

LogicalResult
AxisInfoAnalysis::visitOperation(Operation *op,
                                 ArrayRef<const AxisInfoLattice *> operands,
                                 ArrayRef<AxisInfoLattice *> results) {
  if (results.empty())
    return success();
  SmallVector<AxisInfo> infos;
  for (const AxisInfoLattice *lattice : operands) {
    if (lattice->getValue().isUninitialized())
      return success(); // Revisited once the operand is known.
    infos.push_back(lattice->getValue());
  }
  if (op->getNumResults() != 1) {
    setAllToEntryStates(results);
    return success();
  }
  AxisInfo info = AxisInfoRules(op, infos).compute();
  propagateIfChanged(results[0], results[0]->join(info));
  return success();
}

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  Value value = lattice->getAnchor();
  int64_t divisibility = 1;
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp()))
      if (arg.getOwner()->isEntryBlock())
        if (auto attr = func.getArgAttrOfType<IntegerAttr>(
                arg.getArgNumber(), tile::kDivisibilityAttrName))
          divisibility = attr.getInt();
  propagateIfChanged(lattice,
                     lattice->join(AxisInfo::getDefault(value.getType(), divisibility)));
}

void AxisInfoAnalysis::visitNonControlFlowArguments(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<AxisInfoLattice *> argLattices, unsigned firstIndex) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    // The induction variable: lb + i*step, each a multiple of gcd(lb, step).
    auto lb = getLatticeElementFor(getProgramPointAfter(op), forOp.getLowerBound());
    auto step = getLatticeElementFor(getProgramPointAfter(op), forOp.getStep());
    AxisInfo iv = AxisInfo::getPessimistic(1);
    if (!lb->getValue().isUninitialized() && !step->getValue().isUninitialized())
      iv = AxisInfo({1}, {gcd(lb->getValue().getDivisibility(0),
                              step->getValue().getDivisibility(0))},
                    {1});
    AxisInfoLattice *ivLattice = getLatticeElement(forOp.getInductionVar());
    propagateIfChanged(ivLattice, ivLattice->join(iv));
    return;
  }
  SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
      op, successor, argLattices, firstIndex);
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfo
//===----------------------------------------------------------------------===//

ModuleAxisInfo::ModuleAxisInfo(Operation *root) {
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AxisInfoAnalysis>();
  (void)solver.initializeAndRun(root);
}

AxisInfo ModuleAxisInfo::lookup(Value value) const {
  if (auto *lattice = solver.lookupState<AxisInfoLattice>(value))
    if (!lattice->getValue().isUninitialized())
      return lattice->getValue();
  return AxisInfo::getDefault(value.getType());
}
