//===- CodeGen.cpp - AST to tile dialect: kernels and names ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The entry point (emitKernel), kernel selection and specialization for a
// signature, module globals (imports, constants, @jit functions), name
// lookup, diagnostics and locations.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/Parser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

/// A module-level name.
struct CodeGen::Global {
  enum class Kind { Value, Constant, Function, StarImport };
  Kind kind = Kind::Value;
  /// For Value and Function: the value. For Constant: once evaluated.
  CGValue value;
  /// For Constant: the assignment's value and the target the name is in.
  const Expr *valueExpr = nullptr;
  const Expr *target = nullptr;
  /// Where it is defined.
  SMLoc loc;
  enum class State { Unevaluated, Evaluating, Done, Failed };
  State state = State::Unevaluated;
};

/// Normalizes a module path: `tilec` is an alias of `triton`, libdevice
/// modules are `triton.language.math`.
static std::string normalizeModulePath(StringRef path) {
  std::string result = path.str();
  if (StringRef(result).starts_with("tilec"))
    result = "triton" + result.substr(5);
  StringRef r(result);
  if (r == "triton.language.extra.libdevice" ||
      r == "triton.language.extra.cuda.libdevice" ||
      r == "triton.language.libdevice" || r == "triton.language.extra.cuda")
    return "triton.language.math";
  return result;
}

/// The value `import a.b.c` binds to `a`, or `import a.b.c as x` binds to x.
static CGValue importedModule(StringRef dotted, bool hasAlias) {
  if (hasAlias)
    return CGValue::module(normalizeModulePath(dotted));
  return CGValue::module(normalizeModulePath(dotted.split('.').first));
}

/// The names Python's builtins provide inside a kernel.
static constexpr StringRef kPythonBuiltins[] = {
    "range", "len",  "min",   "max",        "abs",   "int",
    "float", "bool", "print", "isinstance", "tuple", "list"};

/// Math functions of `triton.language.math` (and libdevice).
static constexpr StringRef kMathFunctions[] = {
    "exp",     "exp2",    "log",   "log2", "cos",   "sin",
    "sqrt",    "sqrt_rn", "rsqrt", "abs",  "floor", "ceil",
    "fma",     "div_rn",  "fdiv",  "tanh", "erf",   "maximum",
    "minimum", "sigmoid", "pow",   "cdiv", "umulhi"};

void CodeGen::collectGlobals() {
  for (Stmt *stmt : module.getBody()) {
    if (auto *import = llvm::dyn_cast<ImportStmt>(stmt)) {
      for (const ImportAlias &alias : import->getNames()) {
        auto global = std::make_unique<Global>();
        global->kind = Global::Kind::Value;
        global->value = importedModule(alias.name, !alias.asName.empty());
        global->loc = alias.loc;
        global->state = Global::State::Done;
        StringRef bound =
            alias.asName.empty() ? alias.name.split('.').first : alias.asName;
        globals[bound] = std::move(global);
      }
      continue;
    }
    if (auto *from = llvm::dyn_cast<ImportFromStmt>(stmt)) {
      std::string path = normalizeModulePath(from->getModule());
      for (const ImportAlias &alias : from->getNames()) {
        auto global = std::make_unique<Global>();
        global->loc = alias.loc;
        global->state = Global::State::Done;
        if (alias.name == "*") {
          global->kind = Global::Kind::StarImport;
          global->value = CGValue::module(path);
          globals[("*" + path)] = std::move(global);
          continue;
        }
        global->kind = Global::Kind::Value;
        if (std::optional<CGValue> attr = lookupModuleAttr(path, alias.name))
          global->value = *attr;
        else
          global->value = CGValue::module(path + "." + alias.name.str());
        globals[alias.asName.empty() ? alias.name : alias.asName] =
            std::move(global);
      }
      continue;
    }
    if (auto *def = llvm::dyn_cast<FunctionDef>(stmt)) {
      auto global = std::make_unique<Global>();
      global->kind = Global::Kind::Function;
      global->value = CGValue::jitFunction(def);
      global->loc = def->getNameLoc();
      global->state = Global::State::Done;
      globals[def->getName()] = std::move(global);
      continue;
    }
    auto addConstant = [&](const Expr *target, const Expr *value) {
      NameSet names;
      collectTargetNames(target, names);
      for (StringRef name : names) {
        auto global = std::make_unique<Global>();
        global->kind = Global::Kind::Constant;
        global->valueExpr = value;
        global->target = target;
        global->loc = target->getLoc();
        globals[name] = std::move(global);
      }
    };
    if (auto *assign = llvm::dyn_cast<AssignStmt>(stmt)) {
      for (const Expr *target : assign->getTargets())
        addConstant(target, assign->getValue());
      continue;
    }
    if (auto *ann = llvm::dyn_cast<AnnAssignStmt>(stmt)) {
      if (ann->getValue())
        addConstant(ann->getTarget(), ann->getValue());
      continue;
    }
  }
}

