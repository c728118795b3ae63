//===- DumpReport.cpp - the --dump-ir report ------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "DumpReport.h"

#include "tilec/Compiler/Explain.h"
#include "tilec/Compiler/UnifiedDiff.h"
#include "tilec/Dialect/TileGPU/IR/LayoutPicture.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;

/// Ops of one source line kept per stage (the rest are counted).
static constexpr unsigned kOpsPerLine = 8;
/// PTX instructions kept per source line.
static constexpr unsigned kPtxPerLine = 24;

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The `"file":line:col` a location points at, if any (through names, call
/// sites and fused locations, e.g. the LLVM dialect's debug scopes).
static std::optional<mlir::FileLineColLoc> getFileLoc(mlir::Location loc) {
  if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
    return file;
  return std::nullopt;
}

namespace {
/// One stage per module-level pass (DumpReport::endPass).
class ReportInstrumentation : public mlir::PassInstrumentation {
public:
  explicit ReportInstrumentation(DumpReport &report) : report(report) {}
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    auto module = llvm::dyn_cast<mlir::ModuleOp>(op);
    if (!module)
      return;
    // The last tilegpu IR: its layouts get pictures.
    if (pass->getArgument() == "convert-tilegpu-to-llvm")
      report.addLayouts(module);
    report.beginPass(pass);
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (auto module = llvm::dyn_cast<mlir::ModuleOp>(op))
      report.endPass(pass, module, /*failed=*/false);
  }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    if (auto module = llvm::dyn_cast<mlir::ModuleOp>(op))
      report.endPass(pass, module, /*failed=*/true);
  }

private:
  DumpReport &report;
};
} // namespace

DumpReport::DumpReport(const CompileOptions &options,
                       const KernelInterface &kernel)
    : dir(options.dumpDir), dumpAll(options.dumpAll),
      filterText(options.dumpFilter), kernel(kernel), options(options) {}

DumpReport::~DumpReport() = default;

llvm::Error DumpReport::create() {
  if (!enabled())
    return llvm::Error::success();
  if (!filterText.empty()) {
    filter.emplace(filterText);
    std::string error;
    if (!filter->isValid(error))
      return llvm::createStringError("--dump-ir-filter '" + filterText +
                                     "' is not a valid regular expression: " +
                                     error);
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create dump directory " + dir);
  return llvm::Error::success();
}

std::string DumpReport::writeFile(llvm::StringRef file,
                                  llvm::StringRef contents) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "tilec: warning: cannot write " << path << ": "
                 << ec.message() << "\n";
    return "";
  }
  os << contents;
  return file.str();
}

bool DumpReport::matchesSource(llvm::StringRef file) const {
  if (kernel.sourcePath.empty())
    return true;
  return file == kernel.sourcePath ||
         llvm::sys::path::filename(file) ==
             llvm::sys::path::filename(kernel.sourcePath);
}

