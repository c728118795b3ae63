//===- AffineAccess.cpp - tiles of pointers as affine boxes ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/AffineAccess.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tilec;

//===----------------------------------------------------------------------===//
// AffinePoly
//===----------------------------------------------------------------------===//

bool AffineFactor::operator<(const AffineFactor &other) const {
  if (kind != other.kind)
    return kind < other.kind;
  switch (kind) {
  case Kind::Atom:
    return atom.getAsOpaquePointer() < other.atom.getAsOpaquePointer();
  case Kind::Index:
    return index < other.index;
  case Kind::Iteration:
    return loop < other.loop;
  }
  return false;
}

AffinePoly AffinePoly::constant(int64_t c) {
  AffinePoly p;
  p.add({}, c);
  return p;
}

AffinePoly AffinePoly::factor(AffineFactor f) {
  AffinePoly p;
  p.add({f}, 1);
  return p;
}

void AffinePoly::add(const AffineMonomial &m, int64_t c) {
  if (c == 0)
    return;
  auto [it, inserted] = terms.try_emplace(m, c);
  if (!inserted) {
    it->second += c;
    if (it->second == 0)
      terms.erase(it);
  }
}

AffinePoly AffinePoly::operator+(const AffinePoly &other) const {
  AffinePoly r = *this;
  for (const auto &[m, c] : other.terms)
    r.add(m, c);
  return r;
}

AffinePoly AffinePoly::operator-(const AffinePoly &other) const {
  return *this + other.scaled(-1);
}

AffinePoly AffinePoly::scaled(int64_t s) const {
  AffinePoly r;
  for (const auto &[m, c] : terms)
    r.add(m, c * s);
  return r;
}

AffinePoly AffinePoly::operator*(const AffinePoly &other) const {
  AffinePoly r;
  for (const auto &[m1, c1] : terms)
    for (const auto &[m2, c2] : other.terms) {
      AffineMonomial m(m1);
      m.append(m2.begin(), m2.end());
      llvm::sort(m);
      r.add(m, c1 * c2);
    }
  return r;
}

int64_t AffinePoly::getConstant() const {
  auto it = terms.find(AffineMonomial{});
  return it == terms.end() ? 0 : it->second;
}

std::optional<int64_t> AffinePoly::getConstantValue() const {
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms.begin()->first.empty())
    return terms.begin()->second;
  return std::nullopt;
}

bool AffinePoly::any(function_ref<bool(const AffineFactor &)> pred) const {
  for (const auto &[m, c] : terms)
    for (const AffineFactor &f : m)
      if (pred(f))
        return true;
  return false;
}

bool AffinePoly::hasIndex() const {
  return any([](const AffineFactor &f) {
    return f.kind == AffineFactor::Kind::Index;
  });
}

AffinePoly AffinePoly::renameIndices(
    function_ref<std::optional<unsigned>(unsigned)> rename) const {
  AffinePoly r;
  for (const auto &[m, c] : terms) {
    AffineMonomial renamed;
    bool vanishes = false;
    for (const AffineFactor &f : m) {
      if (f.kind != AffineFactor::Kind::Index) {
        renamed.push_back(f);
        continue;
      }
      std::optional<unsigned> d = rename(f.index);
      if (!d) {
        vanishes = true;
        break;
      }
      renamed.push_back(AffineFactor::getIndex(*d));
    }
    if (vanishes)
      continue;
    llvm::sort(renamed);
    r.add(renamed, c);
  }
  return r;
}

bool AffinePoly::splitIndex(unsigned d, AffinePoly &coefficient,
                            AffinePoly &rest) const {
  coefficient = AffinePoly();
  rest = AffinePoly();
  for (const auto &[m, c] : terms) {
    unsigned count = 0;
    bool otherIndex = false;
    AffineMonomial without;
    for (const AffineFactor &f : m) {
      if (f.kind == AffineFactor::Kind::Index && f.index == d)
        ++count;
      else {
        if (f.kind == AffineFactor::Kind::Index)
          otherIndex = true;
        without.push_back(f);
      }
    }
    if (count == 0) {
      rest.add(m, c);
      continue;
    }
    if (count > 1 || otherIndex)
      return false;
    coefficient.add(without, c);
  }
  return true;
}

void AffinePoly::print(raw_ostream &os) const {
  if (terms.empty()) {
    os << "0";
    return;
  }
  bool first = true;
  for (const auto &[m, c] : terms) {
    os << (first ? "" : " + ") << c;
    first = false;
    for (const AffineFactor &f : m) {
      os << "*";
      if (f.kind == AffineFactor::Kind::Index)
        os << "I" << f.index;
      else if (f.kind == AffineFactor::Kind::Iteration)
        os << "t";
      else if (auto arg = dyn_cast<BlockArgument>(f.atom))
        os << "%arg" << arg.getArgNumber();
      else
        os << f.atom.getDefiningOp()->getName();
    }
  }
}

//===----------------------------------------------------------------------===//
// Decomposition
//===----------------------------------------------------------------------===//

