//===- TileGPUAttrs.cpp - tilegpu layout attributes -----------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> sizePerThread,
                            ArrayRef<unsigned> threadsPerWarp,
                            ArrayRef<unsigned> warpsPerCTA,
                            ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "blocked layout: sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order must have the same length";
  unsigned lanes = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!llvm::isPowerOf2_32(sizePerThread[d]) ||
        !llvm::isPowerOf2_32(threadsPerWarp[d]) ||
        !llvm::isPowerOf2_32(warpsPerCTA[d]))
      return emitError() << "blocked layout: every entry must be a power of two";
    lanes *= threadsPerWarp[d];
  }
  if (lanes != kThreadsPerWarp)
    return emitError() << "blocked layout: threadsPerWarp multiplies to "
                       << lanes << ", expected " << kThreadsPerWarp;
  llvm::SmallBitVector seen(rank);
  for (unsigned d : order) {
    if (d >= rank || seen.test(d))
      return emitError() << "blocked layout: order must be a permutation";
    seen.set(d);
  }
  return success();
}

unsigned BlockedEncodingAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA())
    n *= w;
  return n;
}

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  unsigned parentRank;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(parent))
    parentRank = blocked.getRank();
  else if (auto slice = dyn_cast<SliceEncodingAttr>(parent))
    parentRank = slice.getRank();
  else if (auto linear = dyn_cast<LinearEncodingAttr>(parent))
    parentRank = linear.getRank();
  else if (isa<WarpgroupMMAEncodingAttr, MMAEncodingAttr>(parent))
    parentRank = 2;
  else
    return emitError() << "slice layout: unsupported parent " << parent;
  if (dim >= parentRank)
    return emitError() << "slice layout: dim " << dim
                       << " out of range for a parent of rank " << parentRank;
  return success();
}

unsigned SliceEncodingAttr::getRank() const {
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(getParent()))
    return blocked.getRank() - 1;
  if (auto linear = dyn_cast<LinearEncodingAttr>(getParent()))
    return linear.getRank() - 1;
  if (isa<WarpgroupMMAEncodingAttr, MMAEncodingAttr>(getParent()))
    return 1;
  return cast<SliceEncodingAttr>(getParent()).getRank() - 1;
}

//===----------------------------------------------------------------------===//
// LinearEncodingAttr
//===----------------------------------------------------------------------===//

static constexpr llvm::StringLiteral kLinearInputNames[] = {"register", "lane",
                                                            "warp"};

LogicalResult
LinearEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           unsigned rank, ArrayRef<int64_t> registerBases,
                           ArrayRef<int64_t> laneBases,
                           ArrayRef<int64_t> warpBases) {
  if (rank == 0)
    return emitError() << "linear layout: rank must be at least 1";
  ArrayRef<int64_t> all[] = {registerBases, laneBases, warpBases};
  for (auto [name, flat] : llvm::zip(kLinearInputNames, all)) {
    if (flat.size() % rank != 0)
      return emitError() << "linear layout: every " << name << " basis must have "
                         << rank << " entries";
    for (int64_t v : flat)
      if (v < 0 || v >= (int64_t(1) << 30))
        return emitError() << "linear layout: basis entries must be in "
                              "[0, 2^30), got "
                           << v;
  }
  if (laneBases.size() / rank != llvm::Log2_32(kThreadsPerWarp))
    return emitError() << "linear layout: needs " << llvm::Log2_32(kThreadsPerWarp)
                       << " lane bases (32 lanes), got " << laneBases.size() / rank;
  if (warpBases.size() / rank > 5)
    return emitError() << "linear layout: at most 5 warp bases (32 warps)";
  return success();
}

ArrayRef<int64_t> LinearEncodingAttr::getFlatBases(unsigned hw) const {
  switch (hw) {
  case 0:
    return getRegisterBases();
  case 1:
    return getLaneBases();
  default:
    return getWarpBases();
  }
}

