//===- CodeGenReduce.cpp - Reductions -------------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every reduction (`tl.sum`, `tl.max`, `tl.argmax`, `tl.reduce` with a user
// combine function) is one `tile.reduce` whose region combines scalars.
// `axis=None` reduces every element: the sources are first reshaped to 1-d
// (the order of elements does not matter to an associative, commutative
// combine, so the reshape may reorder). Scans (`tl.cumsum`, `tl.cumprod`,
// `tl.associative_scan`) are one `tile.scan` with the same kind of region.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using mlir::failure;
using mlir::FailureOr;

/// Builds the combine region of a tile.reduce or tile.scan over scalars of
/// `elementTypes` (dtypes of `srcs`), terminated by a `ReturnOp`; reports
/// a combine function that returns the wrong number or kind of values
/// ("the combine function" + `what` + " must return ...").
template <typename ReturnOp>
static mlir::LogicalResult
buildCombineRegion(CodeGen &cg, mlir::Region &region,
                   llvm::ArrayRef<CGValue> srcs,
                   llvm::ArrayRef<mlir::Type> elementTypes, SMLoc errLoc,
                   CodeGen::CombineBuilder combine, llvm::StringRef what) {
  mlir::OpBuilder &builder = cg.builder;
  llvm::SmallVector<mlir::Type> argTypes(elementTypes);
  argTypes.append(elementTypes.begin(), elementTypes.end());
  llvm::SmallVector<mlir::Location> argLocs(argTypes.size(), cg.loc());
  bool ok = true;
  {
    mlir::OpBuilder::InsertionGuard guard(builder);
    mlir::Block *block =
        builder.createBlock(&region, {}, argTypes, argLocs);
    size_t n = srcs.size();
    llvm::SmallVector<CGValue> lhs, rhs;
    for (size_t i = 0; i < n; ++i) {
      lhs.push_back(
          CGValue::runtime(block->getArgument(i), srcs[i].getDType()));
      rhs.push_back(
          CGValue::runtime(block->getArgument(n + i), srcs[i].getDType()));
    }
    FailureOr<llvm::SmallVector<CGValue>> combined = combine(lhs, rhs);
    llvm::SmallVector<mlir::Value> yields;
    if (succeeded(combined) && combined->size() != n) {
      cg.error(errLoc, "the combine function" + what.str() + " must return " +
                        std::to_string(n) + " value" + (n == 1 ? "" : "s") +
                        ", but it returns " + std::to_string(combined->size()));
      combined = failure();
    }
    if (succeeded(combined)) {
      for (size_t i = 0; i < n; ++i) {
        CGValue v = (*combined)[i];
        if (v.isNumber())
          v = cg.makeConstant(v, srcs[i].getDType());
        if (!v.isRuntime() || v.isTile() ||
            v.getValue().getType() != elementTypes[i]) {
          cg.error(errLoc, "the combine function" + what.str() + " must return "
                        "scalars of type " +
                            srcs[i].getDType().str() + ", but result " +
                            std::to_string(i) + " is " + v.describe());
          ok = false;
          break;
        }
        if (v.getDType() != srcs[i].getDType()) {
          FailureOr<CGValue> c = cg.cast(v, srcs[i].getDType(), errLoc);
          if (failed(c)) {
            ok = false;
            break;
          }
          v = *c;
        }
        yields.push_back(v.getValue());
      }
    } else {
      ok = false;
    }
    if (!ok) {
      yields.clear();
      for (size_t i = 0; i < n; ++i)
        yields.push_back(block->getArgument(i));
    }
    ReturnOp::create(builder, cg.loc(), yields);
  }
  return mlir::success(ok);
}

FailureOr<llvm::SmallVector<CGValue>>
CodeGen::reduce(llvm::ArrayRef<CGValue> srcsIn, std::optional<int64_t> axisIn,
                bool keepDims, SMLoc errLoc, SMLoc axisLoc,
                CombineBuilder combine) {
  llvm::SmallVector<CGValue> srcs(srcsIn.begin(), srcsIn.end());
  llvm::SmallVector<int64_t> shape = srcs.front().getShape();
  int64_t rank = static_cast<int64_t>(shape.size());
  for (const CGValue &src : srcs)
    if (llvm::ArrayRef<int64_t>(src.getShape()) != llvm::ArrayRef(shape))
      return error(errLoc, "the tiles of a reduction must have the same "
                           "shape, got " +
                               srcs.front().describe() + " and " +
                               src.describe());
  int64_t axis;
  if (!axisIn) {
    int64_t numel = 1;
    for (int64_t d : shape)
      numel *= d;
    for (CGValue &src : srcs)
      src = reshape(src, {numel}, /*allowReorder=*/true);
    axis = 0;
  } else {
    axis = *axisIn;
    if (axis < -rank || axis >= rank)
      return error(axisLoc, "axis " + std::to_string(axis) +
                                " is out of range for a tile of rank " +
                                std::to_string(rank) + " (shape " +
                                shapeToString(shape) + ")");
    if (axis < 0)
      axis += rank;
  }

  llvm::SmallVector<mlir::Type> resultTypes;
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::Type> elementTypes;
  for (const CGValue &src : srcs) {
    auto type = mlir::cast<mlir::RankedTensorType>(src.getValue().getType());
    resultTypes.push_back(tile::ReduceOp::getResultType(type, axis));
    operands.push_back(src.getValue());
    elementTypes.push_back(type.getElementType());
  }
  auto op = tile::ReduceOp::create(builder, loc(), resultTypes, operands,
                                   static_cast<uint32_t>(axis));
  if (failed(buildCombineRegion<tile::ReduceReturnOp>(
          *this, op.getCombineOp(), srcs, elementTypes, errLoc, combine,
          " of this reduction")))
    return failure();


  llvm::SmallVector<CGValue> results;
  for (size_t i = 0; i < srcs.size(); ++i) {
    CGValue result = CGValue::runtime(op->getResult(i), srcs[i].getDType());
    if (keepDims) {
      if (!axisIn) {
        llvm::SmallVector<int64_t> ones(rank, 1);
        result = splat(result, ones);
      } else {
        result = expandDims(result, axis);
      }
    }
    results.push_back(result);
  }
  return results;
}

FailureOr<llvm::SmallVector<CGValue>>
CodeGen::scan(llvm::ArrayRef<CGValue> srcs, int64_t axis, bool reverse,
              SMLoc errLoc, CombineBuilder combine) {
  llvm::SmallVector<mlir::Type> resultTypes, elementTypes;
  llvm::SmallVector<mlir::Value> operands;
  for (const CGValue &src : srcs) {
    auto type = mlir::cast<mlir::RankedTensorType>(src.getValue().getType());
    resultTypes.push_back(type);
    operands.push_back(src.getValue());
    elementTypes.push_back(type.getElementType());
  }
  auto op = tile::ScanOp::create(builder, loc(), resultTypes, operands,
                                 static_cast<uint32_t>(axis), reverse);
  if (failed(buildCombineRegion<tile::ScanReturnOp>(
          *this, op.getCombineOp(), srcs, elementTypes, errLoc, combine,
          "")))
    return failure();
  llvm::SmallVector<CGValue> results;
  for (size_t i = 0; i < srcs.size(); ++i)
    results.push_back(CGValue::runtime(op->getResult(i), srcs[i].getDType()));
  return results;
}