namespace {

/// Ops that only change an integer's width or type (the analysis assumes,
/// as Triton's does, that index arithmetic does not overflow).
bool isIntegerCast(Operation *op) {
  return isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
             arith::IndexCastUIOp>(op);
}

/// Drops the index factors of the unit dimensions of `type` (their index is
/// always 0).
AffinePoly normalizeForShape(const AffinePoly &poly, Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!tile)
    return poly;
  return poly.renameIndices([&](unsigned d) -> std::optional<unsigned> {
    if (d >= tile.getRank() || tile.getDimSize(d) == 1)
      return std::nullopt;
    return d;
  });
}

std::optional<unsigned> shiftForExpand(unsigned d, unsigned axis) {
  return d >= axis ? d + 1 : d;
}

bool isSplatZero(Value value, bool &isNaN) {
  isNaN = false;
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  if (auto f = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>())) {
    if (f.getValue().isNaN()) {
      isNaN = true;
      return true;
    }
    return f.getValue().isZero() && !f.getValue().isNegative();
  }
  if (auto i = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>()))
    return i.getValue().isZero();
  return false;
}

} // namespace

static bool isAssumedNonNegative(Value value);

static BlockArgument asKernelArgument(Operation *func, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !arg.getOwner()->isEntryBlock() ||
      arg.getOwner()->getParentOp() != func)
    return {};
  return arg;
}

FailureOr<AffinePoly> AffineAccessAnalysis::getPoly(Value value) {
  return decompose(value);
}

FailureOr<AffinePoly> AffineAccessAnalysis::decompose(Value value) {
  if (auto it = polys.find(value); it != polys.end()) {
    if (!it->second)
      return failure();
    return *it->second;
  }
  if (inProgress.count(value))
    return AffinePoly::factor(AffineFactor::getAtom(value));
  bool isTile = isa<RankedTensorType>(value.getType());
  auto result = [&]() -> FailureOr<AffinePoly> {
    auto atomOrFail = [&]() -> FailureOr<AffinePoly> {
      if (isTile || !getElementTypeOrSelf(value.getType()).isIntOrIndex())
        return failure();
      return AffinePoly::factor(AffineFactor::getAtom(value));
    };
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!forOp)
        return atomOrFail();
      if (arg == forOp.getInductionVar()) {
        auto lb = decompose(forOp.getLowerBound());
        auto step = decompose(forOp.getStep());
        if (failed(lb) || failed(step))
          return atomOrFail();
        return *lb + AffinePoly::factor(AffineFactor::getIteration(forOp)) * *step;
      }
      auto recurrence = decomposeIterArg(arg);
      if (succeeded(recurrence))
        return recurrence;
      return atomOrFail();
    }
    Operation *def = value.getDefiningOp();
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return AffinePoly::constant(constant.getSExtValue());
    // A value the program promises to be >= 0 stays whole: its sign is
    // known only as a whole.
    if (!isTile && isAssumedNonNegative(value))
      return atomOrFail();
    if (isIntegerCast(def) || isa<tilegpu::ConvertLayoutOp>(def))
      return decompose(def->getOperand(0));
    auto binary = [&](auto combine) -> FailureOr<AffinePoly> {
      auto lhs = decompose(def->getOperand(0));
      auto rhs = decompose(def->getOperand(1));
      if (failed(lhs) || failed(rhs))
        return atomOrFail();
      return combine(*lhs, *rhs);
    };
    if (isa<arith::AddIOp>(def))
      return binary([](const AffinePoly &a, const AffinePoly &b) { return a + b; });
    if (isa<arith::SubIOp>(def))
      return binary([](const AffinePoly &a, const AffinePoly &b) { return a - b; });
    if (isa<arith::MulIOp>(def))
      return binary([](const AffinePoly &a, const AffinePoly &b) { return a * b; });
    if (auto range = dyn_cast<tile::MakeRangeOp>(def))
      return AffinePoly::factor(AffineFactor::getIndex(0)) +
             AffinePoly::constant(range.getStart());
    if (auto splat = dyn_cast<tile::SplatOp>(def))
      return decompose(splat.getSrc());
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
      auto src = decompose(expand.getSrc());
      if (failed(src))
        return failure();
      unsigned axis = expand.getAxis();
      return src->renameIndices(
          [&](unsigned d) { return shiftForExpand(d, axis); });
    }
    if (auto bcast = dyn_cast<tile::BroadcastOp>(def))
      return decompose(bcast.getSrc());
    if (isTile && isa<arith::RemSIOp, arith::RemUIOp>(def) && collectWraps) {
      // (start + I_d) % M with M the same everywhere: record the wrap.
      auto lhs = decompose(def->getOperand(0));
      auto splat = def->getOperand(1).getDefiningOp<tile::SplatOp>();
      if (failed(lhs) || !splat)
        return failure();
      for (unsigned d = 0, e = cast<RankedTensorType>(value.getType()).getRank();
           d < e; ++d) {
        AffinePoly coefficient, rest;
        if (!lhs->splitIndex(d, coefficient, rest) || rest.hasIndex())
          continue;
        if (coefficient.getConstantValue() != 1)
          continue;
        // The dimension it ends up along is found from the block's origin.
        wraps.push_back({0, rest, splat.getSrc()});
        return *lhs;
      }
      return failure();
    }
    return atomOrFail();
  }();
  if (succeeded(result))
    *result = normalizeForShape(*result, value.getType());
  // Values read while an iteration argument was an atom are not memoized:
  // their polynomial holds that atom.
  if (inProgress.empty())
    polys[value] = succeeded(result) ? std::optional<AffinePoly>(*result)
                                     : std::optional<AffinePoly>();
  return result;
}