/// Prints `module` into `text` with locations; fills the op counts per
/// dialect and, for ops located in the source, where they are printed.
static void printModule(mlir::ModuleOp module, std::string &text,
                        std::map<std::string, int64_t> &counts,
                        llvm::function_ref<bool(llvm::StringRef)> inSource,
                        std::vector<DumpOpRef> &ops) {
  mlir::AsmState::LocationMap locations;
  mlir::OpPrintingFlags flags =
      mlir::OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/false);
  // Locations and attributes inline (no `#loc5` aliases renumbered by every
  // pass): each op's line says where it came from, and diffs show what
  // changed rather than alias numbers.
  flags.useLocalScope();
  {
    mlir::AsmState state(module, flags, &locations);
    llvm::raw_string_ostream os(text);
    module->print(os, state);
  }
  std::vector<size_t> lineStarts = {0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      lineStarts.push_back(i + 1);
  // Per source line, how many ops were kept.
  std::map<unsigned, unsigned> kept;
  module->walk([&](mlir::Operation *op) {
    ++counts[op->getName().getDialectNamespace().str()];
    if (llvm::isa<mlir::ModuleOp>(op))
      return;
    auto loc = getFileLoc(op->getLoc());
    if (!loc || !inSource(loc->getFilename().getValue()))
      return;
    auto it = locations.find(op);
    if (it == locations.end())
      return;
    // The location map counts lines from 1.
    unsigned line = it->second.first;
    DumpOpRef ref;
    ref.sourceLine = loc->getLine();
    ref.dumpLine = line;
    if (line >= 1 && line <= lineStarts.size()) {
      llvm::StringRef rest = llvm::StringRef(text).drop_front(lineStarts[line - 1]);
      ref.text = rest.take_until([](char c) { return c == '\n'; }).trim().str();
      // Drop the trailing location: the source view shows it.
      if (size_t at = ref.text.rfind(" loc("); at != std::string::npos)
        ref.text.resize(at);
      if (ref.text.size() > 200)
        ref.text = ref.text.substr(0, 197) + "...";
    }
    if (kept[ref.sourceLine]++ < kOpsPerLine)
      ops.push_back(std::move(ref));
    else
      ops.push_back({ref.sourceLine, 0, ""}); // counted, not shown
  });
}

void DumpReport::recordInput(mlir::ModuleOp module) {
  if (!enabled())
    return;
  DumpStage stage;
  stage.index = counter++;
  stage.kind = "input";
  stage.name = "input";
  stage.passName = "frontend";
  std::string text;
  printModule(
      module, text, stage.opsAfter,
      [&](llvm::StringRef f) { return matchesSource(f); }, stage.ops);
  std::string file = llvm::formatv("{0:2}-input.mlir", stage.index).str();
  stage.dump = writeFile(file, text);
  lastText = std::move(text);
  lastName = file;
  lastOps = stage.opsAfter;
  stages.push_back(std::move(stage));
}

void DumpReport::instrument(mlir::PassManager &pm) {
  if (enabled())
    pm.addInstrumentation(std::make_unique<ReportInstrumentation>(*this));
}

void DumpReport::beginPass(mlir::Pass *pass) {
  (void)pass;
  currentStage = counter;
  passStart = std::chrono::steady_clock::now();
}

void DumpReport::endPass(mlir::Pass *pass, mlir::ModuleOp module, bool failed) {
  DumpStage stage;
  stage.seconds = secondsSince(passStart);
  stage.index = counter++;
  stage.kind = "pass";
  stage.name = pass->getArgument().str();
  if (stage.name.empty())
    stage.name = pass->getName().str();
  stage.passName = pass->getName().str();
  {
    llvm::raw_string_ostream os(stage.pipeline);
    pass->printAsTextualPipeline(os);
  }
  stage.failed = failed;
  stage.filtered = filter && !filter->match(stage.name);
  stage.opsBefore = lastOps;
  std::string text;
  std::vector<DumpOpRef> ops;
  printModule(
      module, text, stage.opsAfter,
      [&](llvm::StringRef f) { return matchesSource(f); }, ops);
  stage.changed = text != lastText;
  std::string file =
      llvm::formatv("{0:2}-{1}.mlir", stage.index, stage.name).str();
  if (!stage.filtered && (stage.changed || dumpAll || failed)) {
    stage.dump = writeFile(file, text);
    stage.ops = std::move(ops);
  }
  if (!stage.filtered && stage.changed) {
    std::string diff = makeUnifiedDiff(lastText, text, lastName, file);
    for (llvm::StringRef line : llvm::split(diff, '\n')) {
      if (line.starts_with("+") && !line.starts_with("+++ "))
        ++stage.diffAdded;
      else if (line.starts_with("-") && !line.starts_with("--- "))
        ++stage.diffRemoved;
    }
    stage.diff = writeFile(
        llvm::formatv("{0:2}-{1}.diff", stage.index, stage.name).str(), diff);
  }
  // The next diff's "before" file: this dump, or for a pass that changed
  // nothing the last dump (the same text).
  if (!stage.dump.empty() || stage.changed)
    lastName = file;
  lastText = std::move(text);
  lastOps = stage.opsAfter;
  stages.push_back(std::move(stage));
  currentStage = -1;
}