unsigned LinearEncodingAttr::getNumWarps() const {
  return 1u << (getWarpBases().size() / getRank());
}

Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  // `<` register = [[..], ..] `,` lane = [..] `,` warp = [..] `>`
  SmallVector<int64_t> flat[3];
  std::optional<unsigned> rank;
  if (parser.parseLess())
    return {};
  for (unsigned hw = 0; hw < 3; ++hw) {
    if ((hw && parser.parseComma()) || parser.parseKeyword(kLinearInputNames[hw]) ||
        parser.parseEqual())
      return {};
    auto parseBasis = [&]() -> ParseResult {
      size_t before = flat[hw].size();
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            return parser.parseInteger(flat[hw].emplace_back());
          }))
        return failure();
      unsigned entries = flat[hw].size() - before;
      if (!rank)
        rank = entries;
      if (entries != *rank)
        return parser.emitError(parser.getCurrentLocation(),
                                "linear layout: every basis must have ")
               << *rank << " entries, got " << entries;
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseBasis))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!rank) {
    parser.emitError(parser.getCurrentLocation(),
                     "linear layout: needs at least one basis to know its rank");
    return {};
  }
  return parser.getChecked<LinearEncodingAttr>(parser.getContext(), *rank,
                                               flat[0], flat[1], flat[2]);
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  unsigned rank = getRank();
  printer << "<";
  for (unsigned hw = 0; hw < 3; ++hw) {
    if (hw)
      printer << ", ";
    printer << kLinearInputNames[hw] << " = [";
    ArrayRef<int64_t> flat = getFlatBases(hw);
    for (size_t i = 0; i < flat.size(); i += rank) {
      if (i)
        printer << ", ";
      printer << "[";
      llvm::interleaveComma(flat.slice(i, rank), printer);
      printer << "]";
    }
    printer << "]";
  }
  printer << ">";
}

LogicalResult WarpgroupMMAEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> warpsPerCTA, unsigned instrN) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "wgmma layout: warpsPerCTA must have 2 entries";
  if (warpsPerCTA[0] % 4 != 0 || !llvm::isPowerOf2_32(warpsPerCTA[0]) ||
      !llvm::isPowerOf2_32(warpsPerCTA[1]))
    return emitError() << "wgmma layout: warpsPerCTA[0] must be a power-of-two "
                          "multiple of 4 (whole warpgroups along M), and "
                          "warpsPerCTA[1] a power of two";
  if (instrN < 8 || instrN > 256 || !llvm::isPowerOf2_32(instrN))
    return emitError() << "wgmma layout: instrN must be a power of two in "
                          "[8, 256], got "
                       << instrN;
  return success();
}

unsigned WarpgroupMMAEncodingAttr::getNumWarps() const {
  return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
}

LogicalResult MMAEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      ArrayRef<unsigned> warpsPerCTA,
                                      unsigned instrN) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout: warpsPerCTA must have 2 entries";
  if (!llvm::isPowerOf2_32(warpsPerCTA[0]) || !llvm::isPowerOf2_32(warpsPerCTA[1]))
    return emitError() << "mma layout: warpsPerCTA entries must be powers of two";
  if (instrN < 8 || instrN > 256 || !llvm::isPowerOf2_32(instrN))
    return emitError() << "mma layout: instrN must be a power of two in "
                          "[8, 256], got "
                       << instrN;
  return success();
}

unsigned MMAEncodingAttr::getNumWarps() const {
  return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
}

void TileGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TMA recipes
//===----------------------------------------------------------------------===//

LogicalResult
TMARecipeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned base, Type element, ArrayRef<TMATermAttr> sizes,
                      ArrayRef<TMATermAttr> strides, ArrayRef<int64_t> box,
                      int64_t swizzle, bool nanFill, ArrayRef<unsigned> nonNegative) {
  size_t rank = sizes.size();
  if (rank < 1 || rank > 5)
    return emitError() << "TMA recipe: 1 to 5 dimensions, got " << rank;
  if (strides.size() != rank || box.size() != rank)
    return emitError() << "TMA recipe: sizes, strides and box must have one "
                          "entry per dimension";
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return emitError() << "TMA recipe: elements must be whole bytes, got "
                       << element;
  if (!strides[0].isConstant() || strides[0].getFactor() != 1)
    return emitError() << "TMA recipe: the innermost stride must be 1";
  for (TMATermAttr size : sizes)
    if (size.getFactor() < 1)
      return emitError() << "TMA recipe: size factors must be positive";
  for (int64_t b : box)
    if (b < 1 || b > 256)
      return emitError() << "TMA recipe: box entries must be from 1 to 256";
  int64_t eltBytes = element.getIntOrFloatBitWidth() / 8;
  if ((box[0] * eltBytes) % 16 != 0)
    return emitError() << "TMA recipe: the innermost box must be a multiple of "
                          "16 bytes";
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "TMA recipe: swizzle must be 32, 64 or 128 bytes";
  if (box[0] * eltBytes > swizzle)
    return emitError() << "TMA recipe: the innermost box is wider than the swizzle";
  if (nanFill && !isa<FloatType>(element))
    return emitError() << "TMA recipe: NaN fill needs a floating-point element";
  (void)base;
  (void)nonNegative;
  return success();
}