bool AffineAccessAnalysis::isLoopInvariant(const AffinePoly &poly,
                                           Operation *loop) {
  return !poly.any([&](const AffineFactor &f) {
    if (f.kind == AffineFactor::Kind::Iteration)
      return f.loop == loop;
    if (f.kind == AffineFactor::Kind::Atom)
      return loop->isAncestor(Value(f.atom).getParentRegion()->getParentOp());
    return false;
  });
}

FailureOr<AffinePoly> AffineAccessAnalysis::decomposeIterArg(Value value) {
  auto arg = cast<BlockArgument>(value);
  auto forOp = cast<scf::ForOp>(arg.getOwner()->getParentOp());
  unsigned index = arg.getArgNumber() - 1;
  Value yielded = forOp.getBody()->getTerminator()->getOperand(index);
  ++inProgress[value];
  FailureOr<AffinePoly> next = decompose(yielded);
  if (--inProgress[value] == 0)
    inProgress.erase(value);
  if (failed(next))
    return failure();
  AffinePoly delta = *next - AffinePoly::factor(AffineFactor::getAtom(value));
  if (delta.hasIndex() || !isLoopInvariant(delta, forOp) ||
      delta.any([&](const AffineFactor &f) {
        return f.kind == AffineFactor::Kind::Atom && f.atom == value;
      }))
    return failure();
  FailureOr<AffinePoly> init = decompose(forOp.getInitArgs()[index]);
  if (failed(init))
    return failure();
  return *init + AffinePoly::factor(AffineFactor::getIteration(forOp)) * delta;
}

FailureOr<AffineAccessAnalysis::PointerParts>
AffineAccessAnalysis::decomposePointer(Value ptr) {
  if (auto it = pointers.find(ptr); it != pointers.end()) {
    if (!it->second)
      return failure();
    return *it->second;
  }
  if (inProgress.count(ptr))
    return PointerParts{Value(), AffinePoly::factor(AffineFactor::getAtom(ptr))};
  auto result = [&]() -> FailureOr<PointerParts> {
    if (auto arg = dyn_cast<BlockArgument>(ptr)) {
      if (asKernelArgument(func, ptr))
        return PointerParts{ptr, AffinePoly()};
      auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!forOp || arg == forOp.getInductionVar())
        return failure();
      // p_{t+1} = p_t + delta: p_t = p_0 + t * delta.
      unsigned index = arg.getArgNumber() - 1;
      Value yielded = forOp.getBody()->getTerminator()->getOperand(index);
      ++inProgress[ptr];
      FailureOr<PointerParts> next = decomposePointer(yielded);
      if (--inProgress[ptr] == 0)
        inProgress.erase(ptr);
      FailureOr<PointerParts> init = decomposePointer(forOp.getInitArgs()[index]);
      if (failed(next) || failed(init) || (next->base && next->base != init->base))
        return failure();
      AffinePoly delta = next->offset - AffinePoly::factor(AffineFactor::getAtom(ptr));
      if (delta.hasIndex() || !isLoopInvariant(delta, forOp) ||
          delta.any([&](const AffineFactor &f) {
            return f.kind == AffineFactor::Kind::Atom && f.atom == ptr;
          }))
        return failure();
      return PointerParts{
          init->base,
          init->offset + AffinePoly::factor(AffineFactor::getIteration(forOp)) * delta};
    }
    Operation *def = ptr.getDefiningOp();
    if (auto splat = dyn_cast<tile::SplatOp>(def))
      return decomposePointer(splat.getSrc());
    if (auto addptr = dyn_cast<tile::AddPtrOp>(def)) {
      auto base = decomposePointer(addptr.getPtr());
      auto offset = decompose(addptr.getOffset());
      if (failed(base) || failed(offset))
        return failure();
      return PointerParts{base->base, base->offset + *offset};
    }
    if (isa<tilegpu::ConvertLayoutOp, tile::BroadcastOp>(def))
      return decomposePointer(def->getOperand(0));
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
      auto src = decomposePointer(expand.getSrc());
      if (failed(src))
        return failure();
      unsigned axis = expand.getAxis();
      return PointerParts{src->base, src->offset.renameIndices([&](unsigned d) {
                            return shiftForExpand(d, axis);
                          })};
    }
    return failure();
  }();
  if (succeeded(result))
    result->offset = normalizeForShape(result->offset, ptr.getType());
  if (inProgress.empty())
    pointers[ptr] = succeeded(result) ? std::optional<PointerParts>(*result)
                                      : std::optional<PointerParts>();
  return result;
}

