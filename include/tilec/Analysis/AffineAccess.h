//===- AffineAccess.h - tiles of pointers as affine boxes -------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Which global loads are copies of a box of a tensor that the runtime can
// describe with a TMA descriptor (Hopper's Tensor Memory Accelerator, PTX
// ISA §9.7.9.25.5), whatever the kernel wrote: a block pointer (rewritten
// into a tile of pointers by tile-rewrite-block-pointers), a tensor
// descriptor, or pointer arithmetic like Triton's tutorials
// (`a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]`).
//
// The analysis writes every integer value it meets as a polynomial over
// scalar SSA values ("atoms": kernel arguments, program ids, anything it
// cannot look into), the element index I_d of a tile along dimension d, and
// the iteration number t of an enclosing scf.for (the induction variable is
// lb + t * step; a loop-carried value whose yield adds a loop-invariant
// increment is init + t * increment). A tile of pointers is a base pointer
// plus such a polynomial of element offsets; a mask is a conjunction of
// bounds `I_d + q < 0` or `I_d + q >= 0`. A load is a TMA box when
//
//   offset = sum_d (c_d + I_d) * stride_d + sum_x c_x * stride_x
//
// where every stride is a kernel argument or a constant (one of them 1, the
// contiguous dimension), c_d are the box's coordinates, the extra terms
// c_x * stride_x are the outer dimensions of the tensor the block lives in
// (attention's batch and head offsets), and each mask bound is
// `c_d + I_d < size_d` with size_d a kernel argument or a constant, or
// `c_d + I_d >= 0` (TMA clips at zero by itself). Coordinates that no mask
// bounds below must be provably non-negative.
//
// A row index that wraps, `(x + I_d) % M` (tutorial 03's `offs_am`), is
// `x + I_d` wherever x + I_d < M; the copy reads zeros in the other rows,
// which is right when every result those rows feed is masked off by
// `x + I_d < M` before it reaches memory (the rows of a dot's A feed only
// the same rows of its result, the columns of B the same columns):
// checked by following the loaded tile to its stores.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_AFFINEACCESS_H
#define TILEC_ANALYSIS_AFFINEACCESS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

namespace tilec {
namespace tile {
class LoadOp;
class StoreOp;
class AtomicRMWOp;
} // namespace tile

/// One factor of a monomial: an SSA scalar (`atom`), the element index of
/// a tile along dimension `index`, or the iteration number of `loop`.
struct AffineFactor {
  enum class Kind : uint8_t { Atom, Index, Iteration };
  Kind kind;
  mlir::Value atom;           ///< Atom
  unsigned index = 0;         ///< Index
  mlir::Operation *loop = nullptr; ///< Iteration (an scf.for)

  static AffineFactor getAtom(mlir::Value v) { return {Kind::Atom, v, 0, nullptr}; }
  static AffineFactor getIndex(unsigned d) { return {Kind::Index, {}, d, nullptr}; }
  static AffineFactor getIteration(mlir::Operation *loop) {
    return {Kind::Iteration, {}, 0, loop};
  }
  bool operator<(const AffineFactor &other) const;
  bool operator==(const AffineFactor &other) const {
    return !(*this < other) && !(other < *this);
  }
};

/// A product of factors (sorted), the key of a polynomial's terms.
using AffineMonomial = llvm::SmallVector<AffineFactor, 4>;

/// A polynomial with integer coefficients over AffineFactors.
class AffinePoly {
public:
  AffinePoly() = default;
  static AffinePoly constant(int64_t c);
  static AffinePoly factor(AffineFactor f);

  AffinePoly operator+(const AffinePoly &other) const;
  AffinePoly operator-(const AffinePoly &other) const;
  AffinePoly operator*(const AffinePoly &other) const;
  AffinePoly scaled(int64_t c) const;

  bool isZero() const { return terms.empty(); }
  /// The constant term.
  int64_t getConstant() const;
  std::optional<int64_t> getConstantValue() const;
  /// True when some monomial has a factor `pred` accepts.
  bool any(llvm::function_ref<bool(const AffineFactor &)> pred) const;
  bool hasIndex() const;
  /// The polynomial with index factor d renamed by `rename` (or dropped, the
  /// term vanishing, where `rename` returns std::nullopt: a dimension of
  /// size 1 whose index is 0).
  AffinePoly renameIndices(
      llvm::function_ref<std::optional<unsigned>(unsigned)> rename) const;
  /// Splits off the terms that contain index d exactly once (with d removed)
  /// from the rest; fails when d appears squared or with another index.
  bool splitIndex(unsigned d, AffinePoly &coefficient, AffinePoly &rest) const;

  const std::map<AffineMonomial, int64_t> &getTerms() const { return terms; }
  void print(llvm::raw_ostream &os) const;

private:
  void add(const AffineMonomial &m, int64_t c);
  std::map<AffineMonomial, int64_t> terms;
};

/// A size or stride of a TMA descriptor: `factor` times the product of the
/// kernel arguments `args` (their positions among the function's
/// arguments, sorted; none: the constant `factor`).
struct AffineTerm {
  int64_t factor = 0;
  llvm::SmallVector<unsigned, 2> args;
  bool isConstant() const { return args.empty(); }
  bool operator==(const AffineTerm &other) const {
    return factor == other.factor && args == other.args;
  }
};

/// A load that is a TMA box of a tensor (see the file comment).
struct TMABox {
  /// The kernel's pointer argument the tensor starts at.
  unsigned baseArg = 0;
  mlir::Type element;
  struct Dim {
    AffineTerm size, stride;
    /// The box origin along this dimension (element coordinate).
    AffinePoly coord;
    /// The tile dimension it spans, or -1 for an outer dimension (box 1).
    int tileDim = -1;
  };
  /// Innermost (stride 1) first.
  llvm::SmallVector<Dim> dims;
  /// The tile's first dimension is the contiguous one (a 2-d tile read
  /// transposed: B given column-major).
  bool transposed = false;
  bool nanFill = false;
  /// Integer arguments the coordinates' sign proofs assumed non-negative.
  llvm::SmallVector<unsigned> nonNegativeArgs;
};

/// Decomposes values into AffinePolys, memoized; one instance per function.
class AffineAccessAnalysis {
public:
  explicit AffineAccessAnalysis(mlir::Operation *func) : func(func) {}

