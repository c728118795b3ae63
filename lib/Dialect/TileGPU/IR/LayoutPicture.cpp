//===- LayoutPicture.cpp - SVG pictures of tile layouts -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/LayoutPicture.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec::tilegpu;

FailureOr<std::vector<ElementOwner>>
tilec::tilegpu::getElementOwners(ArrayRef<int64_t> shape, Attribute encoding) {
  FailureOr<LinearLayout> layout = toLinearLayout(shape, encoding);
  if (failed(layout))
    return failure();
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  std::vector<ElementOwner> owners(elements);
  for (int64_t w = 0, we = layout->getNumWarps(); w < we; ++w)
    for (int64_t l = 0, le = layout->getNumLanes(); l < le; ++l)
      for (int64_t r = 0, re = layout->getNumRegisters(); r < re; ++r) {
        int64_t index = layout->linearize(layout->apply(r, l, w));
        if (index < 0 || index >= elements)
          return failure();
        ElementOwner &owner = owners[index];
        if (owner.copies++ == 0) {
          owner.warp = w;
          owner.lane = l;
          owner.reg = r;
        }
      }
  return owners;
}

SharedElement tilec::tilegpu::getSharedElement(const SharedTileLayout &layout,
                                               int64_t row, int64_t col) {
  SharedElement e;
  int64_t linear = layout.getLinearOffset(row, col);
  e.offset = layout.swizzle(linear);
  e.bank = (e.offset / 4) % 32;
  e.phase = (linear >> 7) & (layout.swizzleBytes / 16 - 1);
  return e;
}

static std::string printed(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(shape))
    text += (i ? "x" : "") + std::to_string(d);
  return text;
}

std::vector<LayoutPictureRequest>
tilec::tilegpu::collectLayoutPictures(ModuleOp module) {
  llvm::MapVector<std::pair<Attribute, Type>, LayoutPictureRequest> found;
  auto visit = [&](Type type, Location loc) {
    if (auto smem = dyn_cast<SharedMemoryType>(type)) {
      RankedTensorType tile = smem.getTileType();
      if (tile.getRank() != 2 || !tile.getElementType().isIntOrFloat())
        return;
      int64_t bytes = tile.getElementTypeBitWidth() / 8;
      if (bytes == 0)
        return;
      auto key = std::make_pair(Attribute(), Type(tile));
      auto [it, inserted] = found.try_emplace(key);
      LayoutPictureRequest &r = it->second;
      if (inserted) {
        r.shared = SharedTileLayout::get(tile.getDimSize(0), tile.getDimSize(1), bytes);
        r.shape.assign(tile.getShape().begin(), tile.getShape().end());
        r.fileStem = "shared";
        std::string t;
        llvm::raw_string_ostream os(t);
        os << smem;
        r.name = t;
        r.description = llvm::formatv(
            "shared memory, {0} buffer(s) of {1} ({2} bytes each): {3}-byte "
            "swizzle, colour = bank, label = bank/phase",
            smem.getNumBuffers(), shapeText(tile.getShape()),
            tile.getNumElements() * bytes, r.shared->swizzleBytes);
      }
      if (r.locations.size() < 16)
        r.locations.push_back(loc);
      return;
    }
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getEncoding() || tensor.getRank() > 2)
      return;
    Attribute encoding = tensor.getEncoding();
    if (!isa<BlockedEncodingAttr, SliceEncodingAttr, LinearEncodingAttr,
             WarpgroupMMAEncodingAttr, MMAEncodingAttr>(encoding))
      return;
    // The element type does not change a distributed layout.
    auto key = std::make_pair(
        encoding, Type(RankedTensorType::get(tensor.getShape(),
                                             IndexType::get(module.getContext()))));
    auto [it, inserted] = found.try_emplace(key);
    LayoutPictureRequest &r = it->second;
    if (inserted) {
      r.encoding = encoding;
      r.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      r.fileStem = isa<BlockedEncodingAttr>(encoding)       ? "blocked"
                   : isa<SliceEncodingAttr>(encoding)       ? "slice"
                   : isa<LinearEncodingAttr>(encoding)      ? "linear"
                   : isa<WarpgroupMMAEncodingAttr>(encoding) ? "wgmma"
                                                             : "mma";
      r.name = shapeText(tensor.getShape()) + " " + printed(encoding);
      if (FailureOr<LinearLayout> l = toLinearLayout(tensor.getShape(), encoding);
          succeeded(l))
        r.description = llvm::formatv(
            "{0} tile, {1} warp(s) x {2} lanes, {3} register slot(s) per "
            "thread; colour = warp, label = thread:register",
            shapeText(tensor.getShape()), l->getNumWarps(), l->getNumLanes(),
            l->getNumRegisters());
    }
    if (r.locations.size() < 16)
      r.locations.push_back(loc);
  };
  module->walk([&](Operation *op) {
    for (Value v : op->getResults())
      visit(v.getType(), op->getLoc());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          visit(arg.getType(), op->getLoc());
  });
  std::vector<LayoutPictureRequest> requests;
  for (auto &entry : found)
    requests.push_back(std::move(entry.second));
  return requests;
}