FailureOr<SmallVector<AffineAccessAnalysis::Bound>>
AffineAccessAnalysis::decomposeMask(Value mask) {
  Operation *def = mask.getDefiningOp();
  if (!def)
    return failure();
  Attribute attr;
  if (matchPattern(mask, m_Constant(&attr))) {
    auto splat = dyn_cast<SplatElementsAttr>(attr);
    if (splat && splat.getSplatValue<bool>())
      return SmallVector<Bound>();
    return failure();
  }
  if (isa<arith::AndIOp>(def)) {
    auto lhs = decomposeMask(def->getOperand(0));
    auto rhs = decomposeMask(def->getOperand(1));
    if (failed(lhs) || failed(rhs))
      return failure();
    lhs->append(rhs->begin(), rhs->end());
    return lhs;
  }
  if (isa<tilegpu::ConvertLayoutOp, tile::BroadcastOp>(def))
    return decomposeMask(def->getOperand(0));
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    auto bounds = decomposeMask(expand.getSrc());
    if (failed(bounds))
      return failure();
    for (Bound &bound : *bounds)
      bound.dim = *shiftForExpand(bound.dim, expand.getAxis());
    return bounds;
  }
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp || !isa<RankedTensorType>(mask.getType()))
    return failure();
  auto lhs = decompose(cmp.getLhs()), rhs = decompose(cmp.getRhs());
  if (failed(lhs) || failed(rhs))
    return failure();
  AffinePoly diff = *lhs - *rhs;
  AffinePoly e;
  bool upper;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
    e = diff, upper = true;
    break;
  case arith::CmpIPredicate::sle:
    e = diff - AffinePoly::constant(1), upper = true;
    break;
  case arith::CmpIPredicate::sgt:
    e = diff.scaled(-1), upper = true;
    break;
  case arith::CmpIPredicate::sge:
    e = diff, upper = false;
    break;
  default:
    return failure();
  }
  unsigned rank = cast<RankedTensorType>(mask.getType()).getRank();
  for (unsigned d = 0; d < rank; ++d) {
    AffinePoly coefficient, rest;
    if (!e.splitIndex(d, coefficient, rest) || coefficient.isZero())
      continue;
    if (rest.hasIndex())
      return failure();
    std::optional<int64_t> c = coefficient.getConstantValue();
    if (c == 1)
      return SmallVector<Bound>{{d, rest, upper}};
    // -I + q < 0  <=>  I - q - 1 >= 0;  -I + q >= 0  <=>  I - q - 1 < 0.
    if (c == -1)
      return SmallVector<Bound>{
          {d, rest.scaled(-1) - AffinePoly::constant(1), !upper}};
    return failure();
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Signs and host terms
//===----------------------------------------------------------------------===//

/// Whether the program promises `value >= 0` (`tl.assume(value >= 0)` or
/// `> 0`, written either way round).
static bool isAssumedNonNegative(Value value) {
  for (Operation *user : value.getUsers()) {
    auto cmp = dyn_cast<arith::CmpIOp>(user);
    if (!cmp || llvm::none_of(cmp->getUsers(), [](Operation *u) {
          return isa<tile::AssumeOp>(u);
        }))
      continue;
    APInt c;
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    Value other = cmp.getLhs() == value ? cmp.getRhs() : cmp.getLhs();
    if (!matchPattern(other, m_ConstantInt(&c)))
      continue;
    // c < v is v > c, c <= v is v >= c.
    if (cmp.getLhs() != value) {
      if (pred == P::slt)
        pred = P::sgt;
      else if (pred == P::sle)
        pred = P::sge;
      else
        continue;
    }
    int64_t bound = c.getSExtValue();
    if ((pred == P::sge && bound >= 0) || (pred == P::sgt && bound >= -1))
      return true;
  }
  return false;
}

bool AffineAccessAnalysis::isNonNegativeAtom(Value atom,
                                             SmallVectorImpl<unsigned> &assumed,
                                             int depth) {
  if (depth > 16)
    return false;
  APInt constant;
  if (matchPattern(atom, m_ConstantInt(&constant)))
    return !constant.isNegative();
  if (isAssumedNonNegative(atom))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(atom)) {
    // An integer kernel argument (a size, a stride, a count): assumed
    // non-negative, which the runtime checks at launch.
    if (asKernelArgument(func, atom)) {
      if (!atom.getType().isIntOrIndex())
        return false;
      assumed.push_back(arg.getArgNumber());
      return true;
    }
    auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (forOp && arg == forOp.getInductionVar())
      return isNonNegativeAtom(forOp.getLowerBound(), assumed, depth + 1) &&
             isNonNegativeAtom(forOp.getStep(), assumed, depth + 1);
    return false;
  }
  Operation *def = atom.getDefiningOp();
  auto operand = [&](unsigned i) {
    return isNonNegativeAtom(def->getOperand(i), assumed, depth + 1);
  };
  if (isa<tile::ProgramIdOp, tilegpu::PersistentProgramIdOp, tile::NumProgramsOp,
          arith::ExtUIOp>(def))
    return true;
  if (isa<arith::ExtSIOp, arith::IndexCastOp, arith::RemSIOp, arith::RemUIOp>(def))
    return operand(0);
  // x / y with x, y >= 0 (y == 0 is undefined, so y > 0).
  if (isa<arith::AddIOp, arith::MulIOp, arith::MinSIOp, arith::DivSIOp,
          arith::DivUIOp>(def))
    return operand(0) && operand(1);
  if (isa<arith::MaxSIOp, arith::AndIOp>(def))
    return operand(0) || operand(1);
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return operand(1) && operand(2);
  return false;
}

