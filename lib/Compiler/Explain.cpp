//===- Explain.cpp - `tilec explain`: the decisions that matter for speed -===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Explain.h"

#include "tilec/Analysis/AccessWidth.h"
#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <set>
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec;

namespace {
/// A place in the source: line and column.
using SourceKey = std::pair<unsigned, unsigned>;

struct Explainer {
  ArrayRef<ExplainRemark> remarks;
  std::vector<bool> taken;
  SmallVector<StringRef> sourceLines;

  std::optional<FileLineColLoc> fileLoc(Location loc) const {
    if (auto f = loc->findInstanceOf<FileLineColLoc>())
      return f;
    return std::nullopt;
  }
  SourceKey key(Location loc) const {
    if (auto f = fileLoc(loc))
      return {f->getLine(), f->getColumn()};
    return {0, 0};
  }
  /// The first remark at `loc` starting with `prefix` (marked as taken), or
  /// "".
  std::string takeRemark(Location loc, StringRef prefix) {
    SourceKey k = key(loc);
    for (auto [i, r] : llvm::enumerate(remarks)) {
      if (key(r.loc) != k || !StringRef(r.message).starts_with(prefix))
        continue;
      taken[i] = true;
      return r.message;
    }
    return "";
  }
  ExplainEntry entry(Location loc) const {
    ExplainEntry e;
    if (auto f = fileLoc(loc)) {
      e.line = f->getLine();
      e.column = f->getColumn();
      e.location = llvm::formatv("{0}:{1}:{2}",
                                 llvm::sys::path::filename(f->getFilename().getValue()),
                                 e.line, e.column)
                       .str();
      if (e.line >= 1 && e.line <= sourceLines.size())
        e.sourceText = sourceLines[e.line - 1].trim().str();
    } else {
      e.location = "<unknown>";
    }
    return e;
  }
};

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// `128x64xf16`: a tile's shape and element type, without its layout.
std::string tileText(RankedTensorType type) {
  std::string text;
  for (int64_t d : type.getShape())
    text += std::to_string(d) + "x";
  return text + typeText(type.getElementType());
}

std::string ringText(tilegpu::SharedMemoryType ring) {
  return llvm::formatv("a {0}-buffer ring of {1}", ring.getNumBuffers(),
                       tileText(ring.getTileType()))
      .str();
}

/// What follows `marker` in `message` ("" when absent).
std::string after(StringRef message, StringRef marker) {
  size_t at = message.find(marker);
  return at == StringRef::npos ? "" : message.drop_front(at + marker.size()).str();
}
} // namespace

