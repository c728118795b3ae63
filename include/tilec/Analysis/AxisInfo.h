//===- AxisInfo.h - contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `tile-axis-info`: for every integer or pointer value (scalar or tile), and
// for each tile dimension d, three facts that decide how wide memory
// accesses can be (and, later, whether TMA applies):
//
//  - contiguity[d] = c: along d, the tile splits into aligned groups of c
//    elements (indices i*c … i*c+c-1) whose values step by exactly 1
//    (pointers: by one element).
//  - divisibility[d] = v: the first value of every such group is a multiple
//    of v (pointers: the byte address is). With c = 1 that is every value.
//  - constancy[d] = k: aligned groups of k elements along d are equal.
//
// All three are powers of two. Example: `pid * 128 + tl.arange(0, 128)` with
// the grid unknown has contiguity [128], divisibility [128], constancy [1];
// `offs < n` with n declared `i32:16` has constancy [16].
//
// The facts come from the signature's `:16` hints (`tile.divisibility`
// argument attributes), constants, ranges and splats, and flow through
// arithmetic, pointer arithmetic, comparisons, selects and loops. The
// analysis is a sparse forward data-flow analysis (MLIR's DataFlowSolver);
// the join of two states is their element-wise gcd (what both guarantee).
// The rules follow Triton's AxisInfo (lib/Analysis/AxisInfo.cpp), with the
// divisibility of sub-groups of a contiguous run made exact (effective
// divisibility below).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_AXISINFO_H
#define TILEC_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilec {

/// Facts about the values of a scalar or tile along each dimension (see the
/// file comment). A scalar has rank 1 with one element. An empty AxisInfo is
/// "not yet known" (the lattice's bottom).
class AxisInfo {
public:
  using DimVector = llvm::SmallVector<int64_t, 4>;

  /// Largest divisibility tracked (the divisibility of 0).
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constantValue = std::nullopt);

  /// Nothing known about a value of the given rank (all ones).
  static AxisInfo getPessimistic(unsigned rank);
  /// A value with the same `value` everywhere in a tile of shape `shape`
  /// (scalars: empty shape).
  static AxisInfo getConstant(llvm::ArrayRef<int64_t> shape, int64_t value);
  /// The facts a value of `type` has with no other knowledge: pointers are
  /// aligned to their element size, other values to 1.
  static AxisInfo getDefault(mlir::Type type, int64_t divisibility = 1);

  bool isUninitialized() const { return contiguity.empty(); }
  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned d) const { return contiguity[d]; }
  int64_t getDivisibility(unsigned d) const { return divisibility[d]; }
  int64_t getConstancy(unsigned d) const { return constancy[d]; }
  llvm::ArrayRef<int64_t> getContiguity() const { return contiguity; }
  llvm::ArrayRef<int64_t> getDivisibility() const { return divisibility; }
  llvm::ArrayRef<int64_t> getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constantValue; }

  /// The divisibility of the first value of each aligned group of `group`
  /// elements along d: the groups of a longer contiguous run start at
  /// first + j*group*unit, divisible by gcd(divisibility, group*unit).
  /// `unit` is the size of one step: 1 for integers, the pointee size in
  /// bytes for pointers.
  int64_t getEffectiveDivisibility(unsigned d, int64_t group,
                                   int64_t unit = 1) const;

  /// What both `lhs` and `rhs` guarantee (element-wise gcd).
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool operator==(const AxisInfo &other) const {
    return contiguity == other.contiguity &&
           divisibility == other.divisibility &&
           constancy == other.constancy && constantValue == other.constantValue;
  }
  void print(llvm::raw_ostream &os) const;

private:
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constantValue;
};

/// The data-flow lattice element holding an AxisInfo.
class AxisInfoLattice : public mlir::dataflow::Lattice<AxisInfo> {
public:
  using Lattice::Lattice;
};

/// The sparse forward analysis computing AxisInfo for every value. Load it
/// into a DataFlowSolver together with DeadCodeAnalysis and
/// SparseConstantPropagation (see ModuleAxisInfo for the usual entry point).
class AxisInfoAnalysis
    : public mlir::dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  mlir::LogicalResult
  visitOperation(mlir::Operation *op,
                 llvm::ArrayRef<const AxisInfoLattice *> operands,
                 llvm::ArrayRef<AxisInfoLattice *> results) override;
  void setToEntryState(AxisInfoLattice *lattice) override;
  void visitNonControlFlowArguments(
      mlir::Operation *op, const mlir::RegionSuccessor &successor,
      llvm::ArrayRef<AxisInfoLattice *> argLattices,
      unsigned firstIndex) override;
};

/// Runs AxisInfoAnalysis over `root` once and answers queries. Values the
/// analysis did not reach get the pessimistic default.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(mlir::Operation *root);
  AxisInfo lookup(mlir::Value value) const;

private:
  mlir::DataFlowSolver solver;
};

} // namespace tilec

#endif // TILEC_ANALYSIS_AXISINFO_H