bool AffineAccessAnalysis::isNonNegative(const AffinePoly &poly,
                                         SmallVectorImpl<unsigned> &assumed, int depth) {
  for (const auto &[m, c] : poly.getTerms()) {
    if (c >= 0)
      continue;
    // poly = rest + c * (x / d) with c = -k*d is rest - k*x + k * (x % d),
    // and x % d >= 0 for x >= 0, d > 0.
    if (depth >= 4 || m.size() != 1 || m[0].kind != AffineFactor::Kind::Atom)
      return false;
    Operation *div = m[0].atom.getDefiningOp();
    APInt d;
    if (!isa_and_nonnull<arith::DivSIOp, arith::DivUIOp>(div) ||
        !matchPattern(div->getOperand(1), m_ConstantInt(&d)) || !d.isStrictlyPositive() ||
        (-c) % d.getSExtValue() != 0)
      return false;
    FailureOr<AffinePoly> x = decompose(div->getOperand(0));
    if (failed(x) || !isNonNegative(*x, assumed, depth + 1))
      return false;
    AffinePoly k = AffinePoly::constant(-c / d.getSExtValue());
    AffinePoly rest = poly - AffinePoly::factor(m[0]) * AffinePoly::constant(c) - *x * k;
    return isNonNegative(rest, assumed, depth + 1);
  }
  for (const auto &[m, c] : poly.getTerms()) {
    for (const AffineFactor &f : m)
      if (f.kind == AffineFactor::Kind::Atom &&
          !isNonNegativeAtom(f.atom, assumed, 0))
        return false;
  }
  return true;
}

std::optional<AffineTerm>
AffineAccessAnalysis::getHostTerm(const AffinePoly &poly) {
  if (auto c = poly.getConstantValue())
    return AffineTerm{*c, {}};
  if (poly.getTerms().size() != 1)
    return std::nullopt;
  const auto &[m, c] = *poly.getTerms().begin();
  AffineTerm term{c, {}};
  for (const AffineFactor &f : m) {
    BlockArgument arg = f.kind == AffineFactor::Kind::Atom
                            ? asKernelArgument(func, f.atom)
                            : BlockArgument();
    if (!arg)
      return std::nullopt;
    term.args.push_back(arg.getArgNumber());
  }
  llvm::sort(term.args);
  return term;
}

//===----------------------------------------------------------------------===//
// Materialization
//===----------------------------------------------------------------------===//

FailureOr<Value> AffineAccessAnalysis::materialize(OpBuilder &b, Location loc,
                                                   const AffinePoly &poly) {
  Type i32 = b.getI32Type();
  auto toI32 = [&](Value v) -> Value {
    if (v.getType().isInteger(32))
      return v;
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, i32, v);
    if (v.getType().getIntOrFloatBitWidth() > 32)
      return arith::TruncIOp::create(b, loc, i32, v);
    return arith::ExtSIOp::create(b, loc, i32, v);
  };
  DominanceInfo dominance(func);
  Operation *point = b.getInsertionPoint() == b.getInsertionBlock()->end()
                         ? nullptr
                         : &*b.getInsertionPoint();
  auto dominates = [&](Value v) {
    if (point)
      return dominance.dominates(v, point);
    Block *block = b.getInsertionBlock();
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == block ||
             dominance.dominates(arg.getOwner(), block);
    return v.getDefiningOp()->getBlock() == block ||
           dominance.dominates(v.getDefiningOp()->getBlock(), block);
  };
  Value sum;
  for (const auto &[m, c] : poly.getTerms()) {
    Value product;
    for (const AffineFactor &f : m) {
      Value v;
      if (f.kind == AffineFactor::Kind::Index)
        return failure();
      if (f.kind == AffineFactor::Kind::Atom) {
        if (!dominates(f.atom))
          return failure();
        v = toI32(f.atom);
      } else {
        auto forOp = cast<scf::ForOp>(f.loop);
        if (!forOp->isAncestor(b.getInsertionBlock()->getParentOp()))
          return failure();
        Value iv = forOp.getInductionVar();
        Value t = arith::SubIOp::create(b, loc, iv, forOp.getLowerBound());
        t = arith::DivSIOp::create(b, loc, t, forOp.getStep());
        v = toI32(t);
      }
      product = product ? arith::MulIOp::create(b, loc, product, v).getResult() : v;
    }
    Value coefficient = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(c));
    Value term = product ? (c == 1 ? product
                                   : arith::MulIOp::create(b, loc, product, coefficient)
                                         .getResult())
                         : coefficient;
    sum = sum ? arith::AddIOp::create(b, loc, sum, term).getResult() : term;
  }
  if (!sum)
    sum = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  return sum;
}

//===----------------------------------------------------------------------===//
// Wrapped rows
//===----------------------------------------------------------------------===//