std::optional<CGValue> CodeGen::lookupModuleAttr(StringRef path,
                                                 StringRef name) {
  if (path == "triton") {
    if (name == "language")
      return CGValue::module("triton.language");
    if (name == "cdiv")
      return CGValue::builtin("tl.cdiv");
    if (name == "next_power_of_2" || name == "jit" || name == "autotune" ||
        name == "heuristics" || name == "Config")
      return CGValue::builtin(("triton." + name).str());
    return std::nullopt;
  }
  if (path == "triton.language") {
    if (std::optional<ScalarType> scalar = lookupLanguageDType(name))
      return CGValue::dtypeObject(DType::get(*scalar));
    if (name == "math")
      return CGValue::module("triton.language.math");
    if (name == "extra")
      return CGValue::module("triton.language.extra");
    if (name == "libdevice")
      return CGValue::module("triton.language.math");
    std::string builtinName = ("tl." + name).str();
    if (isKnownBuiltin(builtinName))
      return CGValue::builtin(builtinName);
    return std::nullopt;
  }
  if (path == "triton.language.extra") {
    if (name == "libdevice" || name == "cuda")
      return CGValue::module("triton.language.math");
    return std::nullopt;
  }
  if (path == "triton.language.math") {
    if (llvm::is_contained(kMathFunctions, name))
      return CGValue::builtin(("tl." + name).str());
    return std::nullopt;
  }
  if (path == "math") {
    if (name == "pi")
      return CGValue::floating(3.141592653589793);
    if (name == "e")
      return CGValue::floating(2.718281828459045);
    if (name == "tau")
      return CGValue::floating(6.283185307179586);
    if (name == "inf")
      return CGValue::floating(std::numeric_limits<double>::infinity());
    if (name == "nan")
      return CGValue::floating(std::numeric_limits<double>::quiet_NaN());
    std::string builtinName = ("math." + name).str();
    if (isKnownBuiltin(builtinName))
      return CGValue::builtin(builtinName);
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<FailureOr<CGValue>> CodeGen::lookupGlobal(StringRef name,
                                                        SMLoc useLoc) {
  auto it = globals.find(name);
  if (it == globals.end()) {
    // `from m import *`.
    for (auto &entry : globals)
      if (entry.second->kind == Global::Kind::StarImport)
        if (std::optional<CGValue> attr =
                lookupModuleAttr(entry.second->value.getName(), name))
          return FailureOr<CGValue>(*attr);
    return std::nullopt;
  }
  Global &global = *it->second;
  switch (global.state) {
  case Global::State::Done:
    return FailureOr<CGValue>(global.value);
  case Global::State::Failed:
    return FailureOr<CGValue>(failure());
  case Global::State::Evaluating:
    error(useLoc,
          "module constant '" + name + "' is defined in terms of itself")
        .note(global.loc, "'" + name + "' is defined here");
    return FailureOr<CGValue>(failure());
  case Global::State::Unevaluated:
    break;
  }

  // Evaluate the constant in the module's frame, without the enclosing
  // function's variables or call stack.
  global.state = Global::State::Evaluating;
  FunctionState moduleState;
  moduleState.frame = moduleFrame;
  moduleState.name = "<module>";
  FunctionState *savedFn = fn;
  auto savedCallStack = std::move(callStack);
  callStack.clear();
  fn = &moduleState;
  FailureOr<CGValue> value = eval(global.valueExpr);
  // Unpack `A, B = 1, 2`.
  if (succeeded(value) && !llvm::isa<NameExpr>(global.target)) {
    std::function<std::optional<CGValue>(const Expr *, const CGValue &)> find =
        [&](const Expr *target, const CGValue &v) -> std::optional<CGValue> {
      if (const auto *nameExpr = llvm::dyn_cast<NameExpr>(target))
        return nameExpr->getName() == name ? std::optional<CGValue>(v)
                                           : std::nullopt;
      llvm::ArrayRef<Expr *> elements;
      if (const auto *tuple = llvm::dyn_cast<TupleExpr>(target))
        elements = tuple->getElements();
      else if (const auto *list = llvm::dyn_cast<ListExpr>(target))
        elements = list->getElements();
      if (!v.isTuple() || v.getElements().size() != elements.size())
        return std::nullopt;
      for (size_t i = 0; i < elements.size(); ++i)
        if (std::optional<CGValue> found =
                find(elements[i], v.getElements()[i]))
          return found;
      return std::nullopt;
    };
    std::optional<CGValue> element = find(global.target, *value);
    if (!element)
      value = error(global.target->getLoc(),
                    "cannot unpack " + value->describe() + " into this target");
    else
      value = *element;
  }
  fn = savedFn;
  callStack = std::move(savedCallStack);
  if (succeeded(value) && value->isRuntime()) {
    value = error(global.valueExpr->getLoc(),
                  "module constant '" + name +
                      "' must be a compile-time constant, but its value is "
                      "a run-time " +
                      value->describe());
  }
  if (failed(value)) {
    global.state = Global::State::Failed;
    return FailureOr<CGValue>(failure());
  }
  global.state = Global::State::Done;
  global.value = *value;
  return FailureOr<CGValue>(*value);
}

void CodeGen::setVar(StringRef name, CGValue value, SMLoc loc) {
  Frame &frame = *fn->frame;
  frame.undefined.erase(name);
  frame.vars[name] = Binding{std::move(value), loc};
}

void CodeGen::collectVisibleNames(llvm::SmallVectorImpl<std::string> &names) {
  for (Frame *frame = fn ? fn->frame.get() : nullptr; frame;
       frame = frame->parent.get())
    for (auto &entry : frame->vars)
      names.push_back(entry.getKey().str());
  for (auto &entry : globals)
    if (!entry.getKey().starts_with("*"))
      names.push_back(entry.getKey().str());
  for (StringRef builtin : kPythonBuiltins)
    names.push_back(builtin.str());
}

std::string
tilec::frontend::findClosestName(StringRef name,
                                 llvm::ArrayRef<std::string> candidates) {
  std::string best;
  // One edit for very short names, then about a third of the name.
  unsigned maxDist =
      name.size() <= 2
          ? 1
          : std::min<unsigned>(3, std::max<unsigned>(2, name.size() / 3));
  unsigned bestDist = maxDist + 1;
  for (const std::string &candidate : candidates) {
    if (candidate == name)
      continue;
    unsigned dist =
        name.edit_distance(candidate, /*AllowReplacements=*/true, maxDist);
    if (dist < bestDist || (dist == bestDist && candidate < best)) {
      bestDist = dist;
      best = candidate;
    }
  }
  return bestDist <= maxDist ? best : "";
}

FailureOr<CGValue> CodeGen::lookupName(StringRef name, SMLoc loc) {
  // The function's own variables, then the frames it closes over.
  bool innermost = true;
  for (Frame *frame = fn ? fn->frame.get() : nullptr; frame;
       frame = frame->parent.get(), innermost = false) {
    auto it = frame->vars.find(name);
    if (it != frame->vars.end()) {
      if (it->second.value.isPoison())
        return failure();
      return it->second.value;
    }
    auto undef = frame->undefined.find(name);
    if (innermost && undef != frame->undefined.end()) {
      return error(loc, "'" + name +
                            "' is not defined here: " + undef->second.reason)
          .note(undef->second.noteLoc, undef->second.note);
    }
  }
  if (std::optional<FailureOr<CGValue>> global = lookupGlobal(name, loc)) {
    if (succeeded(*global) && global->value().isPoison())
      return failure();
    return *global;
  }
  if (llvm::is_contained(kPythonBuiltins, name))
    return CGValue::builtin(name);
  if (name == "True" || name == "False")
    return CGValue::boolean(name == "True");
  if (name == "None")
    return CGValue::none();

  // A name an unsupported statement (already reported) may have bound.
  if (namesInUnsupportedStmts.contains(name))
    return failure();
  // Host code cannot be called from a kernel.
  if (SkippedStmt *skipped = module.lookupSkipped(name)) {
    return error(loc, "'" + name +
                          "' is defined outside any @jit function (host "
                          "code) and cannot be used in a kernel")
        .note(skipped->getLoc(), "'" + name + "' is defined here");
  }
  // A local variable read before its first assignment (Python's
  // UnboundLocalError), e.g. `acc += x` without `acc = tl.zeros(...)`.
  if (fn && !fn->cursors.empty()) {
    NameSet assigned;
    collectAssignedNames(fn->cursors.front().stmts, assigned);
    if (assigned.contains(name))
      return error(loc, "'" + name +
                            "' is used before it is assigned; assign it "
                            "first (for an accumulator, before the loop)");
  }
  // A tl name without its module: `float32`, `arange`.
  if (lookupLanguageDType(name) || isKnownBuiltin(("tl." + name).str()))
    return error(loc, "unknown name '" + name + "'; did you mean 'tl." +
                          name + "'?");
  llvm::SmallVector<std::string> candidates;
  collectVisibleNames(candidates);
  std::string suggestion = findClosestName(name, candidates);
  if (!suggestion.empty())
    return error(loc, "unknown name '" + name + "'; did you mean '" +
                          suggestion + "'?");
  return error(loc, "unknown name '" + name + "'");
}

//===----------------------------------------------------------------------===//
// Diagnostics and locations
//===----------------------------------------------------------------------===//

CodeGen::Diag::Diag(CodeGen &cg, SMLoc loc, std::string message,
                    DiagSeverity severity)
    : cg(&cg), loc(loc), message(std::move(message)), severity(severity) {}

CodeGen::Diag::Diag(Diag &&other)
    : cg(other.cg), loc(other.loc), message(std::move(other.message)),
      severity(other.severity), notes(std::move(other.notes)) {
  other.cg = nullptr;
}

CodeGen::Diag &CodeGen::Diag::note(SMLoc noteLoc, const llvm::Twine &text) {
  notes.emplace_back(noteLoc, text.str());
  return *this;
}

CodeGen::Diag &CodeGen::Diag::constexprHint(const CGValue &value) {
  if (const auto *param =
          llvm::dyn_cast_or_null<Parameter>(value.getKernelParameter()))
    note(param->getLoc(), "declare it `" + param->getName() +
                              ": tl.constexpr` to make it a compile-time "
                              "constant");
  return *this;
}

/// Call-stack notes shown in full; a longer stack shows its innermost and
/// outermost notes around a count of the others.
static constexpr size_t kMaxCallNotes = 10;
/// The longest cycle of calls (mutual recursion) collapsed into one.
static constexpr size_t kMaxCallCycle = 8;

CodeGen::Diag::~Diag() {
  if (!cg)
    return;
  if (severity == DiagSeverity::Warning &&
      !cg->reportedWarnings
           .insert({loc.getPointer(), message})
           .second)
    return;
  cg->diags.report(severity, loc, message);
  for (auto &[noteLoc, text] : notes)
    cg->diags.note(noteLoc, text);

  // "in call from here" per inlined call, innermost first. Runaway recursion
  // repeats a cycle of call sites: it is shown once, with a count.
  llvm::SmallVector<SMLoc> sites;
  for (auto &frame : llvm::reverse(cg->callStack))
    sites.push_back(frame.first);
  llvm::SmallVector<std::pair<SMLoc, std::string>> lines;
  for (size_t i = 0; i < sites.size();) {
    size_t period = 0, repeats = 0;
    for (size_t p = 1; p <= kMaxCallCycle && i + 2 * p <= sites.size(); ++p) {
      size_t r = 0;
      while (i + (r + 2) * p <= sites.size() &&
             std::equal(sites.begin() + i, sites.begin() + i + p,
                        sites.begin() + i + (r + 1) * p))
        ++r;
      if (r > 0) {
        period = p;
        repeats = r;
        break;
      }
    }
    if (period == 0) {
      lines.push_back({sites[i], "in call from here"});
      ++i;
      continue;
    }
    if (period == 1) {
      lines.push_back({sites[i], "in call from here (repeated " +
                                     std::to_string(repeats) +
                                     " more times)"});
    } else {
      for (size_t k = 0; k < period; ++k)
        lines.push_back({sites[i + k], "in call from here"});
      lines.push_back({SMLoc(), "... the " + std::to_string(period) +
                                    " calls above repeated " +
                                    std::to_string(repeats) + " more times"});
    }
    i += period * (repeats + 1);
  }
  size_t head = lines.size(), tail = 0;
  if (lines.size() > kMaxCallNotes) {
    head = kMaxCallNotes / 2;
    tail = kMaxCallNotes - head;
  }
  for (size_t i = 0; i < head; ++i)
    cg->diags.note(lines[i].first, lines[i].second);
  if (tail) {
    cg->diags.note(SMLoc(), "... " +
                                llvm::Twine(lines.size() - head - tail) +
                                " more notes not shown ...");
    for (size_t i = lines.size() - tail; i < lines.size(); ++i)
      cg->diags.note(lines[i].first, lines[i].second);
  }
}

CodeGen::Diag CodeGen::error(SMLoc loc, const llvm::Twine &message) {
  return Diag(*this, loc, message.str());
}

CodeGen::Diag CodeGen::warning(SMLoc loc, const llvm::Twine &message) {
  return Diag(*this, loc, message.str(), DiagSeverity::Warning);
}

mlir::Location CodeGen::getLoc(SMLoc loc) {
  if (!loc.isValid())
    return currentLoc;
  auto [line, col] = srcMgr.getLineAndColumn(loc, bufferId);
  return mlir::FileLineColLoc::get(fileName, line, col);
}

CodeGen::LocationScope::LocationScope(CodeGen &cg, const Node *node)
    : cg(cg), saved(cg.currentLoc) {
  if (node)
    cg.currentLoc = cg.getLoc(node->getLoc());
}

CodeGen::LocationScope::LocationScope(CodeGen &cg, SMLoc loc)
    : cg(cg), saved(cg.currentLoc) {
  cg.currentLoc = cg.getLoc(loc);
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

void tilec::frontend::flattenValue(const CGValue &value,
                                   llvm::SmallVectorImpl<CGValue> &leaves) {
  if (value.isTuple()) {
    for (const CGValue &element : value.getElements())
      flattenValue(element, leaves);
    return;
  }
  leaves.push_back(value);
}

CGValue tilec::frontend::unflattenValue(const CGValue &templ,
                                        llvm::ArrayRef<CGValue> leaves,
                                        size_t &index) {
  if (templ.isTuple()) {
    std::vector<CGValue> elements;
    for (const CGValue &element : templ.getElements())
      elements.push_back(unflattenValue(element, leaves, index));
    return CGValue::tuple(std::move(elements));
  }
  return leaves[index++];
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

CodeGen::CodeGen(const llvm::SourceMgr &srcMgr, unsigned bufferId,
                 ModuleAST &module, mlir::MLIRContext &context,
                 DiagnosticSink &diags)
    : srcMgr(srcMgr), bufferId(bufferId), module(module), context(context),
      diags(diags), builder(&context),
      currentLoc(mlir::UnknownLoc::get(&context)),
      numErrorsAtStart(diags.getNumErrors()) {
  fileName = mlir::StringAttr::get(
      &context, srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier());
  moduleFrame = newFrame();
}

CodeGen::~CodeGen() {
  // Closures stored in frames hold their defining frames: clear every frame
  // that is still alive so that the cycles are freed.
  for (std::weak_ptr<Frame> &weak : allFrames)
    if (std::shared_ptr<Frame> frame = weak.lock()) {
      frame->vars.clear();
      frame->undefined.clear();
      frame->parent.reset();
    }
}

const Expr *CodeGen::getModuleConstantExpr(StringRef name) const {
  auto it = globals.find(name);
  if (it == globals.end() || it->second->kind != Global::Kind::Constant ||
      !llvm::isa_and_present<NameExpr>(it->second->target))
    return nullptr;
  return it->second->valueExpr;
}

std::shared_ptr<Frame> CodeGen::newFrame() {
  auto frame = std::make_shared<Frame>();
  allFrames.push_back(frame);
  return frame;
}

FailureOr<const FunctionDef *> CodeGen::selectKernel(StringRef name) {
  llvm::SmallVector<FunctionDef *> functions = module.getFunctions();
  auto listNames = [&](llvm::ArrayRef<FunctionDef *> defs) {
    std::string list;
    for (FunctionDef *def : defs) {
      if (!list.empty())
        list += ", ";
      list += def->getName().str();
    }
    return list;
  };
  SMLoc fileStart =
      SMLoc::getFromPointer(srcMgr.getMemoryBuffer(bufferId)->getBufferStart());
  if (functions.empty()) {
    auto diag = error(fileStart, "no @jit function in this file (a kernel is "
                                 "a function decorated with @triton.jit, "
                                 "@tilec.jit or @jit)");
    // Point at decorated functions that were skipped as host code: a
    // misspelled `@triton.jitt`, or a missing @jit under `@triton.autotune`.
    for (const Stmt *stmt : module.getBody()) {
      const auto *skipped = llvm::dyn_cast<SkippedStmt>(stmt);
      if (!skipped || skipped->getConstruct() != "def" ||
          skipped->getNames().empty())
        continue;
      StringRef text(skipped->getRange().Start.getPointer(),
                     skipped->getRange().End.getPointer() -
                         skipped->getRange().Start.getPointer());
      if (!text.starts_with("@"))
        continue;
      StringRef fnName = skipped->getNames().front();
      bool noted = false;
      llvm::SmallVector<StringRef> lines;
      text.split(lines, '\n');
      for (StringRef line : lines) {
        line = line.ltrim(" \t\f");
        if (line.starts_with("def") || line.starts_with("async"))
          break;
        if (!line.consume_front("@"))
          continue;
        StringRef dotted = line.take_while([](char c) {
          return llvm::isAlnum(c) || c == '_' || c == '.' || c == ' ';
        }).rtrim();
        StringRef last = dotted.rsplit('.').second.empty()
                             ? dotted
                             : dotted.rsplit('.').second.trim();
        if (last != "jit" && last.edit_distance("jit") <= 2) {
          diag.note(SMLoc::getFromPointer(line.data() - 1),
                    "'@" + dotted + "' is not a jit decorator; did you mean "
                    "'@" + dotted.drop_back(last.size()) + "jit'?");
          noted = true;
        }
      }
      if (!noted)
        diag.note(skipped->getLoc(), "'" + fnName +
                                         "' is decorated, but not with @jit, "
                                         "so it is host code");
    }
    return failure();
  }
  if (!name.empty()) {
    if (FunctionDef *def = module.lookupFunction(name))
      return static_cast<const FunctionDef *>(def);
    llvm::SmallVector<std::string> names;
    for (FunctionDef *def : functions)
      names.push_back(def->getName().str());
    std::string suggestion = findClosestName(name, names);
    std::string message =
        ("no @jit function named '" + name +
         "' in this file; it defines: " + listNames(functions))
            .str();
    if (!suggestion.empty())
      message += "; did you mean '" + suggestion + "'?";
    auto diag = error(fileStart, message);
    if (SkippedStmt *skipped = module.lookupSkipped(name))
      diag.note(skipped->getLoc(),
                "'" + name + "' is defined here without a @jit decorator");
    return failure();
  }
  if (functions.size() == 1)
    return static_cast<const FunctionDef *>(functions.front());
  // Several @jit functions: the kernel is the one no other calls.
  llvm::SmallVector<FunctionDef *> roots = findUncalledFunctions(functions);
  if (roots.size() == 1)
    return static_cast<const FunctionDef *>(roots.front());
  return error(fileStart, "this file defines several @jit functions (" +
                              listNames(functions) +
                              "); choose the kernel with --kernel");
}

namespace {
/// What a kernel parameter's annotation says.
struct ParamAnnotation {
  enum class Kind { None, Constexpr, Scalar, Pointer, Other };
  Kind kind = Kind::None;
  DType dtype;
  std::string spelling;
};
} // namespace

/// Adds the source hash (xxh3, hex) of a buffer.
static std::string hashBuffer(StringRef text) {
  uint64_t hash = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return llvm::utohexstr(hash, /*LowerCase=*/true, /*Width=*/16);
}

LogicalResult CodeGen::emitKernelFunction(const FunctionDef *kernel,
                                          const Signature &signature,
                                          mlir::ModuleOp moduleOp) {
  llvm::ArrayRef<Parameter *> params = kernel->getParams();
  bool haveSignature = !signature.entries.empty() || params.empty();
  interface.name = kernel->getName().str();
  interface.sourcePath =
      srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier().str();
  interface.sourceHash =
      hashBuffer(srcMgr.getMemoryBuffer(bufferId)->getBuffer());
  interface.tuningJson = readTuningDecorators(kernel);

  for (const Parameter *param : params) {
    if (param->getParamKind() == ParamKind::VarPositional ||
        param->getParamKind() == ParamKind::VarKeyword)
      return error(param->getLoc(),
                   "'*args' and '**kwargs' parameters are not supported in "
                   "a tilec kernel");
  }
  // As in Triton's AOT compiler, trailing parameters with a default value
  // may be left out of the signature: they are specialized to the default.
  size_t numEntries = signature.entries.size();
  bool trailingDefaults =
      numEntries < params.size() &&
      llvm::all_of(params.drop_front(numEntries),
                   [](const Parameter *p) { return p->getDefault(); });
  if (haveSignature && numEntries != params.size() && !trailingDefaults) {
    std::string message =
        "signature has " + std::to_string(signature.entries.size()) +
        " entries but kernel '" + kernel->getName().str() + "' has " +
        std::to_string(params.size()) + " parameters";
    if (signature.entries.size() < params.size()) {
      message += "; missing: ";
      bool first = true;
      for (size_t i = signature.entries.size(); i < params.size(); ++i) {
        if (params[i]->getDefault())
          continue;
        if (!first)
          message += ", ";
        first = false;
        message += "'" + params[i]->getName().str() + "'";
      }
      message += " (only trailing parameters with a default value may be "
                 "left out)";
    } else {
      message += "; extra: ";
      for (size_t i = params.size(); i < signature.entries.size(); ++i) {
        if (i != params.size())
          message += ", ";
        message += "'" + signature.entries[i].text + "'";
      }
    }
    return error(kernel->getNameLoc(), message);
  }

  // Evaluate annotations and defaults in the module scope, with a scratch
  // insertion point (they should not emit IR; anything they do is dropped).
  mlir::OwningOpRef<mlir::ModuleOp> scratch =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  builder.setInsertionPointToEnd(scratch->getBody());
  FunctionState moduleState;
  moduleState.frame = moduleFrame;
  moduleState.name = "<module>";
  fn = &moduleState;

  auto evalAnnotation = [&](const Parameter *param) -> ParamAnnotation {
    ParamAnnotation result;
    const Expr *annotation = param->getAnnotation();
    if (!annotation)
      return result;
    result.kind = ParamAnnotation::Kind::Other;
    if (const auto *str = llvm::dyn_cast<StringLiteral>(annotation)) {
      StringRef text = str->getValue();
      if (text == "constexpr" || text.ends_with(".constexpr")) {
        result.kind = ParamAnnotation::Kind::Constexpr;
        return result;
      }
      llvm::Expected<SignatureEntry> entry = parseSignatureEntry(text);
      if (!entry) {
        llvm::consumeError(entry.takeError());
        return result;
      }
      if (entry->isConstexpr())
        return result;
      std::optional<ScalarType> scalar = parseScalarType(entry->type);
      result.kind = entry->isPointer() ? ParamAnnotation::Kind::Pointer
                                       : ParamAnnotation::Kind::Scalar;
      result.dtype =
          entry->isPointer() ? DType::pointer(*scalar) : DType::get(*scalar);
      result.spelling = "'" + text.str() + "'";
      return result;
    }
    FailureOr<CGValue> value = eval(annotation);
    if (failed(value))
      return result;
    if (value->isBuiltin("tl.constexpr")) {
      result.kind = ParamAnnotation::Kind::Constexpr;
    } else if (value->isDType()) {
      result.dtype = value->getDType();
      result.kind = result.dtype.isPointer() ? ParamAnnotation::Kind::Pointer
                                             : ParamAnnotation::Kind::Scalar;
      result.spelling = result.dtype.getSpelling();
    }
    return result;
  };

  struct ParamInfo {
    KernelParameter::Kind kind;
    DType dtype;
    CGValue constant;
    int64_t divisibility = 1;
  };
  // Specializes a parameter to its default value (a constexpr).
  auto useDefault = [&](const Parameter *param, ParamInfo &info,
                        KernelParameter &kp) -> LogicalResult {
    FailureOr<CGValue> value = eval(param->getDefault());
    if (failed(value))
      return failure();
    if (!value->isNumber() && !value->isStr())
      return error(param->getDefault()->getLoc(),
                   "parameter '" + param->getName() +
                       "' is specialized to its default, which must be a "
                       "number, a bool or a string, got " +
                       value->describe());
    info.kind = KernelParameter::Kind::Constexpr;
    info.constant = *value;
    kp.kind = KernelParameter::Kind::Constexpr;
    SignatureEntry literal;
    if (value->isBool()) {
      literal.literalKind = SignatureEntry::LiteralKind::Bool;
      literal.boolValue = value->getBool();
      kp.type = "i1";
    } else if (value->isInt()) {
      literal.literalKind = SignatureEntry::LiteralKind::Int;
      literal.intValue = value->getInt();
      kp.type = pythonIntType(value->getInt()) == DType::get(ScalarType::I32)
                    ? "i32"
                    : "i64";
    } else if (value->isFloat()) {
      literal.literalKind = SignatureEntry::LiteralKind::Float;
      literal.floatValue = value->getFloat();
      kp.type = "fp32";
    } else {
      literal.literalKind = SignatureEntry::LiteralKind::Str;
      literal.strValue = value->getStr().str();
      kp.type = "str";
    }
    kp.value = literal.getJSONValue();
    return success();
  };

  llvm::SmallVector<ParamInfo> infos;
  bool paramsOk = true;
  bool usedDefaults = false;
  for (auto [index, param] : llvm::enumerate(params)) {
    ParamAnnotation annotation = evalAnnotation(param);
    ParamInfo info;
    KernelParameter kp;
    kp.name = param->getName().str();
    if (haveSignature && index >= numEntries) {
      // Left out of the signature: its default (checked above).
      if (annotation.kind == ParamAnnotation::Kind::Pointer) {
        error(param->getLoc(), "parameter '" + param->getName() +
                                   "' is a pointer (" + annotation.spelling +
                                   ") and needs a signature entry");
        paramsOk = false;
        continue;
      }
      if (failed(useDefault(param, info, kp))) {
        paramsOk = false;
        continue;
      }
      usedDefaults = true;
    } else if (haveSignature) {
      const SignatureEntry &entry = signature.entries[index];
      if (entry.isConstexpr()) {
        if (annotation.kind == ParamAnnotation::Kind::Pointer) {
          error(param->getLoc(), "parameter '" + param->getName() +
                                     "' is annotated as a pointer (" +
                                     annotation.spelling +
                                     ") but the signature gives the literal '" +
                                     entry.text + "'");
          paramsOk = false;
          continue;
        }
        info.kind = KernelParameter::Kind::Constexpr;
        switch (entry.literalKind) {
        case SignatureEntry::LiteralKind::Int:
          info.constant = CGValue::integer(entry.intValue);
          break;
        case SignatureEntry::LiteralKind::Float:
          info.constant = CGValue::floating(entry.floatValue);
          break;
        case SignatureEntry::LiteralKind::Bool:
          info.constant = CGValue::boolean(entry.boolValue);
          break;
        case SignatureEntry::LiteralKind::Str:
          info.constant = CGValue::string(entry.strValue);
          break;
        }
        kp.kind = KernelParameter::Kind::Constexpr;
        kp.type = entry.type;
        kp.value = entry.getJSONValue();
      } else {
        if (annotation.kind == ParamAnnotation::Kind::Constexpr) {
          error(param->getLoc(), "parameter '" + param->getName() +
                                     "' is tl.constexpr but the signature "
                                     "gives '" +
                                     entry.text + "'");
          paramsOk = false;
          continue;
        }
        ScalarType scalar = *parseScalarType(entry.type);
        DType dtype =
            entry.isPointer() ? DType::pointer(scalar) : DType::get(scalar);
        if ((annotation.kind == ParamAnnotation::Kind::Pointer ||
             annotation.kind == ParamAnnotation::Kind::Scalar) &&
            annotation.dtype != dtype) {
          error(param->getLoc(), "parameter '" + param->getName() +
                                     "' is annotated " + annotation.spelling +
                                     " but the signature gives '" + entry.text +
                                     "'");
          paramsOk = false;
          continue;
        }
        info.kind = entry.isPointer() ? KernelParameter::Kind::Pointer
                                      : KernelParameter::Kind::Scalar;
        info.dtype = dtype;
        info.divisibility = entry.divisibility;
        kp.kind = info.kind;
        kp.type = entry.type;
        kp.divisibility = entry.divisibility;
      }
    } else {
      switch (annotation.kind) {
      case ParamAnnotation::Kind::None:
      case ParamAnnotation::Kind::Other:
        error(param->getLoc(),
              "parameter '" + param->getName() +
                  "' has no type: give a --signature, or annotate it "
                  "(tl.constexpr, tl.int32, tl.pointer_type(tl.float32), "
                  "...)");
        paramsOk = false;
        continue;
      case ParamAnnotation::Kind::Constexpr: {
        if (!param->getDefault()) {
          error(param->getLoc(), "parameter '" + param->getName() +
                                     "' is tl.constexpr but has no value: "
                                     "give it in --signature or as a default");
          paramsOk = false;
          continue;
        }
        if (failed(useDefault(param, info, kp))) {
          paramsOk = false;
          continue;
        }
        break;
      }
      case ParamAnnotation::Kind::Scalar:
      case ParamAnnotation::Kind::Pointer:
        info.kind = annotation.kind == ParamAnnotation::Kind::Pointer
                        ? KernelParameter::Kind::Pointer
                        : KernelParameter::Kind::Scalar;
        info.dtype = annotation.dtype;
        kp.kind = info.kind;
        kp.type = scalarTypeName(annotation.dtype.getScalar());
        break;
      }
    }
    infos.push_back(info);
    interface.parameters.push_back(kp);
  }
  fn = nullptr;
  if (!paramsOk || hadError())
    return failure();

  // The signature the kernel was specialized for, normalized.
  if (haveSignature && !usedDefaults) {
    interface.signature = signature.str();
  } else {
    std::string text;
    for (auto [index, kp] : llvm::enumerate(interface.parameters)) {
      if (!text.empty())
        text += ", ";
      if (index < numEntries)
        text += signature.entries[index].text;
      else if (kp.kind == KernelParameter::Kind::Constexpr)
        text += kp.value == "true"    ? "True"
                : kp.value == "false" ? "False"
                                      : kp.value;
      else
        text +=
            (kp.kind == KernelParameter::Kind::Pointer ? "*" : "") + kp.type;
    }
    interface.signature = text;
  }

  // The function.
  llvm::SmallVector<mlir::Type> argTypes;
  for (const ParamInfo &info : infos)
    if (info.kind != KernelParameter::Kind::Constexpr)
      argTypes.push_back(info.dtype.toMLIR(&context));
  mlir::Location kernelLoc = getLoc(kernel->getDefLoc());
  builder.setInsertionPointToEnd(moduleOp.getBody());
  auto funcOp =
      mlir::func::FuncOp::create(builder, kernelLoc, kernel->getName(),
                                 builder.getFunctionType(argTypes, {}));
  funcOp->setAttr(tile::kKernelAttrName, builder.getUnitAttr());
  mlir::Block *entry = funcOp.addEntryBlock();

  // Bind the parameters.
  auto kernelFrame = newFrame();
  unsigned argIndex = 0;
  for (auto [index, param] : llvm::enumerate(params)) {
    const ParamInfo &info = infos[index];
    if (info.kind == KernelParameter::Kind::Constexpr) {
      kernelFrame->vars[param->getName()] =
          Binding{info.constant, param->getLoc()};
      continue;
    }
    mlir::BlockArgument arg = entry->getArgument(argIndex);
    arg.setLoc(getLoc(param->getLoc()));
    if (info.divisibility > 1)
      funcOp.setArgAttr(argIndex, tile::kDivisibilityAttrName,
                        builder.getI32IntegerAttr(info.divisibility));
    kernelFrame->vars[param->getName()] =
        Binding{CGValue::kernelParameter(CGValue::runtime(arg, info.dtype),
                                         param),
                param->getLoc()};
    ++argIndex;
  }

  // The body.
  FunctionState kernelState;
  kernelState.frame = kernelFrame;
  kernelState.name = kernel->getName().str();
  kernelState.isKernel = true;
  collectClosureReads(kernel->getBody(), kernelState.closureReads);
  fn = &kernelState;
  builder.setInsertionPointToEnd(entry);
  currentLoc = kernelLoc;
  compileBlock(kernel->getBody());
  {
    LocationScope scope(*this, kernel->getDefLoc());
    mlir::func::ReturnOp::create(builder, loc());
  }
  fn = nullptr;
  return hadError() ? failure() : success();
}

FailureOr<KernelModule> CodeGen::emit(StringRef kernelName,
                                      StringRef signatureText) {
  collectGlobals();
  FailureOr<const FunctionDef *> kernel = selectKernel(kernelName);
  if (failed(kernel))
    return failure();
  // `@triton.jit(debug=True)` (a literal) decides debug mode for this
  // kernel, whatever the option says.
  for (const Expr *decorator : (*kernel)->getDecorators()) {
    const auto *call = llvm::dyn_cast<CallExpr>(decorator);
    if (!call || !isJitDecorator(decorator))
      continue;
    if (const Argument *arg = call->getKeywordArg("debug")) {
      if (const auto *flag = llvm::dyn_cast<BoolLiteral>(arg->value))
        debug = flag->getValue();
      else if (!llvm::isa<NoneLiteral>(arg->value))
        warning(arg->loc, "debug= of @jit is not a literal True/False; "
                          "ignored (use --debug)");
    }
  }

  llvm::Expected<Signature> signature = parseSignature(signatureText);
  if (!signature) {
    error((*kernel)->getNameLoc(),
          "invalid --signature for kernel '" + (*kernel)->getName() +
              "': " + llvm::toString(signature.takeError()));
    return failure();
  }

  mlir::OwningOpRef<mlir::ModuleOp> moduleOp =
      mlir::ModuleOp::create(getLoc(SMLoc::getFromPointer(
          srcMgr.getMemoryBuffer(bufferId)->getBufferStart())));
  if (failed(emitKernelFunction(*kernel, *signature, *moduleOp)) || hadError())
    return failure();

  // The IR must verify; a failure is a compiler bug, reported at the kernel.
  std::string verifierMessage;
  {
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diag) {
          if (verifierMessage.empty()) {
            llvm::raw_string_ostream os(verifierMessage);
            os << diag;
            if (auto fileLoc =
                    llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
              os << " (at line " << fileLoc.getLine() << ", column "
                 << fileLoc.getColumn() << ")";
          }
          return mlir::success();
        });
    if (failed(mlir::verify(*moduleOp))) {
      error((*kernel)->getNameLoc(),
            "internal error: the tile IR generated for kernel '" +
                (*kernel)->getName() + "' does not verify: " + verifierMessage);
      return failure();
    }
  }

  KernelModule result;
  result.module = std::move(moduleOp);
  result.interface = interface;
  for (StringRef name : inlinedFunctions)
    result.inlinedFunctions.push_back(name.str());
  return result;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

FailureOr<KernelModule>
tilec::frontend::emitKernel(llvm::SourceMgr &srcMgr, unsigned bufferId,
                            StringRef kernelName, StringRef signature,
                            mlir::MLIRContext &context, DiagnosticSink &diags,
                            const EmitOptions &options) {
  context.loadDialect<tile::TileDialect, mlir::arith::ArithDialect,
                      mlir::math::MathDialect, mlir::scf::SCFDialect,
                      mlir::func::FuncDialect>();
  std::unique_ptr<ModuleAST> module = parseModule(srcMgr, bufferId, diags);
  if (!module)
    return failure();
  CodeGen codegen(srcMgr, bufferId, *module, context, diags);
  codegen.debug = options.debug;
  return codegen.emit(kernelName, signature);
}