std::string DumpReport::writeArtifact(llvm::StringRef name,
                                      llvm::StringRef contents,
                                      llvm::StringRef diffAgainst) {
  if (!enabled())
    return "";
  DumpStage stage;
  stage.index = counter++;
  stage.kind = "artifact";
  stage.name = name.str();
  std::string file = llvm::formatv("{0:2}-{1}", stage.index, name).str();
  stage.dump = writeFile(file, contents);
  if (!diffAgainst.empty()) {
    auto it = artifactTexts.find(diffAgainst);
    if (it != artifactTexts.end()) {
      stage.changed = it->second != contents;
      std::string base = llvm::sys::path::stem(file).str();
      stage.diff = writeFile(base + ".diff",
                             makeUnifiedDiff(it->second, contents,
                                             it->second.empty() ? "" : diffAgainst,
                                             file));
    }
  }
  if (name.ends_with(".ll"))
    artifactTexts[name] = contents.str();
  stages.push_back(std::move(stage));
  return file;
}

void DumpReport::recordDiagnostic(mlir::Diagnostic &diagnostic) {
  if (!enabled())
    return;
  DumpDiagnostic d;
  switch (diagnostic.getSeverity()) {
  case mlir::DiagnosticSeverity::Error:
    d.severity = "error";
    break;
  case mlir::DiagnosticSeverity::Warning:
    d.severity = "warning";
    break;
  case mlir::DiagnosticSeverity::Remark:
    d.severity = "remark";
    break;
  case mlir::DiagnosticSeverity::Note:
    d.severity = "note";
    break;
  }
  d.message = diagnostic.str();
  if (auto loc = getFileLoc(diagnostic.getLocation())) {
    d.file = loc->getFilename().str();
    d.line = loc->getLine();
    d.column = loc->getColumn();
  }
  d.stage = currentStage;
  if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Remark ||
      diagnostic.getSeverity() == mlir::DiagnosticSeverity::Warning)
    remarks.push_back({diagnostic.getLocation(), d.message});
  diagnostics.push_back(std::move(d));
}

void DumpReport::addLayouts(mlir::ModuleOp module) {
  if (!enabled() || layoutsTaken)
    return;
  layoutsTaken = true;
  // What `tilec explain` says about this IR (registers and spills are added
  // from the result at the end).
  bool tileLevel = false;
  module->walk([&](mlir::Operation *op) {
    llvm::StringRef dialect = op->getName().getDialectNamespace();
    tileLevel |= dialect == "tile" || dialect == "tilegpu";
  });
  if (tileLevel) {
    std::vector<ExplainRemark> said;
    for (auto &[loc, message] : remarks)
      said.push_back({loc, message});
    decisions = explanationToJSON(
        explainKernel(module, said, /*result=*/nullptr, sourceText()));
  }
  std::vector<tilegpu::LayoutPictureRequest> found =
      tilegpu::collectLayoutPictures(module);
  std::error_code ec = llvm::sys::fs::create_directories(dir + "/layouts");
  for (auto [i, request] : llvm::enumerate(found)) {
    Layout layout;
    layout.name = request.name;
    layout.description = request.description;
    auto svg = tilegpu::renderLayoutPicture(request);
    if (mlir::failed(svg))
      continue;
    layout.svg = std::move(*svg);
    for (mlir::Location loc : request.locations)
      if (auto file = getFileLoc(loc);
          file && matchesSource(file->getFilename().getValue()))
        layout.sourceLines.push_back(file->getLine());
    llvm::sort(layout.sourceLines);
    layout.sourceLines.erase(
        std::unique(layout.sourceLines.begin(), layout.sourceLines.end()),
        layout.sourceLines.end());
    if (!ec)
      layout.file = writeFile(
          llvm::formatv("layouts/{0}-{1}.svg", i, request.fileStem).str(),
          layout.svg);
    layouts.push_back(std::move(layout));
  }
}