KernelExplanation tilec::explainKernel(ModuleOp module,
                                       ArrayRef<ExplainRemark> remarks,
                                       const CompileResult *result,
                                       StringRef sourceText) {
  Explainer ex;
  ex.remarks = remarks;
  ex.taken.assign(remarks.size(), false);
  sourceText.split(ex.sourceLines, '\n');
  KernelExplanation out;

  // Loads, by source location and how they are done.
  struct Load {
    Location loc;
    std::string kind;
    int64_t copies = 0;
    Operation *first = nullptr;
  };
  llvm::MapVector<std::pair<SourceKey, std::string>, Load,
                  std::map<std::pair<SourceKey, std::string>, unsigned>>
      loads;
  auto addLoad = [&](Operation *op, StringRef kind) {
    auto [it, inserted] = loads.try_emplace({ex.key(op->getLoc()), kind.str()},
                                            Load{op->getLoc(), kind.str()});
    if (inserted)
      it->second.first = op;
    ++it->second.copies;
  };
  module->walk([&](Operation *op) {
    if (isa<tilegpu::TMALoadOp>(op))
      addLoad(op, "tma");
    else if (isa<tilegpu::AsyncCopyOp>(op))
      addLoad(op, "cp.async");
    else if (isa<tile::LoadOp>(op))
      addLoad(op, "registers");
  });
  // What the global-load lowering vectorizes by (AccessWidth.h).
  ModuleAxisInfo axisInfo(module);
  auto accessText = [&](tile::LoadOp load) {
    auto type = cast<RankedTensorType>(load.getType());
    unsigned eltBytes = std::max<unsigned>(1, type.getElementTypeBitWidth() / 8);
    AccessRun run = getAccessRun(axisInfo, load.getPtr(), load.getMask(), eltBytes);
    unsigned bytes = run.vec * eltBytes;
    std::string text = llvm::formatv("{0}-byte accesses per thread", bytes).str();
    if (bytes < 16)
      text += " (16 when tile-axis-info proves the addresses contiguous and "
              "16-byte aligned, the mask constant over the run)";
    return text;
  };
  for (auto &[k, load] : loads) {
    ExplainEntry e = ex.entry(load.loc);
    std::string copies =
        load.copies > 1 ? llvm::formatv(" ({0} copies in the code: the pipeline's "
                                        "prologue and loop)",
                                        load.copies)
                              .str()
                        : "";
    if (auto tma = dyn_cast<tilegpu::TMALoadOp>(load.first)) {
      auto ring = cast<tilegpu::SharedMemoryType>(tma.getDst().getType());
      std::string recipe;
      if (auto arg = dyn_cast<BlockArgument>(tma.getDesc()))
        if (auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp()))
          if (auto r = func.getArgAttrOfType<tilegpu::TMARecipeAttr>(
                  arg.getArgNumber(), tilegpu::kTMARecipeAttrName)) {
            std::string box;
            for (auto [i, b] : llvm::enumerate(r.getBox()))
              box += (i ? "x" : "") + std::to_string(b);
            recipe = llvm::formatv(", box {0} (innermost first), {1}-byte swizzle", box,
                                   r.getSwizzle())
                         .str();
          }
      e.decision = "TMA (cp.async.bulk.tensor) into " + ringText(ring) + recipe + copies;
      e.why = "the load is an affine box of a tensor with 16-byte-aligned base and "
              "strides (a TMA descriptor the runtime builds at launch), read by "
              "wgmma from shared memory";
    } else if (auto cp = dyn_cast<tilegpu::AsyncCopyOp>(load.first)) {
      auto ring = cast<tilegpu::SharedMemoryType>(cp.getDst().getType());
      int64_t bytes = cp.getVec() * ring.getTileType().getElementTypeBitWidth() / 8;
      e.decision = llvm::formatv("cp.async of {0} bytes per copy into {1}{2}{3}", bytes,
                                 ringText(ring), cp.getTransposed() ? " (transposed)" : "",
                                 copies)
                       .str();
      std::string remark = ex.takeRemark(load.loc, "tl.load becomes cp.async");
      e.why = remark.empty() ? "aligned runs of each thread's elements, not a TMA box"
                             : "not TMA: " + after(remark, "not TMA: ");
    } else {
      std::string remark = ex.takeRemark(load.loc, "tl.load goes through registers");
      if (!remark.empty()) {
        e.decision = "registers (" + accessText(cast<tile::LoadOp>(load.first)) +
                     "), then stored to shared memory for tl.dot "
                     "(tilegpu.local_store; no overlap with the dots)" + copies;
        e.why = after(remark, "for tl.dot: ");
      } else {
        auto type = cast<RankedTensorType>(load.first->getResult(0).getType());
        e.decision = "registers (ld.global of " + tileText(type) + ", " +
                     accessText(cast<tile::LoadOp>(load.first)) + ")" + copies;
        // Read by a dot that is not on wgmma (through layout conversions)?
        bool feedsDot = false;
        SmallVector<Value> work = {load.first->getResult(0)};
        for (unsigned i = 0; i < work.size() && i < 16; ++i)
          for (Operation *user : work[i].getUsers()) {
            if (isa<tile::DotOp>(user))
              feedsDot = true;
            else if (isa<tilegpu::ConvertLayoutOp, tile::TransOp>(user))
              work.push_back(user->getResult(0));
          }
        e.why = feedsDot ? "its tl.dot is not on wgmma (mma.sync and FMA read "
                           "registers); only wgmma operands are copied "
                           "asynchronously into shared memory"
                         : "not a tl.dot operand: only wgmma operands are "
                           "copied asynchronously into shared memory";
      }
    }
    out.loads.push_back(std::move(e));
  }

  // Stores of tiles: how wide, and whether the value was rearranged first
  // (a tensor-core accumulator's runs gathered within warps).
  module->walk([&](Operation *op) {
    if (auto tma = dyn_cast<tilegpu::TMAStoreOp>(op)) {
      ExplainEntry e = ex.entry(op->getLoc());
      if (tma.getAdd()) {
        e.decision = "TMA reduction (cp.reduce.async.bulk.tensor .add) from a "
                     "shared-memory staging buffer";
        e.why = "a relaxed f32 tl.atomic_add whose old values are unread, into a "
                "TMA box (tilegpu-atomic-add-via-tma)";
      } else {
        e.decision = "TMA store (cp.async.bulk.tensor) from a shared-memory "
                     "staging buffer";
        e.why = "--tma-store, and the tile is a TMA box (tilegpu-store-via-tma)";
      }
      out.stores.push_back(std::move(e));
      return;
    }
    auto store = dyn_cast<tile::StoreOp>(op);
    if (!store || !isa<RankedTensorType>(store.getPtr().getType()))
      return;
    ExplainEntry e = ex.entry(op->getLoc());
    auto type = cast<RankedTensorType>(store.getValue().getType());
    unsigned eltBytes = std::max<unsigned>(1, type.getElementTypeBitWidth() / 8);
    AccessRun run = getAccessRun(axisInfo, store.getPtr(), store.getMask(), eltBytes);
    e.decision = llvm::formatv("st.global of {0}, {1}-byte stores per thread",
                               tileText(type), run.vec * eltBytes)
                     .str();
    auto isAccumulator = [](Type t) {
      return isa_and_present<tilegpu::WarpgroupMMAEncodingAttr, tilegpu::MMAEncodingAttr>(
          cast<RankedTensorType>(t).getEncoding());
    };
    auto convert = store.getValue().getDefiningOp<tilegpu::ConvertLayoutOp>();
    if (convert && isAccumulator(convert.getSrc().getType())) {
      RankedTensorType src = convert.getSrc().getType();
      FailureOr<tilegpu::LinearLayout> from =
          tilegpu::toLinearLayout(src.getShape(), src.getEncoding());
      FailureOr<tilegpu::LinearLayout> to =
          tilegpu::toLinearLayout(type.getShape(), type.getEncoding());
      std::optional<SmallVector<tilegpu::LaneRegisterSwap>> swaps;
      if (succeeded(from) && succeeded(to))
        swaps = tilegpu::getCheapLaneRegisterSwaps(
            *from, *to, std::max<unsigned>(8, type.getElementTypeBitWidth()));
      e.decision += swaps ? llvm::formatv(", after {0} rounds of butterfly "
                                          "shuffles within each warp",
                                          swaps->size())
                                .str()
                          : ", after a conversion through shared memory";
      e.why = "a tensor-core accumulator holds pairs of columns per thread; "
              "the store's addresses take runs of up to 16 bytes "
              "(convert-tile-to-tilegpu)";
    } else if (isAccumulator(type)) {
      e.why = eltBytes >= 4
                  ? "from the tensor-core accumulator's layout: 32-bit elements "
                    "go 8 bytes at a time, whole 32-byte sectors per four lanes"
                  : "from the tensor-core accumulator's layout: the addresses' "
                    "contiguity or alignment, or the mask's constancy "
                    "(tile-axis-info), allow no longer runs";
    } else if (run.vec * eltBytes < 16) {
      // The run the layout gives a thread (its leading register steps).
      int64_t layoutRun = 1;
      if (FailureOr<tilegpu::LinearLayout> layout =
              tilegpu::toLinearLayout(type.getShape(), type.getEncoding());
          succeeded(layout) && run.dim >= 0)
        layoutRun = tilegpu::getRegisterRun(*layout, run.dim);
      e.why = run.vec >= layoutRun
                  ? llvm::formatv("the layout gives each thread runs of {0} "
                                  "element(s) (sized by tile-axis-info's "
                                  "contiguity and alignment, or by the layout "
                                  "the tile shares)",
                                  layoutRun)
                        .str()
                  : "16 when tile-axis-info proves the addresses contiguous and "
                    "16-byte aligned, the mask constant over the run";
    }
    out.stores.push_back(std::move(e));
  });

  // Dots.
  module->walk([&](Operation *op) {
    if (auto dot = dyn_cast<tilegpu::WarpgroupDotOp>(op)) {
      ExplainEntry e = ex.entry(op->getLoc());
      auto c = cast<RankedTensorType>(dot.getC().getType());
      auto b = cast<tilegpu::SharedMemoryType>(dot.getB().getType());
      unsigned bits = b.getTileType().getElementTypeBitWidth();
      int64_t k = 256 / bits; // 32 bytes of K per instruction.
      int64_t n = 0;
      if (auto enc = dyn_cast<tilegpu::WarpgroupMMAEncodingAttr>(c.getEncoding()))
        n = enc.getInstrN();
      e.decision = llvm::formatv(
                       "wgmma.mma_async m64n{0}k{1} ({2} x {3}: A from {4}, B "
                       "from shared memory{5}){6}",
                       n, k, tileText(dot.getATileType()), tileText(b.getTileType()),
                       dot.hasRegisterA() ? "registers" : "shared memory",
                       dot.getBTransposed() ? ", K-major" : "",
                       dot.getIsAsync() ? ", asynchronous" : "")
                       .str();
      e.why = "the shapes, dtypes and warps fit Hopper's warpgroup MMA";
      out.dots.push_back(std::move(e));
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      ExplainEntry e = ex.entry(op->getLoc());
      auto type = cast<RankedTensorType>(dot->getResult(0).getType());
      if (isa_and_present<tilegpu::MMAEncodingAttr>(type.getEncoding())) {
        e.decision = "mma.sync.m16n8k16 (warp-level tensor cores)";
        e.why = "not wgmma: " + after(ex.takeRemark(op->getLoc(), "tl.dot runs on mma.sync"),
                                      "not wgmma: ");
      } else {
        e.decision = "FMA on CUDA cores";
        std::string remark = ex.takeRemark(op->getLoc(), "tl.dot runs on CUDA cores");
        e.why = remark.empty() ? "" : "not wgmma: " + after(remark, "not wgmma: ");
      }
      out.dots.push_back(std::move(e));
    }
  });

  // Loops.
  module->walk([&](Operation *op) {
    if (isa<scf::WhileOp>(op)) {
      ExplainEntry e = ex.entry(op->getLoc());
      e.decision = "not software-pipelined";
      e.why = "a while loop (tilegpu-pipeline pipelines scf.for loops)";
      out.loops.push_back(std::move(e));
      return;
    }
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return;
    ExplainEntry e = ex.entry(op->getLoc());
    int64_t buffers = 0;
    bool async = false;
    std::set<unsigned> registerLines;
    forOp.getBody()->walk([&](tile::LoadOp load) {
      if (unsigned line = ex.key(load.getLoc()).first)
        registerLines.insert(line);
    });
    forOp.getBody()->walk([&](Operation *inner) {
      Value dst;
      if (auto tma = dyn_cast<tilegpu::TMALoadOp>(inner))
        dst = tma.getDst();
      else if (auto cp = dyn_cast<tilegpu::AsyncCopyOp>(inner))
        dst = cp.getDst();
      if (!dst)
        return;
      async = true;
      buffers = std::max<int64_t>(
          buffers, cast<tilegpu::SharedMemoryType>(dst.getType()).getNumBuffers());
    });
    std::string fewer = ex.takeRemark(op->getLoc(), "loop software-pipelined with");
    std::string notDone = ex.takeRemark(op->getLoc(), "loop not software-pipelined");
    if (!notDone.empty()) {
      e.decision = "not software-pipelined";
      e.why = after(notDone, "not software-pipelined: ");
    } else if (async && buffers > 1) {
      e.decision = llvm::formatv("software-pipelined with {0} stages", buffers).str();
      e.why = fewer.empty()
                  ? llvm::formatv("its TMA/cp.async copies run {0} iteration(s) "
                                  "ahead of the dots (tilegpu-pipeline)",
                                  buffers - 1)
                        .str()
                  : after(fewer, "stages, not ");
      if (!fewer.empty())
        e.why = "fewer than asked: " + fewer.substr(fewer.find("not "));
      if (!registerLines.empty()) {
        std::string lines;
        for (unsigned line : registerLines)
          lines += (lines.empty() ? "" : ", ") + std::to_string(line);
        e.why += "; the loads of line(s) " + lines +
                 " go through registers and are not overlapped";
      }
    } else if (async) {
      e.decision = "not software-pipelined";
      e.why = "num_stages is 1: one buffer per operand";
    } else {
      e.decision = "not software-pipelined";
      e.why = "no TMA or cp.async copies in the loop: its loads go through "
              "registers (nothing for tilegpu-pipeline to overlap)";
    }
    out.loops.push_back(std::move(e));
  });

  auto byLocation = [](std::vector<ExplainEntry> &entries) {
    llvm::stable_sort(entries, [](const ExplainEntry &a, const ExplainEntry &b) {
      return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
    });
  };
  byLocation(out.loads);
  byLocation(out.stores);
  byLocation(out.dots);
  byLocation(out.loops);

  for (auto [i, r] : llvm::enumerate(remarks))
    if (!ex.taken[i]) {
      ExplainEntry e = ex.entry(r.loc);
      out.otherRemarks.push_back(e.location + ": " + r.message);
    }

  if (result) {
    out.sharedMemoryBytes = result->sharedMemoryBytes;
    if (result->ptxas)
      for (const PtxasKernelInfo &k : result->ptxas->kernels) {
        out.registers = k.registers;
        out.spillStores = k.spillStores;
        out.spillLoads = k.spillLoads;
        out.stackFrame = k.stackFrame;
        out.ptxasWarnings = k.performanceWarnings;
      }
  }
  return out;
}

