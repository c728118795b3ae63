//===- TileToLinalgSupport.h - shared helpers of convert-tile-to-linalg ---===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The type converter (pointers become i64 addresses), builders for the
// `linalg.generic`s most patterns emit, and the entry points of the pattern
// files (one per op family).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOLINALG_TILETOLINALGSUPPORT_H
#define TILEC_LIB_CONVERSION_TILETOLINALG_TILETOLINALGSUPPORT_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {
class ModuleAxisInfo;
} // namespace tilec

namespace tilec::cpu {

/// `!tile.ptr<T>` becomes `i64` (an address), a tensor of pointers a tensor
/// of `i64`; every other type is unchanged.
class TileToLinalgTypeConverter : public mlir::TypeConverter {
public:
  explicit TileToLinalgTypeConverter(mlir::MLIRContext *ctx);
};

/// What the memory patterns need beyond the type converter.
struct MemoryLoweringOptions {
  /// Call the access checker before every access (pass option `sanitize`).
  bool sanitize = false;
  /// `tile-axis-info` of the module being converted (queried on the
  /// original pointer tiles), or null.
  const ModuleAxisInfo *axisInfo = nullptr;
};

/// Bytes one element of `type` takes in memory: 1 for i1 and fp8, 8 for a
/// pointer, else the bit width rounded up to bytes.
int64_t getStorageBytes(mlir::Type type);

/// Builds the body of a `linalg.generic`: gets the builder, the location and
/// the input block arguments (the output's is left out), returns the value
/// to yield.
using ElementBodyBuilder = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// A `linalg.generic` with only parallel dimensions (those of `resultType`)
/// that writes a fresh `tensor.empty` of `resultType`; input `i` is read
/// through `inputMaps[i]`.
mlir::Value buildParallelGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::RankedTensorType resultType,
                                 mlir::ValueRange inputs,
                                 llvm::ArrayRef<mlir::AffineMap> inputMaps,
                                 ElementBodyBuilder body);

/// A `tensor.empty` of `resultType` filled with `src` read through `map`
/// (a gather of elements: broadcasts, transposes, slices of an axis).
mlir::Value buildCopyGeneric(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType, mlir::Value src,
                             mlir::AffineMap map);

/// An elementwise `linalg.generic`: every input has `resultType`'s shape and
/// is read through the identity map.
mlir::Value buildElementwiseGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::RankedTensorType resultType,
                                    mlir::ValueRange inputs,
                                    ElementBodyBuilder body);

void populateViewOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateMemoryOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      const MemoryLoweringOptions &options);
/// The register tile of the vector `tile.dot` lowering (DotOpToLinalg.cpp):
/// up to `tileM` rows of `tileN` accumulator columns, each row one
/// vector<tileN>. Zero (either) lowers the dot to one scalar
/// `linalg.generic` instead.
struct DotLoweringOptions {
  int64_t tileM = 8;
  int64_t tileN = 32;
};

void populateDotOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const DotLoweringOptions &options);
void populateReduceOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);
/// tile.print and tile.assert: host calls per element (TileToLinalg.h).
void populateDebugOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);

} // namespace tilec::cpu

#endif // TILEC_LIB_CONVERSION_TILETOLINALG_TILETOLINALGSUPPORT_H