/// The source lines of the PTX's `.loc` directives that name the kernel's
/// source file: source line -> (PTX line, instruction) pairs.
static std::map<unsigned, std::vector<std::pair<unsigned, std::string>>>
mapPTXLines(llvm::StringRef ptx,
            llvm::function_ref<bool(llvm::StringRef)> inSource,
            std::map<unsigned, unsigned> &totals) {
  std::map<unsigned, std::vector<std::pair<unsigned, std::string>>> lines;
  // `.file` directives come after the code: read them first.
  llvm::DenseSet<unsigned> sourceFiles;
  for (llvm::StringRef line : llvm::split(ptx, '\n')) {
    llvm::StringRef t = line.trim();
    if (!t.consume_front(".file"))
      continue;
    unsigned id;
    t = t.ltrim();
    if (t.consumeInteger(10, id))
      continue;
    // `.file 1 "dir" "name"` or `.file 1 "path"`.
    llvm::SmallVector<llvm::StringRef> quoted;
    while (true) {
      size_t open = t.find('"');
      if (open == llvm::StringRef::npos)
        break;
      size_t close = t.find('"', open + 1);
      if (close == llvm::StringRef::npos)
        break;
      quoted.push_back(t.slice(open + 1, close));
      t = t.drop_front(close + 1);
    }
    if (!quoted.empty() && inSource(quoted.back()))
      sourceFiles.insert(id);
  }
  unsigned currentLine = 0, ptxLine = 0;
  for (llvm::StringRef line : llvm::split(ptx, '\n')) {
    ++ptxLine;
    llvm::StringRef t = line.trim();
    if (t.consume_front(".loc")) {
      unsigned id, srcLine;
      t = t.ltrim();
      if (t.consumeInteger(10, id))
        continue;
      t = t.ltrim();
      if (t.consumeInteger(10, srcLine))
        continue;
      currentLine = sourceFiles.contains(id) ? srcLine : 0;
      continue;
    }
    if (!currentLine || t.empty() || t.starts_with("//") || t.starts_with(".") ||
        t == "{" || t == "}" || t.ends_with(":") || t.starts_with("$"))
      continue;
    if (totals[currentLine]++ < kPtxPerLine)
      lines[currentLine].push_back({ptxLine, t.str()});
  }
  return lines;
}