std::string tilec::formatExplanation(const KernelExplanation &x,
                                     const KernelInterface &kernel,
                                     const CompileOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "kernel " << kernel.name << " (" << options.target.chip << ", "
     << options.pipeline.numWarps << " warps, num_stages "
     << options.pipeline.numStages << ")\n";
  if (x.registers >= 0)
    os << llvm::formatv("resources: {0} registers per thread, spills {1} bytes "
                        "stored / {2} loaded, stack {3} bytes, shared memory {4} "
                        "bytes\n",
                        x.registers, x.spillStores, x.spillLoads, x.stackFrame,
                        x.sharedMemoryBytes);
  else
    os << llvm::formatv("resources: shared memory {0} bytes (registers and "
                        "spills need ptxas)\n",
                        x.sharedMemoryBytes);
  for (const std::string &w : x.ptxasWarnings)
    os << "ptxas: " << w << "\n";
  auto section = [&](StringRef title, const std::vector<ExplainEntry> &entries) {
    os << "\n" << title << " (" << entries.size() << "):\n";
    if (entries.empty())
      os << "  none\n";
    for (const ExplainEntry &e : entries) {
      os << "  " << e.location;
      if (!e.sourceText.empty())
        os << "  " << e.sourceText;
      os << "\n    " << e.decision << "\n";
      if (!e.why.empty())
        os << "    why: " << e.why << "\n";
    }
  };
  section("loads", x.loads);
  section("stores", x.stores);
  section("dots", x.dots);
  section("loops", x.loops);
  if (!x.otherRemarks.empty()) {
    os << "\nother remarks:\n";
    for (const std::string &r : x.otherRemarks)
      os << "  " << r << "\n";
  }
  return text;
}

llvm::json::Value tilec::explanationToJSON(const KernelExplanation &x) {
  auto entries = [](const std::vector<ExplainEntry> &v) {
    llvm::json::Array a;
    for (const ExplainEntry &e : v)
      a.push_back(llvm::json::Object{{"location", e.location},
                                     {"line", e.line},
                                     {"column", e.column},
                                     {"source", e.sourceText},
                                     {"decision", e.decision},
                                     {"why", e.why}});
    return a;
  };
  llvm::json::Array other;
  for (const std::string &r : x.otherRemarks)
    other.push_back(r);
  return llvm::json::Object{{"loads", entries(x.loads)},
                            {"stores", entries(x.stores)},
                            {"dots", entries(x.dots)},
                            {"loops", entries(x.loops)},
                            {"other_remarks", std::move(other)},
                            {"registers", x.registers},
                            {"spill_stores", x.spillStores},
                            {"spill_loads", x.spillLoads},
                            {"stack_frame", x.stackFrame},
                            {"ptxas_warnings", llvm::json::Array(x.ptxasWarnings)},
                            {"shared_memory_bytes", x.sharedMemoryBytes}};
}