bool AffineAccessAnalysis::wrappedRowsAreMaskedOff(tile::LoadOp load,
                                                   const Wrap &wrap) {
  // (value, dim along which some positions are don't-care)
  SmallVector<std::pair<Value, unsigned>> worklist{{load.getResult(), wrap.dim}};
  DenseSet<std::pair<Value, unsigned>> seen;
  auto push = [&](Value v, unsigned d) {
    if (seen.insert({v, d}).second)
      worklist.push_back({v, d});
  };
  FailureOr<AffinePoly> modulus = decompose(wrap.modulus);
  if (failed(modulus))
    return false;
  while (!worklist.empty()) {
    auto [value, dim] = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      unsigned n = use.getOperandNumber();
      if (auto dot = dyn_cast<tile::DotOp>(user)) {
        // Rows of A feed the same rows of the result, columns of B the same
        // columns, the accumulator itself.
        if (dot.getType().getRank() != 2)
          return false;
        if ((n == 0 && dim == 0) || (n == 1 && dim == 1) || n == 2) {
          push(dot.getResult(), dim);
          continue;
        }
        return false;
      }
      if (isa<tilegpu::ConvertLayoutOp>(user) ||
          ((isa<arith::ArithDialect, math::MathDialect>(user->getDialect())) &&
           user->getNumResults() == 1 &&
           isa<RankedTensorType>(user->getResult(0).getType()) &&
           cast<RankedTensorType>(user->getResult(0).getType()).getShape() ==
               cast<RankedTensorType>(value.getType()).getShape())) {
        push(user->getResult(0), dim);
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        auto forOp = dyn_cast<scf::ForOp>(yield->getParentOp());
        if (!forOp)
          return false;
        push(forOp.getRegionIterArgs()[n], dim);
        push(forOp.getResult(n), dim);
        continue;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(user)) {
        // As an initial value.
        unsigned index = n - forOp.getNumControlOperands();
        push(forOp.getRegionIterArgs()[index], dim);
        push(forOp.getResult(index), dim);
        continue;
      }
      if (auto reduce = dyn_cast<tile::ReduceOp>(user)) {
        unsigned axis = reduce.getAxis();
        if (axis == dim)
          return false;
        for (Value result : reduce.getResults()) {
          if (!isa<RankedTensorType>(result.getType()))
            return false;
          push(result, dim > axis ? dim - 1 : dim);
        }
        continue;
      }
      if (auto expand = dyn_cast<tile::ExpandDimsOp>(user)) {
        push(expand.getResult(), *shiftForExpand(dim, expand.getAxis()));
        continue;
      }
      if (auto bcast = dyn_cast<tile::BroadcastOp>(user)) {
        push(bcast.getResult(), dim);
        continue;
      }
      if (auto store = dyn_cast<tile::StoreOp>(user)) {
        // Only as the stored value, and only where the mask keeps the rows
        // start + I_dim < modulus, at the rows start + I_dim.
        if (n != 1 || !store.getMask())
          return false;
        FailureOr<PointerParts> ptr = decomposePointer(store.getPtr());
        FailureOr<SmallVector<Bound>> bounds = decomposeMask(store.getMask());
        if (failed(ptr) || failed(bounds) ||
            cast<RankedTensorType>(store.getPtr().getType()).getRank() != 2)
          return false;
        std::string whyNot;
        FailureOr<BoxShape> shape = splitOffset(ptr->offset, whyNot);
        if (failed(shape) || !(shape->coords[dim] - wrap.start).isZero())
          return false;
        // start + I < modulus  <=>  I + (start - modulus) < 0
        bool masked = llvm::any_of(*bounds, [&](const Bound &bound) {
          return bound.upper && bound.dim == dim &&
                 (bound.q - (wrap.start - *modulus)).isZero();
        });
        if (!masked)
          return false;
        continue;
      }
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Boxes
//===----------------------------------------------------------------------===//

FailureOr<AffineAccessAnalysis::BoxShape>
AffineAccessAnalysis::splitOffset(const AffinePoly &offset, std::string &whyNot) {
  auto fail = [&](const Twine &reason) -> FailureOr<BoxShape> {
    whyNot = reason.str();
    return failure();
  };
  auto funcOp = cast<FunctionOpInterface>(func);
  BoxShape shape;
  AffinePoly rest = offset;
  for (unsigned d = 0; d < 2; ++d) {
    AffinePoly coefficient, remainder;
    if (!rest.splitIndex(d, coefficient, remainder) || coefficient.hasIndex())
      return fail("the offset is not linear in the tile's indices");
    std::optional<AffineTerm> term = getHostTerm(coefficient);
    if (!term || term->factor <= 0)
      return fail("a stride is not a positive kernel argument or constant");
    shape.strides[d] = *term;
    rest = remainder;
  }
  if (rest.hasIndex())
    return fail("the offset is not linear in the tile's indices");
  auto isUnit = [](const AffineTerm &t) { return t.isConstant() && t.factor == 1; };
  shape.inner = isUnit(shape.strides[1]) ? 1 : isUnit(shape.strides[0]) ? 0 : -1;

  // The scalar part: coordinates along the tile's dimensions (a dimension
  // whose stride divides the term; argument strides first, the contiguous
  // dimension last), or outer dimensions of the tensor strided by a kernel
  // argument.
  int order[2] = {shape.inner == 0 ? 1 : 0, shape.inner == 0 ? 0 : 1};
  for (const auto &[m, c] : rest.getTerms()) {
    auto product = [&](int64_t coefficient, Value skip) {
      AffinePoly r = AffinePoly::constant(coefficient);
      bool skipped = false;
      for (const AffineFactor &f : m) {
        if (!skipped && skip && f.kind == AffineFactor::Kind::Atom && f.atom == skip) {
          skipped = true;
          continue;
        }
        r = r * AffinePoly::factor(f);
      }
      return r;
    };
    bool placed = false;
    // 1. A dimension whose argument stride divides the monomial.
    for (int d : order) {
      const AffineTerm &s = shape.strides[d];
      if (s.isConstant() || c % s.factor != 0)
        continue;
      AffineMonomial rest(m);
      bool divides = true;
      for (unsigned a : s.args) {
        auto it = llvm::find(rest, AffineFactor::getAtom(funcOp.getArgument(a)));
        if (it == rest.end()) {
          divides = false;
          break;
        }
        rest.erase(it);
      }
      if (!divides)
        continue;
      AffinePoly coord = AffinePoly::constant(c / s.factor);
      for (const AffineFactor &f : rest)
        coord = coord * AffinePoly::factor(f);
      shape.coords[d] = shape.coords[d] + coord;
      placed = true;
      break;
    }
    // 2. A constant stride other than 1 that divides it (a row length
    // known at compile time: the descriptor tutorial's HEAD_DIM).
    for (int d : order) {
      if (placed)
        break;
      const AffineTerm &s = shape.strides[d];
      if (!s.isConstant() || s.factor == 1 || c % s.factor != 0)
        continue;
      shape.coords[d] = shape.coords[d] + product(c / s.factor, Value());
      placed = true;
    }
    // 3. An outer dimension of the tensor, strided by a kernel argument.
    for (const AffineFactor &f : m) {
      if (placed)
        break;
      if (f.kind != AffineFactor::Kind::Atom || !asKernelArgument(func, f.atom))
        continue;
      unsigned arg = cast<BlockArgument>(f.atom).getArgNumber();
      AffinePoly coord = product(c, f.atom);
      auto it = llvm::find_if(shape.extra, [&](auto &e) { return e.first == arg; });
      if (it != shape.extra.end())
        it->second = it->second + coord;
      else
        shape.extra.push_back({arg, coord});
      placed = true;
    }
    // 4. The contiguous dimension takes the rest.
    if (!placed && shape.inner >= 0) {
      shape.coords[shape.inner] = shape.coords[shape.inner] + product(c, Value());
      placed = true;
    }
    if (!placed)
      return fail("the block's origin is not a combination of its strides");
  }
  return shape;
}

//===----------------------------------------------------------------------===//
// TMA boxes
//===----------------------------------------------------------------------===//

FailureOr<TMABox> AffineAccessAnalysis::getTMABox(tile::LoadOp load,
                                                  std::string &whyNot) {
  return getTMABox(load, load.getPtr(), load.getMask(), load.getOther(), whyNot);
}

FailureOr<TMABox> AffineAccessAnalysis::getTMABox(tile::StoreOp store,
                                                  std::string &whyNot) {
  return getTMABox(store, store.getPtr(), store.getMask(), /*other=*/Value(), whyNot);
}

FailureOr<TMABox> AffineAccessAnalysis::getTMABox(tile::AtomicRMWOp atomic,
                                                  std::string &whyNot) {
  return getTMABox(atomic, atomic.getPtr(), atomic.getMask(), /*other=*/Value(), whyNot);
}

FailureOr<TMABox> AffineAccessAnalysis::getTMABox(Operation *access, Value ptrTile,
                                                  Value mask, Value other,
                                                  std::string &whyNot) {
  auto fail = [&](const Twine &reason) -> FailureOr<TMABox> {
    whyNot = reason.str();
    return failure();
  };
  auto load = dyn_cast<tile::LoadOp>(access);
  auto ptrType = dyn_cast<RankedTensorType>(ptrTile.getType());
  if (!ptrType || ptrType.getRank() != 2)
    return fail("only 2-d tiles are copied with TMA");
  Type element =
      cast<tile::PointerType>(ptrType.getElementType()).getPointeeType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return fail("elements are not whole bytes");
  int64_t eltBytes = element.getIntOrFloatBitWidth() / 8;

  // Wrapped indices read as plain sums only within this query.
  wraps.clear();
  polys.clear();
  pointers.clear();
  collectWraps = true;
  FailureOr<PointerParts> ptr = decomposePointer(ptrTile);
  FailureOr<SmallVector<Bound>> bounds = SmallVector<Bound>();
  if (mask)
    bounds = decomposeMask(mask);
  collectWraps = false;
  SmallVector<Wrap> loadWraps = wraps;
  polys.clear();
  pointers.clear();
  if (failed(ptr))
    return fail("the pointers are not a base pointer plus an affine offset");
  if (failed(bounds))
    return fail("the mask is not a conjunction of bounds on the two indices");
  BlockArgument base = asKernelArgument(func, ptr->base);
  if (!base)
    return fail("the base pointer is not a kernel argument");
  auto funcOp = cast<FunctionOpInterface>(func);
  auto divisibility = [&](unsigned arg) -> int64_t {
    if (auto attr = funcOp.getArgAttrOfType<IntegerAttr>(
            arg, tile::kDivisibilityAttrName))
      return attr.getInt();
    return 1;
  };
  if (divisibility(base.getArgNumber()) % 16 != 0)
    return fail("the base pointer is not known to be 16-byte aligned (*T:16)");

  TMABox box;
  box.baseArg = base.getArgNumber();
  box.element = element;
  FailureOr<BoxShape> shape = splitOffset(ptr->offset, whyNot);
  if (failed(shape))
    return failure();
  AffineTerm *strides = shape->strides;
  AffinePoly *coords = shape->coords;
  auto &extra = shape->extra;
  int inner = shape->inner;
  if (inner < 0)
    return fail("neither tile dimension has stride 1");
  int outer = 1 - inner;
  box.transposed = inner == 0;

  // Bounds from the mask.
  std::optional<AffineTerm> sizes[2];
  bool lowerBounded[2] = {false, false};
  for (const Bound &bound : *bounds) {
    if (bound.dim > 1)
      return fail("a mask bound on an unknown dimension");
    AffinePoly limit = coords[bound.dim] - bound.q;
    if (!bound.upper) {
      if (!limit.isZero())
        return fail("a mask bounds an index below by something other than 0");
      lowerBounded[bound.dim] = true;
      continue;
    }
    std::optional<AffineTerm> size = getHostTerm(limit);
    if (!size || size->factor < 1)
      return fail("a mask bound is not a kernel argument or a positive constant");
    if (sizes[bound.dim] && !(*sizes[bound.dim] == *size))
      return fail("two different mask bounds on one index");
    sizes[bound.dim] = size;
  }
  // A store's wrapped rows would land on rows x % M that TMA, clipping at
  // M, does not write.
  if (!load && !loadWraps.empty())
    return fail("a wrapped index (x % M) in a store");
  for (Wrap &wrap : loadWraps) {
    bool along0 = (coords[0] - wrap.start).isZero();
    bool along1 = (coords[1] - wrap.start).isZero();
    if (along0 == along1)
      return fail("a wrapped index (x % M) that is not the block's row or column");
    wrap.dim = along0 ? 0 : 1;
    FailureOr<AffinePoly> modulus = decompose(wrap.modulus);
    std::optional<AffineTerm> size =
        succeeded(modulus) ? getHostTerm(*modulus) : std::nullopt;
    if (!size || size->factor < 1)
      return fail("a wrapped index whose modulus is not a kernel argument");
    if (sizes[wrap.dim] && !(*sizes[wrap.dim] == *size))
      return fail("a wrapped index that the mask also bounds differently");
    if (!wrappedRowsAreMaskedOff(load, wrap))
      return fail("a wrapped index (x % M) whose rows past M reach memory "
                  "unmasked (only a dot's rows or columns, masked at the store "
                  "by x + i < M, can read zeros there)");
    sizes[wrap.dim] = size;
  }
  for (int d : {inner, outer})
    if (!lowerBounded[d] && !isNonNegative(coords[d], box.nonNegativeArgs))
      return fail("a block coordinate may be negative");
  for (auto &[arg, coord] : extra)
    if (!isNonNegative(coord, box.nonNegativeArgs))
      return fail("an outer coordinate of the block may be negative");

  // Alignment: 16-byte strides (other than the contiguous one).
  auto strideBytesOk = [&](const AffineTerm &t) {
    int64_t div = t.factor * eltBytes;
    for (unsigned a : t.args)
      div *= divisibility(a);
    return div % 16 == 0;
  };
  if (!strideBytesOk(strides[outer]))
    return fail("a stride is not known to be a multiple of 16 bytes (give it "
                "as i32:16)");
  for (auto &[arg, coord] : extra)
    if (!strideBytesOk(AffineTerm{1, {arg}}))
      return fail("an outer stride is not known to be a multiple of 16 bytes");

  AffineTerm unbounded{tilegpu::kTMAUnboundedSize, {}};
  for (int d : {inner, outer}) {
    TMABox::Dim dim;
    dim.size = sizes[d] ? *sizes[d] : unbounded;
    dim.stride = strides[d];
    dim.coord = coords[d];
    dim.tileDim = d;
    box.dims.push_back(dim);
  }
  for (auto &[arg, coord] : extra) {
    TMABox::Dim dim;
    dim.size = unbounded;
    dim.stride = AffineTerm{1, {arg}};
    dim.coord = coord;
    box.dims.push_back(dim);
  }
  if (box.dims.size() > 5)
    return fail("more than 5 dimensions");

  // Other: zero (or NaN).
  if (other) {
    bool isNaN;
    if (!isSplatZero(other, isNaN))
      return fail("masked-off elements read a value other than 0 or NaN");
    // TMA fills NaN only for the float types of its tensor maps (16 to 64
    // bits); fp8 tiles travel as bytes.
    if (isNaN && eltBytes < 2)
      return fail("masked-off elements read NaN, which TMA fills only for "
                  "16-, 32- and 64-bit floats");
    box.nanFill = isNaN;
  }
  int64_t rows = ptrType.getDimSize(outer), cols = ptrType.getDimSize(inner);
  auto shared = tilegpu::SharedTileLayout::get(rows, cols, eltBytes);
  if (shared.swizzleBytes < 32)
    return fail("rows narrower than 32 bytes");
  if (rows > 256)
    return fail("more than 256 rows in one box");
  llvm::sort(box.nonNegativeArgs);
  box.nonNegativeArgs.erase(llvm::unique(box.nonNegativeArgs), box.nonNegativeArgs.end());
  return box;
}