llvm::json::Value DumpReport::buildIndex(bool succeeded) const {
  llvm::json::Array stageArray;
  for (const DumpStage &s : stages) {
    auto counts = [](const std::map<std::string, int64_t> &m) {
      llvm::json::Object o;
      for (const auto &[dialect, n] : m)
        o[dialect] = n;
      return o;
    };
    llvm::json::Object o{{"index", s.index},
                         {"kind", s.kind},
                         {"name", s.name},
                         {"changed", s.changed},
                         {"seconds", s.seconds}};
    if (s.kind == "pass") {
      o["pass"] = s.passName;
      o["pipeline"] = s.pipeline;
      o["failed"] = s.failed;
      o["filtered"] = s.filtered;
      o["ops_before"] = counts(s.opsBefore);
    }
    if (s.kind != "artifact")
      o["ops_after"] = counts(s.opsAfter);
    o["dump"] = s.dump.empty() ? llvm::json::Value(nullptr) : s.dump;
    o["diff"] = s.diff.empty() ? llvm::json::Value(nullptr) : s.diff;
    if (!s.diff.empty() && s.kind == "pass")
      o["diff_lines"] = llvm::json::Object{{"added", s.diffAdded},
                                           {"removed", s.diffRemoved}};
    if (!s.ops.empty()) {
      // Source line -> [[dump line, text]...] and the op count.
      std::map<unsigned, std::pair<llvm::json::Array, int64_t>> perLine;
      for (const DumpOpRef &ref : s.ops) {
        auto &entry = perLine[ref.sourceLine];
        ++entry.second;
        if (ref.dumpLine)
          entry.first.push_back(llvm::json::Array{ref.dumpLine, ref.text});
      }
      llvm::json::Object sourceOps;
      for (auto &[line, entry] : perLine)
        sourceOps[std::to_string(line)] = llvm::json::Object{
            {"count", entry.second}, {"ops", std::move(entry.first)}};
      o["source_ops"] = std::move(sourceOps);
    }
    stageArray.push_back(std::move(o));
  }
  auto stageName = [&](int index) -> llvm::json::Value {
    for (const DumpStage &s : stages)
      if (int(s.index) == index)
        return s.name;
    return nullptr;
  };
  llvm::json::Array diags;
  for (const DumpDiagnostic &d : diagnostics)
    diags.push_back(llvm::json::Object{
        {"severity", d.severity},
        {"message", d.message},
        {"file", d.file},
        {"line", d.line},
        {"column", d.column},
        {"stage", d.stage >= 0 ? llvm::json::Value(d.stage) : nullptr},
        {"stage_name", stageName(d.stage)}});
  llvm::json::Object index{
      {"format", "tilec-dump-index"},
      {"version", 1},
      {"kernel", kernel.name},
      {"signature", kernel.signature},
      {"succeeded", succeeded},
      {"source", llvm::json::Object{{"path", kernel.sourcePath},
                                    {"hash", kernel.sourceHash}}},
      {"options",
       llvm::json::Object{{"num_warps", options.pipeline.numWarps},
                          {"num_stages", options.pipeline.numStages},
                          {"target", options.target.chip},
                          {"dump_all", dumpAll},
                          {"filter", filterText}}},
      {"stages", std::move(stageArray)},
      {"diagnostics", std::move(diags)},
  };
  if (!ptx.empty()) {
    std::map<unsigned, unsigned> totals;
    auto lines = mapPTXLines(
        ptx, [&](llvm::StringRef f) { return matchesSource(f); }, totals);
    llvm::json::Object loc;
    for (auto &[line, entries] : lines) {
      llvm::json::Array a;
      for (auto &[ptxLine, text] : entries)
        a.push_back(llvm::json::Array{ptxLine, text});
      loc[std::to_string(line)] = llvm::json::Object{
          {"count", totals[line]}, {"instructions", std::move(a)}};
    }
    index["ptx"] = llvm::json::Object{{"file", ptxFile}, {"lines", std::move(loc)}};
  }
  if (result) {
    llvm::json::Object r{{"shared_memory_bytes", result->sharedMemoryBytes},
                         {"num_threads", result->numThreads}};
    if (result->ptxas)
      for (const PtxasKernelInfo &k : result->ptxas->kernels)
        if (k.name == kernel.name) {
          r["registers"] = k.registers;
          r["spill_stores"] = k.spillStores;
          r["spill_loads"] = k.spillLoads;
        }
    index["result"] = std::move(r);
  }
  llvm::json::Array layoutArray;
  for (const Layout &l : layouts) {
    llvm::json::Array lines;
    for (unsigned line : l.sourceLines)
      lines.push_back(line);
    layoutArray.push_back(llvm::json::Object{{"name", l.name},
                                             {"description", l.description},
                                             {"file", l.file},
                                             {"source_lines", std::move(lines)}});
  }
  index["layouts"] = std::move(layoutArray);
  index["decisions"] = decisions;
  return index;
}

std::string DumpReport::sourceText() const {
  if (!options.dumpSourceText.empty())
    return options.dumpSourceText;
  if (auto buffer = llvm::MemoryBuffer::getFile(kernel.sourcePath))
    return (*buffer)->getBuffer().str();
  return "";
}

void DumpReport::finish(bool succeeded) {
  if (!enabled())
    return;
  llvm::json::Value index = buildIndex(succeeded);
  writeFile("index.json", llvm::formatv("{0:1}\n", index).str());
  writeFile("index.html", renderDumpReportHTML(index, sourceText(), layouts));
}