  /// The TMA box `load` reads, or failure with the reason in `whyNot`.
  mlir::FailureOr<TMABox> getTMABox(tile::LoadOp load, std::string &whyNot);
  /// The TMA box `store` writes (its masked-off elements are those outside
  /// the box's sizes, which a TMA store does not write), or failure with
  /// the reason in `whyNot`.
  mlir::FailureOr<TMABox> getTMABox(tile::StoreOp store, std::string &whyNot);
  /// The TMA box an atomic read-modify-write `atomic` updates, as for a
  /// store, or failure with the reason in `whyNot`.
  mlir::FailureOr<TMABox> getTMABox(tile::AtomicRMWOp atomic, std::string &whyNot);

  /// The polynomial of an integer scalar or tile value (failure when it
  /// cannot be decomposed: a non-affine tile).
  mlir::FailureOr<AffinePoly> getPoly(mlir::Value value);

  /// Emits `poly` as an i32 value at `b`'s insertion point (atoms are used
  /// as they are, iteration numbers computed from their loop's induction
  /// variable); fails if an atom does not dominate the insertion point or
  /// an index factor remains.
  mlir::FailureOr<mlir::Value> materialize(mlir::OpBuilder &b, mlir::Location loc,
                                           const AffinePoly &poly);

  /// Whether every value `poly` takes is >= 0 (from the ops computing it,
  /// `tl.assume(x >= 0)`, and integer kernel arguments being non-negative:
  /// those are appended to `assumed`, for the runtime to check). A negative
  /// term `-k*d * (x / d)` (d a positive constant) counts as `k * (x % d) -
  /// k * x`, non-negative remainder and all, when `x >= 0`: the
  /// `n - (n // B) * B` of a loop that starts where whole blocks end
  /// (tutorial 06's backward dQ loop).
  bool isNonNegative(const AffinePoly &poly,
                     llvm::SmallVectorImpl<unsigned> &assumed, int depth = 0);

private:
  /// getTMABox of a load (`other`: its value for masked-off elements) or a
  /// store `access` of the pointer tile `ptrTile` under `mask`.
  mlir::FailureOr<TMABox> getTMABox(mlir::Operation *access, mlir::Value ptrTile,
                                    mlir::Value mask, mlir::Value other,
                                    std::string &whyNot);
  struct PointerParts {
    mlir::Value base; ///< a scalar !tile.ptr (a kernel argument)
    AffinePoly offset;
  };
  struct Bound {
    unsigned dim;
    AffinePoly q; ///< I_dim + q < 0 (upper) or I_dim + q >= 0 (lower)
    bool upper;
  };
  struct Wrap {
    unsigned dim; ///< the tile dimension (found from the block's origin)
    AffinePoly start; ///< the index is (start + I_dim) % modulus
    mlir::Value modulus;
  };

  /// A 2-d tile's offset split into the strides of its two dimensions
  /// (`inner` is the one with stride 1, or -1), the coordinates of its
  /// origin along them, and outer dimensions (stride argument, coordinate).
  struct BoxShape {
    AffineTerm strides[2];
    AffinePoly coords[2];
    llvm::SmallVector<std::pair<unsigned, AffinePoly>> extra;
    int inner = -1;
  };
  mlir::FailureOr<BoxShape> splitOffset(const AffinePoly &offset,
                                        std::string &whyNot);
  mlir::FailureOr<AffinePoly> decompose(mlir::Value value);
  mlir::FailureOr<AffinePoly> decomposeIterArg(mlir::Value arg);
  mlir::FailureOr<PointerParts> decomposePointer(mlir::Value ptr);
  mlir::FailureOr<llvm::SmallVector<Bound>> decomposeMask(mlir::Value mask);
  std::optional<AffineTerm> getHostTerm(const AffinePoly &poly);
  bool isNonNegativeAtom(mlir::Value atom,
                         llvm::SmallVectorImpl<unsigned> &assumed, int depth);
  bool isLoopInvariant(const AffinePoly &poly, mlir::Operation *loop);
  bool wrappedRowsAreMaskedOff(tile::LoadOp load, const Wrap &wrap);

  mlir::Operation *func;
  llvm::DenseMap<mlir::Value, std::optional<AffinePoly>> polys;
  llvm::DenseMap<mlir::Value, std::optional<PointerParts>> pointers;
  /// Iteration arguments being decomposed (their recurrence is read with
  /// the argument as an atom).
  llvm::DenseMap<mlir::Value, unsigned> inProgress;
  /// Wrapped indices met while decomposing the current load.
  llvm::SmallVector<Wrap> wraps;
  bool collectWraps = false;
};

} // namespace tilec

#endif // TILEC_ANALYSIS_AFFINEACCESS_H