/// XML-escapes `text`.
static std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

FailureOr<std::string>
tilec::tilegpu::renderLayoutPicture(const LayoutPictureRequest &request,
                                    int64_t maxRows, int64_t maxCols) {
  if (request.shape.empty() || request.shape.size() > 2)
    return failure();
  bool is1d = request.shape.size() == 1;
  // A 1-d tile is drawn in rows of maxCols elements.
  int64_t totalRows = is1d ? (request.shape[0] + maxCols - 1) / maxCols
                           : request.shape[0];
  int64_t totalCols = is1d ? std::min(request.shape[0], maxCols) : request.shape[1];
  int64_t rows = std::min(totalRows, maxRows), cols = std::min(totalCols, maxCols);
  std::vector<ElementOwner> owners;
  if (!request.shared) {
    FailureOr<std::vector<ElementOwner>> o =
        getElementOwners(request.shape, request.encoding);
    if (failed(o))
      return failure();
    owners = std::move(*o);
  }
  const int cellW = 40, cellH = 16, left = 34, top = 44;
  int width = left + cols * cellW + 8, height = top + rows * cellH + 8;
  std::string svg;
  llvm::raw_string_ostream os(svg);
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                      "font-family=\"monospace\" font-size=\"8\">\n",
                      width, height);
  os << "<title>" << escape(request.name) << "</title>\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  std::string caption = request.description;
  if (rows < totalRows || cols < totalCols)
    caption += llvm::formatv(" (top-left {0}x{1} of {2})", rows, cols,
                             shapeText(request.shape))
                   .str();
  os << "<text x=\"2\" y=\"11\" font-size=\"10\">" << escape(request.name)
     << "</text>\n";
  os << "<text x=\"2\" y=\"24\" font-size=\"9\">" << escape(caption) << "</text>\n";
  for (int64_t c = 0; c < cols; ++c)
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n",
                        left + c * cellW + cellW / 2, top - 4, c);
  os << "<g stroke-width=\"0.4\" text-anchor=\"middle\">\n";
  for (int64_t r = 0; r < rows; ++r) {
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>\n",
                        left - 3, top + r * cellH + 11, is1d ? r * maxCols : r);
    for (int64_t c = 0; c < cols; ++c) {
      int x = left + c * cellW, y = top + r * cellH;
      std::string fill, label;
      if (request.shared) {
        SharedElement e = getSharedElement(*request.shared, r, c);
        fill = llvm::formatv("hsl({0},70%,{1}%)", (e.bank * 360) / 32,
                             70 + (e.bank % 2) * 12)
                   .str();
        label = llvm::formatv("b{0}/p{1}", e.bank, e.phase).str();
      } else {
        int64_t index = is1d ? r * maxCols + c : r * request.shape[1] + c;
        if (is1d && index >= request.shape[0])
          continue;
        const ElementOwner &o = owners[index];
        fill = llvm::formatv("hsl({0},65%,{1}%)", (o.warp * 137) % 360,
                             55 + (o.lane % 8) * 5)
                   .str();
        label = llvm::formatv("t{0}:{1}", o.getThread(), o.reg).str();
        if (o.copies > 1)
          label += "*";
      }
      os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                          "fill=\"{4}\" stroke=\"#fff\"/>"
                          "<text x=\"{5}\" y=\"{6}\">{7}</text>\n",
                          x, y, cellW, cellH, fill, x + cellW / 2, y + 11, label);
    }
  }
  os << "</g>\n</svg>\n";
  return svg;
}
